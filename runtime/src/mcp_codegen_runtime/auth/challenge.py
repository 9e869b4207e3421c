"""No credentials until the server asks: the auth `connect()` gives an HTTP server recorded without `--auth`.

Imports `httpx2` only (not the SDK's OAuth), so a server that never answers 401 costs nothing more.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

import httpx2

from .store import normalise_url

__all__ = ["WhenChallenged", "bearer_challenge"]


def bearer_challenge(response: httpx2.Response) -> bool:
    """Whether `response` asks for an OAuth access token (`WWW-Authenticate: Bearer ...`,
    or `DPoP ...` from a server that wants DPoP-bound tokens, RFC 9449 section 7.1)."""
    challenge = response.headers.get("WWW-Authenticate", "")
    return challenge.strip().lower().startswith(("bearer", "dpop"))


class WhenChallenged(httpx2.Auth):
    """Requests go out bare until a 401 with a Bearer (or DPoP) challenge; then `on_challenge()`'s auth."""

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
