"""The connection's life, owned in one place: connect (retrying what was not processed), renew, close.

A connector (`AsyncClientBase.stdio/http/connect`) returns an `AsyncConnection`. Each session it
holds is a `Lease`: one *owner task* enters the SDK's `mcp.Client` and keeps it open until the lease
is stopped. The user's `async with` body therefore never runs inside the SDK's task groups: a
transport failure cannot cancel it, its own exceptions leave unwrapped, and `aclose()` works from
any task. Everything heavy (`mcp`, `httpx2`) is imported only when a connection is opened.

- Connect: each way to reach the server (`Attempt`) is tried in turn; a handshake the server did
  not process (refused or reset connection, `408`/`429`/`503`: what the transport recorded in the
  handshake's `exchange.Exchange`) is tried again under the client's `Retries`, within the connect
  timeout. A server that stays down raises `ConnectError` naming the last cause.
- Renew (`reconnect()`): a new lease is opened beside the old one, which is *retired*: its requests
  still in flight keep their exchanges and answers, and it closes once the last one ended. Its GET
  stream ends with it; the new session has its own.
- Close: every lease is stopped.

The ways to reach a server live beside it: `stdio`, `http` (transports and their attempts),
`launch` (the recorded launch spec), `urls` (redaction) and `environment` (`${VAR}`). The
generator's snapshots (`mcp_codegen.snapshot.connect`) use the same transports.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from ..calls import telemetry
from ..calls.errors import AuthRequiredError, ConnectError, unwrap_exception_group
from ..calls.result_forms import accept_result_forms
from ..calls.retries import DEFAULT_RETRIES, Retries
from . import exchange
from .attempt import MODERN_OPTIONS, Attempt, speaks_only_modern

if TYPE_CHECKING:
    import anyio
    import anyio.abc

# The connectors' attempts are importable from here too (the client's connectors import them so).
__all__ = [
    "AsyncConnection",
    "Lease",
]

ClientT = TypeVar("ClientT")


class Lease:
    """One session of a connection: its owner task's events, the SDK session, and its requests in flight."""

    __slots__ = (
        "attempt",
        "done",
        "error",
        "in_flight",
        "ready",
        "retired",
        "scope",
        "session",
        "stop",
    )

    def __init__(self) -> None:
        import anyio

        self.ready, self.stop, self.done = anyio.Event(), anyio.Event(), anyio.Event()
        self.session: Any = None
        self.attempt: Attempt | None = None
        #: An error the session ended with after it was up (a transport crash), kept for diagnostics.
        self.error: BaseException | None = None
        self.scope: anyio.CancelScope | None = None
        #: Requests sent on this session whose answer has not come yet (`enter`/`leave`).
        self.in_flight = 0
        #: A newer session replaced this one: it closes once `in_flight` drops to 0.
        self.retired = False

    def enter(self) -> None:
        self.in_flight += 1

    def leave(self) -> None:
        self.in_flight -= 1
        if self.retired and self.in_flight <= 0:
            self.stop.set()

    def retire(self) -> None:
        self.retired = True
        if self.in_flight <= 0:
            self.stop.set()


class AsyncConnection(AbstractAsyncContextManager[ClientT]):
    """`async with connection as client:` connects; leaving closes it. The body's exceptions pass unchanged."""

    def __init__(
        self,
        make_client: Callable[[Any, AsyncConnection[ClientT]], ClientT],
        attempts: Callable[[], Sequence[Attempt]],
        *,
        timeout: float,
        after_connect: Callable[[ClientT], Awaitable[object]] | None = None,
        client_options: Mapping[str, Any] | None = None,
        retries: Retries = DEFAULT_RETRIES,
    ) -> None:
        self._make_client = make_client
        #: More keyword arguments for `mcp.Client` (e.g. `client_info`).
        self._client_options: Mapping[str, Any] = client_options or {}
        #: Runs once the client exists (the drift guard); if it raises, the connection is closed.
        self.after_connect = after_connect
        self._attempts = attempts
        self._timeout = timeout
        #: How a handshake the server did not process is tried again.
        self._retries = retries
        self._group: anyio.abc.TaskGroup | None = None
        #: The current session, and every session not closed yet (retired ones drain).
        self.lease: Lease | None = None
        self._leases: set[Lease] = set()
        self._failures: list[str] = []
        self._auth_required: AuthRequiredError | None = None
        self._entered = False
        #: Called once when the connection ends: `(reason, lost)`, lost when it ended after it was up
        #: without being closed.
        self.on_close: Callable[[str, bool], None] | None = None

    @property
    def read_timeout(self) -> float:
        """Seconds a request waits for its answer unless told otherwise (the connector's `timeout=`)."""
        return self._timeout

    @property
    def error(self) -> BaseException | None:
        """An error the current session ended with after it was up (a transport crash), or None."""
        lease = self.lease
        return lease.error if lease is not None else None

    @property
    def _attempt(self) -> Attempt | None:
        lease = self.lease
        return lease.attempt if lease is not None else None

    def _closed(self, reason: str, *, lost: bool = False) -> None:
        hook, self.on_close = self.on_close, None
        if hook is not None:
            hook(reason, lost)

    def explain(self, error: BaseException, method: str | None) -> Exception | None:
        """A better error than the SDK's for a request that failed on this connection, or None."""
        attempt = self._attempt
        return attempt.explain(error, method) if attempt is not None else None

    def status_error(self, status: int, method: str | None) -> Exception | None:
        """The error a request refused with HTTP `status` raises once it is not retried, or None."""
        attempt = self._attempt
        if attempt is None or attempt.status_error is None:
            return None
        return attempt.status_error(status, method)

    async def _own(self, lease: Lease, attempts: Sequence[Attempt]) -> None:
        import anyio

        self._leases.add(lease)
        try:
            with anyio.CancelScope() as scope:
                lease.scope = scope
                for index, attempt in enumerate(attempts):
                    root = await self._connect_through(
                        lease, attempt, len(attempts) > 1
                    )
                    if root is None:
                        return
                    if index + 1 >= len(attempts) or not attempt.fall_through(root):
                        return
        finally:
            self._leases.discard(lease)
            if (
                lease.session is not None
                and not lease.stop.is_set()
                and lease is self.lease
            ):
                self._closed("the connection to the MCP server was lost", lost=True)
            lease.ready.set()
            lease.done.set()

    async def _connect_through(
        self, lease: Lease, attempt: Attempt, several: bool
    ) -> BaseException | None:
        """Hold a session through `attempt` until the lease stops; the failure of its last try when it
        could not connect (None when it did, or when nothing else is worth trying)."""
        import anyio

        tries = 0
        while True:
            handshake = exchange.begin()
            try:
                await self._serve_either(lease, attempt)
                return None
            except Exception as error:
                root = unwrap_exception_group(error)
                if lease.session is not None:
                    lease.error = root
                    return None
                refused = attempt.auth_failure()
                if isinstance(refused, AuthRequiredError):
                    self._auth_required = refused  # raised as it is: a login helps
                    return None
                if tries:
                    self._failures.pop()  # only the last cause of this attempt is named
                reason = attempt.diagnose(root)
                self._failures.append(
                    f"{attempt.label}: {reason}" if several else reason
                )
                fault, tries = handshake.fault, tries + 1
                if fault is None or tries > self._retries.max_retries:
                    return root
                # The handshake is safe to repeat: whatever the transport recorded, try again.
                await anyio.sleep(self._retries.delay(tries, fault.retry_after))

    async def _serve_either(self, lease: Lease, attempt: Attempt) -> None:
        """`_serve`; once more with 2026-07-28 options when the legacy handshake was refused for it."""
        options = self._client_options
        try:
            await self._serve(lease, attempt, options)
            return
        except Exception as error:
            if lease.session is not None or not speaks_only_modern(
                unwrap_exception_group(error)
            ):
                raise
        await self._serve(lease, attempt, {**options, **MODERN_OPTIONS})

    @property
    def peer(self) -> Mapping[str, str | int]:
        """The OpenTelemetry attributes of the transport connected through (none before connecting)."""
        attempt = self._attempt
        return attempt.peer if attempt is not None else {}

    async def _serve(
        self, lease: Lease, attempt: Attempt, options: Mapping[str, Any]
    ) -> None:
        """Connect through `attempt` and hold the session open until the lease is stopped."""
        started: float | None = None
        ended_by: BaseException | None = None
        try:
            async with attempt.open(options) as client:
                accept_result_forms(client.session)
                lease.session = client.session
                lease.attempt = attempt
                attempt.connected()
                lease.ready.set()
                started = time.perf_counter()
                await lease.stop.wait()
        except Exception as error:
            ended_by = unwrap_exception_group(error)
            raise
        finally:
            if started is not None and telemetry.active():
                protocol = getattr(lease.session, "protocol_version", None)
                telemetry.record_session(
                    time.perf_counter() - started, attempt.peer, protocol, ended_by
                )

    async def _open_lease(
        self, group: anyio.abc.TaskGroup, limit: float | None = None
    ) -> Lease:
        """Start a session's owner task and wait (the connect timeout at most, or `limit` if shorter) until
        it is up or failed."""
        import anyio

        attempts = self._attempts()  # may raise ConnectError (launch spec problems)
        lease = Lease()
        self._failures = []
        wait = self._timeout if limit is None else max(0.0, min(self._timeout, limit))
        group.start_soon(self._own, lease, attempts)
        with anyio.move_on_after(wait):
            await lease.ready.wait()
        if lease.session is None:
            if not self._failures:
                last = attempts[-1].target if attempts else "the server"
                self._failures.append(f"timed out after {wait:g} s ({last})")
            if lease.scope is not None:
                lease.scope.cancel()
            lease.stop.set()
        return lease

    async def __aenter__(self) -> ClientT:
        import anyio

        if self._entered:
            raise RuntimeError(
                "this connection was already used; call the connector again for a new one"
            )
        self._entered = True
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        try:
            lease = self.lease = await self._open_lease(group)
        except BaseException:
            # Cancelled (or failed) while connecting: stop the owner and wait for its cleanup. The group's
            # own scope is shielded, since a new scope around its exit would break the LIFO order.
            group.cancel_scope.cancel()
            group.cancel_scope.shield = True
            await self._exit_group()
            raise
        if lease.session is None:
            await self._exit_group()
            if self._auth_required is not None:
                raise self._auth_required
            raise ConnectError(
                "cannot connect to the MCP server: " + "; ".join(self._failures)
            )
        client = self._make_client(lease.session, self)
        if self.after_connect is not None:
            try:
                await self.after_connect(client)
            except BaseException as error:
                await self.__aexit__(type(error), error, error.__traceback__)
                raise
        return client

    async def closed_detail(self) -> str | None:
        """Why the connection closed under a request (a stdio server's exit code and stderr), or None."""
        attempt = self._attempt
        if attempt is None or attempt.closed_detail is None:
            return None
        return await attempt.closed_detail()

    def ended_before(self, moment: float) -> bool:
        """Whether the server had stopped answering for good before `moment` (`time.monotonic()`)."""
        attempt = self._attempt
        ended = attempt.ended_at() if attempt is not None else None
        return ended is not None and ended < moment

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, object]], *args: Any) -> None:
        """Run `fn(*args)` in this connection's task group (work a notification starts); dropped once closed."""
        group = self._group
        if group is not None:
            group.start_soon(fn, *args)

    async def reconnect(self, limit: float | None = None) -> Any:
        """Open a new session the same way and retire the current one; the new session.

        A stdio server is started again, an HTTP server gets a new session. Requests still in flight on
        the old session keep it open until they are answered (or fail). Raises `ConnectError` (the
        connection then stays closed) when the server cannot be reached within the connect timeout (or
        `limit` seconds, if shorter: what is left of the request that renews the session).
        """
        group = self._group
        if group is None:
            raise ConnectError("this connection is not open")
        # The old session ends on purpose: not a lost connection. The hook comes back whatever happens:
        # a failed reconnect leaves the connection closed, and the next one that works must report it.
        hook, self.on_close = self.on_close, None
        try:
            old = self.lease
            if old is not None:
                old.retire()
            lease = self.lease = await self._open_lease(group, limit)
            if lease.session is None:
                await lease.done.wait()
                reason = "; ".join(self._failures) or "timed out"
                raise ConnectError(f"cannot reconnect to the MCP server: {reason}")
            return lease.session
        finally:
            if self.on_close is None:
                self.on_close = hook

    async def _exit_group(self, error: BaseException | None = None) -> None:
        group, self._group = self._group, None
        if group is None:
            return
        try:
            if error is None:
                await group.__aexit__(None, None, None)
            else:
                await group.__aexit__(type(error), error, error.__traceback__)
        except BaseException as raised:
            root = unwrap_exception_group(raised)
            if root is error:
                return
            raise root from None

    def _stop_all(self) -> list[Lease]:
        leases = list(self._leases)
        for lease in leases:
            lease.stop.set()
        return leases

    async def aclose(self) -> None:
        """Close the connection now (idempotent); `async with` still has to be left as usual."""
        self._closed("the client was closed")
        for lease in self._stop_all():
            await lease.done.wait()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        import anyio

        self._closed("the client was closed")
        self._stop_all()
        cancelled = exc is not None and isinstance(exc, anyio.get_cancelled_exc_class())
        # A body that failed still gets a graceful shutdown; only a cancellation is handed to the group.
        await self._exit_group(exc if cancelled else None)
