"""The generated command line (`generate --cli`): `--help` of a 300-tool package, and a call vs the same call in Python.

* help: a 300-tool package (make_tools.py's tools) generated with `--cli`; fresh interpreters run
  `python -m bench_client --help`, 7 times (bytecode caches written by a warm-up). Absolute budget: 0.5 s.
  For context: `python -c "import bench_client"` in the same rounds (the floor: `python -m` imports the package).
* call: the demo package generated with `--cli` from the demo server over stdio; each side starts the server
  through the launch recorded at generation, calls `get_weather(city="Paris")` and prints the result as JSON:
  ours `python -m demo_cli get_weather --city Paris`; baseline a short script, `with Client.connect() as client:
  print(json.dumps(client.get_weather(city="Paris").model_dump(mode="json")))`. Interleaved (order alternating),
  5 times each; target ratio <= 1.2.

Bytecode caches are on for the children (PYTHONDONTWRITEBYTECODE removed), as on a user's machine.

    python benchmarks/bench_cli.py [--reps 7] [--call-reps 5] [--tools 300] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, Row, emit, executable, fmt_seconds, median, python_env, run_timed, spread  # noqa: E402
from make_tools import write_inputs  # noqa: E402

HELP_BUDGET = 0.5
CALL_TARGET = 1.2
PACKAGE = "bench_client"
DEMO = "demo_cli"

SCRIPT = """\
import json

from demo_cli import Client

with Client.connect() as client:
    print(json.dumps(client.get_weather(city="Paris").model_dump(mode="json"), indent=2))
"""


def child_env(path: Path) -> dict[str, str]:
    env = python_env(path)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def bench_help(work: Path, tools: int, reps: int) -> Row:
    snapshot, _ = write_inputs(tools, work)
    output = work / "out" / PACKAGE
    generate = [executable("mcp-codegen"), "generate", "-q", "--cli", "--snapshot", str(snapshot), "-o", str(output)]
    run_timed(generate, cwd=work)
    env = child_env(output.parent)
    help_command = [sys.executable, "-m", PACKAGE, "--help"]
    import_command = [sys.executable, "-c", f"import {PACKAGE}"]
    _, completed = run_timed(help_command, env=env)  # warm-up: bytecode caches
    listed = sum(1 for line in completed.stdout.splitlines() if line.startswith("  ") and "_v0" in line)
    run_timed(import_command, env=env)
    helps: list[float] = []
    imports: list[float] = []
    for rep in range(reps):
        pair = [(helps, help_command), (imports, import_command)]
        if rep % 2:
            pair.reverse()
        for sink, command in pair:
            sink.append(run_timed(command, env=env)[0].wall)
        print(f"  rep {rep + 1}/{reps}: --help {fmt_seconds(helps[-1])}, import {fmt_seconds(imports[-1])}", flush=True)
    print(f"\n{PACKAGE} --help listed {listed} of {tools} tools")
    print(f"  python -m {PACKAGE} --help   {spread(helps)}")
    print(f"  python -c 'import {PACKAGE}'  {spread(imports)}  (the floor: `python -m` imports the package)")
    return Row(
        f"cli: `--help`, {tools} tools",
        median(helps),
        HELP_BUDGET,
        "s",
        1.0,
        baseline_label="budget",
        note=f"import alone {fmt_seconds(median(imports))}",
    )


def bench_call(work: Path, reps: int) -> Row:
    output = work / "demo" / DEMO
    command = shlex.join([sys.executable, "-m", "mcp_codegen.demo"])
    generate = [executable("mcp-codegen"), "generate", "-q", "--cli", "--stdio", command, "-o", str(output)]
    run_timed(generate, cwd=ROOT)
    script = work / "demo" / "call.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = child_env(output.parent)
    ours_command = [sys.executable, "-m", DEMO, "get_weather", "--city", "Paris"]
    baseline_command = [sys.executable, str(script)]
    _, first = run_timed(ours_command, env=env)  # warm-up (bytecode caches), and both print the same JSON
    _, second = run_timed(baseline_command, env=env)
    if json.loads(first.stdout) != json.loads(second.stdout):
        raise RuntimeError(f"different results:\n{first.stdout}\n{second.stdout}")
    ours: list[float] = []
    baseline: list[float] = []
    for rep in range(reps):
        pair = [(ours, ours_command), (baseline, baseline_command)]
        if rep % 2:
            pair.reverse()
        for sink, line in pair:
            sink.append(run_timed(line, env=env)[0].wall)
        print(f"  rep {rep + 1}/{reps}: command line {fmt_seconds(ours[-1])}, script {fmt_seconds(baseline[-1])}")
    print(f"\n  python -m {DEMO} get_weather --city Paris   {spread(ours)}")
    print(f"  python call.py (Client.connect())          {spread(baseline)}")
    return Row(
        "cli: a call (stdio demo server, process start to result)",
        median(ours),
        median(baseline),
        "s",
        CALL_TARGET,
        baseline_label="the same call from a short Python script",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--call-reps", type=int, default=5)
    parser.add_argument("--tools", type=int, default=300)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-cli-"))
    try:
        print(f"bench_cli: --help of a {arguments.tools}-tool package ...", flush=True)
        rows = [bench_help(work, arguments.tools, arguments.reps)]
        print("\nbench_cli: a call through the command line vs a Python script ...", flush=True)
        rows.append(bench_call(work, arguments.call_reps))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)
    if not all(row.passed for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
