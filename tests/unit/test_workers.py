"""The model generator's worker processes: shares of equal weight, and none left running after a Ctrl-C."""

from __future__ import annotations

import pytest

from mcp_codegen.generate import workers


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
