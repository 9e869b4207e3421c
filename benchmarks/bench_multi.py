"""Snapshotting several servers at once: `mcp_codegen.snapshot.many.snapshot_many` on 4 real stdio servers vs one at a time.

The servers, each a real process speaking MCP over stdio (`StdioLaunch`, as `mcp-codegen snapshot` starts them):

* `demo-1`, `demo-2`, `demo-3`: the bundled demo server, `python -m mcp_codegen.demo` (this interpreter);
* `everything`: the reference npm server, tests/servers/node_modules/.bin/mcp-server-everything (install it with
  `python tests/servers/install.py`; without it, or without `node`, the script stops with that hint).

Each repetition takes, in an order that alternates between repetitions: the 4 servers in parallel, one
`snapshot_many` call with all of them (limit 8, so all start at once), and every server alone (`snapshot_many` with
that one server, so both sides run the same code). Every snapshot is checked (tool counts). Reported: the medians
of the parallel wall time, of each server alone, the slowest server's median ("slowest"), and the sum of the
medians (what one-at-a-time costs). Target: parallel / slowest <= 1.5. Also the child processes' CPU time of a
parallel run (the servers', and this process's, which runs the 4 clients): starting Python servers is CPU-bound
(interpreter start-up, importing the MCP SDK), so on a machine with few cores the parallel time cannot go below
(CPU time / cores), whatever the orchestration does.

    python benchmarks/bench_multi.py [--reps 5] [--timeout 60] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, Row, emit, fmt_seconds, median, spread  # noqa: E402

from mcp_codegen.inputs.launch import ServerLaunch, StdioLaunch  # noqa: E402
from mcp_codegen.snapshot.model import Snapshot  # noqa: E402

TARGET = 1.5
EVERYTHING = ROOT / "tests" / "servers" / "node_modules" / ".bin" / "mcp-server-everything"


def launches() -> dict[str, ServerLaunch]:
    if not EVERYTHING.exists() or shutil.which("node") is None:
        raise SystemExit(
            f"bench_multi needs node and {EVERYTHING.relative_to(ROOT)}: run `python tests/servers/install.py`"
        )
    demo = StdioLaunch(command=sys.executable, args=("-m", "mcp_codegen.demo"))
    return {"demo-1": demo, "demo-2": demo, "demo-3": demo, "everything": StdioLaunch(command=str(EVERYTHING))}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def snapshot_timed(
    servers: Mapping[str, ServerLaunch], timeout: float
) -> tuple[float, tuple[float, float], dict[str, int]]:
    """Wall seconds, CPU seconds (of the finished servers, of this process) and tools per server of one `snapshot_many`."""
    from mcp_codegen.snapshot.many import snapshot_many

    children_before, self_before = _cpu(resource.RUSAGE_CHILDREN), _cpu(resource.RUSAGE_SELF)
    started = time.perf_counter()
    results = await snapshot_many(servers, timeout=timeout)
    wall = time.perf_counter() - started
    cpu = (_cpu(resource.RUSAGE_CHILDREN) - children_before, _cpu(resource.RUSAGE_SELF) - self_before)
    tools: dict[str, int] = {}
    for name, result in results.items():
        if not isinstance(result, Snapshot):
            raise RuntimeError(f"{name}: the snapshot failed: {result}")
        tools[name] = len(result.tools)
    return wall, cpu, tools


async def run(reps: int, timeout: float) -> list[Row]:
    servers = launches()
    _, _, counts = await snapshot_timed(servers, timeout)  # warm-up: bytecode caches, node's module cache
    print("  servers: " + ", ".join(f"{name} ({count} tools)" for name, count in counts.items()), flush=True)
    if any(count == 0 for count in counts.values()):
        raise RuntimeError(f"a server listed no tools: {counts}")

    parallel: list[float] = []
    parallel_cpu: list[tuple[float, float]] = []
    alone: dict[str, list[float]] = {name: [] for name in servers}
    for rep in range(reps):
        parallel_first = rep % 2 == 0
        for step in ("parallel", "alone") if parallel_first else ("alone", "parallel"):
            if step == "parallel":
                wall, cpu, tools = await snapshot_timed(servers, timeout)
                if tools != counts:
                    raise RuntimeError(f"the parallel snapshots differ from the first ones: {tools} != {counts}")
                parallel.append(wall)
                parallel_cpu.append(cpu)
                continue
            for name in list(servers) if parallel_first else list(reversed(servers)):
                wall, _, tools = await snapshot_timed({name: servers[name]}, timeout)
                if tools[name] != counts[name]:
                    raise RuntimeError(f"{name}: {tools[name]} tools alone, {counts[name]} before")
                alone[name].append(wall)
        print(
            f"  rep {rep + 1}/{reps}: parallel {fmt_seconds(parallel[-1])}; alone "
            + ", ".join(f"{name} {fmt_seconds(values[-1])}" for name, values in alone.items()),
            flush=True,
        )

    medians = {name: median(values) for name, values in alone.items()}
    slowest_name = max(medians, key=lambda name: medians[name])
    slowest = medians[slowest_name]
    total = sum(medians.values())
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    servers_cpu = median([cpu[0] for cpu in parallel_cpu])
    client_cpu = median([cpu[1] for cpu in parallel_cpu])
    floor = (servers_cpu + client_cpu) / cores
    print(f"\nmedians (min–max) of {reps}:")
    print(f"  {'4 servers in parallel':24} {spread(parallel)}")
    for name, values in alone.items():
        print(f"  {name + ' alone':24} {spread(values)}")
    print(f"  slowest alone: {slowest_name} {fmt_seconds(slowest)}; sum of the 4 alone: {fmt_seconds(total)}")
    print(f"  parallel / slowest {median(parallel) / slowest:.2f}; parallel / sum {median(parallel) / total:.2f}")
    print(
        f"  CPU time of a parallel run: the 4 servers {fmt_seconds(servers_cpu)}, this process (the 4 clients) "
        f"{fmt_seconds(client_cpu)}; over {cores} cores that is at least {fmt_seconds(floor)} of wall time "
        f"(CPU floor / slowest = {floor / slowest:.2f}, parallel / CPU floor = {median(parallel) / floor:.2f})"
    )
    return [
        Row(
            "snapshot 4 stdio servers in parallel",
            median(parallel),
            slowest,
            "s",
            TARGET,
            baseline_label=f"slowest alone ({slowest_name}); sum {total:.2f} s",
        )  # fmt: skip
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0, help="per-server timeout of snapshot_many (seconds)")
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    import anyio

    print(f"bench_multi: {arguments.reps} interleaved repetitions", flush=True)
    rows = anyio.run(run, arguments.reps, arguments.timeout)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
