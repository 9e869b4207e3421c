"""Model generator worker processes, started early so the generator's slow start overlaps the rest of a run.

Importing datamodel-code-generator and its first call cost about 0.25-0.4 s, as much as generating dozens of
tools. A run that is about to generate opens `warm_workers()` before it even imports the pipeline (a
regeneration from a file, before it imports the command line: `_console`): one worker per core (one only when
regenerating a package whose models are probably cached: the few tools that changed, `regeneration_workers`) is
started at once, imports the generator and makes a throwaway call while the main process reads the snapshot,
plans the tools and reads the model cache. `tool_models` then hands the tools that missed the cache to
these workers (the main process never imports the generator); when every tool hits, they are never used
and are stopped when the block ends. Outside such a block, workers are started only for many misses, after
the generator is imported, so forked workers inherit it.

Each worker answers one share of tool units at a time over a pipe; a worker that dies costs time only (its
share is generated in the main process).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

Unit = dict[str, Any]
Entry = dict[str, Any]

_active: list[Worker] | None = None
#: Shares per worker when what comes back is used as it arrives (`run_units(received=...)`): the first ones are
#: used while the last are made, and a worker that finishes early takes the next.
SHARES_PER_WORKER = 3


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def warm_workers(count: int | None = None, more: Callable[[], bool] | None = None) -> Iterator[None]:
    """Within the block, `tool_models` uses `count` workers (default: one per core) started (and warmed up) on
    entry, then one per core if `more()` says so once they are started (a check that would delay them), and more,
    up to one per core, if it then has many tools to generate; they all stop on exit."""
    global _active
    if _active is not None or cores() < 2:  # nested, or nothing to overlap with
        yield
        return
    workers: list[Worker] = []
    _active = workers
    try:
        _start(max(1, min(count or cores(), cores())), warm=True, into=workers)
        if more is not None and len(workers) < cores() and more():
            _start(cores() - len(workers), warm=True, into=workers)
        yield
    finally:
        _active = None
        for worker in workers:
            worker.stop()


def regeneration_workers() -> AbstractContextManager[None]:
    """`warm_workers` for regenerating a package: one worker at once for the few tools that changed (a second would
    compete with the main process for a core), the others as soon as the cache turns out to hold no models of this
    generator (a new version of it: every tool to make)."""
    return warm_workers(1, more=_no_models_cached)


def _no_models_cached() -> bool:
    from mcp_codegen.generate.cache import has_results
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    return not has_results("models", generator_fingerprint())


def stop_warm() -> None:
    """Stop the open block's workers now: the run has no models to make (its package is up to date). The block stays
    open: workers are started again if models are asked for after all."""
    if _active:
        for worker in _active:
            worker.stop()
        _active.clear()


def warm() -> bool:
    """Whether a `warm_workers()` block is open (a nested one starts nothing)."""
    return _active is not None


def run_units(
    units: Sequence[Unit],
    count: int,
    while_waiting: Callable[[], None] = lambda: None,
    weights: Sequence[int] | None = None,
    received: Callable[[int, list[Entry]], None] | None = None,
) -> list[Entry]:
    """`model_units.generate_units(units)`, split into contiguous shares of about equal `weights` (what each unit
    is expected to cost; equal by default) over `count` worker processes (the warm ones when a `warm_workers()`
    block is open); results come back in order whatever the split. `while_waiting` runs once the first shares are
    sent (or, without workers, first). With `received(start, entries)`, called as each share's entries arrive
    (`start`: the index of its first unit), the units are cut into `SHARES_PER_WORKER` shares per worker, each
    worker taking the next one as it answers: what comes back is used while the rest is made."""
    from mcp_codegen.generate.model_units import generate_units

    if not units:
        while_waiting()
        return []
    workers = _active
    started: list[Worker] = []
    if workers is not None and len(workers) < min(count, cores()):
        # More to generate than the block expected: the others join (stopped with the block's).
        _start(min(count, cores()) - len(workers), warm=True, into=workers)
    if workers is None:
        if count <= 1:
            while_waiting()
            entries = generate_units(units)
            if received is not None:
                received(0, entries)
            return entries
        import datamodel_code_generator  # noqa: F401 - imported once here, inherited by forked workers

        workers = started
    try:
        if workers is started:
            _start(count, warm=False, into=started)
        count = max(1, min(count, len(workers), len(units)))
        rounds = SHARES_PER_WORKER if received is not None and len(units) >= 4 * SHARES_PER_WORKER * count else 1
        shares = _shares(units, count * rounds, weights if weights is not None else [1] * len(units))
        starts = [sum(len(share) for share in shares[:index]) for index in range(len(shares))]
        answers: dict[int, list[Entry]] = {}
        queue = list(range(len(shares)))
        busy: dict[int, int] = {}  # worker index -> the share it is making
        for index in range(count):
            if queue and workers[index].send(shares[queue[0]]):
                busy[index] = queue.pop(0)
        while_waiting()
        while busy:
            ready = set(wait([workers[index].connection for index in busy]))
            for index in [index for index in busy if workers[index].connection in ready]:
                share = busy.pop(index)
                answer = workers[index].receive()
                if answer is not None and queue and workers[index].send(shares[queue[0]]):
                    busy[index] = queue.pop(0)
                answers[share] = answer if answer is not None else generate_units(shares[share])
                if received is not None:
                    received(starts[share], answers[share])
        for share in queue:  # the workers died: made here
            answers[share] = generate_units(shares[share])
            if received is not None:
                received(starts[share], answers[share])
        return [entry for share in range(len(shares)) for entry in answers[share]]
    finally:
        for worker in started:
            worker.stop()


def _shares(units: Sequence[Unit], count: int, weights: Sequence[int]) -> list[list[Unit]]:
    """`units` cut into at most `count` contiguous shares of about equal total weight, none empty."""
    total, start, reached = sum(weights), 0, 0
    shares: list[list[Unit]] = []
    for index, weight in enumerate(weights):
        reached += weight
        if len(shares) < count - 1 and reached * count >= total * (len(shares) + 1):
            shares.append(list(units[start : index + 1]))
            start = index + 1
    shares.append(list(units[start:]))
    return [share for share in shares if share]


def _start(count: int, *, warm: bool, into: list[Worker]) -> None:
    """Start `count` workers, each added to `into` before Ctrl-C can land (so whoever stops `into` stops every
    one): SIGINT is held back across each start, and a forked worker ignores it before letting it through."""
    for _ in range(count):
        with _sigint_held():
            into.append(Worker(warm=warm))


@contextmanager
def _sigint_held() -> Iterator[None]:
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _start_method() -> str:
    # Forking skips re-importing everything; elsewhere (macOS, Windows) workers are spawned.
    return "fork" if sys.platform == "linux" else "spawn"


class Worker:
    """One worker process and the pipe to it."""

    def __init__(self, *, warm: bool) -> None:
        context = multiprocessing.get_context(_start_method())
        self.connection, child = context.Pipe()
        process_type: type[BaseProcess] = context.Process  # type: ignore[attr-defined]  # every context has one
        self.process = process_type(target=_serve, args=(child, warm), daemon=True)
        self.process.start()
        child.close()

    def send(self, units: list[Unit]) -> bool:
        try:
            self.connection.send(units)
        except (OSError, ValueError):
            return False
        return True

    def receive(self) -> list[Entry] | None:
        """The worker's entries, or None when it died; an error inside it is raised here."""
        try:
            ok, payload = self.connection.recv()
        except (EOFError, OSError):
            return None
        if not ok:
            raise payload
        return list(payload)

    def stop(self) -> None:
        self.connection.close()
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()


def _serve(connection: Connection, warm: bool) -> None:
    # Ctrl-C reaches the whole process group: the main process decides what it means and stops its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held back while it was forked
    from mcp_codegen.generate.model_units import generate_units

    if warm:
        from mcp_codegen.generate.models import run_datamodel_codegen

        run_datamodel_codegen({"$defs": {"Warm": {"type": "object", "properties": {"x": {"type": "integer"}}}}}, {})
    # Forked from a run that paused the cyclic collector (`collector.py`): on again here, where the model
    # generator may run for long; what the worker holds by now (the imported modules) is never scanned again.
    gc.freeze()
    gc.enable()
    while True:
        try:
            units = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, generate_units(units))
        except Exception as error:  # raised again in the main process
            answer = (False, error)
        connection.send(answer)
