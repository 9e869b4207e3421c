"""Workload identity federation in the runtime: the platform's token as an RFC 7523 jwt-bearer grant.

Against tests/servers/oauth_server.py (the SDK's server-side auth on 127.0.0.1, with a jwt-bearer grant that
checks the assertion's ES256 signature and audience).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from auth_helpers import text_of
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fakepkg import AsyncClient
from servers.oauth_server import RunningServer, serve_oauth

from mcp_codegen_runtime import ConnectError, TokenStore
from mcp_codegen_runtime.auth import workload

pytestmark = pytest.mark.anyio

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


@pytest.fixture
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    monkeypatch.setenv("MCP_CODEGEN_CONFIG_DIR", str(config))
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "file")
    return config / "auth"


@pytest.fixture(scope="module")
def platform_key() -> ec.EllipticCurvePrivateKey:
    """The platform's signing key (what GitHub's or the cluster's OIDC issuer holds)."""
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def server(platform_key: ec.EllipticCurvePrivateKey) -> Iterator[RunningServer]:
    public = platform_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with serve_oauth(workload_key=public.decode()) as running:
        yield running


def platform_token(key: Any, audience: str, subject: str = "repo:acme/app:ref:refs/heads/main") -> str:
    now = int(time.time())
    claims = {"iss": "https://token.actions.example", "sub": subject, "aud": audience, "iat": now, "exp": now + 300}
    return jwt.encode(claims, key, algorithm="ES256")


async def whoami(url: str, auth: Any, transport: str = "http") -> str:
    async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=30, transport=transport) as client:
        return text_of(await client.call_raw("whoami"))


async def test_the_platform_token_from_a_file_gets_an_access_token(
    server: RunningServer, platform_key: Any, token_dir: Path, tmp_path: Path
) -> None:
    token_file = tmp_path / "oidc-token"
    token_file.write_text(platform_token(platform_key, server.base_url) + "\n")
    assert (
        await whoami(server.url, workload(server.url, token_file=str(token_file)))
        == "repo:acme/app:ref:refs/heads/main"
    )
    assert server.provider.grants == [JWT_BEARER]  # no registration, no other grant
    assert not server.provider.clients


async def test_the_file_is_read_again_for_each_token_request(
    server: RunningServer, platform_key: Any, token_dir: Path, tmp_path: Path
) -> None:
    token_file = tmp_path / "oidc-token"
    token_file.write_text(platform_token(platform_key, server.base_url, subject="first"))
    assert await whoami(server.url, workload(server.url, token_file=str(token_file))) == "first"
    TokenStore.for_url(server.url).clear()
    token_file.write_text(platform_token(platform_key, server.base_url, subject="rotated"))
    assert await whoami(server.url, workload(server.url, token_file=str(token_file))) == "rotated"


async def test_the_token_from_a_variable_and_the_client_id_in_the_form(
    server: RunningServer, platform_key: Any, token_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLATFORM_TOKEN", platform_token(platform_key, server.base_url))
    server.provider.workload_client_id = "ci-workload"  # the server refuses a form without it (or another)
    auth = workload(server.url, token_env="PLATFORM_TOKEN", client_id="ci-workload")
    assert await whoami(server.url, auth)
    assert "PLATFORM_TOKEN" in repr(auth)
    assert server.provider.grants == [JWT_BEARER]


async def test_the_server_refuses_a_form_without_the_client_id_it_expects(
    server: RunningServer, platform_key: Any, token_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What makes the test above fail if the runtime dropped `client_id` from the form."""
    monkeypatch.setenv("PLATFORM_TOKEN", platform_token(platform_key, server.base_url))
    server.provider.workload_client_id = "ci-workload"
    with pytest.raises(ConnectError):
        await whoami(server.url, workload(server.url, token_env="PLATFORM_TOKEN"))
    assert server.provider.grants == [JWT_BEARER]


async def test_a_refused_grant_is_not_retried_nor_another_grant_tried(
    server: RunningServer, platform_key: Any, token_dir: Path, tmp_path: Path
) -> None:
    token_file = tmp_path / "oidc-token"
    wrong_audience = platform_token(platform_key, "https://wrong.example")
    token_file.write_text(wrong_audience)
    with pytest.raises(ConnectError) as caught:
        # transport="auto" would try SSE after streamable HTTP: a refused grant must stop both.
        await whoami(server.url, workload(server.url, token_file=str(token_file)), transport="auto")
    assert server.provider.grants == [JWT_BEARER]
    assert not server.provider.clients
    assert wrong_audience not in str(caught.value)


async def test_a_missing_token_names_its_source_only(server: RunningServer, token_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConnectError, match="workload token") as caught:
        await whoami(server.url, workload(server.url, token_file=str(tmp_path / "absent")))
    assert str(tmp_path / "absent") in str(caught.value)
    assert server.provider.grants == []


async def test_the_platform_token_is_never_written(
    server: RunningServer, platform_key: Any, token_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = platform_token(platform_key, server.base_url)
    monkeypatch.setenv("PLATFORM_TOKEN", secret)
    auth = workload(server.url, token_env="PLATFORM_TOKEN")
    assert await whoami(server.url, auth)
    assert secret not in repr(auth)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert written  # the access token's store
    for path in written:
        assert secret.encode() not in path.read_bytes(), path


def test_workload_stays_the_builder_after_its_module_is_imported(tmp_path: Path) -> None:
    from mcp_codegen_runtime import auth

    first = auth.workload("http://127.0.0.1:9/mcp", token_file=str(tmp_path / "t"))
    assert callable(auth.workload)  # importing the provider module must not shadow the function
    assert type(auth.workload("http://127.0.0.1:9/mcp", token_env="T")) is type(first)
