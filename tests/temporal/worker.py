"""A Temporal worker process for the tests: `python worker.py ADDRESS TASK_QUEUE MCP_URL [SERVER_KEY]`.

Registers the test workflows and `durable_client`'s activities (one client for the process, connected over
streamable HTTP on first use; named with SERVER_KEY when given), prints "ready" once polling, and stops on SIGTERM (closing the client).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from datetime import timedelta

import durable_client
from durable_client.temporal import activities
from durable_workflows import WORKFLOWS
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker


async def main(address: str, task_queue: str, url: str, *server_key: str) -> None:
    client = await Client.connect(address, data_converter=pydantic_data_converter)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    connect = lambda: durable_client.AsyncClient.http(url, transport="http", timeout=30)  # noqa: E731
    named = {"server_key": server_key[0]} if server_key else {}
    async with activities(connect=connect, **named) as acts:
        # Heartbeats reach the server as the activities send them (a third of their timeout), not held back to
        # 80% of it: a cancellation, which comes back with a heartbeat, and a task's heartbeated id arrive sooner.
        async with Worker(
            client, task_queue=task_queue, workflows=WORKFLOWS, activities=acts,
            max_heartbeat_throttle_interval=timedelta(seconds=1),
        ):  # fmt: skip
            print("ready", flush=True)
            await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
