"""How the fake answers `tools/call`, `resources/read` and `prompts/get`: from a hook or a script, else
synthesised or an error (as `unhandled` says); every answer recorded in `fake.calls`.

`FakeAnswers` is a base of `FakeServer` (`serving.fake`), which sets the attributes declared here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..calls.errors import ToolError
from ..calls.specs import PromptSpec, ToolSpec, copy_json
from ..calls.uri import match_uri_template
from .data import synthesise
from .hooks import (
    FakeCall,
    FakeContext,
    FakeError,
    Hook,
    PromptHook,
    ResourceHook,
    ToolHook,
)
from .listing import RESOURCE_NOT_FOUND, ArgumentChecks, missing_prompt_arguments
from .replies import (
    error_result,
    prompt_result,
    resource_result,
    result_text,
    structured_result,
    text_content,
    tool_result,
)

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from .fake import FakeServer
    from .tasks import FakeTask

__all__ = ["FakeAnswers"]

_JsonObject = dict[str, Any]


class FakeAnswers(Server[Any]):
    """The request handlers that answer tool calls, resource reads and prompt gets."""

    # Set by `FakeServer.__init__` (documented there).
    listed: dict[str, dict[str, _JsonObject]]
    tool_specs: dict[str, ToolSpec[Any, Any]]
    prompt_specs: dict[str, PromptSpec]
    unhandled: Literal["synthesise", "error"]
    delay: float
    calls: list[FakeCall]
    tool_hooks: dict[str, ToolHook[Any, Any]]
    prompt_hooks: dict[str, PromptHook[Any]]
    resource_hooks: dict[str, ResourceHook[Any]]
    _argument_checks: ArgumentChecks
    _synthesised: dict[str, Any]
    _template_variables: dict[str, dict[str, str]]
    snapshot_data: _JsonObject

    def _context(
        self, name: str, ctx: ServerRequestContext[Any], task: FakeTask | None = None
    ) -> FakeContext:
        """The context a hook's handler receives (this object is always a `FakeServer`)."""
        return FakeContext(cast("FakeServer", self), name, ctx, task)

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
                    argument, self._context(name, ctx, task)
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
            observed = self._observed_schema(name)
            if observed is None:
                return types.CallToolResult(
                    content=[text_content(f"{name}: fake result")]
                )
            # A type observed in recordings (`--results-from`): JSON text, as the server answers.
            if name not in self._synthesised:
                self._synthesised[name] = synthesise(observed)
            text = json.dumps(self._synthesised[name], ensure_ascii=False)
            return types.CallToolResult(content=[text_content(text)])
        if name not in self._synthesised:
            self._synthesised[name] = synthesise(schema)
        return structured_result(copy_json(self._synthesised[name]))

    def _observed_schema(self, name: str) -> dict[str, Any] | None:
        """The result type the snapshot observed in recordings for the tool `name`, or None."""
        observed: object = self.snapshot_data.get("observedResults")
        entry: object = (
            cast("dict[str, Any]", observed).get(name)
            if isinstance(observed, dict)
            else None
        )
        schema: object = (
            cast("dict[str, Any]", entry).get("schema")
            if isinstance(entry, dict)
            else None
        )
        return cast("dict[str, Any]", schema) if isinstance(schema, dict) else None

    # ------------------------------------------------------------------ resources and prompts

    async def _hook_answer(
        self,
        kind: Literal["resource", "prompt"],
        key: str,
        sent: _JsonObject,
        hook: Hook | None,
        argument: _JsonObject,
        ctx: ServerRequestContext[Any],
    ) -> tuple[bool, Any]:
        """(answered, value) from a resource's or prompt's hook, (False, None) without one; a failing
        hook, or none with `unhandled="error"`, is recorded in `calls` and raised as a JSON-RPC error.
        """

        def failed(message: str) -> MCPError:
            self.calls.append(FakeCall(kind, key, sent, None, message))
            return MCPError(code=types.INTERNAL_ERROR, message=message)

        try:
            answered, value = (
                await hook.answer(argument, self._context(key, ctx))
                if hook is not None
                else (False, None)
            )
        except MCPError as error:
            self.calls.append(FakeCall(kind, key, sent, None, error.message))
            raise
        except Exception as error:
            raise failed(str(error) or type(error).__name__) from None
        if not answered and self.unhandled == "error":
            raise failed(f"the fake server has no handler for {kind} {key!r}")
        return answered, value

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
        answered, value = await self._hook_answer(
            "resource", uri, variables, hook, argument, ctx
        )
        if not answered:
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
        answered, value = await self._hook_answer(
            "prompt", name, arguments, hook, argument, ctx
        )
        if not answered:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(arguments.items()))
            value = f"{name}({shown})"
        description = prompt.get("description")
        result = prompt_result(
            value, description if isinstance(description, str) else None
        )
        self.calls.append(FakeCall("prompt", name, arguments, result))
        return result
