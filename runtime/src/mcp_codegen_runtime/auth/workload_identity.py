"""Workload identity federation (SEP-1933): the platform's token presented as an RFC 7523 jwt-bearer grant.

A CI job, a Kubernetes pod or a cloud VM holds a JWT its platform issued (GitHub Actions OIDC,
a projected service-account token, a metadata-server identity token). `workload()` (in `flows`)
reads it from a file or an environment variable on every token request (platform tokens rotate),
finds the authorization server through the MCP server's metadata (`DiscoveredAssertion`) and
asks its token endpoint for an access token with
`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and the token as `assertion`: no client
registration, no client secret, and after a refusal no retry and no other grant.

The platform token is never stored, logged or put in an error message: errors name only the
file or the variable.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.auth.extensions.identity_assertion import (
    IdentityAssertionOAuthProvider,
)
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE

from ..calls.errors import ConnectError
from .providers import DiscoveredAssertion

__all__ = ["PlatformToken", "Workload"]


class PlatformToken:
    """Where the platform's token is: a file (`path`) or an environment variable (`variable`).

    `read()` reads it afresh each time; its repr names only the source.
    """

    def __init__(self, *, path: str | None = None, variable: str | None = None) -> None:
        if (path is None) == (variable is None):
            raise ValueError("give the workload token's file or its variable, not both")
        self.path = path
        self.variable = variable

    @property
    def source(self) -> str:
        """The source in words, for messages: "the file PATH" or "the variable NAME"."""
        return (
            f"the file {self.path}"
            if self.path is not None
            else f"the variable {self.variable}"
        )

    def read(self) -> str:
        """The token now, surrounding whitespace removed; `ConnectError` naming the source when
        there is none."""
        if self.path is not None:
            try:
                token = Path(self.path).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as error:
                reason = error.strerror if isinstance(error, OSError) else "not text"
                raise ConnectError(
                    f"cannot read the workload token from {self.source}: {reason}"
                ) from None
        else:
            token = os.environ.get(self.variable or "", "").strip()
        if not token:
            raise ConnectError(f"the workload token in {self.source} is empty")
        return token

    def __repr__(self) -> str:
        return f"PlatformToken({self.source!r})"


class _PublicJwtBearer(IdentityAssertionOAuthProvider):
    """The SDK's jwt-bearer provider as a public client: the client id (when there is one) in the
    form, no client secret (the SDK's provider is for confidential clients only)."""

    def __init__(
        self,
        server_url: str,
        storage: Any,
        client_id: str | None,
        issuer: str,
        token: PlatformToken,
        scope: str | None,
    ) -> None:
        async def assertion(_audience: str, _resource: str) -> str:
            return token.read()

        # The SDK's constructor insists on a client id and a secret; neither placeholder is
        # kept or sent (`_build_token_request` builds the form).
        super().__init__(
            server_url, storage, client_id or "-", "-", issuer, assertion, scope=scope
        )
        self._client = self._client.model_copy(
            update={"client_secret": None, "token_endpoint_auth_method": "none"}
        )
        self.client_id = client_id

    def _build_token_request(self, scope: str | None, assertion: str) -> httpx2.Request:
        assert self._token_endpoint is not None
        form = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": assertion,
            "resource": self._resource,
        }
        if self.client_id:
            form["client_id"] = self.client_id
        if scope:
            form["scope"] = scope
        return httpx2.Request("POST", self._token_endpoint, data=form)


class Workload(DiscoveredAssertion):
    """`workload()`: the platform's token for an access token at the discovered token endpoint."""

    def __init__(
        self,
        server_url: str,
        storage: Any,
        token: PlatformToken,
        *,
        client_id: str | None,
        issuer: str | None,
        scope: str | None,
    ) -> None:
        super().__init__(server_url, issuer)
        self.storage = storage
        self.token = token
        self.client_id = client_id
        self.scope = scope

    def __repr__(self) -> str:
        return f"workload({self.server_url!r}, {self.token.source})"

    def assertion_flow(
        self, issuer: str, methods: list[str] | None
    ) -> IdentityAssertionOAuthProvider:
        return _PublicJwtBearer(
            self.server_url,
            self.storage,
            self.client_id,
            issuer,
            self.token,
            self.scope,
        )
