"""Issue 57: a literal token in `-H` is recorded like a launch secret, and a 401 is called OAuth only when it is.

A real SDK server over streamable HTTP on 127.0.0.1 sits behind a static-token check whose 401 carries a plain
`WWW-Authenticate: Bearer` (no resource metadata, no OAuth metadata anywhere). `generate -H "Authorization:
Bearer <token>"` records `Bearer ${AUTHORIZATION}` with a `secret-in-command` warning and a README entry, writes
the token nowhere, and the package's `connect()` reads the token back (or names the variable it lacks). Without
the header, `generate`, `check` and `connect()` all say the server wants a bearer token; the OAuth test server's
401 is still called OAuth by each of them.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli.test_cli import PYTHON, assert_fails, run
from servers.helpers import RequireHeaders, serve_app
from servers.oauth_server import RunningServer, serve_oauth

from mcp_codegen.demo.server import build_server

TOKEN = "SENTINEL-BEARER-" + "7Qx2Lm9Tz4Rb8Kw1"
BEARER_HINT = "this server wants a bearer token: pass `-H 'Authorization: Bearer ${VAR}'`"


@pytest.fixture(scope="module")
def plain_bearer() -> Iterator[tuple[str, RequireHeaders]]:
    """The demo server over streamable HTTP, accepting one static token; its 401 says only `Bearer`."""
    app = build_server().streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    guarded = RequireHeaders(app, {"Authorization": f"Bearer {TOKEN}"}, challenge="Bearer")
    with serve_app(guarded) as base:
        yield base + "/mcp", guarded


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[RunningServer]:
    with serve_oauth() as running:
        yield running


def connect_and_add(
    package: Path, env: dict[str, str], *, launch: dict[str, object] | None = None
) -> subprocess.CompletedProcess[str]:
    """`Client.connect()` of the generated package (its recorded launch, or `launch` instead), then `add(2, 3)`."""
    program = f"import {package.name}\n"
    if launch is not None:
        program += f"{package.name}.AsyncClient._launch = {launch!r}\n"
    program += (
        "from mcp_codegen_runtime.calls.errors import ConnectError\n"
        "try:\n"
        f"    with {package.name}.Client.connect(timeout=30) as client:\n"
        "        print(client.add(a=2, b=3))\n"
        "except ConnectError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    clean = {key: value for key, value in os.environ.items() if key != "AUTHORIZATION"}
    return subprocess.run(
        [PYTHON, "-c", program],
        cwd=package.parent,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def everything_under(root: Path) -> bytes:
    return b"\n".join(path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file())


def test_a_literal_bearer_token_is_a_named_placeholder_that_connect_reads_back(
    plain_bearer: tuple[str, RequireHeaders], tmp_path: Path
) -> None:
    url, _guard = plain_bearer
    package = tmp_path / "bearer_client"
    cache = tmp_path / "cache"
    generated = run(
        "generate", "--url", url, "-H", f"Authorization: Bearer {TOKEN}", "-o", str(package),
        env={"MCP_CODEGEN_CACHE_DIR": str(cache)},
    )  # fmt: skip
    assert generated.returncode == 0, generated.stderr
    assert "warning[secret-in-command]: launch.headers: a secret in the header Authorization is recorded as" in (
        generated.stderr
    )
    assert "${AUTHORIZATION}" in generated.stderr
    for part in (TOKEN, TOKEN[:12], TOKEN[12:]):
        assert part.encode() not in everything_under(package)
        assert not cache.exists() or part.encode() not in everything_under(cache)
        assert part not in generated.stdout + generated.stderr
    launch = json.loads((package / "snapshot.json").read_text("utf-8"))["launch"]
    assert launch["headers"] == [{"name": "Authorization", "template": "Bearer ${AUTHORIZATION}"}]
    readme = (package / "README.md").read_text("utf-8")
    assert "- `AUTHORIZATION` (required): the header `Authorization`" in readme

    missing = connect_and_add(package, {})
    assert missing.returncode == 0, missing.stderr
    assert missing.stdout.startswith("MissingVariableError header 'Authorization' needs the environment variable"), (
        missing.stdout
    )
    assert "${AUTHORIZATION}" in missing.stdout and TOKEN not in missing.stdout + missing.stderr
    connected = connect_and_add(package, {"AUTHORIZATION": TOKEN})
    assert connected.returncode == 0, connected.stderr
    assert connected.stdout.strip() == "5", connected.stdout + connected.stderr

    checked = run("check", "--against", str(package), env={"AUTHORIZATION": TOKEN})
    assert checked.returncode == 0, checked.stderr


def test_a_users_own_name_for_the_token_is_kept(plain_bearer: tuple[str, RequireHeaders], tmp_path: Path) -> None:
    url, _guard = plain_bearer
    snapshot = tmp_path / "s.json"
    taken = run(
        "snapshot", "-q", "--url", url, "-H", "Authorization: Bearer ${MY_TOKEN}", "-o", str(snapshot),
        env={"MY_TOKEN": TOKEN},
    )  # fmt: skip
    assert taken.returncode == 0, taken.stderr
    assert "secret-in-command" not in taken.stderr
    launch = json.loads(snapshot.read_text("utf-8"))["launch"]
    assert launch["headers"] == [{"name": "Authorization", "template": "Bearer ${MY_TOKEN}"}]


def test_a_plain_bearer_401_asks_for_a_header_in_generate_check_and_connect(
    plain_bearer: tuple[str, RequireHeaders], tmp_path: Path
) -> None:
    url, guard = plain_bearer
    generated = run("generate", "-q", "--url", url, "-o", str(tmp_path / "out"))
    line = assert_fails(generated, 3, "HTTP 401", BEARER_HINT)
    assert "asks for OAuth" not in line and "auth login" not in line
    assert any(path.startswith("/.well-known/oauth-") for path in guard.refused)  # the metadata was asked for

    package = tmp_path / "bearer_client"
    made = run("generate", "-q", "--url", url, "-H", f"Authorization: Bearer {TOKEN}", "-o", str(package))
    assert made.returncode == 0, made.stderr
    checked = run("check", "-q", "--url", url, "--against", str(package))
    line = assert_fails(checked, 2, "HTTP 401", BEARER_HINT)  # check's own exit code for a failed comparison
    assert "asks for OAuth" not in line

    # A package recorded without the header (as before issue 57): connect() names the header, not a login.
    bare = connect_and_add(package, {}, launch={"transport": "http", "url": url})
    assert bare.returncode == 0, bare.stderr
    assert bare.stdout.startswith("BearerTokenRequiredError"), bare.stdout + bare.stderr
    assert BEARER_HINT in bare.stdout and "auth login" not in bare.stdout


def test_the_oauth_servers_401_is_still_called_oauth(oauth_server: RunningServer, tmp_path: Path) -> None:
    generated = run("generate", "-q", "--url", oauth_server.url, "-o", str(tmp_path / "out"))
    line = assert_fails(generated, 3, "HTTP 401", "asks for OAuth", "--auth oauth")
    assert "bearer token" not in line
    package = tmp_path / "demo_client"
    made = run("generate", "-q", "--stdio", f"{PYTHON} -m mcp_codegen.demo", "-o", str(package))
    assert made.returncode == 0, made.stderr
    recorded = connect_and_add(
        package,
        {"MCP_CODEGEN_CONFIG_DIR": str(tmp_path / "config")},
        launch={"transport": "http", "url": oauth_server.url},
    )
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout.startswith("AuthRequiredError no OAuth token is stored"), recorded.stdout + recorded.stderr
