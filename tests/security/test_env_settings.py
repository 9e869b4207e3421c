"""Issue 57: settings given with `-e` (or a config's `env`) are kept as written, secrets are recorded by name.

A real stdio server (`env_server.py`) refuses to start without its setting (as backlog-mcp-server does without
BACKLOG_DOMAIN) and answers with any variable's value, so each test sees both sides: what the generator wrote
(the settings, never a secret) and what the generated client's `connect()` gives the server (the settings as
recorded, the secret read from the environment).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli.test_cli import PYTHON, assert_fails, run

from mcp_codegen.inputs.launch import choose_env, parse_stdio
from mcp_codegen.inputs.mcp_json import parse_mcp_json, starter_config_toml
from mcp_codegen.inputs.redaction import secret_setting

SERVER = str(Path(__file__).with_name("env_server.py"))
API_KEY = "SENTINEL-API-" + "Kq83LmZ2pWx7Rt4Vn9Bc"
SETTINGS = {"ALPACA_PAPER_TRADE": "True", "BACKLOG_DOMAIN": "acme.backlog.com", "MAX_TOKENS": "50000"}


def env_pairs(env: dict[str, str]) -> list[str]:
    return [item for name, value in env.items() for item in ("-e", f"{name}={value}")]


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("ALPACA_PAPER_TRADE", "True", False),
        ("BACKLOG_DOMAIN", "your-domain.backlog.com", False),
        ("MYSQL_USER", "root", False),
        ("KUBECONFIG", "/Users/dev/.kube/config", False),
        ("REDIS_SSL_KEYFILE", "/path/to/key.pem", False),
        ("GITHUB_TOOLSETS", "repos,issues", False),
        ("LOG_LEVEL", "debug", False),
        ("EMPTY", "", False),
        ("BACKLOG_API_KEY", "short", True),  # a secret by its name, however plain its value
        ("MYSQL_PASS", "your_password", True),
        ("ANYTHING", "dop_v1_" + hashlib.sha256(b"issue 57").hexdigest(), True),  # a vendor key, whatever its name
        ("SETTINGS_JSON", '{"token": "ghp_' + "a1B2" * 9 + '"}', True),  # a secret inside a setting
        ("CONFIG_URL", "postgres://app:" + "Pw9xZ" * 3 + "@db/prod", True),
    ],
)
def test_a_variable_is_a_secret_or_a_setting_by_its_name_then_its_shape(name: str, value: str, secret: bool) -> None:
    assert secret_setting(name, value) is secret


def test_settings_are_recorded_as_written_and_secrets_by_name() -> None:
    launch = parse_stdio("backlog-mcp-server", (*env_pairs(SETTINGS)[1::2], f"BACKLOG_API_KEY={API_KEY}"), None)
    record = launch.record()
    assert dict(record.env) == SETTINGS
    assert record.env_names == ("BACKLOG_API_KEY",)
    assert API_KEY not in json.dumps(record.as_json())


def test_a_variable_given_as_a_reference_is_recorded_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_DOMAIN", "acme.backlog.com")
    record = parse_stdio("server", ("BACKLOG_DOMAIN=${MY_DOMAIN}", "MODE=paper"), None).record()
    assert record.env_names == ("BACKLOG_DOMAIN",) and dict(record.env) == {"MODE": "paper"}


def test_secret_env_and_keep_env_force_either_choice() -> None:
    launch = parse_stdio("server", ("MODE=paper", "PASSWORD=not-really-secret", "TOKEN=x"), None)
    chosen = choose_env(launch, ("MODE",), ("PASSWORD",), what="test").record()
    assert chosen.env_names == ("MODE", "TOKEN")
    assert dict(chosen.env) == {"PASSWORD": "not-really-secret"}
    from mcp_codegen.errors import UsageError

    with pytest.raises(UsageError, match="NOPE is not a variable given to the server"):
        choose_env(launch, ("NOPE",), (), what="--secret-env")
    with pytest.raises(UsageError, match="MODE is both a secret and a kept setting"):
        choose_env(launch, ("MODE",), ("MODE",), what="--secret-env/--keep-env")


def call(package: Path, env: dict[str, str], *names: str) -> subprocess.CompletedProcess[str]:
    """`connect()` of the generated package, then `env_value(name)` for each name: one value a line."""
    program = f"import {package.name}\nwith {package.name}.Client.connect() as client:\n" + "".join(
        f"    print(client.env_value(name={name!r}))\n" for name in names
    )
    clean = {key: value for key, value in os.environ.items() if key not in (*SETTINGS, "BACKLOG_API_KEY")}
    return subprocess.run(
        [PYTHON, "-c", program],
        cwd=package.parent,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_connect_passes_the_settings_and_reads_the_secret_and_nothing_secret_is_written(tmp_path: Path) -> None:
    package = tmp_path / "backlog_client"
    cache = tmp_path / "cache"
    command = f"{sys.executable} {SERVER}"
    generated = run(
        "generate", "--cli", "--stdio", command, *env_pairs(SETTINGS), "-e", f"BACKLOG_API_KEY={API_KEY}",
        "-o", str(package), env={"MCP_CODEGEN_CACHE_DIR": str(cache)},
    )  # fmt: skip
    assert generated.returncode == 0, generated.stderr
    files = {path: path.read_bytes() for root in (package, cache) for path in root.rglob("*") if path.is_file()}
    for part in (API_KEY, API_KEY[:12], API_KEY[12:]):
        assert part not in generated.stdout + generated.stderr
        for path, data in files.items():
            assert part.encode() not in data, f"{path} holds part of the secret"
    launch = json.loads((package / "snapshot.json").read_text("utf-8"))["launch"]
    assert launch["env"] == SETTINGS and launch["envNames"] == ["BACKLOG_API_KEY"]
    for document in ("README.md", "SKILL.md"):
        text = (package / document).read_text("utf-8")
        assert "- `BACKLOG_DOMAIN` = `acme.backlog.com`: a setting passed to the server" in text, document
        assert "- `ALPACA_PAPER_TRADE` = `True`: a setting" in text, document
        assert "- `BACKLOG_API_KEY`: a secret passed to the server when set" in text, document

    called = call(package, {"BACKLOG_API_KEY": API_KEY}, "BACKLOG_DOMAIN", "ALPACA_PAPER_TRADE", "BACKLOG_API_KEY")
    assert called.returncode == 0, called.stderr  # the server started: its setting reached it
    assert called.stdout.split() == ["acme.backlog.com", "True", API_KEY]
    changed = call(package, {"ALPACA_PAPER_TRADE": "False"}, "ALPACA_PAPER_TRADE", "BACKLOG_API_KEY")
    assert changed.stdout.split() == ["False", "<unset>"], changed.stderr  # the environment wins over a setting


def test_the_command_lines_missing_variable_hint_names_its_own_options(tmp_path: Path) -> None:
    package = tmp_path / "argv_cli"
    command = f"{sys.executable} {SERVER} --token {API_KEY}"
    generated = run(
        "generate", "-q", "--cli", "--stdio", command, "-e", "BACKLOG_DOMAIN=acme.backlog.com", "-o", str(package)
    )
    assert generated.returncode == 0, generated.stderr
    clean = {key: value for key, value in os.environ.items() if key != "TOKEN"}
    called = subprocess.run(
        [PYTHON, "-m", package.name, "env_value", "--name", "BACKLOG_DOMAIN"],
        cwd=package.parent,
        env=clean,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert called.returncode != 0
    assert "argument 3 of the recorded command needs the environment variable ${TOKEN}, which is not set" in (
        called.stderr
    )
    assert "--stdio CMD" in called.stderr and "AsyncClient" not in called.stderr
    assert API_KEY not in called.stderr


def test_help_says_which_variables_are_kept() -> None:
    shown = " ".join(run("generate", "--help").stdout.split())
    assert "A setting (-e MODE=paper) is recorded as written" in shown
    assert "--secret-env NAME" in shown and "--keep-env NAME" in shown


def test_secret_env_for_a_name_not_given_is_a_usage_error(tmp_path: Path) -> None:
    result = run("generate", "--stdio", f"{sys.executable} {SERVER}", "--secret-env", "NOPE", "-o", str(tmp_path / "o"))
    assert_fails(result, 2, "NOPE is not a variable given to the server")


def test_a_config_and_an_mcp_json_keep_settings_and_name_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp_codegen.inputs.config import resolve_server, validate_config

    monkeypatch.setenv("BACKLOG_KEY_SOURCE", API_KEY)
    cfg = validate_config(
        {
            "servers": {
                "backlog": {
                    "command": "npx",
                    "args": ["backlog-mcp-server"],
                    "env": {**SETTINGS, "BACKLOG_API_KEY": "${BACKLOG_KEY_SOURCE}", "PASSWORD": "plain"},
                    "keep_env": ["PASSWORD"],
                    "secret_env": ["MAX_TOKENS"],
                }
            }
        },
        where="test",
    )
    launch, _, _ = resolve_server(cfg, "backlog")
    record = launch.record()
    assert record.env_names == ("BACKLOG_API_KEY", "MAX_TOKENS")
    assert dict(record.env) == {"ALPACA_PAPER_TRADE": "True", "BACKLOG_DOMAIN": "acme.backlog.com", "PASSWORD": "plain"}

    source = tmp_path / "mcp.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "backlog": {
                        "command": "npx",
                        "args": ["backlog-mcp-server"],
                        "env": {**SETTINGS, "BACKLOG_API_KEY": API_KEY},
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    toml = starter_config_toml(parse_mcp_json(source.read_text("utf-8"), source=source))
    assert 'BACKLOG_DOMAIN = "acme.backlog.com"' in toml and 'ALPACA_PAPER_TRADE = "True"' in toml
    assert API_KEY not in toml and 'BACKLOG_API_KEY = "${BACKLOG_API_KEY}"' in toml
