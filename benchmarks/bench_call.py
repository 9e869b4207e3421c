"""Per-call overhead of the generated typed client vs the raw SDK call, on the demo server, in memory.

The demo server (`mcp_codegen.demo.server.build_server`) is snapshotted in process, its client is
generated with `mcp-codegen generate --snapshot` into a temporary directory, and then, on ONE
in-memory session (`mcp.Client(server, mode="legacy", cache=None)`):

* ours:     `await client.add(a=1, b=2)` with `client = AsyncClient.from_session(mcp_client)`
            (validates the arguments, calls, validates the result and unwraps `{"result": 3}` to `3`);
* baseline: `await mcp_client.call_tool("add", {"a": 1, "b": 2})` (a `CallToolResult`; the SDK
            itself validates `structuredContent` against the tool's output schema).

Same for `get_weather(city="Paris")`, whose result is a model (`Weather`). After a warm-up, 1000 calls
of each are timed in blocks that alternate (ours, raw, raw, ours, ...); the per-call time of a block
is its time divided by its size, and the reported number is the median over blocks. Target: ratio
<= 1.15. `--profile` adds a cProfile of the typed calls (client-side functions only).

    python benchmarks/bench_call.py [--calls 1000] [--block 50] [--profile] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, executable, fmt_seconds, median, run_timed  # noqa: E402

TARGET = 1.0
PACKAGE = "demo_client"

Call = Callable[[], Awaitable[Any]]


async def _snapshot_text() -> str:
    from mcp_codegen.demo.server import build_server
    from mcp_codegen.diagnostics import Diagnostics
    from mcp_codegen.snapshot.fetch import snapshot_server

    diagnostics = Diagnostics()
    snapshot = await snapshot_server(build_server(), diagnostics=diagnostics)
    return snapshot.to_text()


def generate_client(work: Path) -> Any:
    import anyio

    snapshot = work / "demo.json"
    snapshot.write_text(anyio.run(_snapshot_text), encoding="utf-8")
    run_timed(
        [executable("mcp-codegen"), "generate", "-q", "--snapshot", str(snapshot), "-o", str(work / PACKAGE)], cwd=work
    )
    sys.path.insert(0, str(work))
    return importlib.import_module(PACKAGE)


def run_with_demo_client(
    name: str, run: Callable[[Any, argparse.Namespace], Awaitable[list[Row]]], arguments: argparse.Namespace
) -> list[Row]:
    """`run(module, arguments)` on the demo client generated into a temporary directory (removed after)."""
    import anyio

    work = Path(tempfile.mkdtemp(prefix=f"mcp-codegen-{name.replace('_', '-')}-"))
    try:
        print(f"{name}: generating the demo client ...", flush=True)
        module = generate_client(work)
        return anyio.run(run, module, arguments)
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _block(call: Call, size: int) -> float:
    started = time.perf_counter()
    for _ in range(size):
        await call()
    return (time.perf_counter() - started) / size


async def compare(ours: Call, raw: Call, *, calls: int, block: int, warmup: int) -> tuple[list[float], list[float]]:
    for _ in range(warmup):
        await ours()
        await raw()
    ours_blocks: list[float] = []
    raw_blocks: list[float] = []
    gc.collect()
    for index in range(max(1, calls // block)):
        order = [(ours, ours_blocks), (raw, raw_blocks)]
        if index % 2:
            order.reverse()
        for call, sink in order:
            sink.append(await _block(call, block))
    return ours_blocks, raw_blocks


async def run(module: Any, arguments: argparse.Namespace) -> list[Row]:
    import mcp

    from mcp_codegen.demo.server import build_server

    server = build_server()
    rows: list[Row] = []
    async with mcp.Client(server, mode="legacy", cache=None) as mcp_client:
        client = module.AsyncClient.from_session(mcp_client)

        # What each side returns (checked once, so the two sides do the same work).
        total = await client.add(a=1, b=2)
        assert total == 3, total
        raw = await mcp_client.call_tool("add", {"a": 1, "b": 2})
        assert not raw.is_error and raw.structured_content == {"result": 3}, raw
        weather = await client.get_weather(city="Paris")
        assert weather.city == "Paris" and isinstance(weather.humidity, int), weather
        raw = await mcp_client.call_tool("get_weather", {"city": "Paris"})
        assert not raw.is_error and raw.structured_content["city"] == "Paris", raw

        cases: list[tuple[str, Call, Call]] = [
            ("add", lambda: client.add(a=1, b=2), lambda: mcp_client.call_tool("add", {"a": 1, "b": 2})),
            (
                "get_weather",
                lambda: client.get_weather(city="Paris"),
                lambda: mcp_client.call_tool("get_weather", {"city": "Paris"}),
            ),
        ]
        for name, ours, baseline in cases:
            ours_blocks, raw_blocks = await compare(
                ours, baseline, calls=arguments.calls, block=arguments.block, warmup=arguments.warmup
            )
            print(
                f"  {name}: {len(ours_blocks)} blocks of {arguments.block} calls each side; per call, median "
                f"(min–max): typed {fmt_seconds(median(ours_blocks))} "
                f"({fmt_seconds(min(ours_blocks))}–{fmt_seconds(max(ours_blocks))}), "
                f"raw {fmt_seconds(median(raw_blocks))} "
                f"({fmt_seconds(min(raw_blocks))}–{fmt_seconds(max(raw_blocks))})",
                flush=True,
            )
            rows.append(
                Row(
                    f"call `{name}` in memory (per call)",
                    median(ours_blocks) * 1e6,
                    median(raw_blocks) * 1e6,
                    "µs",
                    TARGET,
                    baseline_label="raw `call_tool`",
                )
            )
        if arguments.profile:
            await profile(client, arguments.calls)
    return rows


async def profile(client: Any, calls: int) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        await client.get_weather(city="Paris")
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    print(f"\n  cProfile of {calls} typed get_weather calls: client-side functions by cumulative time")
    rows = sorted(stats.items(), key=lambda item: -item[1][3])
    shown = 0
    for (filename, line, name), values in rows:
        if f"/{PACKAGE}/" not in filename:
            continue
        print(f"    {fmt_seconds(values[3] / calls):>10} per call  {name}  ({filename.split('/')[-1]}:{line})")
        shown += 1
        if shown == 12:
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per side and tool")
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    emit(run_with_demo_client("bench_call", run, arguments), arguments.json)


if __name__ == "__main__":
    main()
