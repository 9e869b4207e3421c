"""What a code-mode run costs where users run it, warm and cold, and FastMCP's untyped code mode beside it.

Used by `bench_code_mode.py` (its docstring says what is measured). Servers, each in memory:

* `demo`: the demo server (`mcp_codegen.demo.server.build_server()`), the program 20 `add` calls;
* `ms365`: ms-365's package (344 tools, its 727 KB `code_api.pyi`) against its own `FakeServer`, a handler
  answering `parse_teams_url`, the programs one call and 20 calls of it.

FastMCP's `CodeMode` transform (`fastmcp.experimental.transforms.code_mode`, the `fastmcp` of the test extras)
sits on a proxy of the same server (`fastmcp.server.create_proxy`): the model's `execute` code calls
`call_tool(name, params)` with plain dicts and reads the tool's unwrapped result.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import Row, median, python_env

#: (server, number of calls) -> the package name of the generated client.
PACKAGES = {"demo": "bench_demo_client", "ms365": "bench_ms365_client"}
DEMO_TARGET = 3.0  # warm run_code of 20 typed calls / the same calls made directly
MS365_BUDGET_MS = 100.0  # warm one-call program on ms-365
TEAMS_URL = "https://teams.microsoft.com/l/message/19:abc@thread.tacv2/1700000000000"


@dataclass(frozen=True)
class Program:
    """One task three ways, for repetition `rep` (each a program of its own text, so every run is checked):
    typed calls on the client, our `run_code` source, FastMCP's `execute` source."""

    label: str
    server: str
    calls: int
    direct: Callable[[Any, int], Awaitable[object]]
    ours: Callable[[int], str]
    fastmcp: Callable[[int], str]
    #: What the model searches for first where the definitions do not hold the tool's parameters.
    query: str
    tool: str  # the tool's wire name


def programs(calls: int) -> list[Program]:
    demo, ms365 = PACKAGES["demo"], PACKAGES["ms365"]

    async def adds(client: Any, rep: int) -> object:
        return sum([await client.add(a=i, b=rep) for i in range(calls)])

    def adds_code(rep: int) -> str:
        return (
            f"import {demo}\ntotal = 0\nfor i in range({calls}):\n    total += await {demo}.add(a=i, b={rep})\ntotal\n"
        )

    def adds_fastmcp(rep: int) -> str:
        return (
            f"total = 0\nfor i in range({calls}):\n    total += (await call_tool('add', {{'a': i, 'b': {rep}}}))['result']\n"
            "return total\n"
        )

    def teams(count: int) -> Callable[[Any, int], Awaitable[object]]:
        async def direct(client: Any, rep: int) -> object:
            return [(await client.parse_teams_url(url=f"{TEAMS_URL}{rep}-{i}")).text for i in range(count)]

        return direct

    def teams_code(count: int, module: str | None) -> Callable[[int], str]:
        call = (
            f"await {module}.parse_teams_url(url=url + str(i))"
            if module
            else "(await call_tool('parse-teams-url', {'url': url + str(i)}))"
        )

        def code(rep: int) -> str:
            return (
                (f"import {module}\n" if module else "")
                + f"url = {TEAMS_URL + str(rep) + '-'!r}\n"
                + f"found = [{call} for i in range({count})]\n"
                + ("found\n" if module else "return found\n")
            )

        return code

    query, tool = "parse a teams url", "parse-teams-url"
    return [
        Program(f"demo, {calls} typed calls", "demo", calls, adds, adds_code, adds_fastmcp, "add two integers", "add"),
        Program("ms-365, one call", "ms365", 1, teams(1), teams_code(1, ms365), teams_code(1, None), query, tool),
        Program(
            f"ms-365, {calls} calls",
            "ms365",
            calls,
            teams(calls),
            teams_code(calls, ms365),
            teams_code(calls, None),
            query,
            tool,
        ),  # fmt: skip
    ]


# ---- the servers and clients


def backend(server: str, package: Any) -> Any:
    """A fresh server object for `server` (what the client and FastMCP's proxy talk to, in memory)."""
    if server == "demo":
        from mcp_codegen.demo.server import build_server

        return build_server()
    testing = importlib.import_module(f"{package.__name__}.testing")
    fake = testing.FakeServer()

    @fake.tools.parse_teams_url
    async def parse_teams_url(args: Any) -> str:
        return f"team message {args.url.rsplit('/', 1)[-1]}"

    return fake


@contextlib.asynccontextmanager
async def fastmcp_client(server: Any) -> AsyncIterator[Any]:
    """A FastMCP client of a proxy of `server` with FastMCP's `CodeMode` transform."""
    from fastmcp import Client
    from fastmcp.experimental.transforms.code_mode import CodeMode
    from fastmcp.server import create_proxy

    if not hasattr(server, "_lowlevel_server"):  # a low-level server (the fake): FastMCP takes the SDK's MCPServer
        from mcp.server.mcpserver import MCPServer

        holder = MCPServer(server.name)
        holder._lowlevel_server = server  # what FastMCP's in-memory transport runs
        server = holder
    proxy = create_proxy(server)
    proxy.add_transform(CodeMode())
    async with Client(proxy) as client:
        yield client


async def run_fastmcp(client: Any, code: str) -> object:
    result = await client.call_tool("execute", {"code": code})
    return result.content[0].text if result.content else None


# ---- warm: one process, interleaved


async def warm(packages: dict[str, Any], program: Program, reps: int, with_fastmcp: bool) -> dict[str, list[float]]:
    """Seconds of each way, `reps` times interleaved, after one untimed run of each (the warm-up)."""
    package = packages[program.server]
    timings: dict[str, list[float]] = {"direct": [], "run_code": [], "fastmcp": []}
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(package.AsyncClient.in_process(backend(program.server, package)))
        theirs = (
            await stack.enter_async_context(fastmcp_client(backend(program.server, package))) if with_fastmcp else None
        )
        ways: dict[str, Callable[[int], Awaitable[object]]] = {
            "direct": lambda rep: program.direct(client, rep),
            "run_code": lambda rep: client.run_code(program.ours(rep)),
        }
        if theirs is not None:
            ways["fastmcp"] = lambda rep: run_fastmcp(theirs, program.fastmcp(rep))
        answers = {name: await way(0) for name, way in ways.items()}  # warm-up; the answers agree
        _check_answers(program, answers)
        order = list(ways)
        for rep in range(1, reps + 1):  # a program text of its own each time: each run type-checked
            for name in order[rep % len(order) :] + order[: rep % len(order)]:
                began = time.perf_counter()
                await ways[name](rep)
                timings[name].append(time.perf_counter() - began)
    return timings


def _check_answers(program: Program, answers: dict[str, object]) -> None:
    direct = answers["direct"]
    ours = answers["run_code"].value  # type: ignore[attr-defined]
    if ours != direct:
        raise RuntimeError(f"{program.label}: run_code answered {ours!r}, the direct calls {direct!r}")
    if (
        "fastmcp" in answers
        and str(answers["fastmcp"]) != json.dumps(direct)
        and str(answers["fastmcp"]) != str(direct)
    ):
        theirs = answers["fastmcp"]
        if not (isinstance(direct, list) and json.loads(str(theirs)) == direct):
            raise RuntimeError(f"{program.label}: FastMCP's execute answered {theirs!r}, the direct calls {direct!r}")


# ---- cold: a new process per sample


def cold(root: Path, program: Program, reps: int, with_fastmcp: bool, calls: int) -> dict[str, list[float]]:
    """Seconds of each way's first program in a new process (after it connected), interleaved."""
    timings: dict[str, list[float]] = {"direct": [], "run_code": [], "fastmcp": []}
    order = ["direct", "run_code"] + (["fastmcp"] if with_fastmcp else [])
    index = [p.label for p in programs(calls)].index(program.label)
    for rep in range(reps):
        for way in order[rep % len(order) :] + order[: rep % len(order)]:
            command = [sys.executable, __file__, str(root), str(calls), str(index), way]
            completed = subprocess.run(command, capture_output=True, text=True, env=python_env(), check=False)
            if completed.returncode != 0:
                raise RuntimeError(f"cold {way} of {program.label} failed:\n{completed.stderr[-3000:]}")
            timings[way].append(float(completed.stdout.strip().splitlines()[-1]))
    return timings


async def _cold_child(root: Path, calls: int, index: int, way: str) -> float:
    sys.path.insert(0, str(root))
    program = programs(calls)[index]
    package = importlib.import_module(PACKAGES[program.server])
    server = backend(program.server, package)
    if way == "fastmcp":
        async with fastmcp_client(server) as theirs:
            began = time.perf_counter()
            await run_fastmcp(theirs, program.fastmcp(0))
            return time.perf_counter() - began
    async with package.AsyncClient.in_process(server) as client:
        began = time.perf_counter()
        if way == "direct":
            await program.direct(client, 0)
        else:
            await client.run_code(program.ours(0))
        return time.perf_counter() - began


# ---- bytes the model reads: ours against FastMCP's


def _bytes(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def _result_block(text: str, index: int) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": f"toolu_{index}", "content": [{"type": "text", "text": text}]}


async def read_bytes(packages: dict[str, Any], program: Program) -> tuple[int, int]:
    """(ours, FastMCP's): the definitions a model is given and the results of the turns the task takes.

    Ours: `tools(code=True)` (`run_python`, the typed API or an index of it) and the program's result; where the
    definition holds only an index (ms-365), first a run of `search_api(query)`. FastMCP's: its three tools, then
    `search(query)`, `get_schema([tool])` and `execute(program)`."""
    package = packages[program.server]
    async with package.AsyncClient.in_process(backend(program.server, package)) as client:
        tools = client.tools(code=True)
        definitions = tools.to_anthropic()
        module = PACKAGES[program.server]
        runs = [program.ours(0)]
        if "async def" not in json.dumps(definitions):  # an index: the model looks its tool up first
            runs.insert(0, f"import {module}\nprint({module}.search_api({program.query!r}, 1))\n")
        ours = _bytes(definitions)
        for index, code in enumerate(runs):
            use = {"type": "tool_use", "id": f"toolu_{index}", "name": "run_python", "input": {"code": code}}
            answers = await tools.handle_anthropic_tool_use([use])
            if "is_error" in answers[0]:
                raise RuntimeError(f"{program.label}: run_python failed: {answers}")
            ours += _bytes(answers)
    async with fastmcp_client(backend(program.server, package)) as theirs:
        listed = await theirs.list_tools()
        theirs_bytes = _bytes(
            [
                {
                    "name": t.name,
                    "description": t.description or "",
                    "input_schema": getattr(t, "input_schema", None) or t.inputSchema,
                }
                for t in listed
            ]
        )
        turns = [
            ("search", {"query": program.query}),
            ("get_schema", {"tools": [program.tool]}),
            ("execute", {"code": program.fastmcp(0)}),
        ]
        for index, (name, arguments) in enumerate(turns):
            result = await theirs.call_tool(name, arguments)
            texts = [block.text for block in result.content if hasattr(block, "text")]
            theirs_bytes += _bytes([_result_block(text, index) for text in texts])
    return ours, theirs_bytes


# ---- rows


def cost_rows(
    packages: dict[str, Any], root: Path, *, calls: int, reps: int, cold_reps: int, with_fastmcp: bool
) -> list[Row]:
    import anyio

    rows: list[Row] = []
    for program in programs(calls):
        hot = anyio.run(warm, packages, program, reps, with_fastmcp)
        chilly = cold(root, program, cold_reps, with_fastmcp, calls) if cold_reps else None
        rows += _rows(program, hot, chilly, with_fastmcp)
        if with_fastmcp:
            ours, theirs = anyio.run(read_bytes, packages, program)
            print(f"  {program.label}: the model reads {ours} B with run_python, {theirs} B with FastMCP's CodeMode")
            rows.append(Row(f"code mode: bytes the model reads, {program.label}", ours, theirs, "B", float("inf"),
                            ours_label="run_python (typed)", baseline_label="FastMCP CodeMode: search, get_schema, execute"))  # fmt: skip
    return rows


def _ms(values: list[float]) -> float:
    return median(values) * 1000


def _rows(
    program: Program, hot: dict[str, list[float]], chilly: dict[str, list[float]] | None, fastmcp: bool
) -> list[Row]:
    def spread(values: list[float]) -> str:
        return f"{_ms(values):.1f} ms ({min(values) * 1e3:.1f}–{max(values) * 1e3:.1f})"

    print(f"  {program.label}, warm: direct {spread(hot['direct'])}, run_code {spread(hot['run_code'])}"
          + (f", FastMCP execute {spread(hot['fastmcp'])}" if fastmcp else ""))  # fmt: skip
    if chilly is not None:
        print(f"  {program.label}, cold: direct {spread(chilly['direct'])}, run_code {spread(chilly['run_code'])}"
              + (f", FastMCP execute {spread(chilly['fastmcp'])}" if fastmcp else ""))  # fmt: skip
    name = f"code mode: run_code, {program.label}"
    direct_label = f"the {program.calls} typed call{'s' if program.calls > 1 else ''} made directly"
    rows: list[Row] = []
    if program.server == "demo":
        rows.append(Row(f"{name}, warm", _ms(hot["run_code"]), _ms(hot["direct"]), "ms", DEMO_TARGET,
                        ours_label="run_code", baseline_label=direct_label))  # fmt: skip
    elif program.calls == 1:
        rows.append(Row(f"{name}, warm", _ms(hot["run_code"]), MS365_BUDGET_MS, "ms", 1.0, ours_label="run_code",
                        baseline_label="budget", note=f"direct: {_ms(hot['direct']):.1f} ms"))  # fmt: skip
    else:
        rows.append(Row(f"{name}, warm", _ms(hot["run_code"]), _ms(hot["direct"]), "ms", float("inf"),
                        ours_label="run_code", baseline_label=direct_label))  # fmt: skip
    if chilly is not None:
        rows.append(Row(f"{name}, cold (a new process)", _ms(chilly["run_code"]), _ms(chilly["direct"]), "ms",
                        float("inf"), ours_label="run_code", baseline_label=direct_label + ", cold"))  # fmt: skip
    if fastmcp:
        rows.append(Row(f"{name}, warm, against FastMCP CodeMode", _ms(hot["run_code"]), _ms(hot["fastmcp"]), "ms",
                        float("inf"), ours_label="run_code (typed, checked)", baseline_label="FastMCP execute (untyped)"))  # fmt: skip
        if chilly is not None:
            rows.append(Row(f"{name}, cold, against FastMCP CodeMode", _ms(chilly["run_code"]), _ms(chilly["fastmcp"]),
                            "ms", float("inf"), ours_label="run_code", baseline_label="FastMCP execute, cold"))  # fmt: skip
    return rows


if __name__ == "__main__":  # a cold sample: ROOT CALLS PROGRAM_INDEX WAY -> seconds on the last line
    import anyio

    arguments = sys.argv[1:]
    print(anyio.run(_cold_child, Path(arguments[0]), int(arguments[1]), int(arguments[2]), arguments[3]))
