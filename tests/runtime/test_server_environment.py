"""What a stdio server gets of our environment, and a server whose tool schemas have no `"type"`.

environ_server.py is a real stdio server (a child process) reporting its `os.environ`: written to a file
when `generate` starts it, returned by a tool when a generated client's `connect()` starts it. It gets the
SDK's few safe variables and the TLS and proxy ones, nothing else. Its schemas lack `"type"`, as
mcp-obsidian's: the drift check at connect and `list_tools()` read them as object schemas.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from helpers import imported_package
from rt_helpers import HERE, PYTHON

from mcp_codegen.cli import cli
from mcp_codegen_runtime.calls.drift import tool_fingerprint
from mcp_codegen_runtime.connection.server_env import NETWORK_VARIABLES

pytestmark = pytest.mark.anyio

SCRIPT = HERE / "environ_server.py"
#: What the parent sets: the network variables a server needs, and a secret no server was given.
PARENT = {
    "SSL_CERT_FILE": "/etc/corp/ca-bundle.pem",
    "HTTPS_PROXY": "http://proxy.corp.example:3128",
    "no_proxy": "localhost,127.0.0.1",
    "MY_SECRET_TOKEN": "tok-7f3a9c2e41b85d60",
}


@pytest.fixture(scope="module")
def parent_environment() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in PARENT.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="module")
def generated(parent_environment: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Path]]:
    """The package generated from environ_server.py now, and the environment `generate` started it with."""
    root = tmp_path_factory.mktemp("environ")
    report = root / "generate-environ.json"
    target = root / "environ_client"
    command = f"{PYTHON} {SCRIPT} {report}"
    assert cli.main(args=["generate", "--stdio", command, "-o", str(target), "-q"], standalone_mode=False) in (None, 0)
    with imported_package(target) as package:
        yield package, report


def _assert_inherited(environ: dict[str, str]) -> None:
    for name in ("SSL_CERT_FILE", "HTTPS_PROXY", "no_proxy"):
        assert environ.get(name) == PARENT[name], name
    assert "MY_SECRET_TOKEN" not in environ
    assert PARENT["MY_SECRET_TOKEN"] not in json.dumps(environ)
    allowed = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", *NETWORK_VARIABLES}
    # The interpreter itself may add LC_CTYPE (PEP 538's locale coercion) before the server reads it.
    assert set(environ) - allowed <= {"LC_CTYPE"}, set(environ) - allowed


def test_generate_starts_a_stdio_server_with_the_tls_and_proxy_variables_only(
    generated: tuple[ModuleType, Path],
) -> None:
    _package, report = generated
    _assert_inherited(json.loads(report.read_text(encoding="utf-8")))


async def test_a_clients_connect_starts_the_server_with_the_tls_and_proxy_variables_only(
    generated: tuple[ModuleType, Path],
) -> None:
    package, _report = generated
    async with package.AsyncClient.connect(timeout=30) as client:
        answer = await client.call_raw("environment", {})
    _assert_inherited(json.loads(answer.text))


async def test_variables_given_to_the_server_still_go_and_win(generated: tuple[ModuleType, Path]) -> None:
    package, _report = generated
    given = {"HTTPS_PROXY": "http://other.example:8080", "VAULT_PATH": "/notes"}
    async with package.AsyncClient.stdio(PYTHON, [str(SCRIPT)], env=given, timeout=30) as client:
        environ = json.loads((await client.call_raw("environment", {})).text)
    assert (environ["HTTPS_PROXY"], environ["VAULT_PATH"]) == ("http://other.example:8080", "/notes")
    assert "MY_SECRET_TOKEN" not in environ


PROXY_PASSWORD = "Pr0xyPassw0rd-5521"


def test_a_proxy_password_the_server_prints_is_hidden_in_generates_error(
    parent_environment: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", f"http://me:{PROXY_PASSWORD}@proxy.corp.example:3128")
    command = f"{PYTHON} {SCRIPT} --fail"
    with pytest.raises(SystemExit) as exited:
        cli.main(args=["generate", "--stdio", command, "-o", str(tmp_path / "out")], standalone_mode=False)
    assert exited.value.code == 3
    shown = capsys.readouterr().err
    assert "cannot reach the vault through http://me:***@proxy.corp.example:3128" in shown
    assert PROXY_PASSWORD not in shown


async def test_a_proxy_password_the_server_prints_is_hidden_in_connects_error(
    generated: tuple[ModuleType, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    package, _report = generated
    monkeypatch.setenv("HTTPS_PROXY", f"http://me:{PROXY_PASSWORD}@proxy.corp.example:3128")
    with pytest.raises(package.ConnectError) as caught:
        async with package.AsyncClient.stdio(PYTHON, [str(SCRIPT), "--fail"], timeout=30):
            pass
    assert "through http://me:***@proxy" in str(caught.value)
    assert PROXY_PASSWORD not in str(caught.value)


async def test_the_drift_check_reads_schemas_without_a_type(generated: tuple[ModuleType, Path]) -> None:
    package, _report = generated
    async with package.AsyncClient.connect(strict=True, timeout=30) as client:  # raised SchemaDriftError before
        summary = await client.check_drift(strict=True)
        listed = await client.list_tools()
    assert summary is not None and not summary.drifted and not summary.added
    assert [tool.name for tool in listed] == ["environment", "append_content"]
    assert listed[1].input_schema["required"] == ["filepath", "content"]


def test_a_schema_without_a_type_hashes_as_the_object_schema_it_is_read_as() -> None:
    untyped = {"properties": {"a": {"type": "string"}}}
    assert tool_fingerprint(untyped, None) == tool_fingerprint({"type": "object", **untyped}, None)
    assert tool_fingerprint(untyped, None) != tool_fingerprint({"type": "string"}, None)
