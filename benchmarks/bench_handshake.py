"""Connect time across protocol eras: legacy handshake first, `server/discover` only when the handshake is refused.

Three servers over streamable HTTP on 127.0.0.1 (the SDK's own server under uvicorn, in a thread):
- a server of both eras (the demo server): a generated client vs the plain SDK `Client(mode="legacy")`;
- an old server that never answers `server/discover` (a gate drops it, as servers that ignore unknown
  methods do): a generated client vs the SDK's default `mode="auto"`, which waits out its fixed 10 s probe;
- a 2026-07-28-only server (a gate refuses `initialize` with -32022): a generated client (refused
  handshake, then discover) vs the SDK's `mode="auto"` (discover at once).

    python benchmarks/bench_handshake.py [--reps 7] [--json FILE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _common import ROOT, Row, emit, median, spread  # noqa: E402

SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"


class _DropDiscover:
    """ASGI gate: `server/discover` is never answered (the request hangs), everything else passes."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        import anyio

        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        message = await receive()
        if b'"server/discover"' in message.get("body", b""):
            await anyio.sleep(10.5)  # past the SDK's probe; then answered (too late) so shutdown stays clean
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return message
            return await receive()

        await self.app(scope, replay, send)


async def _time(connect: Callable[[], Awaitable[None]], reps: int) -> list[float]:
    values = []
    for _ in range(reps):
        start = time.perf_counter()
        await connect()
        values.append(time.perf_counter() - start)
    return values


async def _side_by_side(
    first: Callable[[], Awaitable[None]], second: Callable[[], Awaitable[None]], reps: int
) -> tuple[list[float], list[float]]:
    """Both connects, alternating, so a noisy neighbour slows both alike."""
    ones: list[float] = []
    twos: list[float] = []
    for _ in range(reps):
        ones += await _time(first, 1)
        twos += await _time(second, 1)
    return ones, twos


async def run(reps: int, package: Any) -> list[Row]:
    from mcp import Client
    from servers.helpers import HOST, RefuseHandshake, serve_app

    from mcp_codegen.demo.server import build_server

    async def ours(url: str) -> None:
        async with package.AsyncClient.http(url, timeout=30, transport="http", drift_check=False) as client:
            assert client.protocol_version

    def sdk(url: str, mode: str) -> Callable[[], Awaitable[None]]:
        async def connect() -> None:
            async with Client(url, mode=mode, cache=None, read_timeout_seconds=30) as client:  # type: ignore[arg-type]
                assert client.session.protocol_version

        return connect

    rows: list[Row] = []
    with serve_app(build_server().streamable_http_app(host=HOST)) as base:
        url = base + "/mcp"
        await ours(url)  # warm up imports
        both_ours, both_sdk = await _side_by_side(lambda: ours(url), sdk(url, "legacy"), reps)
    print(f"  server of both eras: ours {spread(both_ours)}; SDK legacy {spread(both_sdk)}", flush=True)
    rows.append(
        Row(
            "connect, server of both eras",
            median(both_ours),
            median(both_sdk),
            "ms",
            1.2,
            baseline_label='SDK Client(mode="legacy")',
        )  # fmt: skip
    )

    with serve_app(_DropDiscover(build_server().streamable_http_app(host=HOST))) as base:
        url = base + "/mcp"
        old_ours = await _time(lambda: ours(url), reps)
        old_sdk = await _time(sdk(url, "auto"), 1)  # a fixed 10 s each time
        # The other order with an own short bound: discover first, given up after 1 s (SDK constant patched).
        import mcp.client.session as sdk_session

        probe, sdk_session.DISCOVER_TIMEOUT_SECONDS = sdk_session.DISCOVER_TIMEOUT_SECONDS, 1.0
        try:
            old_short = await _time(sdk(url, "auto"), 3)
        finally:
            sdk_session.DISCOVER_TIMEOUT_SECONDS = probe
    print(
        f"  server ignoring server/discover: ours {spread(old_ours)}; SDK auto {spread(old_sdk)}; "
        f"discover first with a 1 s bound {spread(old_short)}",
        flush=True,
    )
    rows.append(
        Row(
            "connect, old server ignoring server/discover",
            median(old_ours),
            median(old_sdk),
            "ms",
            0.1,
            baseline_label='SDK Client(mode="auto"), its 10 s probe',
        )  # fmt: skip
    )
    rows.append(
        Row(
            "connect, old server ignoring server/discover",
            median(old_ours),
            median(old_short),
            "ms",
            0.5,
            baseline_label="discover first, bounded at 1 s",
        )  # fmt: skip
    )

    with serve_app(RefuseHandshake(build_server().streamable_http_app(host=HOST))) as base:
        url = base + "/mcp"
        new_ours, new_sdk = await _side_by_side(lambda: ours(url), sdk(url, "auto"), reps)
    print(f"  2026-07-28-only server: ours {spread(new_ours)}; SDK auto {spread(new_sdk)}", flush=True)
    rows.append(
        Row(
            "connect, 2026-07-28-only server",
            median(new_ours),
            median(new_sdk),
            "ms",
            2.0,
            baseline_label='SDK Client(mode="auto")',
            note="one refused initialize, then server/discover",
        )  # fmt: skip
    )
    for row in rows:
        row.ours *= 1000
        row.baseline *= 1000
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    import importlib

    import anyio

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "bench_handshake_client"
        command = [
            sys.executable,
            "-m",
            "mcp_codegen",
            "generate",
            "--snapshot",
            str(SNAPSHOT),
            "-o",
            str(target),
            "-q",
        ]
        subprocess.run(command, check=True)
        sys.path.insert(0, scratch)
        package = importlib.import_module(target.name)
        print(f"bench_handshake: {arguments.reps} connects per row", flush=True)
        rows = anyio.run(run, arguments.reps, package)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
