"""The pytest plugin (`pytest11` entry point): `@pytest.mark.mcp_recording` records a test's sessions once against
the real server and replays them with no server; with no recording, the default mode fails naming the mode that
records it. Each run is a separate pytest process loading the plugin from its entry point, as a user's would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import prewarmed
import pytest

pytest_plugins = ("pytester",)

INNER = """
import os
import sys

import pytest

sys.path.insert(0, os.environ["PACKAGE_PARENT"])
from everything_now import AsyncClient, Client  # noqa: E402

COMMAND = os.environ["SERVER_COMMAND"].split("\\x1f")


@pytest.fixture
def client():
    env = {"TOKEN": "tok-secret-value"}
    with Client.stdio(COMMAND[0], COMMAND[1:], env=env, stderr="discard", timeout=60) as client:
        yield client


@pytest.mark.mcp_recording
def test_sum(client):
    assert client.get_sum(a=2, b=3).text == "The sum of 2 and 3 is 5."
    assert '"TOKEN"' in client.get_env().text


@pytest.mark.mcp_recording("shared-name")
def test_named(client):
    assert client.echo(message="hi").text == "Echo: hi"


@pytest.mark.mcp_recording
def test_twice():
    for _ in range(int(os.environ.get("CONNECTIONS", "1"))):
        with Client.stdio(COMMAND[0], COMMAND[1:], env={"TOKEN": "tok-secret-value"}, stderr="discard") as c:
            c.get_sum(a=1, b=1)


def test_unmarked():
    assert True
"""


@pytest.fixture
def project(pytester: pytest.Pytester, everything: ModuleType, everything_command: list[str]) -> pytest.Pytester:
    pytester.makepyfile(test_inner=INNER)
    package_parent = Path(everything.__file__).parents[1]
    pytester._monkeypatch.setenv("PACKAGE_PARENT", str(package_parent))
    pytester._monkeypatch.setenv("SERVER_COMMAND", "\x1f".join(everything_command))
    # Each run's pytest starts prewarmed (tests/prewarmed.py): a process of its own all the same, loading its plugins.
    pytester._monkeypatch.setattr(pytester, "_getpytestargs", lambda: tuple(prewarmed.command(["-m", "pytest"])))
    return pytester


#: A server command that cannot start: a test passing with it ran with no server.
NO_SERVER = ["/nonexistent/node", "server.js"]


def _run(project: pytest.Pytester, *arguments: str, command: list[str]) -> pytest.RunResult:
    project._monkeypatch.setenv("SERVER_COMMAND", "\x1f".join(command))
    return project.runpytest_subprocess("-p", "no:cacheprovider", *arguments)


def test_records_once_then_replays_with_no_server(project: pytest.Pytester, everything_command: list[str]) -> None:
    recordings = project.path / "recordings" / "test_inner"
    recorded = _run(project, "--mcp-record-mode=once", "-k", "sum or named or unmarked", command=everything_command)
    recorded.assert_outcomes(passed=3)
    files = sorted(path.name for path in recordings.iterdir())
    assert files == ["shared-name.ndjson", "test_sum.ndjson"]  # the marker's name names the file
    first = (recordings / "test_sum.ndjson").read_text(encoding="utf-8")
    assert "tok-secret-value" not in first and "<redacted:env:TOKEN>" in first
    # No server, no process: the command does not exist, and the default mode replays.
    replayed = _run(project, "-k", "sum or named or unmarked", command=NO_SERVER)
    replayed.assert_outcomes(passed=3)
    # `once` again replays too: the file is untouched.
    _run(project, "--mcp-record-mode=once", "-k", "sum", command=NO_SERVER).assert_outcomes(passed=1)
    assert (recordings / "test_sum.ndjson").read_text(encoding="utf-8") == first


def test_with_no_recording_the_default_mode_fails_naming_the_mode(project: pytest.Pytester) -> None:
    result = _run(project, "-k", "sum or unmarked", command=NO_SERVER)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*no MCP recording *recordings/test_inner/test_sum.ndjson*--mcp-record-mode=once*"])
    assert not (project.path / "recordings").exists()  # nothing recorded behind the user's back


def test_all_records_again_and_new_adds_connections(project: pytest.Pytester, everything_command: list[str]) -> None:
    path = project.path / "recordings" / "test_inner" / "test_twice.ndjson"
    _run(project, "--mcp-record-mode=all", "-k", "twice", command=everything_command).assert_outcomes(passed=1)
    assert "tok-secret-value" not in path.read_text(encoding="utf-8")
    starts = lambda: sum('"$transport/start"' in line for line in path.read_text(encoding="utf-8").splitlines())  # noqa: E731
    assert starts() == 1
    project._monkeypatch.setenv("CONNECTIONS", "2")
    more = _run(project, "-k", "twice", command=NO_SERVER)  # replay only: a second connection fails
    more.assert_outcomes(failed=1)
    more.stdout.fnmatch_lines(["*holds 1 session(s), all replayed already*--mcp-record-mode=all*"])
    # The second connection is recorded live and appended.
    _run(project, "--mcp-record-mode=new", "-k", "twice", command=everything_command).assert_outcomes(passed=1)
    assert starts() == 2
    _run(project, "-k", "twice", command=NO_SERVER).assert_outcomes(passed=1)
    project._monkeypatch.setenv("CONNECTIONS", "1")
    fewer = _run(project, "-k", "twice", command=NO_SERVER)
    fewer.assert_outcomes(passed=1, errors=1)  # a recorded session never replayed fails at teardown
    fewer.stdout.fnmatch_lines(["*1 recorded session(s) never replayed*"])
    _run(project, "--mcp-record-mode=all", "-k", "twice", command=everything_command).assert_outcomes(passed=1)
    assert starts() == 1
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert {line["_meta"]["server"] for line in lines} == {"everything_now"}


def test_the_plugin_costs_nothing_unused() -> None:
    """Loading the plugin imports pytest and nothing of the runtime's heavy parts."""
    code = (
        "import sys, mcp_codegen_runtime.recordings.pytest_plugin as plugin; "
        "heavy = [m for m in ('mcp', 'mcp_types', 'pydantic', 'anyio', 'httpx2') if m in sys.modules]; "
        "print(heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
