"""The workflows of the Temporal tests, over the `durable_client` package generated from durable_server.py.

The package is imported through `workflow.unsafe.imports_passed_through()`, as Temporal advises for models and
other deterministic modules: the sandbox uses the loaded modules instead of importing them again each run.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from pydantic import BaseModel
from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from durable_client.models import ChargeResult, CrunchResult, LookupResult
    from durable_client.temporal import Tools

#: Short where a test kills a worker, so the loss is noticed within seconds (the activities heartbeat at a third
#: of it); long where no worker dies, so a loaded machine never times a heartbeat out (which would run a read-only
#: tool again, and fail a call that is not safe to repeat); between the two where a cancellation must arrive (it
#: comes with a heartbeat).
KILLED, STEADY, CANCELLED = timedelta(seconds=5), timedelta(seconds=60), timedelta(seconds=9)
#: The schedule-to-close timeouts: of a call that holds on the server (long enough for the worker, connected
#: already, to send it), and of a call no worker takes.
DEADLINE, UNCLAIMED = timedelta(seconds=10), timedelta(seconds=2)
#: The server key of the worker started with one (worker.py's fourth argument).
RENAMED = "renamed-key"


def tools(heartbeat: timedelta, **options: Any) -> Tools:
    return Tools(start_to_close_timeout=timedelta(seconds=120), heartbeat_timeout=heartbeat, **options)


class Summary(BaseModel):
    lookup: LookupResult
    charge: ChargeResult
    crunch: CrunchResult
    #: The class names of the results as the workflow received them.
    result_types: list[str]
    tools: list[str]


@workflow.defn
class EndToEnd:
    @workflow.run
    async def run(self, key: str) -> Summary:
        calls = tools(STEADY)
        looked = await calls.lookup(key=key)
        charged = await calls.charge(account=key, cents=250)
        crunched = await calls.crunch(n=21)
        listed = await calls.list_tools()
        return Summary(
            lookup=looked,
            charge=charged,
            crunch=crunched,
            result_types=[type(value).__name__ for value in (looked, charged, crunched)],
            tools=sorted(tool.name for tool in listed),
        )


@workflow.defn
class LookupOnce:
    @workflow.run
    async def run(self, key: str) -> LookupResult:
        await tools(STEADY).list_tools()  # the worker connects (slow on a loaded machine) before the timed call
        return await tools(KILLED).lookup(key=key)


@workflow.defn
class ChargeOnce:
    @workflow.run
    async def run(self, account: str) -> ChargeResult:
        await tools(STEADY).list_tools()
        return await tools(KILLED).charge(account=account, cents=100)


@workflow.defn
class ChargeWithinDeadline:
    """`charge` under a schedule-to-close timeout only: the call holds on the server until the deadline."""

    @workflow.run
    async def run(self, account: str) -> ChargeResult:
        await tools(STEADY).list_tools()
        return await Tools(schedule_to_close_timeout=DEADLINE).charge(account=account, cents=100)


@workflow.defn
class ChargeUnclaimed:
    """`charge` on a task queue no worker polls: its schedule-to-close timeout passes before any send."""

    @workflow.run
    async def run(self, account: str) -> str:
        queue = f"{workflow.info().task_queue}-nobody"
        try:
            await Tools(schedule_to_close_timeout=UNCLAIMED, task_queue=queue).charge(account=account, cents=100)
        except ActivityError as error:
            return f"{type(error).__name__}: {type(error.cause).__name__}"
        return "completed"


@workflow.defn
class FollowCrunch:
    """`crunch` as a task (said repeatable here, so Temporal retries it), held until the test releases it."""

    @workflow.run
    async def run(self, n: int) -> CrunchResult:
        await tools(STEADY).list_tools()
        return await tools(KILLED, repeatable={"crunch": True}).crunch(n=n, mode="release")


@workflow.defn
class RenamedLookup:
    """`lookup` through activities registered under another server key (`Tools(server_key=...)`)."""

    @workflow.run
    async def run(self, key: str) -> LookupResult:
        return await tools(STEADY, server_key=RENAMED).lookup(key=key)


@workflow.defn
class CancelCrunch:
    def __init__(self) -> None:
        self._cancel = False

    @workflow.signal
    def cancel(self) -> None:
        self._cancel = True

    @workflow.run
    async def run(self, n: int) -> str:
        await tools(STEADY).list_tools()
        # Waits until the activity has cancelled the task on the server before going on.
        calls = tools(CANCELLED, cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        call = asyncio.ensure_future(calls.crunch(n=n, mode="hold"))
        await workflow.wait_condition(lambda: self._cancel)
        call.cancel()
        try:
            await call
        except ActivityError as error:
            return f"cancelled ({type(error.cause).__name__})"
        except asyncio.CancelledError:
            return "cancelled"
        return "completed"


WORKFLOWS = [
    EndToEnd,
    LookupOnce,
    ChargeOnce,
    ChargeWithinDeadline,
    ChargeUnclaimed,
    FollowCrunch,
    RenamedLookup,
    CancelCrunch,
]
