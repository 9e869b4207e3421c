"""OpenAI Agents SDK: an agent tool as a `FunctionTool` (imported on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..imports import require

if TYPE_CHECKING:
    from ..strict import Strict
    from ..tool import AgentTool

__all__ = ["function_tool"]


def function_tool(tool: AgentTool, *, strict: Strict = "auto") -> Any:
    """A `FunctionTool` (strict when the schema allows it, by default)."""
    agents = require("agents", "to_openai_agents()")
    tool.ensure_bound()
    strict_schema = tool.strict_parameters(strict)
    use_strict = strict_schema is not None
    text_output = agents.ToolOutputText
    image_output = agents.ToolOutputImage

    async def on_invoke_tool(context: Any, arguments: str) -> Any:
        output = await tool.run(arguments, framework="openai_agents")
        if output.is_error or not any(p.kind == "image" for p in output.parts):
            return output.error_text()
        items: list[Any] = []
        for part in output.parts:
            if part.kind == "image":
                url = f"data:{part.mime_type};base64,{part.data}"
                items.append(image_output(image_url=url))
            elif part.as_text():
                items.append(text_output(text=part.as_text()))
        return items

    function = agents.FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=(
            strict_schema if strict_schema is not None else tool.parameters
        ),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=False,
    )
    # Set after construction: the SDK would copy and re-run its strict pass on a schema that is
    # already strict (ours is a fixed point of that pass; tests check it over the corpus).
    function.strict_json_schema = use_strict
    return function
