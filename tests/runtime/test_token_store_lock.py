"""Two processes refreshing one server's stored token at once both end logged in (rotating refresh tokens).

Against tests/servers/oauth_server.py, whose refresh tokens are valid once. Without the store's lock both
processes send the same refresh token; the second is refused and would need a new login.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from auth_helpers import Headless, text_of
from fakepkg import AsyncClient
from servers.oauth_server import RunningServer, serve_oauth

from mcp_codegen.runtime import TokenStore, oauth

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path

    import anyio
    from fakepkg import AsyncClient
    from mcp_codegen.runtime import stored

    import mcp.client.streamable_http  # imported before the barrier so neither process is held up by it
    import mcp.client.session

    url, mine, theirs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    auth = stored(url)
    mine.touch()
    while not theirs.exists():  # both start their first request at the same moment
        time.sleep(0.001)

    async def main() -> None:
        async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=30) as client:
            print((await client.call_raw("whoami")).text)

    anyio.run(main)
    """
)


@pytest.fixture
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    monkeypatch.setenv("MCP_CODEGEN_CONFIG_DIR", str(config))
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "file")
    return config / "auth"


@pytest.fixture
def server() -> Iterator[RunningServer]:
    with serve_oauth() as running:
        yield running


async def test_two_processes_refreshing_one_stored_token_both_stay_logged_in(
    server: RunningServer, token_dir: Path, tmp_path: Path
) -> None:
    flow = Headless()
    auth = oauth(server.url, redirect_handler=flow.redirect, callback_handler=flow.callback)
    async with AsyncClient.http(server.url, auth=auth, drift_check=False) as client:
        client_id = text_of(await client.call_raw("whoami"))
    store = TokenStore.for_url(server.url)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests" / "runtime")])}
    for round_ in range(3):
        record = json.loads(store.path.read_text())
        record["expiresAt"] = 1.0  # expired: the next request of each process refreshes first
        store.path.write_text(json.dumps(record))
        barrier = [tmp_path / f"ready-{round_}-{side}" for side in ("a", "b")]
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", PROGRAM, server.url, str(mine), str(theirs)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=environment,
            )
            for mine, theirs in (barrier, barrier[::-1])
        ]
        for process in processes:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err[-2000:]
            assert out.strip() == client_id
        stored_tokens = json.loads(store.path.read_text())["tokens"]
        assert stored_tokens["refresh_token"] in server.provider.refresh  # the file holds the live one
    assert flow.logins == 1  # never a second login
    assert server.provider.issued["refresh_token"] == 3  # one refresh per round, shared by both
