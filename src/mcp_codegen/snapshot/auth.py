"""The generator's OAuth: the runtime's providers (`runtime.auth`) built from a launch's `AuthSpec`.

`oauth` uses the tokens stored for the server URL (refreshing them) and otherwise logs in: the
authorization URL is shown on stderr (and opened in a browser unless `--no-browser`), a loopback
listener takes the redirect within `--login-timeout`, and the tokens are stored. A run where nobody
can finish a login (`AuthSpec.no_login`: no terminal, `--no-browser`, CI) fails at once instead,
saying what to do. `client-credentials` and `workload` (the platform's token, jwt-bearer) never ask
anyone. Without `--auth`, a token stored for the URL is used once the server asks for one
(`when_challenged`), as the generated client does. Tokens are bound to a DPoP key (RFC 9449) as
`spec.dpop` says (`--dpop/--no-dpop`).
Nothing here prints or returns a token or a secret.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_codegen.errors import ServerError
from mcp_codegen.inputs.launch import AuthSpec, redact_url

#: Where the authorization URL goes (a line on stderr in the CLI).
Show = Callable[[str], None]


def provider(url: str, spec: AuthSpec, show: Show | None = None) -> Any:
    """An `httpx2.Auth` for `url` as `spec` says (the runtime's `oauth` or `client_credentials`)."""
    from mcp_codegen_runtime import auth

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
    if spec.kind == "workload":
        return auth.workload(
            url,
            token_file=spec.workload_token_file,
            token_env=spec.workload_token_env,
            client_id=spec.client_id,
            scopes=list(spec.scopes) if spec.scopes is not None else None,
            store=store,
        )

    if spec.no_login is not None and not store.has_tokens():
        raise ServerError(no_login_message(url, spec.no_login))

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
        login_timeout=spec.login_timeout,
        interactive=spec.no_login is None,
        dpop=spec.dpop,
    )


def no_login_message(url: str, reason: str) -> str:
    """What to do when a run cannot wait for a browser login and no usable token is stored."""
    return (
        f"{redact_url(url)} needs an OAuth login, and this run cannot wait for one ({reason}):"
        f" run `mcp-codegen auth login {redact_url(url)}` first, or use --auth client-credentials"
        " --client-id ID --client-secret-env VAR"
    )


def stored_token(url: str) -> Any:
    """Without --auth: the token stored for `url`, used once the server asks for one; None when none is stored."""
    from mcp_codegen_runtime import auth

    try:
        if not auth.TokenStore.for_url(url).has_tokens():
            return None
    except Exception:  # an unusable token store: go on without it, as if nothing were stored
        return None
    return auth.when_challenged(url)
