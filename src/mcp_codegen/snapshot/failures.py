"""Why connecting to a server failed, as one secret-free line (the server's stderr, the HTTP status, the login)."""

from __future__ import annotations

import errno
import signal
import socket

import anyio
import anyio.abc
import httpx2
import mcp_types
import pydantic
from mcp.shared.exceptions import MCPError

from mcp_codegen.errors import ServerError
from mcp_codegen.inputs.launch import HttpLaunch, ServerLaunch, redact_url
from mcp_codegen.snapshot.probe import AUTH_STATUSES, LINE_LIMIT, Probe, Scrubber, SpawnError
from mcp_codegen.snapshot.waits import timeout_hint
from mcp_codegen_runtime.auth.challenge import BEARER_TOKEN_HINT
from mcp_codegen_runtime.text import one_line

#: Seconds to wait for each OAuth metadata document after a 401 (a local server answers at once).
_METADATA_TIMEOUT = 5.0
#: A 401 with a plain Bearer challenge and no OAuth metadata: a token the user brings.
_PLAIN_BEARER = f"{BEARER_TOKEN_HINT} (its 401 names no OAuth; --auth oauth if it speaks OAuth anyway)"


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


def is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C, exit, or a cancellation from outside: these propagate as they are."""
    cancelled = anyio.get_cancelled_exc_class()
    return any(isinstance(leaf, (KeyboardInterrupt, SystemExit, GeneratorExit, cancelled)) for leaf in _leaves(exc))


def root_cause(exc: BaseException) -> BaseException:
    """The first meaningful exception inside (nested) exception groups."""
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, (ServerError, SpawnError)):
            return leaf
    for leaf in leaves:
        if not isinstance(leaf, MCPError) or leaf.code != mcp_types.CONNECTION_CLOSED:
            return leaf
    return leaves[0] if leaves else exc


def to_server_error(
    exc: BaseException, probe: Probe, launch: ServerLaunch | None, timeout: float, scrub: Scrubber
) -> ServerError:
    cause = root_cause(exc)
    if isinstance(cause, ServerError):
        return cause
    if isinstance(cause, SpawnError):  # names only the command or directory, which the record keeps anyway
        return ServerError(one_line(str(cause), None))
    message = _describe(cause, probe, launch, timeout, scrub)
    return ServerError(one_line(scrub(message), None))


def _describe(cause: BaseException, probe: Probe, launch: ServerLaunch | None, timeout: float, scrub: Scrubber) -> str:
    where = probe.where()
    if type(cause).__name__ == "BearerTokenRequiredError":  # a stored token's flow met a plain Bearer 401
        url = redact_url(launch.url) if isinstance(launch, HttpLaunch) else "the server"
        return f"authentication failed (HTTP 401) at {url}: {_PLAIN_BEARER}"
    if _is_oauth_failure(cause):  # before the HTTP status: the 401 that started the flow explains nothing
        url = redact_url(launch.url) if isinstance(launch, HttpLaunch) else "the server"
        auth = launch.auth if isinstance(launch, HttpLaunch) else None
        if auth is not None and auth.no_login is not None and type(cause).__name__ == "AuthRequiredError":
            from mcp_codegen.snapshot.auth import no_login_message

            assert isinstance(launch, HttpLaunch)
            return f"the stored OAuth token was not accepted; {no_login_message(launch.url, auth.no_login)}"
        return f"OAuth failed at {url}: {one_line(cause, LINE_LIMIT)}"
    if isinstance(launch, HttpLaunch):
        http = _describe_http(cause, probe, launch, timeout, where)
        if http is not None:
            return http
    if isinstance(cause, TimeoutError) or (isinstance(cause, MCPError) and cause.code == mcp_types.REQUEST_TIMEOUT):
        text = (
            f"timed out after {timeout:g} s while initializing"
            if probe.initializing
            else f"timed out after {timeout:g} s waiting for {probe.phase}"
        )
        hint = timeout_hint(launch, timeout, initializing=probe.initializing)
        return f"{text}; {hint}{_stdio_context(probe, scrub)}"
    if isinstance(cause, MCPError):
        if cause.code == mcp_types.CONNECTION_CLOSED:
            return _describe_closed(probe, where, scrub)
        if cause.code == mcp_types.PARSE_ERROR:
            return f"the server sent something that is not JSON-RPC {where}"
        return (
            f"the server answered with an error {where}: {one_line(cause.message, LINE_LIMIT)} (JSON-RPC {cause.code})"
        )
    if isinstance(cause, pydantic.ValidationError):
        first = cause.errors()[0] if cause.errors() else None
        detail = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}" if first else "invalid"
        return f"the server sent an invalid result {where} ({detail})"
    if isinstance(cause, RuntimeError) and "protocol version" in str(cause).lower():
        return f"cannot talk to the server: {cause}"
    text = f"unexpected failure {where}: {cause.__class__.__name__}"
    if str(cause):
        text += f": {cause}"
    return text + _stdio_context(probe, scrub)


def _describe_closed(probe: Probe, where: str, scrub: Scrubber) -> str:
    process = probe.process
    if process is None:
        return f"the server closed the connection {where}"
    code = process.returncode
    if code is None:
        text = f"the server closed its stdout {where}"
    elif code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        text = f"server was killed by {name} {where}"
    else:
        text = f"server exited with code {code} {where}"
    return text + _stdio_context(probe, scrub, always_stderr=True)


def _stdio_context(probe: Probe, scrub: Scrubber, *, always_stderr: bool = False) -> str:
    if probe.process is None:
        return ""
    text = ""
    if probe.garbage:
        text += f"; it wrote non-JSON to stdout: {scrub(probe.garbage[0])!r}"
    tail = probe.stderr_tail()
    if tail:
        text += "; last stderr lines: " + " | ".join(scrub(line) for line in tail)
    elif always_stderr and not probe.garbage:
        text += "; it wrote nothing to stderr"
    return text


def _describe_http(cause: BaseException, probe: Probe, launch: HttpLaunch, timeout: float, where: str) -> str | None:
    url = redact_url(launch.url)
    status: int | None = None
    reason = ""
    if isinstance(cause, httpx2.HTTPStatusError):
        status, reason = cause.response.status_code, cause.response.reason_phrase
    elif probe.http_failure is not None and not isinstance(cause, httpx2.TransportError):
        status, reason = probe.http_failure.status, probe.http_failure.reason
    if status is not None:
        if status in AUTH_STATUSES:
            return _describe_auth_failure(status, probe, launch, url)
        text = f"HTTP {status}{f' ({reason})' if reason else ''} from {url} {where}"
        if status == 404:
            text += "; is this the server's MCP endpoint?"
        return text
    if isinstance(cause, httpx2.TimeoutException):
        hint = timeout_hint(launch, timeout, initializing=probe.initializing)
        return f"timed out after {timeout:g} s {'connecting to' if probe.initializing else 'talking to'} {url}; {hint}"
    if isinstance(cause, httpx2.TransportError):
        if probe.initializing and isinstance(cause, httpx2.ConnectError):
            return f"cannot connect to {url}: {_connect_reason(cause)}"
        return f"connection to {url} lost {where} ({cause.__class__.__name__})"
    if isinstance(cause, MCPError) and cause.code == mcp_types.CONNECTION_CLOSED:
        return f"connection to {url} closed {where}"
    return None


def _describe_auth_failure(status: int, probe: Probe, launch: HttpLaunch, url: str) -> str:
    names = sorted(launch.headers, key=str.lower)
    if launch.auth is not None:
        how = "OAuth login" if launch.auth.kind == "oauth" else "OAuth client credentials"
        sent = f"the {how} did not give a token the server accepts"
        if launch.auth.kind == "oauth":
            sent += f" (try `mcp-codegen auth logout {url}`, then log in again)"
        return f"authentication failed (HTTP {status}) at {url}; {sent}"
    if status == 401 and probe.http is not None and getattr(probe.http, "bearer", False) and not names:
        if not _speaks_oauth(launch.url, str(getattr(probe.http, "challenge", ""))):
            return f"authentication failed (HTTP 401) at {url}: {_PLAIN_BEARER}"
        return (
            f"authentication failed (HTTP 401) at {url}: the server asks for OAuth; run `mcp-codegen auth login"
            f" {url}` first (its token is then used without --auth), or add --auth oauth to log in now"
        )
    sent = f"headers sent: {', '.join(names)}" if names else "no headers were sent (add one with -H)"
    return f"authentication failed (HTTP {status}) at {url}; {sent}"


def _speaks_oauth(server_url: str, challenge: str) -> bool:
    """A 401's server speaks OAuth when its challenge says so or it serves OAuth metadata where OAuth servers
    publish it (`auth.challenge`); asked only once a 401 has already ended the run."""
    from mcp_codegen_runtime.auth.challenge import oauth_challenge, oauth_metadata, oauth_metadata_urls

    if oauth_challenge(challenge):
        return True
    try:
        with httpx2.Client(timeout=_METADATA_TIMEOUT, follow_redirects=True) as client:
            for metadata_url in oauth_metadata_urls(server_url):
                answer = client.get(metadata_url, headers={"Accept": "application/json"})
                if oauth_metadata(answer.status_code, answer.content):
                    return True
    except httpx2.HTTPError:
        return False
    return False


def _is_oauth_failure(error: BaseException) -> bool:
    """The SDK's OAuth errors, and the runtime auth's own (`ConnectError`: "log in first", the login timed out,
    the redirect listener could not listen): the generator uses the runtime's transports, not its connector,
    so a runtime `ConnectError` can only come from its OAuth."""
    from mcp.client.auth import OAuthFlowError

    from mcp_codegen_runtime.calls.errors import ConnectError

    return isinstance(error, (OAuthFlowError, ConnectError))


def _connect_reason(error: BaseException) -> str:
    """'connection refused', 'host not found', ... from the OS error under an httpx2 ConnectError."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return "host not found"
        if isinstance(current, ConnectionRefusedError) or (
            isinstance(current, OSError) and current.errno == errno.ECONNREFUSED
        ):
            return "connection refused"
        if isinstance(current, OSError) and current.strerror:
            return current.strerror.lower()
        current = current.__cause__ or current.__context__
    text = str(error).lower()
    if "refused" in text or "all connection attempts failed" in text:
        return "connection refused"
    return str(error) or error.__class__.__name__
