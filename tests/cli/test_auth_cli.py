"""`--auth` on snapshot/generate/check and `mcp-codegen auth login|status|logout`, as users run them.

The option plumbing and what gets recorded need no server; the flows run against the OAuth-protected
test server (`servers.oauth_server`: the SDK's own authorization server and bearer middleware, on
127.0.0.1), logging in headlessly by following the printed authorization URL over HTTP.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import prewarmed
import pytest
from servers.oauth_server import RunningServer, serve_oauth

from cli.test_cli import PYTHON, assert_fails, run
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import resolve_server, validate_config
from mcp_codegen.inputs.launch import AuthRecord, HttpLaunch, LaunchRecord, auth_spec, parse_http

SECRET = "SENTINEL-CLIENT-SECRET-321"

# --------------------------------------------------------------------------------------------------
# What is recorded: the kind, client id, scopes and the secret's variable name, never the secret
# --------------------------------------------------------------------------------------------------


def test_the_record_names_the_secret_variable_never_the_secret() -> None:
    spec = auth_spec(
        "client-credentials",
        client_id="ci-bot",
        client_secret_env="MY_SECRET",
        scopes=("read", "write", "read"),
        environ={"MY_SECRET": SECRET},
    )
    assert spec.client_secret == SECRET and SECRET not in repr(spec)
    launch = parse_http("https://mcp.example.com/mcp", (), "auto", spec)
    assert SECRET not in repr(launch)
    record = launch.record()
    assert record.as_json()["auth"] == {
        "kind": "client-credentials",
        "clientId": "ci-bot",
        "scopes": ["read", "write"],
        "clientSecretEnv": "MY_SECRET",
    }
    assert SECRET not in json.dumps(record.as_json())
    assert LaunchRecord.from_json(record.as_json()) == record


def test_a_literal_client_secret_is_used_but_not_recorded() -> None:
    spec = auth_spec("oauth", client_id="app", client_secret=SECRET)
    record = HttpLaunch(url="https://mcp.example.com/mcp", auth=spec).record()
    assert record.auth == AuthRecord("oauth", "app", None, None)
    assert SECRET not in json.dumps(record.as_json())


def test_without_auth_the_record_has_no_auth_entry() -> None:
    assert "auth" not in HttpLaunch(url="https://mcp.example.com/mcp").record().as_json()


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"kind": "client-credentials", "client_id": "x"}, "needs --client-id and --client-secret-env"),
        ({"kind": "oauth", "client_secret_env": "UNSET_SECRET_VARIABLE", "client_id": "x"}, "is not set"),
        ({"kind": "oauth", "client_secret_env": "not a name", "client_id": "x"}, "must be a variable name"),
        ({"kind": "oauth", "client_secret": "s3cret-value"}, "needs --client-id"),
        ({"kind": "oauth", "store": "cloud"}, "unknown token store"),
    ],
)
def test_auth_spec_errors_name_options_never_values(arguments: dict[str, str], fragment: str) -> None:
    kind = arguments.pop("kind")
    with pytest.raises(UsageError) as caught:
        auth_spec(kind, environ={}, **arguments)  # type: ignore[arg-type]
    assert fragment in str(caught.value)
    assert "s3cret-value" not in str(caught.value)


def test_config_auth_table_resolves_to_an_auth_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI_SECRET", SECRET)
    cfg = validate_config(
        {
            "servers": {
                "remote": {
                    "url": "https://mcp.example.com/mcp",
                    "auth": {
                        "kind": "client-credentials",
                        "client_id": "ci",
                        "client_secret_env": "CI_SECRET",
                        "scopes": ["read"],
                    },
                }
            }
        },
        where="test",
    )
    launch, _, _ = resolve_server(cfg, "remote")
    assert isinstance(launch, HttpLaunch) and launch.auth is not None
    assert launch.auth.client_secret == SECRET
    assert launch.record().auth == AuthRecord("client-credentials", "ci", ("read",), "CI_SECRET")


@pytest.mark.parametrize(
    ("server", "fragment"),
    [
        ({"command": "x", "auth": {"kind": "oauth"}}, "'auth' goes with 'url'"),
        ({"url": "https://a.example/mcp", "auth": {"kind": "client-credentials"}}, "needs 'client_id'"),
        ({"url": "https://a.example/mcp", "auth": {"kind": "password"}}, "servers.s.auth.kind"),
        ({"url": "https://a.example/mcp", "auth": {"kind": "oauth", "secret": "x"}}, "unknown key"),
    ],
)
def test_config_auth_table_errors(server: dict[str, object], fragment: str) -> None:
    with pytest.raises(UsageError) as caught:
        validate_config({"servers": {"s": server}}, where="test")
    assert fragment in str(caught.value)


# --------------------------------------------------------------------------------------------------
# Usage errors on the command line (exit 2, one line, no secret)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["--stdio", "python -m x", "--auth", "oauth"], "--auth goes with --url"),
        (["--url", "http://127.0.0.1:9/mcp", "--client-id", "x"], "go with --auth"),
        (["--url", "http://127.0.0.1:9/mcp", "--auth", "client-credentials", "--client-id", "x"], "needs --client-id"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--auth", "oauth", "-H", "Authorization: Bearer x"],
            "both authorize",
        ),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--auth", "oauth", "--client-secret", SECRET],
            "a client secret needs --client-id",
        ),
    ],
)
def test_auth_usage_errors(tmp_path: Path, arguments: list[str], fragment: str) -> None:
    result = run("snapshot", *arguments, "-o", str(tmp_path / "s.json"))
    line = assert_fails(result, 2, fragment)
    assert SECRET not in line


def test_auth_status_of_an_unknown_server_exits_1(tmp_path: Path) -> None:
    result = run("auth", "status", "http://127.0.0.1:9/mcp", env={"MCP_CODEGEN_CONFIG_DIR": str(tmp_path)})
    assert result.returncode == 1, result.stderr
    assert "no tokens stored" in result.stdout


# --------------------------------------------------------------------------------------------------
# Against the OAuth-protected test server (the SDK's authorization server, on 127.0.0.1)
# --------------------------------------------------------------------------------------------------

CLIENT_ID = "ci-bot"
LOGIN_LINE = "to authorize, open this URL in a browser: "


@pytest.fixture
def config_dir(tmp_path: Path) -> dict[str, str]:
    """The environment that keeps tokens in a file store under this test's directory."""
    return {"MCP_CODEGEN_CONFIG_DIR": str(tmp_path / "config"), "MCP_CODEGEN_TOKEN_STORE": "file"}


@pytest.fixture
def oauth_server() -> Iterator[RunningServer]:
    with serve_oauth(clients={CLIENT_ID: (SECRET, None)}) as server:
        yield server


def login_headlessly(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `mcp-codegen ARGS --no-browser` and be its browser: follow the printed URL over HTTP.

    The test server's authorize endpoint approves at once and redirects to the CLI's loopback listener.
    """
    process = subprocess.Popen(
        [PYTHON, "-m", "mcp_codegen", *arguments, "--no-browser"],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen: list[str] = []
    try:
        for line in process.stderr:
            seen.append(line)
            if LOGIN_LINE in line:
                authorize = line.split(LOGIN_LINE, 1)[1].strip()
                with urllib.request.urlopen(authorize, timeout=30) as response:  # noqa: S310 (127.0.0.1)
                    assert response.status == 200
                break
        stdout, rest = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, "".join(seen) + rest)


FAKE_BROWSER = str(Path(__file__).with_name("fake_browser.py"))


def in_terminal(
    *arguments: str, env: dict[str, str], browser: str = "visit", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `mcp-codegen ARGS` as a person at a terminal would: stdin a pseudo-terminal, CI unset, and a browser
    (`fake_browser.py`: it follows the authorization URL; `browser="idle"`: it never comes back)."""
    import pty

    leader, follower = pty.openpty()
    base = {key: value for key, value in os.environ.items() if key != "CI"}
    opener = f"{PYTHON} {FAKE_BROWSER} {'--idle ' if browser == 'idle' else ''}%s"
    try:
        return subprocess.run(
            prewarmed.command(["-m", "mcp_codegen", *arguments]),
            env={**base, **env, "BROWSER": opener},
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    finally:
        os.close(leader)
        os.close(follower)


def stored_tokens(env: dict[str, str]) -> list[str]:
    """The token values the file store holds (to prove they appear nowhere else)."""
    found = []
    for path in (Path(env["MCP_CODEGEN_CONFIG_DIR"]) / "auth").glob("*.json"):
        tokens = json.loads(path.read_text(encoding="utf-8")).get("tokens") or {}
        found += [value for key, value in tokens.items() if key.endswith("_token") and value]
    return found


def test_without_auth_a_401_with_an_oauth_challenge_suggests_auth_oauth(
    oauth_server: RunningServer, tmp_path: Path
) -> None:
    result = run("snapshot", "-q", "--url", oauth_server.url, "-o", str(tmp_path / "s.json"))
    assert_fails(result, 3, "HTTP 401", "asks for OAuth", "--auth oauth", f"mcp-codegen auth login {oauth_server.url}")


def test_login_then_snapshot_generate_and_connect_with_the_stored_token(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    url = oauth_server.url
    login = login_headlessly("auth", "login", url, "--scope", "mcp", env=config_dir)
    assert login.returncode == 0, login.stderr
    assert f"logged in to {url}" in login.stderr
    [path] = (Path(config_dir["MCP_CODEGEN_CONFIG_DIR"]) / "auth").glob("*.json")
    assert path.stat().st_mode & 0o077 == 0  # readable by the user alone
    tokens = stored_tokens(config_dir)
    assert tokens

    status = run("auth", "status", url, "--format", "json", env=config_dir)
    assert status.returncode == 0, status.stderr
    [entry] = json.loads(status.stdout)
    assert entry["server"] == url and entry["hasToken"] and entry["refreshable"] and entry["clientId"]
    assert entry["scopes"] == ["mcp"] and entry["backend"] == "file"
    listing = run("auth", "status", env=config_dir)
    assert listing.returncode == 0 and url in listing.stdout and "expires in" in listing.stdout
    assert listing.stdout.rstrip().endswith(f"in the file {path}") and entry["path"] == str(path)

    # The stored token is used: no login URL, no browser, stdin closed.
    snapshot = tmp_path / "s.json"
    taken = run("snapshot", "--url", url, "--auth", "oauth", "--no-browser", "-o", str(snapshot), env=config_dir)
    assert taken.returncode == 0, taken.stderr
    assert LOGIN_LINE not in taken.stderr
    recorded = json.loads(snapshot.read_text(encoding="utf-8"))["launch"]
    assert recorded["auth"] == {"kind": "oauth", "clientId": None, "scopes": None, "clientSecretEnv": None}

    package = tmp_path / "protected_client"
    generated = run("generate", "--url", url, "--auth", "oauth", "-o", str(package), "-q", env=config_dir)
    assert generated.returncode == 0, generated.stderr
    everything = [taken.stdout, taken.stderr, generated.stdout, generated.stderr, status.stdout, listing.stdout]
    everything += [snapshot.read_text(encoding="utf-8"), *(p.read_text("utf-8") for p in package.rglob("*.py"))]
    for token in tokens:
        assert not any(token in text for text in everything), "a token leaked"

    # The generated client's connect() finds the stored token for the recorded URL.
    program = (
        "import asyncio, protected_client\n"
        "async def main():\n"
        "    async with protected_client.AsyncClient.connect() as client:\n"
        "        print(await client.whoami())\n"
        "asyncio.run(main())\n"
    )
    used = subprocess.run(
        [PYTHON, "-c", program],
        cwd=tmp_path,
        env={**os.environ, **config_dir},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert used.returncode == 0, used.stderr
    assert "Traceback" not in used.stderr

    logout = run("auth", "logout", url, env=config_dir)
    assert logout.returncode == 0 and "removed the stored tokens" in logout.stderr
    assert run("auth", "status", url, env=config_dir).returncode == 1
    again = subprocess.run(
        [PYTHON, "-c", program],
        cwd=tmp_path,
        env={**os.environ, **config_dir},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode != 0 and f"mcp-codegen auth login {url}" in again.stderr


def test_snapshot_with_auth_oauth_logs_in_when_nothing_is_stored(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    snapshot = tmp_path / "s.json"
    result = in_terminal("snapshot", "--url", oauth_server.url, "--auth", "oauth", "-o", str(snapshot), env=config_dir)
    assert result.returncode == 0, result.stderr
    assert json.loads(snapshot.read_text(encoding="utf-8"))["serverInfo"]
    assert run("auth", "status", oauth_server.url, env=config_dir).returncode == 0


def test_client_credentials_for_ci_never_show_the_secret_or_the_token(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    env = {**config_dir, "CI_CLIENT_SECRET": SECRET}
    snapshot = tmp_path / "s.json"
    flags = ["--auth", "client-credentials", "--client-id", CLIENT_ID, "--client-secret-env", "CI_CLIENT_SECRET"]
    taken = run("snapshot", "--url", oauth_server.url, *flags, "--scope", "mcp", "-o", str(snapshot), env=env)
    assert taken.returncode == 0, taken.stderr
    assert json.loads(snapshot.read_text(encoding="utf-8"))["launch"]["auth"] == {
        "kind": "client-credentials",
        "clientId": CLIENT_ID,
        "scopes": ["mcp"],
        "clientSecretEnv": "CI_CLIENT_SECRET",
    }
    package = tmp_path / "ci_client"
    generated = run("generate", "--snapshot", str(snapshot), "-o", str(package), "-q", env=env)
    assert generated.returncode == 0, generated.stderr
    check = run("check", "--against", str(package), env=env)  # the recorded server, auth and secret variable
    assert check.returncode == 0, check.stderr
    wrong = run(
        "snapshot",
        "-q",
        "--url",
        oauth_server.url,
        *flags,
        "-o",
        str(tmp_path / "w.json"),
        # A fresh token store: the token stored above would be used (it is still valid).
        env={**env, "CI_CLIENT_SECRET": "SENTINEL-WRONG-SECRET", "MCP_CODEGEN_CONFIG_DIR": str(tmp_path / "other")},
    )
    line = assert_fails(wrong, 3, oauth_server.url, "OAuth failed", "invalid_client")
    assert "SENTINEL-WRONG-SECRET" not in line
    secrets = [SECRET, *stored_tokens(config_dir)]
    outputs = [taken.stdout, taken.stderr, generated.stderr, check.stdout, check.stderr, wrong.stderr]
    outputs += [snapshot.read_text("utf-8"), *(p.read_text("utf-8") for p in package.rglob("*.py"))]
    for secret in secrets:
        assert not any(secret in text for text in outputs), "a secret leaked"


def test_refused_stored_tokens_lead_to_a_new_login_and_are_never_shown(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    """Sentinel tokens in the store (refused by the server, refresh refused too): a new login, and the
    sentinels appear in no output, snapshot or status."""
    import anyio
    from mcp.shared.auth import OAuthToken

    from mcp_codegen_runtime.auth import TokenStore

    access, refresh = "SENTINEL-ACCESS-TOKEN-555", "SENTINEL-REFRESH-TOKEN-666"
    store = TokenStore.for_url(
        oauth_server.url, backend="file", directory=Path(config_dir["MCP_CODEGEN_CONFIG_DIR"]) / "auth"
    )
    anyio.run(store.set_tokens, OAuthToken(access_token=access, refresh_token=refresh, expires_in=3600))
    status = run("auth", "status", oauth_server.url, "--format", "json", env=config_dir)
    assert status.returncode == 0 and json.loads(status.stdout)[0]["hasToken"]

    snapshot = tmp_path / "s.json"
    taken = in_terminal("snapshot", "--url", oauth_server.url, "--auth", "oauth", "-o", str(snapshot), env=config_dir)
    assert taken.returncode == 0, taken.stderr
    assert access not in stored_tokens(config_dir)
    for text in (status.stdout, status.stderr, taken.stdout, taken.stderr, snapshot.read_text("utf-8")):
        assert access not in text and refresh not in text


def test_login_to_a_server_without_auth_stores_nothing(demo_http_url: str, config_dir: dict[str, str]) -> None:
    result = run("auth", "login", demo_http_url, "--no-browser", env=config_dir)
    assert result.returncode == 0, result.stderr
    assert "did not ask for authorization: nothing was stored" in result.stderr
    assert run("auth", "status", env=config_dir).returncode == 1


# --------------------------------------------------------------------------------------------------
# No person at hand: never wait for a browser; a token stored by `auth login` is used without --auth
# --------------------------------------------------------------------------------------------------


def nobody_at(arguments: list[str], how: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`mcp-codegen ARGS` where no person can finish a login: stdin not a terminal, --no-browser, or CI set
    (a subprocess timeout of 60 s fails the test if it waits for the browser, 300 s by default)."""
    if how == "no terminal":
        return run(*arguments, env={**env, "CI": ""}, timeout=60)
    if how == "--no-browser":
        return in_terminal(*arguments, "--no-browser", env=env)
    return in_terminal(*arguments, env={**env, "CI": "true"})


@pytest.mark.parametrize(
    ("how", "reason"),
    [("no terminal", "stdin is not a terminal"), ("--no-browser", "--no-browser"), ("CI", "CI is set")],
)
def test_without_a_person_an_oauth_login_fails_at_once_saying_what_to_do(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str], how: str, reason: str
) -> None:
    url = oauth_server.url
    for arguments in (
        ["generate", "--url", url, "--auth", "oauth", "-o", str(tmp_path / "pkg")],
        ["snapshot", "--url", url, "--auth", "oauth", "--timeout", "5", "-o", str(tmp_path / "s.json")],
        [
            "check",
            "--url",
            url,
            "--auth",
            "oauth",
            "--against",
            str(Path(__file__).parents[2] / "generated_examples/demo_client"),
        ],
    ):
        result = nobody_at(arguments, how, config_dir)
        expected = 2 if arguments[0] == "check" else 3  # a drift command that cannot compare exits 2
        lines = [line for line in result.stderr.splitlines() if "error:" in line]
        assert result.returncode == expected and lines, result.stderr
        assert f"needs an OAuth login, and this run cannot wait for one ({reason})" in lines[-1]
        assert f"run `mcp-codegen auth login {url}` first" in lines[-1]
        assert "--auth client-credentials --client-id ID --client-secret-env VAR" in lines[-1]
        assert LOGIN_LINE not in result.stderr
    assert run("auth", "status", url, env=config_dir).returncode == 1  # nothing was registered or stored


def test_check_against_a_package_recorded_with_oauth_fails_at_once_without_a_person(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    url = oauth_server.url
    package = tmp_path / "protected_client"
    made = in_terminal("generate", "--url", url, "--auth", "oauth", "-o", str(package), "-q", env=config_dir)
    assert made.returncode == 0, made.stderr
    assert run("check", "--against", str(package), env=config_dir).returncode == 0  # the stored token
    assert run("auth", "logout", url, env=config_dir).returncode == 0
    result = run("check", "--against", str(package), env={**config_dir, "CI": ""}, timeout=60)
    assert_fails(result, 2, "this run cannot wait for one (stdin is not a terminal)", f"mcp-codegen auth login {url}")


def test_an_interactive_login_waits_at_most_login_timeout(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    arguments = ["snapshot", "-q", "--url", oauth_server.url, "--auth", "oauth", "--login-timeout", "2"]
    result = in_terminal(*arguments, "-o", str(tmp_path / "s.json"), env=config_dir, browser="idle")
    assert result.returncode == 3, result.stderr
    assert "no OAuth redirect within 2 s (the login was not finished)" in result.stderr
    assert "did not give a token the server accepts" not in result.stderr


def test_a_token_stored_by_auth_login_is_used_without_auth_and_refused_with_auth_none(
    oauth_server: RunningServer, tmp_path: Path, config_dir: dict[str, str]
) -> None:
    url = oauth_server.url
    login = login_headlessly("auth", "login", url, env=config_dir)
    assert login.returncode == 0, login.stderr
    snapshot = tmp_path / "s.json"
    taken = run("snapshot", "-q", "--url", url, "-o", str(snapshot), env=config_dir)
    assert taken.returncode == 0, taken.stderr
    assert "auth" not in json.loads(snapshot.read_text("utf-8"))["launch"]  # the package finds the token itself
    package = tmp_path / "plain_client"
    generated = run("generate", "-q", "--url", url, "-o", str(package), env=config_dir)
    assert generated.returncode == 0, generated.stderr
    checked = run("check", "--url", url, "--against", str(package), env=config_dir)
    assert checked.returncode == 0, checked.stderr
    assert run("check", "--against", str(package), env=config_dir).returncode == 0
    for token in stored_tokens(config_dir):
        assert token not in taken.stderr + generated.stderr + checked.stdout + snapshot.read_text("utf-8")
    refused = run("snapshot", "-q", "--url", url, "--auth", "none", "-o", str(tmp_path / "n.json"), env=config_dir)
    assert_fails(refused, 3, "HTTP 401", "the server asks for OAuth")
    misused = run("snapshot", "--url", url, "--auth", "none", "--scope", "mcp", "-o", str(tmp_path / "m.json"))
    assert_fails(misused, 2, "go with --auth oauth, --auth client-credentials or --auth workload")
