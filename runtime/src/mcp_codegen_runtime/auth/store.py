"""One server's OAuth record (tokens, expiry, client registration, DPoP key) as the SDK's `TokenStorage`.

`TokenStore` keeps the record in a `TokenBackend` (`backends`): a 0600 JSON file under the user's
config directory, the OS keyring, or a store of your own shared across machines; the backend's lock
orders every change and refresh of one record between processes. Nothing here logs or formats a token or a
client secret; reprs show only the URL and backend. `keyring` is imported only when it is
installed and chosen, `mcp` only when a record is read as the SDK's types.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from ..calls.errors import ConnectError
from .backends import (
    FileBackend,
    KeyringBackend,
    RefreshLock,
    TokenBackend,
    keyring_module,
    record_file,
)

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator
    from contextlib import AbstractAsyncContextManager

    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = [
    "Backend",
    "FileBackend",
    "KeyringBackend",
    "RefreshLock",
    "TokenBackend",
    "TokenStatus",
    "TokenStore",
    "default_directory",
    "login_hint",
    "normalise_url",
]

logger = logging.getLogger(__name__)

Backend = Literal["file", "keyring"]

_STORE_ENV = "MCP_CODEGEN_TOKEN_STORE"
_CONFIG_ENV = "MCP_CODEGEN_CONFIG_DIR"
_FORMAT = 1
#: Added to the URL for the key of the login lock: a normalised URL has no fragment, so no server's key.
_LOGIN_SUFFIX = "#login"


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


def _choose_backend(backend: str) -> Backend:
    chosen = os.environ.get(_STORE_ENV) or backend
    if chosen not in ("auto", "file", "keyring"):
        raise ConnectError(
            f"unknown token store {chosen!r} (expected 'auto', 'file' or 'keyring')"
        )
    if chosen == "file":
        return "file"
    if keyring_module() is not None:
        return "keyring"
    if chosen == "keyring":
        raise ConnectError(
            "the keyring token store needs the 'keyring' package with a usable backend"
        )
    return "file"


# ----------------------------------------------------------------------------------- token store


@dataclass(frozen=True)
class TokenStatus:
    """What is stored for one server, without any secret (for `mcp-codegen auth status`)."""

    url: str
    #: "file", "keyring", or a plugged backend's name.
    backend: str
    has_tokens: bool
    has_refresh_token: bool
    #: Unix time the access token expires, when the server said.
    expires_at: float | None
    scopes: tuple[str, ...]
    client_id: str | None
    #: The file holding the record (the file backend) or the keyring index entry.
    path: Path | None
    #: The access token is DPoP-bound (RFC 9449) to the key stored with it.
    dpop_bound: bool = False

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and time.time() >= self.expires_at


class TokenStore:
    """One server's OAuth tokens and client registration; the SDK's `TokenStorage`.

    `TokenStore.for_url(url)` picks the backend: the OS keyring when `keyring` is installed
    with a usable backend, else a JSON file (0600, in a 0700 directory) named after a hash of
    the URL; `backend=` or `$MCP_CODEGEN_TOKEN_STORE` (`file` / `keyring`) choose explicitly.
    `backend=` also takes a `TokenBackend` of your own (a store shared across machines).
    Tokens written by the SDK (login, refresh) land here at once and survive restarts.
    """

    def __init__(
        self,
        url: str,
        *,
        backend: Backend | TokenBackend,
        directory: Path | None = None,
    ) -> None:
        #: The normalised server URL (no secrets), the key of the record.
        self.url = normalise_url(url)
        self.directory = directory if directory is not None else default_directory()
        #: Where the record is kept.
        self.records: TokenBackend
        if backend == "keyring":
            self.records = KeyringBackend(self.directory)
        elif backend == "file":
            self.records = FileBackend(self.directory)
        elif isinstance(plugged := cast("object", backend), TokenBackend):
            self.records = plugged
        else:  # checked: `backend=` is often given a name by mistake
            raise ConnectError(f"not a token store backend: {type(backend).__name__}")
        #: "file", "keyring", or the plugged backend's `name` (else its class name).
        self.backend: str = str(
            getattr(self.records, "name", type(self.records).__name__)
        )
        #: The record's file (file backend), its non-secret index file (keyring backend), or None.
        self.path: Path | None = (
            record_file(self.records.directory, self.url)
            if isinstance(self.records, FileBackend)
            else None
        )
        #: How many `refresh_lock()`s of this store are held now (this process's writes need no other).
        self._holding = 0

    @classmethod
    def for_url(
        cls,
        url: str,
        *,
        backend: Literal["auto", "file", "keyring"] | TokenBackend = "auto",
        directory: str | os.PathLike[str] | None = None,
    ) -> TokenStore:
        where = Path(directory) if directory is not None else default_directory()
        if not isinstance(backend, str):
            return cls(url, backend=backend, directory=where)
        return cls(url, backend=_choose_backend(backend), directory=where)

    def __repr__(self) -> str:
        return f"TokenStore({self.url!r}, backend={self.backend!r})"

    # -- raw records

    def _load(self) -> dict[str, Any]:
        text = self.records.load(self.url)
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
        self.records.save(self.url, json.dumps(record, indent=2) + "\n")

    async def _update(self, **fields: Any) -> None:
        """Read the record, change `fields`, write it back: under the lock, so no other process's change
        made in between is lost (already held by this store while it refreshes)."""
        async with self.locked():
            self._change(fields)

    def _change(self, fields: dict[str, Any]) -> None:
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
        await self._update(
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
        await self._update(
            clientInfo=client_info.model_dump(mode="json", exclude_none=True)
        )

    # -- DPoP (RFC 9449): the key pair proofs are signed with, kept with the tokens

    def dpop_state(self) -> tuple[dict[str, Any] | None, str | None]:
        """The stored DPoP key (a private JWK) and the `ath` of the access token bound to it."""
        entry = self._load().get("dpop")
        if not isinstance(entry, dict):
            return None, None
        state = cast("dict[str, Any]", entry)
        key, bound = state.get("key"), state.get("boundTo")
        return (
            cast("dict[str, Any]", key) if isinstance(key, dict) else None,
            bound if isinstance(bound, str) else None,
        )

    async def set_dpop_state(self, key: dict[str, str], bound_to: str | None) -> None:
        """Keep the DPoP key and which access token (its `ath`) is bound to it."""
        await self._update(dpop={"key": key, "boundTo": bound_to})

    # -- the rest

    @property
    def expires_at(self) -> float | None:
        """Unix time the stored access token expires (None: unknown or nothing stored)."""
        value = self._load().get("expiresAt")
        return float(value) if isinstance(value, (int, float)) else None

    @contextlib.asynccontextmanager
    async def refresh_lock(self) -> AsyncGenerator[None, None]:
        """The backend's `lock(url)`: held while this server's record is read, changed and written, or
        its token refreshed. Not re-entrant (two holders in one process exclude each other too); while
        this store holds it, its own writes go on without taking it again."""
        async with self.records.lock(self.url):
            self._holding += 1
            try:
                yield
            finally:
                self._holding -= 1

    @contextlib.asynccontextmanager
    async def locked(self) -> AsyncGenerator[None, None]:
        """`refresh_lock()`, or nothing more when this store holds it already (a write during a refresh)."""
        if self._holding:
            yield
            return
        async with self.refresh_lock():
            yield

    def login_lock(self) -> AbstractAsyncContextManager[object]:
        """The lock held while one process runs an interactive login for this server (the backend's
        `lock` of a key no URL has), so the others wait for its token instead of opening a browser too;
        never held with `refresh_lock`, so refreshes go on meanwhile."""
        return self.records.lock(self.url + _LOGIN_SUFFIX)

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
            path=self.path if self.path is not None and self.path.exists() else None,
            dpop_bound=self.dpop_state()[1] is not None,
        )

    def clear(self) -> bool:
        """Forget the tokens and the client registration; True when something was stored.

        Under the lock, so a refresh in flight does not write the record back; called while an event
        loop runs in this thread it cannot wait for the lock: use `await aclear()` there.
        """
        import asyncio

        import anyio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return anyio.run(self.aclear)
        return self.records.delete(self.url)

    async def aclear(self) -> bool:
        """`clear()`, from async code."""
        async with self.refresh_lock():
            return self.records.delete(self.url)

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
