"""How a client's request outlives a fault: the typed fault read, the retry policy asked, a lost session renewed once.

Every request of a client goes through `SessionRecovery._send_recovering` (a part of `ClientCore`):

1. One attempt (`_send_attempt`). The transport records a transit fault as a typed value
   (`exchange.RequestFault`); the SDK's own transport-closed signal (a stdio server that exited)
   is the other fault. Anything else (a server's error, whatever its code) is the server's answer.
2. `calls.retries.Retries` decides: a fault "not processed" is sent again for every request, one
   that "may have run" only where repeating it is safe; waits grow, never past the call's timeout.
3. A session the server no longer knows (`Fault.new_session`) is renewed once however many
   requests learnt it at the same moment (the client's generation counts sessions), with the drift
   guard run again (`_reconnect_now`), within the deadline of the request that renews it;
   requests still in flight on the old session keep it open until they are answered
   (`session.Lease`). A `404` (or the `400` session form) is a lost session only when the session
   refuses a `ping` too and the new one answers it (`_after_refusal`), and at most once per
   request: after that it is the server's or the gateway's answer. The session is renewed for
   every request, but only one the server refused in its own words (never run) is sent again
   unless it is safe to repeat: a gateway may answer `404` after forwarding.
4. A request is as processed as its most processed attempt (`Fault.then`): once it may have run, no
   later fault or failed renewal makes it "not processed". A fault with no retry left becomes what
   it means: `OutcomeUnknownError` (it may have run), the HTTP status (`HttpStatusError`), the
   server's answer, or `ConnectionClosedError` (the server did not get it).
"""

from __future__ import annotations

import contextvars
import logging
import math
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..calls.drift import SchemaDriftError
from ..calls.errors import (
    ConnectError,
    ConnectionClosedError,
    McpClientError,
    OutcomeUnknownError,
    request_label,
    sdk_connection_closed,
)
from ..calls.retries import Fault, Retries
from ..calls.telemetry import active as telemetry_active
from ..calls.telemetry import record_retry
from .cache import LISTINGS
from .exchange import RequestFault

if TYPE_CHECKING:
    import anyio
    from mcp import ClientSession
    from mcp.client.caching import ClientResponseCache

    from ..calls.options import CallOptions
    from ..calls.specs import ToolSpec
    from .session import AsyncConnection, Lease

__all__ = ["SessionRecovery"]

_log = logging.getLogger(__name__)
R = TypeVar("R")

#: The client whose new session the drift guard is checking (in the guard's own requests).
_checking: contextvars.ContextVar[SessionRecovery | None] = contextvars.ContextVar(
    "mcp_codegen_checking_session", default=None
)


class SessionRecovery:
    """The part of `ClientCore` that sends a request through faults (module docstring)."""

    # The client's state lives in `__dict__` (its `with_options()` views share it; see `ClientCore`).
    __slots__ = ("__dict__", "__weakref__")

    _tools: ClassVar[Mapping[str, ToolSpec[Any, Any]]]
    _session: ClientSession
    _lease: Lease | None
    _connection: AsyncConnection[Any] | None
    _closed_reason: str | None
    _closed_detail: str | None
    _response_cache: ClientResponseCache | None
    _call_options: CallOptions | None
    #: The connection was lost (not closed by the user): the next request opens it again, retries allowing.
    _lost: bool = False
    #: Counts the sessions this client has had: a request knows whether its session was already renewed.
    _generation: int = 0
    #: Held while a lost session is opened again, so concurrent requests renew it once.
    _renewing: anyio.Lock | None = None
    #: The last `ping` after a session refusal: (generation, when sent, refused as an unknown session).
    _pings: tuple[int, float, bool] | None = None

    if TYPE_CHECKING:

        def _retry_policy(self) -> Retries: ...

        def _translated(
            self, error: Exception, method: str | None
        ) -> BaseException: ...

        async def _send_attempt(
            self, request: Any, result_type: Any, timeout: float | None, method: str
        ) -> Any: ...

    def _applied_timeout(self, timeout: float | None) -> float | None:
        """The limit a request ran under: its own `timeout`, this view's, or the connector's."""
        if timeout is not None:
            return timeout
        options = self._call_options
        if options is not None:
            limits = [
                t for t in (options.timeout, options.max_timeout) if t is not None
            ]
            if limits:
                return min(limits)
        return self._read_timeout()

    def _read_timeout(self) -> float | None:
        """How long a request waits for its answer unless told otherwise: the connector's `timeout=`; for
        a client made by `from_session()`, the session's own default (the SDK's private
        `_session_read_timeout_seconds`, pinned in tests/runtime/test_sdk_private_pins.py: the SDK has no
        public way to read it), or None."""
        connection = self._connection
        if connection is not None:
            return connection.read_timeout
        default = getattr(self._session, "_session_read_timeout_seconds", None)
        return float(default) if isinstance(default, int | float) else None

    # -- the connection's state, as requests see it --------------------------------------------------

    def _mark_closed(self, reason: str) -> None:
        if self._closed_reason is None:
            self._closed_reason = reason

    def _connection_lost(self, reason: str) -> None:
        """The server went away under the client (not `aclose()`): later requests open it again."""
        if self._closed_reason is None:
            self._closed_reason = reason
            self._lost = self._connection is not None

    def _connection_ended(self, reason: str, lost: bool) -> None:
        """`AsyncConnection.on_close`."""
        if lost:
            self._connection_lost(reason)
        else:
            self._mark_closed(reason)

    def _closed_error(self) -> ConnectionClosedError:
        return ConnectionClosedError(self._closed_reason or "the connection is closed")

    # -- sending through faults ------------------------------------------------------------------------

    async def _send_recovering(
        self,
        request: Any,
        result_type: type[R],
        timeout: float | None,
        method: str,
        tool: str | None,
    ) -> R:
        """Send a request; one that failed in transit is sent again where that is safe (`calls.retries`)."""
        started = time.monotonic()
        generation = self._generation
        try:
            sent: R = await self._send_attempt(request, result_type, timeout, method)
            return sent
        except Exception as error:
            fault = await self._fault(error, started, generation)
            if fault is None:
                raise
            failure: Exception = error
        return await self._retry(
            request,
            result_type,
            timeout,
            method,
            tool,
            failure,
            fault,
            started,
            generation,
        )

    async def _fault(
        self, error: Exception, sent: float, generation: int
    ) -> Fault | None:
        """The transit fault behind a request that failed (sent at `sent`), or None: the failure is an answer."""
        if isinstance(error, RequestFault):
            return error.fault
        connection = self._connection
        if connection is None or not sdk_connection_closed(error):
            return None
        # The connection itself ended (a stdio server exited, a transport broke) with the request in flight.
        if (
            generation != self._generation
        ):  # another request already opened a new session
            return Fault("maybe_processed", "connection lost", new_session=True)
        detail = self._closed_detail = await connection.closed_detail()
        self._connection_lost(detail or "the connection to the MCP server was lost")
        if connection.ended_before(sent):
            return Fault("not_processed", "the server had exited", new_session=True)
        return Fault("maybe_processed", "connection lost", new_session=True)

    async def _retry(
        self,
        request: Any,
        result_type: type[R],
        timeout: float | None,
        method: str,
        tool: str | None,
        error: Exception,
        fault: Fault,
        started: float,
        generation: int,
    ) -> R:
        """Send a request that failed in transit again while it is safe, attempts are left and the call's
        timeout allows; else raise what the last failure means."""
        policy = self._retry_policy()
        limit = self._applied_timeout(timeout)
        deadline = started + limit if limit is not None else math.inf
        spec = self._tools.get(tool) if tool is not None else None
        repeatable = policy.may_repeat(
            method,
            tool,
            spec.annotations if spec is not None else None,
            spec.python_name if spec is not None else None,
        )
        retry = 0
        renewed = False
        while True:
            if fault.new_session and fault.status is not None:
                # A 404 (or the 400 session form): the session is gone at most once per request.
                again_on = None
                if not renewed and time.monotonic() < deadline:
                    try:
                        again_on = await self._after_refusal(generation, deadline)
                    except ConnectError as failure:
                        error, fault = failure, fault.renewal_failed()
                        continue
                if again_on is None:  # the server's or a gateway's answer
                    raise self._refusal_answer(
                        error, method, tool, fault, renewed, repeatable
                    )
                generation, renewed = again_on, True
                if fault.kind == "maybe_processed" and not repeatable:
                    # Later requests have a session again; this one may have run (a gateway's 404).
                    raise self._outcome_unknown(method, tool, fault, retry, error)
                retry += 1
                _log.info(
                    "sending %s again on a new session (%s)",
                    request_label(method, f"tool {tool!r}" if tool else None),
                    fault.cause,
                )
                if telemetry_active():
                    record_retry(method, retry, fault.cause, 0.0)
            elif fault.kind == "maybe_processed" and not repeatable:
                raise self._outcome_unknown(method, tool, fault, retry, error)
            elif await self._wait_for_retry(
                policy, method, tool, fault, retry + 1, deadline
            ):
                retry += 1
                if self._closed_reason is not None or fault.new_session:
                    try:
                        await self._renew(generation, deadline)
                    except ConnectError as failure:
                        error, fault = failure, fault.renewal_failed()
                        continue
                    generation, renewed = self._generation, True
            else:
                raise self._given_up(error, method, tool, fault, retry)
            sent = time.monotonic()
            try:
                attempt_timeout = deadline - sent if limit is not None else timeout
                again: R = await self._send_attempt(
                    request, result_type, attempt_timeout, method
                )
                return again
            except Exception as failure:
                next_fault = await self._fault(failure, sent, generation)
                if next_fault is None:
                    raise
                error, fault = failure, fault.then(next_fault)

    async def _wait_for_retry(
        self,
        policy: Retries,
        method: str,
        tool: str | None,
        fault: Fault,
        retry: int,
        deadline: float,
    ) -> bool:
        """Wait before retry number `retry` of a request; False (no wait) when none is left or the wait
        would end past `deadline`."""
        import anyio

        # Opening a session the server forgot is what every client did before retries existed.
        allowed = policy.max_retries or (
            1 if fault.new_session and fault.kind == "not_processed" else 0
        )
        first_renewal = retry == 1 and fault.new_session
        wait = 0.0 if first_renewal else policy.delay(retry, fault.retry_after)
        if retry > allowed or time.monotonic() + wait >= deadline:
            return False
        _log.info(
            "retrying %s (retry %d of %d) after %s; waiting %.2f s",
            request_label(method, f"tool {tool!r}" if tool else None),
            retry,
            allowed,
            fault.cause,
            wait,
        )
        if telemetry_active():
            record_retry(method, retry, fault.cause, wait)
        await anyio.sleep(wait)
        return True

    def _refusal_answer(
        self,
        error: Exception,
        method: str,
        tool: str | None,
        fault: Fault,
        renewed: bool,
        repeatable: bool,
    ) -> Exception:
        """What a session refusal that is not a lost session raises: a `404` to a request that is not safe
        to repeat may have run (a gateway may have forwarded it), so `OutcomeUnknownError`; else the answer
        as it came (`_given_up`)."""
        connection = self._connection
        if fault.status == 404 and repeatable and connection is not None:
            refused = connection.status_error(404, method)
            if refused is not None:  # the status, not a body a gateway may have written
                return refused
        if fault.status != 404 or repeatable:
            return self._given_up(error, method, tool, fault, 1 if renewed else 0)
        label = request_label(method, f"tool {tool!r}" if tool else None)
        where = (
            "again on a new session" if renewed else "on a session that still answers"
        )
        text = (
            f"{label}: HTTP 404 {where}, so the server's or a gateway's answer, not a lost"
            " session; the request may have run (it is not marked read-only or idempotent,"
            " so it was not sent again)"
        )
        return OutcomeUnknownError(text, method=method, tool=tool)

    def _outcome_unknown(
        self,
        method: str,
        tool: str | None,
        fault: Fault,
        retries: int,
        error: Exception | None = None,
    ) -> OutcomeUnknownError:
        label = request_label(method, f"tool {tool!r}" if tool else None)
        detail, self._closed_detail = self._closed_detail, None
        why = (
            "it is not marked read-only or idempotent, so it was not sent again"
            if method == "tools/call"
            else "it is not safe to repeat, so it was not sent again"
        )
        if retries:
            why = f"gave up after {retries} retries"
        text = f"{label}: {fault.cause} after the request was sent; the server may have run it ({why})"
        if detail:
            text += f"; {detail}"
        if isinstance(error, ConnectError):
            text += f"; {error}"
        return OutcomeUnknownError(text, method=method, tool=tool)

    def _given_up(
        self,
        error: Exception,
        method: str,
        tool: str | None,
        fault: Fault,
        retries: int,
    ) -> Exception:
        """What a request that failed in transit raises once no retry is left."""
        if fault.kind == "maybe_processed":
            return self._outcome_unknown(method, tool, fault, retries, error)
        connection = self._connection
        if isinstance(error, RequestFault):
            if fault.new_session:  # the server's refusal, as it sent it
                answer = error.answer
                translated = self._translated(
                    answer if isinstance(answer, Exception) else error, method
                )
                if isinstance(translated, Exception):
                    return translated
            status = fault.status
            refused = (
                connection.status_error(status, method)
                if connection is not None and status is not None
                else None
            )
            if refused is not None:
                return refused  # an HTTP status: HttpStatusError, as without retries
        label = request_label(method, f"tool {tool!r}" if tool else None)
        tries = f" (after {retries} retries)" if retries else ""
        why = f": {error}" if isinstance(error, ConnectError) else ""
        return ConnectionClosedError(
            f"{label} failed: {fault.cause}{why}; the server did not get it{tries}"
        )

    # -- opening the session again ---------------------------------------------------------------------

    async def _after_refusal(self, generation: int, deadline: float) -> int | None:
        """A request on session `generation` was refused as a session the server no longer knows (`404`,
        or the `400` session form): the generation of the session to send it again on, or None when the
        refusal is the server's or a gateway's answer (see below).

        The spec reads a `404` as "session gone, not processed", but a gateway may answer `404` (after
        forwarding the request, even). So a `ping` asks first: a session that answers it was not gone; a
        new session (opened once, however many requests learnt the loss together) that refuses it too
        shows the refusals are a gateway's, not the session's.
        """
        refused_at = time.monotonic()
        if _checking.get() is self:
            return None  # the new session's own check was refused: its renewal fails (`_reconnect_now`)
        async with self._renewal_lock():
            if self._closed_reason is not None and not self._lost:
                raise self._closed_error()  # closed by the user meanwhile
            if self._lost:  # a renewal failed: there is no session to ask, open one
                await self._reconnect_now(deadline)
            elif self._generation == generation:
                if not await self._refuses_ping(refused_at, deadline):
                    return None
                await self._reconnect_now(deadline)
            if await self._refuses_ping(refused_at, deadline):
                return None
            return self._generation

    async def _refuses_ping(self, since: float, deadline: float) -> bool:
        """Whether the current session refuses a `ping` as a session the server no longer knows; one
        `ping` per session answers every request refused before it was sent (`since`). A `ping` lost in
        transit says nothing of the session: it is sent again (the retry policy's waits, within
        `deadline`); one that never gets through is no refusal (the request's refusal is its answer).
        """
        import anyio

        known = self._pings
        if known is not None and known[0] == self._generation and known[1] >= since:
            return known[2]
        policy = self._retry_policy()
        sent = time.monotonic()
        fault = await self._ping_fault(deadline)
        for retry in range(1, policy.max_retries + 1):
            if fault is None or fault.new_session:
                break
            wait = policy.delay(retry, fault.retry_after)
            if time.monotonic() + wait >= deadline:
                break
            await anyio.sleep(wait)
            fault = await self._ping_fault(deadline)
        refused = fault is not None and fault.new_session
        self._pings = (self._generation, sent, refused)
        return refused

    async def _ping_fault(self, deadline: float) -> Fault | None:
        """Send the current session a `ping` (until `deadline` at most): its transit fault, or None."""
        import anyio
        from mcp_types import EmptyResult, PingRequest

        from .exchange import begin

        probe = begin()
        lease = self._lease
        if lease is not None:
            lease.enter()
        try:
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                await self._session.send_request(PingRequest(), EmptyResult)
        except Exception:  # noqa: BLE001 - only the refusal's fault matters
            _log.debug("the ping after a session refusal failed", exc_info=True)
        finally:
            if lease is not None:
                lease.leave()
        return probe.fault

    async def _reopen(self, timeout: float | None) -> None:
        """Before a request on a client whose connection was lost: open it again, retries allowing."""
        import anyio

        policy = self._retry_policy()
        if not self._lost or policy.max_retries == 0:
            raise self._closed_error()
        limit = self._applied_timeout(timeout)
        deadline = time.monotonic() + limit if limit is not None else math.inf
        generation = self._generation
        for attempt in range(policy.max_retries + 1):
            try:
                await self._renew(generation, deadline)
                return
            except ConnectError as error:
                wait = policy.delay(attempt + 1, None)
                if attempt == policy.max_retries or time.monotonic() + wait >= deadline:
                    raise ConnectionClosedError(
                        f"{self._closed_reason or 'the connection was lost'}; reconnecting failed: {error}"
                    ) from None
                _log.info(
                    "reconnecting to the MCP server failed; retrying in %.2f s", wait
                )
                await anyio.sleep(wait)

    async def _renew(self, generation: int, deadline: float = math.inf) -> None:
        """Open a new session (within `deadline`) unless another request already did since `generation`
        (and it did not fail)."""
        if _checking.get() is self:
            raise ConnectError("the new session failed while it was being checked")
        async with self._renewal_lock():
            if self._closed_reason is not None and not self._lost:
                raise self._closed_error()  # closed by the user meanwhile
            if self._generation == generation or self._lost:
                await self._reconnect_now(deadline)

    def _renewal_lock(self) -> anyio.Lock:
        lock = self._renewing
        if lock is None:
            import anyio

            lock = self._renewing = anyio.Lock()
        return lock

    async def _reconnect_now(self, deadline: float = math.inf) -> None:
        """`reconnect()`, with the renewal lock held: a new session, then the drift guard; within
        `deadline` (that of the request that renews it), else `ConnectError`.

        The guard's own requests never renew the session (`_checking`): a new session that fails
        them, or that the guard cannot check before `deadline`, fails the renewal as a `ConnectError`
        (only a strict guard's `SchemaDriftError` is raised as it is).
        """
        import anyio

        connection = self._connection
        assert connection is not None
        # Requests arriving meanwhile wait for the new session (`_reopen`).
        self._mark_closed("the client is reconnecting")
        self._lost = True
        try:
            self._session = await connection.reconnect(deadline - time.monotonic())
        except ConnectError as error:
            self._closed_reason = str(error)
            raise
        self._lease = connection.lease
        self._generation += 1
        self._closed_reason = None
        self._lost = False
        cache = self._response_cache
        # A restarted server may list other things; entries of reads keep their TTL.
        if cache is not None:
            for method in LISTINGS:
                await cache.evict_method(method)
        guard = connection.after_connect
        if guard is None:
            return
        checking = _checking.set(self)
        try:
            with anyio.fail_after(max(0.0, deadline - time.monotonic())):
                await guard(self)
        except (McpClientError, TimeoutError) as error:
            if isinstance(error, SchemaDriftError):
                raise
            why = (
                "no answer in time"
                if isinstance(error, TimeoutError)
                and not isinstance(error, McpClientError)
                else str(error)
            )
            failed = ConnectError(
                f"cannot reconnect to the MCP server: the new session's drift check failed: {why}"
            )
            # Not a session to keep (its transport may be stuck): the next request opens another.
            self._closed_reason, self._lost = str(failed), True
            if connection.lease is not None:
                connection.lease.retire()
            raise failed from None
        finally:
            _checking.reset(checking)
