"""Drift engine speed: diffing two 500-tool snapshots, and the generated client's drift guard on 300 tools.

Snapshots are built with make_tools.py (real corpus tools cycled with unique names, ~85% with an output schema).
The second snapshot is a mutated copy:

* `typical`: about half of the tools touched, one change each, cycling through: description edited, optional
  argument added, argument made required, argument removed, result field added, enum value added; plus 20
  tools removed, 10 renamed, 10 added;
* `every tool`: every tool's input and output schema changed (each one normalised and walked: the worst case).

The guard is the one generated packages ship: a 300-tool package is generated (in process, into a temporary
directory) and the runtime's `mcp_codegen_runtime.calls.drift.check_drift(session, specs.TOOL_HASHES, strict=True)` is timed on a
session stub whose `list_tools` returns the 300 tools already parsed (`mcp_types.ListToolsResult`), so what is
timed is the guard's own work: hash every listed tool's schemas (`tool_fingerprint`) and compare. It must
find no drift. For context (not targets): the floor of any canonical-JSON hash (one `json.dumps(sort_keys=True)` + SHA-256
of the same schemas in a single call), and the guard on a real in-memory session (`tools/list` round trip
included) next to a bare `list_tools()`.

Timed in-process (median of `--reps`, scenarios interleaved): `diff_snapshots(old, new)` on loaded snapshots,
and, for context, the whole `load_side` x 2 + diff + `render(json)` from files. Targets (absolute budgets, shown as
the "baseline" column with a ratio target of 1.0): diff <= 200 ms; the guard on 300 tools <= 5 ms.

    python benchmarks/bench_drift.py [--reps 15] [--tools 500] [--hash-tools 300] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, fmt_seconds, generate_package, median, spread  # noqa: E402
from make_tools import make_tools, snapshot_dict  # noqa: E402

from mcp_codegen.drift import diff_snapshots, load_side, render  # noqa: E402
from mcp_codegen.snapshot.model import Snapshot  # noqa: E402

DIFF_BUDGET_MS = 200.0
GUARD_BUDGET_MS = 5.0
GUARD_PACKAGE = "drift_guard_bench_client"

Tool = dict[str, Any]


def _first_property(schema: Any, *, optional: bool | None = None) -> str | None:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    required = set(schema.get("required") or [])
    for name in schema["properties"]:
        if optional is None or (name not in required) == optional:
            return str(name)
    return None


def _first_enum(schema: Any) -> list[Any] | None:
    if isinstance(schema, dict):
        if isinstance(schema.get("enum"), list):
            return schema["enum"]  # type: ignore[no-any-return]
        for value in schema.values():
            found = _first_enum(value) if isinstance(value, (dict, list)) else None
            if found is not None:
                return found
    if isinstance(schema, list):
        for value in schema:
            found = _first_enum(value)
            if found is not None:
                return found
    return None


def mutate_typical(tools: list[Tool]) -> list[Tool]:
    changed: list[Tool] = []
    for index, original in enumerate(tools):
        if index % 25 == 24:
            continue  # removed (20 tools)
        tool = copy.deepcopy(original)
        raw_schema = tool.get("inputSchema")
        schema: dict[str, Any] = raw_schema if isinstance(raw_schema, dict) else {}
        kind = index % 12
        if kind == 0:
            tool["description"] = f"{tool.get('description', '')} (v2)"
        elif kind == 1 and schema:
            schema.setdefault("properties", {})["added_flag"] = {"type": "boolean", "default": False}
        elif kind == 2 and (name := _first_property(schema, optional=True)) is not None:
            schema["required"] = [*schema.get("required", []), name]
        elif kind == 3 and (name := _first_property(schema)) is not None:
            del schema["properties"][name]
            if name in (schema.get("required") or []):
                schema["required"] = [n for n in schema["required"] if n != name]
        elif kind == 4 and isinstance(tool.get("outputSchema"), dict):
            tool["outputSchema"].setdefault("properties", {})["added_field"] = {"type": "string"}
        elif kind == 5 and (values := _first_enum(tool.get("outputSchema") or schema)) is not None:
            values.append("added-value")
        if index % 50 == 7:
            tool["name"] = f"{tool['name']}_renamed"  # 10 renames
        changed.append(tool)
    for index in range(10):
        extra = copy.deepcopy(tools[index])
        extra["name"] = f"brand_new_{index}"
        changed.append(extra)
    return changed


def mutate_every_tool(tools: list[Tool]) -> list[Tool]:
    changed = copy.deepcopy(tools)
    for tool in changed:
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key)
            if isinstance(schema, dict):
                schema["description"] = "changed"
                schema.setdefault("properties", {})["zz_extra"] = {"type": "integer", "maximum": 3}
    return changed


def time_calls(functions: dict[str, Callable[[], object]], reps: int) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {name: [] for name in functions}
    for function in functions.values():
        function()  # warm-up: imports, caches
    for rep in range(reps):
        order = list(functions.items())
        if rep % 2:
            order.reverse()
        for name, function in order:
            started = time.perf_counter()
            function()
            timings[name].append(time.perf_counter() - started)
    return timings


class ListingSession:
    """What `check_drift` needs of a `ClientSession`: `list_tools()`, answered from a parsed listing."""

    def __init__(self, listing: Any) -> None:
        self._listing = listing

    async def list_tools(self, params: Any = None) -> Any:
        return self._listing


def run_to_completion(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (the guard on a `ListingSession`) without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("the coroutine suspended: it needs an event loop")


def canonical_floor(listing: Any) -> str:
    """One canonical-JSON SHA-256 of every tool's (input, output) schemas: the floor of hashing them all."""
    pairs = [[tool.input_schema, tool.output_schema] for tool in listing.tools]
    text = json.dumps(pairs, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def guard_package(tools: list[Tool], work: Path) -> tuple[ModuleType, Mapping[str, str]]:
    """Generate a package for `tools`: (the runtime's `calls.drift` module, the package's `specs.TOOL_HASHES`)."""
    import importlib

    generate_package(snapshot_dict(tools), work, GUARD_PACKAGE)
    drift = importlib.import_module("mcp_codegen_runtime.calls.drift")
    specs = importlib.import_module(f"{GUARD_PACKAGE}.specs")
    return drift, specs.TOOL_HASHES


def guard_in_memory(drift: ModuleType, expected: Mapping[str, str], tools: list[Tool], reps: int) -> None:
    """Context: the guard on a real in-memory session (with the `tools/list` round trip) vs a bare listing."""
    import anyio
    import mcp
    import mcp_types
    from mcp.server import Server

    listing = mcp_types.ListToolsResult.model_validate({"tools": tools})

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listing

    async def measure() -> dict[str, list[float]]:
        timings: dict[str, list[float]] = {"guard": [], "list": []}
        async with mcp.Client(Server("drift-bench", on_list_tools=list_tools), mode="legacy", cache=None) as client:
            session = client.session
            await drift.check_drift(session, expected, strict=True)
            await session.list_tools()
            for rep in range(reps):
                steps: list[tuple[str, Callable[[], Any]]] = [
                    ("guard", lambda: drift.check_drift(session, expected, strict=True)),
                    ("list", lambda: session.list_tools()),
                ]
                if rep % 2:
                    steps.reverse()
                for name, step in steps:
                    started = time.perf_counter()
                    await step()
                    timings[name].append(time.perf_counter() - started)
        return timings

    timings = anyio.run(measure)
    print(
        f"  in memory, for context: check_drift incl. tools/list {spread(timings['guard'])}; "
        f"bare session.list_tools() {spread(timings['list'])}; "
        f"difference of medians {fmt_seconds(median(timings['guard']) - median(timings['list']))}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--hash-tools", type=int, default=300)
    parser.add_argument("--json", type=Path, help="also write the result rows here (for run_all.py)")
    arguments = parser.parse_args()

    tools = make_tools(arguments.tools)
    old = Snapshot.from_json(snapshot_dict(tools))
    typical = Snapshot.from_json(snapshot_dict(mutate_typical(tools)))
    everything = Snapshot.from_json(snapshot_dict(mutate_every_tool(tools)))
    hash_tools = make_tools(arguments.hash_tools)

    import mcp_types

    listing = mcp_types.ListToolsResult.model_validate({"tools": hash_tools})
    session = ListingSession(listing)

    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bench-drift-") as directory:
        work = Path(directory)
        print(f"bench_drift: generating a {arguments.hash_tools}-tool package for the guard ...", flush=True)
        drift, expected = guard_package(hash_tools, work / "packages")
        summary = run_to_completion(drift.check_drift(session, expected, strict=True))
        if summary is None or summary.drifted or summary.added or len(expected) != arguments.hash_tools:
            raise SystemExit(f"the guard should find no drift on the listing it was generated from: {summary}")

        old_file, new_file = work / "old.json", work / "new.json"
        old_file.write_text(old.to_text(), encoding="utf-8")
        new_file.write_text(typical.to_text(), encoding="utf-8")

        def end_to_end() -> str:
            return render(diff_snapshots(load_side(old_file), load_side(new_file)), "json")

        timings = time_calls(
            {
                "diff typical": lambda: diff_snapshots(old, typical),
                "diff every tool": lambda: diff_snapshots(old, everything),
                "diff identical": lambda: diff_snapshots(old, old),
                "load x2 + diff + json": end_to_end,
                "guard (check_drift)": lambda: run_to_completion(drift.check_drift(session, expected, strict=True)),
                "canonical JSON floor": lambda: canonical_floor(listing),
            },
            arguments.reps,
        )

        report = diff_snapshots(old, typical)
        worst = diff_snapshots(old, everything)
        size = len(json.dumps([[t.input_schema, t.output_schema] for t in listing.tools])) / 1024
        print(f"python {platform.python_version()} on {platform.machine()}, {arguments.reps} reps (median (min–max))")
        print(f"{arguments.tools} tools; typical: {report.summary()} ({len(report.findings)} findings)")
        print(f"every tool: {worst.summary()} ({len(worst.findings)} findings)")
        for name, values in timings.items():
            print(f"  {name:24} {spread(values)}")
        print(f"guard: {arguments.hash_tools} tools, {size:.0f} KiB of schemas as JSON")
        guard_in_memory(drift, expected, hash_tools, arguments.reps)

    rows = [
        Row(
            f"drift diff, {arguments.tools} tools (typical)",
            median(timings["diff typical"]) * 1e3,
            DIFF_BUDGET_MS,
            "ms",
            1.0,
            baseline_label="budget",
        ),
        Row(
            f"drift diff, {arguments.tools} tools (every tool changed)",
            median(timings["diff every tool"]) * 1e3,
            DIFF_BUDGET_MS,
            "ms",
            1.0,
            baseline_label="budget",
        ),
        Row(
            f"drift guard `check_drift`, {arguments.hash_tools} tools",
            median(timings["guard (check_drift)"]) * 1e3,
            GUARD_BUDGET_MS,
            "ms",
            1.0,
            baseline_label="budget",
        ),
    ]
    emit(rows, arguments.json)
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
