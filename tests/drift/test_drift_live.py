"""Drift against a live server whose tools change between two runs: `mcp-codegen check` and the client's guard."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import prewarmed
import pytest
from helpers import imported_package

SERVER = textwrap.dedent(
    '''
    import os
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("changing", version="1")
    VERSION = os.environ.get("DRIFT_VERSION", "1")

    if VERSION == "1":
        @server.tool()
        def add(a: int, b: int) -> int:
            """Add two integers."""
            return a + b

        @server.tool()
        def legacy(text: str) -> str:
            """A tool the second version removes."""
            return text
    else:
        @server.tool()
        def add(a: int, b: int, c: int) -> int:
            """Add three integers (a new required argument)."""
            return a + b + c

    @server.tool()
    def echo(text: str) -> str:
        """Unchanged between the versions."""
        return text

    server.run()
    '''
)


def run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *arguments]), cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("drift_live")
    (root / "server.py").write_text(SERVER)
    result = run(
        "generate", "--stdio", f"{sys.executable} server.py", "-e", "DRIFT_VERSION=1", "-o", "changing_client", cwd=root
    )
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="module")
def package(project: Path) -> Iterator[Any]:
    with imported_package(project / "changing_client") as package:
        yield package


def check(project: Path, version: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return run(
        "check", "--stdio", f"{sys.executable} server.py", "-e", f"DRIFT_VERSION={version}",
        "--against", "changing_client", *extra, cwd=project,
    )  # fmt: skip


def test_unchanged_server_is_no_drift(project: Path) -> None:
    result = check(project, "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "no schema drift\n"


def test_changed_server_is_breaking_drift(project: Path) -> None:
    result = check(project, "2", "--format", "json")
    assert result.returncode == 1, result.stderr
    findings = {(f["rule"], f["location"], f["level"]) for f in json.loads(result.stdout)["findings"]}
    assert ("tool-removed", "tools.legacy", "breaking") in findings
    assert any(
        level == "breaking" and location.startswith("tools.add.input") and "required" in rule
        for rule, location, level in findings
    ), findings
    assert not any(location.startswith("tools.echo") for _, location, _ in findings)


def test_github_annotations_and_an_unreachable_server(project: Path) -> None:
    result = check(project, "2", "--format", "github")
    assert result.returncode == 1 and "::error" in result.stdout
    gone = run("check", "--stdio", "no-such-mcp-server-command", "--against", "changing_client", cwd=project)
    assert gone.returncode == 2  # a comparison that could not be made never reads as "no drift"
    assert gone.stdout == "" and "command not found" in gone.stderr


@pytest.mark.anyio
async def test_client_guard_warns_raises_or_stays_quiet(
    project: Path, package: Any, caplog: pytest.LogCaptureFixture
) -> None:
    command, args = sys.executable, [str(project / "server.py")]
    changed = {"DRIFT_VERSION": "2"}
    with caplog.at_level(logging.WARNING):
        async with package.AsyncClient.stdio(command, args, env={"DRIFT_VERSION": "1"}) as client:
            assert await client.echo(text="same") == "same"
    assert not [r for r in caplog.records if "drift" in r.getMessage()]

    with caplog.at_level(logging.WARNING):
        async with package.AsyncClient.stdio(command, args, env=changed) as client:
            assert await client.echo(text="still works") == "still works"
    warnings = [r.getMessage() for r in caplog.records if "drifted" in r.getMessage()]
    assert len(warnings) == 1 and "legacy" in warnings[0] and "add" in warnings[0]

    with pytest.raises(package.SchemaDriftError) as raised:
        async with package.AsyncClient.stdio(command, args, env=changed, strict=True):
            pytest.fail("strict=True must raise before the body runs")
    assert raised.value.summary.removed == ("legacy",) and raised.value.summary.changed == ("add",)

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        async with package.AsyncClient.stdio(command, args, env=changed, drift_check=False) as client:
            assert await client.echo(text="x") == "x"
    assert not [r for r in caplog.records if "drift" in r.getMessage()]


@pytest.mark.anyio
async def test_a_session_of_your_own_is_checked_on_request(project: Path, package: Any) -> None:
    """`from_session` clients run no guard by themselves; `check_drift()` runs it on demand."""
    from mcp import StdioServerParameters
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    for version, drifted in (("1", False), ("2", True)):
        parameters = StdioServerParameters(
            command=sys.executable, args=[str(project / "server.py")], env={"DRIFT_VERSION": version}
        )
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            client = package.AsyncClient.from_session(session)
            summary = await client.check_drift()
            assert summary is not None and summary.drifted is drifted
            if drifted:
                with pytest.raises(package.SchemaDriftError, match="legacy"):
                    await client.check_drift(strict=True)
