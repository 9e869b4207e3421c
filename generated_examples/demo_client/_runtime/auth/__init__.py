"""OAuth for HTTP servers: tokens stored per server URL, and the SDK's OAuth providers wired up.

`TokenStore` keeps one server's tokens and client registration (a 0600 JSON file under the
user's config directory, or the OS keyring) and is the SDK's `TokenStorage`. `oauth()` logs in
interactively (authorization code + PKCE, a loopback redirect listener, the browser);
`client_credentials()` is for machines; `stored()` only ever uses what a login stored (and
refreshes it), raising `AuthRequiredError` rather than starting a login. Every one of them is
an `httpx2.Auth` for `AsyncClient.http(url, auth=...)`.

Nothing here logs or formats a token or a client secret; reprs show only the URL and backend.
`mcp` is imported on first use, `keyring` only when it is installed and chosen.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from ..calls.errors import AuthRequiredError, ConnectError

try:
    import fcntl
except ImportError:  # Windows: see RefreshLock
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import httpx2
    from mcp.client.auth import TokenStorage
    from mcp.shared.auth import (
        AuthorizationCodeResult,
        OAuthClientInformationFull,
        OAuthToken,
    )

__all__ = [
    "Backend",
    "SecretMethod",
    "TokenStatus",
    "TokenStore",
    "client_credentials",
    "cross_app_access",
    "login_hint",
    "normalise_url",
    "oauth",
    "stored",
    "when_challenged",
]

logger = logging.getLogger(__name__)

Backend = Literal["file", "keyring"]
#: How a client secret reaches the token endpoint (RFC 6749 §2.3.1).
SecretMethod = Literal["client_secret_basic", "client_secret_post"]

_SERVICE = "mcp-codegen"
_STORE_ENV = "MCP_CODEGEN_TOKEN_STORE"
_CONFIG_ENV = "MCP_CODEGEN_CONFIG_DIR"
_FORMAT = 1
_CALLBACK_PATH = "/callback"
_LOGIN_WAIT = 300.0  # seconds a person gets to finish the login in the browser


# ------------------------------------------------------------------------------------- locations


def normalise_url(url: str) -> str:
    """The key tokens are stored under: scheme://host[:port]/path, lower-case scheme and host,
    default port, userinfo, query and fragment dropped (they may carry secrets), no trailing '/'.
    """
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError as error:
        raise ConnectError(f"invalid server URL: {error}") from None
    if scheme not in ("http", "https") or not host:
        raise ConnectError("the server URL must be an http:// or https:// URL")
    if ":" in host:
        host = f"[{host}]"
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    return urlunsplit((scheme, host, path, "", ""))


def login_hint(url: str) -> str:
    """The command that stores a token for `url` (the URL without secrets)."""
    return f"mcp-codegen auth login {normalise_url(url)}"


def default_directory() -> Path:
    """Where the file backend keeps its files (and the keyring backend its non-secret index)."""
    configured = os.environ.get(_CONFIG_ENV)
    if configured:
        return Path(configured).expanduser() / "auth"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "mcp-codegen" / "auth"


def _file_name(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32] + ".json"


def _keyring_module() -> Any | None:
    """The `keyring` module when it is installed and has a backend that can store secrets."""
    try:  # imported by name: `keyring` is optional and mypy must not need its stubs
        keyring = importlib.import_module("keyring")
        fail = importlib.import_module("keyring.backends.fail")
    except Exception:  # not installed, or broken: the file backend is used
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring):
        return None
    if type(backend).__name__ == "ChainerBackend" and not getattr(
        backend, "backends", None
    ):
        return None
    return keyring


def _choose_backend(backend: str) -> Backend:
    chosen = os.environ.get(_STORE_ENV) or backend
    if chosen not in ("auto", "file", "keyring"):
        raise ConnectError(
            f"unknown token store {chosen!r} (expected 'auto', 'file' or 'keyring')"
        )
    if chosen == "file":
        return "file"
    if _keyring_module() is not None:
        return "keyring"
    if chosen == "keyring":
        raise ConnectError(
            "the keyring token store needs the 'keyring' package with a usable backend"
        )
    return "file"


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, readable by the user alone from the first byte."""
    directory = path.parent
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(directory, 0o700)
    # mkstemp creates the file 0600; os.replace makes the new content appear at once.
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class RefreshLock:
    """An exclusive lock between processes on a sidecar file, held while a token is refreshed.

    Refresh tokens may be valid once (rotation): two processes refreshing one stored token
    at once would both send it and the second would be refused. `fcntl.flock` where the
    platform has it; elsewhere (Windows) a no-op, and concurrent refreshes are not ordered.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._descriptor: int | None = None

    def acquire(self) -> None:
        """Block until no other process holds the lock."""
        if fcntl is None or self._descriptor is not None:
            return
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except BaseException:
            os.close(descriptor)
            raise
        self._descriptor = descriptor

    def release(self) -> None:
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None and fcntl is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(descriptor, fcntl.LOCK_UN)
            os.close(descriptor)


# ----------------------------------------------------------------------------------- token store


@dataclass(frozen=True)
class TokenStatus:
    """What is stored for one server, without any secret (for `mcp-codegen auth status`)."""

    url: str
    backend: Backend
    has_tokens: bool
    has_refresh_token: bool
    #: Unix time the access token expires, when the server said.
    expires_at: float | None
    scopes: tuple[str, ...]
    client_id: str | None
    #: The file holding the record (the file backend) or the keyring index entry.
    path: Path | None

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and time.time() >= self.expires_at


class TokenStore:
    """One server's OAuth tokens and client registration; the SDK's `TokenStorage`.

    `TokenStore.for_url(url)` picks the backend: the OS keyring when `keyring` is installed
    with a usable backend, else a JSON file (0600, in a 0700 directory) named after a hash of
    the URL; `backend=` or `$MCP_CODEGEN_TOKEN_STORE` (`file` / `keyring`) choose explicitly.
    Tokens written by the SDK (login, refresh) land here at once and survive restarts.
    """

    def __init__(self, url: str, *, backend: Backend, directory: Path) -> None:
        #: The normalised server URL (no secrets), the key of the record.
        self.url = normalise_url(url)
        self.backend: Backend = backend
        self.directory = directory
        #: The record's file (file backend) or its non-secret index file (keyring backend).
        self.path = directory / _file_name(self.url)

    @classmethod
    def for_url(
        cls,
        url: str,
        *,
        backend: Literal["auto", "file", "keyring"] = "auto",
        directory: str | os.PathLike[str] | None = None,
    ) -> TokenStore:
        where = Path(directory) if directory is not None else default_directory()
        return cls(url, backend=_choose_backend(backend), directory=where)

    def __repr__(self) -> str:
        return f"TokenStore({self.url!r}, backend={self.backend!r})"

    # -- raw records

    def _load(self) -> dict[str, Any]:
        text: str | None = None
        if self.backend == "keyring":
            keyring = _keyring_module()
            if keyring is None:
                return {}
            try:
                text = keyring.get_password(_SERVICE, self.url)
            except (
                Exception
            ) as error:  # a locked or broken keyring reads as nothing stored
                logger.warning(
                    "cannot read the keyring for %s: %s", self.url, type(error).__name__
                )
                return {}
        else:
            try:
                text = self.path.read_text(encoding="utf-8")
            except FileNotFoundError:
                return {}
            except OSError as error:
                logger.warning(
                    "cannot read the token file for %s: %s", self.url, error.strerror
                )
                return {}
        if not text:
            return {}
        try:
            record = json.loads(text)
        except ValueError:
            logger.warning("ignoring an unreadable token record for %s", self.url)
            return {}
        return cast("dict[str, Any]", record) if isinstance(record, dict) else {}

    def _save(self, record: dict[str, Any]) -> None:
        record = {"format": _FORMAT, "url": self.url, **record}
        record["updatedAt"] = time.time()
        if self.backend == "keyring":
            keyring = _keyring_module()
            if keyring is None:
                raise ConnectError("the keyring is not usable any more")
            keyring.set_password(_SERVICE, self.url, json.dumps(record))
            # A non-secret index entry, so stored servers can be listed (keyring cannot).
            index = {"format": _FORMAT, "url": self.url, "backend": "keyring"}
            _write_private(self.path, json.dumps(index, indent=2) + "\n")
        else:
            _write_private(self.path, json.dumps(record, indent=2) + "\n")

    def _update(self, **fields: Any) -> None:
        record = self._load()
        record.pop("format", None)
        record.pop("url", None)
        record.update(fields)
        self._save(record)

    # -- TokenStorage protocol

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        data = self._load().get("tokens")
        if not isinstance(data, dict):
            return None
        try:
            return OAuthToken.model_validate(data)
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = (
            time.time() + tokens.expires_in if tokens.expires_in is not None else None
        )
        self._update(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expiresAt=expires_at,
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        data = self._load().get("clientInfo")
        if not isinstance(data, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(data)
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._update(clientInfo=client_info.model_dump(mode="json", exclude_none=True))

    # -- the rest

    @property
    def expires_at(self) -> float | None:
        """Unix time the stored access token expires (None: unknown or nothing stored)."""
        value = self._load().get("expiresAt")
        return float(value) if isinstance(value, (int, float)) else None

    def refresh_lock(self) -> RefreshLock:
        """The lock the providers hold while refreshing this server's token (a `.lock` sidecar)."""
        return RefreshLock(self.path.with_suffix(".lock"))

    def has_refresh_token(self) -> bool:
        tokens = self._load().get("tokens")
        return isinstance(tokens, dict) and bool(
            cast("dict[str, Any]", tokens).get("refresh_token")
        )

    def has_tokens(self) -> bool:
        tokens = self._load().get("tokens")
        return isinstance(tokens, dict) and bool(
            cast("dict[str, Any]", tokens).get("access_token")
        )

    def describe(self) -> TokenStatus:
        """What is stored, without any secret."""
        record = self._load()
        tokens = record.get("tokens")
        tokens = cast("dict[str, Any]", tokens) if isinstance(tokens, dict) else {}
        client = record.get("clientInfo")
        client = cast("dict[str, Any]", client) if isinstance(client, dict) else {}
        scope = tokens.get("scope")
        expires = record.get("expiresAt")
        client_id = client.get("client_id")
        return TokenStatus(
            url=self.url,
            backend=self.backend,
            has_tokens=bool(tokens.get("access_token")),
            has_refresh_token=bool(tokens.get("refresh_token")),
            expires_at=float(expires) if isinstance(expires, (int, float)) else None,
            scopes=tuple(scope.split()) if isinstance(scope, str) else (),
            client_id=client_id if isinstance(client_id, str) else None,
            path=self.path if self.path.exists() else None,
        )

    def clear(self) -> bool:
        """Forget the tokens and the client registration; True when something was stored."""
        found = False
        if self.backend == "keyring":
            keyring = _keyring_module()
            if keyring is not None:
                try:
                    keyring.delete_password(_SERVICE, self.url)
                    found = True
                except Exception:  # keyring.errors.PasswordDeleteError: nothing stored
                    pass
        try:
            self.path.unlink()
            found = True
        except FileNotFoundError:
            pass
        self.path.with_suffix(".lock").unlink(missing_ok=True)
        return found

    def registered_redirect_port(self) -> int:
        """The loopback port of the stored registration (0: none): its redirect URI must match
        on the next login, so `oauth()` listens there again."""
        from urllib.parse import urlsplit

        client = self._load().get("clientInfo")
        uris: object = (
            cast("dict[str, object]", client).get("redirect_uris")
            if isinstance(client, dict)
            else None
        )
        for uri in cast("list[object]", uris) if isinstance(uris, list) else []:
            try:
                parts = urlsplit(str(uri))
                if parts.hostname == "127.0.0.1" and parts.port:
                    return int(parts.port)
            except ValueError:
                continue
        return 0

    @classmethod
    def stored_servers(
        cls, *, directory: str | os.PathLike[str] | None = None
    ) -> list[TokenStatus]:
        """Every server something is stored for (both backends), sorted by URL."""
        where = Path(directory) if directory is not None else default_directory()
        found: list[TokenStatus] = []
        try:
            files = sorted(where.glob("*.json"))
        except OSError:
            return []
        for path in files:
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(record, dict):
                continue
            entry = cast("dict[str, Any]", record)
            url = entry.get("url")
            if not isinstance(url, str):
                continue
            backend: Backend = (
                "keyring" if entry.get("backend") == "keyring" else "file"
            )
            try:
                found.append(cls(url, backend=backend, directory=where).describe())
            except ConnectError:
                continue
        return sorted(found, key=lambda status: status.url)


def _as_store(server_url: str, store: TokenStore | TokenStorage | None) -> Any:
    return store if store is not None else TokenStore.for_url(server_url)


# -------------------------------------------------------------------------------- redirect/callback


class _LoopbackListener:
    """A one-shot HTTP listener on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self, port: int) -> None:
        self.port = port or _free_port()
        self._listener: Any = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{_CALLBACK_PATH}"

    async def start(self) -> None:
        import anyio

        if self._listener is not None:
            return
        try:
            self._listener = await anyio.create_tcp_listener(
                local_host="127.0.0.1", local_port=self.port
            )
        except OSError as error:
            raise ConnectError(
                f"cannot listen for the OAuth redirect on 127.0.0.1:{self.port}:"
                f" {error.strerror or error}"
            ) from None

    async def wait(self) -> AuthorizationCodeResult:
        """The code and state of the first redirect to the callback path."""
        import anyio
        from mcp.shared.auth import AuthorizationCodeResult

        await self.start()
        listener = self._listener.listeners[0]
        try:
            with anyio.fail_after(_LOGIN_WAIT):
                while True:
                    stream = await listener.accept()
                    async with stream:
                        result = await _read_redirect(stream)
                    if result is None:
                        continue
                    if "error" in result:
                        raise ConnectError(
                            "the authorization server refused the login: "
                            + _one_line(
                                result.get("error_description") or result["error"]
                            )
                        )
                    return AuthorizationCodeResult(
                        code=result.get("code", ""),
                        state=result.get("state"),
                        iss=result.get("iss"),
                    )
        except TimeoutError:
            raise ConnectError(
                f"no OAuth redirect within {_LOGIN_WAIT:g} s (the login was not finished)"
            ) from None
        finally:
            await self.close()

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.aclose()


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>mcp-codegen</title></head>"
    "<body style='font-family:sans-serif'><h3>{}</h3><p>You can close this tab.</p></body></html>"
)


async def _read_redirect(stream: Any) -> dict[str, str] | None:
    """Read one HTTP request; answer it; its query parameters if it is the callback."""
    from urllib.parse import parse_qsl, urlsplit

    import anyio

    data = b""
    try:
        with anyio.fail_after(10):
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = await stream.receive()
                if not chunk:
                    break
                data += chunk
    except (TimeoutError, anyio.EndOfStream, anyio.BrokenResourceError, OSError):
        return None
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    fields = line.split(" ")
    target = fields[1] if len(fields) >= 3 and fields[0] == "GET" else ""
    parts = urlsplit(target)
    if parts.path != _CALLBACK_PATH:
        await _answer(stream, 404, "Not found")
        return None
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    if "error" in query:
        await _answer(stream, 400, "Login refused")
    elif "code" in query:
        await _answer(stream, 200, "Login complete")
    else:
        await _answer(stream, 400, "No authorization code in this request")
        return None
    return query


async def _answer(stream: Any, status: int, title: str) -> None:
    import html

    body = _PAGE.format(html.escape(title)).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {title}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n"
        "Cache-Control: no-store\r\n\r\n"
    ).encode("latin-1")
    with contextlib.suppress(Exception):
        await stream.send(head + body)


def _show_url(url: str, on_authorize_url: Callable[[str], object] | None) -> None:
    if on_authorize_url is not None:
        on_authorize_url(url)
        return
    print(f"Open this URL in a browser to log in:\n{url}", file=sys.stderr, flush=True)


async def _open_browser(url: str) -> bool:
    import webbrowser

    import anyio

    def open_it() -> bool:
        try:
            return bool(webbrowser.open(url))
        except Exception:  # no usable browser
            return False

    return await anyio.to_thread.run_sync(open_it)


# ------------------------------------------------------------------------------------- providers


def load_expiry(provider: Any) -> None:
    """Restore a loaded token's absolute expiry from our store.

    The SDK forgets when a loaded token expires (it keeps `expires_in` only), so an expired
    token would be sent, refused and answered with a new login instead of a refresh.
    """
    storage = provider.context.storage
    expires_at = getattr(storage, "expires_at", None)
    if provider.context.current_tokens is not None and isinstance(
        expires_at, (int, float)
    ):
        provider.context.token_expiry_time = float(expires_at)


async def _lock_if_refresh_due(provider: Any) -> RefreshLock | None:
    """Take the store's refresh lock when this request may refresh, then re-read the store.

    Another process may have refreshed (and rotated the refresh token) in the meantime.
    """
    import anyio

    storage = provider.context.storage
    if not isinstance(storage, TokenStore):
        return None
    if provider._initialized and provider.context.is_token_valid():
        return None
    if not storage.has_refresh_token():
        return None
    lock = storage.refresh_lock()
    try:
        await anyio.to_thread.run_sync(lock.acquire)
    except BaseException:
        lock.release()
        raise
    if provider._initialized:
        provider.context.current_tokens = await storage.get_tokens()
        load_expiry(provider)
    return lock


async def _refresh_locked(
    provider: Any,
    request: httpx2.Request,
    flow: AsyncGenerator[httpx2.Request, httpx2.Response],
    inspect: Callable[[httpx2.Request], None] | None = None,
) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
    """Drive the SDK's auth `flow`, its refresh under the store's inter-process lock.

    The lock is released once the flow sends `request` itself (the refresh is stored by
    then); `inspect` sees each of the flow's own requests first.
    """
    lock = await _lock_if_refresh_due(provider)
    try:
        outgoing = await flow.__anext__()
        while True:
            if lock is not None and outgoing is request:
                lock.release()  # refreshed and stored: others may go on
                lock = None
            if inspect is not None and outgoing is not request:
                inspect(outgoing)
            response = yield outgoing
            outgoing = await flow.asend(response)
    except StopAsyncIteration:
        return
    finally:
        if lock is not None:
            lock.release()
        await flow.aclose()


_classes: dict[str, type[Any]] = {}


def _provider_classes() -> dict[str, type[Any]]:
    """The SDK provider subclasses, built on first use (importing `mcp` is slow)."""
    if _classes:
        return _classes
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
    )

    class Interactive(OAuthClientProvider):
        """Authorization code + PKCE; a pre-registered client when one is given."""

        _fixed_client: Any = None

        async def _perform_authorization(self) -> httpx2.Request:
            _fit_token_auth(self.context)
            return await super()._perform_authorization()

        def _auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            return _refresh_locked(self, request, super()._auth_flow(request))

        async def _initialize(self) -> None:
            await super()._initialize()
            load_expiry(self)
            fixed = self._fixed_client
            if fixed is not None:
                stored_client = self.context.client_info
                if stored_client is None or stored_client.client_id != fixed.client_id:
                    # Tokens issued to another client are not ours to refresh.
                    self.context.current_tokens = None
                    self.context.token_expiry_time = None
                self.context.client_info = fixed
                if (
                    stored_client is None
                    or stored_client.model_dump() != fixed.model_dump()
                ):
                    await self.context.storage.set_client_info(fixed)

        def __repr__(self) -> str:
            return f"oauth({self.context.server_url!r})"

    class Stored(OAuthClientProvider):
        """Stored tokens only: refresh when they expire or are refused, never a login."""

        _refreshing = False

        async def _initialize(self) -> None:
            await super()._initialize()
            load_expiry(self)

        def _required(self, why: str) -> AuthRequiredError:
            url = self.context.server_url
            return AuthRequiredError(
                f"{why} for {normalise_url(url)}: run `{login_hint(url)}`",
                url=normalise_url(url),
            )

        def _auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = super()._auth_flow(request)
            return _refresh_locked(self, request, flow, self._refuse_registration)

        def _refuse_registration(self, outgoing: httpx2.Request) -> None:
            # Only a client registration is sent without a client: not ours to do.
            if outgoing.method == "POST" and self.context.client_info is None:
                raise self._required(
                    "no OAuth client registration is stored"
                    if self.context.current_tokens is None
                    else "the stored OAuth token was refused"
                )

        async def _perform_authorization(self) -> httpx2.Request:
            # Reached when the server refused the request: a refresh is the only way on.
            if self._refreshing:
                raise self._required("the stored OAuth token was refused")
            tokens = self.context.current_tokens
            wanted = set((self.context.client_metadata.scope or "").split())
            missing: set[str] = (
                wanted - set((tokens.scope or "").split()) if tokens else set()
            )
            if tokens is not None and tokens.scope is not None and missing:
                # A step-up (403 insufficient_scope) needs a new grant: a refresh cannot widen it.
                raise self._required(
                    "the server asks for OAuth scope(s) "
                    + _one_line(" ".join(sorted(missing)), 80)
                    + " the stored token lacks"
                )
            if (
                tokens is None
                or not tokens.refresh_token
                or not self.context.client_info
            ):
                raise self._required(
                    "the stored OAuth token was refused and cannot be refreshed"
                    if tokens is not None
                    else "no usable OAuth token is stored"
                )
            self._refreshing = True
            return await self._refresh_token()

        async def _handle_token_response(self, response: httpx2.Response) -> None:
            self._refreshing = False
            if not await self._handle_refresh_response(response):
                raise self._required(
                    "the stored OAuth token expired and its refresh failed"
                )

        def __repr__(self) -> str:
            return f"stored({self.context.server_url!r})"

    class Credentials(ClientCredentialsOAuthProvider):
        async def _initialize(self) -> None:
            storage = self.context.storage
            previous = await storage.get_client_info()
            await super()._initialize()
            fixed = self._fixed_client_info
            if previous is None or previous.client_id != fixed.client_id:
                # Tokens issued to another client are not this one's; the secret stays in the
                # caller's hands (the environment), so the record keeps only the client id.
                self.context.current_tokens = None
                await storage.set_client_info(
                    fixed.model_copy(update={"client_secret": None})
                )
            load_expiry(self)

        async def _perform_authorization(self) -> httpx2.Request:
            _fit_token_auth(self.context)
            return await super()._perform_authorization()

        def __repr__(self) -> str:
            return f"client_credentials({self.context.server_url!r})"

    class KeyCredentials(PrivateKeyJWTOAuthProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            load_expiry(self)

        def __repr__(self) -> str:
            return f"private_key_jwt({self.context.server_url!r})"

    _classes.update(
        interactive=Interactive,
        stored=Stored,
        credentials=Credentials,
        key_credentials=KeyCredentials,
    )
    return _classes


_SECRET_METHODS = ("client_secret_basic", "client_secret_post")


def _fit_token_auth(context: Any) -> None:
    """Send the client secret a way the authorization server takes: when its metadata lists
    the methods it supports and not the client's, the first secret method it lists."""
    client = context.client_info
    if client is None or not client.client_secret:
        return
    method = client.token_endpoint_auth_method
    if method not in _SECRET_METHODS:
        return
    metadata = context.oauth_metadata
    supported = metadata.token_endpoint_auth_methods_supported if metadata else None
    if not supported or method in supported:
        return
    for candidate in _SECRET_METHODS:
        if candidate in supported:
            client.token_endpoint_auth_method = candidate
            return


def oauth(
    server_url: str,
    *,
    client_id: str | None = None,
    client_secret: str | None = None,
    scopes: Sequence[str] | None = None,
    client_name: str = "mcp-codegen",
    store: TokenStore | TokenStorage | None = None,
    redirect_port: int = 0,
    open_browser: bool = True,
    on_authorize_url: Callable[[str], object] | None = None,
    redirect_handler: Callable[[str], Awaitable[None]] | None = None,
    callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]] | None = None,
    token_endpoint_auth_method: SecretMethod | None = None,
    client_metadata_url: str | None = None,
) -> httpx2.Auth:
    """OAuth for `server_url` with a login when needed: `AsyncClient.http(url, auth=oauth(url))`.

    Stored tokens are used (and refreshed) first. When the server asks for a login (HTTP 401,
    or 403 `insufficient_scope` for a scope step-up), the SDK registers a client dynamically
    (or uses `client_id`/`client_secret`, pre-registered with the authorization server),
    and the authorization URL is opened in the browser (printed to stderr when there is no
    browser or `open_browser=False`; always handed to `on_authorize_url` when given, which then
    replaces the printing); a listener on
    127.0.0.1 (`redirect_port`, default: a free port, or the one registered before) receives
    the redirect. `redirect_handler(url)` / `callback_handler()` replace the browser and the
    listener (e.g. to complete the flow headlessly). Tokens and the registration are kept in
    `store` (default: `TokenStore.for_url(server_url)`). A pre-registered `client_secret` is
    sent as the client was registered: `token_endpoint_auth_method` "client_secret_basic"
    (default, HTTP Basic) or "client_secret_post" (in the form); when the authorization
    server's metadata lists methods and not that one, one it lists is used.
    `client_metadata_url` (an https URL of this client's metadata document, SEP-991) is used
    as the client id by authorization servers that support it, instead of a dynamic
    registration.
    """
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

    storage = _as_store(server_url, store)
    if not redirect_port and isinstance(storage, TokenStore):
        redirect_port = storage.registered_redirect_port()
    port = redirect_port
    listener = _LoopbackListener(port)
    redirect_uri = listener.redirect_uri
    scope = " ".join(scopes) if scopes else None
    auth_method: Literal["client_secret_basic", "client_secret_post", "none"] = (
        (token_endpoint_auth_method or "client_secret_basic")
        if client_secret
        else "none"
    )
    metadata = OAuthClientMetadata(
        redirect_uris=[redirect_uri],  # type: ignore[list-item]
        client_name=client_name,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=auth_method if client_id else None,
        scope=scope,
    )

    async def redirect(url: str) -> None:
        await listener.start()  # listening before the browser can come back
        opened = open_browser and await _open_browser(url)
        if not opened or on_authorize_url is not None:
            _show_url(url, on_authorize_url)

    cls = _provider_classes()["interactive"]
    provider = cls(
        server_url,
        metadata,
        storage,
        redirect_handler=redirect_handler or redirect,
        callback_handler=callback_handler or listener.wait,
        client_metadata_url=client_metadata_url,
    )
    if client_id:
        provider._fixed_client = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=[redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method=auth_method,
            scope=scope,
            client_name=client_name,
        )
    return cast("httpx2.Auth", provider)


def client_credentials(
    server_url: str,
    *,
    client_id: str,
    client_secret: str,
    scopes: Sequence[str] | None = None,
    store: TokenStore | TokenStorage | None = None,
    token_endpoint_auth_method: SecretMethod = "client_secret_basic",
) -> httpx2.Auth:
    """Machine-to-machine OAuth (the client-credentials grant) for `server_url`, for CI.

    The token endpoint comes from the server's metadata; tokens are kept in `store` (default:
    `TokenStore.for_url(server_url)`) so a new process reuses one until it expires. The
    secret goes in HTTP Basic (default) or the form (`"client_secret_post"`); when the
    authorization server's metadata lists methods and not that one, one it lists is used.
    """
    import warnings

    storage = _as_store(server_url, store)
    cls = _provider_classes()["credentials"]
    with warnings.catch_warnings():
        # The SDK warns that `issuer` will be required in 3.0; discovery names the issuer here.
        warnings.simplefilter("ignore")
        provider = cls(
            server_url,
            storage,
            client_id,
            client_secret,
            token_endpoint_auth_method=token_endpoint_auth_method,
            scope=" ".join(scopes) if scopes else None,
        )
    return cast("httpx2.Auth", provider)


def private_key_jwt(
    server_url: str,
    *,
    client_id: str,
    private_key: str,
    algorithm: str = "RS256",
    scopes: Sequence[str] | None = None,
    store: TokenStore | TokenStorage | None = None,
) -> httpx2.Auth:
    """Machine-to-machine OAuth authenticated by a signed JWT (`private_key_jwt`, RFC 7523).

    `private_key` is the PEM private key registered for `client_id`, `algorithm` its JWS
    algorithm (e.g. "RS256", "ES256"); each token request carries a fresh assertion whose
    audience is the authorization server's issuer.
    """
    import warnings

    from mcp.client.auth.extensions.client_credentials import SignedJWTParameters

    storage = _as_store(server_url, store)
    parameters = SignedJWTParameters(
        issuer=client_id,
        subject=client_id,
        signing_key=private_key,
        signing_algorithm=algorithm,
    )
    cls = _provider_classes()["key_credentials"]
    with warnings.catch_warnings():
        # The SDK warns that `issuer` will be required in 3.0; discovery names the issuer here.
        warnings.simplefilter("ignore")
        provider = cls(
            server_url,
            storage,
            client_id,
            parameters.create_assertion_provider(),
            scope=" ".join(scopes) if scopes else None,
        )
    return cast("httpx2.Auth", provider)


_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
_ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"


def cross_app_access(
    server_url: str,
    *,
    client_id: str,
    client_secret: str,
    id_token: str,
    idp_token_endpoint: str,
    idp_client_id: str | None = None,
    issuer: str | None = None,
    scopes: Sequence[str] | None = None,
    store: TokenStore | TokenStorage | None = None,
) -> httpx2.Auth:
    """Enterprise-managed OAuth (cross-app access, SEP-990): an identity provider's ID token
    exchanged for an access token, with no browser.

    The ID token is exchanged at the identity provider (`idp_token_endpoint`, RFC 8693) for an
    identity assertion grant (ID-JAG) for the server's authorization server, which the SDK's
    `IdentityAssertionOAuthProvider` presents there (RFC 7523 jwt-bearer) as `client_id`.
    `issuer` names that authorization server; without it, the server's protected resource
    metadata names it (discovered on the first 401).
    """
    return cast(
        "httpx2.Auth",
        _cross_app_class()(
            server_url,
            _as_store(server_url, store),
            client_id=client_id,
            client_secret=client_secret,
            id_token=id_token,
            idp_token_endpoint=idp_token_endpoint,
            idp_client_id=idp_client_id,
            issuer=issuer,
            scope=" ".join(scopes) if scopes else None,
        ),
    )


def _cross_app_class() -> type[Any]:
    if "cross_app" in _classes:
        return _classes["cross_app"]
    import httpx2
    from mcp.client.auth.extensions.identity_assertion import (
        IdentityAssertionOAuthProvider,
    )
    from mcp.client.auth.utils import (
        build_oauth_authorization_server_metadata_discovery_urls,
        build_protected_resource_metadata_discovery_urls,
        create_oauth_metadata_request,
        extract_resource_metadata_from_www_auth,
        handle_auth_metadata_response,
        handle_protected_resource_response,
        issuers_match,
    )

    class CrossAppAccess(httpx2.Auth):
        requires_response_body = True

        def __init__(self, server_url: str, storage: Any, **options: Any) -> None:
            self.server_url = server_url
            self.storage = storage
            self.options = options
            self.inner: Any = None

        def __repr__(self) -> str:
            return f"cross_app_access({self.server_url!r})"

        async def exchange(self, audience: str, resource: str) -> str:
            """RFC 8693 at the identity provider: the ID token for an ID-JAG."""
            form = {
                "grant_type": _TOKEN_EXCHANGE,
                "subject_token": self.options["id_token"],
                "subject_token_type": _ID_TOKEN_TYPE,
                "requested_token_type": _ID_JAG_TYPE,
                "audience": audience,
                "resource": resource,
            }
            if self.options["idp_client_id"]:
                form["client_id"] = self.options["idp_client_id"]
            async with httpx2.AsyncClient(timeout=30.0) as client:
                response = await client.post(
                    self.options["idp_token_endpoint"], data=form
                )
            if response.status_code != 200:
                raise ConnectError(
                    "the identity provider refused the token exchange"
                    f" (HTTP {response.status_code})"
                )
            token = response.json().get("access_token")
            if not isinstance(token, str) or not token:
                raise ConnectError("the identity provider returned no ID-JAG")
            return token

        async def async_auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            if self.inner is None:
                issuer = self.options["issuer"]
                methods: list[str] | None = None
                if issuer is None:
                    response = yield request
                    if response.status_code != 401:
                        return
                    urls = build_protected_resource_metadata_discovery_urls(
                        extract_resource_metadata_from_www_auth(response),
                        self.server_url,
                    )
                    for url in urls:
                        found = yield create_oauth_metadata_request(url)
                        prm = await handle_protected_resource_response(found)
                        if prm is not None and prm.authorization_servers:
                            issuer = str(prm.authorization_servers[0])
                            break
                    if issuer is None:
                        raise ConnectError(
                            "the server names no authorization server"
                            " (no protected resource metadata)"
                        )
                for url in build_oauth_authorization_server_metadata_discovery_urls(
                    issuer, issuer
                ):
                    found = yield create_oauth_metadata_request(url)
                    ok, metadata = await handle_auth_metadata_response(found)
                    if not ok:
                        break
                    if metadata is not None:
                        methods = metadata.token_endpoint_auth_methods_supported
                        # The issuer as the server spells it (the PRM's URL may add a "/").
                        if issuers_match(str(metadata.issuer), issuer):
                            issuer = str(metadata.issuer)
                        break
                # RFC 8414: without a list, client_secret_basic.
                supported = methods or ["client_secret_basic"]
                method: Literal["client_secret_basic", "client_secret_post"] = (
                    "client_secret_post"
                    if "client_secret_post" in supported
                    and "client_secret_basic" not in supported
                    else "client_secret_basic"
                )
                self.inner = IdentityAssertionOAuthProvider(
                    self.server_url,
                    self.storage,
                    self.options["client_id"],
                    self.options["client_secret"],
                    issuer,
                    self.exchange,
                    scope=self.options["scope"],
                    token_endpoint_auth_method=method,
                )
            flow = self.inner.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

    _classes["cross_app"] = CrossAppAccess
    return CrossAppAccess


def stored(
    server_url: str, *, store: TokenStore | TokenStorage | None = None
) -> httpx2.Auth:
    """The token a login stored for `server_url`, refreshed as needed; never starts a login.

    Raises `AuthRequiredError` (naming `mcp-codegen auth login URL`) now when nothing is stored,
    and from the request when the token is refused and cannot be refreshed.
    """
    from mcp.shared.auth import OAuthClientMetadata

    storage = _as_store(server_url, store)
    if isinstance(storage, TokenStore) and not storage.has_tokens():
        raise AuthRequiredError(
            f"no OAuth token is stored for {normalise_url(server_url)}:"
            f" run `{login_hint(server_url)}`",
            url=normalise_url(server_url),
        )

    async def no_login(_url: str) -> None:
        raise AuthRequiredError(
            f"{normalise_url(server_url)} needs an OAuth login:"
            f" run `{login_hint(server_url)}`",
            url=normalise_url(server_url),
        )

    async def no_callback() -> AuthorizationCodeResult:
        raise AuthRequiredError(
            f"{normalise_url(server_url)} needs an OAuth login:"
            f" run `{login_hint(server_url)}`",
            url=normalise_url(server_url),
        )

    cls = _provider_classes()["stored"]
    metadata = OAuthClientMetadata(
        redirect_uris=None,
        grant_types=["authorization_code", "refresh_token"],
    )
    provider = cls(
        server_url,
        metadata,
        storage,
        redirect_handler=no_login,
        callback_handler=no_callback,
    )
    return cast("httpx2.Auth", provider)


def when_challenged(
    server_url: str, *, store: TokenStore | TokenStorage | None = None
) -> httpx2.Auth:
    """Requests go out without credentials until the server answers 401 with a Bearer challenge;
    from then on the stored token is used (`stored()`), or `AuthRequiredError` names the login.

    What `connect()` uses for an HTTP server recorded without `--auth`: a server that does not
    speak OAuth (a 401 without `WWW-Authenticate: Bearer`) keeps its plain HTTP status error.
    """
    import httpx2

    class WhenChallenged(httpx2.Auth):
        def __init__(self) -> None:
            self._inner: Any = None

        def __repr__(self) -> str:
            return f"when_challenged({normalise_url(server_url)!r})"

        async def async_auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            if self._inner is None:
                response = yield request
                if "authorization" in request.headers:
                    return  # credentials the caller chose (headers=): theirs to fix
                if response.status_code != 401 or not _bearer_challenge(response):
                    return
                self._inner = stored(server_url, store=store)
            flow = self._inner.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

    return WhenChallenged()


def _bearer_challenge(response: httpx2.Response) -> bool:
    challenge = response.headers.get("WWW-Authenticate", "")
    return challenge.strip().lower().startswith("bearer")
