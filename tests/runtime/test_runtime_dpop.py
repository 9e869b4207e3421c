"""DPoP (RFC 9449) in the runtime's OAuth: proofs, DPoP-bound tokens, nonces, refresh, the stored key.

The proofs are decoded with PyJWT against the JWK in their header; the flows run against
tests/servers/oauth_server.py behind tests/servers/dpop_gate.py, a DPoP-checking ASGI gate on 127.0.0.1.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import stat
import time
from typing import Any

import anyio
import jwt
import pytest
from auth_helpers import Headless, MemoryKeyring, text_of
from fakepkg import AsyncClient
from servers.dpop_gate import AS_NONCE, RS_NONCE, DPoPGate, thumbprint
from servers.oauth_server import serve_oauth

from mcp_codegen_runtime import AuthRequiredError, ConnectError, TokenStore, client_credentials, oauth, stored
from mcp_codegen_runtime.auth import private_key_jwt
from mcp_codegen_runtime.auth.dpop import DPoPKey

pytestmark = pytest.mark.anyio


async def whoami(url: str, auth: Any, calls: int = 1) -> str:
    async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=30) as client:
        for _ in range(calls - 1):
            await client.call_raw("echo", {"text": "x"})
        return text_of(await client.call_raw("whoami"))


def headless_oauth(url: str, **options: Any) -> Any:
    flow = Headless()
    return oauth(url, redirect_handler=flow.redirect, callback_handler=flow.callback, **options)


def stored_key(url: str) -> dict[str, Any]:
    record = json.loads(TokenStore.for_url(url).path.read_text())
    return dict(record["dpop"]["key"])


# ------------------------------------------------------------------------------------------ proofs


def test_a_proof_verifies_against_its_own_jwk_and_carries_the_request() -> None:
    key = DPoPKey.generate()
    proof = key.proof("post", "https://user@as.example:8443/token?x=1#frag", nonce="n-1", access_token="tok")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert set(header["jwk"]) == {"kty", "crv", "x", "y"}  # the public key only
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"], algorithm="ES256").key, algorithms=["ES256"])
    assert claims["htm"] == "POST"
    assert claims["htu"] == "https://as.example:8443/token"
    assert abs(claims["iat"] - time.time()) < 5
    assert claims["nonce"] == "n-1"
    expected_ath = base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    assert claims["ath"] == expected_ath
    assert key.thumbprint == thumbprint(header["jwk"])


def test_every_proof_has_a_new_jti_and_a_token_request_proof_has_no_ath_or_nonce() -> None:
    key = DPoPKey.generate()
    proofs = [key.proof("POST", "http://127.0.0.1/token") for _ in range(50)]
    claims = [jwt.decode(proof, options={"verify_signature": False}) for proof in proofs]
    assert len({claim["jti"] for claim in claims}) == 50
    assert not any("ath" in claim or "nonce" in claim for claim in claims)


def test_the_stored_form_of_a_key_restores_the_same_key() -> None:
    key = DPoPKey.generate()
    private = key.private_jwk()
    assert "d" in private and "d" not in key.public_jwk
    again = DPoPKey.from_jwk(private)
    assert again.public_jwk == key.public_jwk
    proof = again.proof("GET", "http://127.0.0.1/mcp")
    jwt.decode(proof, jwt.PyJWK(key.public_jwk, algorithm="ES256").key, algorithms=["ES256"])
    with pytest.raises(ValueError):
        DPoPKey.from_jwk(key.public_jwk)


# ------------------------------------------------------------------------------------------- flows


async def test_login_gets_a_dpop_bound_token_and_proves_every_request(token_dir: Any) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap) as server:
        assert await whoami(server.url, headless_oauth(server.url), calls=3)
    token_proofs = [claims for where, _, claims in gate.proofs if where == "token"]
    request_proofs = [(header, claims) for where, header, claims in gate.proofs if where == "mcp"]
    assert len(token_proofs) == 1 and token_proofs[0]["htu"].endswith("/token")
    assert len(request_proofs) >= 3 and set(gate.schemes) == {"DPoP"}
    jtis = [claims["jti"] for _, claims in request_proofs] + [token_proofs[0]["jti"]]
    assert len(set(jtis)) == len(jtis)
    assert all(claims["htm"] in ("POST", "GET", "DELETE") and "ath" in claims for _, claims in request_proofs)
    # One key, kept with the tokens in the user-only file: the tokens are bound to it.
    store = TokenStore.for_url(server.url)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    key = DPoPKey.from_jwk(stored_key(server.url))
    assert {thumbprint(header["jwk"]) for header, _ in request_proofs} == {key.thumbprint}
    assert set(gate.bound.values()) == {key.thumbprint}
    assert store.describe().dpop_bound


async def test_with_the_keyring_the_key_lives_in_the_keyring_not_in_the_index_file(
    memory_keyring: MemoryKeyring,
) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap) as server:
        assert await whoami(server.url, headless_oauth(server.url))
        assert await whoami(server.url, stored(server.url))  # the key read back from the keyring
        record = json.loads(memory_keyring.passwords[("mcp-codegen", server.url)])
        store = TokenStore.for_url(server.url)
        assert store.backend == "keyring" and "dpop" not in store.path.read_text()
    assert record["dpop"]["key"]["d"] not in store.path.read_text()
    assert set(gate.bound.values()) == {DPoPKey.from_jwk(record["dpop"]["key"]).thumbprint}
    assert store.clear() and not memory_keyring.passwords


async def test_nonces_from_the_authorization_server_and_the_server_are_retried_once_each(token_dir: Any) -> None:
    gate = DPoPGate(require_nonce=True)
    with serve_oauth(wrap=gate.wrap) as server:
        auth = headless_oauth(server.url)
        assert await whoami(server.url, auth, calls=3)
        # Both servers share one origin here; each nonce is kept for its own server, so the next
        # token request (a new login for the refused token) carries the authorization server's at once.
        server.provider.revoke_all_access()
        assert await whoami(server.url, auth)
    assert gate.challenges == {"token": 1, "mcp": 1}
    assert [claims.get("nonce") for where, _, claims in gate.proofs if where == "token"] == [AS_NONCE] * 2
    assert {claims.get("nonce") for where, _, claims in gate.proofs if where == "mcp"} == {RS_NONCE}


async def test_a_refused_token_is_refreshed_with_a_proof_of_the_stored_key(token_dir: Any) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap) as server:
        await whoami(server.url, headless_oauth(server.url))
        key = stored_key(server.url)
        server.provider.revoke_all_access()
        # A new auth object (a new process would do the same): the key and the binding come from the store.
        assert await whoami(server.url, stored(server.url))
        assert server.provider.issued["refresh_token"] == 1
    refresh = [claims for where, _, claims in gate.proofs if where == "token"][-1]
    assert refresh["htu"].endswith("/token")
    assert stored_key(server.url) == key
    assert set(gate.bound.values()) == {DPoPKey.from_jwk(key).thumbprint}


async def test_a_token_another_process_refreshed_is_presented_as_dpop(token_dir: Any) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap, access_ttl=2) as server:
        first = headless_oauth(server.url)
        assert await whoami(server.url, first)
        await anyio.sleep(2.2)
        assert await whoami(server.url, stored(server.url))  # "another process" refreshes and binds anew
        # The first auth object reads the refreshed token from the store and its binding with it.
        assert await whoami(server.url, first)
        assert server.provider.issued == {
            "authorization_code": 1,
            "refresh_token": 1,
            "client_credentials": 0,
            "jwt_bearer": 0,
        }
    assert set(gate.schemes) == {"DPoP"}


async def test_client_credentials_get_a_dpop_bound_token(token_dir: Any) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap, clients={"machine": ("s3cret", None)}) as server:
        auth = client_credentials(server.url, client_id="machine", client_secret="s3cret")
        assert await whoami(server.url, auth) == "machine"
    assert gate.token_requests_with_proof == 1 and set(gate.schemes) == {"DPoP"}


async def test_a_private_key_jwt_nonce_retry_signs_a_new_assertion(token_dir: Any) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    signing_key = ec.generate_private_key(ec.SECP256R1())
    private_pem = signing_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public_pem = (
        signing_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    # The gate uses up an assertion before it asks for the nonce: the retry needs a new one.
    gate = DPoPGate(require_nonce=True, assertion_keys={"signer": public_pem})
    with serve_oauth(wrap=gate.wrap) as server:
        auth = private_key_jwt(server.url, client_id="signer", private_key=private_pem, algorithm="ES256")
        assert await whoami(server.url, auth) == "signer"
    assert gate.challenges["token"] == 1 and set(gate.schemes) == {"DPoP"}


async def test_dpop_is_forced_on_where_the_metadata_does_not_offer_it(token_dir: Any) -> None:
    gate = DPoPGate(advertise=False)
    with serve_oauth(wrap=gate.wrap) as server:
        assert await whoami(server.url, headless_oauth(server.url, dpop=True))
    assert gate.token_requests_with_proof == 1 and set(gate.schemes) == {"DPoP"}


async def test_without_an_offer_auto_mode_sends_no_proof(token_dir: Any) -> None:
    gate = DPoPGate(advertise=False, require_proof=False)
    with serve_oauth(wrap=gate.wrap) as server:
        assert await whoami(server.url, headless_oauth(server.url))
    assert gate.token_requests == 1 and gate.token_requests_with_proof == 0
    assert set(gate.schemes) == {"Bearer"} and not gate.proofs
    assert "dpop" not in json.loads(TokenStore.for_url(server.url).path.read_text())


async def test_dpop_refused_sends_no_proof_even_when_offered(token_dir: Any) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap) as server:
        with pytest.raises((ConnectError, AuthRequiredError)) as caught:
            await whoami(server.url, headless_oauth(server.url, dpop=False))
    assert gate.token_requests == 1 and gate.token_requests_with_proof == 0
    assert "OAuth" in str(caught.value)


# ----------------------------------------------------------------------------- connect() and the launch


def launch_client(auth: dict[str, Any] | None, url: str) -> type[AsyncClient]:
    launch: dict[str, Any] = {"transport": "http", "url": url} | ({"auth": auth} if auth is not None else {})

    class Launched(AsyncClient):
        _launch = launch

    return Launched


@pytest.mark.parametrize("recorded", [{"kind": "oauth"}, None])
async def test_connect_presents_the_stored_dpop_bound_token_with_the_stored_key(
    token_dir: Any, recorded: dict[str, Any] | None
) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap) as server:
        await whoami(server.url, headless_oauth(server.url))
        async with launch_client(recorded, server.url).connect(drift_check=False) as client:
            assert text_of(await client.call_raw("echo", {"text": "x"})) == "x"
    key = DPoPKey.from_jwk(stored_key(server.url))
    assert {thumbprint(header["jwk"]) for where, header, _ in gate.proofs if where == "mcp"} == {key.thumbprint}
    assert set(gate.schemes) == {"DPoP"}


@pytest.mark.parametrize(
    ("recorded", "keyword"), [({"kind": "oauth"}, False), ({"kind": "oauth", "dpop": False}, None)]
)
async def test_connect_refusing_dpop_presents_the_token_as_bearer(
    token_dir: Any, recorded: dict[str, Any], keyword: bool | None
) -> None:
    gate = DPoPGate()
    with serve_oauth(wrap=gate.wrap) as server:
        await whoami(server.url, headless_oauth(server.url))
        with pytest.raises(ConnectError):
            async with launch_client(recorded, server.url).connect(drift_check=False, dpop=keyword) as client:
                await client.call_raw("echo", {"text": "x"})
    assert gate.schemes[-1] == "Bearer"  # refused by the gate: the token is bound to the key


async def test_no_private_key_token_or_proof_in_logs_errors_or_reprs(
    token_dir: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    gate = DPoPGate(require_nonce=True)
    with serve_oauth(wrap=gate.wrap) as server:
        auth = headless_oauth(server.url)
        assert await whoami(server.url, auth)
        server.provider.revoke_all_access()
        server.provider.refresh.clear()
        with pytest.raises(AuthRequiredError) as refused:
            await whoami(server.url, stored(server.url))
        store = TokenStore.for_url(server.url)
        shown = [repr(auth), repr(stored(server.url)), repr(store), repr(store.describe()), str(refused.value)]
        private = stored_key(server.url)["d"]
    assert any(record.name.startswith("mcp.client.auth") for record in caplog.records)  # captured
    secrets = [private, *gate.bound, *(claims["jti"] for _, _, claims in gate.proofs)]
    for secret in secrets:
        assert secret not in caplog.text, "a secret was logged"
        assert not any(secret in text for text in shown)
