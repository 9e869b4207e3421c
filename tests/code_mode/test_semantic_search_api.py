"""Code mode's `search_api` with `semantic=True` (issue 62): `tools(code=True, semantic=True)` ranks its matches as
`ToolSet.search(semantic=True)` does, against the demo server (in memory) with a small stub limit."""

from __future__ import annotations

import importlib
import json
from types import ModuleType

import pytest
from mcp.server.mcpserver import MCPServer

pytestmark = pytest.mark.anyio


async def test_search_api_ranks_semantically(
    code_demo: ModuleType, demo_server: MCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_tool = importlib.import_module("mcp_codegen_runtime.code_mode.agent_tool")
    monkeypatch.setattr(agent_tool, "STUBS_LIMIT", 200)  # the index form, with search_api
    code = "import code_demo_client as api\napi.search_api('how hot is it in Rome', 1)\n"
    use = [{"type": "tool_use", "id": "toolu_1", "name": "run_python", "input": {"code": code}}]
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        [answer] = await client.tools(code=True, semantic=True).handle_anthropic_tool_use(use)
        expected = client.tools().search("how hot is it in Rome", limit=1, semantic=True)
    found = json.loads(answer["content"][0]["text"])["value"]
    assert [tool.python_name for tool in expected] == ["get_weather"]
    assert code_demo.AsyncClient.toolset_for(None).search("how hot is it in Rome") == []  # lexically: nothing
    assert "async def get_weather(" in found and "async def add(" not in found
