"""Generation on real schemas at two scales: every tool of the 13 corpus servers merged (171), and 360.

The listing is each tool of `data/corpus_tools.json` (13 published servers) exactly as listed, its name prefixed
with its server's label so the names stay distinct (no synthetic output schemas). The project holds 171 distinct
real tools (`tests/corpus/*.json` are the same ones), so the 360-tool listing, at the scale of the largest real
servers (Microsoft 365: 344 tools), repeats them: every tool twice and the first 18 a third time, under the name
prefixes `c0_`, `c1_`, `c2_`. Each repetition runs both sizes, and at each size, as subprocesses, in an order that
alternates:

* floor: `datamodel-codegen --input-file-type mcp-tools` on the same tools (models only, one module);
* the changed tools alone: the same on a listing of just the two changed tools (the least a run that must make
  their models can cost in a new process: the model generator's start and two tools);
* ours, cold: `mcp-codegen generate --snapshot` into a fresh directory with an empty model cache;
* ours, two tools changed: one tool's description changed and a new optional property in another's input
  schema, regenerated into that directory (the cache holds the other tools' models from the cold run);
* ours, unchanged: the same command again (the manifest says it is up to date).

Targets: cold <= 0.9x the floor, two tools changed <= 1.5x the floor on the changed tools alone, unchanged
<= 0.1x the floor.

    python benchmarks/bench_real.py [--reps 3] [--sizes 171 360] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, Timing, emit, fmt_seconds, median, python_env, run_timed, spread  # noqa: E402
from bench_generate import floor_command, ours_command  # noqa: E402
from make_tools import DATA, snapshot_dict, tools_document  # noqa: E402

TARGETS = {"cold": 0.9, "two tools changed": 1.5, "unchanged": 0.1}
SIZES = (171, 360)


def merged_tools() -> list[dict[str, Any]]:
    servers = json.loads(DATA.read_text(encoding="utf-8"))["servers"]
    tools = []
    for server in sorted(servers, key=lambda s: s["label"]):
        for tool in server["tools"]:
            renamed = copy.deepcopy(tool)
            renamed["name"] = f"{server['label']}__{tool['name']}"
            tools.append(renamed)
    return tools


def scaled_tools(count: int) -> list[dict[str, Any]]:
    """`count` tools: the merged real tools, repeated under prefixes `c0_`, `c1_`, ... past the first 171.

    The corpus holds 171 distinct real tools (`tests/corpus/*.json` holds the same ones), so 360 tools is every
    real tool twice and the first 18 a third time: real schemas, but repeated ones."""
    base = merged_tools()
    if count <= len(base):
        return base[:count]
    tools = []
    for index in range(count):
        tool = copy.deepcopy(base[index % len(base)])
        tool["name"] = f"c{index // len(base)}_{tool['name']}"
        tools.append(tool)
    return tools


def two_tools_changed(tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the listing with one tool's description changed and another's new optional property, those two tools)."""
    changed = copy.deepcopy(tools)
    described, widened = changed[len(changed) // 3], changed[2 * len(changed) // 3]
    described["description"] = f"{described.get('description') or ''} Changed by the benchmark.".strip()
    schema = widened["inputSchema"]
    schema["properties"] = {**schema.get("properties", {}), "added_by_the_benchmark": {"type": "integer"}}
    return changed, [described, widened]


def write(directory: Path, tools: list[dict[str, Any]], name: str) -> Path:
    path = directory / name
    path.write_text(json.dumps(snapshot_dict(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def write_listing(directory: Path, tools: list[dict[str, Any]], name: str) -> Path:
    path = directory / name
    path.write_text(json.dumps(tools_document(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


KEYS = ("floor", "changed tools alone", "cold", "two tools changed", "unchanged")


def bench_rep(rep: int, count: int, directory: Path, results: dict[str, list[Timing]]) -> None:
    """One repetition at one size: floor and ours, in an order that alternates with `rep`."""
    env = python_env()
    env["MCP_CODEGEN_CACHE_DIR"] = str(directory / f"cache_{rep}")  # empty: a cold run
    snapshot, snapshot_changed = directory / "snap.json", directory / "snap_changed.json"

    def floor() -> None:
        output = directory / f"floor_{rep}.py"
        results["floor"].append(run_timed(floor_command(directory / "tools.json", output), cwd=directory, env=env)[0])
        alone = floor_command(directory / "changed_tools.json", output)
        results["changed tools alone"].append(run_timed(alone, cwd=directory, env=env)[0])

    def ours() -> None:
        package = directory / f"ours_{rep}" / "pkg"
        for key, source in (
            ("cold", snapshot),
            ("two tools changed", snapshot_changed),
            ("unchanged", snapshot_changed),
        ):
            timing, completed = run_timed(ours_command(source, package), cwd=directory, env=env)
            if key == "unchanged" and "up to date" not in completed.stderr:
                raise RuntimeError(f"the unchanged regeneration was not skipped:\n{completed.stderr[-2000:]}")
            results[key].append(timing)

    for step in (floor, ours) if rep % 2 == 0 else (ours, floor):
        step()


def rows_for(count: int, results: dict[str, list[Timing]]) -> list[Row]:
    floor_time = median([t.wall for t in results["floor"]])
    alone_time = median([t.wall for t in results["changed tools alone"]])
    label = "datamodel-codegen mcp-tools"
    return [
        Row(f"generate, {count} real tools, cold", median([t.wall for t in results["cold"]]), floor_time, "s",
            TARGETS["cold"], baseline_label=f"{label}, all tools"),
        Row(f"generate, {count} real tools, two tools changed", median([t.wall for t in results["two tools changed"]]),
            alone_time, "s", TARGETS["two tools changed"], baseline_label=f"{label}, the two changed tools alone"),
        Row(f"generate, {count} real tools, unchanged", median([t.wall for t in results["unchanged"]]), floor_time,
            "s", TARGETS["unchanged"], baseline_label=f"{label}, all tools"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-real-"))
    rows: list[Row] = []
    try:
        results: dict[int, dict[str, list[Timing]]] = {}
        for count in arguments.sizes:
            directory = work / f"n{count}"
            directory.mkdir()
            tools = scaled_tools(count)
            changed, changed_alone = two_tools_changed(tools)
            write(directory, tools, "snap.json")
            write(directory, changed, "snap_changed.json")
            write_listing(directory, tools, "tools.json")
            write_listing(directory, changed_alone, "changed_tools.json")
            size = sum(
                len(json.dumps(t.get("inputSchema", {}))) + len(json.dumps(t.get("outputSchema", {}))) for t in tools
            )
            print(f"bench_real: {count} tools ({size // 1000} KB of schemas)")
            results[count] = {key: [] for key in KEYS}
        print(f"{arguments.reps} reps, sizes interleaved", flush=True)
        for rep in range(arguments.reps):
            for count in arguments.sizes:
                bench_rep(rep, count, work / f"n{count}", results[count])
                timings = results[count]
                print(
                    f"  rep {rep + 1}, {count} tools: "
                    + ", ".join(f"{k} {fmt_seconds(v[-1].wall)}" for k, v in timings.items()),
                    flush=True,
                )
        for count in arguments.sizes:
            print(f"\n{count} tools, medians (min–max):")
            for key, values in results[count].items():
                print(
                    f"  {key:20} wall {spread([t.wall for t in values]):32} cpu {fmt_seconds(median([t.cpu for t in values]))}"
                )
            rows.extend(rows_for(count, results[count]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
