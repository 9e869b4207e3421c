"""No call outlives its run: however a run of code ends, the server sees no further call from it.

A run ends one of six ways here: the code returns, raises, or hits the time, call or output limit, or the
caller cancels `run_code()`. Hypothesis draws how many calls finish first and how many are still in flight
(started without `await`, or awaited together by `asyncio.gather`), against `ledger_server`, an SDK MCPServer
in memory whose `hold` tool runs until the client cancels it. For each run:

* it ends the planned way, and `.calls` says how each call ended (`error` is None only for a success; a
  call in flight at the end is "cancelled");
* every call the server started has ended (a `hold` ends only by `notifications/cancelled`), and each is one
  `.calls` lists;
* after a later call on the same client has come back, the server has started nothing more of that run.

Waits are on the ledger's events, never sleeps; a wall-clock bound is asserted only loosely.
"""

from __future__ import annotations

import time
from itertools import count
from types import ModuleType
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ledger_server import Ledger, build_ledger_server

from mcp_codegen_runtime.code_mode.sandbox import run_in_sandbox

ENDINGS = ("returns", "raises", "time", "calls", "output", "cancelled")
_runs = count(1)


def _program(ending: str, run: str, quick: int, held: int, gathered: bool) -> str:
    """The code of one run: `quick` calls that finish, `held` calls in flight, then the ending."""
    lines = [
        "import code_ledger_client as api",
        "import asyncio",
        f"for i in range({quick}):",
        f"    await api.work(key=f'{run}:work{{i}}')",
    ]
    holds = f"[api.hold(key=f'{run}:hold{{i}}') for i in range({held})]"
    if ending in ("time", "cancelled"):  # waits on calls that end only when cancelled
        waits = f"await asyncio.gather(*{holds})" if gathered else f"held = {holds}\nawait held[0]"
        return "\n".join([*lines, waits]) + "\n"
    if ending == "returns":  # returns with the calls (or their gather) never awaited
        started = f"pending = asyncio.gather(*{holds})" if gathered else f"held = {holds}"
        return "\n".join([*lines, started, "'returned'"]) + "\n"
    last = {
        "raises": f"await api.work(key='{run}:last')\nraise ValueError('boom')",
        "calls": f"for i in range(100):\n    await api.work(key=f'{run}:more{{i}}')",
        "output": "while True:\n    print('x' * 100)",
    }[ending]
    if not gathered:
        return "\n".join([*lines, f"held = {holds}", last]) + "\n"
    body = "\n".join(f"    {line}" for line in last.splitlines())
    return "\n".join([*lines, "async def ending() -> None:", body, f"await asyncio.gather(*{holds}, ending())"]) + "\n"


async def _run(
    client: Any, ledger: Ledger, ending: str, run: str, code: str, quick: int, held: int
) -> tuple[object, float]:
    module = client._sandbox_module()
    limits: dict[str, Any] = {"timeout": 1.0 if ending == "time" else 60.0}
    if ending == "calls":
        limits["max_calls"] = quick + held + 1  # the second call of the last loop is one too many
    if ending == "output":
        limits["max_output"] = 2000
    started = time.monotonic()
    if ending != "cancelled":
        try:
            return await run_in_sandbox(code, [module], **limits), time.monotonic() - started
        except Exception as error:  # noqa: BLE001 - compared below
            return error, time.monotonic() - started
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: run_in_sandbox(code, [module], **limits))
            # Cancel once every call in flight has reached the server (they wait to be cancelled).
            await ledger.wait_until(lambda: len(ledger.of_run(ledger.started, run)) >= held)
            scope.cancel()
    assert scope.cancelled_caught
    return "cancelled", time.monotonic() - started


def _check_ending(pkg: ModuleType, ending: str, outcome: object) -> tuple[Any, ...]:
    """The run ended as planned; its calls (none when the caller cancelled)."""
    if ending == "returns":
        assert isinstance(outcome, pkg.CodeResult) and outcome.value == "returned", outcome
        return tuple(outcome.calls)
    if ending == "cancelled":
        assert outcome == "cancelled"
        return ()
    if ending == "raises":
        assert isinstance(outcome, pkg.CodeError) and "boom" in str(outcome), outcome
    else:
        assert isinstance(outcome, pkg.CodeLimitError) and outcome.limit == ending, outcome
        assert "line None" not in str(outcome)
    return tuple(outcome.calls)


async def _one_run(pkg: ModuleType, ending: str, quick: int, held: int, gathered: bool) -> None:
    ledger = Ledger()
    run = f"r{next(_runs)}"
    code = _program(ending, run, quick, held, gathered)
    async with pkg.AsyncClient.in_process(build_ledger_server(ledger)) as client:
        outcome, took = await _run(client, ledger, ending, run, code, quick, held)
        calls = _check_ending(pkg, ending, outcome)
        # How each call ended, said plainly: an error for all but a success; calls in flight were cancelled.
        for call in calls:
            assert call.status in ("succeeded", "failed", "cancelled"), call
            assert (call.error is None) == (call.status == "succeeded"), call
            if ":hold" in call.arguments["key"]:
                assert call.status == "cancelled" and "may have run" in (call.error or ""), call
            elif ending != "time":
                assert call.status == "succeeded", call
        if ending == "time":
            assert took < 30, took  # the deadline ended it, not the calls (which never end by themselves)

        # Every call the server started has ended: each `hold` by the cancellation the client sent.
        await ledger.wait_until(lambda: not ledger.of_run(ledger.active(), run))
        seen = ledger.of_run(ledger.started, run)
        assert set(ledger.of_run(ledger.cancelled, run)) == {key for key in seen if ":hold" in key}
        if ending != "cancelled":
            assert set(seen) <= {call.arguments["key"] for call in calls}
        # A later call on the same client comes back, and the run has started nothing more meanwhile.
        assert await client.work(key="after") == "after"
        await ledger.wait_until(lambda: not ledger.active())
        assert ledger.of_run(ledger.started, run) == seen


@pytest.mark.parametrize("gathered", [False, True], ids=["in-flight", "gathered"])
@pytest.mark.parametrize("ending", ENDINGS)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(quick=st.integers(0, 3), held=st.integers(1, 4))
def test_no_call_outlives_its_run(code_ledger: ModuleType, ending: str, gathered: bool, quick: int, held: int) -> None:
    anyio.run(_one_run, code_ledger, ending, quick, held, gathered)


async def _settled_after(pkg: ModuleType, code: str, **limits: Any) -> tuple[object, Ledger, list[str]]:
    """Run `code` through `run_code()` on a fresh ledger server; its outcome, the ledger, and what the server
    had started once the run's calls ended and a later call came back."""
    ledger = Ledger()
    async with pkg.AsyncClient.in_process(build_ledger_server(ledger)) as client:
        try:
            outcome: object = await client.run_code(code, **limits)
        except pkg.CodeRunError as error:
            outcome = error
        await ledger.wait_until(lambda: not ledger.active())
        seen = list(ledger.started)
        assert await client.work(key="after") == "after"
        await ledger.wait_until(lambda: not ledger.active())
    assert ledger.started == [*seen, "after"]
    return outcome, ledger, seen


@pytest.mark.anyio
async def test_two_thousand_gathered_calls_stop_at_the_call_limit(code_ledger: ModuleType) -> None:
    code = (
        "import code_ledger_client as api\nimport asyncio\n"
        "await asyncio.gather(*[api.work(key=f'g:{i}') for i in range(2000)])\n"
    )
    error, _, seen = await _settled_after(code_ledger, code)
    assert isinstance(error, code_ledger.CodeLimitError) and error.limit == "calls"
    assert "1000 tool calls" in str(error)
    assert len(error.calls) == 1000 and len(seen) <= 1000
    assert set(seen) <= {call.arguments["key"] for call in error.calls}


@pytest.mark.anyio
async def test_the_suspension_limit_is_a_limit_that_names_itself(code_ledger: ModuleType) -> None:
    code = "import asyncio\nfor i in range(100000):\n    await asyncio.sleep(0.00001)\n"
    error, _, _ = await _settled_after(code_ledger, code, timeout=120)
    assert isinstance(error, code_ledger.CodeLimitError) and error.limit == "suspensions"
    assert "suspension limit" in str(error) and error.line == 3


SLEEPS = {
    "time.sleep in a loop": "import time\nfor i in range(3):\n    time.sleep(5)\n",
    "asyncio.sleep in a loop": "import asyncio\nfor i in range(3):\n    await asyncio.sleep(5)\n",
    "gathered sleeps": "import asyncio\nawait asyncio.gather(*[asyncio.sleep(5) for i in range(3)])\n",
    "caught": "import time\nfor i in range(3):\n    try:\n        time.sleep(5)\n    except BaseException:\n        pass\n",
    "an awaited call": "import code_ledger_client as api\nawait api.hold(key='held')\n",
}


@pytest.mark.anyio
@pytest.mark.parametrize("what", sorted(SLEEPS))
async def test_the_time_limit_is_wall_clock_over_sleeps_and_calls(code_ledger: ModuleType, what: str) -> None:
    started = time.monotonic()
    error, ledger, _ = await _settled_after(code_ledger, SLEEPS[what], timeout=1)
    took = time.monotonic() - started
    assert isinstance(error, code_ledger.CodeLimitError) and error.limit == "time", error
    assert took < 10, took  # the limit, loosely: the sleeps alone are 15 s
    assert ledger.cancelled == [key for key in ledger.started if key == "held"]


@pytest.mark.anyio
async def test_a_call_after_the_limit_and_a_later_run_are_unaffected(code_ledger: ModuleType) -> None:
    ledger = Ledger()
    async with code_ledger.AsyncClient.in_process(build_ledger_server(ledger)) as client:
        module = client._sandbox_module()
        with pytest.raises(code_ledger.CodeLimitError) as raised:
            await run_in_sandbox(
                "import code_ledger_client as api\nfor i in range(5):\n    await api.work(key=f'k{i}')\n",
                [module],
                max_calls=2,
            )
        assert [call.arguments["key"] for call in raised.value.calls] == ["k0", "k1"]
        assert "2 tool calls" in str(raised.value)
        result = await client.run_code("import code_ledger_client as api\nawait api.work(key='next')\n")
    assert result.value == "next" and ledger.started == ["k0", "k1", "next"]
