"""Code mode: the bytes a model reads for multi-step tasks, direct tool calls against `run_python`, and what a run costs.

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

Cost. On one in-memory session of the demo server, `--calls` typed calls (`await client.add(a=i, b=i)`) are timed
directly, then as one `run_code()` program that makes the same calls (the sandbox's pool started, the code
type-checked and run, each call typed). Reported: the run's time over the direct calls' (medians of `--reps`
interleaved repetitions), and a trivial run (`run_code("1")`). No target: most of a run is the type check (ty, in
the worker; it grows with the code), a fixed cost per run shown so it is known; the calls themselves cross the
sandbox in well under a millisecond each.

    python benchmarks/bench_code_mode.py [--reps 5] [--calls 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "servers"))

from _common import ROOT, Row, emit, generate_package, median  # noqa: E402

EXAMPLES = ROOT / "generated_examples"


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


async def _cost_rows(demo: Any, reps: int, calls: int) -> list[Row]:
    from mcp_codegen.demo.server import build_server

    code = (
        "import bench_demo_client as api\n"
        f"total = 0\nfor i in range({calls}):\n    total += await api.add(a=i, b=i)\ntotal\n"
    )
    runs: list[float] = []
    direct_runs: list[float] = []
    fixed: list[float] = []
    async with demo.AsyncClient.in_process(build_server()) as client:

        async def typed() -> None:
            for i in range(calls):
                await client.add(a=i, b=i)

        async def timed(call: Callable[[], Awaitable[object]]) -> float:
            began = time.perf_counter()
            await call()
            return time.perf_counter() - began

        await typed()
        await client.run_code(code)  # warm-up: the worker binary and ty read from disk once
        for _ in range(reps):
            direct_runs.append(await timed(typed))
            runs.append(await timed(lambda: client.run_code(code)))
            fixed.append(await timed(lambda: client.run_code("1")))
    run, direct, empty = median(runs) * 1000, median(direct_runs) * 1000, median(fixed) * 1000
    print(f"run_code of {calls} calls: {run:.1f} ms; the typed calls alone: {direct:.1f} ms; run_code('1'): {empty:.1f} ms")
    return [
        Row(
            f"code mode: run_code of {calls} typed calls (demo, in memory)",
            run,
            direct,
            "ms",
            float("inf"),
            ours_label="run_code",
            baseline_label=f"{calls} typed calls",
            note=f"a run's fixed cost (pool, type check): run_code('1') {empty:.0f} ms",
        )
    ]


async def main_async(arguments: argparse.Namespace) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-code-") as directory:
        root = Path(directory)
        demo = generate_package(_snapshot("demo_client"), root, "bench_demo_client")
        everything = generate_package(_snapshot("everything_client"), root, "bench_everything_client")
        rows = await _bytes_rows(demo, everything)
        rows += await _cost_rows(demo, arguments.reps, arguments.calls)
    return rows


def _snapshot(example: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / example / "snapshot.json").read_text(encoding="utf-8"))
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()
    rows = anyio.run(main_async, arguments)
    emit(rows, arguments.json)
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
