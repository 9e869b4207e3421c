"""Servers found in the MCP registry: `--registry NAME[@VERSION]`, `--registry-url`, and `registry` in a config.

The registry is a stand-in on 127.0.0.1 (tests/servers/registry_stand_in.py) serving real `server.json`
documents (tests/registry/documents, modelled on entries of the official registry) on the `v0` and `v0.1`
API paths. The servers are real: npm server-everything launched by `npx` from tests/servers/node_modules
(offline: npx finds the pinned version installed there), and the demo server over streamable HTTP behind a
required `Authorization` header.
"""

from __future__ import annotations

import copy
import json
import os
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import prewarmed
import pytest
from servers.helpers import RequireHeaders, serve_app
from servers.registry_stand_in import serve_registry

from mcp_codegen.demo.server import build_server
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import load_config
from mcp_codegen.inputs.launch import HttpLaunch, StdioLaunch
from mcp_codegen.inputs.registry import (
    RegistryLookupError,
    RegistryUnavailableError,
    fetch_server_json,
    launch_from_server_json,
    parse_reference,
    registry_base_url,
    resolve_registry,
)
from mcp_codegen.snapshot.model import Snapshot, read_snapshot

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = Path(__file__).resolve().parent / "documents"
NODE_SERVERS = ROOT / "tests" / "servers"
EVERYTHING = "io.github.modelcontextprotocol/server-everything"
WEATHER = "com.example.mcp/weather"
GITHUB = "io.github.github/github-mcp-server"
TIME = "io.github.modelcontextprotocol/server-time"
TOKENED = "io.github.example/everything-with-token"
SECRET = "SENTINEL-REGISTRY-SECRET-314"


def document(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DOCUMENTS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def remote_document(base: str) -> dict[str, Any]:
    return json.loads(json.dumps(document("weather-remote")).replace("__REMOTE_BASE__", base))


def older_everything() -> dict[str, Any]:
    """An older version of the everything entry (published before; not installed, so never launched)."""
    older = copy.deepcopy(document("server-everything"))
    older["version"] = older["packages"][0]["version"] = "2025.11.25"
    return older


def everything_with_token() -> dict[str, Any]:
    """The everything entry as a server needing an API token would publish it (required, secret)."""
    entry = copy.deepcopy(document("server-everything"))
    entry["name"] = TOKENED
    entry["packages"][0]["environmentVariables"].append(
        {"name": "EVERYTHING_API_TOKEN", "description": "API token", "isRequired": True, "isSecret": True}
    )
    return entry


def run(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *args]),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def assert_fails(result: subprocess.CompletedProcess[str], code: int, *fragments: str) -> str:
    """Exit `code`, exactly one stderr line (the error), no traceback; returns the line."""
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == code, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    [line] = lines
    assert line.startswith("mcp-codegen: error: "), line
    for fragment in fragments:
        assert fragment in line, line
    return line


@pytest.fixture(scope="module")
def guarded_demo() -> Iterator[str]:
    """The demo server over streamable HTTP, answering only with the registry entry's Authorization header."""
    app = build_server().streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    with serve_app(RequireHeaders(app, {"Authorization": f"Bearer {SECRET}", "X-Units": "metric"})) as base:
        yield base


@pytest.fixture(scope="module")
def registry(guarded_demo: str) -> Iterator[Any]:
    """Every document, on both API paths."""
    documents = [
        older_everything(),
        document("server-everything"),
        remote_document(guarded_demo),
        document("github-oci"),
        document("time-pypi"),
        everything_with_token(),
    ]
    with serve_registry(documents) as stand_in:
        yield stand_in


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# --------------------------------------------------------------------------------------------------
# Reading the registry: both API paths, names encoded, latest and exact versions
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("apis", [("v0.1",), ("v0",), ("v0", "v0.1")])
def test_reads_the_entry_on_either_api_path(apis: tuple[str, ...]) -> None:
    with serve_registry([older_everything(), document("server-everything")], apis=apis) as stand_in:
        latest = fetch_server_json(parse_reference(EVERYTHING), stand_in.url, timeout=10)
        pinned = fetch_server_json(parse_reference(f"{EVERYTHING}@2025.11.25"), stand_in.url, timeout=10)
    assert latest == document("server-everything")
    assert pinned["version"] == "2025.11.25"
    # The name travels URL-encoded in one segment; v0.1 is asked first.
    first = stand_in.requests[0]
    assert first == "/v0.1/servers/io.github.modelcontextprotocol%2Fserver-everything/versions/latest"
    if "v0.1" not in apis:
        assert stand_in.requests[1] == first.replace("/v0.1/", "/v0/")


def test_parse_reference() -> None:
    assert parse_reference("io.github.o/s").version is None
    assert parse_reference("io.github.o/s@1.2.3-beta.1").version == "1.2.3-beta.1"
    for bad in ("no-namespace", "io.github.o/s@", "io.github.o/s@1.0/evil", "a b/c"):
        with pytest.raises(UsageError):
            parse_reference(bad)
    with pytest.raises(UsageError, match="--registry-url must be an http"):
        registry_base_url("ftp://registry.example")


def test_unknown_name_and_version_are_told_apart(registry: Any) -> None:
    with pytest.raises(RegistryLookupError, match=r"has no server named io\.github\.nobody/nothing$"):
        fetch_server_json(parse_reference("io.github.nobody/nothing"), registry.url, timeout=10)
    with pytest.raises(RegistryLookupError, match=r"has no version 9\.9\.9 \(versions: 2025\.11\.25, 2026\.8\.31\)"):
        fetch_server_json(parse_reference(f"{EVERYTHING}@9.9.9"), registry.url, timeout=10)


def test_a_registry_in_trouble_is_a_server_error(registry: Any) -> None:
    registry.fail_with = 503
    try:
        with pytest.raises(RegistryUnavailableError, match="answered HTTP 503"):
            fetch_server_json(parse_reference(EVERYTHING), registry.url, timeout=10)
    finally:
        registry.fail_with = None
    with pytest.raises(RegistryUnavailableError, match="did not answer"):
        fetch_server_json(parse_reference(EVERYTHING), f"http://127.0.0.1:{free_port()}", timeout=5)


# --------------------------------------------------------------------------------------------------
# Choosing the launch from a server.json
# --------------------------------------------------------------------------------------------------


def test_npm_package_runs_by_npx_with_its_arguments() -> None:
    launch = launch_from_server_json(document("server-everything"), environ={})
    assert isinstance(launch, StdioLaunch)
    assert (launch.command, launch.args) == (
        "npx",
        ("-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"),
    )
    assert dict(launch.env) == {"EVERYTHING_LOG_LEVEL": "info"}  # the documented default
    assert launch_from_server_json(document("server-everything"), environ={"EVERYTHING_LOG_LEVEL": "debug"}).env == {
        "EVERYTHING_LOG_LEVEL": "debug"
    }


def test_pypi_package_runs_by_uvx_with_placeholders_filled() -> None:
    launch = launch_from_server_json(document("time-pypi"), environ={})
    assert isinstance(launch, StdioLaunch)
    assert (launch.command, launch.args) == ("uvx", ("mcp-server-time@2025.9.25", "--local-timezone", "UTC"))
    paris = launch_from_server_json(document("time-pypi"), environ={"LOCAL_TIMEZONE": "Europe/Paris"})
    assert paris.args[-1] == "Europe/Paris"  # type: ignore[union-attr]


def test_remote_wins_when_its_secret_is_set_else_the_package_and_else_the_names_to_set() -> None:
    github = document("github-oci")
    remote = launch_from_server_json(github, environ={"GITHUB_PAT": SECRET})
    assert isinstance(remote, HttpLaunch)
    assert remote.url == "https://api.githubcopilot.com/mcp/"
    assert remote.headers == {"Authorization": f"Bearer {SECRET}"}
    assert remote.header_templates == {"Authorization": "Bearer ${GITHUB_PAT}"}

    docker = launch_from_server_json(github, environ={"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET})
    assert isinstance(docker, StdioLaunch)
    assert docker.command == "docker"
    assert docker.args == (
        "run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN",
        "ghcr.io/github/github-mcp-server:0.24.1", "stdio", "--toolsets", "repos,issues,pull_requests",
    )  # fmt: skip
    assert docker.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET}
    assert SECRET not in json.dumps(docker.record().as_json())

    with pytest.raises(UsageError) as missing:
        launch_from_server_json(github, environ={})
    assert str(missing.value) == (
        f"registry server {GITHUB} needs values not set in the environment: set GITHUB_PAT GITHUB_PERSONAL_ACCESS_TOKEN"
    )


def test_a_header_without_a_value_is_read_from_its_own_variable_and_recorded_as_a_template() -> None:
    entry = {
        "name": "com.example/keyed",
        "version": "2.0.0",
        "remotes": [
            {
                "type": "streamable-http",
                "url": "https://mcp.example.com/{region}/mcp",
                "variables": {"region": {"default": "eu"}},
                "headers": [{"name": "X-API-Key", "isRequired": True, "isSecret": True}],
            }
        ],
    }
    with pytest.raises(UsageError, match="set X_API_KEY$"):
        launch_from_server_json(entry, environ={})
    launch = launch_from_server_json(entry, environ={"X_API_KEY": SECRET, "REGION": "us"})
    assert isinstance(launch, HttpLaunch)
    assert launch.url == "https://mcp.example.com/us/mcp"
    assert [header.as_json() for header in launch.record().headers] == [
        {"name": "X-API-Key", "template": "${X_API_KEY}"}
    ]
    assert launch_from_server_json(entry, environ={"X_API_KEY": SECRET}).url == "https://mcp.example.com/eu/mcp"  # type: ignore[union-attr]


def test_untrusted_entries_run_only_known_launchers_and_never_put_secrets_on_a_command_line() -> None:
    hostile = document("server-everything")
    hostile["packages"][0]["runtimeHint"] = "sh"
    assert launch_from_server_json(hostile, environ={}).command == "npx"  # type: ignore[union-attr]
    leaky = document("time-pypi")
    leaky["packages"][0]["packageArguments"][0]["variables"]["local_timezone"]["isSecret"] = True
    with pytest.raises(UsageError, match="passes the secret LOCAL_TIMEZONE on a command line"):
        launch_from_server_json(leaky, environ={"LOCAL_TIMEZONE": SECRET})
    unknown = {"name": "io.github.o/s", "version": "1.0.0", "packages": [{"registryType": "nuget", "identifier": "X"}]}
    with pytest.raises(UsageError, match=r"cannot be launched \(package: registry type 'nuget' is not supported\)"):
        launch_from_server_json(unknown, environ={})


# --------------------------------------------------------------------------------------------------
# The command line, end to end
# --------------------------------------------------------------------------------------------------


def test_generate_from_the_registry_then_check_and_regenerate_reach_the_same_server(
    registry: Any, tmp_path: Path
) -> None:
    """npm server-everything, read from the registry and launched by npx from tests/servers/node_modules."""
    output = tmp_path / "everything_client"
    args = ("--registry", EVERYTHING, "--registry-url", registry.url)
    generated = run("generate", *args, "-o", str(output), cwd=NODE_SERVERS)
    assert generated.returncode == 0, generated.stderr
    snapshot = read_snapshot(output / "snapshot.json")
    assert snapshot.registry is not None
    assert snapshot.registry.as_json() == {"name": EVERYTHING, "version": "2026.8.31", "url": registry.url}
    assert snapshot.launch is not None and snapshot.launch.command == "npx"
    assert snapshot.launch.args == ("-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio")
    assert any(tool["name"] == "get-env" for tool in snapshot.tools)

    # `check` without server options reads the recorded entry again, at the recorded version.
    registry.requests.clear()
    checked = run("check", "--against", str(output), cwd=NODE_SERVERS)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert registry.requests[0].endswith("%2Fserver-everything/versions/2026.8.31")

    again = run("generate", *args, "-o", str(output), cwd=NODE_SERVERS)
    assert again.returncode == 0, again.stderr
    assert f"{output} is up to date" in again.stderr


def test_remote_with_a_secret_header_from_the_environment(registry: Any, guarded_demo: str, tmp_path: Path) -> None:
    """The demo server behind `Authorization: Bearer {weather_api_key}`: the value comes from WEATHER_API_KEY."""
    target = tmp_path / "weather.json"
    args = ("snapshot", "--registry", f"{WEATHER}@1.4.0", "--registry-url", registry.url, "-o", str(target))
    missing = run(*args)
    assert_fails(missing, 2, f"registry server {WEATHER} needs values not set in the environment: set WEATHER_API_KEY")
    assert not target.exists()

    taken = run(*args, env={"WEATHER_API_KEY": SECRET})
    assert taken.returncode == 0, taken.stderr
    text = target.read_text(encoding="utf-8")
    assert SECRET not in text + taken.stderr + taken.stdout
    snapshot = Snapshot.from_text(text)
    assert snapshot.server_name == build_server().name
    assert snapshot.launch is not None and snapshot.launch.transport == "http"  # streamable HTTP over SSE
    assert snapshot.launch.url == f"{guarded_demo}/mcp"
    assert [header.as_json() for header in snapshot.launch.headers] == [
        {"name": "Authorization", "template": "Bearer ${WEATHER_API_KEY}"},
        {"name": "X-Units", "template": "metric"},  # the registry's own literal: a setting, sent by connect()
    ]
    assert snapshot.registry is not None and snapshot.registry.version == "1.4.0"


def test_one_line_errors_with_their_exit_codes(registry: Any, tmp_path: Path) -> None:
    output = str(tmp_path / "out")
    url = ("--registry-url", registry.url)
    assert_fails(
        run("generate", "--registry", "io.github.nobody/nothing", *url, "-o", output),
        2,
        "has no server named io.github.nobody/nothing",
    )
    assert_fails(
        run("generate", "--registry", f"{EVERYTHING}@0.0.1", *url, "-o", output),
        2,
        f"{EVERYTHING} has no version 0.0.1 (versions: 2025.11.25, 2026.8.31)",
    )
    down = f"http://127.0.0.1:{free_port()}"
    assert_fails(run("generate", "--registry", EVERYTHING, "--registry-url", down, "-o", output), 3, "did not answer")
    assert_fails(
        run("generate", "--registry", EVERYTHING, *url, "--stdio", "x", "-o", output),
        2,
        "give one of --url, --stdio or --registry",
    )
    assert_fails(
        run("snapshot", "--registry-url", registry.url, "-o", output), 2, "--registry-url goes with --registry"
    )
    assert_fails(
        run("snapshot", "--registry", WEATHER, "-H", "Authorization: Bearer x", "-o", output),
        2,
        "-H, -e, --cwd, --auth and --transport do not go with --registry",
    )
    secret_env = {"GITHUB_PERSONAL_ACCESS_TOKEN": ""}
    line = assert_fails(run("snapshot", "--registry", GITHUB, *url, "-o", output, env=secret_env), 2)
    assert line.endswith("set GITHUB_PAT GITHUB_PERSONAL_ACCESS_TOKEN")


def test_config_registry_key(registry: Any, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the config search stops here
    config = tmp_path / "mcp-codegen.toml"
    config.write_text(
        f'[servers.weather]\nregistry = "{WEATHER}"\nregistry_url = "{registry.url}"\nenv_file = ".env"\n',
        encoding="utf-8",
    )
    (tmp_path / ".env").write_text(f"WEATHER_API_KEY={SECRET}\n", encoding="utf-8")
    output = tmp_path / "weather_client"
    generated = run("generate", "--server", "weather", "-o", str(output), cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    snapshot_text = (output / "snapshot.json").read_text(encoding="utf-8")
    assert SECRET not in snapshot_text
    assert json.loads(snapshot_text)["registry"] == {"name": WEATHER, "url": registry.url, "version": "1.4.0"}

    umbrella = run("generate", cwd=tmp_path)  # every configured server, into the umbrella package
    assert umbrella.returncode == 0, umbrella.stderr
    member = json.loads((tmp_path / "mcp_clients" / "weather" / "snapshot.json").read_text(encoding="utf-8"))
    assert member["registry"]["version"] == "1.4.0"

    config.write_text(f'[servers.weather]\nregistry = "{WEATHER}"\ncommand = "npx"\n', encoding="utf-8")
    assert_fails(
        run("generate", cwd=tmp_path),
        2,
        "servers.weather: 'command' do not go with 'registry'",
    )
    config.write_text(f'[servers.weather]\nregistry = "{WEATHER}"\nregistry_url = "{registry.url}"\n', encoding="utf-8")
    failed = run("generate", "--server", "weather", "-o", str(output), cwd=tmp_path)
    assert_fails(failed, 2, "servers.weather: registry server com.example.mcp/weather needs values not set")


def test_the_docs_config_example_is_a_valid_config(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "how-to" / "registry.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```toml\n(.*?)```", page, re.DOTALL)
    (tmp_path / "mcp-codegen.toml").write_text(block, encoding="utf-8")
    cfg = load_config(tmp_path / "mcp-codegen.toml")
    assert cfg.servers["github"].registry == "io.github.github/github-mcp-server@0.24.1"
    assert cfg.servers["time"].registry_url == "https://registry.modelcontextprotocol.io"


def test_resolve_registry_records_the_exact_version_read(registry: Any) -> None:
    launch = resolve_registry(EVERYTHING, registry.url, timeout=10, environ={})
    assert launch.registry is not None and launch.registry.describe() == f"{EVERYTHING}@2026.8.31"


@pytest.mark.anyio
async def test_a_secret_environment_variable_reaches_the_server_and_is_recorded_by_name_only(
    registry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """server-everything's `get-env` tool answers the environment its process got."""
    from mcp_codegen.snapshot.connect import connect

    monkeypatch.chdir(NODE_SERVERS)  # npx finds the pinned package installed here
    with pytest.raises(UsageError, match="set EVERYTHING_API_TOKEN$"):
        resolve_registry(TOKENED, registry.url, timeout=10, environ={})
    launch = resolve_registry(TOKENED, registry.url, timeout=10, environ={"EVERYTHING_API_TOKEN": SECRET})
    async with connect(launch, timeout=60) as connection:
        result = await connection.client.call_tool("get-env", {})
    [content] = result.content
    assert json.loads(content.text)["EVERYTHING_API_TOKEN"] == SECRET  # type: ignore[union-attr]
    record = json.dumps(launch.record().as_json())
    assert SECRET not in record + repr(launch)
    assert launch.record().env_names == ("EVERYTHING_API_TOKEN", "EVERYTHING_LOG_LEVEL")
