"""OpenAI Chat Completions and Responses API: tool definitions, and running a model message's function calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..calls import Resolver, field, run_calls

if TYPE_CHECKING:
    from ..output import ToolOutput
    from ..strict import Strict
    from ..tool import AgentTool

__all__ = [
    "chat_tool",
    "handle_openai_responses_calls",
    "handle_openai_tool_calls",
    "responses_tool",
]


def chat_tool(tool: AgentTool, *, strict: Strict = False) -> dict[str, Any]:
    """A Chat Completions tool: `{"type": "function", "function": {...}}` (see `AgentTool.to_openai`)."""
    strict_schema = tool.strict_parameters(strict)
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = (
        strict_schema if strict_schema is not None else tool.parameters
    )
    if strict_schema is not None:
        function["strict"] = True
    return {"type": "function", "function": function}


def responses_tool(tool: AgentTool, *, strict: Strict = False) -> dict[str, Any]:
    """A Responses API function tool (`strict` is always stated: the API's default is true)."""
    strict_schema = tool.strict_parameters(strict)
    definition: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description:
        definition["description"] = tool.description
    definition["parameters"] = (
        strict_schema if strict_schema is not None else tool.parameters
    )
    definition["strict"] = strict_schema is not None
    return definition


async def handle_openai_tool_calls(
    resolve: Resolver, tool_calls: Sequence[Any] | None, timeout: float | None
) -> list[dict[str, Any]]:
    """One `{"role": "tool", ...}` message per call of `message.tool_calls`, in order."""

    def read(call: Any) -> tuple[object, object]:
        function = field(call, "function")
        return field(function, "name"), field(function, "arguments")

    def answer(call: Any, output: ToolOutput) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": field(call, "id"),
            "content": output.error_text(),
        }

    calls = list(tool_calls or [])
    return await run_calls(resolve, calls, timeout, "openai", read, answer)


async def handle_openai_responses_calls(
    resolve: Resolver, output: Sequence[Any] | None, timeout: float | None
) -> list[dict[str, Any]]:
    """One `function_call_output` item per `function_call` item of `response.output`, in order."""

    def read(call: Any) -> tuple[object, object]:
        return field(call, "name"), field(call, "arguments")

    def answer(call: Any, result: ToolOutput) -> dict[str, Any]:
        return {
            "type": "function_call_output",
            "call_id": field(call, "call_id"),
            "output": result.to_openai_responses_output(),
        }

    calls = [item for item in output or [] if field(item, "type") == "function_call"]
    return await run_calls(resolve, calls, timeout, "openai_responses", read, answer)
