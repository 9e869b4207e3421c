"""Where a regeneration's time goes, by the file (or stage) each part makes: run in a child Python, in process.

    python benchmarks/_shares.py SNAPSHOT PACKAGE CACHE_DIR [--json FILE]

runs `mcp-codegen generate --snapshot SNAPSHOT -o PACKAGE --overwrite` through `mcp_codegen.cli.main` with the
cache in CACHE_DIR, each stage's function wrapped to add up its wall and CPU time (`cpu_time`: its own and its
children's): the
stages that make one file are named by that file. A stage called inside another (the IR while the model generator
works) is shown indented, its time also counted in its parent's. Templates are timed by name (`README.md.jinja`),
so the README's share is its own. What is left of the run (imports, the command line, the job around it) is the
last line. `bench_real.py` runs it on the two-tools-changed snapshot, after the cold run filled the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (label, module, attribute, parent label or ""): each stage, by what it makes.
STAGES: tuple[tuple[str, str, str, str], ...] = (
    ("snapshot read (and snapshot.json's text)", "mcp_codegen.snapshot.model", "read_snapshot", ""),
    ("plan: names and prepared schemas (all tools)", "mcp_codegen.generate.build_ir", "plan_tools", ""),
    ("models/ (model generator, cached models)", "mcp_codegen.generate.tool_models", "tool_models", ""),
    ("IR of each tool (cached or built)", "mcp_codegen.generate.ir_cache", "tool_irs", "models/ (model generator, cached models)"),
    ("search_index.json (counted while the model generator works)", "mcp_codegen.generate.pipeline", "search_index", "models/ (model generator, cached models)"),
    ("client spec", "mcp_codegen.generate.build_ir", "build_client_spec", ""),
    ("render: templates (client.py, specs.py, temporal.py skeletons; __init__, testing, README)", "mcp_codegen.generate.render", "render_package", ""),
    ("README.md: argument-model sections (cached per tool)", "mcp_codegen.generate.markdown", "argument_model_sections", "render: templates (client.py, specs.py, temporal.py skeletons; __init__, testing, README)"),
    ("render: CLI table, __main__.py and SKILL.md (--cli)", "mcp_codegen.generate.render", "render_cli", ""),
    ("code_api.pyi", "mcp_codegen.generate.code_api", "code_api_text", ""),
    ("code_api.pyi", "mcp_codegen.generate.code_api_pieces", "code_api_file", ""),
    ("format (ruff over the new texts and pieces)", "mcp_codegen.generate.formatting", "format_python", ""),
    (".mcp-codegen.json (manifest)", "mcp_codegen.generate.manifest", "manifest_bytes", ""),
    ("write (changed files; the rest hard-linked; swap)", "mcp_codegen.output.write", "write_package", ""),
)  # fmt: skip
#: Templates whose rendering is reported apart (inside "render: ...").
TEMPLATES = ("README.md.jinja", "cli/SKILL.md.jinja", "cli/main.py.jinja")


def cpu_time() -> float:
    """This process's CPU time and that of its children waited for (the formatter's runs; the model generator's
    workers only once stopped, at the end)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class Totals:
    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.active: set[str] = set()

    def timed(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if label in self.active:  # a recursive call is counted once
                return function(*args, **kwargs)
            self.active.add(label)
            wall, cpu = time.perf_counter(), cpu_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.active.discard(label)
                self.wall[label] = self.wall.get(label, 0.0) + time.perf_counter() - wall
                self.cpu[label] = self.cpu.get(label, 0.0) + cpu_time() - cpu

        wrapper.__wrapped__ = function  # type: ignore[attr-defined]
        return wrapper


def _patch(totals: Totals) -> None:
    import importlib

    import mcp_codegen.cli  # noqa: F401  (every module the command uses, imported as the command imports them)
    import mcp_codegen.generate.pipeline  # noqa: F401

    for label, module_name, attribute, _parent in STAGES:
        try:  # another revision (`bench_real.py --before`) may not have the module
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        original = getattr(module, attribute, None)
        if original is None:
            continue
        wrapped = totals.timed(label, original)
        for other in list(sys.modules.values()):  # wherever the function was imported by name
            if getattr(other, attribute, None) is original:
                setattr(other, attribute, wrapped)

    import jinja2

    render = jinja2.Template.render

    def timed_render(self: jinja2.Template, *args: Any, **kwargs: Any) -> str:
        if self.name not in TEMPLATES:
            return render(self, *args, **kwargs)
        return totals.timed(f"  {self.name}", lambda: render(self, *args, **kwargs))()

    jinja2.Template.render = timed_render  # type: ignore[method-assign]


def measure(snapshot: Path, package: Path, cache: Path) -> list[dict[str, Any]]:
    os.environ["MCP_CODEGEN_CACHE_DIR"] = str(cache)
    began_wall, began_cpu = time.perf_counter(), cpu_time()
    totals = Totals()
    _patch(totals)
    sys.argv = ["mcp-codegen", "generate", "--snapshot", str(snapshot), "-o", str(package), "--overwrite"]
    from mcp_codegen.cli import main
    from mcp_codegen.collector import paused_until_exit

    paused_until_exit()  # as the console script runs
    try:
        main()
    except SystemExit as done:
        if done.code not in (0, None):
            raise
    whole_wall, whole_cpu = time.perf_counter() - began_wall, cpu_time() - began_cpu
    rows: list[dict[str, Any]] = []
    top_wall = top_cpu = 0.0
    seen: set[str] = set()
    for label, _module, _attribute, parent in STAGES:
        if label in seen or label not in totals.wall:
            continue
        seen.add(label)
        rows.append({"stage": ("  " if parent else "") + label, "wall": totals.wall[label], "cpu": totals.cpu[label]})
        if not parent:
            top_wall, top_cpu = top_wall + totals.wall[label], top_cpu + totals.cpu[label]
        if label.startswith("render: templates"):
            for name in TEMPLATES:
                if f"  {name}" in totals.wall:
                    rows.append(
                        {"stage": f"    {name}", "wall": totals.wall[f"  {name}"], "cpu": totals.cpu[f"  {name}"]}
                    )
    rows.append({"stage": "the rest (imports, command line, job; the model worker's CPU, counted once it is stopped)", "wall": whole_wall - top_wall,
                 "cpu": whole_cpu - top_cpu})  # fmt: skip
    rows.append(
        {"stage": "whole run (in process, after the interpreter's start)", "wall": whole_wall, "cpu": whole_cpu}
    )
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    whole = rows[-1]
    print(f"  {'stage (the file it makes)':92} {'wall':>9} {'cpu':>9} {'cpu share':>9}")
    for row in rows:
        share = 100 * row["cpu"] / whole["cpu"] if whole["cpu"] else 0.0
        print(f"  {row['stage']:92} {row['wall'] * 1e3:7.1f}ms {row['cpu'] * 1e3:7.1f}ms {share:8.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("package", type=Path)
    parser.add_argument("cache", type=Path)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()
    rows = measure(arguments.snapshot, arguments.package, arguments.cache)
    if arguments.json:
        arguments.json.write_text(json.dumps(rows), encoding="utf-8")
    else:
        print_table(rows)


if __name__ == "__main__":
    main()
