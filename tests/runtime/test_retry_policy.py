"""The retry policy on its own (`runtime/calls/retries.py`): what is safe to repeat, waits, `Retry-After`, settings."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from mcp_codegen_runtime.calls.retries import (
    DEFAULT_RETRIES,
    NO_RETRIES,
    Fault,
    Retries,
    retries_setting,
    retry_after_seconds,
)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("0") == 0.0
    assert retry_after_seconds(" 7 ") == 7.0
    now = datetime(2026, 11, 27, 12, 0, 0, tzinfo=UTC)
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


def test_the_status_rules_session_loss_503_and_the_servers_own_answer() -> None:
    from mcp_types import ErrorData

    from mcp_codegen_runtime.connection.resilient_http import status_fault

    stand_in = ErrorData(code=-32603, message="Server returned an error response")
    ts_404 = ErrorData(code=-32001, message="Session not found")  # the TypeScript SDK's transport
    everything_400 = ErrorData(code=-32000, message="Bad Request: No valid session ID provided")
    own = ErrorData(code=-32000, message="Service overloaded, try later")
    gone = status_fault(404, None, True, ts_404)
    assert gone is not None and gone.new_session and gone.kind == "not_processed"
    assert status_fault(404, None, False, ts_404) is None  # no session yet: the server's answer
    renewed = status_fault(400, None, True, everything_400)
    assert renewed is not None and renewed.new_session and renewed.status == 400
    assert status_fault(400, None, True, ErrorData(code=-32602, message="Invalid params")) is None
    waited = status_fault(503, "2", True, stand_in)
    assert waited is not None and waited.kind == "not_processed" and waited.retry_after == 2.0
    bare = status_fault(503, None, True, stand_in)  # a gateway's upstream reset: it may have run
    assert bare is not None and bare.kind == "maybe_processed"
    assert status_fault(503, "1", True, own) is None  # the server wrote it: its answer
    throttled = status_fault(429, None, True, stand_in)
    assert throttled is not None and throttled.kind == "not_processed"


def test_a_404_is_not_processed_only_in_the_servers_own_words() -> None:
    """The server's JSON-RPC error about the session: it never ran the request. Any other 404 may be a gateway's,
    answered after forwarding: the session is checked all the same, but the request may have run."""
    from mcp_types import ErrorData

    from mcp_codegen_runtime.connection.resilient_http import status_fault

    for words in ("Session not found", "Not Found: Session has been terminated"):
        said = status_fault(404, None, True, ErrorData(code=-32600, message=words))
        assert said is not None and (said.kind, said.new_session) == ("not_processed", True)
    sdk_stand_in = ErrorData(code=-32600, message="Session terminated")  # what the SDK makes of a bare 404
    gateway = status_fault(404, None, True, sdk_stand_in)
    assert gateway is not None and (gateway.kind, gateway.new_session) == ("maybe_processed", True)
    sessionless = status_fault(404, None, False, ErrorData(code=-32601, message="Not Found"))
    assert sessionless is not None and (sessionless.kind, sessionless.new_session) == ("maybe_processed", False)


def test_a_request_is_as_processed_as_its_most_processed_attempt() -> None:
    maybe = Fault("maybe_processed", "connection dropped")
    refused = Fault("not_processed", "the server no longer knows the session", status=404, new_session=True)
    assert maybe.then(refused).kind == "maybe_processed"
    assert maybe.then(refused).status == 404  # the later fault, as it stands for the request
    assert refused.then(maybe) is maybe and refused.then(refused) is refused
    failed = maybe.renewal_failed()
    assert (failed.kind, failed.status, failed.new_session) == ("maybe_processed", None, True)
    assert failed.renewal_failed() == failed  # the cause does not grow with every failed renewal
    assert refused.renewal_failed().kind == "not_processed"


def test_repeatable_holds_by_wire_or_python_name() -> None:
    policy = Retries(repeatable={"get_user": False, "make-thing": True})
    read_only = {"readOnlyHint": True}
    assert not policy.may_repeat("tools/call", "get-user", read_only, "get_user")
    assert policy.may_repeat("tools/call", "make-thing", None, "make_thing")
    assert policy.may_repeat("tools/call", "other", read_only, "other")
