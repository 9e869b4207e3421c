"""OAuth for HTTP servers: tokens stored per server URL, and the SDK's OAuth providers wired up.

`TokenStore` (`store`) keeps one server's tokens and client registration (a 0600 JSON file
under the user's config directory, the OS keyring, or a `TokenBackend` of your own: `backends`)
and is the SDK's `TokenStorage`; refreshes take the backend's lock, one process at a time.
The builders (`flows`): `oauth()` logs in interactively (authorization code + PKCE, a
loopback redirect listener (`loopback`), the browser); `client_credentials()` and
`private_key_jwt()` are for machines, `workload()` (`workload_identity`) for a workload holding its
platform's identity token (the jwt-bearer grant); `cross_app_access()` exchanges an identity provider's
ID token; `stored()` only ever uses what a login stored (and refreshes it), raising
`AuthRequiredError` rather than starting a login; `when_challenged()` (`challenge`) waits
for the server to ask. Every one of them is an `httpx2.Auth` for
`AsyncClient.http(url, auth=...)`; the SDK provider subclasses behind them (`providers`)
are imported on first use.

Nothing here logs or formats a token or a client secret; reprs show only the URL and backend.
"""

from __future__ import annotations

from .backends import FileBackend, KeyringBackend, TokenBackend
from .flows import (
    SecretMethod,
    client_credentials,
    cross_app_access,
    oauth,
    private_key_jwt,
    stored,
    when_challenged,
    workload,
)
from .store import (
    Backend,
    RefreshLock,
    TokenStatus,
    TokenStore,
    default_directory,
    login_hint,
    normalise_url,
)

__all__ = [
    "Backend",
    "FileBackend",
    "KeyringBackend",
    "RefreshLock",
    "SecretMethod",
    "TokenBackend",
    "TokenStatus",
    "TokenStore",
    "client_credentials",
    "cross_app_access",
    "default_directory",
    "login_hint",
    "normalise_url",
    "oauth",
    "private_key_jwt",
    "stored",
    "when_challenged",
    "workload",
]
