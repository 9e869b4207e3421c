"""LangChain: an agent tool as a `StructuredTool` (imported on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..imports import require
from ..output import (
    ToolOutput,
)  # at run time: LangGraph evaluates the handlers' hints

if TYPE_CHECKING:
    from ..tool import AgentTool

__all__ = ["structured_tool"]


def structured_tool(tool: AgentTool) -> Any:
    """A `StructuredTool` with the server's schema, async (and sync for a blocking client's tool).

    The result is the model-facing content with the `ToolOutput` as artifact; failures become a
    ToolMessage with `status="error"`.
    """
    tools_module = require("langchain_core.tools", "to_langchain()")
    tool.ensure_bound()
    tool_exception = tools_module.ToolException

    def outcome(output: ToolOutput) -> tuple[Any, ToolOutput]:
        if output.is_error:
            raise tool_exception(output.text or "the tool failed")
        return output.to_langchain_content(), output

    async def coroutine(**kwargs: Any) -> tuple[Any, ToolOutput]:
        return outcome(await tool.run(kwargs, framework="langchain"))

    def blocking(**kwargs: Any) -> tuple[Any, ToolOutput]:
        return outcome(tool.run_sync(kwargs, framework="langchain"))

    func = blocking if tool.sync_client is not None else None

    return tools_module.StructuredTool(
        name=tool.name,
        description=tool.description or tool.name,
        args_schema=tool.parameters,
        func=func,
        coroutine=coroutine,
        response_format="content_and_artifact",
        handle_tool_error=True,
        metadata={"mcp_tool": tool.wire_name, "annotations": tool.annotations},
    )
