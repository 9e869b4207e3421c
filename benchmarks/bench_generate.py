"""Generation time: `mcp-codegen generate` vs datamodel-code-generator's own MCP mode (the floor).

For N = 10, 100, 500 realistic tools (see make_tools.py), each repetition runs, as cold subprocesses:

* floor: `datamodel-codegen --input tools.json --input-file-type mcp-tools --output out.py
  --output-model-type pydantic_v2.BaseModel --formatters builtin` (models only, one module);
* ours, cold: `mcp-codegen generate --snapshot snap.json -o <fresh dir>/pkg --overwrite` (a whole package,
  with an empty model cache);
* ours, one tool changed: a property added to one tool's input schema, regenerated into that directory
  (the model cache holds the other tools' results from the cold run);
* ours, unchanged: the same command again into the now up-to-date directory (the "daily CI" case,
  skipped through the manifest).

The order of floor and ours rotates between repetitions. Reported: wall-time medians and the ratios
ours_cold / floor (target <= 1.2), one changed / floor (target <= 0.25) and ours_unchanged / floor (target <= 0.1). Child CPU times are shown
too (less sensitive to a busy machine). Then, for N=500, where our time goes: stage timers around the
pipeline and a cProfile summary (both in a separate process, after the timed runs).

    python benchmarks/bench_generate.py [--reps 3] [--sizes 10,100,500] [--no-profile] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, Timing, emit, executable, fmt_seconds, median, python_env, run_timed, spread  # noqa: E402
from make_tools import write_inputs  # noqa: E402

COLD_TARGET = 1.2
CHANGED_TARGET = 0.25
UNCHANGED_TARGET = 0.1


def with_one_tool_changed(snapshot: Path) -> Path:
    """A copy of `snapshot` in which the middle tool's input schema has one more property."""
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    schema = data["tools"][len(data["tools"]) // 2]["inputSchema"]
    schema["properties"] = {**schema.get("properties", {}), "added_by_the_benchmark": {"type": "integer"}}
    changed = snapshot.with_name("snap_changed.json")
    changed.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return changed


def floor_command(listing: Path, output: Path) -> list[str]:
    return [
        executable("datamodel-codegen"),
        "--input", str(listing),
        "--input-file-type", "mcp-tools",
        "--output", str(output),
        "--output-model-type", "pydantic_v2.BaseModel",
        "--formatters", "builtin",
    ]  # fmt: skip


def ours_command(snapshot: Path, output: Path) -> list[str]:
    return [executable("mcp-codegen"), "generate", "--snapshot", str(snapshot), "-o", str(output), "--overwrite"]


def bench_size(count: int, reps: int, work: Path) -> dict[str, list[Timing]]:
    directory = work / f"n{count}"
    snapshot, listing = write_inputs(count, directory)
    changed = with_one_tool_changed(snapshot)
    env = python_env()
    results: dict[str, list[Timing]] = {"floor": [], "cold": [], "one tool changed": [], "unchanged": []}

    def floor(rep: int) -> None:
        output = directory / f"floor_{rep}.py"
        timing, _ = run_timed(floor_command(listing, output), cwd=directory, env=env)
        if not output.is_file() or "class " not in output.read_text(encoding="utf-8"):
            raise RuntimeError("datamodel-codegen wrote no models")
        results["floor"].append(timing)

    def ours(rep: int) -> None:
        package = directory / f"ours_{rep}" / "pkg"  # a fresh directory every repetition
        cold_env = {**env, "MCP_CODEGEN_CACHE_DIR": str(directory / f"cache_{rep}")}  # and an empty model cache
        timing, completed = run_timed(ours_command(snapshot, package), cwd=directory, env=cold_env)
        if " error: " in completed.stderr or "wrote " not in completed.stderr:
            raise RuntimeError(f"mcp-codegen generate did not write cleanly:\n{completed.stderr[-2000:]}")
        results["cold"].append(timing)
        timing, completed = run_timed(ours_command(changed, package), cwd=directory, env=cold_env)
        if "wrote " not in completed.stderr:
            raise RuntimeError(f"the changed listing was not written:\n{completed.stderr[-2000:]}")
        results["one tool changed"].append(timing)
        timing, completed = run_timed(ours_command(changed, package), cwd=directory, env=cold_env)
        if "up to date" not in completed.stderr:
            raise RuntimeError(f"the unchanged regeneration was not skipped:\n{completed.stderr[-2000:]}")
        results["unchanged"].append(timing)
        shutil.rmtree(package.parent, ignore_errors=True)

    for rep in range(reps):
        steps = (floor, ours) if rep % 2 == 0 else (ours, floor)
        for step in steps:
            step(rep)
        print(
            f"  N={count} rep {rep + 1}/{reps}: floor {fmt_seconds(results['floor'][-1].wall)}, "
            f"ours cold {fmt_seconds(results['cold'][-1].wall)}, "
            f"one changed {fmt_seconds(results['one tool changed'][-1].wall)}, "
            f"unchanged {fmt_seconds(results['unchanged'][-1].wall)}",
            flush=True,
        )
    return results


# --------------------------------------------------------------------------------------------------
# Where the time goes (run in a child process: `bench_generate.py --profile-child SNAPSHOT WORKDIR`)
# --------------------------------------------------------------------------------------------------

_STAGES = (
    "plan_tools",
    "datamodel_document",
    "run_datamodel_codegen",
    "split_models",
    "build_client_spec",
    "render_package",
    "format_python",
    "runtime_files",
    "input_hash",
    "manifest_bytes",
)


def profile_child(snapshot_path: Path, work: Path, use_cprofile: bool) -> None:
    started = time.perf_counter()
    import mcp_codegen.cli  # noqa: F401  (what the command imports before doing anything)
    from mcp_codegen.diagnostics import Diagnostics
    from mcp_codegen.generate import pipeline
    from mcp_codegen.generate.fingerprint import generator_fingerprint
    from mcp_codegen.output.write import is_current, write_package
    from mcp_codegen.snapshot.model import read_snapshot

    imported = time.perf_counter() - started
    totals: dict[str, float] = {}

    def timed(name: str):  # type: ignore[no-untyped-def]
        function = getattr(pipeline, name)

        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            begin = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                totals[name] = totals.get(name, 0.0) + time.perf_counter() - begin

        return wrapper

    if not use_cprofile:
        for name in _STAGES:
            if hasattr(pipeline, name):
                setattr(pipeline, name, timed(name))

    begin = time.perf_counter()
    snapshot = read_snapshot(snapshot_path)
    read = time.perf_counter() - begin
    package = work / "profiled" / "pkg"

    if use_cprofile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        files = pipeline.generate_files(snapshot, package_name="pkg", diagnostics=Diagnostics())
        profiler.disable()
        stats = pstats.Stats(profiler)
        _print_by_package(stats)
        print("\n  top functions by own time (cProfile inflates pure-Python code):")
        _print_top(stats, "tottime", 15)
        print("\n  top mcp_codegen functions by cumulative time:")
        _print_top(stats, "cumulative", 12, only="mcp_codegen")
        return

    begin = time.perf_counter()
    files = pipeline.generate_files(snapshot, package_name="pkg", diagnostics=Diagnostics())
    generated = time.perf_counter() - begin
    begin = time.perf_counter()
    write_package(package, files, overwrite=True)
    written = time.perf_counter() - begin

    # The unchanged path, as the CLI runs it (fresh caches are not possible in-process: the
    # generator fingerprint is cached, so time it through a new function call on a cleared cache).
    generator_fingerprint.cache_clear()
    begin = time.perf_counter()
    fingerprint = generator_fingerprint()
    fingerprinted = time.perf_counter() - begin
    begin = time.perf_counter()
    again = read_snapshot(snapshot_path)
    reread = time.perf_counter() - begin
    begin = time.perf_counter()
    digest = pipeline.input_hash(again, "pkg")
    hashed = time.perf_counter() - begin
    begin = time.perf_counter()
    current = is_current(package, digest)
    checked = time.perf_counter() - begin
    assert fingerprint and current, "the regenerated package should be up to date"

    lines = sum(data.count(b"\n") for path, data in files.items() if path.endswith(".py"))
    print(f"  cold path ({len(snapshot.tools)} tools -> {len(files)} files, {lines} lines of Python):")
    print(f"    {'import mcp_codegen.cli + pipeline':36} {fmt_seconds(imported):>10}")
    print(f"    {'read_snapshot':36} {fmt_seconds(read):>10}")
    print(f"    {'generate_files (total)':36} {fmt_seconds(generated):>10}")
    for name in _STAGES:
        if name in totals:
            share = 100 * totals[name] / generated
            print(f"      {name:34} {fmt_seconds(totals[name]):>10}  {share:5.1f}%")
    print(f"    {'write_package':36} {fmt_seconds(written):>10}")
    print("  unchanged path (after interpreter start-up and imports):")
    print(f"    {'read_snapshot':36} {fmt_seconds(reread):>10}")
    print(f"    {'generator_fingerprint (uncached)':36} {fmt_seconds(fingerprinted):>10}")
    print(f"    {'input_hash (fingerprint cached)':36} {fmt_seconds(hashed):>10}")
    print(f"    {'is_current (hash every file)':36} {fmt_seconds(checked):>10}")


def _package_of(filename: str) -> str:
    for marker in ("datamodel_code_generator", "mcp_codegen", "pydantic_core", "pydantic", "jinja2", "black", "ruff"):
        if f"/{marker}/" in filename:
            return marker
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C)"
    if "/lib/python3" in filename and "site-packages" not in filename:
        return "stdlib: " + Path(filename).stem
    return "other"


def _print_by_package(stats: object) -> None:
    totals: dict[str, float] = {}
    entries = stats.stats  # type: ignore[attr-defined]
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in entries.items():
        key = _package_of(filename)
        totals[key] = totals.get(key, 0.0) + tottime
    whole = sum(totals.values())
    print(f"  own time by package (cProfile, generate_files total {fmt_seconds(whole)}):")
    for key, value in sorted(totals.items(), key=lambda item: -item[1])[:10]:
        print(f"    {key:36} {fmt_seconds(value):>10}  {100 * value / whole:5.1f}%")


def _print_top(stats: object, key: str, count: int, only: str | None = None) -> None:
    entries = stats.stats  # type: ignore[attr-defined]
    index = {"tottime": 2, "cumulative": 3}[key]
    rows = sorted(entries.items(), key=lambda item: -item[1][index])
    shown = 0
    for (filename, line, name), values in rows:
        if only is not None and f"/{only}/" not in filename:
            continue
        where = filename.split("site-packages/")[-1].split("/src/")[-1]
        print(f"    {fmt_seconds(values[index]):>10}  {values[1]:>8} calls  {name}  ({where}:{line})")
        shown += 1
        if shown == count:
            break


def profile(count: int, work: Path) -> None:
    directory = work / f"profile_n{count}"
    snapshot, _ = write_inputs(count, directory)
    print(f"\nWhere mcp-codegen spends its time for N={count} (one run each, in-process):")
    for flag in ([], ["--cprofile"]):
        completed = subprocess.run(
            [sys.executable, __file__, "--profile-child", str(snapshot), str(directory), *flag],
            capture_output=True,
            text=True,
            env=python_env(),
            cwd=directory,
            check=False,
        )
        print(completed.stdout.rstrip())
        if completed.returncode != 0:
            print(f"  (profiling failed: {completed.stderr.strip().splitlines()[-1:]})")
    # Start-up cost of the command itself, which bounds the unchanged case from below.
    env = python_env()
    startup = [run_timed([sys.executable, "-c", "pass"], env=env)[0].wall for _ in range(3)]
    imports = [run_timed([sys.executable, "-c", "import mcp_codegen.cli"], env=env)[0].wall for _ in range(3)]
    cli = [run_timed([executable("mcp-codegen"), "--version"], env=env)[0].wall for _ in range(3)]
    print("  start-up (median of 3): "
          f"`python -c pass` {fmt_seconds(median(startup))}, "
          f"`python -c 'import mcp_codegen.cli'` {fmt_seconds(median(imports))}, "
          f"`mcp-codegen --version` {fmt_seconds(median(cli))}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sizes", default="10,100,500")
    parser.add_argument("--profile-size", type=int, default=500)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile-child", nargs=2, metavar=("SNAPSHOT", "WORKDIR"), help=argparse.SUPPRESS)
    parser.add_argument("--cprofile", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.profile_child:
        profile_child(Path(arguments.profile_child[0]), Path(arguments.profile_child[1]), arguments.cprofile)
        return

    sizes = [int(size) for size in arguments.sizes.split(",")]
    rows: list[Row] = []
    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-generate-"))
    try:
        print(f"bench_generate: {arguments.reps} interleaved repetitions per size, cold subprocesses")
        details = []
        for count in sizes:
            results = bench_size(count, arguments.reps, work)
            floor = median([t.wall for t in results["floor"]])
            cold = median([t.wall for t in results["cold"]])
            changed = median([t.wall for t in results["one tool changed"]])
            unchanged = median([t.wall for t in results["unchanged"]])
            rows.append(Row(f"generate, {count} tools, cold", cold, floor, "s", COLD_TARGET,
                            baseline_label="datamodel-codegen mcp-tools"))  # fmt: skip
            rows.append(Row(f"generate, {count} tools, one tool changed", changed, floor, "s", CHANGED_TARGET,
                            baseline_label="datamodel-codegen mcp-tools"))  # fmt: skip
            rows.append(Row(f"generate, {count} tools, unchanged", unchanged, floor, "s", UNCHANGED_TARGET,
                            baseline_label="datamodel-codegen mcp-tools"))  # fmt: skip
            for key in ("floor", "cold", "one tool changed", "unchanged"):
                walls = [t.wall for t in results[key]]
                cpus = [t.cpu for t in results[key]]
                details.append(f"  N={count:<4} {key:16} wall {spread(walls):32} cpu {fmt_seconds(median(cpus))}")
            cpu_ratio = median([t.cpu for t in results["cold"]]) / median([t.cpu for t in results["floor"]])
            details.append(f"  N={count:<4} cold/floor by CPU time: {cpu_ratio:.2f}")
        print("\nmedians (min–max):")
        print("\n".join(details))
        if not arguments.no_profile:
            profile(arguments.profile_size, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
