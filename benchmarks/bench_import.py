"""Import time of a generated 300-tool package vs `import mcp` (the SDK it wraps).

A 300-tool package is generated from make_tools.py's tools, then fresh interpreters run, interleaved
(the order alternates every repetition), 7 times each:

* ours:     `python -c "import bench_client"` (PYTHONPATH pointing at the generated package's parent);
* baseline: `python -c "import mcp"`.

Both sides are imported once first, so bytecode caches exist and no side pays for compiling. Reported:
medians and their ratio (target <= 0.3). For context (not part of the target): `python -c pass`, and
the cost of loading every tool's models (they are imported lazily, on first use). Then the top offenders
of `python -X importtime -c "import bench_client"`.

    python benchmarks/bench_import.py [--reps 7] [--tools 300] [--json FILE]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, executable, fmt_seconds, median, python_env, run_timed, spread  # noqa: E402
from make_tools import write_inputs  # noqa: E402

TARGET = 0.3
PACKAGE = "bench_client"


def generate(count: int, work: Path) -> Path:
    snapshot, _ = write_inputs(count, work)
    output = work / "out" / PACKAGE
    run_timed([executable("mcp-codegen"), "generate", "-q", "--snapshot", str(snapshot), "-o", str(output)], cwd=work)
    return output.parent


def importtime(code: str, env: dict[str, str], top: int) -> None:
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    rows = []
    for line in completed.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, self_us, cumulative_us, name = _split(line)
        rows.append((int(self_us), int(cumulative_us), name))
    total = sum(row[0] for row in rows)
    print(f"\n`python -X importtime -c {code!r}`: {len(rows)} modules, {fmt_seconds(total / 1e6)} of self time")
    print("  top by self time:")
    for self_us, cumulative_us, name in sorted(rows, key=lambda row: -row[0])[:top]:
        print(
            f"    {fmt_seconds(self_us / 1e6):>10} self  {fmt_seconds(cumulative_us / 1e6):>10} cumulative  {name.strip()}"
        )
    print("  top-level imports by cumulative time (what the package pulls in):")
    top_level = [row for row in rows if not row[2].startswith(" ")]
    for _self_us, cumulative_us, name in sorted(top_level, key=lambda row: -row[1])[:top]:
        print(f"    {fmt_seconds(cumulative_us / 1e6):>10} cumulative  {name}")
    ours = [row for row in rows if row[2].strip().startswith(PACKAGE)]
    print(
        f"  the package's own {len(ours)} modules: {fmt_seconds(sum(r[0] for r in ours) / 1e6)} self time; "
        "largest: "
        + ", ".join(f"{r[2].strip()} {fmt_seconds(r[0] / 1e6)}" for r in sorted(ours, key=lambda r: -r[0])[:4])
    )


def _split(line: str) -> tuple[str, str, str, str]:
    body = line[len("import time:") :]
    self_us, cumulative_us, name = body.split("|", 2)
    # One space after the bar, then two more per nesting level: keep only the nesting indentation.
    return "", self_us.strip(), cumulative_us.strip(), name.rstrip().removeprefix(" ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--tools", type=int, default=300)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-import-"))
    try:
        print(f"bench_import: generating a {arguments.tools}-tool package ...", flush=True)
        parent = generate(arguments.tools, work)
        env = python_env(parent)
        ours_code = f"import {PACKAGE}"
        baseline_code = "import mcp"
        models_code = (
            f"import importlib, pkgutil, {PACKAGE}.models as m\n"
            "for info in pkgutil.iter_modules(m.__path__): importlib.import_module(f'{m.__name__}.{info.name}')"
        )
        modules = sum(1 for path in (parent / PACKAGE / "models").glob("*.py") if path.name != "__init__.py")
        for code in (ours_code, baseline_code, models_code):  # warm-up: write bytecode caches
            run_timed([sys.executable, "-c", code], env=env)

        ours: list[float] = []
        baseline: list[float] = []
        bare: list[float] = []
        for rep in range(arguments.reps):
            pair = [(ours, ours_code), (baseline, baseline_code)]
            if rep % 2:
                pair.reverse()
            for sink, code in [*pair, (bare, "pass")]:
                sink.append(run_timed([sys.executable, "-c", code], env=env)[0].wall)
            print(
                f"  rep {rep + 1}/{arguments.reps}: import {PACKAGE} {fmt_seconds(ours[-1])}, import mcp {fmt_seconds(baseline[-1])}",
                flush=True,
            )
        all_models = [run_timed([sys.executable, "-c", models_code], env=env)[0].wall for _ in range(3)]

        print("\nmedians (min–max):")
        print(f"  import {PACKAGE:14} {spread(ours)}")
        print(f"  import mcp{'':13} {spread(baseline)}")
        print(f"  python -c pass{'':9} {spread(bare)}")
        print(
            f"  for context: importing all {modules} model modules (every tool's models; normally lazy): "
            f"{fmt_seconds(median(all_models))}"
        )
        importtime(ours_code, env, arguments.top)
        row = Row(
            f"import a {arguments.tools}-tool package",
            median(ours) * 1e3,
            median(baseline) * 1e3,
            "ms",
            TARGET,
            baseline_label="import mcp",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit([row], arguments.json)


if __name__ == "__main__":
    main()
