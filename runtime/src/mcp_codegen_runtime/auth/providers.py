"""The SDK's OAuth providers fitted to the token store: stored expiry, inter-process refresh, no surprise logins.

Imported on first use by the builders in `flows` (it imports `mcp.client.auth`, which is slow).
The subclasses override private methods of the SDK's providers (`_initialize`,
`_perform_authorization`, `_auth_flow`, `_handle_token_response`, ...), because the SDK offers
no public hook for them; tests/runtime/test_runtime_auth_sdk_pins.py fails when the SDK moves one.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.extensions.identity_assertion import (
    IdentityAssertionOAuthProvider,
)
from mcp.client.auth.oauth2 import OAuthContext
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_resource_metadata_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    issuers_match,
)
from mcp.shared.auth import OAuthClientInformationFull

from ..calls.errors import AuthRequiredError, ConnectError
from ..text import one_line
from .store import TokenStore, login_hint, normalise_url

if TYPE_CHECKING:
    from .flows import SecretMethod

__all__ = [
    "CrossAppAccess",
    "DiscoveredAssertion",
    "Credentials",
    "Interactive",
    "KeyCredentials",
    "RefreshLocking",
    "Stored",
    "load_expiry",
]

logger = logging.getLogger(__name__)

_SECRET_METHODS: tuple[SecretMethod, ...] = (
    "client_secret_basic",
    "client_secret_post",
)
_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
_ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
#: Seconds waited for another process's login before saying so.
_ANNOUNCE_AFTER = 0.5

# ----------------------------------------------------------------------------- shared steps


def load_expiry(provider: OAuthClientProvider) -> None:
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


def _fit_token_auth(context: OAuthContext) -> None:
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


@asynccontextmanager
async def _login_turn(storage: TokenStore) -> AsyncGenerator[None, None]:
    """Hold `storage`'s login lock; when another process's login keeps it, say so (INFO) while waiting."""
    import anyio

    async with AsyncExitStack() as held:
        async with anyio.create_task_group() as group:

            async def announce() -> None:
                await anyio.sleep(_ANNOUNCE_AFTER)
                logger.info(
                    "%s: waiting for the OAuth login another process is running (a browser "
                    "window may be waiting for you); its token is used here once stored",
                    storage.url,
                )

            group.start_soon(announce)
            await held.enter_async_context(storage.login_lock())
            group.cancel_scope.cancel()
        yield


# ---------------------------------------------------------------------------------- providers


class RefreshLocking(OAuthClientProvider):
    """The SDK's provider with its refresh under the token store's lock (between processes).

    Double-checked: the lock is taken when this process would refresh (its token expired, or
    the server refused it), then the store is read again; a token another process stored
    meanwhile is used as it is when still valid, and otherwise its refresh token (the newest,
    when the server rotates them) is the one sent.
    """

    async def _hold_lock(self, storage: TokenStore) -> AsyncExitStack:
        """Take `storage`'s refresh lock, then read the tokens again (into the context once initialised)."""
        seen = (
            self.context.current_tokens
            if self._initialized
            else await storage.get_tokens()
        )
        held = AsyncExitStack()
        await held.enter_async_context(storage.refresh_lock())
        fresh = await storage.get_tokens()
        if fresh != seen:
            logger.debug(
                "%s: the stored token changed while this process waited for the refresh lock",
                storage.url,
            )
        if self._initialized:
            self.context.current_tokens = fresh
            load_expiry(self)
        return held

    async def _lock_if_refresh_due(self) -> AsyncExitStack | None:
        """Hold the store's refresh lock when this request may refresh, then re-read the store."""
        storage = self.context.storage
        if not isinstance(storage, TokenStore):
            return None
        if self._initialized and self.context.is_token_valid():
            return None
        if not storage.has_refresh_token():
            return None
        return await self._hold_lock(storage)

    async def _reread_after_refusal(
        self, storage: TokenStore
    ) -> tuple[AsyncExitStack, bool]:
        """Hold the lock and read the store again; True when it holds a valid token other than the
        one the server refused."""
        sent = self.context.current_tokens
        held = await self._hold_lock(storage)
        newer = (
            self.context.current_tokens not in (None, sent)
            and self.context.is_token_valid()
        )
        return held, newer

    async def _lock_after_refusal(self) -> tuple[AsyncExitStack | None, bool]:
        """The server refused this process's token (401): hold the lock and read the store again.

        True (and the lock let go) when another process stored a valid token meanwhile.
        """
        storage = self.context.storage
        if (
            not isinstance(storage, TokenStore)
            or not self._initialized
            or not storage.has_refresh_token()
        ):
            return None, False
        held, newer = await self._reread_after_refusal(storage)
        if newer:
            await held.aclose()
            return None, True
        return held, False

    async def _refresh_locked(
        self,
        request: httpx2.Request,
        flow: AsyncGenerator[httpx2.Request, httpx2.Response],
        inspect: Callable[[httpx2.Request], None] | None = None,
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """Drive the SDK's auth `flow`, its refresh under the store's refresh lock.

        The lock is released once the flow sends `request` itself (the refresh is stored by
        then); `inspect` sees each of the flow's own requests first. When the server refuses
        `request` (401, so it was not processed) and another process has stored a new token,
        `request` is sent once more with that token instead of refreshing again.
        """
        held = await self._lock_if_refresh_due()
        checked = False
        try:
            outgoing = await flow.__anext__()
            while True:
                if held is not None and outgoing is request:
                    await held.aclose()  # refreshed and stored: others may go on
                    held = None
                if inspect is not None and outgoing is not request:
                    inspect(outgoing)
                response = yield outgoing
                if (
                    outgoing is request
                    and response.status_code == 401
                    and held is None
                    and not checked
                ):
                    checked = True
                    held, newer = await self._lock_after_refusal()
                    if newer:
                        self._add_auth_header(request)
                        response = yield request
                        if (
                            response.status_code == 401
                        ):  # refused again: refresh, under the lock
                            held = (await self._lock_after_refusal())[0]
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            if held is not None:
                await held.aclose()
            await flow.aclose()


class Interactive(RefreshLocking):
    """Authorization code + PKCE (`oauth()`); a pre-registered client when one is given."""

    #: The pre-registered client (`oauth(client_id=...)`), used instead of a registration.
    fixed_client: OAuthClientInformationFull | None = None

    async def _perform_authorization(self) -> httpx2.Request:
        _fit_token_auth(self.context)
        return await super()._perform_authorization()

    def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return self._refresh_locked(request, super()._auth_flow(request))

    async def _lock_after_refusal(self) -> tuple[AsyncExitStack | None, bool]:
        """The server refused this process's token (401), which the SDK answers with a login: hold
        the store's login lock (one login at a time), then read the store under the refresh lock.

        True (both let go) when another process stored a valid token meanwhile, e.g. by the login
        this one waited for. Otherwise the login lock is held through the login, the refresh lock
        is not: other processes refresh and write while the browser is open.
        """
        storage = self.context.storage
        if not isinstance(storage, TokenStore):
            return None, False
        login = AsyncExitStack()
        await login.enter_async_context(_login_turn(storage))
        if not self._initialized:
            return login, False
        try:
            held, newer = await self._reread_after_refusal(storage)
            await held.aclose()
        except BaseException:
            await login.aclose()
            raise
        if newer:
            await login.aclose()
            return None, True
        return login, False

    async def _initialize(self) -> None:
        await super()._initialize()
        load_expiry(self)
        fixed = self.fixed_client
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


class Stored(RefreshLocking):
    """Stored tokens only (`stored()`): refresh when they expire or are refused, never a login."""

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
        return self._refresh_locked(request, flow, self._refuse_registration)

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
                + one_line(" ".join(sorted(missing)), 80)
                + " the stored token lacks"
            )
        if tokens is None or not tokens.refresh_token or not self.context.client_info:
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
    """The client-credentials grant (`client_credentials()`), the secret kept out of the store."""

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
    """The client-credentials grant authenticated by a signed JWT (`private_key_jwt()`)."""

    async def _initialize(self) -> None:
        await super()._initialize()
        load_expiry(self)

    async def token_request(self) -> httpx2.Request:
        """A new token request, with a new assertion (DPoP's nonce retry sends it)."""
        return await self._perform_authorization()

    def __repr__(self) -> str:
        return f"private_key_jwt({self.context.server_url!r})"


class DiscoveredAssertion(httpx2.Auth):
    """An RFC 7523 jwt-bearer flow whose authorization server is found from the MCP server: its
    protected resource metadata (on the first 401) names the issuer, whose metadata names the
    token endpoint; then the SDK's `IdentityAssertionOAuthProvider` (made by `assertion_flow`)
    presents the assertion there.
    """

    requires_response_body = True

    def __init__(self, server_url: str, issuer: str | None) -> None:
        self.server_url = server_url
        self.issuer = issuer
        self.inner: IdentityAssertionOAuthProvider | None = None

    def assertion_flow(
        self, issuer: str, methods: list[str] | None
    ) -> IdentityAssertionOAuthProvider:
        """The SDK provider for `issuer`, whose metadata lists the token endpoint `methods`."""
        raise NotImplementedError

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self.inner is None:
            issuer = self.issuer
            methods: list[str] | None = None
            if issuer is None:
                response = yield request
                if response.status_code != 401:
                    return
                urls = build_protected_resource_metadata_discovery_urls(
                    extract_resource_metadata_from_www_auth(response), self.server_url
                )
                for url in urls:
                    found = yield create_oauth_metadata_request(url)
                    prm = await handle_protected_resource_response(found)
                    if prm is not None and prm.authorization_servers:
                        issuer = str(prm.authorization_servers[0])
                        break
                if issuer is None:
                    raise ConnectError(
                        "the server names no authorization server (no protected resource metadata)"
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
            self.inner = self.assertion_flow(issuer, methods)
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


class CrossAppAccess(DiscoveredAssertion):
    """Cross-app access (`cross_app_access()`): the authorization server found, then the SDK's
    `IdentityAssertionOAuthProvider` presenting an ID-JAG got from the identity provider.
    """

    def __init__(
        self,
        server_url: str,
        storage: Any,
        *,
        client_id: str,
        client_secret: str,
        id_token: str,
        idp_token_endpoint: str,
        idp_client_id: str | None,
        issuer: str | None,
        scope: str | None,
    ) -> None:
        super().__init__(server_url, issuer)
        self.storage = storage
        self.client_id = client_id
        self._client_secret = client_secret
        self._id_token = id_token
        self.idp_token_endpoint = idp_token_endpoint
        self.idp_client_id = idp_client_id
        self.scope = scope

    def __repr__(self) -> str:
        return f"cross_app_access({self.server_url!r})"

    async def exchange(self, audience: str, resource: str) -> str:
        """RFC 8693 at the identity provider: the ID token for an ID-JAG."""
        form = {
            "grant_type": _TOKEN_EXCHANGE,
            "subject_token": self._id_token,
            "subject_token_type": _ID_TOKEN_TYPE,
            "requested_token_type": _ID_JAG_TYPE,
            "audience": audience,
            "resource": resource,
        }
        if self.idp_client_id:
            form["client_id"] = self.idp_client_id
        async with httpx2.AsyncClient(timeout=30.0) as client:
            response = await client.post(self.idp_token_endpoint, data=form)
        if response.status_code != 200:
            raise ConnectError(
                f"the identity provider refused the token exchange (HTTP {response.status_code})"
            )
        token = response.json().get("access_token")
        if not isinstance(token, str) or not token:
            raise ConnectError("the identity provider returned no ID-JAG")
        return token

    def assertion_flow(
        self, issuer: str, methods: list[str] | None
    ) -> IdentityAssertionOAuthProvider:
        # RFC 8414: without a list, client_secret_basic.
        supported = methods or ["client_secret_basic"]
        method: SecretMethod = (
            "client_secret_post"
            if "client_secret_post" in supported
            and "client_secret_basic" not in supported
            else "client_secret_basic"
        )
        return IdentityAssertionOAuthProvider(
            self.server_url,
            self.storage,
            self.client_id,
            self._client_secret,
            issuer,
            self.exchange,
            scope=self.scope,
            token_endpoint_auth_method=method,
        )
