"""`--auth` on snapshot/generate/check and `mcp-codegen auth login|status|logout`, as users run them.

The option plumbing and what gets recorded need no server; the flows run against the OAuth-protected
test server (`servers.oauth_server`: the SDK's own authorization server and bearer middleware, on
127.0.0.1), logging in headlessly by following the printed authorization URL over HTTP.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.test_cli import assert_fails, run
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
