"""The retry policy on its own (`runtime/calls/retries.py`): what is safe to repeat, waits, `Retry-After`, settings."""

from __future__ import annotations

import random
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import pytest

from mcp_codegen.runtime.calls.retries import (
    DEFAULT_RETRIES,
    NO_RETRIES,
    Fault,
    Retries,
    fault_error_data,
    fault_of,
    retries_setting,
    retry_after_seconds,
)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("0") == 0.0
    assert retry_after_seconds(" 7 ") == 7.0
    now = datetime(2026, 11, 27, 12, 0, 0, tzinfo=timezone.utc)
    later = format_datetime(now + timedelta(seconds=30), usegmt=True)  # "Fri, 27 Nov 2026 12:00:30 GMT"
    assert retry_after_seconds(later, now=now.timestamp()) == pytest.approx(30.0)
    past = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds(past, now=now.timestamp()) == 0.0
    for unreadable in (None, "", "soon", "-3", "1.5e3"):
        assert retry_after_seconds(unreadable) is None


def test_waits_grow_with_jitter_cap_and_respect_the_floor() -> None:
    policy = Retries(initial_delay=1.0, multiplier=2.0, max_delay=5.0)
    rng = random.Random(3)
    for retry, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        waits = [policy.delay(retry, None, rng) for _ in range(200)]
        assert min(waits) >= ceiling / 2 and max(waits) <= ceiling
        assert max(waits) - min(waits) > ceiling / 4  # jittered, not constant
    assert policy.delay(1, 12.0, rng) == 12.0  # Retry-After is the floor, even above max_delay
    assert policy.delay(3, 0.5, rng) >= 2.0


def test_what_may_be_repeated() -> None:
    policy = Retries(repeatable={"bump": True, "lookup": False})
    for method in (
        "tools/list",
        "resources/read",
        "prompts/get",
        "ping",
        "completion/complete",
        "prompts/list",
        "tasks/get",
    ):
        assert policy.may_repeat(method, None, None)
    for method in ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel"):  # cancelling twice is cancelling once
        assert policy.may_repeat(method, None, None)
    assert not policy.may_repeat("tasks/update", None, None)
    assert not policy.may_repeat("tools/call", "write", None)
    assert not policy.may_repeat("tools/call", "write", {"destructiveHint": False, "readOnlyHint": False})
    assert policy.may_repeat("tools/call", "read", {"readOnlyHint": True})
    assert policy.may_repeat("tools/call", "put", {"idempotentHint": True})
    assert not policy.may_repeat("tools/call", "quirky", {"readOnlyHint": "true"})  # only a JSON true counts
    assert policy.may_repeat("tools/call", "bump", None)  # the user knows better than the annotations
    assert not policy.may_repeat("tools/call", "lookup", {"readOnlyHint": True})


def test_settings_and_their_errors() -> None:
    assert retries_setting(None) is None
    assert retries_setting(0) is NO_RETRIES and NO_RETRIES.max_retries == 0
    assert retries_setting(5) is DEFAULT_RETRIES
    assert retries_setting(2) == Retries(max_retries=2)
    custom = Retries(max_retries=1)
    assert retries_setting(custom) is custom
    with pytest.raises(TypeError):
        retries_setting(True)
    with pytest.raises(TypeError):
        retries_setting("3")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Retries(max_retries=-1)
    with pytest.raises(ValueError):
        Retries(initial_delay=-0.1)
    with pytest.raises(ValueError):
        Retries(multiplier=0.5)


def test_a_fault_travels_in_error_data_and_nothing_else_reads_as_one() -> None:
    class Carrier(Exception):
        def __init__(self, code: int, data: object) -> None:
            super().__init__("x")
            self.code, self.data = code, data

    fault = Fault("not_processed", "HTTP 429", retry_after=2.0, status=429)
    assert fault_of(Carrier(-32099, fault_error_data(fault))) == fault
    gone = Fault("not_processed", "the server no longer knows the session", status=404, new_session=True)
    assert fault_of(Carrier(-32099, fault_error_data(gone))) == gone
    assert fault_of(Carrier(-32000, fault_error_data(fault))) is None  # another code
    assert fault_of(Carrier(-32099, {"other": 1})) is None  # a server's own -32099
    assert fault_of(Carrier(-32099, {"mcp_codegen.fault": {"kind": "weird"}})) is None
    assert fault_of(ValueError("plain")) is None
