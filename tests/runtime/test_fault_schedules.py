"""At most once, proved by enumeration: the session layer through every schedule of up to two faults, deeper sampled.

A generated client calls the counting server (tests/runtime/faults_server.py: the SDK's own server, streamable
HTTP on 127.0.0.1) through the fault-injecting proxy (tests/servers/fault_proxy.py). A *schedule* says which
fault hits which request (tests/servers/fault_schedules.py): the steps are `initialize`,
`notifications/initialized`, `tools/list`, `ping` and `tools/call`; the faults are: dropped before forwarding,
forwarded then the answer dropped, forwarded then answered `404`, answered `404`/`400` (in the words of an SDK
server that lost the session), `500` or `503` without forwarding, and no answer until the call's timeout.

What is enumerated, exactly:

- **Alive session, every schedule of up to two faults**: the run with no fault, then one fault of each kind at
  each request that run sent, then one more at each request after the first fault that *that* run sent. A fault
  on a request the client never sends makes a schedule the same as the one without it: it is not run twice.
  For the unannotated `bump` and the idempotent `put`, one call and two calls at once.
- **Lost session, every schedule of one fault**: before the call the server forgot the session (a real
  `DELETE`), so the call is refused `404`, the `ping` too, and the client opens a new session (`initialize`,
  `notifications/initialized`, the drift check's `tools/list`, a `ping`) and sends the call again: one fault of
  each kind at each of those requests. In the alive world these requests come only after two faults (`404` on
  the call and on the `ping`); here every single fault during a real renewal runs.
- **Deeper, sampled**: random walks of three and four faults from both worlds (`random.Random(SEED)`).

When written, that was 33, 129, 57 and 177 schedules alive (`bump` with one and two calls, then `put`), 57, 73,
57 and 73 lost, and about 140 sampled runs: some 800 runs, checked in about a minute. `AT_LEAST` keeps a
change from shrinking the enumeration unseen (a client that gave up at once would leave little to enumerate).
- SSE and JSON answers: a fault replaces or drops the whole HTTP answer, so what the client sees under a fault
  does not depend on how the server frames a normal one. Each level's schedules alternate between a server
  answering SSE and one answering JSON, so both kinds carry every level.

The invariants, for every call of every schedule (`violations`):

1. the unannotated tool runs at most once (the server counts what its handlers run);
2. a call the server ran that raises says it may have run: `OutcomeUnknownError` (or `RequestTimeoutError`),
   never an error saying the server did not get it; for a tool not safe to repeat, only those two;
3. a safe call succeeds, within its timeout, when every fault is one a working server recovers from: dropped
   (before or after forwarding) or a bare `503` anywhere, or any fault but a held one on the requests that open
   a new session (a failed renewal is tried again);
4. no call outlives its timeout by more than `HANG_GUARD` (a hang guard, not a time budget);
5. with one call, every fault of the schedule hits a request (the enumeration is what it says). A held request
   needs the run to reach it before the short call timeout: on a loaded machine the schedule runs again with a
   longer one.

Runs share one server per answer kind and `LANES` proxies in front of each; a client per lane is kept between
runs (a fresh one when a run left it closed, hung or on another protocol) and every call counts under its own key.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from types import ModuleType
from typing import Any, NamedTuple

import anyio
import httpx2
import pytest
from faults_server import build_server
from servers.fault_proxy import FaultProxy, LogEntry
from servers.fault_schedules import Hit, Schedule, arm, children, describe, extend_randomly, steps_of
from servers.helpers import HOST, serve_app
from test_runtime_faults import fast, pkg

pytestmark = pytest.mark.anyio

__all__ = ["pkg"]  # the generated faults client, shared with test_runtime_faults

#: Runs at once per answer kind, each through its own proxy (most of a run is waiting).
LANES = 3
#: The call's timeout; a hang guard for schedules that hold no request.
CALL_TIMEOUT = 30.0
#: The call's timeouts when the schedule holds a request (its answer never comes): tried in turn while the run
#: did not reach the held request in time (a loaded machine).
HOLD_TIMEOUTS = (1.0, 4.0, 12.0)
#: How long past its timeout a call may take before the run counts as hung.
HANG_GUARD = 15.0
#: Faults a working server recovers from at any request.
TRANSIENT = frozenset({"drop_before", "drop_after", "503"})
#: The requests that open a new session: any fault but a held one there is a renewal tried again.
RENEWAL = frozenset({"initialize", "notifications/initialized", "tools/list"})
SEED = 56
SAMPLES = 8

UNSAFE, SAFE = "bump", "put"
ANSWERS = ("sse", "json")
#: Numbers the calls of every run: a key the server counts is never used twice.
_CALLS = itertools.count()


class Kind(NamedTuple):
    """What a run does: the tool (`bump`: no annotations; `put`: idempotent), whether the server forgot the
    session before the calls (`lost`), and how many calls run at once."""

    tool: str
    world: str
    calls: int

    @property
    def label(self) -> str:
        return f"{self.tool}-{self.world}-{self.calls}call"


class Outcome(NamedTuple):
    results: list[object]  # per call: its value, the exception it raised, or None when it never ended
    runs: list[int]  # per call: how often the server ran it
    trace: list[LogEntry]
    pending: int  # faults of the schedule no request reached
    timeout: float
    answers: str


class Stand:
    """One server (SSE or JSON answers) counting what it runs, and a proxy per lane in front of it."""

    def __init__(self, runs: Counter[str], base: str, proxies: list[FaultProxy]) -> None:
        self.runs, self.base, self.proxies = runs, base, proxies


@pytest.fixture(scope="module")
def stands() -> Iterator[dict[str, Stand]]:
    with contextlib.ExitStack() as stack:
        made: dict[str, Stand] = {}
        for answers in ANSWERS:
            runs: Counter[str] = Counter()
            app = build_server(runs).streamable_http_app(host=HOST, json_response=answers == "json")
            base = stack.enter_context(serve_app(app))
            proxies = [stack.enter_context(FaultProxy(base + "/mcp")) for _ in range(LANES)]
            made[answers] = Stand(runs, base, proxies)
        yield made


class Lane:
    """Runs schedules one after the other through one proxy, on a client kept open between runs."""

    def __init__(self, pkg: ModuleType, stand: Stand, proxy: FaultProxy, answers: str) -> None:
        self.pkg, self.stand, self.proxy, self.answers = pkg, stand, proxy, answers
        self.stack = contextlib.AsyncExitStack()
        self.client: Any = None
        self.version: str | None = None
        #: The last run did not end cleanly (a call hung): its client may still be busy.
        self.suspect = False
        self.forgotten: set[str] = set()

    async def healthy_client(self) -> Any:
        client = self.client
        # A renewal may have moved the client to 2026-07-28 (a 404 to `initialize` reads as "speaks only
        # 2026-07-28", which has no session to lose): every run starts on a legacy session.
        if client is None or client.closed or self.suspect or client.protocol_version != self.version:
            await self.stack.aclose()
            self.stack = contextlib.AsyncExitStack()
            self.proxy.clear(counters=True)
            connector = self.pkg.AsyncClient.http(
                self.proxy.endpoint, transport="http", timeout=CALL_TIMEOUT, retries=fast(self.pkg)
            )
            self.client = client = await self.stack.enter_async_context(connector)
            self.version = client.protocol_version
            self.suspect = False
        return client

    async def forget_sessions(self, http: httpx2.AsyncClient) -> None:
        """The server forgets every session of this lane (a real DELETE, as a restarted server would)."""
        fresh = self.proxy.sessions - self.forgotten
        for session in fresh:
            headers = {"mcp-session-id": session, "mcp-protocol-version": self.client.protocol_version}
            await http.delete(self.stand.base + "/mcp", headers=headers)
        self.forgotten |= fresh

    async def run(self, kind: Kind, schedule: Schedule, timeout: float, http: httpx2.AsyncClient) -> Outcome:
        client = await self.healthy_client()
        if kind.world == "lost":
            await self.forget_sessions(http)
        keys = [f"k{next(_CALLS)}" for _ in range(kind.calls)]
        view = client.with_options(timeout=timeout)
        results: list[object] = [None] * kind.calls

        async def call(index: int) -> None:
            try:
                if kind.tool == UNSAFE:
                    results[index] = await view.bump(key=keys[index])
                else:
                    results[index] = await view.put(key=keys[index], value=index + 7)
            except Exception as error:  # noqa: BLE001 - judged by `violations`
                results[index] = error

        self.proxy.clear(counters=True)
        arm(self.proxy, schedule)
        with anyio.move_on_after(timeout + HANG_GUARD):
            async with anyio.create_task_group() as group:
                for index in range(kind.calls):
                    group.start_soon(call, index)
        self.suspect = any(result is None for result in results)
        pending = self.proxy.pending
        self.proxy.clear()
        runs = [self.stand.runs[f"{kind.tool}:{key}"] for key in keys]
        return Outcome(results, runs, self.proxy.trace, pending, timeout, self.answers)


def _held(schedule: Schedule) -> bool:
    return any(hit.fault == "hold" for hit in schedule)


def _says_not_received(error: BaseException, pkg: ModuleType, unsafe: bool) -> bool:
    if isinstance(error, pkg.OutcomeUnknownError | pkg.RequestTimeoutError):
        return False
    if isinstance(error, pkg.ConnectionClosedError | pkg.ConnectError):
        return True  # "the server did not get it"
    return unsafe  # a tool not safe to repeat that may have run raises OutcomeUnknownError


def _recovers(schedule: Schedule) -> bool:
    return all(hit.fault in TRANSIENT or (hit.step in RENEWAL and hit.fault != "hold") for hit in schedule)


def violations(pkg: ModuleType, kind: Kind, schedule: Schedule, outcome: Outcome) -> list[str]:
    """What the run broke of the invariants 1-4 (the module docstring)."""
    problems: list[str] = []
    unsafe = kind.tool == UNSAFE
    for index, (result, ran) in enumerate(zip(outcome.results, outcome.runs, strict=True)):
        shown = f"{type(result).__name__}: {result}" if isinstance(result, BaseException) else repr(result)
        if result is None:
            problems.append(f"call {index} still running {HANG_GUARD:g} s after its timeout ({outcome.timeout:g} s)")
        if unsafe and ran > 1:
            problems.append(f"call {index}: the unsafe tool ran {ran} times ({shown})")
        if ran and isinstance(result, BaseException) and _says_not_received(result, pkg, unsafe):
            problems.append(f"call {index} ran but raised {shown}")
        if not unsafe and _recovers(schedule) and result != index + 7:
            problems.append(f"call {index}: a safe call through faults a server recovers from failed: {shown}")
    return problems


class Report(NamedTuple):
    outcomes: list[tuple[Schedule, Outcome]]
    problems: list[str]


class Job(NamedTuple):
    schedule: Schedule
    slot: int


class Runner:
    """Runs schedules for one test: `LANES` lanes per server, each keeping its client from one level to the next.
    A level's even schedules run on the SSE server, its odd ones on the JSON one."""

    def __init__(self, pkg: ModuleType, stands: dict[str, Stand], kind: Kind) -> None:
        self.pkg, self.stands, self.kind = pkg, stands, kind
        self.queues: dict[str, Any] = {}
        self.outcomes: list[Outcome | None] = []
        self.problems: list[str] = []
        self.left = 0
        self.level_done = anyio.Event()

    async def run(self, schedules: Sequence[Schedule]) -> Report:
        """Run every schedule and check each run's invariants."""
        if not schedules:
            return Report([], [])
        self.outcomes, self.problems = [None] * len(schedules), []
        self.left, self.level_done = len(schedules), anyio.Event()
        for index, schedule in enumerate(schedules):
            await self.queues[ANSWERS[index % len(ANSWERS)]].send(Job(schedule, index))
        await self.level_done.wait()
        done = [(schedule, outcome) for schedule, outcome in zip(schedules, self.outcomes, strict=True) if outcome]
        return Report(done, self.problems)

    async def work(self, lane: Lane, jobs: Any, http: httpx2.AsyncClient) -> None:
        async with jobs:
            try:
                async for job in jobs:
                    try:
                        self.outcomes[job.slot] = await self.attempt(lane, job.schedule, http)
                    except Exception as error:  # noqa: BLE001 - the harness failed: say so, go on
                        self.problems.append(f"{describe(job.schedule)}: the run failed: {error!r}")
                        lane.suspect = True
                    self.left -= 1
                    if not self.left:
                        self.level_done.set()
            finally:
                await lane.stack.aclose()  # the client's task group was entered at this level of this task

    async def attempt(self, lane: Lane, schedule: Schedule, http: httpx2.AsyncClient) -> Outcome:
        timeouts = HOLD_TIMEOUTS if _held(schedule) else (CALL_TIMEOUT,)
        for timeout in timeouts:  # a held request: until the run reaches it before the call's timeout
            outcome = await lane.run(self.kind, schedule, timeout, http)
            self.problems += _explained(schedule, outcome, violations(self.pkg, self.kind, schedule, outcome))
            if not outcome.pending:
                break
        if self.kind.calls == 1 and outcome.pending:
            note = f"{outcome.pending} fault(s) never reached a request: the enumeration is not what it says"
            self.problems += _explained(schedule, outcome, [note])
        return outcome


@contextlib.asynccontextmanager
async def runner(pkg: ModuleType, stands: dict[str, Stand], kind: Kind) -> AsyncIterator[Runner]:
    made = Runner(pkg, stands, kind)
    async with httpx2.AsyncClient() as http, anyio.create_task_group() as group:
        for answers in ANSWERS:
            send, receive = anyio.create_memory_object_stream[Job](math.inf)
            made.queues[answers] = send
            for proxy in stands[answers].proxies:
                group.start_soon(made.work, Lane(pkg, stands[answers], proxy, answers), receive.clone(), http)
            receive.close()
        try:
            yield made
        finally:
            for send in made.queues.values():
                send.close()


def _explained(schedule: Schedule, outcome: Outcome, found: list[str]) -> list[str]:
    if not found:
        return []
    trace = ", ".join(entry.method + (f"[{entry.fault}]" if entry.fault else "") for entry in steps_of(outcome.trace))
    return [f"{describe(schedule)} ({outcome.answers}): {'; '.join(found)}\n    trace: {trace}"]


async def explore(pkg: ModuleType, stands: dict[str, Stand], kind: Kind, depth: int) -> Report:
    """Run every reachable schedule of up to `depth` faults, level by level: a level's schedules come from the
    traces of the level before (`children`)."""
    level: list[Schedule] = [()]
    done: list[tuple[Schedule, Outcome]] = []
    problems: list[str] = []
    async with runner(pkg, stands, kind) as runs:
        for faults in range(depth + 1):
            report = await runs.run(level)
            done += report.outcomes
            problems += report.problems
            if faults < depth:
                level = [child for schedule, outcome in report.outcomes for child in children(schedule, outcome.trace)]
    return Report(done, problems)


def _verdict(kind: Kind, report: Report, started: float, at_least: int = 1) -> None:
    print(f"{kind.label}: {len(report.outcomes)} schedules in {time.monotonic() - started:.1f} s")
    assert len(report.outcomes) >= at_least, f"only {len(report.outcomes)} schedules: the enumeration shrank"
    problems = report.problems
    assert not problems, f"{len(problems)} runs of {len(report.outcomes)} schedules broke an invariant:\n" + "\n".join(
        problems[:30]
    )


ENUMERATED = [Kind(tool, "alive", calls) for tool in (UNSAFE, SAFE) for calls in (1, 2)]
RENEWED = [Kind(tool, "lost", calls) for tool in (UNSAFE, SAFE) for calls in (1, 2)]
#: Fewer schedules than this means the enumeration shrank (a tenth below what it was when written).
AT_LEAST = {
    "bump-alive-1call": 30,
    "bump-alive-2call": 115,
    "put-alive-1call": 50,
    "put-alive-2call": 160,
    "bump-lost-1call": 50,
    "bump-lost-2call": 65,
    "put-lost-1call": 50,
    "put-lost-2call": 65,
}


#: Every schedule of up to two faults on a live session; of one fault while a lost session is renewed.
DEPTHS = {"alive": 2, "lost": 1}


@pytest.mark.parametrize("kind", ENUMERATED + RENEWED, ids=[kind.label for kind in ENUMERATED + RENEWED])
async def test_every_schedule_keeps_the_invariants(pkg: ModuleType, stands: dict[str, Stand], kind: Kind) -> None:
    started = time.monotonic()
    _verdict(kind, await explore(pkg, stands, kind, DEPTHS[kind.world]), started, AT_LEAST[kind.label])


SAMPLED = [Kind(tool, world, calls) for tool in (UNSAFE, SAFE) for world in ("alive", "lost") for calls in (1, 2)]


@pytest.mark.parametrize("kind", SAMPLED, ids=[kind.label for kind in SAMPLED])
async def test_deeper_schedules_sampled_keep_the_invariants(
    pkg: ModuleType, stands: dict[str, Stand], kind: Kind
) -> None:
    """`SAMPLES` random walks of three or four faults, each fault at a request the run before it sent (every
    step of a walk is a schedule run and checked; a walk ends early where its run sent nothing more)."""
    started = time.monotonic()
    rng = random.Random(f"{SEED}-{kind.label}")
    walks: list[tuple[Schedule, int]] = [((), 3 + index % 2) for index in range(SAMPLES)]
    done: list[tuple[Schedule, Outcome]] = []
    problems: list[str] = []
    async with runner(pkg, stands, kind) as runs:
        traces: dict[Schedule, list[LogEntry]] = {(): (await runs.run([()])).outcomes[0][1].trace}
        while walks:
            stepped: list[tuple[Schedule, int]] = []
            for schedule, length in walks:
                child = extend_randomly(schedule, traces[schedule], rng)
                if child is not None:
                    stepped.append((child, length))
            report = await runs.run([schedule for schedule, _ in stepped])
            done += report.outcomes
            problems += report.problems
            walks = []
            for (schedule, length), (_, outcome) in zip(stepped, report.outcomes, strict=True):
                traces[schedule] = outcome.trace
                if len(schedule) < length:
                    walks.append((schedule, length))
    _verdict(kind, Report(done, problems), started)


async def run_one(pkg: ModuleType, stands: dict[str, Stand], kind: Kind, schedule: Schedule) -> Outcome:
    """One run of `schedule` on the SSE server, its invariants checked."""
    async with httpx2.AsyncClient() as http:
        lane = Lane(pkg, stands["sse"], stands["sse"].proxies[0], "sse")
        async with lane.stack:
            outcome = await lane.run(kind, schedule, CALL_TIMEOUT, http)
            await lane.stack.aclose()
    assert not violations(pkg, kind, schedule, outcome)
    return outcome


async def test_a_gateways_404_then_a_failed_renewal_runs_an_unannotated_tool_once_and_says_it_may_have_run(
    pkg: ModuleType, stands: dict[str, Stand]
) -> None:
    """The schedule of issue 56: a `404` on the call (after the gateway forwarded it: the tool ran) and on the
    `ping`, then a `500` on the next `initialize`. The call is not sent again, and says it may have run."""
    schedule = (Hit("tools/call", 1, "404_after", 0), Hit("ping", 1, "404", 1), Hit("initialize", 1, "500", 2))
    outcome = await run_one(pkg, stands, Kind(UNSAFE, "alive", 1), schedule)
    assert outcome.runs == [1] and outcome.pending == 0
    (error,) = outcome.results
    assert isinstance(error, pkg.OutcomeUnknownError), error
    assert "may have run" in str(error) and "did not get" not in str(error)
    assert "then opening a new session failed" in str(error)
    assert [entry.method for entry in steps_of(outcome.trace)] == ["tools/call", "ping", "initialize"]


async def test_a_call_that_may_have_run_stays_so_through_every_failed_renewal(
    pkg: ModuleType, stands: dict[str, Stand]
) -> None:
    """A safe call the gateway forwarded (`404` after it ran), whose session then refuses the `ping`, and every
    renewal fails (`500` to each `initialize`): renewals are tried again while the timeout allows, and the error
    still says the call may have run."""
    refusals = (Hit("tools/call", 1, "404_after", 0), Hit("ping", 1, "404", 1))
    failures = tuple(Hit("initialize", number, "500", 1 + number) for number in range(1, 10))
    outcome = await run_one(pkg, stands, Kind(SAFE, "alive", 1), refusals + failures)
    assert outcome.runs == [1]
    (error,) = outcome.results
    assert isinstance(error, pkg.OutcomeUnknownError), error
    assert "may have run" in str(error) and "did not get" not in str(error)
    renewals = [entry.method for entry in steps_of(outcome.trace)].count("initialize")
    retries: Any = fast(pkg)
    assert renewals == 1 + retries.max_retries  # the first renewal, then one per retry
