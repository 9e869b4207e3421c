"""A DPoP gate (RFC 9449) in front of tests/servers/oauth_server.py: proofs checked with PyJWT, tokens bound to keys.

An ASGI wrapper that turns the SDK's Bearer-only test server into a DPoP one, written from the RFC
(it shares no code with the runtime): it adds `dpop_signing_alg_values_supported` to the
authorization server's metadata (`advertise`), requires a valid proof on every token request
(header `typ` dpop+jwt, `alg` ES256, a public `jwk` that verifies the signature, `htm`, `htu`
without query, `iat` within a minute, a `jti` never seen before), binds the access and refresh
tokens it issues to the proof key's RFC 7638 thumbprint (`token_type: DPoP`), refreshes a bound
refresh token only for a proof of the same key, and lets a request reach /mcp only with
`Authorization: DPoP <token>` and a proof of the bound key whose `ath` is the token's hash.
With `require_nonce` both the token endpoint (400) and /mcp (401) answer `use_dpop_nonce` with a
`DPoP-Nonce` until a proof carries it. Without `require_proof`, a token request without a proof
gets the inner server's plain Bearer token. A client-credentials request with a `client_assertion`
(private_key_jwt, RFC 7523) is answered by the gate itself for the clients in `assertion_keys`
(client id -> public key PEM); it refuses an assertion `jti` seen before, and records it before the
DPoP checks, as a strict authorization server may.

    with serve_oauth(wrap=gate.wrap) as server:   # gate = DPoPGate(require_nonce=True)
        gate.proofs                                 # [(where, header, claims)] of every accepted proof
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import jwt

AS_NONCE = "as-nonce-1"
RS_NONCE = "rs-nonce-1"


class Refused(Exception):
    def __init__(self, status: int, error: str, description: str, *headers: tuple[bytes, bytes]) -> None:
        super().__init__(description)
        self.status, self.error, self.headers = status, error, list(headers)


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638: the SHA-256 of the required members, sorted, no whitespace."""
    members = json.dumps({name: jwk[name] for name in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(members.encode()).digest()).rstrip(b"=").decode()


def token_hash(token: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()


@dataclass
class DPoPGate:
    advertise: bool = True
    require_proof: bool = True
    require_nonce: bool = False
    #: Every proof accepted: ("token" or "mcp", its header, its claims).
    proofs: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    #: `use_dpop_nonce` challenges sent, per place ("token", "mcp").
    challenges: dict[str, int] = field(default_factory=lambda: {"token": 0, "mcp": 0})
    #: Requests that reached /mcp with a token, by Authorization scheme.
    schemes: list[str] = field(default_factory=list)
    #: Token (access or refresh) -> the thumbprint of the key it is bound to.
    bound: dict[str, str] = field(default_factory=dict)
    #: Token requests that carried a DPoP header.
    token_requests_with_proof: int = 0
    token_requests: int = 0
    #: Clients authenticated by a signed assertion: client id -> public key (PEM).
    assertion_keys: dict[str, str] = field(default_factory=dict)
    _jtis: set[str] = field(default_factory=set)
    _assertion_jtis: set[str] = field(default_factory=set)

    def assert_client(self, assertion: str) -> str:
        """The client id a private_key_jwt assertion authenticates (its `jti` used up); else `Refused`."""
        try:
            client_id = jwt.decode(assertion, options={"verify_signature": False})["sub"]
            claims = jwt.decode(
                assertion,
                self.assertion_keys[client_id],
                algorithms=["ES256", "RS256"],
                options={"verify_aud": False, "require": ["jti", "exp"]},
            )
        except (jwt.InvalidTokenError, KeyError) as error:
            raise Refused(401, "invalid_client", f"bad assertion: {error}") from None
        if claims["jti"] in self._assertion_jtis:
            raise Refused(401, "invalid_client", "assertion replayed")
        self._assertion_jtis.add(claims["jti"])
        return str(client_id)

    def check(self, proof: str | None, method: str, url: str, nonce: str | None, token: str | None) -> str:
        """The proof's key thumbprint, when `proof` is valid for this request; else `Refused`."""
        if not proof:
            raise Refused(400 if token is None else 401, "invalid_dpop_proof", "no DPoP proof")
        try:
            header = jwt.get_unverified_header(proof)
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
                raise Refused(400, "invalid_dpop_proof", "typ/alg")
            jwk = header["jwk"]
            if "d" in jwk:
                raise Refused(400, "invalid_dpop_proof", "a private key in the header")
            key = jwt.PyJWK(jwk, algorithm="ES256").key
            claims = jwt.decode(proof, key, algorithms=["ES256"], options={"require": ["jti", "htm", "htu", "iat"]})
        except (jwt.InvalidTokenError, KeyError, TypeError, ValueError) as error:
            raise Refused(400, "invalid_dpop_proof", f"bad proof: {error}") from None
        if claims["htm"] != method or claims["htu"] != url:
            raise Refused(400, "invalid_dpop_proof", "htm/htu")
        if abs(time.time() - claims["iat"]) > 60:
            raise Refused(400, "invalid_dpop_proof", "iat")
        if claims["jti"] in self._jtis:
            raise Refused(400, "invalid_dpop_proof", "jti replayed")
        if token is not None and claims.get("ath") != token_hash(token):
            raise Refused(401, "invalid_token", "ath")
        if nonce is not None and claims.get("nonce") != nonce:
            raise Refused(400 if token is None else 401, "use_dpop_nonce", "nonce", (b"dpop-nonce", nonce.encode()))
        self._jtis.add(claims["jti"])
        self.proofs.append(("token" if token is None else "mcp", header, claims))
        return thumbprint(jwk)

    def wrap(self, app: Any, running: Any) -> Any:
        base = running.base_url

        async def respond(send: Any, refused: Refused, challenge: bool) -> None:
            headers = [(b"content-type", b"application/json"), *refused.headers]
            if challenge:
                headers.append((b"www-authenticate", f'DPoP error="{refused.error}"'.encode()))
            await send({"type": "http.response.start", "status": refused.status, "headers": headers})
            await send({"type": "http.response.body", "body": json.dumps({"error": refused.error}).encode()})

        async def gated(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            path, method = scope["path"], scope["method"]
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            body = b""
            more = True
            while more and method == "POST":
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
            rewrite: Any = None
            if path == "/.well-known/oauth-authorization-server" and self.advertise:

                def rewrite(data: dict[str, Any]) -> dict[str, Any]:
                    return {**data, "dpop_signing_alg_values_supported": ["ES256"]}

            elif path == "/token" and method == "POST":
                self.token_requests += 1
                form = dict(parse_qsl(body.decode()))
                proof = headers.get("dpop")
                jkt = None
                asserted = None
                if proof or self.require_proof:
                    self.token_requests_with_proof += bool(proof)
                    try:
                        if "client_assertion" in form:
                            asserted = self.assert_client(form["client_assertion"])
                        nonce = AS_NONCE if self.require_nonce else None
                        jkt = self.check(proof, "POST", f"{base}/token", nonce, None)
                        if form.get("grant_type") == "refresh_token":
                            if self.bound.get(form.get("refresh_token", "")) != jkt:
                                raise Refused(400, "invalid_grant", "refresh token bound to another key")
                    except Refused as refused:
                        self.challenges["token"] += refused.error == "use_dpop_nonce"
                        await respond(send, refused, False)
                        return
                if jkt is not None:

                    def rewrite(data: dict[str, Any]) -> dict[str, Any]:
                        for name in ("access_token", "refresh_token"):
                            if name in data:
                                self.bound[data[name]] = jkt
                        return {**data, "token_type": "DPoP"}

                if asserted is not None:
                    issued = running.provider.issue(asserted, ["mcp"], form.get("resource"), refresh=False)
                    payload = issued.model_dump(mode="json", exclude_none=True)
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 200,
                            "headers": [(b"content-type", b"application/json")],
                        }
                    )
                    body_out = json.dumps(rewrite(payload) if rewrite is not None else payload).encode()
                    await send({"type": "http.response.body", "body": body_out})
                    return

            elif path == "/mcp" and "authorization" in headers:
                scheme, _, token = headers["authorization"].partition(" ")
                self.schemes.append(scheme)
                try:
                    if scheme != "DPoP" and token in self.bound:
                        raise Refused(401, "invalid_token", "a DPoP-bound token presented as Bearer")
                    if scheme == "DPoP":
                        nonce = RS_NONCE if self.require_nonce else None
                        jkt = self.check(headers.get("dpop"), method, f"{base}/mcp", nonce, token)
                        if self.bound.get(token) != jkt:
                            raise Refused(401, "invalid_token", "the proof's key is not the token's")
                except Refused as refused:
                    self.challenges["mcp"] += refused.error == "use_dpop_nonce"
                    await respond(send, refused, True)
                    return
                scope = {
                    **scope,
                    "headers": [
                        (k, f"Bearer {token}".encode() if k.lower() == b"authorization" else v)
                        for k, v in scope["headers"]
                    ],
                }
            sent = False

            async def replay() -> Any:
                nonlocal sent
                if not sent and method == "POST":
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            if rewrite is None:
                await app(scope, replay, send)
                return
            start: dict[str, Any] = {}
            chunks: list[bytes] = []

            async def capture(message: Any) -> None:
                if message["type"] == "http.response.start":
                    start.update(message)
                    return
                chunks.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                payload = b"".join(chunks)
                if start["status"] == 200:
                    payload = json.dumps(rewrite(json.loads(payload))).encode()
                kept = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
                kept.append((b"content-length", str(len(payload)).encode()))
                await send({**start, "headers": kept})
                await send({"type": "http.response.body", "body": payload})

            await app(scope, replay, capture)

        return gated
