"""Calling tools: validating arguments, sending `tools/call`, typing results, and `on_call` observers."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    TypeVar,
    cast,
)

from pydantic import ValidationError

from ..calls.arguments import InvalidArguments, given_twice, json_value, python_named
from ..calls.errors import (
    ArgumentsValidationError,
    RequestTimeoutError,
    ResultValidationError,
    ToolError,
    UnknownToolError,
    UnsupportedByServerError,
)
from ..calls.input_required import speaks_multi_round
from ..calls.results import ToolResult
from ..calls.sentinel import NOT_SENT
from ..calls.tasks import SessionTasks, TaskProtocol, TaskState
from .core import ClientCore, lazy_mcp_types

if TYPE_CHECKING:
    import mcp_types
    from pydantic import BaseModel

    from ..calls.observed import ObservedResult
    from ..calls.specs import ToolSpec
    from ..calls.tracing import CallHook
    from .task_handles import AsyncTasksBase


R = TypeVar("R")


def find_tool_spec(
    tools: Mapping[str, ToolSpec[Any, Any]], name: str
) -> ToolSpec[Any, Any]:
    """The spec of the tool with wire or Python name `name`; UnknownToolError (with suggestions) if none."""
    spec = tools.get(name)
    if spec is not None:
        return spec
    for candidate in tools.values():
        if candidate.python_name == name:
            return candidate
    import difflib

    choices = [*tools, *(candidate.python_name for candidate in tools.values())]
    raise UnknownToolError(
        name, list(dict.fromkeys(difflib.get_close_matches(name, choices, n=3)))
    )


def _structured_from_text(raw: mcp_types.CallToolResult, unwrap: bool) -> object:
    """Structured content for a result without `structuredContent`: the first text block parsed as JSON."""
    import json

    text = next((block.text for block in raw.content if block.type == "text"), None)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return {"result": text} if unwrap else None
    parsed = cast(object, value)
    if unwrap and not _has_result_key(parsed):
        return {"result": parsed}
    return parsed


def _has_result_key(value: object) -> bool:
    return isinstance(value, dict) and "result" in value


class ToolCalls(ClientCore):
    """Calling tools: validating arguments, sending `tools/call`, typing results, and `on_call` observers."""

    __slots__ = ()

    async def _call_tool(
        self,
        spec: ToolSpec[Any, R],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> R:
        """Check `arguments` (wire or Python names; NOT_SENT values left out) and `extra` (wire names)
        against the tool's schema, send them as given, type the result."""
        if self._call_hooks:
            return await self._observed(
                spec.name,
                {**arguments, **extra} if extra else arguments,
                lambda: self._call_tool_now(spec, arguments, timeout, extra),
            )
        return await self._call_tool_now(spec, arguments, timeout, extra)

    async def _call_tool_now(
        self,
        spec: ToolSpec[Any, R],
        arguments: Mapping[str, object],
        timeout: float | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> R:
        raw = await self._send_tool_call(spec, arguments, timeout, extra)
        return cast(R, self._tool_outcome(spec, raw))

    async def _send_tool_call(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        timeout: float | None,
        extra: Mapping[str, object] | None = None,
    ) -> mcp_types.CallToolResult:
        """Send `tools/call` with the wire arguments (`_wire_arguments`); a tool that lists
        `taskSupport: "required"` runs as a task (`_send_task_call`)."""
        payload = self._wire_arguments(spec, arguments, extra)
        if spec.task_support != "forbidden" and self._runs_as_task(spec.task_support):
            return await self._send_task_call(spec, payload, timeout)
        if self._closed_reason is not None:
            await self._reopen(timeout)
        types = lazy_mcp_types()
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=spec.name, arguments=payload)
        )
        try:
            return await self._send(
                request, types.CallToolResult, timeout, "tools/call", spec.name
            )
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            self._after_failure(
                error,
                method="tools/call",
                subject=f"tool {spec.name!r}",
                timeout=timeout,
            )

    async def _send_task_call(
        self,
        spec: ToolSpec[Any, Any],
        payload: dict[str, object],
        timeout: float | None,
    ) -> mcp_types.CallToolResult:
        """Run the call as a task and return its `CallToolResult` (what a plain call returns): create it,
        wait for `tasks/result`, report status changes to the view's `on_progress`. The call's timeout
        covers the whole wait; a timeout, or cancelling the caller, cancels the task on the server.
        """
        import anyio

        from .task_handles import status_relay, wait_with_deadline

        protocol = self._task_protocol()
        limit = self._call_limit(timeout)
        options = self._call_options
        on_status = status_relay(options.on_progress if options is not None else None)
        deadline = math.inf if limit is None else anyio.current_time() + limit
        started: TaskState | mcp_types.CallToolResult | None = None
        with anyio.CancelScope(deadline=deadline):
            started = await protocol.start(spec.name, payload, timeout=limit)
        if started is None:
            raise RequestTimeoutError(
                f"tools/call request for tool {spec.name!r} timed out after {limit or 0:g} s"
            )
        if not isinstance(started, TaskState):
            return started  # the server ran it at once
        return await wait_with_deadline(
            protocol,
            started,
            tool=spec.name,
            limit=limit,
            on_status=on_status,
            cancel_on_exit=True,
            deadline=deadline,
        )

    def _call_limit(self, timeout: float | None) -> float | None:
        """The limit of a whole task-run call: its `timeout=`, else this view's `timeout`/`max_timeout`;
        None without either (the connector's `timeout=` bounds each request, not a task's wait).
        """
        if timeout is not None:
            return timeout
        options = self._call_options
        if options is None:
            return None
        limits = [t for t in (options.timeout, options.max_timeout) if t is not None]
        return min(limits) if limits else None

    def _runs_as_task(self, support: str) -> bool:
        """Whether a typed call of a tool listing `taskSupport: support` runs as a task: a required one
        at 2025-11-25; any task tool once the session declared the 2026-07-28 extension (the server
        then decides, and answers at once when it makes no task)."""
        if speaks_multi_round(self._session):
            return self._declares_tasks
        return support == "required"

    def _task_protocol(self) -> TaskProtocol:
        """The task requests of this connection, sent through `_request`: the 2025-11-25 ones, or the
        2026-07-28 extension's on a session that declared it."""
        if not speaks_multi_round(self._session):
            return SessionTasks(self._session, self._task_request)
        if not self._declares_tasks:
            raise UnsupportedByServerError(
                "tasks at 2026-07-28 need the tasks extension (io.modelcontextprotocol/tasks), which"
                " this client declares only when its snapshot lists tools that run as tasks"
            )
        from ..calls.extension_tasks import ExtensionTasks

        return ExtensionTasks(self._session, self._task_request)

    async def _task_request(
        self,
        request: Any,
        result_type: Any,
        timeout: float | None,
        method: str,
        tool: str | None,
    ) -> Any:
        return await self._request(
            request,
            result_type,
            method=method,
            timeout=timeout,
            subject=f"tool {tool!r}" if tool is not None else None,
            tool=tool,
        )

    @property
    def tasks(self) -> AsyncTasksBase:
        """Tool calls as MCP tasks: `task = await client.tasks.start("tool", {...})`, then
        `await task.result()`, `await task.status()`, `await task.cancel()`; `client.tasks.resume(id)`
        for a task started before; `await client.tasks.list()`. A tool that requires a task needs none
        of this: its typed method runs it as one and returns its result."""
        from .task_handles import AsyncTasksBase

        return AsyncTasksBase(self)

    def _wire_arguments(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        extra: Mapping[str, object] | None,
    ) -> dict[str, object]:
        """The arguments as sent: wire names, the values exactly as given (NOT_SENT left out), checked
        against the tool's schema; `ArgumentsValidationError` (nothing sent) when the schema refuses them.
        """
        check = self._arguments_check(spec)
        properties = check.properties
        wire: dict[str, object] = {}
        renames: dict[str, str] | None = None
        try:
            for key, value in arguments.items():
                if value is NOT_SENT:
                    continue
                if key not in properties:  # a Python name (`call()`, the command line)
                    renames = spec.wire_names() if renames is None else renames
                    key = renames.get(key, key)
                wire[key] = json_value(value, (key,))
            for key, value in (extra or {}).items():
                if key in wire:
                    raise InvalidArguments([given_twice(key, value)])
                wire[key] = json_value(value, (key,))
        except InvalidArguments as invalid:
            problems = invalid.errors
        else:
            problems = check.problems(wire)
        if problems:
            raise ArgumentsValidationError(python_named(problems, spec), tool=spec.name)
        return wire

    def _tool_outcome(
        self, spec: ToolSpec[Any, Any], raw: mcp_types.CallToolResult
    ) -> object:
        if raw.is_error:
            raise ToolError(ToolResult(raw), tool=spec.name)
        result_model = spec.result_model
        if result_model is None:
            return ToolResult(raw)
        if (
            spec.observed
        ):  # typed from recorded answers: the tool declares no output schema
            from ..calls.observed import observed_result

            return observed_result(
                cast("type[ObservedResult]", result_model), raw, tool=spec.name
            )
        structured: object = raw.structured_content
        if structured is None:
            structured = _structured_from_text(raw, spec.unwrap_result)
            if structured is None:
                raise ResultValidationError(
                    [],
                    tool=spec.name,
                    result=ToolResult(raw),
                    reason="the result has no structured content",
                )
        options = self._call_options
        if options is not None and options.check_results:
            problems = spec.result_check().problems(structured)
            if problems:
                raise ResultValidationError(
                    problems, tool=spec.name, result=ToolResult(raw)
                )
        try:
            validated: BaseModel = result_model.model_validate(structured)
        except ValidationError as error:
            raise ResultValidationError(
                error.errors(include_url=False), tool=spec.name, result=ToolResult(raw)
            ) from None
        if spec.unwrap_result:
            field = spec.result_field
            if field is not None:
                return getattr(validated, field)
        return validated

    def _tool_spec(self, name: str) -> ToolSpec[Any, Any]:
        return find_tool_spec(self._tools, name)

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Call a tool by wire (or Python) name; `arguments` may use wire or Python field names.

        Returns what the typed method returns: the result model, the unwrapped value, or a ToolResult.
        """
        return await self._call_tool(
            self._tool_spec(name), arguments or {}, timeout=timeout
        )

    async def call_raw(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """Call any tool (even one this client was not generated with) without validation.

        The result is returned as is, also when `is_error` is set.
        """
        values = {
            key: value
            for key, value in (arguments or {}).items()
            if value is not NOT_SENT
        }
        if self._call_hooks:
            return await self._observed(
                name,
                values,
                lambda: self._call_raw_now(name, values, timeout),
                source="raw",
            )
        return await self._call_raw_now(name, values, timeout)

    async def _call_raw_now(
        self, name: str, values: dict[str, Any], timeout: float | None
    ) -> ToolResult:
        types = lazy_mcp_types()
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=name, arguments=values)
        )
        raw = await self._request(
            request,
            types.CallToolResult,
            method="tools/call",
            timeout=timeout,
            subject=f"tool {name!r}",
            tool=name,
        )
        return ToolResult(raw)

    def on_call(self, callback: CallHook) -> Callable[[], None]:
        """Call `callback(ToolCall)` after every tool call (typed, `call()`, `call_raw()`, agent adapters).

        The `ToolCall` carries the wire name, the arguments, the result or the error and the
        duration. `callback` may be a coroutine function (it is awaited, on the client's loop);
        its exceptions are logged, never raised. Returns a function that removes the callback.
        `TraceRecorder().attach(client)` keeps every call and renders a transcript.
        """
        self._call_hooks = (*self._call_hooks, callback)

        def remove() -> None:
            self._call_hooks = tuple(
                hook for hook in self._call_hooks if hook is not callback
            )

        return remove

    async def _observed(
        self,
        tool: str,
        arguments: Mapping[str, object],
        call: Callable[[], Awaitable[R]],
        *,
        source: str = "client",
        agent_name: str | None = None,
        framework: str | None = None,
    ) -> R:
        from ..calls.tracing import observed

        values = {
            key: value for key, value in arguments.items() if value is not NOT_SENT
        }
        return await observed(
            self._call_hooks,
            tool,
            values,
            call,
            source=source,
            agent_name=agent_name,
            framework=framework,
        )

    async def call_spec(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> Any:
        """Internal (`protocols.ToolCaller`, for agent tools): the typed call of `spec`."""
        return await self._call_tool(spec, arguments, timeout=timeout)

    async def call_spec_result(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
        agent_name: str | None = None,
        framework: str | None = None,
    ) -> ToolResult:
        """Internal (`protocols.ToolCaller`): validate `arguments` like `_call_tool`, call the tool
        and return the whole `ToolResult`.

        What agent tool adapters use: the model gets every content block and the structured
        content as sent. Raises ToolError for a result with `isError`.
        """
        if self._call_hooks:
            return await self._observed(
                spec.name,
                arguments,
                lambda: self._call_tool_result_now(spec, arguments, timeout),
                source="agent",
                agent_name=agent_name,
                framework=framework,
            )
        return await self._call_tool_result_now(spec, arguments, timeout)

    async def _call_tool_result_now(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        timeout: float | None,
    ) -> ToolResult:
        raw = await self._send_tool_call(spec, arguments, timeout)
        if raw.is_error:
            raise ToolError(ToolResult(raw), tool=spec.name)
        return ToolResult(raw)
