"""Fault schedules for the fault-injecting proxy: which fault hits which request of a run, enumerated from traces.

A *schedule* is a tuple of `Hit`s: fault `fault` (a name in `FAULTS`) hits the `occurrence`-th POST of JSON-RPC
method `step` that the proxy sees once the schedule is armed (`arm`). A run's *trace* is the list of POSTs the
proxy saw, in order (`FaultProxy.trace`, kept to `STEPS`). A schedule is enumerated from its parent's trace
(`children`): one more fault at a request of the parent's run that came after the parent's last fault. So every
schedule is *reachable* (each of its faults hits a request the client really sends) and is produced once: a fault
on a request the client never sends makes a schedule the same as the one without it, which is not enumerated
twice.

The faults (`FAULTS`), each at any step:

- ``drop_before``: read the request, close the connection, forward nothing;
- ``drop_after``: forward (the server runs it), read the whole answer, close without sending any of it;
- ``404_after``: forward (the server runs it), then answer a gateway's `404` (a plain-text body);
- ``404``: answer `404` without forwarding, in the Python SDK's words for an unknown session
  (``-32600 Session not found``);
- ``400``: answer `400` without forwarding, in server-everything's words for an unknown session
  (``-32000 Bad Request: No valid session ID provided``);
- ``500``, ``503``: answer that status without forwarding (a plain-text body, no ``Retry-After``);
- ``hold``: forward (the server runs it), then answer nothing until the client hangs up: the request ends by the
  client's own timeout.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from servers.fault_proxy import (
    Fault,
    FaultProxy,
    LogEntry,
    drop_after,
    drop_before,
    hold,
    passthrough,
    status,
    status_after,
)

__all__ = ["FAULTS", "STEPS", "Hit", "Schedule", "arm", "children", "describe", "extend_randomly", "steps_of"]

#: The requests of a client's session layer that faults hit.
STEPS = ("initialize", "notifications/initialized", "tools/list", "ping", "tools/call")


def _rpc_error(code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})


_JSON = "application/json"

FAULTS: dict[str, Callable[[], Fault]] = {
    "drop_before": drop_before,
    "drop_after": drop_after,
    "404_after": lambda: status_after(404),
    "404": lambda: status(404, body=_rpc_error(-32600, "Session not found"), content_type=_JSON),
    "400": lambda: status(
        400, body=_rpc_error(-32000, "Bad Request: No valid session ID provided"), content_type=_JSON
    ),
    "500": lambda: status(500),
    "503": lambda: status(503),
    "hold": hold,
}


class Hit(NamedTuple):
    """Fault `fault` on the `occurrence`-th request of `step` (1 for the first); `position`: its index in the
    trace of the run it was chosen from."""

    step: str
    occurrence: int
    fault: str
    position: int


Schedule = tuple[Hit, ...]


def describe(schedule: Schedule) -> str:
    """``tools/call#1:404_after, ping#1:404`` (``-`` for no fault)."""
    return ", ".join(f"{hit.step}#{hit.occurrence}:{hit.fault}" for hit in schedule) or "-"


def steps_of(trace: Sequence[LogEntry]) -> list[LogEntry]:
    """The requests of a trace that faults may hit."""
    return [entry for entry in trace if entry.method in STEPS]


def arm(proxy: FaultProxy, schedule: Schedule) -> None:
    """Queue the schedule's faults on the proxy: per step, pass the requests before each hit through."""
    for step in STEPS:
        hits = sorted((hit for hit in schedule if hit.step == step), key=lambda hit: hit.occurrence)
        planned: list[Fault] = []
        for hit in hits:
            planned += [passthrough()] * (hit.occurrence - len(planned) - 1)
            planned.append(FAULTS[hit.fault]())
        if planned:
            proxy.plan(*planned, method=step)


def _after_last_fault(schedule: Schedule, trace: Sequence[LogEntry]) -> Iterator[tuple[int, str, int]]:
    """(position, step, occurrence) of each request of `trace` after the schedule's last fault."""
    start = schedule[-1].position + 1 if schedule else 0
    seen: Counter[str] = Counter()
    for position, entry in enumerate(steps_of(trace)):
        seen[entry.method] += 1
        if position >= start:
            yield position, entry.method, seen[entry.method]


def children(schedule: Schedule, trace: Sequence[LogEntry]) -> list[Schedule]:
    """Every schedule with one more fault, on a request of `trace` (the schedule's run) after its last fault."""
    return [
        (*schedule, Hit(step, occurrence, fault, position))
        for position, step, occurrence in _after_last_fault(schedule, trace)
        for fault in FAULTS
    ]


def extend_randomly(schedule: Schedule, trace: Sequence[LogEntry], rng: random.Random) -> Schedule | None:
    """One random child of `schedule` (None when its run sent nothing after its last fault)."""
    options = children(schedule, trace)
    return rng.choice(options) if options else None
