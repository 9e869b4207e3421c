"""The public OAuth builders: `oauth()`, `stored()`, `client_credentials()` and the others, each an `httpx2.Auth`.

Each takes a server URL and keyword options and returns the fitting provider of `providers`
(imported here on first call: it loads the SDK's OAuth), its tokens kept in a `TokenStore`.
Each takes `dpop` too (RFC 9449, `dpop.DPoP`): None (default) proves possession of the key
stored with the tokens when the authorization server's metadata offers DPoP (or the stored
token is DPoP-bound), True always, False never.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from ..calls.errors import AuthRequiredError
from .loopback import (
    LOGIN_TIMEOUT,
    LoopbackListener,
    login_refusal,
    open_in_browser,
    refused_login,
    show_url,
    stdin_is_terminal,
)
from .store import TokenStore, login_hint, normalise_url

if TYPE_CHECKING:
    import httpx2
    from mcp.client.auth import TokenStorage
    from mcp.shared.auth import AuthorizationCodeResult

__all__ = [
    "SecretMethod",
    "client_credentials",
    "cross_app_access",
    "oauth",
    "private_key_jwt",
    "stored",
    "when_challenged",
    "workload",
]

#: How a client secret reaches the token endpoint (RFC 6749 §2.3.1).
SecretMethod = Literal["client_secret_basic", "client_secret_post"]


def _as_store(server_url: str, store: TokenStore | TokenStorage | None) -> Any:
    return store if store is not None else TokenStore.for_url(server_url)


def with_dpop(
    provider: httpx2.Auth,
    storage: object,
    dpop: bool | None,
    renew: Callable[[], Awaitable[httpx2.Request]] | None = None,
) -> httpx2.Auth:
    """`provider` with DPoP as `dpop` says (False: the provider itself, never a proof);
    `renew` makes a new token request for a nonce retry (see `dpop.DPoP`)."""
    if dpop is False:
        return provider
    from .dpop import DPoP

    return DPoP(
        provider,
        store=storage if isinstance(storage, TokenStore) else None,
        mode=dpop,
        renew=renew,
    )


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
    login_timeout: float = LOGIN_TIMEOUT,
    interactive: bool | None = None,
    dpop: bool | None = None,
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

    A login waits at most `login_timeout` seconds for the browser to come back. It never waits
    where nobody can finish it: with `interactive=False`, or, when the URL has no
    `on_authorize_url` to go to, with the environment variable CI set or with no browser opened
    and stdin not a terminal, it raises `AuthRequiredError` at once, naming
    `mcp-codegen auth login URL` (`interactive=True` always waits; stored tokens are used and
    refreshed either way). `dpop`: see the module docstring.
    """
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

    from .providers import Interactive

    storage = _as_store(server_url, store)
    if not redirect_port and isinstance(storage, TokenStore):
        redirect_port = storage.registered_redirect_port()
    port = redirect_port
    listener = LoopbackListener(port, timeout=login_timeout)
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
        refusal = login_refusal(interactive, on_authorize_url)
        if refusal is not None:
            raise refused_login(server_url, refusal)
        await listener.start()  # listening before the browser can come back
        opened = open_browser and await open_in_browser(url)
        unseen = not opened and on_authorize_url is None and not stdin_is_terminal()
        if unseen and interactive is None:
            await listener.close()
            raise refused_login(
                server_url, "no browser opened and stdin is not a terminal"
            )
        if not opened or on_authorize_url is not None:
            show_url(url, on_authorize_url)

    provider = Interactive(
        server_url,
        metadata,
        storage,
        redirect_handler=redirect_handler or redirect,
        callback_handler=callback_handler or listener.wait,
        client_metadata_url=client_metadata_url,
    )
    if client_id:
        provider.fixed_client = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=[redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method=auth_method,
            scope=scope,
            client_name=client_name,
        )
    return with_dpop(cast("httpx2.Auth", provider), storage, dpop)


def client_credentials(
    server_url: str,
    *,
    client_id: str,
    client_secret: str,
    scopes: Sequence[str] | None = None,
    store: TokenStore | TokenStorage | None = None,
    token_endpoint_auth_method: SecretMethod = "client_secret_basic",
    dpop: bool | None = None,
) -> httpx2.Auth:
    """Machine-to-machine OAuth (the client-credentials grant) for `server_url`, for CI.

    The token endpoint comes from the server's metadata; tokens are kept in `store` (default:
    `TokenStore.for_url(server_url)`) so a new process reuses one until it expires. The
    secret goes in HTTP Basic (default) or the form (`"client_secret_post"`); when the
    authorization server's metadata lists methods and not that one, one it lists is used.
    """
    import warnings

    storage = _as_store(server_url, store)
    from .providers import Credentials

    with warnings.catch_warnings():
        # The SDK warns that `issuer` will be required in 3.0; discovery names the issuer here.
        warnings.simplefilter("ignore")
        provider = Credentials(
            server_url,
            storage,
            client_id,
            client_secret,
            token_endpoint_auth_method=token_endpoint_auth_method,
            scope=" ".join(scopes) if scopes else None,
        )
    return with_dpop(cast("httpx2.Auth", provider), storage, dpop)


def private_key_jwt(
    server_url: str,
    *,
    client_id: str,
    private_key: str,
    algorithm: str = "RS256",
    scopes: Sequence[str] | None = None,
    store: TokenStore | TokenStorage | None = None,
    dpop: bool | None = None,
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
    from .providers import KeyCredentials

    with warnings.catch_warnings():
        # The SDK warns that `issuer` will be required in 3.0; discovery names the issuer here.
        warnings.simplefilter("ignore")
        provider = KeyCredentials(
            server_url,
            storage,
            client_id,
            parameters.create_assertion_provider(),
            scope=" ".join(scopes) if scopes else None,
        )
    return with_dpop(
        cast("httpx2.Auth", provider), storage, dpop, renew=provider.token_request
    )


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
    dpop: bool | None = None,
) -> httpx2.Auth:
    """Enterprise-managed OAuth (cross-app access, SEP-990): an identity provider's ID token
    exchanged for an access token, with no browser.

    The ID token is exchanged at the identity provider (`idp_token_endpoint`, RFC 8693) for an
    identity assertion grant (ID-JAG) for the server's authorization server, which the SDK's
    `IdentityAssertionOAuthProvider` presents there (RFC 7523 jwt-bearer) as `client_id`.
    `issuer` names that authorization server; without it, the server's protected resource
    metadata names it (discovered on the first 401).
    """
    from .providers import CrossAppAccess

    storage = _as_store(server_url, store)
    provider = CrossAppAccess(
        server_url,
        storage,
        client_id=client_id,
        client_secret=client_secret,
        id_token=id_token,
        idp_token_endpoint=idp_token_endpoint,
        idp_client_id=idp_client_id,
        issuer=issuer,
        scope=" ".join(scopes) if scopes else None,
    )
    return with_dpop(provider, storage, dpop)


def workload(
    server_url: str,
    *,
    token_file: str | None = None,
    token_env: str | None = None,
    client_id: str | None = None,
    issuer: str | None = None,
    scopes: Sequence[str] | None = None,
    store: TokenStore | TokenStorage | None = None,
) -> httpx2.Auth:
    """Workload identity federation: the token your platform issued (GitHub Actions OIDC, a
    Kubernetes service-account token, a cloud metadata identity token) exchanged for an access
    token with the RFC 7523 jwt-bearer grant, with no browser, registration or secret.

    Give the token's file (`token_file`, read again on every token request: platform tokens
    rotate) or the environment variable holding it (`token_env`). The authorization server is
    the one the server's protected resource metadata names (or `issuer`); `client_id` goes in
    the token request when the authorization server knows this workload by one. A refused
    grant raises, without a retry or another grant. The platform token is never stored or
    shown; the access token is kept in `store` (default: `TokenStore.for_url(server_url)`).
    """
    from .workload_identity import PlatformToken, Workload

    return Workload(
        server_url,
        _as_store(server_url, store),
        PlatformToken(path=token_file, variable=token_env),
        client_id=client_id,
        issuer=issuer,
        scope=" ".join(scopes) if scopes else None,
    )


def stored(
    server_url: str,
    *,
    store: TokenStore | TokenStorage | None = None,
    dpop: bool | None = None,
) -> httpx2.Auth:
    """The token a login stored for `server_url`, refreshed as needed; never starts a login.

    Raises `AuthRequiredError` (naming `mcp-codegen auth login URL`) now when nothing is stored,
    and from the request when the token is refused and cannot be refreshed.
    """
    from mcp.shared.auth import OAuthClientMetadata

    storage = _as_store(server_url, store)
    if isinstance(storage, TokenStore) and not storage.has_tokens():
        raise AuthRequiredError(
            f"no OAuth token is stored for {normalise_url(server_url)}: run `{login_hint(server_url)}`",
            url=normalise_url(server_url),
        )

    async def no_login(_url: str) -> None:
        raise AuthRequiredError(
            f"{normalise_url(server_url)} needs an OAuth login: run `{login_hint(server_url)}`",
            url=normalise_url(server_url),
        )

    async def no_callback() -> AuthorizationCodeResult:
        raise AuthRequiredError(
            f"{normalise_url(server_url)} needs an OAuth login: run `{login_hint(server_url)}`",
            url=normalise_url(server_url),
        )

    from .providers import Stored

    metadata = OAuthClientMetadata(
        redirect_uris=None,
        grant_types=["authorization_code", "refresh_token"],
    )
    provider = Stored(
        server_url,
        metadata,
        storage,
        redirect_handler=no_login,
        callback_handler=no_callback,
    )
    return with_dpop(cast("httpx2.Auth", provider), storage, dpop)


def when_challenged(
    server_url: str,
    *,
    store: TokenStore | TokenStorage | None = None,
    dpop: bool | None = None,
) -> httpx2.Auth:
    """Requests go out without credentials until the server answers 401 with a Bearer challenge;
    from then on the stored token is used (`stored()`), or `AuthRequiredError` names the login.

    What `connect()` uses for an HTTP server recorded without `--auth`: a server that does not
    speak OAuth (a 401 without `WWW-Authenticate: Bearer`) keeps its plain HTTP status error.
    """
    from .challenge import WhenChallenged

    return WhenChallenged(
        server_url, lambda: stored(server_url, store=store, dpop=dpop)
    )
