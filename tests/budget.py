"""The suite's time budget: no test over 30 s unless marked `slow` with its reason (CONTRIBUTING.md).

A `slow` mark without `reason=` stops collection. Tests over the budget without the mark are listed at the
end of a run, never failed: a loaded machine makes any test slow now and then, and timings are no verdict.
"""

from __future__ import annotations

import pytest

#: Seconds a test's call may take without the `slow` mark.
BUDGET_SECONDS = 30.0

_over_budget: list[tuple[str, float]] = []


def check_slow_reasons(items: list[pytest.Item]) -> None:
    """Stop collection at a `slow` mark that does not say why the test needs its time."""
    unexplained = sorted(
        {item.nodeid.split("[")[0] for item in items for mark in item.iter_markers("slow") if not mark.kwargs.get("reason")}
    )
    if unexplained:
        raise pytest.UsageError(
            "a `slow` mark needs its reason, `@pytest.mark.slow(reason=...)`: " + ", ".join(unexplained)
        )


def note_duration(report: pytest.TestReport) -> None:
    if report.when == "call" and "slow" not in report.keywords and report.duration > BUDGET_SECONDS:
        _over_budget.append((report.nodeid, report.duration))


def over_budget_lines() -> list[str]:
    return [f"{seconds:6.1f}s {nodeid}" for nodeid, seconds in sorted(_over_budget, key=lambda entry: -entry[1])]
