"""Helpers shared by the benchmark scripts: timing subprocesses, medians, ratios and result rows.

Every benchmark measures our number and its baseline in the same run, interleaved (the machine is
shared and noisy), and reports the ratio of medians. A script given `--json FILE` also writes its
rows there for `run_all.py`.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds
    cpu: float  # seconds of user + system time of the child process


@dataclass
class Row:
    """One line of the summary table."""

    benchmark: str
    ours: float
    baseline: float
    unit: str  # "s", "ms" or "µs"
    target: float  # the ratio must be at most this
    ours_label: str = "mcp-codegen"
    baseline_label: str = ""
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.ours / self.baseline if self.baseline else float("inf")

    @property
    def passed(self) -> bool:
        return self.ratio <= self.target

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio, "pass": self.passed}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(
    command: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[Timing, subprocess.CompletedProcess[str]]:
    """Run `command` to completion; wall time and the child's CPU time. Fails loudly on a non-zero exit."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    completed = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    if completed.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} exited {completed.returncode}:\n{completed.stderr[-2000:]}{completed.stdout[-500:]}"
        )
    return Timing(wall, cpu), completed


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def spread(values: Sequence[float]) -> str:
    """`median (min–max)` in the most readable unit, for the per-benchmark report."""
    return f"{fmt_seconds(median(values))} ({fmt_seconds(min(values))}–{fmt_seconds(max(values))})"


def fmt_seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.0f} µs"


def scale(seconds: float, unit: str) -> float:
    return seconds * {"s": 1.0, "ms": 1e3, "µs": 1e6}[unit]


def python_env(extra_path: Path | None = None) -> dict[str, str]:
    """The environment for child Pythons: no user site tweaks, bytecode cached, optional PYTHONPATH entry."""
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    # Bytecode caches written, as for an installed package: else a source checkout compiles itself every run,
    # while the baselines in site-packages load theirs.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(extra_path), env.get("PYTHONPATH", "")]))
    return env


def executable(name: str) -> str:
    """A console script installed next to this Python (mcp-codegen, datamodel-codegen)."""
    candidate = Path(sys.executable).with_name(name)
    if candidate.exists():
        return str(candidate)
    import shutil

    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is not installed")
    return found


def generate_package(snapshot: dict[str, Any], root: Path, name: str) -> ModuleType:
    """Generate a client package from a snapshot dict, in process, into `root/name`, and import it.

    The same pipeline as `mcp-codegen generate --snapshot` (what tests/agent_adapters/conftest.py does);
    `root` is put on `sys.path`. Use a `name` no other benchmark imports in the same process.
    """
    from mcp_codegen.diagnostics import Diagnostics
    from mcp_codegen.generate.pipeline import generate_files
    from mcp_codegen.output.write import write_package
    from mcp_codegen.snapshot.model import Snapshot

    files = generate_files(Snapshot.from_json(snapshot), package_name=name, diagnostics=Diagnostics())
    write_package(root / name, files, overwrite=True)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


def emit(rows: Sequence[Row], json_path: Path | None) -> None:
    """Print the script's rows as a Markdown table; also write them as JSON for run_all.py."""
    print()
    print(markdown_table(rows))
    if json_path is not None:
        json_path.write_text(json.dumps([row.as_json() for row in rows], indent=2, ensure_ascii=False) + "\n")


def markdown_table(rows: Sequence[Row] | Sequence[dict[str, object]]) -> str:
    lines = [
        "| benchmark | ours | baseline | ratio | target | result |",
        "|---|---:|---:|---:|---:|:---:|",
    ]
    for row in rows:
        data: dict[str, Any] = row.as_json() if isinstance(row, Row) else dict(row)
        unit = data["unit"]
        ours = f"{_number(float(data['ours']))} {unit}"
        baseline = f"{_number(float(data['baseline']))} {unit}"
        if data.get("baseline_label"):
            baseline += f" ({data['baseline_label']})"
        target, result = f"≤ {data['target']}", "PASS" if data["pass"] else "**MISS**"
        if float(data["target"]) == float("inf"):  # a row shown for comparison has no target
            target, result = "(comparison)", ""
        lines.append(
            f"| {data['benchmark']} | {ours} | {baseline} | {float(data['ratio']):.2f} | {target} | {result} |"
        )
    return "\n".join(lines)


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"
