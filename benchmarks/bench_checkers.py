"""How long each type checker takes over the ms-365 package (344 tools): `mypy --strict`, pyright (strict), ty.

The package is generated from `data/ms365_0.155.0.snapshot.json.gz`, then each checker runs over it (the whole
package, `code_api.pyi` included) `--reps` times, interleaved, with no cache (mypy `--no-incremental`; pyright
and ty keep none between runs). Reported: the median wall time and CPU time (user + system of the checker's
processes) of each, and the checkers' versions. Each run must find no error. A report, not a target: the figures
are quoted in docs/explanation/speed.md and the README.

    python benchmarks/bench_checkers.py [--reps 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENCHMARKS, Timing, executable, fmt_seconds, median, run_timed  # noqa: E402

MS365 = BENCHMARKS / "data" / "ms365_0.155.0.snapshot.json.gz"
PACKAGE = "ms365_client"


def commands(root: Path) -> dict[str, list[str]]:
    environment = str(Path(sys.executable).parent.parent)
    return {
        "mypy --strict": [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", PACKAGE],
        "pyright (strict)": [sys.executable, "-m", "pyright", PACKAGE],
        "ty": [executable("ty"), "check", "--project", str(root), "--python", environment, "--output-format",
               "concise", "--error-on-warning", PACKAGE],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-checkers-"))
    try:
        snapshot = work / "ms365.snapshot.json"
        snapshot.write_bytes(gzip.decompress(MS365.read_bytes()))
        made, _ = run_timed(
            [executable("mcp-codegen"), "generate", "-q", "--snapshot", str(snapshot), "-o", str(work / PACKAGE)]
        )
        print(f"generated {PACKAGE} in {fmt_seconds(made.wall)}")
        (work / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
        timings: dict[str, list[Timing]] = {name: [] for name in commands(work)}
        for _ in range(arguments.reps):
            for name, command in commands(work).items():
                timing, _ = run_timed(command, cwd=work)  # a checker's error is a non-zero exit: it raises
                timings[name].append(timing)
        versions = {"mypy --strict": version("mypy"), "pyright (strict)": version("pyright"), "ty": version("ty")}
        print("\n| checker | version | wall | CPU |\n|---|---|---:|---:|")
        for name, runs in timings.items():
            wall, cpu = median([t.wall for t in runs]), median([t.cpu for t in runs])
            print(f"| {name} | {versions[name]} | {fmt_seconds(wall)} | {fmt_seconds(cpu)} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
