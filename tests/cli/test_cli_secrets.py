"""No secret the `mcp-codegen` command is given (a header, an `-e` value, one taken from the environment) reaches
its output, its files or its error messages, whether the server accepts the credentials or refuses them."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers.helpers import RequireHeaders, serve_app

from cli.test_cli import PYTHON, assert_fails, run
from mcp_codegen.demo.server import build_server

SECRET_HEADER = "SENTINEL-SECRET-123"
SECRET_ENV = "SENTINEL-ENV-456"
SECRET_TOKEN = "SENTINEL-TOKEN-789"
SENTINELS = (SECRET_HEADER, SECRET_ENV, SECRET_TOKEN)


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    """The demo server over streamable HTTP, accepting only the two SENTINEL credentials."""
    app = build_server().streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    guarded = RequireHeaders(app, {"Authorization": f"Bearer {SECRET_HEADER}", "X-Api-Key": SECRET_ENV})
    with serve_app(guarded) as base:
        yield base + "/mcp"


def _assert_no_secrets(root: Path, *outputs: subprocess.CompletedProcess[str]) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for sentinel in SENTINELS:
                assert sentinel.encode() not in data, f"{sentinel} leaked into {path}"
    for output in outputs:
        for sentinel in SENTINELS:
            assert sentinel not in output.stdout and sentinel not in output.stderr


def test_header_secrets_never_reach_output_or_files(tmp_path: Path, guarded_url: str) -> None:
    out = tmp_path / "out"
    headers = ["-H", f"Authorization: Bearer {SECRET_HEADER}", "-H", "X-Api-Key: ${SECRET_ENV}"]
    env = {"SECRET_ENV": SECRET_ENV}
    runs = [
        run("snapshot", "--url", guarded_url, *headers, "-o", str(out / "snapshot.json"), env=env),
        run("snapshot", "--url", guarded_url, *headers, "-o", "-", env=env),
        run("generate", "--url", guarded_url, *headers, "-o", str(out / "guarded_pkg"), env=env),
        run("generate", "--url", guarded_url, *headers, "--format", "json", "-o", str(out / "guarded_pkg"), env=env),
    ]
    for result in runs:
        assert result.returncode == 0, result.stderr  # the guard accepted both credentials: they were sent
    _assert_no_secrets(out, *runs)

    launch = json.loads((out / "snapshot.json").read_text())["launch"]
    assert launch == {
        "transport": "http",
        "url": guarded_url,
        "headers": [
            {"name": "Authorization", "template": "Bearer ${AUTHORIZATION}"},  # a literal secret: a placeholder
            {"name": "X-Api-Key", "template": "${SECRET_ENV}"},
        ],
    }
    assert json.loads((out / "guarded_pkg" / "snapshot.json").read_text())["launch"] == launch
    specs = (out / "guarded_pkg" / "specs.py").read_text()
    assert '"Authorization"' in specs and '"X-Api-Key"' in specs and "${SECRET_ENV}" in specs


def test_env_secrets_never_reach_output_or_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    # The server refuses to start unless the secret reached it (the script, holding the secret, lives
    # outside the searched tree).
    script = tmp_path / "needs_token.py"
    script.write_text(
        "import os, sys\n"
        f"if os.environ.get('TOKEN') != {SECRET_TOKEN!r}:\n"
        "    sys.exit('TOKEN missing')\n"
        "from mcp_codegen.demo.__main__ import main\n"
        "main([])\n"
    )
    command = shlex.join([PYTHON, str(script)])
    runs = [
        run("snapshot", "--stdio", command, "-e", f"TOKEN={SECRET_TOKEN}", "-o", str(out / "snapshot.json")),
        run(
            "generate",
            "--stdio",
            command,
            "-e",
            "TOKEN=${SECRET_SOURCE}",
            "-o",
            str(out / "env_pkg"),
            env={"SECRET_SOURCE": SECRET_TOKEN},
        ),
    ]
    for result in runs:
        assert result.returncode == 0, result.stderr
    _assert_no_secrets(out, *runs)
    launch = json.loads((out / "snapshot.json").read_text())["launch"]
    assert launch == {"transport": "stdio", "command": PYTHON, "args": [str(script)], "envNames": ["TOKEN"]}
    assert json.loads((out / "env_pkg" / "snapshot.json").read_text())["launch"] == launch

    # Without the secret the server exits: a server failure, and still no secret in the message.
    failed = run("generate", "-q", "--stdio", command, "-o", str(out / "env_pkg"))
    assert_fails(failed, 3)
    _assert_no_secrets(out, failed)


def test_authentication_failure_names_the_header_not_its_value(tmp_path: Path, guarded_url: str) -> None:
    wrong = "SENTINEL-WRONG-000"
    result = run(
        "generate",
        "-q",
        "--url",
        guarded_url,
        "-H",
        f"Authorization: Bearer {wrong}",
        "-H",
        f"X-Api-Key: {wrong}",
        "-o",
        str(tmp_path / "out"),
    )
    line = assert_fails(result, 3, "authentication failed", "401", "Authorization", "X-Api-Key")
    assert wrong not in line
    assert not (tmp_path / "out").exists()

    result = run("snapshot", "-q", "--url", guarded_url, "-o", str(tmp_path / "s.json"))
    assert_fails(result, 3, "authentication failed", "401")
    assert not (tmp_path / "s.json").exists()
