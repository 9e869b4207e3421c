"""Run the benchmarks and print one Markdown table, each ratio against its target: PASS or MISS.

Each script runs in its own process (its full report is streamed through), writes its rows as JSON,
and the rows are collected into a single table: benchmark, ours, baseline, ratio, target, result. The
machine's load average is printed at the start and the end (every ratio is measured side by side in
one run, but a loaded machine moves them: quote the load with the figures).

    python benchmarks/run_all.py [--only generate,real,import,call,...] [--quick] [--output FILE.md] [--no-profile]

`--quick` runs the headline targets only, with fewer repetitions (a few minutes): regeneration of the
ms-365 listing (cold, two tools changed, unchanged), a typed call against a raw `call_tool`, the import of
a large package, and code mode (demo and ms-365, FastMCP beside it). `--only` with `--quick` narrows it.

A script that misses a target still reports its rows (some exit non-zero then); a script is listed as failed
only when it wrote no rows. Exit status 0 when every ratio meets its target, 1 otherwise (every miss is
listed after the table).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENCHMARKS, markdown_table  # noqa: E402

SCRIPTS = {
    "generate": "bench_generate.py",
    "real": "bench_real.py",
    "import": "bench_import.py",
    "call": "bench_call.py",
    "drift": "bench_drift.py",
    "adapters": "bench_adapters.py",
    "multi": "bench_multi.py",
    "handshake": "bench_handshake.py",
    "toolkit": "bench_toolkit.py",
    "fake": "bench_fake.py",
    "cli": "bench_cli.py",
    "telemetry": "bench_telemetry.py",
    "search": "bench_search.py",
    "temporal": "bench_temporal.py",
    "code": "bench_code_mode.py",
}
#: `--quick`: the headline targets, each script with fewer repetitions.
QUICK: dict[str, list[str]] = {
    "real": ["--reps", "3", "--listings", "ms365"],
    "call": ["--calls", "600"],
    "import": ["--reps", "5"],
    "code": ["--quick"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated subset of: " + ", ".join(SCRIPTS))
    parser.add_argument("--output", type=Path, help="also write the table (and machine details) to this file")
    parser.add_argument("--no-profile", action="store_true", help="skip bench_generate's profiling run")
    parser.add_argument(
        "--quick", action="store_true", help="the headline targets, fewer repetitions: " + ", ".join(QUICK)
    )
    arguments = parser.parse_args()
    if arguments.only is None:
        arguments.only = ",".join(QUICK if arguments.quick else SCRIPTS)
    keys = [key.strip() for key in arguments.only.split(",") if key.strip()]
    unknown = [key for key in keys if key not in SCRIPTS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)} (choose from {', '.join(SCRIPTS)})")

    rows: list[dict[str, object]] = []
    failed: list[str] = []
    started = time.perf_counter()
    load_before = _load()
    print(f"load average at the start: {load_before} ({_cpus()} CPUs)", flush=True)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bench-") as directory:
        for key in keys:
            script = BENCHMARKS / SCRIPTS[key]
            result = Path(directory) / f"{key}.json"
            command = [sys.executable, str(script), "--json", str(result)]
            if key == "generate" and (arguments.no_profile or arguments.quick):
                command.append("--no-profile")
            if arguments.quick:
                command += QUICK.get(key, [])
            print(f"\n===== {script.name} =====", flush=True)
            began = time.perf_counter()
            completed = subprocess.run(command, check=False)
            print(f"({script.name} took {time.perf_counter() - began:.0f} s)", flush=True)
            if not result.exists():
                failed.append(f"{script.name} (exit status {completed.returncode})")
                continue
            rows.extend(json.loads(result.read_text(encoding="utf-8")))

    import mcp_codegen

    details = (
        f"mcp-codegen {mcp_codegen.__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"{_cpus()} CPUs; total {time.perf_counter() - started:.0f} s; load average {load_before} at the start, "
        f"{_load()} at the end. Ratio = ours / baseline, medians of interleaved repetitions in one run."
    )
    table = markdown_table(rows)
    print("\n===== summary =====\n")
    print(table)
    print(f"\n{details}")
    targeted = [row for row in rows if float(str(row["target"])) != float("inf")]
    missed = [row for row in targeted if not row["pass"]]
    print(f"\n{len(targeted) - len(missed)} of {len(targeted)} targets met")
    for row in missed:
        print(f"  MISS {row['benchmark']}: {float(str(row['ratio'])):.2f} against a target of {row['target']}")
    if failed:
        print(f"\nscripts that failed: {', '.join(failed)}")
    if arguments.output:
        arguments.output.write_text(table + "\n\n" + details + "\n", encoding="utf-8")
    return 0 if rows and not failed and all(row["pass"] for row in rows) else 1


def _load() -> str:
    import os

    try:
        return " / ".join(f"{value:.1f}" for value in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        return "unknown"


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


if __name__ == "__main__":
    sys.exit(main())
