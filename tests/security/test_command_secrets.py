"""Secrets in a `--stdio` command line never reach the package, its snapshot or any output; `${VAR}` carries them.

A real stdio server (`argv_server.py`) answers with the arguments it was started with, so each test sees
both sides: what the generator wrote (no secret) and what the generated client's `connect()` starts the
server with (the secret again, read from the environment).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli.test_cli import PYTHON, assert_fails, run

from mcp_codegen.inputs.launch import parse_stdio
from mcp_codegen.inputs.redaction import placeholder_args, upper_snake

SERVER = str(Path(__file__).with_name("argv_server.py"))
PASSWORD = "S3cretPassw0rd"
QUERY_SECRET = "qsecret456"
TOKEN = "SENTINEL-TOKEN-7731"
EQUALS_TOKEN = "SENTINEL-EQUALS-8842"
ENV_SECRET = "SENTINEL-ENV-SECRET-9953"
SECRETS = (PASSWORD, QUERY_SECRET, TOKEN, EQUALS_TOKEN, ENV_SECRET)


def everything_written(package: Path) -> str:
    return "\n".join(path.read_text("utf-8") for path in sorted(package.rglob("*")) if path.is_file())


def call_argv(package: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`connect()` of the generated package, then its `argv` tool: the server's arguments on stdout."""
    program = f"import {package.name}\nwith {package.name}.Client.connect() as client:\n    print(client.argv())\n"
    clean = {key: value for key, value in os.environ.items() if key not in env}
    return subprocess.run(
        [PYTHON, "-c", program],
        cwd=package.parent,
        env={**clean, **{key: value for key, value in env.items() if value}},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_secrets_in_stdio_arguments_are_recorded_as_variables_and_read_back_at_run_time(tmp_path: Path) -> None:
    command = (
        f"{sys.executable} {SERVER} --dsn postgres://app:{PASSWORD}@db.internal/prod"
        f" --url http://x/?api_key={QUERY_SECRET} --token {TOKEN} --api-key={EQUALS_TOKEN}"
        f" --name {ENV_SECRET}"
    )
    package = tmp_path / "argv_client"
    generated = run("generate", "--stdio", command, "-e", f"SERVICE_TOKEN={ENV_SECRET}", "-o", str(package))
    assert generated.returncode == 0, generated.stderr
    written = everything_written(package)
    for secret in SECRETS:
        assert secret not in written, f"{secret} written into the package"
        assert secret not in generated.stdout + generated.stderr, f"{secret} printed"
    launch = json.loads((package / "snapshot.json").read_text("utf-8"))["launch"]
    assert launch["args"] == [
        SERVER,
        "--dsn",
        "postgres://app:${DSN_PASSWORD}@db.internal/prod",
        "--url",
        "http://x/?api_key=${URL_API_KEY}",
        "--token",
        "${TOKEN}",
        "--api-key=${API_KEY}",
        "--name",
        "${SERVICE_TOKEN}",
    ]
    for name in ("DSN_PASSWORD", "URL_API_KEY", "TOKEN", "API_KEY"):
        assert f"warning[secret-in-command]: launch.args: a secret in the command line is recorded as ${{{name}}}" in (
            generated.stderr
        )
    assert "recorded as ${SERVICE_TOKEN}" not in generated.stderr  # its name is recorded already (-e)

    values = {
        "DSN_PASSWORD": PASSWORD,
        "URL_API_KEY": QUERY_SECRET,
        "TOKEN": TOKEN,
        "API_KEY": EQUALS_TOKEN,
        "SERVICE_TOKEN": ENV_SECRET,
    }
    called = call_argv(package, values)
    assert called.returncode == 0, called.stderr
    assert called.stdout.split() == command.split()[2:]

    missing = call_argv(package, {**values, "TOKEN": ""})
    assert missing.returncode != 0
    assert "argument 7 of the recorded command needs the environment variable ${TOKEN}, which is not set" in (
        missing.stderr
    )
    assert TOKEN not in missing.stderr


def test_a_variable_in_stdio_is_expanded_for_the_server_and_recorded_by_name(tmp_path: Path) -> None:
    package = tmp_path / "templated_client"
    env = {"MY_DSN": f"postgres://app:{PASSWORD}@db/prod"}
    generated = run("generate", "--stdio", f"{sys.executable} {SERVER} --dsn ${{MY_DSN}}", "-o", str(package), env=env)
    assert generated.returncode == 0, generated.stderr
    assert "secret-in-command" not in generated.stderr  # the user chose the name: nothing to warn about
    assert json.loads((package / "snapshot.json").read_text("utf-8"))["launch"]["args"] == [
        SERVER,
        "--dsn",
        "${MY_DSN}",
    ]
    assert PASSWORD not in everything_written(package)
    called = call_argv(package, env)
    assert called.returncode == 0, called.stderr
    assert called.stdout.split() == ["--dsn", env["MY_DSN"]]

    unset = run(
        "snapshot", "--stdio", f"{sys.executable} {SERVER} --dsn ${{NOT_SET_ANYWHERE}}", "-o", str(tmp_path / "s.json")
    )
    assert_fails(unset, 2, "--stdio refers to ${NOT_SET_ANYWHERE}, which is not set")


def test_check_against_a_package_reads_the_recorded_variables(tmp_path: Path) -> None:
    package = tmp_path / "check_client"
    generated = run("generate", "--stdio", f"{sys.executable} {SERVER} --token {TOKEN}", "-o", str(package), "-q")
    assert generated.returncode == 0, generated.stderr
    again = run("check", "--against", str(package), env={"TOKEN": TOKEN})
    assert again.returncode == 0, again.stderr
    clean = {key: value for key, value in os.environ.items() if key != "TOKEN"}
    without = subprocess.run(
        [PYTHON, "-m", "mcp_codegen", "check", "--against", str(package)],
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert_fails(without, 2, "the recorded command refers to ${TOKEN}, which is not set")


def test_a_server_that_prints_its_arguments_on_failure_has_them_scrubbed(tmp_path: Path) -> None:
    failing = tmp_path / "failing.py"
    failing.write_text("import sys\nprint('started with', *sys.argv[1:], file=sys.stderr)\nsys.exit(3)\n")
    result = run(
        "snapshot", "-q", "--stdio", f"{sys.executable} {failing} --password {TOKEN}", "-o", str(tmp_path / "s.json")
    )
    line = assert_fails(result, 3, "server exited with code 3", "started with --password ***")
    assert TOKEN not in line


@pytest.mark.parametrize(
    ("args", "recorded"),
    [
        (["--token", "abc123"], ["--token", "${TOKEN}"]),
        (["--token=abc123"], ["--token=${TOKEN}"]),
        (["--client-secret", "x" * 20], ["--client-secret", "${CLIENT_SECRET}"]),
        (["--token-file", "/run/token"], ["--token-file", "/run/token"]),  # where a secret is, not a secret
        (["--token", "${MY_TOKEN}"], ["--token", "${MY_TOKEN}"]),  # already a reference
        (["--verbose", "--password", "--port", "8"], ["--verbose", "--password", "--port", "8"]),  # a flag, no value
        (["https://u:pw12@h/p?sig=abcd&page=2"], ["https://u:${PASSWORD}@h/p?sig=${SIG}&page=2"]),
        (["--db=mysql://root:pw12@h/d"], ["--db=mysql://root:${DB_PASSWORD}@h/d"]),
        (["plain", "words"], ["plain", "words"]),
    ],
)
def test_which_arguments_are_secrets(args: list[str], recorded: list[str]) -> None:
    assert placeholder_args(args, lambda hint, _index: "${" + upper_snake(hint) + "}") == recorded


def test_the_live_launch_never_shows_its_arguments() -> None:
    launch = parse_stdio(f"server --token {TOKEN}", (), None)
    assert launch.args == ("--token", TOKEN)  # what the server is started with
    assert TOKEN not in repr(launch) and TOKEN not in launch.describe()


def test_config_arguments_keep_their_environment_references_and_hide_literal_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp_codegen.inputs.config import resolve_server, validate_config

    monkeypatch.setenv("MY_TOKEN", TOKEN)
    monkeypatch.setenv("MCP_INPUT_DB_PASSWORD", PASSWORD)
    cfg = validate_config(
        {
            "servers": {
                "db": {
                    "command": "server",
                    "args": [
                        "--token",
                        "${MY_TOKEN}",
                        "--dsn",
                        "postgres://app:${input:db-password}@db/prod",
                        "--api-key",
                        EQUALS_TOKEN,
                        "--home",
                        "${userHome}",
                    ],
                }
            }
        },
        where="test",
    )
    launch, _, _ = resolve_server(cfg, "db")
    assert launch.args[:4] == ("--token", TOKEN, "--dsn", f"postgres://app:{PASSWORD}@db/prod")  # what runs
    recorded = launch.record().args
    assert recorded[:6] == (
        "--token",
        "${MY_TOKEN}",
        "--dsn",
        "postgres://app:${MCP_INPUT_DB_PASSWORD}@db/prod",
        "--api-key",
        "${API_KEY}",
    )
    assert recorded[7] == str(Path.home())  # not an environment reference: recorded as expanded
    assert not any(secret in json.dumps(launch.record().as_json()) for secret in SECRETS)
