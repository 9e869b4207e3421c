"""OAuth secrets (access and refresh tokens, client secrets) never reach logs, errors, reprs or generated files."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_RUNTIME_TESTS = str(Path(__file__).resolve().parents[1] / "runtime")
if _RUNTIME_TESTS not in sys.path:
    sys.path.insert(0, _RUNTIME_TESTS)

from auth_helpers import Browser, Headless, free_port  # noqa: E402
from fakepkg import AsyncClient  # noqa: E402
from servers.oauth_server import serve_oauth  # noqa: E402

from mcp_codegen_runtime import (  # noqa: E402
    AuthRequiredError,
    ConnectError,
    TokenStore,
    client_credentials,
    oauth,
    stored,
)

pytestmark = pytest.mark.anyio

CLIENT_SECRET = "SENTINEL-CLIENT-SECRET-4242"
MACHINE_SECRET = "SENTINEL-MACHINE-SECRET-4343"


@pytest.fixture
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MCP_CODEGEN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "file")
    yield tmp_path / "config" / "auth"


async def _call(url: str, auth: Any) -> str:
    async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=30) as client:
        return str((await client.call_raw("whoami")).text)


async def test_no_token_or_client_secret_in_logs_errors_or_reprs(
    token_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    shown: list[str] = []  # every message and repr a user could see
    with serve_oauth(clients={"app": (CLIENT_SECRET, [redirect]), "bot": (MACHINE_SECRET, None)}) as running:
        url = running.url
        # Login with a pre-registered confidential client, through the loopback listener.
        browser = Browser()
        login = oauth(
            url,
            client_id="app",
            client_secret=CLIENT_SECRET,
            redirect_port=port,
            open_browser=False,
            on_authorize_url=browser,
        )
        assert await _call(url, login) == "app"
        browser.join()
        # Refresh on expiry and on refusal.
        store = TokenStore.for_url(url)
        record = json.loads(store.path.read_text())
        record["expiresAt"] = 1.0
        store.path.write_text(json.dumps(record))
        assert await _call(url, stored(url)) == "app"
        running.provider.revoke_all_access()
        assert await _call(url, stored(url)) == "app"
        shown += [repr(login), repr(stored(url)), repr(store), repr(store.describe())]
        shown += [repr(item) for item in TokenStore.stored_servers()]
        # Failures: refused token and refresh token; a wrong machine secret; a DCR login headless.
        running.provider.revoke_all_access()
        running.provider.refresh.clear()
        with pytest.raises(AuthRequiredError) as refused:
            await _call(url, stored(url))
        shown.append(str(refused.value))
        store.clear()
        machine = client_credentials(url, client_id="bot", client_secret=MACHINE_SECRET)
        assert await _call(url, machine) == "bot"
        shown.append(repr(machine))
        store.clear()
        with pytest.raises(ConnectError) as wrong:
            await _call(url, client_credentials(url, client_id="bot", client_secret=MACHINE_SECRET + "-wrong"))
        shown.append(str(wrong.value))
        store.clear()
        flow = Headless()
        assert await _call(url, oauth(url, redirect_handler=flow.redirect, callback_handler=flow.callback))
        values = running.provider.values
    assert len(values) >= 8
    logged = caplog.text
    assert any(record.name.startswith("mcp.client.auth") for record in caplog.records)  # captured
    for secret in [*values, CLIENT_SECRET, MACHINE_SECRET]:
        assert secret not in logged, "a secret was logged"
        for text in shown:
            assert secret not in text, f"a secret in {text!r}"


def test_recorded_auth_entry_generates_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import generate_into, snapshot_of

    monkeypatch.setenv("RT_CI_SECRET", MACHINE_SECRET)
    launch = {
        "transport": "http",
        "url": "http://127.0.0.1:9/mcp",
        "auth": {"kind": "client-credentials", "clientId": "bot", "clientSecretEnv": "RT_CI_SECRET"},
    }
    generate_into(tmp_path, snapshot_of([{"name": "echo", "inputSchema": {"type": "object"}}], launch=launch), "pkg")
    for path in (tmp_path / "pkg").rglob("*"):
        if path.is_file():
            assert MACHINE_SECRET.encode() not in path.read_bytes(), path
