"""Anthropic Messages API: tool definitions, and running a message's `tool_use` blocks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..calls import Resolver, field, run_calls

if TYPE_CHECKING:
    from ..output import ToolOutput
    from ..tool import AgentTool

__all__ = [
    "CacheControl",
    "cache_control_value",
    "handle_anthropic_tool_use",
    "tool_definition",
    "tool_definitions",
]


def tool_definition(
    tool: AgentTool, *, cache_control: CacheControl = None
) -> dict[str, Any]:
    """An Anthropic tool: `{"name", "description", "input_schema"}` (and `cache_control`)."""
    definition: dict[str, Any] = {"name": tool.name}
    if tool.description:
        definition["description"] = tool.description
    definition["input_schema"] = tool.parameters
    control = cache_control_value(cache_control)
    if control is not None:
        definition["cache_control"] = control
    return definition


#: `True` for `{"type": "ephemeral"}`, a dict as given (e.g. with a `ttl`), None/False for none.
CacheControl = bool | Mapping[str, Any] | None


def cache_control_value(cache_control: CacheControl) -> dict[str, Any] | None:
    """The `cache_control` of a definition: a prompt-caching breakpoint after it."""
    if cache_control is None or cache_control is False:
        return None
    if cache_control is True:
        return {"type": "ephemeral"}
    return dict(cache_control)


def tool_definitions(
    tools: Iterable[AgentTool], *, cache_control: CacheControl = None
) -> list[dict[str, Any]]:
    """Every tool's definition; `cache_control` on the last one caches the whole tool list."""
    listed = list(tools)
    last = len(listed) - 1
    return [
        tool_definition(tool, cache_control=cache_control if index == last else None)
        for index, tool in enumerate(listed)
    ]


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
