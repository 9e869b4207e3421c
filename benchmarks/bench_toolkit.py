"""Time to the first call on one server of a 10-server toolkit: lazy vs eager, and vs a single-server client.

The umbrella package is generated for 10 servers, each the bundled demo server over stdio (a real Python process
per server). Each repetition, in alternating order, measures from nothing to the first answer of `add` on one
server: `Toolkit(lazy=True)` (connects that server on the call), `Toolkit()` (connects all 10 at start), and the
single server's own `AsyncClient.connect()`. Target: lazy <= 1.2x single.

    python benchmarks/bench_toolkit.py [--reps 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, median, spread  # noqa: E402

SERVERS = 10
TARGET = 1.2


def _config(root: Path) -> None:
    servers = "".join(
        f'\n[tool.mcp-codegen.servers.s{index}]\ncommand = {sys.executable!r}\nargs = ["-m", "mcp_codegen.demo"]\n'.replace(
            "'", '"'
        )
        for index in range(SERVERS)
    )
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "bench"\n\n[tool.mcp-codegen]\noutput = "kit"\ntimeout = 60\n{servers}', encoding="utf-8"
    )


async def run(reps: int, kit: Any) -> list[Row]:
    async def lazy() -> None:
        async with kit.Toolkit(lazy=True, stderr="discard") as toolkit:
            assert await toolkit["s0"].add(a=1, b=2) == 3

    async def eager() -> None:
        async with kit.Toolkit(stderr="discard") as toolkit:
            assert await toolkit["s0"].add(a=1, b=2) == 3

    async def single() -> None:
        async with kit.s0.AsyncClient.connect(stderr="discard") as client:
            assert await client.add(a=1, b=2) == 3

    timings: dict[str, list[float]] = {"lazy": [], "eager": [], "single": []}
    runs: dict[str, Callable[[], Awaitable[None]]] = {"lazy": lazy, "eager": eager, "single": single}
    await single()  # warm up imports and the OS caches
    for rep in range(reps):
        order = list(runs) if rep % 2 == 0 else list(reversed(runs))
        for name in order:
            start = time.perf_counter()
            await runs[name]()
            timings[name].append(time.perf_counter() - start)
        print(f"  rep {rep + 1}/{reps}: " + ", ".join(f"{n} {timings[n][-1]:.2f} s" for n in runs), flush=True)
    for name, values in timings.items():
        print(f"  {name:7} {spread(values)}")
    return [
        Row(f"first call, 1 of {SERVERS} servers: lazy toolkit", median(timings["lazy"]), median(timings["single"]),
            "s", TARGET, baseline_label="single-server client"),
        Row(f"first call, 1 of {SERVERS} servers: eager toolkit (for comparison)", median(timings["eager"]),
            median(timings["single"]), "s", float("inf"), baseline_label="single-server client"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    import anyio

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        _config(root)
        subprocess.run([sys.executable, "-m", "mcp_codegen", "generate", "-q"], cwd=root, check=True)
        sys.path.insert(0, scratch)
        kit = importlib.import_module("kit")
        print(f"bench_toolkit: {SERVERS} demo servers over stdio, {arguments.reps} repetitions", flush=True)
        rows = anyio.run(run, arguments.reps, kit)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
