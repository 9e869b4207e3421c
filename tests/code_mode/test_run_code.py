"""Code mode against real servers: npm server-everything over stdio and the demo server in memory.

`code_api()` types every tool; `run_code()` type-checks first, runs each call through the typed path (the
server sees the arguments, `on_call` hooks see the calls), keeps the sandbox shut (no files, processes,
environment, network), stops at its limits with the client still usable, and hands tool errors to the code.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import mypy_cache
from mcp.server.mcpserver import MCPServer

from mcp_codegen_runtime.calls.tracing import ToolCall

pytestmark = pytest.mark.anyio


def _visible_python_names(pkg: ModuleType) -> list[str]:
    return sorted(spec.python_name for spec in pkg.TOOLS.values() if spec.model_visible)


@pytest.mark.parametrize("which", ["code_demo", "code_everything"])
def test_code_api_has_a_typed_async_def_per_tool(which: str, request: pytest.FixtureRequest) -> None:
    pkg: ModuleType = request.getfixturevalue(which)
    text = pkg.AsyncClient.code_api(pkg.AsyncClient.__new__(pkg.AsyncClient))
    assert text == (Path(pkg.__file__).parent / "code_api.pyi").read_text(encoding="utf-8")
    tree = ast.parse(text)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.AsyncFunctionDef)}
    assert sorted(functions) == _visible_python_names(pkg)
    assert not [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    for name, node in functions.items():
        spec = next(spec for spec in pkg.TOOLS.values() if spec.python_name == name)
        assert node.returns is not None
        assert all(arg.annotation is not None for arg in node.args.kwonlyargs)
        # Named as the typed method's keywords.
        method = getattr(pkg.AsyncClient, name)
        code = method.__code__
        keywords = list(code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount])
        assert [arg.arg for arg in node.args.kwonlyargs] == keywords
        # The tool's description is the docstring (escaped as in the client's methods).
        described = spec.description or spec.title or f"Call the `{spec.name}` tool."
        assert (ast.get_docstring(node) or "").split() == described.split()


@pytest.mark.parametrize("which", ["code_demo", "code_everything"])
def test_code_api_passes_mypy_strict(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    pkg: ModuleType = request.getfixturevalue(which)
    stub = tmp_path / f"{pkg.__name__}_api.pyi"
    stub.write_text((Path(pkg.__file__).parent / "code_api.pyi").read_text(encoding="utf-8"), encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", mypy_cache(), str(stub)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _recorder(client: Any) -> list[ToolCall]:
    seen: list[ToolCall] = []
    client.on_call(seen.append)
    return seen


async def test_two_steps_on_server_everything_reach_the_server_typed(
    code_everything: ModuleType, everything_command: list[str]
) -> None:
    code = (
        "import code_everything_client as api\n"
        "text = await api.get_sum(a=19, b=23)\n"
        "total = int(text.split()[-1].rstrip('.'))\n"
        "echoed = await api.echo(message=f'total={total}')\n"
        "{'total': total, 'echoed': echoed}\n"
    )
    async with code_everything.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
        seen = _recorder(client)
        result = await client.run_code(code)
    assert result.value == {"total": 42, "echoed": "Echo: total=42"}
    assert [(call.tool, call.arguments, call.error, call.status) for call in result.calls] == [
        ("get-sum", {"a": 19, "b": 23}, None, "succeeded"),
        ("echo", {"message": "total=42"}, None, "succeeded"),
    ]
    # The typed path: the client's hooks saw both calls, with their results.
    assert [call.tool for call in seen] == ["get-sum", "echo"]
    assert seen[0].arguments == {"a": 19, "b": 23} and seen[0].error is None


async def test_structured_results_are_plain_dicts_as_sent(code_everything: ModuleType, everything_command: list[str]) -> None:
    code = (
        "import code_everything_client as api\n"
        "weather = await api.get_structured_content(location='New York')\n"
        "{key: weather[key] for key in ('temperature', 'conditions', 'humidity')}\n"
    )
    async with code_everything.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
        result = await client.run_code(code)
        typed = await client.get_structured_content(location="New York")
    assert result.value == {
        "temperature": typed.temperature,
        "conditions": typed.conditions,
        "humidity": typed.humidity,
    }


async def test_a_type_error_names_its_line_and_calls_nothing(code_demo: ModuleType, demo_server: MCPServer) -> None:
    code = "import code_demo_client as api\nfirst = await api.add(a=1, b=2)\nsecond = await api.add(a='1', b=2)\n"
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        seen = _recorder(client)
        with pytest.raises(code_demo.CodeTypeError) as raised:
            await client.run_code(code)
    assert raised.value.line == 3
    assert "Expected `int`" in str(raised.value)
    assert raised.value.calls == () and seen == []


FORBIDDEN = {
    "open a file": ("text = open('/etc/hostname').read()", "CodeTypeError"),
    "read a file through pathlib": ("from pathlib import Path\ntext = Path('/etc/hostname').read_text()", "CodeError"),
    "list a directory": ("import os\nnames = os.listdir('/')", "CodeError"),
    "import subprocess": ("import subprocess\nsubprocess.run(['true'])", "CodeTypeError"),
    "read the environment": ("import os\nhome = os.environ['HOME']", "CodeError"),
    "getenv": ("import os\nhome = os.getenv('HOME')", "CodeError"),
    "import socket": ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "CodeTypeError"),
    "import urllib": ("import urllib.request\nurllib.request.urlopen('http://127.0.0.1')", "CodeTypeError"),
}


@pytest.mark.parametrize("what", sorted(FORBIDDEN))
async def test_the_sandbox_has_no_files_processes_environment_or_network(
    what: str, code_demo: ModuleType, demo_server: MCPServer
) -> None:
    forbidden, error = FORBIDDEN[what]
    code = f"import code_demo_client as api\n{forbidden}\nawait api.add(a=1, b=1)\n"
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        seen = _recorder(client)
        with pytest.raises(code_demo.CodeRunError) as raised:
            await client.run_code(code)
    assert type(raised.value).__name__ == error
    assert raised.value.calls == () and seen == []


async def test_an_endless_loop_hits_the_time_limit_and_the_client_calls_on(
    code_everything: ModuleType, everything_command: list[str]
) -> None:
    async with code_everything.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
        with pytest.raises(code_everything.CodeLimitError) as raised:
            await client.run_code("while True:\n    pass\n", timeout=0.5)
        assert "time limit" in str(raised.value) and raised.value.limit == "time"
        with pytest.raises(code_everything.CodeLimitError):
            # Catching the limit's TimeoutError does not escape it.
            await client.run_code("while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n", timeout=0.5)
        assert "The sum of 2 and 3 is 5" in (await client.get_sum(a=2, b=3)).text
        after = await client.run_code("import code_everything_client as api\nawait api.get_sum(a=1, b=1)")
    assert "is 2" in after.value


async def test_the_memory_limit(code_demo: ModuleType, demo_server: MCPServer) -> None:
    code = "blocks = []\nwhile True:\n    blocks.append('x' * 100000)\n"
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        with pytest.raises(code_demo.CodeLimitError) as raised:
            await client.run_code(code, memory=20 * 1024 * 1024, timeout=60)
        assert "memory limit" in str(raised.value) and raised.value.limit == "memory"
        assert await client.add(a=2, b=2) == 4


async def test_a_tools_error_is_catchable_and_uncaught_names_its_line(
    code_demo: ModuleType, demo_server: MCPServer
) -> None:
    caught = (
        "import code_demo_client as api\n"
        "try:\n"
        "    note = await api.get_note(note_id='missing')\n"
        "except RuntimeError as error:\n"
        "    note = {'failed': str(error)}\n"
        "note\n"
    )
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        result = await client.run_code(caught)
        assert "ToolError" in result.value["failed"] and "missing" in result.value["failed"]
        assert result.calls[0].tool == "get_note" and (result.calls[0].error or "").startswith("ToolError")
        assert result.calls[0].status == "failed"
        with pytest.raises(code_demo.CodeError) as raised:
            await client.run_code("import code_demo_client as api\n\nawait api.get_note(note_id='missing')\n")
        assert raised.value.line == 3
        assert "RuntimeError: ToolError" in str(raised.value)
        # Arguments the schema refuses at run time (a bound the type cannot say) are a ValueError; nothing sent.
        refused = await client.run_code(
            "import code_demo_client as api\n"
            "try:\n    await api.forecast(city='Oslo', days=99)\n    r = 'sent'\n"
            "except ValueError as error:\n    r = str(error)\nr\n"
        )
    assert refused.value.startswith("ArgumentsValidationError")


async def test_stdout_and_the_last_expression(code_demo: ModuleType, demo_server: MCPServer) -> None:
    code = (
        "import code_demo_client as api\n"
        "notes = await api.list_notes()\n"
        "print(len(notes), 'notes')\n"
        "[{'id': n['id'], 'title': n['title']} for n in notes if 'tags' in n][:3]\n"
    )
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        result = await client.run_code(code)
        typed = await client.list_notes()
    assert result.stdout == f"{len(typed)} notes\n"
    assert result.value == [{"id": n.id, "title": n.title} for n in typed if "tags" in n.model_fields_set][:3]


async def test_code_ending_in_a_statement_has_no_value(code_demo: ModuleType, demo_server: MCPServer) -> None:
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        result = await client.run_code("import code_demo_client as api\ntotal = await api.add(a=1, b=2)\n")
    assert result.value is None and [call.tool for call in result.calls] == ["add"]


def test_the_blocking_twin(code_demo: ModuleType, everything_command: list[str], code_everything: ModuleType) -> None:
    with code_everything.Client.stdio(everything_command[0], everything_command[1:]) as client:
        result = client.run_code("import code_everything_client as api\nawait api.echo(message='hi')\n")
        assert result.value == "Echo: hi"
        assert client.code_api() == client.async_client.code_api()


async def test_without_pydantic_monty_run_code_names_the_extra(
    code_demo: ModuleType, demo_server: MCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)  # `import pydantic_monty` raises ImportError
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        with pytest.raises(ImportError, match=r"\[code\]"):
            await client.run_code("1 + 1")
        assert "async def add" in client.code_api()


def test_each_client_error_reaches_the_code_as_a_builtin_naming_it() -> None:
    from mcp_codegen_runtime.calls.errors import (
        ArgumentsValidationError,
        OutcomeUnknownError,
        RequestTimeoutError,
        ToolError,
    )
    from mcp_codegen_runtime.calls.results import ToolResult
    from mcp_codegen_runtime.code_mode.sandbox import code_exception

    cases = [
        (ArgumentsValidationError([], tool="add"), ValueError),
        (RequestTimeoutError("no answer in 1 s"), TimeoutError),
        (OutcomeUnknownError("the call may have run", method="tools/call", tool="add"), ConnectionError),
        (ToolError(ToolResult.from_text("boom", is_error=True), tool="add"), RuntimeError),
    ]
    for error, builtin in cases:
        seen = code_exception(error)
        assert type(seen) is builtin
        assert str(seen).startswith(f"{type(error).__name__}: ")


@pytest.mark.slow(reason="12 fresh interpreters, each running code ten times: an abort at exit is rare")
def test_a_process_that_ran_code_exits_cleanly(code_packages_dir: Path, code_demo: ModuleType) -> None:
    """pydantic-monty 1.4 aborted about one exit in five after ten runs (SIGABRT at interpreter shutdown)."""
    script = (
        "import asyncio\n"
        "from mcp_codegen_runtime.code_mode.sandbox import run_in_sandbox\n"
        "async def main():\n"
        "    for n in range(10):\n"
        "        assert (await run_in_sandbox('1 + 1', [])).value == 2\n"
        "asyncio.run(main())\n"
    )
    for _ in range(12):
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=code_packages_dir, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
