"""The fake server (`<package>.testing.FakeServer`): start-up for 300 tools, and the cost of a typed call.

Start-up. A 300-tool package is generated from make_tools.py's tools; fresh interpreters, interleaved
(the order alternates every repetition), each first import the SDK's server (`import mcp.server.lowlevel`,
what any test that connects loads anyway) and then time, inside the process:

* ours:     `from <pkg>.testing import FakeServer; FakeServer()` (imports the package, the testing module
            and the fake, reads `snapshot.json`, indexes the 300 tools);
* baseline: `import <pkg>`.

Target: ratio <= 1.2. For context: the same two with nothing preloaded (wall time of `python -c ...`;
the fake imports the SDK's server stack there, a plain package import does not).

Typed call. The demo server is snapshotted and its client generated; on one in-memory session each,
`await client.get_weather(city="Paris")` (arguments validated, result validated into a model) against:

* ours:     `FakeServer()` of that package with a typed handler returning the same `GetWeatherResult`
            the demo server computes (the fake validates the arguments against the input schema);
* baseline: a hand-written low-level SDK server (`mcp.server.lowlevel.Server`) with the same tool:
            it lists the tool and answers the same structured result, without checking the arguments;
* context:  the demo server itself (`MCPServer`, which validates arguments and output).

1000 calls of each, after a warm-up, in blocks that alternate; per-call time = median over blocks.
Target: ratio <= 1.2 against the low-level server.

    python benchmarks/bench_fake.py [--reps 7] [--tools 300] [--calls 1000] [--block 50] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, executable, fmt_seconds, median, python_env, run_timed, spread  # noqa: E402
from make_tools import write_inputs  # noqa: E402

START_TARGET = 1.2
CALL_TARGET = 1.2
PACKAGE = "bench_fake_client"
DEMO_PACKAGE = "bench_fake_demo_client"

Call = Callable[[], Awaitable[Any]]

_TIMED = (
    "import mcp.server.lowlevel, time\nstarted = time.perf_counter()\n{body}\nprint(time.perf_counter() - started)\n"
)


def _timed_in_child(body: str, env: dict[str, str]) -> float:
    completed = subprocess.run(
        [sys.executable, "-c", _TIMED.format(body=body)], env=env, capture_output=True, text=True, check=True
    )
    return float(completed.stdout.strip().splitlines()[-1])


def start_up(arguments: argparse.Namespace, work: Path) -> Row:
    snapshot, _ = write_inputs(arguments.tools, work)
    output = work / "out" / PACKAGE
    run_timed([executable("mcp-codegen"), "generate", "-q", "--snapshot", str(snapshot), "-o", str(output)], cwd=work)
    env = python_env(output.parent)
    ours_body = f"from {PACKAGE}.testing import FakeServer\nfake = FakeServer()\nassert len(fake.listed['tools']) == {arguments.tools}"
    baseline_body = f"import {PACKAGE}"
    for body in (ours_body, baseline_body):  # warm-up: bytecode caches
        _timed_in_child(body, env)
    ours: list[float] = []
    baseline: list[float] = []
    cold_ours: list[float] = []
    cold_baseline: list[float] = []
    cold_ours_code = f"from {PACKAGE}.testing import FakeServer; FakeServer()"
    cold_baseline_code = f"import {PACKAGE}"
    for rep in range(arguments.reps):
        pair = [(ours, ours_body), (baseline, baseline_body)]
        cold = [(cold_ours, cold_ours_code), (cold_baseline, cold_baseline_code)]
        if rep % 2:
            pair.reverse()
            cold.reverse()
        for sink, body in pair:
            sink.append(_timed_in_child(body, env))
        for sink, code in cold:
            sink.append(run_timed([sys.executable, "-c", code], env=env)[0].wall)
        print(
            f"  rep {rep + 1}/{arguments.reps}: FakeServer() {fmt_seconds(ours[-1])}, "
            f"import {PACKAGE} {fmt_seconds(baseline[-1])} (SDK preloaded)",
            flush=True,
        )
    print("\nstart-up, medians (min–max):")
    print(f"  SDK preloaded: fake {spread(ours)}; import package {spread(baseline)}")
    print(f"  nothing preloaded (context): fake {spread(cold_ours)}; import package {spread(cold_baseline)}")
    return Row(
        f"start a fake of a {arguments.tools}-tool package (SDK loaded)",
        median(ours) * 1e3,
        median(baseline) * 1e3,
        "ms",
        START_TARGET,
        baseline_label="import the package",
    )


async def _demo_snapshot_text() -> str:
    from mcp_codegen.demo.server import build_server
    from mcp_codegen.diagnostics import Diagnostics
    from mcp_codegen.snapshot.fetch import snapshot_server

    snapshot = await snapshot_server(build_server(), diagnostics=Diagnostics())
    return snapshot.to_text()


def _low_level_server(tool: dict[str, Any], answer: dict[str, Any]) -> Any:
    """A hand-written low-level SDK server with one tool answering `answer`."""
    import json

    import mcp_types as types
    from mcp.server.lowlevel import Server

    listed = types.Tool.model_validate(tool)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[listed])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer))], structured_content=dict(answer)
        )

    return Server("demo", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _block(call: Call, size: int) -> float:
    started = time.perf_counter()
    for _ in range(size):
        await call()
    return (time.perf_counter() - started) / size


async def calls(arguments: argparse.Namespace, work: Path) -> list[Row]:
    import json

    import mcp

    from mcp_codegen.demo.server import build_server

    snapshot = work / "demo.json"
    snapshot.write_text(await _demo_snapshot_text(), encoding="utf-8")
    run_timed(
        [executable("mcp-codegen"), "generate", "-q", "--snapshot", str(snapshot), "-o", str(work / DEMO_PACKAGE)],
        cwd=work,
    )
    sys.path.insert(0, str(work))
    package = importlib.import_module(DEMO_PACKAGE)
    testing = importlib.import_module(f"{DEMO_PACKAGE}.testing")
    models = importlib.import_module(f"{DEMO_PACKAGE}.models.get_weather")

    demo = build_server()
    async with mcp.Client(demo, mode="legacy", cache=None) as raw:
        answer = (await raw.call_tool("get_weather", {"city": "Paris"})).structured_content
    assert isinstance(answer, dict)
    tool = next(t for t in json.loads(snapshot.read_text())["tools"] if t["name"] == "get_weather")

    fake = testing.FakeServer()
    result = models.GetWeatherResult.model_validate(answer)

    @fake.tools.get_weather
    def get_weather(args: Any) -> Any:
        return result

    servers = {"fake": fake, "low-level": _low_level_server(tool, answer), "MCPServer": demo}
    clients: dict[str, Any] = {}
    async with contextlib.AsyncExitStack() as stack:
        for name, server in servers.items():
            session = await stack.enter_async_context(mcp.Client(server, mode="legacy", cache=None))
            clients[name] = package.AsyncClient.from_session(session)
            weather = await clients[name].get_weather(city="Paris")
            assert weather.model_dump() == result.model_dump(), name
        for _ in range(arguments.warmup):
            for client in clients.values():
                await client.get_weather(city="Paris")
        blocks: dict[str, list[float]] = {name: [] for name in clients}
        gc.collect()
        order = list(clients)
        for index in range(max(1, arguments.calls // arguments.block)):
            for name in order if index % 2 == 0 else reversed(order):
                client = clients[name]
                blocks[name].append(await _block(lambda c=client: c.get_weather(city="Paris"), arguments.block))
    print(f"\ntyped get_weather in memory, per call, {len(blocks['fake'])} blocks of {arguments.block}:")
    for name, values in blocks.items():
        print(f"  {name:10} {spread(values)}")
    assert fake.calls and len(fake.calls) > arguments.calls
    return [
        Row(
            "typed call against the fake (per call)",
            median(blocks["fake"]) * 1e6,
            median(blocks["low-level"]) * 1e6,
            "µs",
            CALL_TARGET,
            baseline_label="hand-written low-level server",
            note=f"MCPServer: {fmt_seconds(median(blocks['MCPServer']))}",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--tools", type=int, default=300)
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per server")
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    import anyio

    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-fake-"))
    try:
        print(f"bench_fake: generating a {arguments.tools}-tool package ...", flush=True)
        rows = [start_up(arguments, work)]
        print("\nbench_fake: generating the demo client ...", flush=True)
        rows.extend(anyio.run(calls, arguments, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
