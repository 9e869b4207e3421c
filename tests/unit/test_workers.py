"""The model generator's worker processes: shares of equal weight, and none left running after a Ctrl-C."""

from __future__ import annotations

import os

import pytest

from mcp_codegen.generate import model_units, workers


def test_shares_are_contiguous_and_of_about_equal_weight() -> None:
    units = [{"n": n} for n in range(6)]
    assert workers._shares(units, 2, [1] * 6) == [units[:3], units[3:]]
    assert workers._shares(units, 2, [10, 1, 1, 1, 1, 1]) == [units[:1], units[1:]]
    assert workers._shares(units[:1], 2, [5]) == [units[:1]]


def test_an_interrupt_while_workers_start_stops_those_already_started(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[workers.Worker] = []
    real = workers.Worker.__init__

    def start(self: workers.Worker, *, warm: bool) -> None:
        if started:
            raise KeyboardInterrupt  # Ctrl-C as the second worker starts
        real(self, warm=warm)
        started.append(self)

    monkeypatch.setattr(workers.Worker, "__init__", start)
    monkeypatch.setattr(workers, "cores", lambda: 2)
    with pytest.raises(KeyboardInterrupt), workers.warm_workers(2):
        pass
    assert len(started) == 1
    assert not started[0].process.is_alive()
    assert workers._active is None


def _made_here(units: list[dict[str, int]]) -> list[dict[str, int]]:
    return [{"made": unit["n"], "pid": os.getpid()} for unit in units]


def test_shares_are_handed_over_as_they_arrive_and_come_back_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_units, "generate_units", _made_here)  # before the workers are forked
    monkeypatch.setattr(workers, "cores", lambda: 2)
    units = [{"n": n} for n in range(40)]
    seen: list[tuple[int, list[int]]] = []
    with workers.warm_workers(2):
        entries = workers.run_units(
            units, 2, received=lambda start, got: seen.append((start, [e["made"] for e in got]))
        )
    assert [entry["made"] for entry in entries] == list(range(40))
    assert len(seen) == 2 * workers.SHARES_PER_WORKER
    assert sorted(n for _, made in seen for n in made) == list(range(40))
    assert all(made == list(range(start, start + len(made))) for start, made in seen)
    assert os.getpid() not in {entry["pid"] for entry in entries}  # all made by the workers


def test_a_worker_that_died_takes_no_share(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_units, "generate_units", _made_here)
    monkeypatch.setattr(workers, "cores", lambda: 2)
    units = [{"n": n} for n in range(40)]
    seen: list[int] = []
    with workers.warm_workers(2):
        assert workers._active is not None
        dead = workers._active[0].process
        dead.kill()
        dead.join()
        entries = workers.run_units(units, 2, received=lambda start, got: seen.extend(e["made"] for e in got))
    assert [entry["made"] for entry in entries] == list(range(40))
    assert sorted(seen) == list(range(40))
    assert dead.pid not in {entry["pid"] for entry in entries}
