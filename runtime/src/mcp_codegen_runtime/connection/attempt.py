"""One way to reach a server (`Attempt`), the SDK client every connection opens, and one-line connect errors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..calls.telemetry import IN_PROCESS_PEER
from ..text import one_line

if TYPE_CHECKING:
    from mcp import Client

__all__ = [
    "MODERN_OPTIONS",
    "Attempt",
    "describe_error",
    "diagnose_common",
    "in_process_attempt",
    "mcp_error_code",
    "sdk_client",
    "speaks_only_modern",
]


def _never(_error: BaseException) -> bool:
    return False


def _nothing() -> None:
    return None


def _as_is(_error: BaseException, _method: str | None) -> Exception | None:
    return None


class Attempt:
    """One way to reach the server: `open(options)` gives an un-entered `mcp.Client`.

    `options` are more keyword arguments for `mcp.Client` (e.g. `client_info`).
    """

    __slots__ = (
        "auth_failure",
        "closed_detail",
        "connected",
        "diagnose",
        "ended_at",
        "explain",
        "fall_through",
        "label",
        "open",
        "peer",
        "status_error",
        "target",
    )

    def __init__(
        self,
        *,
        label: str,
        open: Callable[[Mapping[str, Any]], Client],
        diagnose: Callable[[BaseException], str],
        fall_through: Callable[[BaseException], bool] = _never,
        connected: Callable[[], None] = _nothing,
        target: str | None = None,
        explain: Callable[[BaseException, str | None], Exception | None] = _as_is,
        status_error: Callable[[int, str | None], Exception | None] | None = None,
        auth_failure: Callable[[], BaseException | None] = _nothing,
        closed_detail: Callable[[], Awaitable[str | None]] | None = None,
        ended_at: Callable[[], float | None] = _nothing,
        peer: Mapping[str, str | int] | None = None,
    ) -> None:
        self.label = label
        #: The transport's OpenTelemetry attributes (`network.transport`, `server.address`, ...).
        self.peer: Mapping[str, str | int] = peer or {}
        #: What the auth flow raised while connecting, if anything.
        self.auth_failure = auth_failure
        #: What is being reached, for messages (a command or a URL without secrets).
        self.target = target if target is not None else label
        self.open = open
        #: Turns the (unwrapped) failure of entering the client into a one-line reason.
        self.diagnose = diagnose
        #: Whether the next attempt is worth trying after this failure.
        self.fall_through = fall_through
        #: Called once the session is initialized.
        self.connected = connected
        #: A better error for a request that failed after connecting (e.g. with its HTTP status), or None.
        self.explain = explain
        #: The error a request refused with this HTTP status raises once it is not retried, or None.
        self.status_error = status_error
        #: Why the connection closed under a request (a stdio server's exit code and stderr), or None.
        self.closed_detail = closed_detail
        #: When (`time.monotonic()`) the server stopped answering for good (a stdio server's stdout
        #: ended), or None: a request sent later never reached it.
        self.ended_at = ended_at


def sdk_client(
    target: Any, timeout: float, options: Mapping[str, Any] | None = None
) -> Client:
    """The SDK client every connection uses: legacy handshake first (no 10 s `server/discover`
    probe, which 2.x servers answer too; `options={"mode": "auto"}` after `speaks_only_modern`),
    none of the SDK's response cache (the runtime sends through the session, and keeps its own
    cache beneath that: `connection.cache`), and a bound on each request. A transport's results
    arrive with a missing `resultType` taken as "complete" (`results`); an in-process server
    (the SDK's own) always sends it."""
    from contextlib import AbstractAsyncContextManager

    from mcp import Client

    from ..recordings.plan import TRANSPORT_TAP
    from .results import with_complete_results

    settings: dict[str, Any] = {
        "mode": "legacy",
        "cache": None,
        "read_timeout_seconds": timeout,
    }
    settings.update(options or {})
    tap = settings.pop(
        TRANSPORT_TAP, None
    )  # `record=`: the session is written as it happens
    if tap is not None and not isinstance(target, AbstractAsyncContextManager):
        from mcp.client._memory import InMemoryTransport

        target = InMemoryTransport(
            target
        )  # an in-process server, over streams to record
    if isinstance(target, AbstractAsyncContextManager):
        transport = cast("AbstractAsyncContextManager[Any]", target)
        target = with_complete_results(tap.wrap(transport) if tap else transport)
    return Client(target, **settings)


#: What an `initialize` refused by a server that speaks only 2026-07-28 (no handshake) looks like.
#: UNSUPPORTED_PROTOCOL_VERSION, METHOD_NOT_FOUND, and -32020: a 2026-07-28 server that requires the
#: MCP-Protocol-Version header, which a legacy `initialize` does not send.
_MODERN_ONLY_CODES = (-32022, -32601, -32020)


def speaks_only_modern(error: BaseException) -> bool:
    """Whether a failed legacy handshake says the server speaks only 2026-07-28 or newer.

    Such a server refuses `initialize` (-32022 naming its versions, or -32601) or answers it with a
    version the handshake does not know. The caller then connects again with `mode="auto"`, whose
    `server/discover` answers at once: old servers never pay the SDK's 10 s discovery probe.
    """
    if mcp_error_code(error) in _MODERN_ONLY_CODES:
        return True
    return isinstance(error, RuntimeError) and str(error).startswith(
        "Unsupported protocol version from the server"
    )


#: `mcp.Client` options for the second try against a server that refused the handshake.
MODERN_OPTIONS: Mapping[str, Any] = {"mode": "auto"}


def mcp_error_code(error: BaseException) -> int | None:
    """The JSON-RPC error code of the SDK's `MCPError`, or None for any other error."""
    code = getattr(error, "code", None)
    if isinstance(code, int) and any(
        cls.__name__ == "MCPError" for cls in type(error).__mro__
    ):
        return code
    return None


def diagnose_common(error: BaseException, timeout: float) -> str | None:
    """The reason for a failed handshake that any transport may see, or None."""
    from ..calls.errors import sdk_connection_closed, sdk_request_timeout

    code = mcp_error_code(error)
    if sdk_connection_closed(error):
        return "the server closed the connection during initialization"
    if sdk_request_timeout(error) or isinstance(error, TimeoutError):
        return f"no initialize response within {timeout:g} s"
    if code is not None:
        message = getattr(error, "message", "") or str(error)
        return f"the server rejected initialization: {one_line(str(message), 200)} (error {code})"
    if type(error).__name__ == "ValidationError":
        return "the server's initialize response does not conform to MCP"
    return None


def describe_error(error: BaseException) -> str:
    """`Class: message` on one line, for an error no better reason explains."""
    text = one_line(str(error), 200)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def in_process_attempt(server: Any, *, timeout: float) -> Attempt:
    """Reaching a server object in this process (the SDK's in-memory transport)."""

    def open_client(options: Mapping[str, Any]) -> Client:
        return sdk_client(server, timeout, options)

    def diagnose(error: BaseException) -> str:
        return diagnose_common(error, timeout) or describe_error(error)

    return Attempt(
        label="in-process server",
        open=open_client,
        diagnose=diagnose,
        peer=IN_PROCESS_PEER,
    )
