"""Streamable HTTP where a failed POST fails its own request, never the session, and the GET stream comes back.

The SDK's transport runs every POST in one task group: a dropped connection raises out of it and
ends the whole session (every later call fails). This subclass keeps the session: a request whose
POST fails in transit is resolved with an error, and what happened is recorded as a typed
`calls.retries.Fault` in the request's `exchange.Exchange` (was it processed? `Retry-After`? is the
session gone?), which the client's retry policy reads. A status with an answer the server wrote is
left as the SDK delivers it: the server's answer reaches the caller unless its status says more:

- `404` to a request that carried `Mcp-Session-Id`, or `400` whose JSON-RPC error says the session
  id is missing, invalid or unknown (the TypeScript SDK's examples and server-everything): the
  session may be gone (what the client then checks with a `ping`: `recovery`). The request was not
  processed when the server said so in its own words (a JSON-RPC error about the session: the
  Python SDK's -32600 and the TypeScript SDK's -32001 "Session not found"); any other `404` may be
  a gateway's, which may answer it after forwarding the request: it may have run. So may a `404`
  without the server's JSON-RPC error to a request without a session (2026-07-28 has none).
- `408`, `429`: not processed. `503`: not processed with `Retry-After`; a server's own JSON-RPC
  error is its answer; a bare `503` (a gateway whose upstream reset) may have run, as `502`/`504`.

A notification's POST (or an answer to the server's request) holds up the session's later
messages for `_NOTIFICATION_WAIT` at most: the SDK sends them one after the other, and a POST that
a gateway never answers would stall the session.

The standing GET stream reconnects with backoff (and `Last-Event-ID`) for as long as the session
lives: a stream the server closes as soon as it opened is reopened ever more slowly (`StreamBackoff`). The handshake's transit errors still fail the connect (the connection retries it).

Private SDK names used (pinned in tests/runtime/test_sdk_private_pins.py): the transport's
`_handle_post_request`, `_resolve_abandoned_request`, `_prepare_headers`, `_handle_sse_event`
(there is no public hook to confine a POST's failure), and `mcp.shared._context_streams`,
`_httpx_utils.sse_within_origin`, `_compat.resync_tracer` (what `streamable_http_client` uses).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import logging
import math
import re
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import anyio.abc
import httpx2
from mcp.client.streamable_http import (
    LAST_EVENT_ID,
    RequestContext,
    StreamableHTTPTransport,
)
from mcp.shared._compat import resync_tracer
from mcp.shared._context_streams import create_context_streams
from mcp.shared._httpx_utils import sse_within_origin
from mcp.shared.message import SessionMessage
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
)

from ..calls.retries import Fault, retry_after_seconds
from .exchange import report

__all__ = [
    "StreamBackoff",
    "post_response_hook",
    "resilient_streamable_http",
    "status_fault",
]

_log = logging.getLogger(__name__)

#: Requests of the handshake: their transit errors fail the connect, which retries them.
_HANDSHAKE = frozenset({"initialize", "server/discover"})

#: Errors raised before the request was fully written: it cannot have reached a handler.
_UNSENT = (
    httpx2.ConnectError,
    httpx2.ConnectTimeout,
    httpx2.WriteError,
    httpx2.WriteTimeout,
    httpx2.PoolTimeout,
    httpx2.UnsupportedProtocol,
    httpx2.LocalProtocolError,
)

#: What the SDK resolves a request with when the status came without a JSON-RPC error body.
_SDK_STAND_INS = frozenset(
    {
        (-32603, "Server returned an error response"),
        (-32600, "Session terminated"),
        (-32601, "Not Found"),
    }
)

#: A `400` that speaks of the session id: "Bad Request: No valid session ID provided" and the like.
_SESSION_REFUSAL = re.compile(
    r"session.{0,20}\b(id|invalid|unknown|not found|missing|expired|terminated)\b"
    r"|\b(invalid|unknown|missing|no valid|expired)\b.{0,20}session",
    re.IGNORECASE,
)

#: How long a notification's POST may hold up the session's later messages (servers answer `202` at once).
_NOTIFICATION_WAIT = 1.0

#: The GET stream's waits between reconnects: doubling from the first, never more than the last.
_GET_FIRST_WAIT, _GET_MAX_WAIT = 0.5, 30.0


class StreamBackoff:
    """The waits before reopening the GET stream: doubling (capped) while streams end as soon as they
    open, back to the first after a stream that lived (stayed open at least as long as the wait
    before it); never shorter than the server's SSE `retry`."""

    __slots__ = ("wait",)

    def __init__(self) -> None:
        self.wait = _GET_FIRST_WAIT

    def next_pause(self, lived: float, retry_ms: int | None) -> float:
        """Seconds to wait after a stream that was open `lived` seconds."""
        if lived >= self.wait:
            self.wait = _GET_FIRST_WAIT
        pause = self.wait
        self.wait = min(self.wait * 2, _GET_MAX_WAIT)
        return max(pause, retry_ms / 1000) if retry_ms is not None else pause


@dataclasses.dataclass(slots=True)
class _PostAnswer:
    """What the response hook saw of this task's POST: its status and `Retry-After`, and the response."""

    status: int | None = None
    retry_after: str | None = None
    response: httpx2.Response | None = None

    def server_error(self) -> ErrorData | None:
        """The JSON-RPC error of an error body the SDK could not read as one (e.g. server-everything's
        400, which has no `id`), or None."""
        response = self.response
        try:
            found: object = (
                json.loads(response.content) if response is not None else None
            )
        except (httpx2.ResponseNotRead, ValueError):
            return None
        if not isinstance(found, dict):
            return None
        error = cast("dict[str, object]", found).get("error")
        if not isinstance(error, dict):
            return None
        try:
            return ErrorData.model_validate(error)
        except ValueError:
            return None


_post_answer: contextvars.ContextVar[_PostAnswer | None] = contextvars.ContextVar(
    "mcp_codegen_post_answer", default=None
)


async def post_response_hook(response: httpx2.Response) -> None:
    """An `httpx2` response hook: records the status of the POST this task is sending (see `_PostAnswer`)."""
    answer = _post_answer.get()
    if answer is not None and response.request.method == "POST":
        answer.status = response.status_code
        answer.retry_after = response.headers.get("retry-after")
        answer.response = response


def status_fault(
    status: int, retry_after: str | None, had_session: bool, error: ErrorData
) -> Fault | None:
    """The fault an error status means for a request (module docstring), or None: the answer is the server's."""
    server_wrote = (error.code, error.message) not in _SDK_STAND_INS
    of_session = _SESSION_REFUSAL.search(error.message) is not None
    if had_session and (status == 404 or (status == 400 and of_session)):
        if server_wrote and of_session:
            cause = "the server no longer knows the session"
            return Fault("not_processed", cause, None, status, new_session=True)
        cause = f"HTTP {status} without the server's session error (a gateway's?)"
        return Fault("maybe_processed", cause, None, status, new_session=True)
    if status == 404 and not server_wrote:
        # No session: not the server's answer, but a gateway's (maybe after forwarding).
        cause = "HTTP 404 without the server's error (a gateway's?)"
        return Fault("maybe_processed", cause, None, status)
    wait = retry_after_seconds(retry_after)
    if status in (408, 429) or (
        status == 503 and wait is not None and not server_wrote
    ):
        return Fault("not_processed", f"HTTP {status}", wait, status)
    if status in (502, 503, 504) and not server_wrote:
        return Fault("maybe_processed", f"HTTP {status}", wait, status)
    return None


def _transit_fault(error: BaseException) -> Fault:
    if isinstance(error, _UNSENT):
        cause = (
            "cannot connect"
            if isinstance(error, httpx2.ConnectError | httpx2.ConnectTimeout)
            else "request not sent"
        )
        return Fault("not_processed", cause)
    if isinstance(error, httpx2.TimeoutException):
        return Fault("maybe_processed", "no answer in time")
    return Fault("maybe_processed", "connection dropped")


def _failed(request_id: Any, text: str) -> SessionMessage:
    error = ErrorData(code=INTERNAL_ERROR, message=text)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


class _Watcher:
    """The read stream as seen by one POST: an error answer is passed on as it is, after its status
    was read for a fault (`status_fault`)."""

    __slots__ = ("_answer", "_had_session", "_inner", "_request_id")

    def __init__(
        self, inner: Any, request_id: Any, answer: _PostAnswer, had_session: bool
    ) -> None:
        self._inner = inner
        self._request_id = request_id
        self._answer = answer
        self._had_session = had_session

    async def send(self, item: Any) -> None:
        status = self._answer.status
        message = getattr(item, "message", None)
        if (
            status is not None
            and status >= 400
            and isinstance(message, JSONRPCError)
            and message.id == self._request_id
        ):
            error = message.error
            if (error.code, error.message) in _SDK_STAND_INS:
                own = self._answer.server_error()
                if own is not None:  # the server's answer, as it sent it
                    error = own
                    item = SessionMessage(
                        JSONRPCError(jsonrpc="2.0", id=self._request_id, error=own)
                    )
            fault = status_fault(
                status, self._answer.retry_after, self._had_session, error
            )
            if fault is not None:
                report(fault)
        await self._inner.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class ResilientTransport(StreamableHTTPTransport):
    """The SDK's streamable HTTP transport, with a POST's failure confined to its request (module docstring)."""

    #: The transport's task group (set by `resilient_streamable_http`): where a slow notification ends.
    group: anyio.abc.TaskGroup | None = None

    async def _handle_post_request(self, ctx: RequestContext) -> None:
        message = ctx.session_message.message
        if not isinstance(message, JSONRPCRequest):
            await self._post_without_answer(ctx)
            return
        request_id = message.id
        answer = _PostAnswer()
        token = _post_answer.set(answer)
        writer: Any = _Watcher(
            ctx.read_stream_writer, request_id, answer, self.session_id is not None
        )
        try:
            await super()._handle_post_request(
                dataclasses.replace(ctx, read_stream_writer=writer)
            )
        except httpx2.TransportError as error:
            fault = _transit_fault(error)
            report(fault)
            if message.method in _HANDSHAKE:
                raise  # a failed connect is explained by its transport error
            _log.debug(
                "POST failed in transit (%s): %s", fault.cause, type(error).__name__
            )
            await self._resolve(
                ctx.read_stream_writer,
                _failed(request_id, f"the request failed in transit: {fault.cause}"),
            )
        except (
            Exception
        ) as error:  # noqa: BLE001 - e.g. an auth flow's own error: it fails this request only
            if message.method in _HANDSHAKE:
                raise
            # The connection's `explain` turns what the auth flow raised into the error the caller sees.
            await self._resolve(
                ctx.read_stream_writer,
                _failed(request_id, f"the request failed: {type(error).__name__}"),
            )
        finally:
            _post_answer.reset(token)

    async def _post_without_answer(self, ctx: RequestContext) -> None:
        """POST a notification (or an answer to the server), waiting `_NOTIFICATION_WAIT` at most for its
        `202`: the SDK sends a session's messages one after the other, so a POST the server or a
        gateway never answers would hold up every later request. It then ends in the background; a
        failed one is lost, but the session goes on."""

        async def post() -> None:
            try:
                await super(ResilientTransport, self)._handle_post_request(ctx)
            except Exception as error:  # noqa: BLE001 - nothing waits for its answer
                _log.debug(
                    "a POST without a response to wait for failed: %s",
                    type(error).__name__,
                )
            finally:
                answered.set()

        answered = anyio.Event()
        group = self.group
        if group is None:
            await post()
            return
        group.start_soon(post)
        with anyio.move_on_after(_NOTIFICATION_WAIT):
            await answered.wait()

    async def _resolve_abandoned_request(
        self,
        read_stream_writer: Any,
        request_id: Any,
        message: str,
        *,
        code: int = CONNECTION_CLOSED,
    ) -> None:
        if code != CONNECTION_CLOSED:
            await super()._resolve_abandoned_request(
                read_stream_writer, request_id, message, code=code
            )
            return
        # An answer stream that ended before the response (and could not be resumed): the request was
        # delivered, so it may have run.
        report(Fault("maybe_processed", "answer stream ended"))
        await self._resolve(read_stream_writer, _failed(request_id, message))

    @staticmethod
    async def _resolve(writer: Any, item: SessionMessage) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await writer.send(item)

    async def handle_get_stream(
        self, client: httpx2.AsyncClient, read_stream_writer: Any
    ) -> None:
        """The standing GET stream, reopened after any break for as long as the session lives (with
        `Last-Event-ID` where the server gives ids); ended for good when the server refuses it.
        """
        last_event_id: str | None = None
        retry_ms: int | None = None
        backoff = StreamBackoff()
        while self.session_id:
            headers = self._prepare_headers()
            if last_event_id:
                headers[LAST_EVENT_ID] = last_event_id
            opened = math.inf  # when the stream opened (its response head came)
            try:
                async with sse_within_origin(
                    client,
                    self.url,
                    headers=headers,
                    max_event_size=self.max_sse_event_size,
                ) as events:
                    status = events.response.status_code
                    if status >= 300:
                        # 405: the server offers no stream; 404/401/403: the session or its credentials are gone.
                        _log.debug("GET stream refused (HTTP %s)", status)
                        return
                    opened = anyio.current_time()
                    async for event in events:
                        if event.id:
                            last_event_id = event.id
                        if event.retry is not None:
                            retry_ms = event.retry
                        await self._handle_sse_event(event, read_stream_writer)
                ended = "ended"
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # the session is closing
            except Exception as error:  # noqa: BLE001 - any break: reconnect
                ended = f"broke ({type(error).__name__})"
            lived = max(0.0, anyio.current_time() - opened)
            pause = backoff.next_pause(lived, retry_ms)
            _log.debug(
                "GET stream %s after %.2f s; reopening in %.2f s", ended, lived, pause
            )
            await anyio.sleep(pause)


@asynccontextmanager
async def resilient_streamable_http(
    url: str, *, http_client: httpx2.AsyncClient, terminate_on_close: bool = True
) -> AsyncGenerator[Any, None]:
    """`mcp.client.streamable_http.streamable_http_client` with `ResilientTransport`; `http_client`
    must carry `post_response_hook` among its response hooks (the caller owns the client).
    """
    transport = ResilientTransport(url)
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    async with (
        read_writer,
        read_stream,
        write_stream,
        write_reader,
        anyio.create_task_group() as group,
    ):
        transport.group = group

        def start_get_stream() -> None:
            group.start_soon(transport.handle_get_stream, http_client, read_writer)

        group.start_soon(
            transport.post_writer,
            http_client,
            write_reader,
            read_writer,
            write_stream,
            start_get_stream,
            group,
        )
        try:
            yield read_stream, write_stream
        finally:
            if transport.session_id and terminate_on_close:
                await transport.terminate_session(http_client)
            group.cancel_scope.cancel()
    await resync_tracer()
