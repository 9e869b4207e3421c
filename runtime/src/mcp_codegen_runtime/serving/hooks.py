"""The fake server's hooks (a handler or a script per tool, prompt and resource), its calls, context and errors."""

from __future__ import annotations

import inspect
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    TypeAlias,
    TypedDict,
    TypeVar,
)

import anyio.lowlevel
import mcp_types as types
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel

from ..calls.results import ToolResult
from ..calls.specs import PromptSpec, ToolSpec, copy_json
from ..calls.uri import match_uri_template

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from .fake import FakeServer
    from .tasks import FakeTask

__all__ = [
    "FakeCall",
    "FakeContext",
    "FakeError",
    "NoVariables",
    "PromptHook",
    "PromptHooks",
    "PromptReply",
    "ResourceHook",
    "ResourceHooks",
    "ResourceReply",
    "ToolHook",
    "ToolHooks",
    "ToolReply",
]

ArgsT = TypeVar("ArgsT")
ResultT = TypeVar("ResultT")
VarsT = TypeVar("VarsT")

#: What a tool handler (or a script step) may return: the tool's result (its model, or the unwrapped
#: value), a `ToolResult`/`CallToolResult`, or content blocks.
ToolReply: TypeAlias = (
    ResultT
    | ToolResult
    | types.CallToolResult
    | types.ContentBlock
    | Sequence[types.ContentBlock]
)
#: What a prompt handler may return: text (one user message), messages, or the whole result.
PromptReply: TypeAlias = (
    str
    | types.PromptMessage
    | Sequence[str | types.PromptMessage]
    | types.GetPromptResult
)
#: What a resource handler may return: text, bytes (a blob), contents, or the whole result.
ResourceReply: TypeAlias = (
    str
    | bytes
    | types.TextResourceContents
    | types.BlobResourceContents
    | Sequence[types.TextResourceContents | types.BlobResourceContents]
    | types.ReadResourceResult
)

_ToolHandler: TypeAlias = (
    Callable[[ArgsT], ToolReply[ResultT] | Awaitable[ToolReply[ResultT]]]
    | Callable[
        [ArgsT, "FakeContext"], ToolReply[ResultT] | Awaitable[ToolReply[ResultT]]
    ]
)
_PromptHandler: TypeAlias = (
    Callable[[ArgsT], PromptReply | Awaitable[PromptReply]]
    | Callable[[ArgsT, "FakeContext"], PromptReply | Awaitable[PromptReply]]
)
_ResourceHandler: TypeAlias = (
    Callable[[VarsT], ResourceReply | Awaitable[ResourceReply]]
    | Callable[[VarsT, "FakeContext"], ResourceReply | Awaitable[ResourceReply]]
)


class FakeError(Exception):
    """Raise (or script) this for a tool result with `isError: true` and this message as its text."""

    def __init__(
        self, message: str, *, structured: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.structured = dict(structured) if structured is not None else None


@dataclass(frozen=True)
class FakeCall:
    """One request the fake answered: a tool call, a resource read or a prompt get."""

    #: "tool", "resource" or "prompt".
    kind: Literal["tool", "resource", "prompt"]
    #: The tool or prompt's wire name, or the resource's URI.
    name: str
    #: The arguments as sent (tools, prompts), or a template's variables (resources).
    arguments: dict[str, Any]
    #: The SDK result sent back (`CallToolResult`, `ReadResourceResult`, `GetPromptResult`), or None
    #: when the request failed with a protocol error.
    result: Any = None
    #: The error text (an `isError` tool result's text, or a protocol error's message), or None.
    error: str | None = None
    #: The id of the MCP task the tool call ran as, or None (a plain call).
    task_id: str | None = None

    @property
    def is_error(self) -> bool:
        return self.error is not None


class FakeContext:
    """What a handler taking a second parameter receives: the request, and requests back to the client.

    In a tool call running as an MCP task (`task_id` set), `status()` posts the task's status message,
    and `elicit()`/`sample()` make the task `input_required` and reach the client through its waiting
    `tasks/result`, as the spec says.
    """

    __slots__ = ("fake", "name", "request_context", "task")

    def __init__(
        self,
        fake: FakeServer,
        name: str,
        request_context: ServerRequestContext[Any],
        task: FakeTask | None = None,
    ) -> None:
        self.fake = fake
        #: The tool or prompt name, or the resource URI, being answered.
        self.name = name
        #: The SDK's request context (session, request id, `_meta`).
        self.request_context = request_context
        #: The task this tool call runs as (None: a plain call).
        self.task = task

    @property
    def task_id(self) -> str | None:
        """The id of the MCP task this tool call runs as, or None for a plain call."""
        return self.task.task_id if self.task is not None else None

    async def status(self, message: str) -> None:
        """Post the task's status message (`tasks/get` reports it); nothing for a plain call."""
        task = self.task
        if task is not None:
            task.set(task.status, message)
            await anyio.lowlevel.checkpoint()

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send `notifications/progress` for this request (nothing when the client did not ask).
        In a task, a `message` becomes the task's status message instead."""
        if self.task is not None:
            if message is not None:
                await self.status(message)
            return
        await self.request_context.session.report_progress(progress, total, message)

    async def elicit(
        self, message: str, schema: Mapping[str, Any] | type[BaseModel]
    ) -> types.ElicitResult:
        """Ask the client for input (`elicitation/create`, form mode) and return its answer."""
        requested = (
            schema.model_json_schema()
            if isinstance(schema, type)
            else copy_json(dict(schema))
        )
        task = self.task
        if task is not None:
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams.model_validate(
                    {
                        "mode": "form",
                        "message": message,
                        "requestedSchema": requested,
                        "_meta": task.related_meta(),
                    }
                )
            )

            async def send(session: Any, request_id: Any) -> types.ElicitResult:
                from .tasks import send_related

                return await send_related(
                    session, request_id, request, types.ElicitResult
                )

            answer: types.ElicitResult = await task.ask(send, message)
            return answer
        return await self.request_context.session.elicit_form(
            message, requested, related_request_id=self.request_context.request_id
        )

    async def sample(
        self,
        prompt: str | Sequence[types.SamplingMessage],
        *,
        max_tokens: int = 256,
        system_prompt: str | None = None,
    ) -> types.CreateMessageResult:
        """Ask the client's model for a completion (`sampling/createMessage`)."""
        messages = (
            [
                types.SamplingMessage(
                    role="user", content=types.TextContent(type="text", text=prompt)
                )
            ]
            if isinstance(prompt, str)
            else list(prompt)
        )
        task = self.task
        if task is not None:
            params = types.CreateMessageRequestParams(
                messages=messages, max_tokens=max_tokens, system_prompt=system_prompt
            ).model_dump(mode="json", by_alias=True, exclude_none=True)
            params["_meta"] = task.related_meta()
            request = types.CreateMessageRequest(
                params=types.CreateMessageRequestParams.model_validate(params)
            )

            async def send(session: Any, request_id: Any) -> types.CreateMessageResult:
                from .tasks import send_related

                return await send_related(
                    session, request_id, request, types.CreateMessageResult
                )

            answer: types.CreateMessageResult = await task.ask(
                send, "waiting for the model"
            )
            return answer
        session = self.request_context.session
        # Deprecated for 2026-07-28, still what handshake-era clients answer.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            sending = session.create_message(  # pyright: ignore[reportDeprecated]
                messages,
                max_tokens=max_tokens,
                system_prompt=system_prompt,
                related_request_id=self.request_context.request_id,
            )
        return await sending

    async def log(
        self, level: types.LoggingLevel, data: Any, logger: str | None = None
    ) -> None:
        """Send a log message (`notifications/message`) to the client (in a task: on the connection,
        the request that started the task having been answered)."""
        session = self.request_context.session
        related = self.request_context.request_id if self.task is None else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            sending = session.send_log_message(  # pyright: ignore[reportDeprecated]
                level, data, logger, related_request_id=related
            )
        await sending


def _arity(handler: Callable[..., Any]) -> int:
    """How many positional arguments `handler` takes (1, or 2 with the context)."""
    try:
        parameters = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return 1
    positional = [
        p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return 2
    return len(positional)


class Hook:
    """What every hook has: a handler or scripted answers, a delay, and the calls it answered."""

    __slots__ = ("arity", "delay", "fake", "handler", "key", "pending")

    kind: Literal["tool", "resource", "prompt"]

    def __init__(self, fake: FakeServer, key: str) -> None:
        self.fake = fake
        #: The tool or prompt's wire name, the resource's URI or the template's URI template.
        self.key = key
        self.handler: Callable[..., Any] | None = None
        self.arity = 1
        self.pending: deque[Any] = deque()
        #: Seconds to wait before answering (None: the fake's `delay`).
        self.delay: float | None = None

    def _set(self, handler: Callable[..., Any]) -> None:
        self.handler = handler
        self.arity = _arity(handler)

    @property
    def handled(self) -> bool:
        return self.handler is not None

    def clear(self) -> None:
        """Forget the handler and any scripted answers left."""
        self.handler = None
        self.pending.clear()

    def _script_steps(self, steps: Iterable[Any]) -> None:
        self.pending.extend(steps)

    async def answer(self, argument: Any, context: FakeContext) -> tuple[bool, Any]:
        """(answered, value): a script step or the handler's return; raises what they raise."""
        if self.pending:
            step = self.pending.popleft()
            if isinstance(step, BaseException):
                raise step
            return True, step
        handler = self.handler
        if handler is None:
            return False, None
        value = handler(argument, context) if self.arity >= 2 else handler(argument)
        if inspect.isawaitable(value):
            value = await value
        return True, value

    @property
    def calls(self) -> list[FakeCall]:
        """The recorded requests to this tool, prompt or resource."""
        return [
            call
            for call in self.fake.calls
            if call.kind == self.kind and self._matches(call)
        ]

    def _matches(self, call: FakeCall) -> bool:
        return call.name == self.key


class ToolHook(Hook, Generic[ArgsT, ResultT]):
    """One tool: decorate a handler with it (`@fake.tools.get_weather`), script it, read its calls.

    The handler receives the tool's arguments model (a dict when the fake has no models), optionally
    a `FakeContext` as second argument, and returns the result model (or the unwrapped value, a
    `ToolResult`, content blocks); raising makes an `isError` result with the exception's message.
    """

    __slots__ = ("spec", "task")
    kind = "tool"

    def __init__(
        self, fake: FakeServer, key: str, spec: ToolSpec[Any, Any] | None
    ) -> None:
        super().__init__(fake, key)
        self.spec = spec
        #: Whether a call the client asks to run as an MCP task is made one: None (default) as the
        #: tool's listing says (`taskSupport` optional or required), True always (also a tool listed
        #: without task support), False never (answered at once, as a server ignoring `task` would).
        self.task: bool | None = None

    def __call__(
        self, handler: _ToolHandler[ArgsT, ResultT], *, task: bool | None = None
    ) -> _ToolHandler[ArgsT, ResultT]:
        """Register `handler` (as a decorator: `@fake.tools.<name>`); `task=True` runs the calls the
        client asks to run as tasks as MCP tasks (see `task`)."""
        self._set(handler)
        if task is not None:
            self.task = task
            if task:
                self.fake.serve_tasks()
        return handler

    def clear(self) -> None:
        """Forget the handler, any scripted answers left, and the `task` setting."""
        super().clear()
        self.task = None

    def script(self, steps: Iterable[ToolReply[ResultT] | BaseException]) -> None:
        """Answer the next calls with these, in order (an exception makes an `isError` result), then
        fall back to the handler (or the unhandled behaviour)."""
        self._script_steps(steps)

    def __repr__(self) -> str:
        return f"ToolHook({self.key!r})"


class PromptHook(Hook, Generic[ArgsT]):
    """One prompt: the handler receives its arguments (a dict keyed by Python names) and returns
    messages (text, `PromptMessage`s or a `GetPromptResult`)."""

    __slots__ = ("spec",)
    kind = "prompt"

    def __init__(self, fake: FakeServer, key: str, spec: PromptSpec | None) -> None:
        super().__init__(fake, key)
        self.spec = spec

    def __call__(self, handler: _PromptHandler[ArgsT]) -> _PromptHandler[ArgsT]:
        self._set(handler)
        return handler

    def script(self, steps: Iterable[PromptReply | BaseException]) -> None:
        """Answer the next gets with these, in order (an exception makes an error response)."""
        self._script_steps(steps)

    def __repr__(self) -> str:
        return f"PromptHook({self.key!r})"


class ResourceHook(Hook, Generic[VarsT]):
    """One resource or resource template: the handler receives the template's variables (a dict keyed by
    Python names; empty for a static resource) and returns text, bytes or contents."""

    __slots__ = ("template",)
    kind = "resource"

    def __init__(self, fake: FakeServer, key: str, *, template: bool) -> None:
        super().__init__(fake, key)
        self.template = template

    def __call__(self, handler: _ResourceHandler[VarsT]) -> _ResourceHandler[VarsT]:
        self._set(handler)
        return handler

    def script(self, steps: Iterable[ResourceReply | BaseException]) -> None:
        """Answer the next reads with these, in order (an exception makes an error response)."""
        self._script_steps(steps)

    def _matches(self, call: FakeCall) -> bool:
        if not self.template:
            return call.name == self.key
        return match_uri_template(self.key, call.name) is not None

    def __repr__(self) -> str:
        return f"ResourceHook({self.key!r})"


HookT = TypeVar("HookT", bound=Hook)


class Hooks(Generic[HookT]):
    """Hooks by wire name (`hooks["search-notes"]`) and by Python name (attributes, in subclasses)."""

    _fake: FakeServer
    _by_key: dict[str, HookT]
    _python_names: dict[str, str]

    def __init__(
        self,
        fake: FakeServer,
        python_names: Mapping[str, str],
        table: dict[str, HookT] | None = None,
    ) -> None:
        object.__setattr__(self, "_fake", fake)
        # The fake reads handlers from `table` (shared with it).
        object.__setattr__(self, "_by_key", table if table is not None else {})
        object.__setattr__(self, "_python_names", dict(python_names))

    def _make(self, key: str) -> HookT:
        raise NotImplementedError

    def _known(self, key: str) -> bool:
        raise NotImplementedError

    def __getitem__(self, key: str) -> HookT:
        hook = self._by_key.get(key)
        if hook is None:
            if not self._known(key):
                raise KeyError(key)
            hook = self._make(key)
            self._by_key[key] = hook
        return hook

    if not TYPE_CHECKING:  # typed attributes are declared by a package's subclasses

        def __getattr__(self, name: str) -> Any:
            key = self._python_names.get(name)
            if key is None:
                raise AttributeError(name)
            return self[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._known(key)

    def __iter__(self) -> Iterator[HookT]:
        return iter(list(self._by_key.values()))


ViewT = TypeVar("ViewT", bound=Hooks[Any])


class NoVariables(TypedDict):
    """What a static resource's handler receives: no variables."""


class ToolHooks(Hooks[ToolHook[Any, Any]]):
    """The fake's tools: `fake.tools["wire-name"]`, or one typed attribute per tool in a package's fake."""

    def _known(self, key: str) -> bool:
        return key in self._fake.listed["tools"] or key in self._fake.tool_specs

    def _make(self, key: str) -> ToolHook[Any, Any]:
        return ToolHook(self._fake, key, self._fake.tool_specs.get(key))


class PromptHooks(Hooks[PromptHook[Any]]):
    """The fake's prompts, by wire name or (in a package's fake) typed attribute."""

    def _known(self, key: str) -> bool:
        return key in self._fake.listed["prompts"] or key in self._fake.prompt_specs

    def _make(self, key: str) -> PromptHook[Any]:
        return PromptHook(self._fake, key, self._fake.prompt_specs.get(key))


class ResourceHooks(Hooks[ResourceHook[Any]]):
    """The fake's resources (by URI) and templates (by URI template), or typed attributes."""

    def _known(self, key: str) -> bool:
        items = self._fake.listed
        return key in items["resources"] or key in items["resourceTemplates"]

    def _make(self, key: str) -> ResourceHook[Any]:
        return ResourceHook(
            self._fake,
            key,
            template=key in self._fake.listed["resourceTemplates"]
            and key not in self._fake.listed["resources"],
        )
