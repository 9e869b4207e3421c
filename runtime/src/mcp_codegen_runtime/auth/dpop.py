"""DPoP (RFC 9449, SEP-1932): proofs of a stored key on an OAuth flow's requests, as an `httpx2.Auth` wrapper.

`DPoPKey` is one ES256 key pair, kept in the token store's record next to the tokens (the
0600 file or the keyring), so a token bound to it stays usable in a new process. `DPoP`
wraps one of the runtime's OAuth providers (the SDK's flows) and works at the request layer:
the flow's token requests (authorization code, refresh, client credentials, JWT grants) carry
a proof, a DPoP-bound access token goes out as `Authorization: DPoP <token>` with a fresh proof
(`ath`) on every request, and a `use_dpop_nonce` challenge (the token endpoint's 400, the
server's 401) is answered once with the nonce it supplied; the last nonce is kept per authorization
server and per resource server (each by origin), for the requests that follow.
`mode`: True always proves token requests, None (auto) only when the authorization server's
metadata lists ES256 in `dpop_signing_alg_values_supported` or the stored token is DPoP-bound.
Nothing here logs a token, a proof or the private key.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit, urlunsplit

import httpx2

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ec import EllipticCurvePrivateKey

    from .store import TokenStore

__all__ = ["ALGORITHM", "DPoP", "DPoPKey", "access_token_hash", "proof_target"]

#: The one JWS algorithm proofs are signed with (RFC 9449 asks for an asymmetric one; P-256 is compact).
ALGORITHM = "ES256"

_FORM = "application/x-www-form-urlencoded"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def access_token_hash(access_token: str) -> str:
    """`ath`: the base64url SHA-256 of an access token (RFC 9449 §4.2)."""
    return _b64url(hashlib.sha256(access_token.encode("ascii")).digest())


def proof_target(url: str) -> str:
    """`htu`: the request URL without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit(
        (parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", "")
    )


def _nonce_key(request: httpx2.Request, own: bool) -> tuple[str, str]:
    """Whose nonce a request carries: the authorization server's (a flow's own request) or
    the resource server's, by origin (the two may share one)."""
    parts = urlsplit(str(request.url))
    origin = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}".lower()
    return ("authorization server" if own else "resource server", origin)


class DPoPKey:
    """One ES256 key pair that signs DPoP proofs; its public JWK goes in every proof's header."""

    def __init__(self, private_key: EllipticCurvePrivateKey) -> None:
        from jwt.algorithms import ECAlgorithm

        self._private_key = private_key
        public = ECAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
        #: The public key as a JWK (kty, crv, x, y): what a proof's `jwk` header carries.
        self.public_jwk: dict[str, str] = {
            name: str(public[name]) for name in ("kty", "crv", "x", "y")
        }

    def __repr__(self) -> str:
        return f"DPoPKey(thumbprint={self.thumbprint!r})"

    @classmethod
    def generate(cls) -> DPoPKey:
        from cryptography.hazmat.primitives.asymmetric import ec

        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_jwk(cls, jwk: Mapping[str, Any]) -> DPoPKey:
        """The key a store kept (`private_jwk()`); ValueError when it is not a P-256 private key."""
        from cryptography.hazmat.primitives.asymmetric import ec
        from jwt.algorithms import ECAlgorithm
        from jwt.exceptions import InvalidKeyError

        try:
            key = ECAlgorithm.from_jwk(dict(jwk))
        except (InvalidKeyError, KeyError, TypeError, ValueError) as error:
            raise ValueError("not an EC private key") from error
        if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(
            key.curve, ec.SECP256R1
        ):
            raise ValueError("not a P-256 private key")
        return cls(key)

    def private_jwk(self) -> dict[str, str]:
        """The key pair as a JWK with its private part (`d`), for the token store only."""
        from jwt.algorithms import ECAlgorithm

        full = ECAlgorithm.to_jwk(self._private_key, as_dict=True)
        return {name: str(full[name]) for name in ("kty", "crv", "x", "y", "d")}

    @property
    def thumbprint(self) -> str:
        """The RFC 7638 SHA-256 thumbprint of the public key (an access token's `cnf.jkt`)."""
        canonical = json.dumps(
            {name: self.public_jwk[name] for name in ("crv", "kty", "x", "y")},
            separators=(",", ":"),
            sort_keys=True,
        )
        return _b64url(hashlib.sha256(canonical.encode("ascii")).digest())

    def proof(
        self,
        method: str,
        url: str,
        *,
        nonce: str | None = None,
        access_token: str | None = None,
    ) -> str:
        """A DPoP proof JWT for one request: `htm`, `htu`, `iat`, a unique `jti`, and `nonce`
        and `ath` (the access token's hash) when given."""
        import jwt

        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(24),
            "htm": method.upper(),
            "htu": proof_target(url),
            "iat": int(time.time()),
        }
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        headers = {"typ": "dpop+jwt", "jwk": self.public_jwk}
        return jwt.encode(
            claims, self._private_key, algorithm=ALGORITHM, headers=headers
        )


def _is_token_request(request: httpx2.Request) -> bool:
    """A flow's own form POST is a token request (its other POST, a registration, is JSON)."""
    if request.method != "POST" or not request.headers.get(
        "content-type", ""
    ).startswith(_FORM):
        return False
    try:
        return b"grant_type=" in request.content
    except httpx2.RequestNotRead:
        return False


def _asserted(request: httpx2.Request) -> bool:
    """Whether a token request authenticates the client by an assertion (RFC 7523)."""
    return b"client_assertion=" in request.content


def _presented_token(request: httpx2.Request) -> str | None:
    """The access token in the request's Authorization header (either scheme), if any."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return (token.strip() or None) if scheme.lower() in ("bearer", "dpop") else None


async def _json_of(response: httpx2.Response) -> dict[str, Any]:
    try:
        await response.aread()
        data = json.loads(response.content)
    except (ValueError, httpx2.HTTPError):
        return {}
    return cast("dict[str, Any]", data) if isinstance(data, dict) else {}


class DPoP(httpx2.Auth):
    """An OAuth provider's flow with DPoP proofs (see the module docstring); other attributes
    are the wrapped provider's."""

    requires_response_body = True

    def __init__(
        self,
        inner: httpx2.Auth,
        *,
        store: TokenStore | None,
        mode: bool | None,
        renew: Callable[[], Awaitable[httpx2.Request]] | None = None,
    ) -> None:
        self.inner = inner
        #: A new token request for the nonce retry of one that carries a client assertion
        #: (an authorization server may refuse an assertion presented twice, RFC 7523 3.1).
        self.renew = renew
        self.mode = mode
        self._store = store
        self._key: DPoPKey | None = None
        #: `ath` of the access token the authorization server bound to the key (token_type DPoP).
        self._bound: str | None = None
        self._loaded = False
        #: The authorization server's metadata lists ES256 for DPoP.
        self._offered = False
        #: The last `DPoP-Nonce` of each server: (its role, its origin) -> nonce.
        self.nonces: dict[tuple[str, str], str] = {}

    def __getattr__(self, name: str) -> Any:
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return repr(self.inner)

    # -- state: the key and the binding, kept in the token store

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self._store is None:
            return
        jwk, bound = self._store.dpop_state()
        if jwk is not None:
            try:
                self._key = DPoPKey.from_jwk(jwk)
            except ValueError:
                # Unreadable: a new key (a token bound to the old one gets refused).
                self._key = None
        self._bound = bound if self._key is not None else None

    async def signing_key(self) -> DPoPKey:
        """The key proofs are signed with: the stored one, else a new one, stored at once (under the
        store's lock, after reading it again, so processes sharing the record keep one key).
        """
        self._load()
        if self._key is not None:
            return self._key
        if self._store is None:
            self._key = DPoPKey.generate()
            return self._key
        async with self._store.locked():
            self._loaded = False
            self._load()
            if self._key is None:
                self._key = DPoPKey.generate()
                await self._save()
        return self._key

    async def _save(self) -> None:
        if self._store is not None and self._key is not None:
            await self._store.set_dpop_state(self._key.private_jwk(), self._bound)

    def _is_bound(self, token: str) -> bool:
        """Whether `token` is the DPoP-bound one. Another process may have refreshed it (under
        the store's refresh lock) and stored a new binding: then the store is read again.
        """
        self._load()
        if self._bound is None:
            return False
        if access_token_hash(token) != self._bound and self._store is not None:
            self._loaded = False
            self._load()
        return access_token_hash(token) == self._bound

    def _proves_token_requests(self) -> bool:
        if self.mode is not None:
            return self.mode
        self._load()
        return self._offered or self._bound is not None

    # -- the request layer

    async def _sign(self, request: httpx2.Request, own: bool) -> None:
        request.headers.pop("DPoP", None)
        nonce = self.nonces.get(_nonce_key(request, own))
        if own:
            if _is_token_request(request) and self._proves_token_requests():
                key = await self.signing_key()
                request.headers["DPoP"] = key.proof(
                    request.method, str(request.url), nonce=nonce
                )
            return
        token = _presented_token(request)
        if token is None or not self._is_bound(token):
            return
        request.headers["Authorization"] = f"DPoP {token}"
        request.headers["DPoP"] = (await self.signing_key()).proof(
            request.method, str(request.url), nonce=nonce, access_token=token
        )

    def _remember_nonce(
        self, request: httpx2.Request, response: httpx2.Response, own: bool
    ) -> None:
        nonce = response.headers.get("DPoP-Nonce")
        if nonce and (not own or _is_token_request(request)):
            self.nonces[_nonce_key(request, own)] = nonce

    async def _asks_for_nonce(
        self, request: httpx2.Request, response: httpx2.Response, own: bool
    ) -> bool:
        """Whether `response` is a `use_dpop_nonce` challenge to the proof `request` carried."""
        if "DPoP" not in request.headers or not response.headers.get("DPoP-Nonce"):
            return False
        if own:
            return (
                response.status_code == 400
                and (await _json_of(response)).get("error") == "use_dpop_nonce"
            )
        challenge = response.headers.get("WWW-Authenticate", "")
        return response.status_code == 401 and "use_dpop_nonce" in challenge

    async def _observe(
        self, request: httpx2.Request, response: httpx2.Response
    ) -> httpx2.Response:
        """Learn from a flow's own response: metadata offering DPoP, a token bound (or not) to
        the key. A DPoP token response is handed on as `Bearer` (the SDK's token model knows no
        other type); this wrapper presents it as DPoP."""
        if response.status_code != 200:
            return response
        if request.method == "GET":
            data = await _json_of(response)
            if "token_endpoint" in data and "issuer" in data:
                algorithms = data.get("dpop_signing_alg_values_supported")
                self._offered = isinstance(algorithms, list) and ALGORITHM in algorithms
            return response
        if not _is_token_request(request):
            return response
        data = await _json_of(response)
        token = data.get("access_token")
        if not isinstance(token, str):
            return response
        bound = (
            "DPoP" in request.headers
            and str(data.get("token_type", "")).lower() == "dpop"
        )
        was = self._bound
        self._bound = access_token_hash(token) if bound else None
        if self._bound != was:
            await self._save()
        if not bound:
            return response
        body = json.dumps({**data, "token_type": "Bearer"}).encode()
        headers = [
            (name, value)
            for name, value in response.headers.multi_items()
            if name.lower()
            not in ("content-length", "content-encoding", "transfer-encoding")
        ]
        return httpx2.Response(
            response.status_code, headers=headers, content=body, request=request
        )

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                own = outgoing is not request
                await self._sign(outgoing, own)
                response = yield outgoing
                self._remember_nonce(outgoing, response, own)
                if await self._asks_for_nonce(outgoing, response, own):
                    # Once, with a fresh proof that holds the server's nonce.
                    if own and self.renew is not None and _asserted(outgoing):
                        outgoing = await self.renew()
                    await self._sign(outgoing, own)
                    response = yield outgoing
                    self._remember_nonce(outgoing, response, own)
                if own:
                    response = await self._observe(outgoing, response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()
