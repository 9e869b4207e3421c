"""Fixtures of the recording tests: client packages generated now (server-everything's committed snapshot, the
knowledge-graph server's with its recorded sessions), and an HTTP server that echoes the headers it gets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import imported_package
from mcp.server.mcpserver import Context, MCPServer
from recording_files import EVERYTHING_SNAPSHOT, KNOWLEDGE_GRAPH, generate
from servers.helpers import serve_http


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """A client package generated now, with this runtime, from the committed server-everything snapshot."""
    target = tmp_path_factory.mktemp("everything") / "everything_now"
    generate(target, "--snapshot", str(EVERYTHING_SNAPSHOT))
    with imported_package(target) as package:
        yield package


@pytest.fixture(scope="module")
def knowledge_graph_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The knowledge-graph client generated from its snapshot and its recorded sessions (`--results-from`)."""
    target = tmp_path_factory.mktemp("kg") / "knowledge_graph_client"
    generate(
        target,
        "--snapshot",
        str(KNOWLEDGE_GRAPH / "snapshot.json"),
        "--results-from",
        str(KNOWLEDGE_GRAPH / "sessions"),
    )
    return target


@pytest.fixture(scope="module")
def knowledge_graph(knowledge_graph_dir: Path) -> Iterator[ModuleType]:
    with imported_package(knowledge_graph_dir) as package:
        yield package


def header_echo() -> MCPServer:
    """A server whose `headers` tool answers the HTTP headers of the request, as JSON text."""
    server = MCPServer("header-echo", version="1.0.0")

    @server.tool()
    def headers(ctx: Context[Any, Any]) -> dict[str, str]:
        return dict(ctx.headers or {})

    return server


@pytest.fixture(scope="module")
def header_echo_url() -> Iterator[str]:
    with serve_http(header_echo()) as url:
        yield url
