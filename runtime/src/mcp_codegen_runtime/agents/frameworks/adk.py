"""Google ADK: agent tools as `BaseTool`s in a `BaseToolset` (ADK imported on first use).

Each tool declares the server's input schema (`parameters_json_schema`) and, when the tool has
one, its output schema (`response_json_schema`), which ADK's own MCP toolset does not show the
model. A call's response is the structured content when the tool declares an output schema,
else `{"result": <text>}`; images and audio go along as media parts (ADK moves them into the
function response's parts); a failure is `{"error": <text>}`.

Ownership: the toolset never opens a connection. `close()` closes the client only when the
toolset was made with `close_client=True` (then it owns the client: an agent's runner closing
its toolsets closes the session too); by default the caller keeps the client and closes it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..imports import require

if TYPE_CHECKING:
    from ..output import ToolOutput
    from ..tool import AgentTool

__all__ = ["adk_tool", "adk_toolset", "response"]


def response(output: ToolOutput, *, structured: bool) -> dict[str, Any]:
    """The function response ADK sends the model for `output` (see the module docstring)."""
    if output.is_error:
        return {"error": output.text or "the tool failed"}
    value = output.structured
    if structured and isinstance(value, dict) and not output.has_media:
        return dict(value)  # pyright: ignore[reportUnknownArgumentType]
    answer: dict[str, Any] = {"result": output.text}
    media = [part for part in output.parts if part.kind != "text"]
    if media:
        types = require("google.genai.types", "to_adk()")
        answer["media"] = [
            types.Part.from_bytes(
                data=base64.b64decode(part.data), mime_type=part.mime_type
            )
            for part in media
        ]
    return answer


_CLASSES: dict[str, Any] = {}


def _classes() -> tuple[Any, Any]:
    """The `BaseTool` and `BaseToolset` subclasses, defined once ADK is imported."""
    found = _CLASSES.get("tool"), _CLASSES.get("toolset")
    if found[0] is not None:
        return found
    base_tool = require("google.adk.tools.base_tool", "to_adk()").BaseTool
    base_toolset = require("google.adk.tools.base_toolset", "to_adk()").BaseToolset
    types = require("google.genai.types", "to_adk()")

    class McpCodegenTool(base_tool):  # type: ignore[misc,valid-type]
        """One MCP tool of a generated client, called through its typed path."""

        def __init__(self, tool: AgentTool) -> None:
            super().__init__(  # pyright: ignore[reportUnknownMemberType]
                name=tool.name, description=tool.description
            )
            self.agent_tool = tool

        def _get_declaration(self) -> Any:
            tool = self.agent_tool
            return types.FunctionDeclaration(
                name=self.name,
                description=tool.description,
                parameters_json_schema=tool.parameters_view(),
                response_json_schema=tool.output_schema_view(),
            )

        async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Any:
            tool = self.agent_tool
            output = await tool.run(args, framework="adk")
            return response(output, structured=tool.output_schema_view() is not None)

    class McpCodegenToolset(base_toolset):  # type: ignore[misc,valid-type]
        """The tools of a generated client; `close()` closes the client only if it owns it."""

        def __init__(
            self,
            tools: Sequence[AgentTool],
            *,
            tool_filter: Any = None,
            tool_name_prefix: str | None = None,
            close_client: bool = False,
        ) -> None:
            super().__init__(  # pyright: ignore[reportUnknownMemberType]
                tool_filter=tool_filter, tool_name_prefix=tool_name_prefix
            )
            self.tools = [McpCodegenTool(tool) for tool in tools]
            self.close_client = close_client

        async def get_tools(self, readonly_context: Any = None) -> list[Any]:
            return [
                tool
                for tool in self.tools
                if self._is_tool_selected(tool, readonly_context)
            ]

        async def close(self) -> None:
            if not self.close_client:
                return
            closed: set[int] = set()
            for tool in self.tools:
                agent_tool: AgentTool = tool.agent_tool
                owner: Any = agent_tool.sync_client or agent_tool.client
                if owner is None or id(owner) in closed:
                    continue
                closed.add(id(owner))
                if agent_tool.sync_client is not None:
                    import anyio  # a blocking client's close() waits for its loop thread

                    await anyio.to_thread.run_sync(owner.close)
                else:
                    await owner.aclose()

    _CLASSES["tool"] = McpCodegenTool
    _CLASSES["toolset"] = McpCodegenToolset
    return McpCodegenTool, McpCodegenToolset


def adk_tool(tool: AgentTool) -> Any:
    """An ADK `BaseTool` for `tool` (bound to a client)."""
    tool.ensure_bound()
    return _classes()[0](tool)


def adk_toolset(
    tools: Iterable[AgentTool],
    *,
    tool_filter: Callable[..., bool] | list[str] | None = None,
    tool_name_prefix: str | None = None,
    close_client: bool = False,
) -> Any:
    """An ADK `BaseToolset` of `tools`: `LlmAgent(tools=[toolset])` (see the module docstring)."""
    listed = list(tools)
    for tool in listed:
        tool.ensure_bound()
    return _classes()[1](
        listed,
        tool_filter=tool_filter,
        tool_name_prefix=tool_name_prefix,
        close_client=close_client,
    )
