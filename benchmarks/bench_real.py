"""Generation on real schemas: every tool of the 13 corpus servers merged into one listing, vs datamodel-codegen.

The listing is each tool of `data/corpus_tools.json` (13 published servers) exactly as listed, its name prefixed
with its server's label so the names stay distinct (no synthetic output schemas). Each repetition runs, as
subprocesses, in an order that alternates:

* floor: `datamodel-codegen --input-file-type mcp-tools` on the same tools (models only, one module);
* ours, cold: `mcp-codegen generate --snapshot` into a fresh directory with an empty model cache;
* ours, one tool changed: a property added to one tool's input schema, regenerated into that directory (the
  cache holds the other tools' models from the cold run);
* ours, unchanged: the same command again (the manifest says it is up to date);
* the changed tool alone (for comparison): `datamodel-codegen --input-file-type mcp-tools` on a listing of just
  the changed tool. It is the least a run that must make that tool's models can cost in a new process: the
  model generator's start and one tool.

Targets: cold <= 0.9x the floor, one tool changed <= 0.25x, unchanged <= 0.1x.

    python benchmarks/bench_real.py [--reps 3] [--json FILE]
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

TARGETS = {"cold": 0.9, "one tool changed": 0.25, "unchanged": 0.1}


def merged_tools() -> list[dict[str, Any]]:
    servers = json.loads(DATA.read_text(encoding="utf-8"))["servers"]
    tools = []
    for server in sorted(servers, key=lambda s: s["label"]):
        for tool in server["tools"]:
            renamed = copy.deepcopy(tool)
            renamed["name"] = f"{server['label']}__{tool['name']}"
            tools.append(renamed)
    return tools


def write(directory: Path, tools: list[dict[str, Any]], name: str) -> Path:
    path = directory / name
    path.write_text(json.dumps(snapshot_dict(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-real-"))
    try:
        tools = merged_tools()
        changed = copy.deepcopy(tools)
        schema = changed[len(changed) // 2]["inputSchema"]
        schema["properties"] = {**schema.get("properties", {}), "added_by_the_benchmark": {"type": "integer"}}
        snapshot = write(work, tools, "snap.json")
        snapshot_changed = write(work, changed, "snap_changed.json")
        listing = work / "tools.json"
        listing.write_text(json.dumps(tools_document(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        alone = work / "changed_tool.json"
        alone.write_text(json.dumps(tools_document([changed[len(changed) // 2]]), indent=2) + "\n", encoding="utf-8")
        size = sum(
            len(json.dumps(t.get("inputSchema", {}))) + len(json.dumps(t.get("outputSchema", {}))) for t in tools
        )
        print(
            f"bench_real: {len(tools)} tools of 13 real servers ({size // 1000} KB of schemas), {arguments.reps} reps"
        )

        results: dict[str, list[Timing]] = {
            "floor": [], "cold": [], "one tool changed": [], "unchanged": [], "changed tool alone": []
        }  # fmt: skip
        for rep in range(arguments.reps):
            env = python_env()
            env["MCP_CODEGEN_CACHE_DIR"] = str(work / f"cache_{rep}")  # empty: a cold run

            def floor(rep: int = rep, env: dict[str, str] = env) -> None:
                output = work / f"floor_{rep}.py"
                results["floor"].append(run_timed(floor_command(listing, output), cwd=work, env=env)[0])
                results["changed tool alone"].append(run_timed(floor_command(alone, output), cwd=work, env=env)[0])

            def ours(rep: int = rep, env: dict[str, str] = env) -> None:
                package = work / f"ours_{rep}" / "pkg"
                for key, source in (
                    ("cold", snapshot),
                    ("one tool changed", snapshot_changed),
                    ("unchanged", snapshot_changed),
                ):
                    timing, completed = run_timed(ours_command(source, package), cwd=work, env=env)
                    if key == "unchanged" and "up to date" not in completed.stderr:
                        raise RuntimeError(f"the unchanged regeneration was not skipped:\n{completed.stderr[-2000:]}")
                    results[key].append(timing)

            for step in (floor, ours) if rep % 2 == 0 else (ours, floor):
                step()
            print(
                f"  rep {rep + 1}: " + ", ".join(f"{k} {fmt_seconds(v[-1].wall)}" for k, v in results.items()),
                flush=True,
            )
        print("\nmedians (min–max):")
        for key, values in results.items():
            print(
                f"  {key:17} wall {spread([t.wall for t in values]):32} cpu {fmt_seconds(median([t.cpu for t in values]))}"
            )
        floor_time = median([t.wall for t in results["floor"]])
        rows = [
            Row(f"generate, {len(tools)} real tools, {key}", median([t.wall for t in results[key]]), floor_time, "s",
                target, baseline_label="datamodel-codegen mcp-tools")
            for key, target in TARGETS.items()
        ]  # fmt: skip
        rows.append(
            Row("datamodel-codegen, the changed tool alone (for comparison)",
                median([t.wall for t in results["changed tool alone"]]), floor_time, "s", float("inf"),
                ours_label="datamodel-codegen", baseline_label="datamodel-codegen mcp-tools")
        )  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
