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

This module holds the fake's construction, listings, the initialize answer and its scripting and editing
API; answering calls, reads and prompt gets is `serving.answers`, MCP tasks `serving.task_requests`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import mcp_types as types

from ..calls.specs import (
    PromptSpec,
    ResourceSpec,
    SnapshotData,
    TemplateSpec,
    ToolSpec,
    copy_json,
)
from .hooks import (
    FakeCall,
    Hooks,
    PromptHook,
    PromptHooks,
    ResourceHook,
    ResourceHooks,
    ToolHook,
    ToolHooks,
)
from .listing import (
    IDENTITY,
    LIST_METHODS,
    ArgumentChecks,
    index_items,
    load_snapshot,
    page_of,
)
from .replies import answer_empty, answer_no_completion
from .task_requests import FakeTaskRequests, fake_lifespan, task_support

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

    from .tasks import TaskStore

__all__ = ["FakeServer"]

_JsonObject = dict[str, Any]

ViewT = TypeVar("ViewT", bound=Hooks[Any])


class FakeServer(FakeTaskRequests):
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
        data = load_snapshot(snapshot)
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
            lifespan=fake_lifespan,
        )
        self.snapshot_data: _JsonObject = data
        capabilities = data.get("capabilities")
        self._capabilities: _JsonObject = (
            cast("_JsonObject", capabilities) if isinstance(capabilities, dict) else {}
        )
        self._server_info_raw = info
        self._protocol_version = data.get("protocolVersion")
        self.listed: dict[str, dict[str, _JsonObject]] = {
            key: index_items(data, key) for key in IDENTITY
        }
        self.tool_specs: dict[str, ToolSpec[Any, Any]] = dict(tool_specs or {})
        self.prompt_specs: dict[str, PromptSpec] = dict(prompt_specs or {})
        self.unhandled: Literal["synthesise", "error"] = unhandled
        #: Seconds to wait before every answer (a hook's own `delay` wins).
        self.delay = delay
        self.page_size = page_size
        #: Every tool call, resource read and prompt get, in order.
        self.calls: list[FakeCall] = []
        self._tasks: TaskStore | None = None
        #: Seconds between two `tasks/get` the fake suggests to clients following a task.
        self.task_poll_interval = 0.05
        self._argument_checks = ArgumentChecks()
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

        self._serving_tasks = False
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
        for method, (key, capability) in LIST_METHODS.items():
            if self._declared(capability):
                self.add_request_handler(
                    method, types.PaginatedRequestParams, self._make_lister(key)
                )
        if self._declared("tools"):
            self.add_request_handler(
                "tools/call", types.CallToolRequestParams, self._on_call_tool
            )
            if self._declared("tasks") or any(
                task_support(tool) != "forbidden"
                for tool in self.listed["tools"].values()
            ):
                self.serve_tasks()
        if self._declared("resources"):
            self.add_request_handler(
                "resources/read", types.ReadResourceRequestParams, self._on_read
            )
            resources = self._capabilities.get("resources")
            if isinstance(resources, dict) and cast("_JsonObject", resources).get(
                "subscribe"
            ):
                self.add_request_handler(
                    "resources/subscribe", types.SubscribeRequestParams, answer_empty
                )
                self.add_request_handler(
                    "resources/unsubscribe",
                    types.UnsubscribeRequestParams,
                    answer_empty,
                )
        if self._declared("prompts"):
            self.add_request_handler(
                "prompts/get", types.GetPromptRequestParams, self._on_get_prompt
            )
        if self._declared("completions"):
            self.add_request_handler(
                "completion/complete", types.CompleteRequestParams, answer_no_completion
            )
        if self._declared("logging"):
            self.add_request_handler(
                "logging/setLevel", types.SetLevelRequestParams, answer_empty
            )

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        """The snapshot's capabilities (the SDK would derive them from the registered handlers)."""
        return types.ServerCapabilities.model_validate(self._capabilities)

    def _page(self, key: str, cursor: str | None) -> _JsonObject:
        return page_of(key, list(self.listed[key].values()), cursor, self.page_size)

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
        if method == "tools/call":
            params = ctx.params
            if params is not None and isinstance(params.get("task"), dict):
                created = self._start_task(ctx, params)
                if created is not None:
                    self._remember(ctx)
                    return created
            return await call_next(ctx)
        listing = LIST_METHODS.get(method)
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
        if self._tasks is not None:
            self._tasks.clear()
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
        key = item.get(IDENTITY[kind])
        if not isinstance(key, str):
            raise ValueError(f"the item has no {IDENTITY[kind]!r}")
        self.listed[kind][key] = copy_json(dict(item))
        self._argument_checks.forget(key)
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
        self._argument_checks.forget(key)
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
