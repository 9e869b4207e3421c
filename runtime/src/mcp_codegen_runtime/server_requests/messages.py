"""The typed requests and answers of server-to-client traffic: elicitation, sampling, roots, logs, list changes.

Handlers are written against these small types, never against `mcp_types`; `dispatch`
turns them into the SDK's callbacks. A handler may be a plain function or an `async def`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
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
    "ListChanged",
    "LogHandler",
    "LogLevel",
    "LogMessage",
    "ResourceUpdatedHandler",
    "Root",
    "RootLike",
    "SamplingAnswer",
    "SamplingHandler",
    "SamplingMessage",
    "SamplingRequest",
    "SamplingTool",
    "ToolUse",
    "as_roots",
    "list_changed_kind",
    "root_uri",
    "updated_resource",
]

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
class SamplingTool:
    """A tool the server offers the model while sampling (`input_schema` is its JSON Schema)."""

    name: str
    description: str | None
    input_schema: Mapping[str, Any]


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
    #: Tools the model may call (answer with `Completion(tool_uses=...)`); the server runs them.
    tools: tuple[SamplingTool, ...] = ()
    #: Whether the model must ("required"), may ("auto") or must not ("none") call a tool; None: "auto".
    tool_choice: Literal["auto", "required", "none"] | None = None


def _new_call_id() -> str:
    import uuid  # on first use: importing it costs ~6 ms, a twentieth of a package's import

    return f"call_{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True)
class ToolUse:
    """The model's call of one of `SamplingRequest.tools`: the server runs it and samples again."""

    name: str
    arguments: Mapping[str, Any]
    #: Pairs the call with its result in the next request (`tool_use_id`); made up when not given.
    id: str = field(default_factory=_new_call_id)


@dataclass(frozen=True)
class Completion:
    """A sampling answer: the generated `text`, the `model` that wrote it, why it stopped, and the
    tools the model called (`stop_reason` then defaults to "toolUse")."""

    text: str
    model: str = "unknown"
    stop_reason: str | None = "endTurn"
    tool_uses: tuple[ToolUse, ...] = ()


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


def as_root(value: RootLike) -> Root:
    """`value` as a `Root` (a `Root` of another generated package's runtime too)."""
    if isinstance(value, Path):
        return Root(root_uri(value), value.name or None)
    if isinstance(value, str):
        return Root(root_uri(value))
    # A `Root`, also one of another generated package's runtime: taken by its fields.
    uri, name = getattr(value, "uri", None), getattr(value, "name", None)
    if not isinstance(uri, str) or not (name is None or isinstance(name, str)):
        raise TypeError(f"a root is a path, a URI string or a Root, not {value!r}")
    return Root(uri, name)


def as_roots(roots: Sequence[RootLike]) -> tuple[Root, ...]:
    """The roots given to `roots=` as `Root`s."""
    # One path or URI string is one root, not a root per character.
    if isinstance(roots, str | Path):
        return (as_root(roots),)
    return tuple(as_root(r) for r in roots)


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
