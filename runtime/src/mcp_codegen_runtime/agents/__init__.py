"""The agent-tool API in one import: framework-neutral agent tools and their converters.

    tools = client.tools()                          # a ToolSet (name -> AgentTool), bound to the client
    await tools["get_weather"](city="Paris")        # the typed result, like client.get_weather()
    out = await tools["get_weather"].run({"city": "Paris"})   # what a model gets: a ToolOutput
    client.tools().to_openai() / .to_anthropic() / .to_langchain() / .to_pydantic_ai() / ...
    client.tools().to_claude_agent_sdk("name") / .to_adk() / .to_smolagents() / .to_llama_index()
    client.tools(resources=True, prompts=True)      # resources and prompts as tools too

Unbound (`AgentTool(TOOLS["get_weather"])`, `ToolSet.from_specs(TOOLS.values())`) a tool only makes
definitions; `tool.bind(client)` binds it. Definitions carry the server's original JSON Schema;
`to_openai(strict=True)` sends OpenAI's strict dialect instead (`agent_strict`). Failures
(`isError`, invalid arguments, a timeout, an unknown tool) are returned in the framework's own
error form, never raised; only a lost connection (`ConnectionClosedError`) and cancellation
propagate. Every framework is imported on first use, with a clear message when it is missing.

One module per job:

* `agent_tool`: `AgentTool` (definition, binding, calling); `agent_toolset`: `ToolSet`;
* `agent_output`: what a model receives (`ToolOutput`: the server's content blocks; structured
  content as JSON only where there is no text, see its docstring);
* `agent_strict`: OpenAI's strict schema dialect; `agent_calls`: running a model turn's calls;
* `agent_extras`: resources and prompts as agent tools (`ExtraSpec`, opt-in);
* `search_index` (the BM25F index shipped as `search_index.json`), `search` (`ToolSet.search`),
  `semantic` (`semantic=True`: the `semantic` extra's static embedding model fused with the index),
  `meta_tools` (`tools(search=True)`: search_tools + call_tool), `deferred` (the providers'
  deferred loading: `to_anthropic(defer_loading=True)`, `to_openai_responses(defer_loading=True)`);
* one module per framework: `agent_openai` (Chat Completions and Responses), `agent_anthropic`,
  `agent_langchain`, `agent_pydantic_ai`, `agent_openai_agents`, `agent_claude` (Claude Agent
  SDK), `agent_adk` (Google ADK), `agent_smolagents`, `agent_llama_index`.

Adding a framework: write `agent_<framework>.py` (a function from an `AgentTool` to the
framework's tool, importing the framework with `agent_import.require`; a `handle_*` function
with `agent_calls.run_calls` if the framework leaves running calls to the caller), then add a
`to_<framework>()` method that forwards to it on `AgentTool` and `ToolSet`, and a test under
tests/agent_adapters/.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .output import ContentPart, ToolOutput, output_from_result
    from .strict import (
        NotStrictError,
        Strict,
        drop_optional_nulls,
        strict_json_schema,
    )
    from .tool import AgentTool
    from .toolset import ToolSet, make_toolset

#: Where each name lives (module of this package), imported on first use (PEP 562): the generator reads
#: `search_index` alone, which must not load the agent tools, pydantic and `mcp` (~50-120 ms a run).
_WHERE: dict[str, str] = {
    "AgentTool": "tool",
    "ContentPart": "output",
    "NotStrictError": "strict",
    "Strict": "strict",
    "ToolOutput": "output",
    "ToolSet": "toolset",
    "drop_optional_nulls": "strict",
    "make_toolset": "toolset",
    "output_from_result": "output",
    "strict_json_schema": "strict",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "AgentTool",
    "ContentPart",
    "NotStrictError",
    "Strict",
    "ToolOutput",
    "ToolSet",
    "drop_optional_nulls",
    "make_toolset",
    "output_from_result",
    "strict_json_schema",
]
