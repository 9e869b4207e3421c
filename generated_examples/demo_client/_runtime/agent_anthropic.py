"""Anthropic Messages API: tool definitions, and running a message's `tool_use` blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .agent_calls import Resolver, field, run_calls

if TYPE_CHECKING:
    from .agent_output import ToolOutput
    from .agent_tool import AgentTool

__all__ = ["handle_anthropic_tool_use", "tool_definition"]


def tool_definition(tool: AgentTool) -> dict[str, Any]:
    """An Anthropic tool: `{"name", "description", "input_schema"}`."""
    definition: dict[str, Any] = {"name": tool.name}
    if tool.description:
        definition["description"] = tool.description
    definition["input_schema"] = tool.parameters
    return definition


async def handle_anthropic_tool_use(
    resolve: Resolver, content: Sequence[Any] | None, timeout: float | None
) -> list[dict[str, Any]]:
    """One `tool_result` block per `tool_use` block of `message.content`, in order."""

    def read(block: Any) -> tuple[object, object]:
        return field(block, "name"), field(block, "input")

    def answer(block: Any, output: ToolOutput) -> dict[str, Any]:
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": field(block, "id"),
        }
        blocks_out = output.to_anthropic_content()
        if blocks_out:
            result["content"] = blocks_out
        if output.is_error:
            result["is_error"] = True
        return result

    blocks = [block for block in content or [] if field(block, "type") == "tool_use"]
    return await run_calls(resolve, blocks, timeout, "anthropic", read, answer)
