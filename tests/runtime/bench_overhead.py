"""Per-call overhead of the runtime's typed calls vs raw `mcp.Client.call_tool`, in memory.

    python tests/runtime/bench_overhead.py [N]

Prints the median per-call time of each over N (default 1000) calls, interleaved in rounds so
machine noise hits both alike.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio
from fakepkg import AsyncClient
from mcp import Client
from rt_server import build_server


async def main(calls: int) -> None:
    async with Client(build_server(), mode="legacy", cache=None) as session:
        client = AsyncClient.from_session(session)
        await session.list_tools()  # the raw path validates output schemas from the listing
        cases = {
            "add (wrapped int)": (
                lambda: session.call_tool("add", {"a": 1, "b": 2}),
                lambda: client.add(a=1, b=2),
            ),
            "greet_plain (no schema)": (
                lambda: session.call_tool("greet_plain", {"name": "Ada"}),
                lambda: client.greet_plain(name="Ada"),
            ),
            "get_weather (model)": (
                lambda: session.call_tool("get_weather", {"city": "Paris", "units": "f"}),
                lambda: client.get_weather(city="Paris", units="f"),
            ),
        }
        for label, (raw, typed) in cases.items():
            for _ in range(50):  # warm up
                await raw()
                await typed()
            raw_times: list[float] = []
            typed_times: list[float] = []
            for _ in range(calls):
                start = time.perf_counter()
                await raw()
                middle = time.perf_counter()
                await typed()
                end = time.perf_counter()
                raw_times.append(middle - start)
                typed_times.append(end - middle)
            raw_median = statistics.median(raw_times) * 1e6
            typed_median = statistics.median(typed_times) * 1e6
            print(
                f"{label:24} raw call_tool {raw_median:7.1f} us   typed {typed_median:7.1f} us   "
                f"ratio {typed_median / raw_median:.3f}"
            )


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
