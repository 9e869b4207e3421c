"""The HTTP transports (streamable HTTP and legacy SSE) and the statuses their `httpx2` client saw."""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal, cast

from ..calls.errors import ConnectError, HttpStatusError, http_status_message
from ..calls.telemetry import http_peer
from .attempt import (
    Attempt,
    describe_error,
    diagnose_common,
    mcp_error_code,
    sdk_client,
)
from .urls import safe_url

if TYPE_CHECKING:
    import ssl

    from mcp import Client

__all__ = ["HttpTransport", "HttpWatch", "http_attempts", "http_transport"]

HttpTransport = Literal["auto", "http", "sse"]

_HTTP_READ_TIMEOUT = 300.0  # an SSE stream may stay quiet for long; requests are bounded by the session instead


class HttpWatch:
    """The HTTP statuses the SDK's transports turn into generic errors (the generator reads it too).

    Counted: refused POSTs on streamable HTTP (its optional GET stream may be refused, 405, without
    harm) and any refused request on legacy SSE.
    """

    __slots__ = (
        "any_method",
        "auth_error",
        "bearer",
        "challenge",
        "last",
        "reason",
        "status",
        "with_auth",
    )

    def __init__(self, *, any_method: bool = False) -> None:
        self.any_method = any_method
        #: Requests go through an `httpx2.Auth` (a refused first request may be part of its flow).
        self.with_auth = False
        #: What the auth flow raised last (no login stored, a refused token exchange...).
        self.auth_error: BaseException | None = None
        #: The first refusal was a 401 with a Bearer challenge (OAuth, or a token the caller brings).
        self.bearer = False
        #: That 401's `WWW-Authenticate` value (`auth.challenge.oauth_challenge` tells OAuth apart).
        self.challenge = ""
        #: The first refused response since `reset()`: what explains a failed connect.
        self.status: int | None = None
        self.reason = ""
        #: The latest (status, reason). After connecting, the SDK reports a refused request as a
        #: generic JSON-RPC error without the status; concurrent requests refused with different
        #: statuses may see each other's (a rare, harmless mix-up).
        self.last: tuple[int, str] | None = None

    def reset(self) -> None:
        self.status = None
        self.reason = ""
        self.last = None
        self.auth_error = None
        self.bearer = False
        self.challenge = ""


# Marks the requests an auth flow makes of its own (metadata, registration, token): their
# statuses say nothing about the MCP endpoint.
_AUTH_REQUEST = "mcp_codegen_auth_request"


def _status_hook(watch: HttpWatch) -> Callable[[Any], Any]:
    async def on_response(response: Any) -> None:
        status = int(response.status_code)
        if response.request.extensions.get(_AUTH_REQUEST):
            return
        if not watch.any_method and response.request.method != "POST":
            return
        if status < 400:
            if (
                watch.with_auth
            ):  # the 401 that started a successful login explains nothing
                watch.status = None
                watch.reason = ""
            return
        reason = str(getattr(response, "reason_phrase", "") or "")
        watch.last = (status, reason)
        if watch.status is None:
            watch.status = status
            watch.reason = reason
            challenge = str(response.headers.get("www-authenticate", ""))
            watch.bearer = status == 401 and challenge.lower().startswith(
                ("bearer", "dpop")
            )
            watch.challenge = challenge if watch.bearer else ""

    return on_response


# What the SDK reports for a POST refused with an HTTP error status (mcp.client.streamable_http).
_SDK_STATUS_STAND_INS = (
    (-32603, "Server returned an error response"),
    (-32600, "Session terminated"),
    (-32600, "Session not found"),  # a 404 for a session the server no longer knows
)


def _tagged_auth(auth: Any, watch: HttpWatch) -> Any:
    """`auth` with the requests its flow makes of its own marked for `_status_hook`, and
    its failures kept in `watch` (the SDK's transport only logs them)."""
    import httpx2

    class TaggedAuth(httpx2.Auth):
        requires_request_body = bool(getattr(auth, "requires_request_body", False))
        requires_response_body = bool(getattr(auth, "requires_response_body", False))

        def __repr__(self) -> str:
            return repr(auth)

        async def async_auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = auth.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    if outgoing is not request:
                        outgoing.extensions = {
                            **outgoing.extensions,
                            _AUTH_REQUEST: True,
                        }
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            except Exception as error:
                watch.auth_error = error
                raise
            finally:
                await flow.aclose()

    return TaggedAuth()


@functools.lru_cache(maxsize=4)
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """`httpx2`'s default TLS context (which reads `SSL_CERT_FILE`/`SSL_CERT_DIR`, the key here), made once:
    loading the CA bundle costs tens of milliseconds, and every connect and session renewal opens a client.
    """
    import httpx2

    return httpx2.create_ssl_context()


def _http_client(
    headers: Mapping[str, str], timeout: float, watch: HttpWatch, auth: Any = None
) -> Any:
    import httpx2

    from .resilient_http import post_response_hook

    if auth is not None:
        watch.with_auth = True
        auth = _tagged_auth(auth, watch)
    return httpx2.AsyncClient(
        headers=dict(headers),
        verify=_tls_context(
            os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
        ),
        timeout=httpx2.Timeout(timeout, read=max(timeout, _HTTP_READ_TIMEOUT)),
        auth=auth,
        event_hooks={"response": [post_response_hook, _status_hook(watch)]},
    )


@asynccontextmanager
async def _streamable_transport(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    watch: HttpWatch,
    auth: Any = None,
) -> AsyncGenerator[Any, None]:
    from .resilient_http import resilient_streamable_http

    async with (
        _http_client(headers, timeout, watch, auth) as http_client,
        resilient_streamable_http(url, http_client=http_client) as streams,
    ):
        yield streams


def _sse_transport(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    watch: HttpWatch,
    auth: Any = None,
) -> Any:
    from mcp.client.sse import sse_client

    explicit_auth = auth

    def factory(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        import httpx2

        client = _http_client(headers or {}, 30.0, watch, explicit_auth or auth)
        if timeout is not None:
            client.timeout = (
                timeout
                if isinstance(timeout, httpx2.Timeout)
                else httpx2.Timeout(timeout)
            )
        return client

    return sse_client(
        url,
        headers=dict(headers),
        timeout=timeout,
        sse_read_timeout=max(timeout, _HTTP_READ_TIMEOUT),
        httpx_client_factory=factory,
    )


def http_transport(
    kind: Literal["http", "sse"],
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    watch: HttpWatch,
    auth: Any = None,
) -> AbstractAsyncContextManager[Any]:
    """Streamable HTTP or legacy SSE through an `httpx2` client whose response hook fills `watch`.

    The generator's snapshots use it too. `watch` should be `HttpWatch(any_method=kind == "sse")`.
    `auth` is any `httpx2.Auth` (e.g. `auth.oauth(url)`), applied to every request.
    """
    maker = _streamable_transport if kind == "http" else _sse_transport
    return cast(
        "AbstractAsyncContextManager[Any]", maker(url, headers, timeout, watch, auth)
    )


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _auth_failure(error: BaseException, shown: str) -> str:
    """One line for a failed auth flow: ours say what to do; the SDK's name the step."""
    if isinstance(error, ConnectError):
        return str(error)
    return f"OAuth failed for {shown}: {describe_error(error)}"


def _is_refused_or_timeout(error: BaseException) -> bool:
    name = type(error).__name__
    return name in {"ConnectError", "ConnectTimeout", "TimeoutException"} or isinstance(
        error, (ConnectionRefusedError, TimeoutError)
    )


def http_attempts(
    url: str,
    *,
    headers: Mapping[str, str] | None,
    timeout: float,
    transport: HttpTransport,
    header_hint: Sequence[str] = (),
    auth: Any = None,
) -> list[Attempt]:
    """The ways to reach `url`: streamable HTTP, legacy SSE, or the first then the second ("auto")."""
    if transport not in ("auto", "http", "sse"):
        raise ConnectError(
            f"unknown HTTP transport {transport!r} (expected 'auto', 'http' or 'sse')"
        )
    shown = safe_url(url)
    sent = dict(headers or {})

    def make(kind: Literal["http", "sse"]) -> Attempt:
        watch = HttpWatch(any_method=kind == "sse")

        def open_client(options: Mapping[str, Any]) -> Client:
            watch.reset()
            return sdk_client(
                http_transport(kind, url, sent, timeout, watch, auth), timeout, options
            )

        def credentials() -> list[str]:
            return list(header_hint) or sorted(sent)

        def diagnose(error: BaseException) -> str:
            if watch.auth_error is not None:
                return _auth_failure(watch.auth_error, shown)
            if watch.bearer and not watch.with_auth and not sent:
                from ..auth.challenge import BEARER_TOKEN_HINT, oauth_challenge

                if not oauth_challenge(watch.challenge):
                    return (
                        f"HTTP 401 from {shown}: {BEARER_TOKEN_HINT} when generating,"
                        " or headers={'Authorization': 'Bearer ...'} here"
                        " (auth=oauth(url) if it speaks OAuth after all)"
                    )
                return (
                    f"HTTP 401 from {shown}: the server wants an OAuth login"
                    " (pass auth=oauth(url), or auth=stored(url) after"
                    f" `mcp-codegen auth login {shown}`)"
                )
            if watch.status is not None:
                return http_status_message(
                    watch.status, watch.reason, shown, credentials()
                )
            if _is_refused_or_timeout(error):
                if "Timeout" in type(error).__name__ or isinstance(error, TimeoutError):
                    return f"timed out connecting to {shown}"
                return f"cannot connect to {shown} (connection refused or host unreachable)"
            common = diagnose_common(error, timeout)
            if common is not None:
                return f"{common} ({shown})"
            return f"cannot connect to {shown}: {describe_error(error)}"

        def explain(error: BaseException, method: str | None) -> Exception | None:
            if isinstance(watch.auth_error, ConnectError):
                found, watch.auth_error = watch.auth_error, None
                return found
            failure = watch.last
            code = mcp_error_code(error)
            if failure is None or code is None:
                return None
            message = str(getattr(error, "message", ""))
            if (code, message) not in _SDK_STATUS_STAND_INS:
                return None
            status, reason = failure
            return HttpStatusError(
                code,
                status=status,
                reason=reason,
                url=shown,
                headers_sent=credentials(),
                method=method,
            )

        def status_error(status: int, method: str | None) -> Exception:
            return HttpStatusError(
                -32603,  # what the SDK reports a refused POST as
                status=status,
                reason=_reason(status),
                url=shown,
                headers_sent=credentials(),
                method=method,
            )

        def connected() -> None:
            watch.last = None  # from now on `last` explains failed requests

        def fall_through(error: BaseException) -> bool:
            if watch.status in (401, 403) or watch.auth_error is not None:
                return False
            return not _is_refused_or_timeout(error)

        def auth_failure() -> BaseException | None:
            return watch.auth_error

        label = "streamable HTTP" if kind == "http" else "SSE"
        return Attempt(
            label=label,
            open=open_client,
            diagnose=diagnose,
            fall_through=fall_through,
            target=shown,
            explain=explain,
            status_error=status_error,
            connected=connected,
            auth_failure=auth_failure,
            peer=http_peer(url),
        )

    if transport == "http":
        return [make("http")]
    if transport == "sse":
        return [make("sse")]
    return [make("http"), make("sse")]
