"""Streamable HTTP where a failed POST fails its own request, never the session, and the GET stream comes back.

The SDK's transport runs every POST in one task group: a dropped connection raises out of it and
ends the whole session (every later call fails). This subclass keeps the session: a request whose
POST fails in transit, or is answered `408`/`429`/`502`/`503`/`504` or `404` for its session, is
resolved with a JSON-RPC error carrying a `calls.retries.Fault` (was it processed? `Retry-After`?),
which the client's send path retries or raises. The standing GET stream reconnects with backoff
(and `Last-Event-ID`) for as long as the session lives, not twice. The handshake is left alone: a
failed connect is reported as before.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import logging
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import anyio
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
    INVALID_REQUEST,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
)

from ..calls.retries import FAULT_CODE, Fault, fault_error_data, retry_after_seconds

__all__ = ["post_response_hook", "resilient_streamable_http"]

_log = logging.getLogger(__name__)

#: Requests of the handshake: their failures explain a failed connect, as they always did.
_HANDSHAKE = frozenset({"initialize", "server/discover"})

#: Statuses a gateway or server answers without running the request, and those it may answer after.
_NOT_PROCESSED_STATUSES = frozenset({408, 429, 503})
_MAYBE_PROCESSED_STATUSES = frozenset({502, 504})

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

#: The GET stream's waits between reconnects: doubling from the first, never more than the last.
_GET_FIRST_WAIT, _GET_MAX_WAIT = 0.5, 30.0


@dataclasses.dataclass(slots=True)
class _PostAnswer:
    """What the response hook saw of this task's POST: its status and `Retry-After`."""

    status: int | None = None
    retry_after: str | None = None


_post_answer: contextvars.ContextVar[_PostAnswer | None] = contextvars.ContextVar(
    "mcp_codegen_post_answer", default=None
)


async def post_response_hook(response: httpx2.Response) -> None:
    """An `httpx2` response hook: records the status of the POST this task is sending (see `_PostAnswer`)."""
    answer = _post_answer.get()
    if answer is not None and response.request.method == "POST":
        answer.status = response.status_code
        answer.retry_after = response.headers.get("retry-after")


def _status_fault(
    status: int, retry_after: str | None, had_session: bool
) -> Fault | None:
    if status in _NOT_PROCESSED_STATUSES:
        return Fault(
            "not_processed", f"HTTP {status}", retry_after_seconds(retry_after), status
        )
    if status in _MAYBE_PROCESSED_STATUSES:
        return Fault(
            "maybe_processed",
            f"HTTP {status}",
            retry_after_seconds(retry_after),
            status,
        )
    if status == 404 and had_session:
        return Fault(
            "not_processed",
            "the server no longer knows the session",
            None,
            404,
            new_session=True,
        )
    return None


def _is_session_stand_in(message: JSONRPCError) -> bool:
    """The error the SDK makes of a 404 without a JSON-RPC body once a session exists."""
    return (
        message.error.code == INVALID_REQUEST
        and message.error.message == "Session terminated"
    )


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


def _fault_message(request_id: Any, fault: Fault) -> SessionMessage:
    error = ErrorData(
        code=FAULT_CODE, message=fault.cause, data=fault_error_data(fault)
    )
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


class _Rewriter:
    """The read stream as seen by one POST: an error the SDK made of an HTTP status becomes a fault."""

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
            # A 404 with a JSON-RPC error of the server's own (e.g. an unknown method) is that error;
            # only the SDK's stand-in for a bare 404 says the session is gone.
            forgotten = self._had_session and _is_session_stand_in(message)
            fault = _status_fault(status, self._answer.retry_after, forgotten)
            if fault is not None:
                item = _fault_message(self._request_id, fault)
        await self._inner.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class ResilientTransport(StreamableHTTPTransport):
    """The SDK's streamable HTTP transport, with a POST's failure confined to its request (module docstring)."""

    async def _handle_post_request(self, ctx: RequestContext) -> None:
        message = ctx.session_message.message
        request_id = message.id if isinstance(message, JSONRPCRequest) else None
        if request_id is None or getattr(message, "method", None) in _HANDSHAKE:
            try:
                await super()._handle_post_request(ctx)
            except Exception as error:
                if request_id is not None:
                    raise
                # A notification or an answer to the server: lost, but the session goes on.
                _log.debug(
                    "a POST without a response to wait for failed: %s",
                    type(error).__name__,
                )
            return
        answer = _PostAnswer()
        token = _post_answer.set(answer)
        writer: Any = _Rewriter(
            ctx.read_stream_writer, request_id, answer, self.session_id is not None
        )
        try:
            await super()._handle_post_request(
                dataclasses.replace(ctx, read_stream_writer=writer)
            )
        except httpx2.TransportError as error:
            fault = _transit_fault(error)
            _log.debug(
                "POST failed in transit (%s): %s", fault.cause, type(error).__name__
            )
            await self._resolve(
                ctx.read_stream_writer, _fault_message(request_id, fault)
            )
        except (
            Exception
        ) as error:  # noqa: BLE001 - e.g. an auth flow's own error: it fails this request only
            # The connection's `explain` turns what the auth flow raised into the error the caller sees.
            failed = ErrorData(
                code=INTERNAL_ERROR,
                message=f"the request failed: {type(error).__name__}",
            )
            await self._resolve(
                ctx.read_stream_writer,
                SessionMessage(
                    JSONRPCError(jsonrpc="2.0", id=request_id, error=failed)
                ),
            )
        finally:
            _post_answer.reset(token)

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
        await self._resolve(
            read_stream_writer,
            _fault_message(request_id, Fault("maybe_processed", "answer stream ended")),
        )

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
        wait = _GET_FIRST_WAIT
        while self.session_id:
            headers = self._prepare_headers()
            if last_event_id:
                headers[LAST_EVENT_ID] = last_event_id
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
                    wait = _GET_FIRST_WAIT
                    async for event in events:
                        if event.id:
                            last_event_id = event.id
                        if event.retry is not None:
                            retry_ms = event.retry
                        await self._handle_sse_event(event, read_stream_writer)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # the session is closing
            except Exception as error:  # noqa: BLE001 - any break: reconnect
                _log.debug(
                    "GET stream broke (%s); reconnecting in %.1f s",
                    type(error).__name__,
                    wait,
                )
            pause = retry_ms / 1000 if retry_ms is not None else wait
            await anyio.sleep(pause)
            wait = min(wait * 2, _GET_MAX_WAIT)


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
