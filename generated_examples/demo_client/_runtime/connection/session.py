"""The connection: one owner task holds the SDK client open, so the user's `async with` body never runs inside it.

A connector (`AsyncClientBase.stdio/http/connect`) returns an `AsyncConnection`. Entering it
starts one *owner task* that enters the SDK's `mcp.Client` and keeps it open until the connection
is closed. The user's `async with` body therefore never runs inside the SDK's task groups: a
transport failure cannot cancel it, its own exceptions leave unwrapped, and `aclose()` works from
any task. Everything heavy (`mcp`, `httpx2`) is imported only when a connection is opened.

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
from .attempt import MODERN_OPTIONS, Attempt, speaks_only_modern

if TYPE_CHECKING:
    import anyio
    import anyio.abc

# The connectors' attempts are importable from here too (the client's connectors import them so).
__all__ = [
    "AsyncConnection",
]

ClientT = TypeVar("ClientT")


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
    ) -> None:
        self._make_client = make_client
        #: More keyword arguments for `mcp.Client` (e.g. `client_info`).
        self._client_options: Mapping[str, Any] = client_options or {}
        #: Runs once the client exists (the drift guard); if it raises, the connection is closed.
        self.after_connect = after_connect
        self._attempts = attempts
        self._timeout = timeout
        self._group: anyio.abc.TaskGroup | None = None
        self._owner_scope: anyio.CancelScope | None = None
        self._ready: anyio.Event | None = None
        self._stop: anyio.Event | None = None
        self._done: anyio.Event | None = None
        self._session: Any = None
        self._attempt: Attempt | None = None
        self._failures: list[str] = []
        self._auth_required: AuthRequiredError | None = None
        self._entered = False
        #: Called once when the connection ends: `(reason, lost)`, lost when it ended after it was up
        #: without being closed.
        self.on_close: Callable[[str, bool], None] | None = None
        #: An error the connection ended with after it was up (a transport crash), kept for diagnostics.
        self.error: BaseException | None = None

    def _closed(self, reason: str, *, lost: bool = False) -> None:
        hook, self.on_close = self.on_close, None
        if hook is not None:
            hook(reason, lost)

    def explain(self, error: BaseException, method: str | None) -> Exception | None:
        """A better error than the SDK's for a request that failed on this connection, or None."""
        attempt = self._attempt
        return attempt.explain(error, method) if attempt is not None else None

    async def _own(self, attempts: Sequence[Attempt]) -> None:
        import anyio

        assert (
            self._ready is not None
            and self._stop is not None
            and self._done is not None
        )
        try:
            with anyio.CancelScope() as scope:
                self._owner_scope = scope
                for index, attempt in enumerate(attempts):
                    options = self._client_options
                    try:
                        try:
                            await self._serve(attempt, options)
                            return
                        except Exception as error:
                            if self._session is not None or not speaks_only_modern(
                                unwrap_exception_group(error)
                            ):
                                raise
                        await self._serve(attempt, {**options, **MODERN_OPTIONS})
                        return
                    except Exception as error:
                        root = unwrap_exception_group(error)
                        if self._session is not None:
                            self.error = root
                            return
                        refused = attempt.auth_failure()
                        if isinstance(refused, AuthRequiredError):
                            self._auth_required = (
                                refused  # raised as it is: a login helps
                            )
                            return
                        reason = attempt.diagnose(root)
                        self._failures.append(
                            f"{attempt.label}: {reason}"
                            if len(attempts) > 1
                            else reason
                        )
                        if index + 1 >= len(attempts) or not attempt.fall_through(root):
                            return
        finally:
            if self._session is not None and not self._stop.is_set():
                self._closed("the connection to the MCP server was lost", lost=True)
            self._ready.set()
            self._done.set()

    @property
    def peer(self) -> Mapping[str, str | int]:
        """The OpenTelemetry attributes of the transport connected through (none before connecting)."""
        attempt = self._attempt
        return attempt.peer if attempt is not None else {}

    async def _serve(self, attempt: Attempt, options: Mapping[str, Any]) -> None:
        """Connect through `attempt` and hold the session open until the connection is closed."""
        assert self._ready is not None and self._stop is not None
        started: float | None = None
        ended_by: BaseException | None = None
        try:
            async with attempt.open(options) as client:
                accept_result_forms(client.session)
                self._session = client.session
                self._attempt = attempt
                attempt.connected()
                self._ready.set()
                started = time.perf_counter()
                await self._stop.wait()
        except Exception as error:
            ended_by = unwrap_exception_group(error)
            raise
        finally:
            if started is not None and telemetry.active():
                protocol = getattr(self._session, "protocol_version", None)
                telemetry.record_session(
                    time.perf_counter() - started, attempt.peer, protocol, ended_by
                )

    async def __aenter__(self) -> ClientT:
        import anyio

        if self._entered:
            raise RuntimeError(
                "this connection was already used; call the connector again for a new one"
            )
        self._entered = True
        attempts = self._attempts()  # may raise ConnectError (launch spec problems)
        self._ready, self._stop, self._done = (
            anyio.Event(),
            anyio.Event(),
            anyio.Event(),
        )
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        try:
            group.start_soon(self._own, attempts)
            with anyio.move_on_after(self._timeout):
                await self._ready.wait()
            if self._session is None:
                if not self._failures:
                    last = attempts[-1].target if attempts else "the server"
                    self._failures.append(
                        f"timed out after {self._timeout:g} s ({last})"
                    )
                if self._owner_scope is not None:
                    self._owner_scope.cancel()
                self._stop.set()
        except BaseException:
            # Cancelled (or failed) while connecting: stop the owner and wait for its cleanup. The group's
            # own scope is shielded, since a new scope around its exit would break the LIFO order.
            group.cancel_scope.cancel()
            group.cancel_scope.shield = True
            await self._exit_group()
            raise
        if self._session is None:
            await self._exit_group()
            if self._auth_required is not None:
                raise self._auth_required
            raise ConnectError(
                "cannot connect to the MCP server: " + "; ".join(self._failures)
            )
        client = self._make_client(self._session, self)
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

    async def reconnect(self) -> Any:
        """Close the current session (if any is left) and connect again the same way; the new session.

        A stdio server is started again, an HTTP server gets a new session. Raises `ConnectError` (the
        connection then stays closed) when the server cannot be reached.
        """
        import anyio

        group = self._group
        if group is None or self._stop is None or self._done is None:
            raise ConnectError("this connection is not open")
        hook, self.on_close = (
            self.on_close,
            None,
        )  # the old session ends on purpose: not a lost connection
        self._stop.set()
        await self._done.wait()
        self._session, self._attempt, self.error, self._failures = None, None, None, []
        self._ready, self._stop, self._done = (
            anyio.Event(),
            anyio.Event(),
            anyio.Event(),
        )
        attempts = self._attempts()
        group.start_soon(self._own, attempts)
        with anyio.move_on_after(self._timeout):
            await self._ready.wait()
        if self._session is None:
            if self._owner_scope is not None:
                self._owner_scope.cancel()
            self._stop.set()
            await self._done.wait()
            reason = "; ".join(self._failures) or f"timed out after {self._timeout:g} s"
            raise ConnectError(f"cannot reconnect to the MCP server: {reason}")
        self.on_close = hook
        return self._session

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

    async def aclose(self) -> None:
        """Close the connection now (idempotent); `async with` still has to be left as usual."""
        self._closed("the client was closed")
        if self._stop is None or self._done is None:
            return
        self._stop.set()
        await self._done.wait()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        import anyio

        self._closed("the client was closed")
        if self._stop is not None:
            self._stop.set()
        cancelled = exc is not None and isinstance(exc, anyio.get_cancelled_exc_class())
        # A body that failed still gets a graceful shutdown; only a cancellation is handed to the group.
        await self._exit_group(exc if cancelled else None)
