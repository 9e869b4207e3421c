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

Two real large listings are measured the same way (issue 39), from the snapshots `mcp-codegen snapshot` wrote
(`data/*.snapshot.json.gz`, canonical files; the changed snapshot is written in the same canonical form):

* `ms365`: `@softeria/ms-365-mcp-server` 0.155.0 with `--org-mode`, 344 tools, 2.2 MB of tool JSON (the largest
  tool 89 KB), 27 recursive schemas;
* `azure`: `@azure/mcp` 2.0.5 with `server start --mode all` (every tool apart), 235 tools, 0.6 MB.

Both list their tools over stdio without credentials; to take them again:

    npm install --prefix /tmp/bigsrv @softeria/ms-365-mcp-server@0.155.0 @azure/mcp@2.0.5
    mcp-codegen snapshot --stdio 'npx -y @softeria/ms-365-mcp-server@0.155.0 --org-mode' -o ms365.json
    mcp-codegen snapshot --stdio 'npx -y @azure/mcp@2.0.5 server start --mode all' -o azure.json
    gzip -9 -n ms365.json azure.json   # -> data/ms365_0.155.0.snapshot.json.gz, data/azure_mcp_2.0.5...

`--before SRC` also runs ours with `PYTHONPATH=SRC` (the sources of another revision, e.g. a `git archive` of
main's `src/`), interleaved in every rep, with a cache of its own: before and after side by side in one run.

Targets: cold <= 0.9x the floor, two tools changed <= 1.5x the floor on the changed tools alone, unchanged
<= 0.1x the floor; for ms-365 (issue 59) cold <= 0.85x and two tools changed <= 1.3x.

Shares (`--shares`, default ms365): after the timed repetitions, one more cold run fills a fresh cache, and the
two-tools-changed run is made again in process (`_shares.py`), each stage's wall and CPU time recorded by the file
it makes (`code_api.pyi`, `README.md`, `search_index.json`, the manifest, the models, ...): where a changed run's
time goes.

    python benchmarks/bench_real.py [--reps 3] [--listings 171 360 ms365 azure] [--before SRC] [--shares ms365]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import gzip
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
#: Tighter targets of a listing (issue 59: ms-365, the largest real listing).
LISTING_TARGETS = {"ms365": {"cold": 0.85, "two tools changed": 1.3, "unchanged": 0.1}}
LISTINGS = ("171", "360", "ms365", "azure")
#: The real large listings: name -> (snapshot file under data/, what it is).
REAL_SNAPSHOTS = {
    "ms365": ("ms365_0.155.0.snapshot.json.gz", "@softeria/ms-365-mcp-server 0.155.0"),
    "azure": ("azure_mcp_2.0.5.snapshot.json.gz", "@azure/mcp 2.0.5"),
}


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


def real_snapshot(listing: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((DATA.parent / REAL_SNAPSHOTS[listing][0]).read_bytes()))
    return data


def write_canonical(directory: Path, snapshot: dict[str, Any], tools: list[dict[str, Any]], name: str) -> Path:
    """`snapshot` with `tools`, in the canonical form `mcp-codegen snapshot` writes: the keys as read (sorted,
    `properties` in the server's order; the added property last), two-space indent, non-ASCII kept."""
    path = directory / name
    text = json.dumps({**snapshot, "tools": tools}, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def write_listing(directory: Path, tools: list[dict[str, Any]], name: str) -> Path:
    path = directory / name
    path.write_text(json.dumps(tools_document(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def prepare(listing: str, directory: Path) -> str:
    """Write the listing's snapshots (as is, two tools changed) and floor inputs into `directory`; a label."""
    if listing in REAL_SNAPSHOTS:
        snapshot = real_snapshot(listing)
        tools = snapshot["tools"]
        changed, changed_alone = two_tools_changed(tools)
        write_canonical(directory, snapshot, tools, "snap.json")
        write_canonical(directory, snapshot, changed, "snap_changed.json")
        label = f"{REAL_SNAPSHOTS[listing][1]}, {len(tools)} tools"
    else:
        tools = scaled_tools(int(listing))
        changed, changed_alone = two_tools_changed(tools)
        write(directory, tools, "snap.json")
        write(directory, changed, "snap_changed.json")
        label = f"{listing} real tools"
    write_listing(directory, tools, "tools.json")
    write_listing(directory, changed_alone, "changed_tools.json")
    size = sum(len(json.dumps(tool, ensure_ascii=False)) for tool in tools)
    largest = max(len(json.dumps(tool, ensure_ascii=False)) for tool in tools)
    print(f"bench_real: {label}: {size / 1e6:.2f} MB of tool JSON, {size // len(tools) // 100 / 10} KB per tool, "
          f"the largest {largest // 1000} KB")  # fmt: skip
    return f"{label} ({size / 1e6:.1f} MB)"


KEYS = ("floor", "changed tools alone", "cold", "two tools changed", "unchanged")
BEFORE = " (before)"


def bench_rep(rep: int, directory: Path, results: dict[str, list[Timing]], before: Path | None = None) -> None:
    """One repetition of one listing: floor and ours (and ours before), in an order that rotates with `rep`."""
    snapshot, snapshot_changed = directory / "snap.json", directory / "snap_changed.json"

    def floor() -> None:
        output = directory / f"floor_{rep}.py"
        results["floor"].append(run_timed(floor_command(directory / "tools.json", output), cwd=directory, env=env)[0])
        alone = floor_command(directory / "changed_tools.json", output)
        results["changed tools alone"].append(run_timed(alone, cwd=directory, env=env)[0])

    def ours(source_path: Path | None = None) -> None:
        suffix = "" if source_path is None else BEFORE
        env = python_env(source_path)
        env["MCP_CODEGEN_CACHE_DIR"] = str(directory / f"cache_{rep}{suffix.strip()}")  # empty: a cold run
        package = directory / f"ours_{rep}{suffix.strip()}" / "pkg"
        for key, source in (
            ("cold", snapshot),
            ("two tools changed", snapshot_changed),
            ("unchanged", snapshot_changed),
        ):
            timing, completed = run_timed(ours_command(source, package), cwd=directory, env=env)
            if key == "unchanged" and "up to date" not in completed.stderr:
                raise RuntimeError(f"the unchanged regeneration was not skipped:\n{completed.stderr[-2000:]}")
            results[key + suffix].append(timing)

    env = python_env()
    steps = [floor, ours] + ([lambda: ours(before)] if before is not None else [])
    for index in range(len(steps)):
        steps[(rep + index) % len(steps)]()


def rows_for(name: str, results: dict[str, list[Timing]], suffix: str = "", listing: str = "") -> list[Row]:
    targets = LISTING_TARGETS.get(listing, TARGETS)
    floor_time = median([t.wall for t in results["floor"]])
    alone_time = median([t.wall for t in results["changed tools alone"]])
    label = "datamodel-codegen mcp-tools"
    return [
        Row(f"generate, {name}, cold{suffix}", median([t.wall for t in results["cold" + suffix]]), floor_time, "s",
            targets["cold"], baseline_label=f"{label}, all tools"),
        Row(f"generate, {name}, two tools changed{suffix}",
            median([t.wall for t in results["two tools changed" + suffix]]), alone_time, "s",
            targets["two tools changed"], baseline_label=f"{label}, the two changed tools alone"),
        Row(f"generate, {name}, unchanged{suffix}", median([t.wall for t in results["unchanged" + suffix]]),
            floor_time, "s", targets["unchanged"], baseline_label=f"{label}, all tools"),
    ]  # fmt: skip


def shares(directory: Path, label: str) -> None:
    """A changed run's time by the file each part makes (`_shares.py`), after one more cold run."""
    env = python_env()
    env["MCP_CODEGEN_CACHE_DIR"] = str(directory / "cache_shares")
    package = directory / "ours_shares" / "pkg"
    run_timed(ours_command(directory / "snap.json", package), cwd=directory, env=env)
    command = [sys.executable, str(Path(__file__).with_name("_shares.py")), str(directory / "snap_changed.json"),
               str(package), str(directory / "cache_shares")]  # fmt: skip
    _timing, completed = run_timed(command, cwd=directory, env=env)
    print(
        f"\n{label}: where the two-tools-changed run's time goes (in process, one run; CPU includes the formatter's):"
    )
    print(completed.stdout.rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--listings", nargs="+", default=list(LISTINGS), choices=LISTINGS)
    parser.add_argument("--before", type=Path, help="also run ours with PYTHONPATH=BEFORE (another revision's src/)")
    parser.add_argument("--shares", nargs="*", default=["ms365"], choices=LISTINGS,
                        help="listings whose changed run is broken down by file (none: --shares)")  # fmt: skip
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()
    before: Path | None = arguments.before.resolve() if arguments.before else None

    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-real-"))
    rows: list[Row] = []
    try:
        results: dict[str, dict[str, list[Timing]]] = {}
        labels: dict[str, str] = {}
        for listing in arguments.listings:
            directory = work / listing
            directory.mkdir()
            labels[listing] = prepare(listing, directory)
            keys = KEYS + (tuple(k + BEFORE for k in KEYS[2:]) if before is not None else ())
            results[listing] = {key: [] for key in keys}
        print(f"{arguments.reps} reps, listings interleaved", flush=True)
        for rep in range(arguments.reps):
            for listing in arguments.listings:
                bench_rep(rep, work / listing, results[listing], before)
                timings = results[listing]
                print(
                    f"  rep {rep + 1}, {listing}: "
                    + ", ".join(f"{k} {fmt_seconds(v[-1].wall)}" for k, v in timings.items()),
                    flush=True,
                )
        for listing in arguments.listings:
            print(f"\n{labels[listing]}, medians (min–max):")
            floor_time = median([t.wall for t in results[listing]["floor"]])
            alone_time = median([t.wall for t in results[listing]["changed tools alone"]])
            for key, values in results[listing].items():
                base = alone_time if key.startswith("two tools changed") else floor_time
                ratio = "" if key in KEYS[:2] else f"  {median([t.wall for t in values]) / base:.2f}x"
                print(
                    f"  {key:29} wall {spread([t.wall for t in values]):32} cpu {fmt_seconds(median([t.cpu for t in values]))}{ratio}"
                )
            rows.extend(rows_for(labels[listing], results[listing], listing=listing))
            if before is not None:
                rows.extend(rows_for(labels[listing], results[listing], BEFORE, listing))
        for listing in [name for name in arguments.shares if name in arguments.listings]:
            shares(work / listing, labels[listing])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
