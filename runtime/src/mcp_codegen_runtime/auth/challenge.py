"""No credentials until the server asks: the auth `connect()` gives an HTTP server recorded without `--auth`.

A 401 is OAuth only when the challenge or the server's metadata says so: a DPoP challenge, a Bearer challenge
naming its protected resource metadata (`resource_metadata=`, RFC 9728), or metadata served where an OAuth
server publishes it (RFC 9728 for the endpoint, RFC 8414 at the origin, as 2025-03-26 servers do). A plain
`WWW-Authenticate: Bearer` without either wants a bearer token the caller brings (`BEARER_TOKEN_HINT`).

Imports `httpx2` only (not the SDK's OAuth), so a server that never answers 401 costs nothing more.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import AsyncGenerator, Callable

import httpx2

from ..calls.errors import BearerTokenRequiredError
from .store import normalise_url

__all__ = [
    "BEARER_TOKEN_HINT",
    "WhenChallenged",
    "bearer_challenge",
    "oauth_challenge",
    "oauth_metadata",
    "oauth_metadata_urls",
]

#: What to do about a plain Bearer challenge, in `generate`, `check` and `connect()` alike.
BEARER_TOKEN_HINT = (
    "this server wants a bearer token: pass `-H 'Authorization: Bearer ${VAR}'`"
)


def bearer_challenge(response: httpx2.Response) -> bool:
    """Whether `response` asks for an access token (`WWW-Authenticate: Bearer ...`,
    or `DPoP ...` from a server that wants DPoP-bound tokens, RFC 9449 section 7.1)."""
    challenge = response.headers.get("WWW-Authenticate", "")
    return challenge.strip().lower().startswith(("bearer", "dpop"))


def oauth_challenge(challenge: str) -> bool:
    """Whether a `WWW-Authenticate` value names OAuth itself: DPoP, or a Bearer challenge with
    `resource_metadata=` (RFC 9728). A bare `Bearer` (or `Bearer realm=...`) does not.
    """
    lowered = challenge.strip().lower()
    return lowered.startswith("dpop") or "resource_metadata=" in lowered


def oauth_metadata_urls(server_url: str) -> list[str]:
    """Where an OAuth-protected server publishes its metadata: the protected resource metadata for the
    endpoint's path and for the origin (RFC 9728), then the authorization server's at the origin (RFC 8414).
    """
    parts = urllib.parse.urlsplit(server_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    found = [f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []
    found += [
        f"{origin}/.well-known/oauth-protected-resource",
        f"{origin}/.well-known/oauth-authorization-server",
    ]
    return found


def oauth_metadata(status: int, body: bytes) -> bool:
    """Whether a metadata answer says OAuth: 200 with a JSON object naming authorization servers or an
    authorization server's endpoints."""
    if status != 200:
        return False
    try:
        data = json.loads(body)
    except ValueError:
        return False
    keys = ("authorization_servers", "token_endpoint", "authorization_endpoint")
    return isinstance(data, dict) and any(key in data for key in keys)


class WhenChallenged(httpx2.Auth):
    """Requests go out bare until a 401 with an OAuth challenge; then `on_challenge()`'s auth.

    A 401 with a plain Bearer challenge (no OAuth in it, none in the server's metadata) raises
    `BearerTokenRequiredError`, which names the header to pass."""

    def __init__(
        self, server_url: str, on_challenge: Callable[[], httpx2.Auth]
    ) -> None:
        self.server_url = server_url
        self._on_challenge = on_challenge
        self._inner: httpx2.Auth | None = None

    def __repr__(self) -> str:
        return f"when_challenged({normalise_url(self.server_url)!r})"

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._inner is None:
            response = yield request
            if "authorization" in request.headers:
                return  # credentials the caller chose (headers=): theirs to fix
            if response.status_code != 401 or not bearer_challenge(response):
                return
            if not oauth_challenge(response.headers.get("WWW-Authenticate", "")):
                says_oauth = False
                for url in oauth_metadata_urls(self.server_url):
                    answer = yield httpx2.Request(
                        "GET", url, headers={"Accept": "application/json"}
                    )
                    body = await answer.aread()
                    if oauth_metadata(answer.status_code, body):
                        says_oauth = True
                        break
                if not says_oauth:
                    shown = normalise_url(self.server_url)
                    raise BearerTokenRequiredError(
                        f"HTTP 401 from {shown}: {BEARER_TOKEN_HINT} when generating, or"
                        " headers={'Authorization': 'Bearer ...'} to connect() (its 401"
                        " names no OAuth; auth=oauth(url) if it speaks OAuth anyway)",
                        url=shown,
                    )
            self._inner = self._on_challenge()
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
