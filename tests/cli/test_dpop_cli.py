"""`--dpop/--no-dpop` on the commands that reach a server by --url, and on `auth login`: parsed, recorded, used.

The login runs against the OAuth test server behind the DPoP gate (tests/servers/dpop_gate.py) on 127.0.0.1,
followed headlessly as in test_auth_cli.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from servers.dpop_gate import DPoPGate
from servers.oauth_server import serve_oauth

from cli.test_auth_cli import login_headlessly
from cli.test_cli import assert_fails, run
from mcp_codegen.inputs.launch import AuthRecord, HttpLaunch, LaunchRecord, auth_spec


@pytest.mark.parametrize("dpop", [True, False])
def test_a_chosen_dpop_is_recorded_and_read_back(dpop: bool) -> None:
    record = HttpLaunch(url="https://mcp.example.com/mcp", auth=auth_spec("oauth", dpop=dpop)).record()
    assert record.auth == AuthRecord("oauth", dpop=dpop)
    assert record.as_json()["auth"]["dpop"] is dpop
    assert LaunchRecord.from_json(record.as_json()) == record


def test_dpop_left_to_the_server_is_not_recorded() -> None:
    record = HttpLaunch(url="https://mcp.example.com/mcp", auth=auth_spec("oauth")).record()
    assert "dpop" not in record.as_json()["auth"]


@pytest.mark.parametrize("flag", ["--dpop", "--no-dpop"])
def test_dpop_without_auth_is_a_usage_error(tmp_path: Path, flag: str) -> None:
    result = run("snapshot", "--url", "http://127.0.0.1:9/mcp", flag, "-o", str(tmp_path / "s.json"))
    assert_fails(result, 2, "go with --auth")


def test_auth_login_with_dpop_stores_a_dpop_bound_token(tmp_path: Path) -> None:
    env = {"MCP_CODEGEN_CONFIG_DIR": str(tmp_path / "config"), "MCP_CODEGEN_TOKEN_STORE": "file"}
    gate = DPoPGate(advertise=False)  # only --dpop asks for a bound token here
    with serve_oauth(wrap=gate.wrap) as server:
        login = login_headlessly("auth", "login", server.url, "--dpop", env=env)
        assert login.returncode == 0, login.stderr
        status = run("auth", "status", server.url, "--format", "json", env=env)
    assert status.returncode == 0, status.stderr
    [entry] = json.loads(status.stdout)
    assert entry["dpopBound"] is True
    assert gate.token_requests_with_proof == 1 and set(gate.schemes) == {"DPoP"}
