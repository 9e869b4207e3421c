"""The SDK's private modules the project uses outside OAuth, pinned: an mcp upgrade that moves one fails here.

- `runtime/calls/input_required.py` drives a 2026-07-28 server's `InputRequiredResult` rounds with
  `mcp.client._input_required.run_input_required_driver` (the SDK's own driver; `mcp.Client` uses it, but only
  for the requests it sends itself, and the runtime sends through `ClientSession.send_request`), and answers
  the input requests of a 2026-07-28 task (`calls/task_extension.py`) with the driver's `_dispatch_all`.
- `snapshot/connect.py` taps a transport's read stream with the protocols of `mcp.client._transport`.
- `runtime/connection/cache.py` puts `mcp.client.caching.ClientResponseCache` (public module, not in its
  `__all__`; `mcp.Client` builds one the same way) beneath the runtime's own send path.
- `runtime/calls/tasks.py` (`UnvalidatedSession`) sends a task-augmented `tools/call` like
  `ClientSession.send_request` without its check of the answer against `CallToolResult` (a 2025-11-25 server
  answers `CreateTaskResult`): it uses the session's `_stamp` and `_dispatcher.send_raw_request`.
- `runtime/calls/result_forms.py` wraps the session's `_dispatcher.send_raw_request` (an instance attribute
  set per session) to read older `tools/call` result forms before the SDK validates them.
(The OAuth providers' private hooks are pinned in test_runtime_auth_sdk_pins.py.)
"""

from __future__ import annotations

import inspect
import typing

from mcp.client import _input_required, _transport, caching
from mcp.client.session import ClientSession


def test_the_input_required_driver_keeps_its_signature() -> None:
    driver = _input_required.run_input_required_driver
    assert inspect.iscoroutinefunction(driver)
    parameters = inspect.signature(driver).parameters
    assert list(parameters) == ["first", "dispatch", "retry", "max_rounds"]
    assert parameters["dispatch"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["retry"].kind is inspect.Parameter.KEYWORD_ONLY


def test_the_input_dispatcher_keeps_its_signature() -> None:
    dispatch_all = _input_required._dispatch_all
    assert inspect.iscoroutinefunction(dispatch_all)
    assert list(inspect.signature(dispatch_all).parameters) == ["requests", "dispatch"]


def test_the_transport_protocols_are_there() -> None:
    assert typing.get_origin(_transport.TransportStreams) is tuple
    for protocol in (_transport.ReadStream, _transport.Transport):
        assert getattr(protocol, "_is_protocol", False), protocol


def test_the_response_cache_coordinator_keeps_its_shape() -> None:
    parameters = inspect.signature(caching.ClientResponseCache).parameters
    assert {"store", "partition", "arm_id", "default_ttl_ms", "clock", "share_public", "negotiated_version"} <= set(
        parameters
    )
    for verb in ("read", "write", "evict_method", "evict_key", "evict_for_notification"):
        assert inspect.iscoroutinefunction(getattr(caching.ClientResponseCache, verb)), verb
    assert list(inspect.signature(caching.ClientResponseCache.capture).parameters) == ["self", "method", "params_key"]
    assert list(inspect.signature(caching.ClientResponseCache.write).parameters) == [
        "self",
        "method",
        "params_key",
        "result",
        "gen_at_capture",
        "mode",
    ]


def test_the_session_stamp_and_dispatcher_a_task_call_uses() -> None:
    import mcp_types
    from mcp.shared.dispatcher import Dispatcher

    source = inspect.getsource(ClientSession.send_request)
    assert "self._stamp(data, opts)" in source
    assert "self._dispatcher.send_raw_request(method, data.get(\"params\"), opts)" in source
    assert list(inspect.signature(Dispatcher.send_raw_request).parameters) == ["self", "method", "params", "opts"]
    # A task-augmented call's answer is what the SDK refuses for tools/call (why the runtime sends it raw).
    assert mcp_types.CreateTaskResult.model_fields.keys() >= {"task"}
