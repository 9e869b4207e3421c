"""Claude Agent SDK: agent tools as an in-process SDK MCP server, and its `allowed_tools` names (imported on first use).

The SDK's in-process server hands a model text and images only: resource links and text
resources become text there, binary resources are dropped and `structuredContent` is never
read. So the handlers send what `agent_output` renders: structured content as JSON text where
the server wrote no text, embedded resources as text naming their URI and MIME type, images as
image blocks, audio as a placeholder line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..imports import require

if TYPE_CHECKING:
    from ..output import ToolOutput
    from ..tool import AgentTool

__all__ = ["allowed_tools", "handler_result", "sdk_server", "sdk_tool"]


def input_schema(tool: AgentTool) -> dict[str, Any]:
    """The schema the SDK passes through as JSON Schema: `type` a string and `properties` present.

    (The SDK reads any other dict as a name -> Python type map with every field required.)
    """
    schema = tool.parameters_view()
    if isinstance(schema.get("type"), str) and "properties" in schema:
        return schema
    fixed = dict(schema)
    if not isinstance(fixed.get("type"), str):
        fixed["type"] = "object"
    fixed.setdefault("properties", {})
    return fixed


def handler_result(output: ToolOutput) -> dict[str, Any]:
    """An SDK handler's answer: `{"content": [...], "is_error": bool}` (text and image blocks)."""
    content: list[dict[str, Any]] = []
    for part in output.parts:
        if part.kind == "image":
            content.append(
                {"type": "image", "data": part.data, "mimeType": part.mime_type}
            )
        elif part.as_text():
            content.append({"type": "text", "text": part.as_text()})
    if not content and output.is_error:
        content.append({"type": "text", "text": "the tool failed"})
    return {"content": content, "is_error": output.is_error}


def sdk_tool(tool: AgentTool) -> Any:
    """An `SdkMcpTool` with the server's schema and annotations, running the typed call."""
    sdk = require("claude_agent_sdk", "to_claude_agent_sdk()")
    tool.ensure_bound()

    async def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        return handler_result(await tool.run(arguments, framework="claude_agent_sdk"))

    listed = tool.annotations
    annotations = None
    if listed:
        try:
            annotations = sdk.ToolAnnotations.model_validate(listed)
        except (
            ValueError
        ):  # annotations the SDK's model rejects are left out, not fatal
            annotations = None
    return sdk.SdkMcpTool(
        name=tool.name,
        description=tool.description,
        input_schema=input_schema(tool),
        handler=handler,
        annotations=annotations,
    )


def sdk_server(tools: Iterable[AgentTool], name: str, version: str) -> Any:
    """A `McpSdkServerConfig` (`{"type": "sdk", "name", "instance"}`) serving `tools`."""
    sdk = require("claude_agent_sdk", "to_claude_agent_sdk()")
    return sdk.create_sdk_mcp_server(
        name=name, version=version, tools=[sdk_tool(tool) for tool in tools]
    )


def allowed_tools(tools: Iterable[AgentTool], name: str) -> list[str]:
    """The names Claude Code knows the tools by: `mcp__<server name>__<tool name>`."""
    return [f"mcp__{name}__{tool.name}" for tool in tools]
