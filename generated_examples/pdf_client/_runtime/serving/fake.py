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

import os
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..calls.errors import ToolError
from ..calls.specs import (
    PromptSpec,
    ResourceSpec,
    SnapshotData,
    TemplateSpec,
    ToolSpec,
    copy_json,
)
from ..calls.uri import match_uri_template
from .data import synthesise
from .hooks import (
    FakeCall,
    FakeContext,
    FakeError,
    Hook,
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
    RESOURCE_NOT_FOUND,
    ArgumentChecks,
    index_items,
    load_snapshot,
    missing_prompt_arguments,
    page_of,
)
from .replies import (
    answer_empty,
    answer_no_completion,
    error_result,
    prompt_result,
    resource_result,
    result_text,
    structured_result,
    text_content,
    tool_result,
)

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

    from .tasks import FakeTask, TaskStore

__all__ = ["FakeServer"]

#: Where the fake's lifespan state keeps the task group its MCP tasks run in.
_TASK_GROUP = "mcp_codegen.fake.tasks"


@asynccontextmanager
async def _lifespan(_server: object) -> AsyncGenerator[dict[str, Any]]:
    """The fake's lifespan (each `run()`, or once for the HTTP app): a task group for the tool calls
    that run as MCP tasks (see `serving.tasks`), cancelled when the server stops."""
    async with anyio.create_task_group() as group:
        try:
            yield {_TASK_GROUP: group}
        finally:
            group.cancel_scope.cancel()


def _task_support(tool: Mapping[str, Any]) -> str:
    """A listed tool's `execution.taskSupport` ("forbidden" when absent or unknown)."""
    execution = tool.get("execution")
    if isinstance(execution, dict):
        support = cast("_JsonObject", execution).get("taskSupport")
        if support in ("optional", "required"):
            return cast(str, support)
    return "forbidden"


_JsonObject = dict[str, Any]

ViewT = TypeVar("ViewT", bound=Hooks[Any])


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
            lifespan=_lifespan,
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
                _task_support(tool) != "forbidden"
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

    # ------------------------------------------------------------------ tools

    async def _wait(self, hook: Hook | None) -> None:
        delay = (
            hook.delay if hook is not None and hook.delay is not None else self.delay
        )
        if delay > 0:
            await anyio.sleep(delay)

    async def _on_call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await self._call(ctx, params.name, dict(params.arguments or {}), None)

    async def _call(
        self,
        ctx: ServerRequestContext[Any],
        name: str,
        arguments: _JsonObject,
        task: FakeTask | None,
    ) -> types.CallToolResult:
        tool = self.listed["tools"].get(name)
        hook = self.tool_hooks.get(name)
        await self._wait(hook)
        if tool is None:
            result = error_result(f"Unknown tool: {name}")
        else:
            problem = self._argument_checks.problem(name, tool, arguments)
            if problem is not None:
                result = error_result(problem)
            else:
                result = await self._answer_tool(ctx, name, tool, hook, arguments, task)
        self.calls.append(
            FakeCall(
                "tool",
                name,
                arguments,
                result,
                result_text(result) if result.is_error else None,
                task.task_id if task is not None else None,
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
        task: FakeTask | None = None,
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
                        return error_result(f"Input validation error: {error}")
                answered, value = await hook.answer(
                    argument, FakeContext(self, name, ctx, task)
                )
            if not answered:
                return self._unhandled(name, tool)
            return tool_result(tool, spec, value)
        except MCPError:
            raise
        except FakeError as error:
            return error_result(error.message, error.structured)
        except ToolError as error:
            raw = error.result.raw
            return raw if raw.is_error else error_result(str(error))
        except Exception as error:
            return error_result(str(error) or type(error).__name__)

    def _unhandled(self, name: str, tool: Mapping[str, Any]) -> types.CallToolResult:
        if self.unhandled == "error":
            return error_result(f"the fake server has no handler for tool {name!r}")
        schema = tool.get("outputSchema")
        if not isinstance(schema, dict):
            return types.CallToolResult(content=[text_content(f"{name}: fake result")])
        if name not in self._synthesised:
            self._synthesised[name] = synthesise(schema)
        return structured_result(copy_json(self._synthesised[name]))

    # ------------------------------------------------------------------ tasks

    @property
    def tasks(self) -> TaskStore:
        """The tasks tool calls ran as (MCP 2025-11-25 tasks), by id: `fake.tasks[task_id].status`."""
        store = self._tasks
        if store is None:
            from .tasks import TaskStore

            store = self._tasks = TaskStore()
        return store

    def serve_tasks(self) -> None:
        """Answer `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` (done at construction
        when a listed tool may run as a task or the snapshot declares `tasks`; idempotent).
        """
        if self._serving_tasks:
            return
        self._serving_tasks = True
        self.add_request_handler(
            "tasks/get", types.GetTaskRequestParams, self._on_get_task
        )
        self.add_request_handler(
            "tasks/result", types.GetTaskPayloadRequestParams, self._on_task_result
        )
        self.add_request_handler(
            "tasks/cancel", types.CancelTaskRequestParams, self._on_cancel_task
        )
        self.add_request_handler(
            "tasks/list", types.PaginatedRequestParams, self._on_list_tasks
        )

    def _runs_as_task(self, name: str, tool: Mapping[str, Any]) -> bool:
        """Whether a call of `name` the client asks to run as a task is made one: as its hook's `task`
        says, else as the listing does (`taskSupport` optional or required)."""
        hook = self.tool_hooks.get(name)
        if hook is not None and hook.task is not None:
            return hook.task
        return _task_support(tool) != "forbidden"

    def _start_task(
        self, ctx: ServerRequestContext[Any], params: Mapping[str, Any]
    ) -> _JsonObject | None:
        """`CreateTaskResult` for a task-augmented `tools/call`, its handler started in the background;
        None to answer the call as a plain one (not a task tool, or no task group to run it in).
        """
        name = params.get("name")
        tool = self.listed["tools"].get(name) if isinstance(name, str) else None
        if (
            tool is None
            or not isinstance(name, str)
            or not self._runs_as_task(name, tool)
        ):
            return None
        state: object = ctx.lifespan_context
        group: Any = (
            cast("_JsonObject", state).get(_TASK_GROUP)
            if isinstance(state, dict)
            else None
        )
        if group is None:
            return None
        self.serve_tasks()
        self._remember(ctx)
        arguments = params.get("arguments")
        task = self.tasks.create(
            name,
            dict(cast("_JsonObject", arguments)) if isinstance(arguments, dict) else {},
            cast("_JsonObject", params["task"]).get("ttl"),
            round(self.task_poll_interval * 1000),
        )

        async def work() -> types.CallToolResult:
            return await self._call(ctx, name, task.arguments, task)

        group.start_soon(task.run, work, self._task_ended)
        return {"task": task.wire()}

    def _task_ended(self, task: FakeTask) -> None:
        """Record a task that was cancelled or ended with a JSON-RPC error in `calls`."""
        if task.status == "cancelled":
            error = f"cancelled: {task.message}"
        elif task.error is not None:
            error = task.error.message
        else:
            return
        self.calls.append(
            FakeCall("tool", task.tool, task.arguments, None, error, task.task_id)
        )

    async def _on_get_task(
        self, ctx: ServerRequestContext[Any], params: types.GetTaskRequestParams
    ) -> _JsonObject:
        return self.tasks.find(params.task_id).wire()

    async def _on_task_result(
        self, ctx: ServerRequestContext[Any], params: types.GetTaskPayloadRequestParams
    ) -> _JsonObject:
        task = self.tasks.find(params.task_id)
        return await task.outcome(ctx.session, ctx.request_id)

    async def _on_cancel_task(
        self, ctx: ServerRequestContext[Any], params: types.CancelTaskRequestParams
    ) -> _JsonObject:
        task = self.tasks.find(params.task_id)
        if task.terminal:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Cannot cancel task in terminal status: {task.status}",
            )
        task.cancel("cancelled by the client")
        return task.wire()

    async def _on_list_tasks(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> _JsonObject:
        page = page_of(
            "tasks",
            [task.wire() for task in self.tasks.all()],
            params.cursor,
            self.page_size,
        )
        return page

    def _find_resource(self, uri: str) -> tuple[str, dict[str, str], bool] | None:
        """(key, variables, is template) for a URI: a static resource first, then templates."""
        if uri in self.listed["resources"]:
            return uri, {}, False
        for template in self.listed["resourceTemplates"]:
            variables = match_uri_template(template, uri)
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
        result = resource_result(uri, mime_type, value)
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
        missing = missing_prompt_arguments(prompt, arguments)
        if missing:
            message = f"Missing required arguments: {', '.join(missing)}"
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
        result = prompt_result(
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
