"""The generator's OAuth: the runtime's providers (`runtime.auth`) built from a launch's `AuthSpec`.

`oauth` uses the tokens stored for the server URL (refreshing them) and otherwise logs in: the
authorization URL is shown on stderr (and opened in a browser unless `--no-browser`), a loopback
listener takes the redirect, and the tokens are stored. `client-credentials` never asks anyone.
Both bind tokens to a DPoP key (RFC 9449) as `spec.dpop` says (`--dpop/--no-dpop`).
Nothing here prints or returns a token or a secret.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_codegen.inputs.launch import AuthSpec

#: Where the authorization URL goes (a line on stderr in the CLI).
Show = Callable[[str], None]


def provider(url: str, spec: AuthSpec, show: Show | None = None) -> Any:
    """An `httpx2.Auth` for `url` as `spec` says (the runtime's `oauth` or `client_credentials`)."""
    from mcp_codegen.runtime import auth

    store = auth.TokenStore.for_url(url, backend=spec.store)
    if spec.kind == "client-credentials":
        assert spec.client_id is not None and spec.client_secret is not None
        return auth.client_credentials(
            url,
            client_id=spec.client_id,
            client_secret=spec.client_secret,
            scopes=list(spec.scopes) if spec.scopes is not None else None,
            store=store,
            dpop=spec.dpop,
        )

    def on_authorize_url(authorize_url: str) -> None:
        if show is not None:
            show(f"to authorize, open this URL in a browser: {authorize_url}")

    return auth.oauth(
        url,
        client_id=spec.client_id,
        client_secret=spec.client_secret,
        scopes=list(spec.scopes) if spec.scopes is not None else None,
        client_name="mcp-codegen",
        store=store,
        open_browser=spec.open_browser,
        on_authorize_url=on_authorize_url if show is not None else None,
        dpop=spec.dpop,
    )
