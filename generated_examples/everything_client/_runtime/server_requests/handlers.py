"""Typed handlers for the requests and log messages an MCP server sends to its client.

Elicitation (the server asks the user for input), sampling (the server asks the client's LLM),
roots (the server asks which directories it may work in) and log messages. Handlers are written
against the small types here, never against `mcp_types`; `ServerRequests` turns them into the
SDK's callbacks, and only the kinds given are advertised to the server at initialize.

A handler may be a plain function or an `async def`. A plain function runs on the client's event
loop thread (for the blocking `Client`, its background thread), so it must not block for long:
write `async def` handlers for slow work, or use `anyio.to_thread.run_sync` inside them.
"""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TextIO, cast

if TYPE_CHECKING:
    import mcp_types
    from mcp import ClientSession

    from ..calls.drift import DriftSummary

__all__ = [
    "Accept",
    "Cancel",
    "ChangeHandler",
    "ChangeKind",
    "Completion",
    "Decline",
    "ElicitationAnswer",
    "ElicitationHandler",
    "ElicitationRequest",
    "LogHandler",
    "LogLevel",
    "ListChanged",
    "LogMessage",
    "ResourceUpdatedHandler",
    "Root",
    "RootLike",
    "SamplingHandler",
    "SamplingMessage",
    "SamplingRequest",
    "ServerRequests",
    "accept_defaults",
    "ask_on_terminal",
    "elicited_content",
    "list_changed_kind",
    "root_uri",
    "updated_resource",
]

_log = logging.getLogger(__name__)

LogLevel = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]

# ------------------------------------------------------------------------------------ elicitation


@dataclass(frozen=True)
class ElicitationRequest:
    """What the server asks the user: `message`, and the form in `requested_schema`.

    `requested_schema` is a flat JSON Schema object (`properties` of strings, numbers,
    booleans and string enums). In URL mode (`mode == "url"`) the server instead asks the
    user to open `url`; accepting means the user agreed to go there.
    """

    message: str
    requested_schema: Mapping[str, Any] = field(default_factory=lambda: {})
    mode: Literal["form", "url"] = "form"
    url: str | None = None


@dataclass(frozen=True)
class Accept:
    """The user submitted the form: `content` maps property names to values.

    Missing properties that have a `default` in the schema are filled in before sending.
    """

    content: Mapping[str, object] = field(default_factory=lambda: {})
    #: The wire action; answers are recognised by it, so the types of another generated
    #: package's runtime work too.
    action: ClassVar[str] = "accept"


@dataclass(frozen=True)
class Decline:
    """The user explicitly refused."""

    action: ClassVar[str] = "decline"


@dataclass(frozen=True)
class Cancel:
    """The user dismissed the request without choosing."""

    action: ClassVar[str] = "cancel"


#: What an elicitation handler returns; a plain mapping means `Accept(mapping)`.
ElicitationAnswer = Accept | Decline | Cancel | Mapping[str, object]
ElicitationHandler = Callable[
    [ElicitationRequest], ElicitationAnswer | Awaitable[ElicitationAnswer]
]


def _properties(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    raw = schema.get("properties")
    if not isinstance(raw, Mapping):
        return {}
    found: dict[str, Mapping[str, Any]] = {}
    for name, spec in cast(Mapping[object, object], raw).items():
        if isinstance(name, str) and isinstance(spec, Mapping):
            found[name] = cast(Mapping[str, Any], spec)
    return found


def _type_error(name: str, spec: Mapping[str, Any], value: object) -> str | None:
    """Why `value` does not fit the property `spec`, or None."""
    kind = spec.get("type")
    if kind == "string":
        if not isinstance(value, str):
            return f"{name!r} must be a string"
        choices = _choices(spec)
        if choices is not None and value not in choices:
            return f"{name!r} must be one of {sorted(choices)}"
        low, high = spec.get("minLength"), spec.get("maxLength")
        if isinstance(low, int) and len(value) < low:
            return f"{name!r} must have at least {low} characters"
        if isinstance(high, int) and len(value) > high:
            return f"{name!r} must have at most {high} characters"
    elif kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{name!r} must be a {kind}"
        if kind == "integer" and not (isinstance(value, int) or value.is_integer()):
            return f"{name!r} must be an integer"
        if isinstance(value, float) and not math.isfinite(value):
            return f"{name!r} must be finite"
        low, high = spec.get("minimum"), spec.get("maximum")
        if isinstance(low, int | float) and value < low:
            return f"{name!r} must be at least {low}"
        if isinstance(high, int | float) and value > high:
            return f"{name!r} must be at most {high}"
    elif kind == "boolean":
        if not isinstance(value, bool):
            return f"{name!r} must be a boolean"
    elif kind == "array":
        if not isinstance(value, list | tuple) or not all(
            isinstance(item, str) for item in cast(Sequence[object], value)
        ):
            return f"{name!r} must be a list of strings"
        items = spec.get("items")
        choices = (
            _choices(cast(Mapping[str, Any], items))
            if isinstance(items, Mapping)
            else None
        )
        if choices is not None:
            bad = [i for i in cast(Sequence[str], value) if i not in choices]
            if bad:
                return f"{name!r} must only hold values of {sorted(choices)}"
    return None


def _choices(spec: Mapping[str, Any]) -> set[str] | None:
    """The allowed values of a string (or array item) schema: `enum`, or `oneOf`/`anyOf` consts."""
    enum = spec.get("enum")
    if isinstance(enum, list):
        return {str(v) for v in cast(list[object], enum)}
    for key in ("oneOf", "anyOf"):
        options = spec.get(key)
        if isinstance(options, list):
            values = {
                str(cast(Mapping[str, object], option)["const"])
                for option in cast(list[object], options)
                if isinstance(option, Mapping) and "const" in option
            }
            if values:
                return values
    return None


def elicited_content(
    schema: Mapping[str, Any], content: Mapping[str, object]
) -> dict[str, object]:
    """`content` checked against the elicitation `schema`, with the schema's defaults filled in.

    Raises `ValueError` naming what does not fit (an unknown or missing required property, a
    wrong type, a value outside its enum or bounds).
    """
    properties = _properties(schema)
    result: dict[str, object] = {}
    problems: list[str] = []
    for name, value in content.items():
        spec = properties.get(name)
        if spec is None:
            problems.append(f"{name!r} is not a requested property")
            continue
        if value is None:
            continue
        problem = _type_error(name, spec, value)
        if problem is not None:
            problems.append(problem)
        else:
            result[name] = (
                list(cast(tuple[object, ...], value))
                if isinstance(value, tuple)
                else value
            )
    for name, spec in properties.items():
        if name not in result and "default" in spec:
            result[name] = spec["default"]
    required = schema.get("required")
    if isinstance(required, list):
        for wanted in cast(list[object], required):
            if isinstance(wanted, str) and wanted not in result:
                problems.append(f"{wanted!r} is required")
    if problems:
        raise ValueError("; ".join(problems))
    return result


def accept_defaults(request: ElicitationRequest) -> Accept | Decline:
    """An elicitation handler that accepts with the schema's defaults (and nothing else).

    Declines when a required property has no default (there is nothing valid to send), and
    in URL mode (nobody is there to open the URL).
    """
    if request.mode == "url":
        return Decline()
    properties = _properties(request.requested_schema)
    required = request.requested_schema.get("required")
    if isinstance(required, list):
        for name in cast(list[object], required):
            if not (isinstance(name, str) and "default" in properties.get(name, {})):
                return Decline()
    return Accept({})


def _parse_answer(spec: Mapping[str, Any], text: str) -> object:
    kind = spec.get("type")
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind == "integer":
        return int(text)
    if kind == "number":
        number = float(text)
        return int(number) if number.is_integer() else number
    if kind == "array":
        return [item.strip() for item in text.split(",") if item.strip()]
    return text


def ask_on_terminal(
    request: ElicitationRequest,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> ElicitationAnswer:
    """An elicitation handler that asks on the terminal, one line per requested property.

    An empty line keeps the property's default (or leaves it out); end of input cancels;
    a first answer of `!decline` declines. It blocks its thread while waiting: with an
    `AsyncClient` prefer an `async def` wrapper running it in `anyio.to_thread.run_sync`.
    `stdin`/`stdout` default to `sys.stdin`/`sys.stdout`.
    """
    import sys

    reader = stdin if stdin is not None else sys.stdin
    writer = stdout if stdout is not None else sys.stdout
    writer.write(f"{request.message}\n")
    if request.mode == "url":
        writer.write(f"Open {request.url} ? [y/N] ")
        writer.flush()
        line = reader.readline()
        if not line:
            return Cancel()
        return Accept() if line.strip().lower() in ("y", "yes") else Decline()
    content: dict[str, object] = {}
    required = request.requested_schema.get("required")
    needed: set[object] = (
        set(cast(list[object], required)) if isinstance(required, list) else set()
    )
    for name, spec in _properties(request.requested_schema).items():
        label = str(spec.get("title") or name)
        hints: list[str] = []
        choices = _choices(spec)
        if choices is not None:
            hints.append("/".join(sorted(choices)))
        if "default" in spec:
            hints.append(f"default {spec['default']}")
        if name in needed:
            hints.append("required")
        while True:
            suffix = f" [{', '.join(hints)}]" if hints else ""
            writer.write(f"{label}{suffix}: ")
            writer.flush()
            line = reader.readline()
            if not line:
                return Cancel()
            text = line.rstrip("\r\n")
            if text == "!decline" and not content:
                return Decline()
            if not text:
                break
            value: object = None
            try:
                value = _parse_answer(spec, text)
                problem = _type_error(name, spec, value)
            except ValueError as error:
                problem = str(error) or "invalid value"
            if problem is None:
                content[name] = value
                break
            writer.write(f"  {problem}\n")
    return Accept(content)


# --------------------------------------------------------------------------------------- sampling


@dataclass(frozen=True)
class SamplingMessage:
    """One message of the conversation to sample from.

    `text` joins its text blocks; `content` holds every block as wire JSON (images, audio, ...).
    """

    role: Literal["user", "assistant"]
    text: str
    content: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class SamplingRequest:
    """The server asks the client's LLM for a completion of `messages`."""

    messages: tuple[SamplingMessage, ...]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    #: Model name hints, in the server's order of preference.
    model_hints: tuple[str, ...] = ()
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Completion:
    """A sampling answer: the generated `text`, the `model` that wrote it, why it stopped."""

    text: str
    model: str = "unknown"
    stop_reason: str | None = "endTurn"


SamplingAnswer = str | Completion
SamplingHandler = Callable[
    [SamplingRequest], SamplingAnswer | Awaitable[SamplingAnswer]
]

# ------------------------------------------------------------------------------------------ roots


@dataclass(frozen=True)
class Root:
    """A root: a `file://` URI and an optional display name."""

    uri: str
    name: str | None = None


#: A root as given to `roots=`: a `Path` (made absolute), a URI string, or a `Root`.
RootLike = str | Path | Root


def root_uri(root: str | Path) -> str:
    """The URI of a root: a `Path` (or a string without `scheme://`) becomes an absolute `file://` URI."""
    if isinstance(root, str) and "://" in root:
        return root
    return Path(root).expanduser().resolve().as_uri()


def _root(value: RootLike) -> Root:
    if isinstance(value, Path):
        return Root(root_uri(value), value.name or None)
    if isinstance(value, str):
        return Root(root_uri(value))
    # A `Root`, also one of another generated package's runtime: taken by its fields.
    uri, name = getattr(value, "uri", None), getattr(value, "name", None)
    if not isinstance(uri, str) or not (name is None or isinstance(name, str)):
        raise TypeError(f"a root is a path, a URI string or a Root, not {value!r}")
    return Root(uri, name)


def _roots(roots: Sequence[RootLike]) -> tuple[Root, ...]:
    # One path or URI string is one root, not a root per character.
    if isinstance(roots, str | Path):
        return (_root(roots),)
    return tuple(_root(r) for r in roots)


# ------------------------------------------------------------------------------------------- logs


@dataclass(frozen=True)
class LogMessage:
    """A log message the server sent (`notifications/message`)."""

    level: LogLevel
    logger: str | None
    data: Any


LogHandler = Callable[[LogMessage], None | Awaitable[None]]

# ------------------------------------------------------------------------------------ list changes

ChangeKind = Literal["tools", "resources", "prompts"]


@dataclass(frozen=True)
class ListChanged:
    """The server changed a listing (`notifications/<kind>/list_changed`); the client listed it again."""

    kind: ChangeKind
    #: The new listing: the SDK's `Tool`s, `Resource`s and `ResourceTemplate`s, or `Prompt`s.
    items: tuple[Any, ...]
    #: For tools: how the new listing differs from the package's snapshot (None: no drift, or no hashes).
    drift: DriftSummary | None = None


#: `on_change=`: a function or coroutine function taking a `ListChanged`.
ChangeHandler = Callable[[ListChanged], None | Awaitable[None]]


#: `on_resource_updated=`: a function or coroutine function taking the URI of a resource that changed.
ResourceUpdatedHandler = Callable[[str], None | Awaitable[None]]


def updated_resource(message: object) -> str | None:
    """The URI a `notifications/resources/updated` names, or None for any other message."""
    if getattr(message, "method", None) != "notifications/resources/updated":
        return None
    uri = getattr(getattr(message, "params", None), "uri", None)
    return str(uri) if uri is not None else None


def list_changed_kind(message: object) -> ChangeKind | None:
    """Which listing a server notification says changed, or None for any other message."""
    method = getattr(message, "method", None)
    if method == "notifications/tools/list_changed":
        return "tools"
    if method == "notifications/resources/list_changed":
        return "resources"
    if method == "notifications/prompts/list_changed":
        return "prompts"
    return None


# ------------------------------------------------------------------------------------ the adapter


async def _resolved(value: object) -> object:
    if inspect.isawaitable(value):
        return await value
    return value


class ServerRequests:
    """The handlers one client answers server requests with, as the SDK's client callbacks.

    `sdk_options()` gives the keyword arguments for `mcp.Client` (only for the handlers given,
    so only those capabilities are advertised): use it with `from_session()` on a session you
    build yourself.
    """

    def __init__(
        self,
        *,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
    ) -> None:
        self.elicitation = elicitation
        self.sampling = sampling
        self.on_log = on_log
        self._roots: tuple[Root, ...] | None = None if roots is None else _roots(roots)

    @property
    def roots(self) -> tuple[Root, ...] | None:
        """The roots answered to `roots/list`, or None when roots are not offered."""
        return self._roots

    async def set_roots(
        self, session: ClientSession | None, roots: Sequence[RootLike]
    ) -> None:
        """Replace the roots and tell the server (`notifications/roots/list_changed`)."""
        if self._roots is None:
            raise RuntimeError(
                "this client does not offer roots; connect with roots=[...] (may be empty)"
            )
        self._roots = _roots(roots)
        if session is not None:
            import mcp_types

            await session.send_notification(mcp_types.RootsListChangedNotification())

    def sdk_options(self) -> dict[str, Any]:
        """Keyword arguments for `mcp.Client` (or `ClientSession`) for the handlers given."""
        options: dict[str, Any] = {}
        if self.elicitation is not None:
            options["elicitation_callback"] = self._on_elicit
        if self.sampling is not None:
            options["sampling_callback"] = self._on_sample
        if self._roots is not None:
            options["list_roots_callback"] = self._on_list_roots
        if self.on_log is not None:
            options["logging_callback"] = self._on_log
        return options

    @staticmethod
    def _failure(kind: str, error: BaseException) -> mcp_types.ErrorData:
        import mcp_types

        # The handler's message may hold user data: it stays in this process's log.
        _log.warning("the %s handler failed: %s", kind, error, exc_info=error)
        return mcp_types.ErrorData(
            code=mcp_types.INTERNAL_ERROR, message=f"the client's {kind} handler failed"
        )

    async def _on_elicit(
        self, context: object, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        import mcp_types

        handler = self.elicitation
        assert handler is not None
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            request = ElicitationRequest(params.message, {}, "url", params.url)
        else:
            schema = cast(Mapping[str, Any], params.requested_schema)
            request = ElicitationRequest(params.message, dict(schema))
        try:
            answer = await _resolved(handler(request))
        except Exception as error:  # noqa: BLE001 - reported to the server as an error
            return self._failure("elicitation", error)
        action: object = getattr(type(answer), "action", None)
        if action in ("decline", "cancel"):
            return mcp_types.ElicitResult.model_validate({"action": action})
        content: object = (
            getattr(answer, "content", None) if action == "accept" else answer
        )
        if not isinstance(content, Mapping):
            return self._failure(
                "elicitation",
                TypeError(
                    f"expected Accept, Decline, Cancel or a dict, got {answer!r}"
                ),
            )
        if request.mode == "url":
            return mcp_types.ElicitResult(action="accept")
        try:
            checked = elicited_content(
                request.requested_schema, cast(Mapping[str, object], content)
            )
        except ValueError as error:
            _log.warning("elicitation answer does not fit the schema: %s", error)
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_PARAMS,
                message=f"the elicitation answer does not fit the requested schema: {error}",
            )
        return mcp_types.ElicitResult.model_validate(
            {"action": "accept", "content": checked}
        )

    async def _on_sample(
        self, context: object, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        import mcp_types

        handler = self.sampling
        assert handler is not None
        messages: list[SamplingMessage] = []
        for message in params.messages:
            blocks = message.content_as_list
            texts = [b.text for b in blocks if isinstance(b, mcp_types.TextContent)]
            messages.append(
                SamplingMessage(
                    message.role,
                    "\n".join(texts),
                    tuple(
                        b.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for b in blocks
                    ),
                )
            )
        preferences = params.model_preferences
        hints = (
            tuple(h.name for h in preferences.hints or () if h.name)
            if preferences is not None
            else ()
        )
        request = SamplingRequest(
            messages=tuple(messages),
            max_tokens=params.max_tokens,
            system_prompt=params.system_prompt,
            temperature=params.temperature,
            stop_sequences=tuple(params.stop_sequences or ()),
            model_hints=hints,
            metadata=params.metadata,
        )
        try:
            answer = await _resolved(handler(request))
        except Exception as error:  # noqa: BLE001 - reported to the server as an error
            return self._failure("sampling", error)
        if isinstance(answer, str):
            answer = Completion(answer)
        # Recognised by shape, so another generated package's `Completion` works too.
        text = getattr(answer, "text", None)
        model = getattr(answer, "model", None)
        stop_reason = getattr(answer, "stop_reason", None)
        if not isinstance(text, str) or not isinstance(model, str):
            return self._failure(
                "sampling", TypeError(f"expected str or Completion, got {answer!r}")
            )
        return mcp_types.CreateMessageResult.model_validate(
            {
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": model,
                "stopReason": stop_reason,
            }
        )

    async def _on_list_roots(
        self, context: object
    ) -> mcp_types.ListRootsResult | mcp_types.ErrorData:
        import mcp_types

        roots = self._roots or ()
        return mcp_types.ListRootsResult.model_validate(
            {
                "roots": [
                    {"uri": r.uri} if r.name is None else {"uri": r.uri, "name": r.name}
                    for r in roots
                ]
            }
        )

    async def _on_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        handler = self.on_log
        assert handler is not None
        try:
            await _resolved(
                handler(LogMessage(params.level, params.logger, params.data))
            )
        except (
            Exception
        ) as error:  # noqa: BLE001 - a log handler must not end the session
            _log.warning("the log handler failed: %s", error, exc_info=error)
