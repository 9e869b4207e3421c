"""What code reaches and how `run_code()` fails: only what the stubs declare, each failure a `Code…Error`.

Against `ledger_server` (which records every call it executes) and the demo server, in memory:

* keywords the stub does not declare (`extra_arguments`, `_meta`, anything passed through `**kw: Any`) never
  reach the server, even from an older package's stub that still declared `extra_arguments`;
* a value without a JSON form (nested too deep) is a `CodeError`; a value or printed output past the output
  limit is a `CodeLimitError` that names it, and keeps what was printed up to it;
* `search_api(query)` is in `run_code()`'s module as in `run_python`'s.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from ledger_server import Ledger, build_ledger_server
from mcp.server.mcpserver import MCPServer

from mcp_codegen_runtime.code_mode.api import CodeApi
from mcp_codegen_runtime.code_mode.sandbox import SandboxModule, run_in_sandbox

pytestmark = pytest.mark.anyio

UNDECLARED = {
    "extra_arguments": "await api.work(key='a', extra_arguments={'sneak': 1})",
    "a keyword through **kw: Any": "from typing import Any\nkw: Any = {'key': 'a', 'sneak': 1}\nawait api.work(**kw)",
    "_meta through **kw: Any": "from typing import Any\nkw: Any = {'key': 'a', '_meta': {'x': 1}}\nawait api.work(**kw)",
    "extra_arguments through **kw: Any": (
        "from typing import Any\nkw: Any = {'key': 'a', 'extra_arguments': {'_meta': 1}}\nawait api.work(**kw)"
    ),
}


@pytest.mark.parametrize("what", sorted(UNDECLARED))
async def test_undeclared_keywords_never_reach_the_server(code_ledger: ModuleType, what: str) -> None:
    code = f"import code_ledger_client as api\n{UNDECLARED[what]}\n"
    ledger = Ledger()
    async with code_ledger.AsyncClient.in_process(build_ledger_server(ledger)) as client:
        with pytest.raises(code_ledger.CodeRunError) as raised:
            await client.run_code(code)
        if what == "extra_arguments":  # not in the stub: refused before it runs
            assert isinstance(raised.value, code_ledger.CodeTypeError)
        else:
            assert isinstance(raised.value, code_ledger.CodeError)
            assert "unexpected keyword argument" in str(raised.value)
        # An older package's stub that declared `extra_arguments`: still refused when the code runs.
        module = client._sandbox_module()
        old_text = client.code_api().replace(
            "async def work(*, key: str)", "async def work(*, key: str, extra_arguments: dict[str, Any] | None = ...)"
        )
        assert old_text != client.code_api()
        old = SandboxModule(
            CodeApi(f"from typing import Any\n{old_text}", module.api.module), module.specs, module.call
        )
        with pytest.raises(code_ledger.CodeError, match="unexpected keyword argument"):
            await run_in_sandbox(code, [old])
        assert raised.value.calls == () and ledger.started == []
        assert (await client.run_code("import code_ledger_client as api\nawait api.work(key='ok')\n")).value == "ok"
    assert ledger.started == ["ok"]


async def test_a_deep_value_is_a_code_error(code_demo: ModuleType, demo_server: MCPServer) -> None:
    code = "x: list[object] = []\nfor i in range(3000):\n    x = [x]\nx\n"
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        with pytest.raises(code_demo.CodeError, match="cannot be returned as JSON"):
            await client.run_code(code)
        tools = client.tools(code=True)
        [answer] = await tools.handle_anthropic_tool_use(
            [{"type": "tool_use", "id": "t1", "name": "run_python", "input": {"code": code}}]
        )
    assert answer["is_error"] is True and "JSON" in answer["content"][0]["text"]


async def test_the_output_limit_names_itself_and_keeps_what_fits(code_demo: ModuleType, demo_server: MCPServer) -> None:
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        with pytest.raises(code_demo.CodeLimitError) as printed:
            await client.run_code("for i in range(10**7):\n    print('line', i)\n")
        with pytest.raises(code_demo.CodeLimitError) as returned:
            await client.run_code("'x' * (2 * 1024 * 1024)\n")
    assert printed.value.limit == "output" and "output limit" in str(printed.value)
    assert "line None" not in str(printed.value)
    assert printed.value.stdout.startswith("line 0\nline 1\n") and len(printed.value.stdout) <= 1024 * 1024
    assert returned.value.limit == "output" and "output limit" in str(returned.value)


async def test_search_api_in_run_code(code_demo: ModuleType, demo_server: MCPServer) -> None:
    """The same search as `run_python`'s index form: the stubs of the best matches, with the classes they use."""
    code = "import code_demo_client as api\napi.search_api('current weather for a city', 1)\n"
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        result = await client.run_code(code)
        [best] = [tool.python_name for tool in client.tools().search("current weather for a city", limit=1)]
        assert result.value == client._code_api_of().stubs([best])
    assert best == "get_weather" and "class GetWeatherResult(TypedDict)" in result.value
    assert result.calls == ()
