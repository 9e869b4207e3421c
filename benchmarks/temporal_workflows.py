"""The two workflows of bench_temporal.py, in a module of their own (the workflow sandbox imports it by name).

`TypedCalls` calls the demo package's `add` through `Tools` (its typed activity); `UntypedCalls` calls a
hand-written activity, `call_tool(name, arguments)`, with a dict, and reads the sum out of the raw result.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from demo_client.temporal import Tools

TIMEOUT = timedelta(seconds=60)


@workflow.defn
class TypedCalls:
    @workflow.run
    async def run(self, calls: int) -> int:
        tools = Tools(start_to_close_timeout=TIMEOUT)
        total = 0
        for index in range(calls):
            total += await tools.add(a=index, b=1)
        return total


@workflow.defn
class UntypedCalls:
    @workflow.run
    async def run(self, calls: int) -> int:
        total = 0
        for index in range(calls):
            result: dict[str, Any] = await workflow.execute_activity(
                "call_tool", args=["add", {"a": index, "b": 1}], start_to_close_timeout=TIMEOUT
            )
            total += int(result["structuredContent"]["result"])
        return total
