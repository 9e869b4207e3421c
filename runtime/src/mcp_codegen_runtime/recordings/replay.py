"""Replaying a recording: an in-memory MCP server that answers from it, with no server and no process.

The client talks to it over the SDK's in-memory streams exactly as it talks to a real server (the same
session, the same checks). What it answers:

- the handshake (`initialize`, `server/discover`) and the listings (`tools/list` and the others, by cursor)
  from the recording, whatever the client's own params: a recording made by another client (mcporter's)
  replays through a generated one; `ping` always;
- every other request (`tools/call`, `resources/read`, `prompts/get`, ...) with the recorded answer of the
  next recorded request, when it has the same method and deeply equal params (for a tool call: its name and
  arguments; `_meta` aside, a placeholder `<redacted:...>` matching any text). The answer takes the live
  request's id. `lenient=True` matches any unused recorded request instead of the next; `ignore_arguments`
  leaves keys of those names out of the comparison, at any depth (timestamps, ids).

A request that matches nothing is answered with an error the client raises as `ReplayMismatchError`,
naming the request and the one the recording expected next; closing the connection with recorded requests
unused raises `ReplayMismatchError` too. What the server sent around an answer (progress, logging, list
changes, its own requests) is sent again at its place: before the answer when it came before it, after it
when it came after; a progress notification carries the live request's progress token.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, Callable, Collection, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..calls.errors import ReplayMismatchError
from ..connection.attempt import (
    Attempt,
    describe_error,
    diagnose_common,
    mcp_error_code,
    sdk_client,
)
from ..connection.session import AsyncConnection
from ..text import shortened
from .envelope import RecordedSession
from .redact import PLACEHOLDER
from .tap import wire_json

if TYPE_CHECKING:
    import anyio.abc
    from mcp import Client

__all__ = [
    "REPLAY_MISMATCH",
    "ReplayConnection",
    "Replayer",
    "replay_attempt",
    "replaying",
]

#: The JSON-RPC error code a replay answers an unmatched request with (the client raises it as
#: `ReplayMismatchError`).
REPLAY_MISMATCH = -32099
_HANDSHAKE = frozenset({"initialize", "server/discover"})
#: A listing method -> the key of its items (answered empty when the recording has none).
_LISTINGS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}
_FREE = _HANDSHAKE | frozenset(_LISTINGS) | {"ping"}
_SHOWN = 300
ClientT = TypeVar("ClientT")


def _id_key(value: object) -> str:
    return json.dumps(value)


def _params(message: Mapping[str, Any]) -> dict[str, Any]:
    params = message.get("params")
    return cast("dict[str, Any]", params) if isinstance(params, dict) else {}


def _progress_token(message: Mapping[str, Any]) -> object:
    meta = _params(message).get("_meta")
    return (
        cast("dict[str, Any]", meta).get("progressToken")
        if isinstance(meta, dict)
        else None
    )


def _compared(message: Mapping[str, Any]) -> object:
    """What of a request is compared: a call's name and arguments, a read's URI, else its params."""
    method = message.get("method")
    params = _params(message)
    if method in ("tools/call", "prompts/get"):
        return {"name": params.get("name"), "arguments": params.get("arguments") or {}}
    if method == "resources/read":
        return {"uri": params.get("uri")}
    return {key: value for key, value in params.items() if key != "_meta"}


def describe_request(message: Mapping[str, Any]) -> str:
    """How an error names a request: `tools/call 'get-sum' {"a": 2, "b": 3}`."""
    method = str(message.get("method"))
    params = _params(message)
    if method in ("tools/call", "prompts/get"):
        arguments = json.dumps(params.get("arguments") or {}, ensure_ascii=False)
        text = f"{method} {params.get('name')!r} {arguments}"
    elif method == "resources/read":
        text = f"{method} {params.get('uri')!r}"
    else:
        shown = {key: value for key, value in params.items() if key != "_meta"}
        text = f"{method} {json.dumps(shown, ensure_ascii=False)}" if shown else method
    return shortened(text, _SHOWN)


def _pattern(recorded: str) -> re.Pattern[str]:
    parts = PLACEHOLDER.split(recorded)
    return re.compile("(?s:.+?)".join(re.escape(part) for part in parts))


def same(recorded: object, live: object, ignored: Collection[str] = ()) -> bool:
    """Deep JSON equality; a recorded placeholder matches any text, keys named in `ignored` are skipped."""
    if isinstance(recorded, dict) and isinstance(live, dict):
        was = {
            k: v
            for k, v in cast("dict[str, object]", recorded).items()
            if k not in ignored
        }
        now = {
            k: v for k, v in cast("dict[str, object]", live).items() if k not in ignored
        }
        return was.keys() == now.keys() and all(
            same(value, now[key], ignored) for key, value in was.items()
        )
    if isinstance(recorded, list) and isinstance(live, list):
        was_items, now_items = cast("list[object]", recorded), cast(
            "list[object]", live
        )
        return len(was_items) == len(now_items) and all(
            same(a, b, ignored) for a, b in zip(was_items, now_items, strict=True)
        )
    if isinstance(recorded, str) and isinstance(live, str):
        if recorded == live:
            return True
        return (
            "<redacted:" in recorded and _pattern(recorded).fullmatch(live) is not None
        )
    if isinstance(recorded, bool) or isinstance(live, bool):
        return recorded is live
    if isinstance(recorded, (int, float)) and isinstance(live, (int, float)):
        return recorded == live
    return recorded is None and live is None


def _messages() -> list[dict[str, Any]]:
    return []


@dataclass
class _Exchange:
    """One recorded request, its answer, and what the server sent before and after the answer."""

    request: dict[str, Any]
    response: dict[str, Any] | None = None
    before: list[dict[str, Any]] = field(default_factory=_messages)
    after: list[dict[str, Any]] = field(default_factory=_messages)
    used: bool = False

    @property
    def method(self) -> str:
        return str(self.request.get("method"))


def _exchanges(session: RecordedSession) -> list[_Exchange]:
    """The session's requests in the order the client sent them, each with its answer and the server's
    messages at their places (a progress notification goes with the request whose token it carries).
    """
    found: list[_Exchange] = []
    pending: dict[str, _Exchange] = {}
    by_token: dict[str, _Exchange] = {}
    last: _Exchange | None = None
    for line in session.lines:
        message = line.message
        if line.direction == "send":
            if line.is_request:  # a client's notification or answer is not replayed
                exchange = last = _Exchange(message)
                found.append(exchange)
                pending[_id_key(message.get("id"))] = exchange
                token = _progress_token(message)
                if token is not None:
                    by_token[_id_key(token)] = exchange
            continue
        if line.is_response:
            answered = pending.pop(_id_key(message.get("id")), None)
            if answered is not None:
                answered.response = message
            continue
        target = last
        if line.method == "notifications/progress":
            token = _params(message).get("progressToken")
            target = by_token.get(_id_key(token), target)
        if target is not None:
            (target.before if target.response is None else target.after).append(message)
    return found


class Replayer:
    """Answers one recorded session (see the module docstring); shared by every session of a connection."""

    def __init__(
        self,
        session: RecordedSession,
        *,
        source: str,
        lenient: bool = False,
        ignore_arguments: Collection[str] = (),
    ) -> None:
        self.source = source
        self.lenient = lenient
        self.ignored = frozenset(ignore_arguments)
        exchanges = _exchanges(session)
        self._ordered = [e for e in exchanges if e.method not in _FREE]
        self._free: dict[str, list[_Exchange]] = {}
        for exchange in exchanges:
            if exchange.method in _FREE:
                self._free.setdefault(exchange.method, []).append(exchange)
        #: Every mismatch so far, by the index its error answer carries.
        self.mismatches: list[ReplayMismatchError] = []
        self._asked = 0

    # -- choosing the answer -------------------------------------------------------------------------------

    def unused(self) -> list[str]:
        """The recorded requests not answered yet, described."""
        return [describe_request(e.request) for e in self._ordered if not e.used]

    def _take(self, request: Mapping[str, Any]) -> _Exchange | ReplayMismatchError:
        unused = [e for e in self._ordered if not e.used]
        candidates = unused if self.lenient else unused[:1]
        wanted = _compared(request)
        for exchange in candidates:
            if exchange.method == request.get("method") and same(
                _compared(exchange.request), wanted, self.ignored
            ):
                exchange.used = True
                return exchange
        sent = describe_request(request)
        expected = describe_request(unused[0].request) if unused else None
        if expected is None:
            why = "every recorded request was already answered"
        elif self.lenient:
            why = f"no unused recorded request matches (the next is {expected})"
        else:
            why = f"the recording expected next {expected}"
        return ReplayMismatchError(
            f"replay of {self.source}: {sent} is not in the recording; {why}",
            request=sent,
            expected=expected,
        )

    def _free_exchange(self, request: Mapping[str, Any]) -> _Exchange | None:
        method = str(request.get("method"))
        recorded = self._free.get(method, [])
        if method in _LISTINGS:
            cursor = _params(request).get("cursor")
            recorded = [
                e for e in recorded if _params(e.request).get("cursor") == cursor
            ]
        if not recorded:
            return None
        return next((e for e in recorded if not e.used), recorded[-1])

    def answer_for(
        self, request: Mapping[str, Any]
    ) -> tuple[_Exchange | None, dict[str, Any]]:
        """The answer to send to `request`, and the exchange whose server messages go with it (None when
        there are none to send: a made-up answer, or a listing answered before)."""
        method = str(request.get("method"))
        if method in _FREE:
            exchange = self._free_exchange(request)
            if exchange is not None and exchange.response is not None:
                first, exchange.used = not exchange.used, True
                return (exchange if first else None), exchange.response
            if method == "ping":
                return None, {"result": {}}
            if method in _LISTINGS and _params(request).get("cursor") is None:
                return None, {"result": {_LISTINGS[method]: []}}
            return None, _error(
                -32601, f"Method not found (not in the recording): {method}"
            )
        taken = self._take(request)
        if isinstance(taken, ReplayMismatchError):
            self.mismatches.append(taken)
            data = {"replayMismatch": len(self.mismatches) - 1}
            return None, _error(REPLAY_MISMATCH, str(taken), data)
        if taken.response is None:
            return taken, _error(-32603, "the recording has no answer to this request")
        return taken, taken.response

    def explain(self, error: BaseException, _method: str | None) -> Exception | None:
        """The `ReplayMismatchError` behind a replay's error answer, or None."""
        if mcp_error_code(error) != REPLAY_MISMATCH:
            return None
        data = getattr(getattr(error, "error", None), "data", None)
        if data is None:
            data = getattr(error, "data", None)
        index = (
            cast("dict[str, Any]", data).get("replayMismatch")
            if isinstance(data, dict)
            else None
        )
        if isinstance(index, int) and 0 <= index < len(self.mismatches):
            return self.mismatches[index]
        return None

    def check_finished(self) -> None:
        """Raise `ReplayMismatchError` when recorded requests were never sent."""
        unused = self.unused()
        if unused:
            shown = "; ".join(unused[:3]) + ("; ..." if len(unused) > 3 else "")
            raise ReplayMismatchError(
                f"replay of {self.source} closed with {len(unused)} recorded request(s) never sent: {shown}",
                expected=unused[0],
            )

    # -- the server --------------------------------------------------------------------------------------------

    @asynccontextmanager
    async def transport(self) -> AsyncGenerator[tuple[Any, Any], None]:
        """The client's `(read, write)` streams of one replayed session."""
        import anyio
        from mcp.shared.memory import create_client_server_memory_streams

        async with create_client_server_memory_streams() as (client, server):
            async with anyio.create_task_group() as group:
                group.start_soon(_Serving(self, *server, group).run)
                try:
                    yield client
                finally:
                    group.cancel_scope.cancel()


def _error(code: int, message: str, data: object = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"error": error}


class _Serving:
    """One replayed session's server side: reads the client's messages, sends the recorded ones."""

    def __init__(
        self, replayer: Replayer, read: Any, write: Any, group: anyio.abc.TaskGroup
    ) -> None:
        self.replayer = replayer
        self.read = read
        self.write = write
        self.group = group
        #: Our own requests to the client (a recorded elicitation, say) waiting for its answer.
        self.waiting: dict[str, Any] = {}
        self.sent = 0

    async def run(self) -> None:
        async for item in self.read:
            message = wire_json(item)
            if message is None:
                continue
            if "method" not in message:  # the client's answer to a request of ours
                event = self.waiting.pop(_id_key(message.get("id")), None)
                if event is not None:
                    event.set()
                continue
            if "id" not in message:
                continue  # the client's notifications change nothing in a recording
            exchange, answer = self.replayer.answer_for(message)
            self.group.start_soon(self.reply, message, exchange, answer)

    async def reply(
        self,
        request: dict[str, Any],
        exchange: _Exchange | None,
        answer: dict[str, Any],
    ) -> None:
        token = _progress_token(request)
        if exchange is not None:
            for message in exchange.before:
                await self.send_server_message(message, token)
        await self.send({"jsonrpc": "2.0", "id": request.get("id"), **_outcome(answer)})
        if exchange is not None:
            for message in exchange.after:
                await self.send_server_message(message, token)

    async def send_server_message(self, message: dict[str, Any], token: object) -> None:
        if message.get("method") == "notifications/progress":
            if token is None:
                return  # the live request asked for no progress
            params = {**_params(message), "progressToken": token}
            message = {**message, "params": params}
        if (
            "id" in message
        ):  # a request of the server's (elicitation, sampling, roots): wait for the answer
            import anyio

            self.sent += 1
            request_id = f"replay-{self.sent}"
            event = anyio.Event()
            self.waiting[_id_key(request_id)] = event
            await self.send({**message, "id": request_id})
            await event.wait()
            return
        await self.send(message)

    async def send(self, message: dict[str, Any]) -> None:
        from mcp.shared.message import SessionMessage

        await self.write.send(SessionMessage(message=_message(message)))


def _outcome(answer: Mapping[str, Any]) -> dict[str, Any]:
    return {key: answer[key] for key in ("result", "error") if key in answer}


def _message(value: Mapping[str, Any]) -> Any:
    import mcp_types
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(mcp_types.JSONRPCMessage)
    return adapter.validate_python(dict(value))


def replay_attempt(replayer: Replayer, timeout: float) -> Attempt:
    """The one way to reach a replayed server: its in-memory transport."""

    def open_client(options: Mapping[str, Any]) -> Client:
        return sdk_client(replayer.transport(), timeout, options)

    def diagnose(error: BaseException) -> str:
        return diagnose_common(error, timeout) or describe_error(error)

    return Attempt(
        label=f"replay of {replayer.source}",
        open=open_client,
        diagnose=diagnose,
        explain=replayer.explain,
    )


def replaying(
    replayer: Replayer, timeout: float
) -> tuple[Callable[[], list[Attempt]], type[AsyncConnection[Any]]]:
    """The attempts and the connection class of a connection answered by `replayer`."""
    return (lambda: [replay_attempt(replayer, timeout)]), ReplayConnection


class ReplayConnection(AsyncConnection[ClientT]):
    """A connection to a replayed session: closing it (without an error) checks every recorded request was sent."""

    replayer: Replayer

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await super().__aexit__(exc_type, exc, traceback)
        if exc is None:
            self.replayer.check_finished()
