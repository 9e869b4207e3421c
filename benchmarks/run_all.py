"""Run every benchmark and print one Markdown table (the one the README quotes).

Each script runs in its own process (its full report is streamed through), writes its rows as JSON,
and the rows are collected into a single table: benchmark, ours, baseline, ratio, target, result.

    python benchmarks/run_all.py [--only generate,real,import,call,drift,adapters,multi,handshake,toolkit,fake,search,code]
        [--output FILE.md] [--no-profile]

A script that misses a target still reports its rows (some exit non-zero then); a script is listed as failed
only when it wrote no rows. Exit status 0 when every ratio meets its target, 1 otherwise.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(SCRIPTS), help="comma-separated subset of: " + ", ".join(SCRIPTS))
    parser.add_argument("--output", type=Path, help="also write the table (and machine details) to this file")
    parser.add_argument("--no-profile", action="store_true", help="skip bench_generate's profiling run")
    arguments = parser.parse_args()
    keys = [key.strip() for key in arguments.only.split(",") if key.strip()]
    unknown = [key for key in keys if key not in SCRIPTS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)} (choose from {', '.join(SCRIPTS)})")

    rows: list[dict[str, object]] = []
    failed: list[str] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-bench-") as directory:
        for key in keys:
            script = BENCHMARKS / SCRIPTS[key]
            result = Path(directory) / f"{key}.json"
            command = [sys.executable, str(script), "--json", str(result)]
            if key == "generate" and arguments.no_profile:
                command.append("--no-profile")
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
        f"{_cpus()} CPUs; total {time.perf_counter() - started:.0f} s. Ratio = ours / baseline, medians of "
        "interleaved repetitions in one run."
    )
    table = markdown_table(rows)
    print("\n===== summary =====\n")
    print(table)
    print(f"\n{details}")
    if failed:
        print(f"\nscripts that failed: {', '.join(failed)}")
    if arguments.output:
        arguments.output.write_text(table + "\n\n" + details + "\n", encoding="utf-8")
    return 0 if rows and not failed and all(row["pass"] for row in rows) else 1


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


if __name__ == "__main__":
    sys.exit(main())
