"""Code mode across servers: an umbrella package's `Toolkit.run_code()` gives the code one module per server,
so one program joins results of the demo server and npm server-everything (both over stdio)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import imported_package

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def umbrella(tmp_path_factory: pytest.TempPathFactory, everything_command: list[str]) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("code_umbrella")
    node, *node_args = everything_command
    (root / "pyproject.toml").write_text(
        f"""[project]
name = "code-app"

[tool.mcp-codegen]
output = "code_clients"

[tool.mcp-codegen.servers.demo]
command = {json.dumps(sys.executable)}
args = ["-m", "mcp_codegen.demo"]

[tool.mcp-codegen.servers.everything]
command = {json.dumps(node)}
args = {json.dumps(node_args)}
""",
        encoding="utf-8",
    )
    generated = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate"], cwd=root, capture_output=True, text=True, check=False
    )
    assert generated.returncode == 0, generated.stderr
    with imported_package(root / "code_clients") as package:
        yield package


async def test_one_program_joins_two_servers(umbrella: Any) -> None:
    code = (
        "import demo\n"
        "import everything\n"
        "weather = await demo.get_weather(city='Lima')\n"
        "echoed = await everything.echo(message=weather['city'] + ' ' + weather['units'])\n"
        "{'echoed': echoed, 'sum': await demo.add(a=weather['humidity'], b=1)}\n"
    )
    async with umbrella.Toolkit() as kit:
        apis = kit.code_api()
        assert sorted(apis) == ["demo", "everything"]
        assert "async def get_weather(" in apis["demo"] and "async def echo(" in apis["everything"]
        result = await kit.run_code(code)
        weather = await kit["demo"].get_weather(city="Lima")
    assert result.value == {"echoed": f"Echo: Lima {weather.units}", "sum": weather.humidity + 1}
    assert [(call.module, call.tool) for call in result.calls] == [
        ("demo", "get_weather"),
        ("everything", "echo"),
        ("demo", "add"),
    ]


async def test_a_disabled_server_has_no_module(umbrella: Any) -> None:
    async with umbrella.Toolkit(disabled=["everything"]) as kit:
        with pytest.raises(umbrella.demo.CodeTypeError) as raised:
            await kit.run_code("import everything\nawait everything.echo(message='x')\n")
        assert raised.value.line == 1
        assert (await kit.run_code("import demo\nawait demo.add(a=1, b=2)\n")).value == 3
