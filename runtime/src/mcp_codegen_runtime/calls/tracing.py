"""Observing tool calls: `client.on_call(callback)` hooks and a ready `TraceRecorder`.

Every tool call made through a client (typed methods, `call()`, `call_raw()`) or through an agent
tool adapter is reported, once it finished, as a `ToolCall`: the wire name, the arguments, the
result or the error, the duration. A callback may be a plain function or a coroutine function;
an exception it raises is logged and swallowed (a broken observer never breaks a call).

    recorder = TraceRecorder().attach(client)
    ...
    print(recorder.transcript())
    Path("trace.json").write_text(recorder.to_json())
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from ..text import one_line

if TYPE_CHECKING:
    from typing import Self

__all__ = ["CallHook", "ToolCall", "TraceRecorder", "observed"]

_log = logging.getLogger(__name__)

R = TypeVar("R")


@dataclass(frozen=True)
class ToolCall:
    """One finished tool call, as reported to `on_call` hooks."""

    #: The tool's wire name.
    tool: str
    #: The arguments as given (Python or wire field names; arguments left out are absent).
    arguments: Mapping[str, Any]
    #: What the call returned (the typed result, a ToolResult, ...); None when it raised.
    result: Any = None
    #: The exception the call raised (ToolError, ArgumentsValidationError, ...), or None.
    error: BaseException | None = None
    #: Wall-clock seconds the call took.
    duration: float = 0.0
    #: When the call started (`time.time()`).
    started_at: float = 0.0
    #: How the call was made: "client" (typed method or `call()`), "raw" (`call_raw()`), "agent" (an adapter).
    source: str = "client"
    #: The name the model used, for calls made through an agent tool adapter.
    agent_name: str | None = None
    #: The framework whose adapter made the call ("openai", "anthropic", "langchain", ...), or None.
    framework: str | None = None

    @property
    def ok(self) -> bool:
        """True when the call returned (a tool result with `isError` counts as a failure)."""
        if self.error is not None:
            return False
        return not bool(getattr(self.result, "is_error", False))

    def as_dict(self) -> dict[str, Any]:
        """A JSON-compatible dict of this call."""
        data: dict[str, Any] = {
            "tool": self.tool,
            "arguments": jsonable(dict(self.arguments)),
            "ok": self.ok,
            "duration_ms": round(self.duration * 1000, 3),
            "started_at": self.started_at,
            "source": self.source,
        }
        if self.agent_name is not None:
            data["agent_name"] = self.agent_name
        if self.framework is not None:
            data["framework"] = self.framework
        if self.error is not None:
            data["error"] = {
                "type": type(self.error).__name__,
                "message": str(self.error),
            }
        else:
            data["result"] = jsonable(self.result)
        return data


class CallHook(Protocol):
    """A callback given every finished `ToolCall`; it may return an awaitable (it is awaited)."""

    def __call__(self, call: ToolCall, /) -> object: ...


def jsonable(value: object) -> Any:
    """`value` as JSON-compatible data: pydantic models dumped by alias, SDK results as wire JSON."""
    from pydantic import BaseModel
    from pydantic_core import to_jsonable_python

    raw = getattr(value, "raw", None)
    if isinstance(raw, BaseModel) and not isinstance(value, BaseModel):
        value = raw  # a ToolResult / ResourceResult view: its wire form
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict) and not isinstance(value, type):
        value = as_dict()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return to_jsonable_python(value, fallback=repr, by_alias=True)


async def fire(hooks: Sequence[CallHook], call: ToolCall) -> None:
    """Give `call` to every hook, in order; an exception in a hook is logged, never raised."""
    for hook in hooks:
        try:
            outcome = hook(call)
            if isinstance(outcome, Awaitable):
                await cast(Awaitable[object], outcome)
        except Exception:  # noqa: BLE001 - an observer must not break the call
            _log.exception("on_call hook %r failed", hook)


async def observed(
    hooks: Sequence[CallHook],
    tool: str,
    arguments: Mapping[str, Any],
    call: Callable[[], Awaitable[R]],
    *,
    source: str = "client",
    agent_name: str | None = None,
    framework: str | None = None,
) -> R:
    """`await call()`, reporting it to `hooks` when it returned or raised (cancellation is not reported)."""
    started_at = time.time()
    start = time.perf_counter()

    def record(result: object, error: BaseException | None) -> ToolCall:
        return ToolCall(
            tool,
            arguments,
            result=result,
            error=error,
            duration=time.perf_counter() - start,
            started_at=started_at,
            source=source,
            agent_name=agent_name,
            framework=framework,
        )

    try:
        result = await call()
    except Exception as error:
        await fire(hooks, record(None, error))
        raise
    await fire(hooks, record(result, None))
    return result


class _Observable(Protocol):
    def on_call(self, callback: CallHook) -> Callable[[], None]: ...


def _result_text(value: object) -> str:
    text = getattr(value, "text", None)
    if isinstance(text, str) and (text or getattr(value, "raw", None) is not None):
        structured = getattr(value, "structured", None)
        if structured is not None and not text:
            return json.dumps(jsonable(structured), ensure_ascii=False)
        return text
    return json.dumps(jsonable(value), ensure_ascii=False, default=repr)


@dataclass
class TraceRecorder:
    """Keeps every tool call of the clients it is attached to, in order (thread-safe).

    `recorder.attach(client)` (or `client.on_call(recorder)`), then `recorder.calls`,
    `recorder.transcript()` (readable text) and `recorder.to_json()`. `limit` keeps only the
    most recent calls.
    """

    limit: int | None = None
    _calls: list[ToolCall] = field(default_factory=list[ToolCall], repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _detach: list[Callable[[], None]] = field(
        default_factory=list[Callable[[], None]], repr=False
    )

    def __call__(self, call: ToolCall, /) -> None:
        with self._lock:
            self._calls.append(call)
            if self.limit is not None and len(self._calls) > self.limit:
                del self._calls[: len(self._calls) - self.limit]

    def attach(self, client: _Observable) -> Self:
        """Record the calls of `client` (an async or a sync client); returns the recorder."""
        self._detach.append(client.on_call(self))
        return self

    def detach(self) -> None:
        """Stop recording from every client it was attached to (the calls are kept)."""
        detach, self._detach = self._detach, []
        for remove in detach:
            remove()

    @property
    def calls(self) -> list[ToolCall]:
        """The recorded calls, oldest first (a copy)."""
        with self._lock:
            return list(self._calls)

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()

    def __len__(self) -> int:
        return len(self._calls)

    def __iter__(self) -> Iterator[ToolCall]:
        return iter(self.calls)

    def as_dicts(self) -> list[dict[str, Any]]:
        return [call.as_dict() for call in self.calls]

    def to_json(self, *, indent: int | None = 2) -> str:
        """Every call as a JSON array (see `ToolCall.as_dict`)."""
        return json.dumps(self.as_dicts(), indent=indent, ensure_ascii=False)

    def transcript(self, *, width: int = 200) -> str:
        """One readable line per call: `1. tool(arg=value) -> result  [3.2 ms]`."""
        lines: list[str] = []
        for index, call in enumerate(self.calls, 1):
            arguments = ", ".join(
                f"{key}={json.dumps(jsonable(value), ensure_ascii=False)}"
                for key, value in call.arguments.items()
            )
            name = call.tool
            if call.agent_name is not None and call.agent_name != call.tool:
                name = f"{call.agent_name} ({call.tool})"
            if call.error is not None:
                outcome = f"!! {type(call.error).__name__}: {call.error}"
            elif not call.ok:
                outcome = f"!! error: {_result_text(call.result)}"
            else:
                outcome = f"-> {_result_text(call.result)}"
            head = f"{index}. {name}({one_line(arguments, width)})"
            lines.append(
                f"{head} {one_line(outcome, width)}  [{call.duration * 1000:.1f} ms]"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<TraceRecorder calls={len(self._calls)}>"
