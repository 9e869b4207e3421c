"""Code mode: the bytes a model reads, what a run costs where users run it, and FastMCP's untyped code mode beside it.

Bytes. Each task is done both ways against a real server, through the package's own agent layer (what a model's
turns go through), and the bytes the model reads are counted: the tool definitions it is given (`to_anthropic()`,
as JSON) plus every `tool_result` block it gets back (`handle_anthropic_tool_use`, as JSON). Direct: the server's
tools, one `tool_use` per call (the intermediate results all pass through the model). Code mode:
`tools(code=True)`, one `run_python` call whose code does the same calls and returns only the answer.

* `sum of 20` (npm server-everything, stdio): 20 `get-sum` calls (a + b for a in 1..20), folded into one total;
* `notes, 3 fields` (the demo server, in memory): `list_notes()`, the notes cut to `id`, `title` and `priority`;
* `weather of 5 cities` (the demo server): 5 `get_weather` calls, reduced to the warmest city.

Target: the results code mode hands the model are at most half the bytes of the direct calls' (ratio <= 0.5) for
every task. The totals with the definitions are shown without a target: `run_python`'s description carries the
whole typed API (up to 20 KB, an index past it), a fixed cost that a small task on a small server does not recoup.

Cost (`code_cost.py`). The same programs timed directly (typed calls on the client) and through `run_code()`, on
the demo server (in memory) and on ms-365 (344 tools, a 727 KB stub; its package's `FakeServer`, in memory, a
handler answering `parse_teams_url`):

* warm: one client in one process that has run code before (the stub read, the sandbox's modules imported);
  medians of `--reps` interleaved repetitions;
* cold: the first program of a new process, after it connected (pydantic-monty imported, the stub read and
  parsed, the first type check), against the first typed calls of a new process.

Targets (issue 59): warm, `run_code` of 20 typed calls on the demo server <= 3x the same calls made directly;
a one-call program on ms-365 answers within 100 ms. FastMCP's `CodeMode` (the untyped code mode: `call_tool(name,
params)`, no check before it runs, a new sandbox pool per run), in front of the same server through
`fastmcp.server.create_proxy`, runs the same programs in the same loop: latency, and the bytes its model reads
(its definitions, then `search`, `get_schema` and `execute` results) against ours (`run_python`'s definition and
result; on ms-365 a first `search_api` run, since the definition holds an index there).

    python benchmarks/bench_code_mode.py [--reps 20] [--cold-reps 5] [--calls 20] [--no-fastmcp] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "servers"))

from _common import BENCHMARKS, ROOT, Row, emit, generate_package  # noqa: E402

EXAMPLES = ROOT / "generated_examples"
MS365 = "ms365_0.155.0.snapshot.json.gz"


def _bytes(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def _use(name: str, arguments: dict[str, Any], index: int) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": arguments}


#: (bytes of the tool definitions, bytes of the results), what the model reads.
Read = tuple[int, int]


async def _direct(client: Any, calls: list[tuple[str, dict[str, Any]]]) -> Read:
    tools = client.tools()
    results = 0
    for index, (name, arguments) in enumerate(calls):
        # One call per model turn: every result passes through the model.
        answers = await tools.handle_anthropic_tool_use([_use(name, arguments, index)])
        assert "is_error" not in answers[0], answers
        results += _bytes(answers)
    return _bytes(tools.to_anthropic()), results


async def _code(client: Any, code: str) -> tuple[Read, object]:
    tools = client.tools(code=True)
    answers = await tools.handle_anthropic_tool_use([_use("run_python", {"code": code}, 0)])
    assert "is_error" not in answers[0], answers
    value = json.loads(answers[0]["content"][0]["text"])["value"]
    return (_bytes(tools.to_anthropic()), _bytes(answers)), value


async def _bytes_rows(demo: Any, everything: Any) -> list[Row]:
    from install import everything_command

    from mcp_codegen.demo.server import build_server

    rows: list[Row] = []
    command = everything_command()
    sums = [("get-sum", {"a": a, "b": a}) for a in range(1, 21)]
    sum_code = (
        "import bench_everything_client as api\n"
        "total = 0\n"
        "for a in range(1, 21):\n"
        "    text = await api.get_sum(a=a, b=a)\n"
        "    total += int(text.split()[-1].rstrip('.'))\n"
        "total\n"
    )
    async with everything.AsyncClient.stdio(command[0], command[1:]) as client:
        direct = await _direct(client, sums)
        code, value = await _code(client, sum_code)
    assert value == 420, value
    rows += _bytes_rows_of("sum of 20 (server-everything)", code, direct)

    notes_code = (
        "import bench_demo_client as api\n"
        "[{'id': n['id'], 'title': n['title'], 'priority': n.get('priority')} for n in await api.list_notes()]\n"
    )
    cities = ["Paris", "Oslo", "Lima", "Cairo", "Tokyo"]
    weather_code = (
        "import bench_demo_client as api\n"
        f"found = [await api.get_weather(city=c) for c in {cities!r}]\n"
        "max(found, key=lambda w: w['temperature'])['city']\n"
    )
    async with demo.AsyncClient.in_process(build_server()) as client:
        direct = await _direct(client, [("list_notes", {})])
        code, _ = await _code(client, notes_code)
        rows += _bytes_rows_of("notes, 3 fields (demo)", code, direct)
        direct = await _direct(client, [("get_weather", {"city": city}) for city in cities])
        code, _ = await _code(client, weather_code)
        rows += _bytes_rows_of("warmest of 5 cities (demo)", code, direct)
    return rows


def _bytes_rows_of(task: str, code: Read, direct: Read) -> list[Row]:
    """The results the model reads (target: half or less), and the whole with the definitions (shown)."""
    print(f"{task}: results {code[1]} B in code mode, {direct[1]} B direct; definitions {code[0]} B, {direct[0]} B")
    labels = {"ours_label": "run_python", "baseline_label": "direct tool calls"}
    return [
        Row(f"code mode: result bytes read, {task}", code[1], direct[1], "B", 0.5, **labels),
        Row(f"code mode: bytes read with definitions, {task}", sum(code), sum(direct), "B", float("inf"), **labels),
    ]


def main_rows(arguments: argparse.Namespace) -> list[Row]:
    from code_cost import cost_rows

    with tempfile.TemporaryDirectory(prefix="bench-code-") as directory:
        root = Path(directory)
        demo = generate_package(_snapshot("demo_client"), root, "bench_demo_client")
        everything = generate_package(_snapshot("everything_client"), root, "bench_everything_client")
        rows = anyio.run(_bytes_rows, demo, everything)
        began = time.perf_counter()
        ms365 = generate_package(_ms365_snapshot(), root, "bench_ms365_client")
        print(f"(ms-365's package generated in {time.perf_counter() - began:.1f} s)", flush=True)
        packages = {"demo": demo, "ms365": ms365}
        rows += cost_rows(
            packages,
            root,
            calls=arguments.calls,
            reps=arguments.reps,
            cold_reps=arguments.cold_reps,
            with_fastmcp=not arguments.no_fastmcp,
        )
    return rows


def _ms365_snapshot() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((BENCHMARKS / "data" / MS365).read_bytes()))
    return data


def _snapshot(example: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / example / "snapshot.json").read_text(encoding="utf-8"))
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=20, help="warm repetitions (medians)")
    parser.add_argument("--cold-reps", type=int, default=5, help="cold samples (a new process each); 0: none")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--no-fastmcp", action="store_true", help="leave FastMCP's CodeMode out")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions: --reps 7 --cold-reps 2")
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.reps, arguments.cold_reps = min(arguments.reps, 7), min(arguments.cold_reps, 2)
    rows = main_rows(arguments)
    emit(rows, arguments.json)
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
