"""pydantic-ai: an agent tool as a `Tool`, a tool set as a `FunctionToolset` (imported on first use)."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..imports import require

if TYPE_CHECKING:
    from ..tool import AgentTool

__all__ = ["function_tool", "function_toolset"]


def function_tool(tool: AgentTool) -> Any:
    """A `Tool` with the server's schema; failures raise `ToolFailed` (the model sees them)."""
    pydantic_ai = require("pydantic_ai", "to_pydantic_ai()")
    tool.ensure_bound()
    tool_failed = pydantic_ai.ToolFailed
    binary_content = pydantic_ai.BinaryContent

    async def function(**kwargs: Any) -> Any:
        output = await tool.run(kwargs, framework="pydantic_ai")
        if output.is_error:
            raise tool_failed(output.text or "the tool failed")
        if not output.has_media:
            return output.text
        content: list[Any] = []
        for part in output.parts:
            if part.kind == "text":
                content.append(part.text)
            else:
                data = base64.b64decode(part.data)
                content.append(binary_content(data, media_type=part.mime_type))
        return content

    return pydantic_ai.Tool.from_schema(
        function,
        name=tool.name,
        description=tool.description,
        json_schema=tool.parameters,
    )


def function_toolset(tools: Iterable[AgentTool]) -> Any:
    """A `FunctionToolset` of `tools`: `Agent(model, toolsets=[toolset])`."""
    toolsets = require("pydantic_ai.toolsets", "to_pydantic_ai()")
    return toolsets.FunctionToolset([function_tool(tool) for tool in tools])
