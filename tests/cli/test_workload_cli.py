"""`--auth workload` on the command line: generate and check in CI with the platform's token, recorded by name only.

Against tests/servers/oauth_server.py with its jwt-bearer grant (ES256 assertions, this server as audience).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from servers.oauth_server import serve_oauth

from cli.test_cli import PYTHON, assert_fails, run
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import resolve_server, validate_config
from mcp_codegen.inputs.launch import AuthRecord, HttpLaunch, LaunchRecord, auth_spec, parse_http


def test_the_record_names_the_token_file_or_variable_never_the_token() -> None:
    spec = auth_spec("workload", workload_token_env="ACTIONS_OIDC_TOKEN", client_id="ci")
    record = parse_http("https://mcp.example.com/mcp", (), "auto", spec).record()
    assert record.as_json()["auth"] == {
        "kind": "workload",
        "clientId": "ci",
        "scopes": None,
        "clientSecretEnv": None,
        "workloadTokenEnv": "ACTIONS_OIDC_TOKEN",
    }
    assert LaunchRecord.from_json(record.as_json()) == record


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "needs one of --workload-token-file and --workload-token-env"),
        ({"workload_token_file": "/t", "workload_token_env": "T"}, "needs one of"),
        ({"workload_token_env": "not a name"}, "must be a variable name"),
    ],
)
def test_workload_options_are_checked(arguments: dict[str, str], fragment: str) -> None:
    with pytest.raises(UsageError, match=fragment):
        auth_spec("workload", environ={}, **arguments)  # type: ignore[arg-type]


def test_the_workload_options_go_with_auth_workload() -> None:
    with pytest.raises(UsageError, match="go with --auth workload"):
        auth_spec("oauth", workload_token_file="/t")
    assert_fails(
        run("snapshot", "--url", "http://127.0.0.1:9/mcp", "--workload-token-env", "T", "-o", "s.json"),
        2,
        "go with --auth",
    )


def test_generate_and_connect_with_the_platform_token(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    config = {"MCP_CODEGEN_CONFIG_DIR": str(tmp_path / "config"), "MCP_CODEGEN_TOKEN_STORE": "file"}
    with serve_oauth(workload_key=public.decode()) as server:
        now = int(time.time())
        claims = {"iss": "https://token.actions.example", "sub": "ci-job", "aud": server.base_url, "iat": now}
        token = jwt.encode({**claims, "exp": now + 300}, key, algorithm="ES256")
        env = {**config, "PLATFORM_OIDC_TOKEN": token}
        package = tmp_path / "workload_client"
        options = ["--url", server.url, "--auth", "workload", "--workload-token-env", "PLATFORM_OIDC_TOKEN"]
        generated = run("generate", *options, "-o", str(package), "-q", env=env)
        assert generated.returncode == 0, generated.stderr
        checked = run("check", "--against", str(package), env=env)  # the recorded server and auth
        assert checked.returncode == 0, checked.stderr
        recorded = json.loads((package / "snapshot.json").read_text(encoding="utf-8"))["launch"]["auth"]
        assert recorded["kind"] == "workload" and recorded["workloadTokenEnv"] == "PLATFORM_OIDC_TOKEN"
        program = (
            "import asyncio, workload_client\n"
            "async def main():\n"
            "    async with workload_client.AsyncClient.connect() as client:\n"
            "        print(await client.whoami())\n"
            "asyncio.run(main())\n"
        )
        used = subprocess.run(
            [PYTHON, "-c", program],
            cwd=tmp_path,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert used.returncode == 0, used.stderr
        assert "ci-job" in used.stdout
        assert server.provider.grants and set(server.provider.grants) == {"urn:ietf:params:oauth:grant-type:jwt-bearer"}
        assert not server.provider.clients  # never a registration
        texts = [generated.stdout, generated.stderr, checked.stdout, checked.stderr, used.stderr]
        texts += [path.read_text("utf-8", errors="replace") for path in tmp_path.rglob("*") if path.is_file()]
        assert not any(token in text for text in texts), "the platform token was written"


def test_a_config_auth_table_names_the_workload_token() -> None:
    cfg = validate_config(
        {
            "servers": {
                "ci": {"url": "https://mcp.example.com/mcp", "auth": {"kind": "workload", "workload_token_env": "T"}}
            }
        },
        where="test",
    )
    launch, _, _ = resolve_server(cfg, "ci")
    assert isinstance(launch, HttpLaunch) and launch.auth is not None
    assert launch.record().auth == AuthRecord("workload", None, None, None, None, "T")
