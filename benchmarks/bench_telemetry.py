"""What OpenTelemetry costs a typed call: nothing without a provider, little with the SDK and an in-memory exporter.

The demo client is generated as in `bench_call.py`. On ONE in-memory session with the demo server
(`mcp.Client(server, mode="legacy", cache=None)`), blocks of 50 calls alternate between:

* no provider:   `await client.add(a=1, b=2)` with no tracer or meter provider set (the default: the runtime
                 checks for one and sends the request directly);
* raw:           `await mcp_client.call_tool("add", {"a": 1, "b": 2})` on the same session, no provider;

then, on the same session, between the typed call without a provider and with one: the OpenTelemetry SDK's
`TracerProvider` (a `SimpleSpanProcessor` into an `InMemorySpanExporter`, which exports each span as it ends)
and `MeterProvider` (an `InMemoryMetricReader`) set as the global providers.

Then, on ONE stdio session with the demo server in its own process (`python -m mcp_codegen.demo`, which has no
provider), blocks alternate between the typed call without and with the provider: what a traced application
pays per call. The providers are switched between blocks through the API's globals (`opentelemetry.trace._TRACER_PROVIDER`,
`opentelemetry.metrics._internal._METER_PROVIDER`, and the SDK's cached tracer in `mcp.shared._otel`): the
public API sets a provider only once per process. In memory, the demo server's own spans (the SDK's server
instrumentation) are recorded too, as in a process that runs both: that row is shown for comparison.

The rows compare wall time per call (medians over blocks). This process's CPU time per block
(`time.process_time()`) is printed alongside: on a shared machine other jobs stretch wall time but not the work a
call makes. Over stdio it is the client's side alone (the server works in its own process), so its ratio is
stricter than the wall-time one.

Targets: in memory, no provider <= 1.0 x raw `call_tool`; over stdio, with the provider <= 1.2 x without. The
report also counts the spans exported per call.

    python benchmarks/bench_telemetry.py [--calls 1000] [--block 50] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, fmt_seconds, median  # noqa: E402
from bench_call import run_with_demo_client  # noqa: E402

NO_PROVIDER_TARGET = 1.0
WITH_PROVIDER_TARGET = 1.2

Call = Callable[[], Awaitable[Any]]


class Providers:
    """The SDK's tracer and meter providers, switched on and off as the process's global providers."""

    def __init__(self) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def switch(self, on: bool) -> None:
        from mcp.shared import _otel
        from opentelemetry import trace
        from opentelemetry.metrics import _internal as metrics_internal

        trace._TRACER_PROVIDER = self.tracer_provider if on else None  # type: ignore[attr-defined]
        metrics_internal._METER_PROVIDER = self.meter_provider if on else None
        sdk_tracer = getattr(_otel._tracer, "_inner", _otel._tracer)  # the runtime's stand-in wraps it
        sdk_tracer._real_tracer = None  # the SDK's ProxyTracer caches the provider's tracer

    def spans(self) -> int:
        count = len(self.exporter.get_finished_spans())
        self.exporter.clear()
        return count


async def _block(call: Call, size: int) -> tuple[float, float]:
    """Wall and CPU (this process, all threads) seconds per call over `size` calls."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(size):
        await call()
    return (time.perf_counter() - wall) / size, (time.process_time() - cpu) / size


async def _measure(
    providers: Providers, sides: list[tuple[str, Call, bool]], arguments: argparse.Namespace
) -> tuple[dict[str, list[float]], float]:
    """Per-call wall times of each side's blocks (the order rotates), and the spans exported per call with the
    provider. CPU times are printed alongside."""
    times: dict[str, list[float]] = {name: [] for name, _, _ in sides}
    walls: dict[str, list[float]] = {name: [] for name, _, _ in sides}
    spans_per_call: list[float] = []
    for name, call, on in sides:  # warm-up, and one check that the provider records
        providers.switch(on)
        for _ in range(arguments.warmup):
            await call()
        exported = providers.spans()
        assert (exported > 0) == on, (name, exported)
    gc.collect()
    for index in range(max(1, arguments.calls // arguments.block)):
        turn = index % len(sides)
        for name, call, on in sides[turn:] + sides[:turn]:
            providers.switch(on)
            gc.collect()  # each block starts without the garbage of the one before
            wall, cpu = await _block(call, arguments.block)
            walls[name].append(wall)
            times[name].append(cpu)
            if on:
                spans_per_call.append(providers.spans() / arguments.block)
    providers.switch(False)
    for name, blocks in times.items():
        wall = walls[name]
        print(
            f"  {name}: {len(blocks)} blocks of {arguments.block}; per call, median (min–max): "
            f"CPU {fmt_seconds(median(blocks))} ({fmt_seconds(min(blocks))}–{fmt_seconds(max(blocks))}), "
            f"wall {fmt_seconds(median(wall))} ({fmt_seconds(min(wall))}–{fmt_seconds(max(wall))})",
            flush=True,
        )
    exported = median(spans_per_call) if spans_per_call else 0.0
    if spans_per_call:
        print(f"  spans exported per call with the provider: {exported:g}", flush=True)
    return walls, exported


async def run(module: Any, arguments: argparse.Namespace) -> list[Row]:
    import mcp

    from mcp_codegen.demo.server import build_server

    providers = Providers()
    async with mcp.Client(build_server(), mode="legacy", cache=None) as mcp_client:
        client = module.AsyncClient.from_session(mcp_client)
        ours: Call = lambda: client.add(a=1, b=2)  # noqa: E731
        raw: Call = lambda: mcp_client.call_tool("add", {"a": 1, "b": 2})  # noqa: E731
        # Without a provider first, and on its own: a block after one with the provider pays for its garbage.
        print("in memory, no provider", flush=True)
        memory, _ = await _measure(providers, [("typed", ours, False), ("raw", raw, False)], arguments)
        print("in memory (the demo server in this process: its spans are recorded too)", flush=True)
        traced, _ = await _measure(
            providers, [("typed, no provider", ours, False), ("typed, SDK", ours, True)], arguments
        )
    print("stdio (the demo server in its own process, without a provider)", flush=True)
    server = mcp.StdioServerParameters(command=sys.executable, args=["-m", "mcp_codegen.demo"])
    async with mcp.Client(server, mode="legacy", cache=None) as mcp_client:
        client = module.AsyncClient.from_session(mcp_client)
        stdio_call: Call = lambda: client.add(a=1, b=2)  # noqa: E731
        stdio, _ = await _measure(
            providers, [("typed, no provider", stdio_call, False), ("typed, SDK", stdio_call, True)], arguments
        )
    return [
        Row(
            "call `add` in memory, no OpenTelemetry provider (per call)",
            median(memory["typed"]) * 1e6,
            median(memory["raw"]) * 1e6,
            "µs",
            NO_PROVIDER_TARGET,
            baseline_label="raw `call_tool`",
        ),
        Row(
            "call `add` over stdio, SDK provider + in-memory exporter (per call)",
            median(stdio["typed, SDK"]) * 1e6,
            median(stdio["typed, no provider"]) * 1e6,
            "µs",
            WITH_PROVIDER_TARGET,
            baseline_label="the same call, no provider",
        ),
        Row(
            "call `add` in memory, SDK provider + in-memory exporter, client and server spans (per call)",
            median(traced["typed, SDK"]) * 1e6,
            median(traced["typed, no provider"]) * 1e6,
            "µs",
            float("inf"),
            baseline_label="the same call, no provider",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1500, help="timed calls per side")
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    emit(run_with_demo_client("bench_telemetry", run, arguments), arguments.json)


if __name__ == "__main__":
    main()
