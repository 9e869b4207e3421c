"""A fake MCP server that lists exactly a snapshot and answers from handlers, scripts or synthesised data.

`FakeServer` is the SDK's low-level `Server` (so `AsyncClient.in_process(fake)`, `mcp.Client(fake)`,
stdio and streamable HTTP all serve it): listings and the initialize result are the snapshot's raw
wire dicts, byte for byte (a server middleware answers them, past the SDK's result models, which would
drop vendor keys and reject off-spec schemas). Tool arguments are validated against the listed input
schema with `jsonschema`, as real servers do; a tool without a handler answers a value synthesised from
its output schema (`fake_data`) or, with `unhandled="error"`, an error naming it. Every request is
recorded in `fake.calls`; scripts, latency, progress, `list_changed` and server-to-client requests
(elicitation, sampling) are there for tests. A generated package's `testing` module subclasses it with
one typed hook per tool, prompt and resource.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    TypeAlias,
    TypedDict,
    TypeVar,
    cast,
)

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..calls.errors import ToolError
from ..calls.results import ToolResult
from ..calls.specs import (
    PromptSpec,
    ResourceSpec,
    SnapshotData,
    TemplateSpec,
    ToolSpec,
    copy_json,
)
from .data import synthesise

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

__all__ = [
    "FakeCall",
    "FakeContext",
    "FakeError",
    "FakeServer",
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

_JsonObject = dict[str, Any]

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

_LIST_METHODS: dict[str, tuple[str, str]] = {
    # method -> (snapshot key, capability)
    "tools/list": ("tools", "tools"),
    "resources/list": ("resources", "resources"),
    "resources/templates/list": ("resourceTemplates", "resources"),
    "prompts/list": ("prompts", "prompts"),
}
_IDENTITY = {
    "tools": "name",
    "resources": "uri",
    "resourceTemplates": "uriTemplate",
    "prompts": "name",
}
#: JSON-RPC code for an unknown resource (MCP spec).
RESOURCE_NOT_FOUND = -32002


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

    @property
    def is_error(self) -> bool:
        return self.error is not None


class FakeContext:
    """What a handler taking a second parameter receives: the request, and requests back to the client."""

    __slots__ = ("fake", "name", "request_context")

    def __init__(
        self, fake: FakeServer, name: str, request_context: ServerRequestContext[Any]
    ) -> None:
        self.fake = fake
        #: The tool or prompt name, or the resource URI, being answered.
        self.name = name
        #: The SDK's request context (session, request id, `_meta`).
        self.request_context = request_context

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send `notifications/progress` for this request (nothing when the client did not ask)."""
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
        session = self.request_context.session
        # Deprecated for 2026-07-28, still what handshake-era clients answer.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            request = session.create_message(  # pyright: ignore[reportDeprecated]
                messages,
                max_tokens=max_tokens,
                system_prompt=system_prompt,
                related_request_id=self.request_context.request_id,
            )
        return await request

    async def log(
        self, level: types.LoggingLevel, data: Any, logger: str | None = None
    ) -> None:
        """Send a log message (`notifications/message`) to the client."""
        session = self.request_context.session
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            sending = session.send_log_message(  # pyright: ignore[reportDeprecated]
                level, data, logger, related_request_id=self.request_context.request_id
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


class _Hook:
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


class ToolHook(_Hook, Generic[ArgsT, ResultT]):
    """One tool: decorate a handler with it (`@fake.tools.get_weather`), script it, read its calls.

    The handler receives the tool's arguments model (a dict when the fake has no models), optionally
    a `FakeContext` as second argument, and returns the result model (or the unwrapped value, a
    `ToolResult`, content blocks); raising makes an `isError` result with the exception's message.
    """

    __slots__ = ("spec",)
    kind = "tool"

    def __init__(
        self, fake: FakeServer, key: str, spec: ToolSpec[Any, Any] | None
    ) -> None:
        super().__init__(fake, key)
        self.spec = spec

    def __call__(
        self, handler: _ToolHandler[ArgsT, ResultT]
    ) -> _ToolHandler[ArgsT, ResultT]:
        self._set(handler)
        return handler

    def script(self, steps: Iterable[ToolReply[ResultT] | BaseException]) -> None:
        """Answer the next calls with these, in order (an exception makes an `isError` result), then
        fall back to the handler (or the unhandled behaviour)."""
        self._script_steps(steps)

    def __repr__(self) -> str:
        return f"ToolHook({self.key!r})"


class PromptHook(_Hook, Generic[ArgsT]):
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


class ResourceHook(_Hook, Generic[VarsT]):
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
        return _match_template(self.key, call.name) is not None

    def __repr__(self) -> str:
        return f"ResourceHook({self.key!r})"


HookT = TypeVar("HookT", bound=_Hook)


class _Hooks(Generic[HookT]):
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


ViewT = TypeVar("ViewT", bound=_Hooks[Any])


class NoVariables(TypedDict):
    """What a static resource's handler receives: no variables."""


class ToolHooks(_Hooks[ToolHook[Any, Any]]):
    """The fake's tools: `fake.tools["wire-name"]`, or one typed attribute per tool in a package's fake."""

    def _known(self, key: str) -> bool:
        return key in self._fake.listed["tools"] or key in self._fake.tool_specs

    def _make(self, key: str) -> ToolHook[Any, Any]:
        return ToolHook(self._fake, key, self._fake.tool_specs.get(key))


class PromptHooks(_Hooks[PromptHook[Any]]):
    """The fake's prompts, by wire name or (in a package's fake) typed attribute."""

    def _known(self, key: str) -> bool:
        return key in self._fake.listed["prompts"] or key in self._fake.prompt_specs

    def _make(self, key: str) -> PromptHook[Any]:
        return PromptHook(self._fake, key, self._fake.prompt_specs.get(key))


class ResourceHooks(_Hooks[ResourceHook[Any]]):
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


def _load_snapshot(
    source: SnapshotData | Mapping[str, Any] | str | os.PathLike[str],
) -> _JsonObject:
    if isinstance(source, SnapshotData):
        return source.data
    if isinstance(source, Mapping):
        return dict(source)
    return SnapshotData(Path(source)).data


def _index(data: Mapping[str, Any], key: str) -> dict[str, _JsonObject]:
    identity = _IDENTITY[key]
    found: dict[str, _JsonObject] = {}
    items = data.get(key)
    if isinstance(items, list):
        for item in cast("list[object]", items):
            if isinstance(item, dict):
                name = cast("_JsonObject", item).get(identity)
                if isinstance(name, str):
                    found.setdefault(name, cast("_JsonObject", item))
    return found


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _error_result(
    message: str, structured: Mapping[str, Any] | None = None
) -> types.CallToolResult:
    return types.CallToolResult(
        content=[_text(message)],
        structured_content=dict(structured) if structured is not None else None,
        is_error=True,
    )


_CONTENT_TYPES = (
    types.TextContent,
    types.ImageContent,
    types.AudioContent,
    types.ResourceLink,
    types.EmbeddedResource,
)


def _structured_result(structured: Any) -> types.CallToolResult:
    return types.CallToolResult(
        content=[_text(json.dumps(structured, ensure_ascii=False))],
        structured_content=structured,
    )


class FakeServer(Server[Any]):
    """An MCP server that lists exactly `snapshot` (a package's `SnapshotData`, a snapshot file or
    package directory, or the parsed mapping) and answers calls for tests.

    `tool_specs` etc. (a generated package's `specs.TOOLS`, `PROMPTS`, `RESOURCES`, `TEMPLATES`) give
    handlers typed arguments and let them return models. `unhandled`: what a tool without a handler
    or script answers ("synthesise": a deterministic value valid against its output schema, or a text
    block; "error": an `isError` result naming the tool). `delay`: seconds before each answer.
    `page_size`: items per listing page (None: one page).
    """

    def __init__(
        self,
        snapshot: SnapshotData | Mapping[str, Any] | str | os.PathLike[str],
        *,
        tool_specs: Mapping[str, ToolSpec[Any, Any]] | None = None,
        prompt_specs: Mapping[str, PromptSpec] | None = None,
        resource_specs: Mapping[str, ResourceSpec] | None = None,
        template_specs: Mapping[str, TemplateSpec] | None = None,
        unhandled: Literal["synthesise", "error"] = "synthesise",
        delay: float = 0.0,
        page_size: int | None = None,
        tools_class: type[ToolHooks] = ToolHooks,
        prompts_class: type[PromptHooks] = PromptHooks,
        resources_class: type[ResourceHooks] = ResourceHooks,
    ) -> None:
        if unhandled not in ("synthesise", "error"):
            raise ValueError(
                f"unhandled must be 'synthesise' or 'error', not {unhandled!r}"
            )
        if page_size is not None and page_size < 1:
            raise ValueError("page_size must be at least 1")
        data = _load_snapshot(snapshot)
        info = data.get("serverInfo")
        info = cast("_JsonObject", info) if isinstance(info, dict) else {}
        instructions = data.get("instructions")

        def text(key: str) -> str | None:
            value = info.get(key)
            return value if isinstance(value, str) else None

        super().__init__(
            text("name") or "mcp-server",
            version=text("version") or "",
            title=text("title"),
            description=text("description"),
            instructions=instructions if isinstance(instructions, str) else None,
            website_url=text("websiteUrl"),
        )
        self.snapshot_data: _JsonObject = data
        capabilities = data.get("capabilities")
        self._capabilities: _JsonObject = (
            cast("_JsonObject", capabilities) if isinstance(capabilities, dict) else {}
        )
        self._server_info_raw = info
        self._protocol_version = data.get("protocolVersion")
        self.listed: dict[str, dict[str, _JsonObject]] = {
            key: _index(data, key) for key in _IDENTITY
        }
        self.tool_specs: dict[str, ToolSpec[Any, Any]] = dict(tool_specs or {})
        self.prompt_specs: dict[str, PromptSpec] = dict(prompt_specs or {})
        self.unhandled: Literal["synthesise", "error"] = unhandled
        #: Seconds to wait before every answer (a hook's own `delay` wins).
        self.delay = delay
        self.page_size = page_size
        #: Every tool call, resource read and prompt get, in order.
        self.calls: list[FakeCall] = []
        self._validators: dict[str, Any] = {}
        self._synthesised: dict[str, Any] = {}
        self._sessions: dict[int, Any] = {}
        #: Hooks by wire name (tools, prompts) or URI / URI template (resources).
        self.tool_hooks: dict[str, ToolHook[Any, Any]] = {}
        self.prompt_hooks: dict[str, PromptHook[Any]] = {}
        self.resource_hooks: dict[str, ResourceHook[Any]] = {}
        self._tool_view = tools_class(
            self,
            {spec.python_name: wire for wire, spec in self.tool_specs.items()},
            self.tool_hooks,
        )
        self._prompt_view = prompts_class(
            self,
            {spec.python_name: wire for wire, spec in self.prompt_specs.items()},
            self.prompt_hooks,
        )
        resource_names = {
            spec.python_name: uri for uri, spec in (resource_specs or {}).items()
        }
        resource_names.update(
            {
                spec.python_name: spec.uri_template
                for spec in (template_specs or {}).values()
            }
        )
        self._template_variables: dict[str, dict[str, str]] = {
            spec.uri_template: dict(spec.variables)
            for spec in (template_specs or {}).values()
        }
        self._resource_view = resources_class(self, resource_names, self.resource_hooks)

        self._register_handlers()
        self.middleware.append(self._answer_raw)

    @property
    def tools(self) -> ToolHooks:
        """The tools' hooks: `fake.tools["wire-name"]` (typed attributes in a package's fake)."""
        return self._tool_view

    @property
    def prompts(self) -> PromptHooks:
        """The prompts' hooks, by wire name (typed attributes in a package's fake)."""
        return self._prompt_view

    @property
    def resources(self) -> ResourceHooks:
        """The resources' and templates' hooks, by URI or URI template (typed attributes in a package's
        fake)."""
        return self._resource_view

    def hooks_view(self, cls: type[ViewT]) -> ViewT:
        """The hooks object of class `cls` this fake was built with (typed subclasses' properties)."""
        for view in (self._tool_view, self._prompt_view, self._resource_view):
            if isinstance(view, cls):
                return view
        raise TypeError(f"this fake has no {cls.__name__}")

    # ------------------------------------------------------------------ listing

    def _declared(self, capability: str) -> bool:
        return self._capabilities.get(capability) is not None

    def _register_handlers(self) -> None:
        for method, (key, capability) in _LIST_METHODS.items():
            if self._declared(capability):
                self.add_request_handler(
                    method, types.PaginatedRequestParams, self._make_lister(key)
                )
        if self._declared("tools"):
            self.add_request_handler(
                "tools/call", types.CallToolRequestParams, self._on_call_tool
            )
        if self._declared("resources"):
            self.add_request_handler(
                "resources/read", types.ReadResourceRequestParams, self._on_read
            )
            resources = self._capabilities.get("resources")
            if isinstance(resources, dict) and cast("_JsonObject", resources).get(
                "subscribe"
            ):
                self.add_request_handler(
                    "resources/subscribe", types.SubscribeRequestParams, _empty
                )
                self.add_request_handler(
                    "resources/unsubscribe", types.UnsubscribeRequestParams, _empty
                )
        if self._declared("prompts"):
            self.add_request_handler(
                "prompts/get", types.GetPromptRequestParams, self._on_get_prompt
            )
        if self._declared("completions"):
            self.add_request_handler(
                "completion/complete", types.CompleteRequestParams, _no_completion
            )
        if self._declared("logging"):
            self.add_request_handler(
                "logging/setLevel", types.SetLevelRequestParams, _empty
            )

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        """The snapshot's capabilities (the SDK would derive them from the registered handlers)."""
        return types.ServerCapabilities.model_validate(self._capabilities)

    def _page(self, key: str, cursor: str | None) -> _JsonObject:
        items = list(self.listed[key].values())
        start = 0
        if cursor is not None:
            if not cursor.isdigit() or int(cursor) > len(items):
                raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor")
            start = int(cursor)
        end = len(items) if self.page_size is None else start + self.page_size
        page: _JsonObject = {key: items[start:end]}
        if end < len(items):
            page["nextCursor"] = str(end)
        return page

    def _make_lister(
        self, key: str
    ) -> Callable[[Any, types.PaginatedRequestParams], Awaitable[_JsonObject]]:
        async def lister(ctx: Any, params: types.PaginatedRequestParams) -> _JsonObject:
            return self._page(key, params.cursor)

        return lister

    async def _answer_raw(
        self, ctx: ServerRequestContext[Any], call_next: CallNext
    ) -> HandlerResult:
        """Listings and the initialize result as the snapshot's raw dicts (the SDK's result models
        would drop vendor keys and reject off-spec schemas)."""
        method = ctx.method
        listing = _LIST_METHODS.get(method)
        if listing is not None and self._declared(listing[1]):
            self._remember(ctx)
            params = ctx.params or {}
            cursor = params.get("cursor")
            page = self._page(listing[0], cursor if isinstance(cursor, str) else None)
            if ctx.protocol_version >= "2026":
                # 2026-07-28 results carry their type and caching directives (the SDK's defaults).
                page.update(resultType="complete", ttlMs=0, cacheScope="private")
            return page
        if method == "initialize":
            self._remember(ctx)
            result = await call_next(ctx)
            if isinstance(result, dict):
                answer = result
                answer["capabilities"] = copy_json(self._capabilities)
                if self._server_info_raw:
                    answer["serverInfo"] = copy_json(self._server_info_raw)
                if self.instructions is not None:
                    answer["instructions"] = self.instructions
                else:
                    answer.pop("instructions", None)
                answer["protocolVersion"] = self._negotiated(
                    ctx.params, answer.get("protocolVersion")
                )
            return result
        return await call_next(ctx)

    def _negotiated(self, params: Mapping[str, Any] | None, sdk_choice: Any) -> Any:
        """The snapshot's protocol version when the client speaks it too (as that server would answer)."""
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        requested = (params or {}).get("protocolVersion")
        recorded = self._protocol_version
        if (
            isinstance(recorded, str)
            and recorded in HANDSHAKE_PROTOCOL_VERSIONS
            and isinstance(requested, str)
            and recorded <= requested
        ):
            return recorded
        return sdk_choice

    def _remember(self, ctx: ServerRequestContext[Any]) -> None:
        session = ctx.session
        key = id(getattr(session, "_connection", session))
        self._sessions[key] = session

    # ------------------------------------------------------------------ tools

    def _validator(self, name: str, tool: Mapping[str, Any]) -> Any:
        validator = self._validators.get(name)
        if validator is None:
            jsonschema = import_module("jsonschema")
            listed = tool.get("inputSchema")
            schema = cast("_JsonObject", listed) if isinstance(listed, dict) else {}
            try:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                validator = cls(schema)
            except (
                Exception
            ):  # an off-spec schema: the real server could not check it either
                validator = False
            self._validators[name] = validator
        return validator

    def _invalid(
        self, name: str, tool: Mapping[str, Any], arguments: Any
    ) -> str | None:
        validator = self._validator(name, tool)
        if validator is False:
            return None
        error = next(iter(validator.iter_errors(arguments)), None)
        if error is None:
            return None
        best = (
            import_module("jsonschema.exceptions").best_match(
                validator.iter_errors(arguments)
            )
            or error
        )
        where = "/".join(str(part) for part in best.absolute_path)
        return f"Input validation error: {best.message}" + (
            f" (at {where})" if where else ""
        )

    async def _wait(self, hook: _Hook | None) -> None:
        delay = (
            hook.delay if hook is not None and hook.delay is not None else self.delay
        )
        if delay > 0:
            await anyio.sleep(delay)

    async def _on_call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name = params.name
        arguments: _JsonObject = dict(params.arguments or {})
        tool = self.listed["tools"].get(name)
        hook = self.tool_hooks.get(name)
        await self._wait(hook)
        if tool is None:
            result = _error_result(f"Unknown tool: {name}")
        else:
            problem = self._invalid(name, tool, arguments)
            if problem is not None:
                result = _error_result(problem)
            else:
                result = await self._answer_tool(ctx, name, tool, hook, arguments)
        self.calls.append(
            FakeCall(
                "tool",
                name,
                arguments,
                result,
                _result_text(result) if result.is_error else None,
            )
        )
        return result

    async def _answer_tool(
        self,
        ctx: ServerRequestContext[Any],
        name: str,
        tool: Mapping[str, Any],
        hook: ToolHook[Any, Any] | None,
        arguments: _JsonObject,
    ) -> types.CallToolResult:
        spec = self.tool_specs.get(name)
        try:
            answered = False
            value: Any = None
            if hook is not None and (hook.pending or hook.handler is not None):
                argument: Any = arguments
                if spec is not None and hook.handler is not None and not hook.pending:
                    try:
                        argument = spec.arguments_model.model_validate(arguments)
                    except ValueError as error:
                        return _error_result(f"Input validation error: {error}")
                answered, value = await hook.answer(
                    argument, FakeContext(self, name, ctx)
                )
            if not answered:
                return self._unhandled(name, tool)
            return self._tool_result(tool, spec, value)
        except MCPError:
            raise
        except FakeError as error:
            return _error_result(error.message, error.structured)
        except ToolError as error:
            raw = error.result.raw
            return raw if raw.is_error else _error_result(str(error))
        except Exception as error:
            return _error_result(str(error) or type(error).__name__)

    def _unhandled(self, name: str, tool: Mapping[str, Any]) -> types.CallToolResult:
        if self.unhandled == "error":
            return _error_result(f"the fake server has no handler for tool {name!r}")
        schema = tool.get("outputSchema")
        if not isinstance(schema, dict):
            return types.CallToolResult(content=[_text(f"{name}: fake result")])
        if name not in self._synthesised:
            self._synthesised[name] = synthesise(schema)
        return _structured_result(copy_json(self._synthesised[name]))

    def _tool_result(
        self, tool: Mapping[str, Any], spec: ToolSpec[Any, Any] | None, value: Any
    ) -> types.CallToolResult:
        if isinstance(value, types.CallToolResult):
            return value
        if isinstance(value, ToolResult):
            return value.raw
        if isinstance(value, _CONTENT_TYPES):
            return types.CallToolResult(content=[value])
        has_output = isinstance(tool.get("outputSchema"), dict)
        wrap = spec.unwrap_result if spec is not None else _wraps_result(tool)
        if (
            isinstance(value, list | tuple)
            and value
            and all(
                isinstance(item, _CONTENT_TYPES) for item in cast("list[Any]", value)
            )
        ):
            return types.CallToolResult(content=list(cast("list[Any]", value)))
        if not has_output:
            if isinstance(value, str):
                return types.CallToolResult(content=[_text(value)])
            if value is None:
                return types.CallToolResult(content=[])
            return types.CallToolResult(
                content=[_text(json.dumps(_jsonable(value), ensure_ascii=False))]
            )
        if (
            wrap
            and not (
                isinstance(value, dict)
                and set(cast("_JsonObject", value)) == {"result"}
            )
            and not _is_result_model(value, spec)
        ):
            return _structured_result({"result": _jsonable(value)})
        structured = _jsonable(value)
        if not isinstance(structured, dict):
            structured = {"result": structured}
        return _structured_result(structured)

    # ------------------------------------------------------------------ resources

    def _find_resource(self, uri: str) -> tuple[str, dict[str, str], bool] | None:
        """(key, variables, is template) for a URI: a static resource first, then templates."""
        if uri in self.listed["resources"]:
            return uri, {}, False
        for template in self.listed["resourceTemplates"]:
            variables = _match_template(template, uri)
            if variables is not None:
                return template, variables, True
        return None

    async def _on_read(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        found = self._find_resource(uri)
        if found is None:
            self.calls.append(FakeCall("resource", uri, {}, None, "Resource not found"))
            raise MCPError(
                code=RESOURCE_NOT_FOUND, message="Resource not found", data={"uri": uri}
            )
        key, variables, is_template = found
        hook = self.resource_hooks.get(key)
        await self._wait(hook)
        listing = (
            self.listed["resourceTemplates"][key]
            if is_template
            else self.listed["resources"][key]
        )
        mime = listing.get("mimeType")
        mime_type = mime if isinstance(mime, str) else None
        python_names = self._template_variables.get(key, {})
        argument = {python_names.get(k, k): v for k, v in variables.items()}
        try:
            answered, value = (
                await hook.answer(argument, FakeContext(self, uri, ctx))
                if hook is not None
                else (False, None)
            )
        except MCPError as error:
            self.calls.append(FakeCall("resource", uri, variables, None, error.message))
            raise
        except Exception as error:
            message = str(error) or type(error).__name__
            self.calls.append(FakeCall("resource", uri, variables, None, message))
            raise MCPError(code=types.INTERNAL_ERROR, message=message) from None
        if not answered:
            if self.unhandled == "error":
                message = f"the fake server has no handler for resource {uri!r}"
                self.calls.append(FakeCall("resource", uri, variables, None, message))
                raise MCPError(code=types.INTERNAL_ERROR, message=message)
            value = f"{uri}: fake contents"
        result = _resource_result(uri, mime_type, value)
        self.calls.append(FakeCall("resource", uri, variables, result))
        return result

    # ------------------------------------------------------------------ prompts

    async def _on_get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        name = params.name
        arguments = dict(params.arguments or {})
        prompt = self.listed["prompts"].get(name)
        if prompt is None:
            message = f"Unknown prompt: {name}"
            self.calls.append(FakeCall("prompt", name, arguments, None, message))
            raise MCPError(code=types.INVALID_PARAMS, message=message)
        declared = prompt.get("arguments")
        declared_list = (
            [
                cast("_JsonObject", a)
                for a in cast("list[object]", declared)
                if isinstance(a, dict)
            ]
            if isinstance(declared, list)
            else []
        )
        missing = [
            a["name"]
            for a in declared_list
            if a.get("required") and a.get("name") not in arguments
        ]
        if missing:
            message = f"Missing required arguments: {', '.join(map(str, missing))}"
            self.calls.append(FakeCall("prompt", name, arguments, None, message))
            raise MCPError(code=types.INVALID_PARAMS, message=message)
        hook = self.prompt_hooks.get(name)
        await self._wait(hook)
        spec = self.prompt_specs.get(name)
        python_names = {wire: py for wire, py, _ in spec.arguments} if spec else {}
        argument = {python_names.get(k, k): v for k, v in arguments.items()}
        try:
            answered, value = (
                await hook.answer(argument, FakeContext(self, name, ctx))
                if hook is not None
                else (False, None)
            )
        except MCPError as error:
            self.calls.append(FakeCall("prompt", name, arguments, None, error.message))
            raise
        except Exception as error:
            message = str(error) or type(error).__name__
            self.calls.append(FakeCall("prompt", name, arguments, None, message))
            raise MCPError(code=types.INTERNAL_ERROR, message=message) from None
        if not answered:
            if self.unhandled == "error":
                message = f"the fake server has no handler for prompt {name!r}"
                self.calls.append(FakeCall("prompt", name, arguments, None, message))
                raise MCPError(code=types.INTERNAL_ERROR, message=message)
            shown = ", ".join(f"{k}={v}" for k, v in sorted(arguments.items()))
            value = f"{name}({shown})"
        description = prompt.get("description")
        result = _prompt_result(
            value, description if isinstance(description, str) else None
        )
        self.calls.append(FakeCall("prompt", name, arguments, result))
        return result

    # ------------------------------------------------------------------ scripting

    def script(self, name: str, steps: Iterable[Any]) -> None:
        """Answer the next calls to tool `name` with `steps`, in order (an exception makes an `isError`
        result), then fall back to its handler: `fake.script("t", [FakeError("down"), result])`.
        """
        self.tools[name].script(steps)

    def calls_to(self, name: str) -> list[FakeCall]:
        """The recorded requests for one tool or prompt name, or resource URI."""
        return [call for call in self.calls if call.name == name]

    def reset(self) -> None:
        """Forget recorded calls, scripts and handlers."""
        self.calls.clear()
        for hooks in (self.tools, self.prompts, self.resources):
            for hook in hooks:
                hook.clear()

    def listing(
        self,
        kind: Literal["tools", "resources", "resourceTemplates", "prompts"],
        key: str,
    ) -> _JsonObject:
        """A copy of one listed item's wire dict (to change it and pass it to `set_item()`)."""
        item = self.listed[kind].get(key)
        if item is None:
            raise KeyError(key)
        return copy_json(item)

    async def set_item(
        self,
        kind: Literal["tools", "resources", "resourceTemplates", "prompts"],
        item: Mapping[str, Any],
        *,
        notify: bool = True,
    ) -> None:
        """Add or replace a listed item (a tool's wire dict, ...) and send the `list_changed`
        notification to connected clients."""
        key = item.get(_IDENTITY[kind])
        if not isinstance(key, str):
            raise ValueError(f"the item has no {_IDENTITY[kind]!r}")
        self.listed[kind][key] = copy_json(dict(item))
        self._validators.pop(key, None)
        self._synthesised.pop(key, None)
        if notify:
            await self.send_list_changed(kind)

    async def remove_item(
        self,
        kind: Literal["tools", "resources", "resourceTemplates", "prompts"],
        key: str,
        *,
        notify: bool = True,
    ) -> None:
        """Stop listing an item (calls to a removed tool answer "Unknown tool") and notify clients."""
        if self.listed[kind].pop(key, None) is None:
            raise KeyError(key)
        self._validators.pop(key, None)
        self._synthesised.pop(key, None)
        if notify:
            await self.send_list_changed(kind)

    async def set_tool(self, tool: Mapping[str, Any], *, notify: bool = True) -> None:
        """Add or replace a tool (its wire dict) and send `notifications/tools/list_changed`."""
        await self.set_item("tools", tool, notify=notify)

    async def remove_tool(self, name: str, *, notify: bool = True) -> None:
        """Stop listing a tool and send `notifications/tools/list_changed`."""
        await self.remove_item("tools", name, notify=notify)

    async def send_list_changed(
        self, kind: Literal["tools", "resources", "resourceTemplates", "prompts"]
    ) -> None:
        """Send `notifications/<kind>/list_changed` to every client that has sent a request."""
        notification: types.ServerNotification
        if kind == "tools":
            notification = types.ToolListChangedNotification()
        elif kind == "prompts":
            notification = types.PromptListChangedNotification()
        else:
            notification = types.ResourceListChangedNotification()
        for key, session in list(self._sessions.items()):
            try:
                await session.send_notification(notification)
            except Exception:  # the client went away
                self._sessions.pop(key, None)

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.name!r}: {len(self.listed['tools'])} tools, "
            f"{len(self.calls)} calls>"
        )


async def _empty(ctx: Any, params: Any) -> types.EmptyResult:
    return types.EmptyResult()


async def _no_completion(ctx: Any, params: Any) -> types.CompleteResult:
    return types.CompleteResult(completion=types.Completion(values=[]))


def _result_text(result: types.CallToolResult) -> str:
    return "\n".join(
        block.text for block in result.content if isinstance(block, types.TextContent)
    )


def _jsonable(value: Any) -> Any:
    return to_jsonable_python(value, by_alias=True, exclude_none=True)


def _wraps_result(tool: Mapping[str, Any]) -> bool:
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict):
        return False
    schema = cast("_JsonObject", schema)
    properties = schema.get("properties")
    required = schema.get("required")
    return (
        isinstance(properties, dict)
        and list(cast("_JsonObject", properties)) == ["result"]
        and required == ["result"]
    )


def _is_result_model(value: Any, spec: ToolSpec[Any, Any] | None) -> bool:
    if spec is None or not isinstance(value, BaseModel):
        return False
    model = spec.result_model
    return model is not None and isinstance(value, model)


def _resource_result(
    uri: str, mime_type: str | None, value: Any
) -> types.ReadResourceResult:
    if isinstance(value, types.ReadResourceResult):
        return value
    contents: list[types.TextResourceContents | types.BlobResourceContents]
    if isinstance(value, types.TextResourceContents | types.BlobResourceContents):
        contents = [value]
    elif isinstance(value, bytes):
        import base64

        contents = [
            types.BlobResourceContents(
                uri=uri,
                mime_type=mime_type,
                blob=base64.b64encode(value).decode("ascii"),
            )
        ]
    elif isinstance(value, str):
        contents = [
            types.TextResourceContents(uri=uri, mime_type=mime_type, text=value)
        ]
    elif isinstance(value, list | tuple):
        contents = list(cast("list[Any]", value))
    else:
        contents = [
            types.TextResourceContents(
                uri=uri,
                mime_type=mime_type or "application/json",
                text=json.dumps(_jsonable(value), ensure_ascii=False),
            )
        ]
    return types.ReadResourceResult(contents=contents)


def _prompt_result(value: Any, description: str | None) -> types.GetPromptResult:
    if isinstance(value, types.GetPromptResult):
        return value
    items: list[Any] = (
        list(cast("list[Any]", value)) if isinstance(value, list | tuple) else [value]
    )
    messages = [
        (
            item
            if isinstance(item, types.PromptMessage)
            else types.PromptMessage(role="user", content=_text(str(item)))
        )
        for item in items
    ]
    return types.GetPromptResult(description=description, messages=messages)


_EXPRESSION = re.compile(r"\{([^{}]*)\}")


def _match_template(template: str, uri: str) -> dict[str, str] | None:
    """The variables of `uri` under an RFC 6570 template (simple and reserved expansions), or None."""
    pattern: list[str] = []
    names: list[str] = []
    position = 0
    for match in _EXPRESSION.finditer(template):
        pattern.append(re.escape(template[position : match.start()]))
        expression = match.group(1)
        operator = expression[:1] if expression[:1] in "+#./;?&" else ""
        variables = [
            v.split(":")[0].rstrip("*")
            for v in expression[len(operator) :].split(",")
            if v
        ]
        if operator in ("", "+", "#") and len(variables) == 1:
            prefix = "#" if operator == "#" else ""
            body = "[^/?#]*" if operator == "" else ".*"
            group = f"g{len(names)}"
            names.append(variables[0])
            pattern.append(re.escape(prefix) + f"(?P<{group}>{body})")
        elif operator in ("/", ".") and len(variables) == 1:
            group = f"g{len(names)}"
            names.append(variables[0])
            pattern.append(re.escape(operator) + f"(?P<{group}>[^/?#.]*)")
        elif operator in ("?", "&"):
            pattern.append(r"(?:[?&][^#]*)?")
        else:
            pattern.append(".*")
        position = match.end()
    pattern.append(re.escape(template[position:]))
    found = re.fullmatch("".join(pattern), uri)
    if found is None:
        return None
    from urllib.parse import unquote

    return {name: unquote(found.group(f"g{index}")) for index, name in enumerate(names)}
