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
- `runtime/connection/resilient_http.py` subclasses `StreamableHTTPTransport` (its private POST and
  abandoned-request hooks) and builds its streams with `mcp.shared._context_streams`, `_httpx_utils` and
  `_compat`, as `streamable_http_client` does; `calls/errors.py` reads the SDK's own -32000/-32001 by wording.
- `runtime/connection/recovery.py` (`_read_timeout`) reads the default read timeout of a session the user made
  (`from_session()`) from `ClientSession._session_read_timeout_seconds`: the SDK has no public way to read it.
  Clients made by a connector use their own setting (the connector's `timeout=`), never this attribute.
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
    assert 'self._dispatcher.send_raw_request(method, data.get("params"), opts)' in source
    assert list(inspect.signature(Dispatcher.send_raw_request).parameters) == ["self", "method", "params", "opts"]
    # A task-augmented call's answer is what the SDK refuses for tools/call (why the runtime sends it raw).
    assert mcp_types.CreateTaskResult.model_fields.keys() >= {"task"}


def test_the_streamable_http_transport_hooks_the_resilient_transport_overrides() -> None:
    """`runtime/connection/resilient_http.py` subclasses the SDK's `StreamableHTTPTransport`: there is no public
    hook to confine a POST's failure to its request, to resolve an abandoned request with a fault, or to keep
    the GET stream reconnecting. It overrides `_handle_post_request(ctx)` and `_resolve_abandoned_request`, calls
    `_prepare_headers()` and `_handle_sse_event(event, writer)`, reads `session_id`, `url`, `max_sse_event_size`,
    and relies on each request's POST running in a task made in the sender's context (the `exchange` of a
    request is a context variable)."""
    from mcp.client import streamable_http
    from mcp.client.streamable_http import RequestContext, StreamableHTTPTransport

    transport = StreamableHTTPTransport

    assert list(inspect.signature(transport._handle_post_request).parameters) == ["self", "ctx"]
    resolve = inspect.signature(transport._resolve_abandoned_request).parameters
    assert list(resolve) == ["self", "read_stream_writer", "request_id", "message", "code"]
    assert resolve["code"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(transport._prepare_headers).parameters) == ["self"]
    assert list(inspect.signature(transport._handle_sse_event).parameters)[:3] == ["self", "sse", "read_stream_writer"]
    assert {"session_message", "read_stream_writer", "client", "session_id"} <= set(RequestContext.__dataclass_fields__)
    for attribute in ("session_id", "url", "max_sse_event_size"):
        assert attribute in inspect.getsource(transport.__init__), attribute
    writer = inspect.getsource(transport.post_writer)
    assert "sender_ctx.run(tg_local.start_soon, _handle_message, session_message)" in writer
    assert "tg.start_soon(self._run_request_post" in writer
    # What the SDK resolves a refused POST with when the body is no JSON-RPC error (resilient_http._SDK_STAND_INS).
    source = inspect.getsource(transport._handle_post_request)
    for stand_in in ('"Server returned an error response"', '"Session terminated"', 'message="Not Found"'):
        assert stand_in in source, stand_in
    assert streamable_http.LAST_EVENT_ID == "last-event-id"


def test_the_private_helpers_streamable_http_client_uses() -> None:
    """`resilient_streamable_http` is `streamable_http_client` with the resilient transport: it builds its
    streams and GET stream with the same private helpers the SDK's own function uses."""
    from mcp.shared import _compat, _context_streams, _httpx_utils

    assert inspect.iscoroutinefunction(_compat.resync_tracer)
    assert callable(_context_streams.create_context_streams)
    assert hasattr(_context_streams.ContextReceiveStream, "last_context")
    assert "client" in inspect.signature(_httpx_utils.sse_within_origin).parameters
    assert {"headers", "max_event_size"} <= set(inspect.signature(_httpx_utils.sse_within_origin).parameters)


def test_the_sdk_words_its_own_transport_signals_as_the_runtime_reads_them() -> None:
    """`calls.errors.sdk_connection_closed` / `sdk_request_timeout` tell the SDK's own -32000/-32001 from a
    server's by their wording (servers use both codes)."""
    from mcp.shared import jsonrpc_dispatcher

    source = inspect.getsource(jsonrpc_dispatcher)
    assert 'ErrorData(code=CONNECTION_CLOSED, message="Connection closed")' in source
    assert 'raise MCPError(code=REQUEST_TIMEOUT, message=f"Request {method!r} timed out")' in source


def test_the_session_keeps_its_read_timeout_where_a_from_session_client_reads_it() -> None:
    import anyio
    from mcp.shared.message import SessionMessage

    incoming = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    outgoing = anyio.create_memory_object_stream[SessionMessage](1)
    try:
        session = ClientSession(incoming[1], outgoing[0], read_timeout_seconds=7.5)
        assert session._session_read_timeout_seconds == 7.5
    finally:
        for stream in (*incoming, *outgoing):
            stream.close()
