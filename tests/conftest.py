"""Shared pytest fixtures: the servers the tests run against.

Fixtures (all usable from any test under tests/):

* ``demo_stdio_command`` (session) -> ``list[str]``: the command line that runs the demo server over stdio,
  ``python -m mcp_codegen.demo`` started prewarmed (tests/prewarmed.py).
* ``demo_http_url`` (session) -> ``str``: URL of one demo server over streamable HTTP, served in-process on
  127.0.0.1 for the whole session (``http://127.0.0.1:PORT/mcp``). Shared: the demo server is stateless.
* ``demo_server`` (function) -> ``MCPServer``: a fresh demo server, for in-memory ``mcp.Client(demo_server)``.
* ``everything_command`` (session) -> ``list[str]``: the command line that runs the pinned npm
  ``@modelcontextprotocol/server-everything`` over stdio, installing it first if needed. When node/npm are
  missing or the install fails, every test using it FAILS (it is never skipped).
* ``anyio_backend`` (session) -> ``"asyncio"``: for ``@pytest.mark.anyio`` tests.

To serve any other server over HTTP in a test, use the helpers directly::

    from servers.helpers import serve_http, serve_sse
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer

# The per-tool model cache of the test run stays out of the user's cache directory (subprocesses inherit it).
if "MCP_CODEGEN_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["MCP_CODEGEN_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcp-codegen-test-cache-")

# tests/ on sys.path, so that `servers` (tests/servers) imports the same way from anywhere under tests/.
_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

import budget  # noqa: E402
import prewarmed  # noqa: E402
from servers import install as _install  # noqa: E402 (after the sys.path line above)
from servers.helpers import serve_http  # noqa: E402

from mcp_codegen.demo.server import build_server  # noqa: E402


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio only."""
    return "asyncio"


@pytest.fixture(scope="session")
def demo_stdio_command() -> list[str]:
    """The command line that runs the demo server over stdio (``python -m mcp_codegen.demo``, prewarmed)."""
    return prewarmed.command(["-m", "mcp_codegen.demo"])


@pytest.fixture
def demo_server() -> MCPServer:
    """A fresh demo ``MCPServer`` (from ``build_server()``) for in-memory ``mcp.Client(demo_server)`` use."""
    return build_server()


@pytest.fixture(scope="session")
def demo_http_url() -> Iterator[str]:
    """The demo server over streamable HTTP on 127.0.0.1 (free port), in-process, for the whole session."""
    with serve_http(build_server()) as url:
        yield url


@pytest.fixture(scope="session")
def everything_command() -> list[str]:
    """The stdio command line of the pinned npm server-everything, installed once if missing.

    Fails (never skips) when node/npm are unavailable or the install fails.
    """
    try:
        return _install.everything_command()
    except _install.InstallError as exc:
        pytest.fail(
            f"cannot provide @modelcontextprotocol/server-everything: {exc}\n"
            "Install Node.js >= 20 with npm and run `python tests/servers/install.py`.",
            pytrace=False,
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    budget.check_slow_reasons(items)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    budget.note_duration(report)  # on the controller too: xdist's workers send their reports there


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = budget.over_budget_lines()
    if lines:
        terminalreporter.section(f"over the {budget.BUDGET_SECONDS:g} s budget without a slow mark (CONTRIBUTING.md)")
        for line in lines:
            terminalreporter.write_line(line)
