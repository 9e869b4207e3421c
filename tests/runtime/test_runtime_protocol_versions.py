"""Every protocol version the SDK speaks: servers that know only 2026-07-28 (no `initialize`) as well as older ones.

The 2026-07-28-only server is the SDK's own server in its modern serving loop (stdio) or behind a gate that
refuses the handshake the way such a server does (HTTP). A package is generated from its snapshot, taken with
the real CLI; its client connects, calls tools and answers the server's multi-round `InputRequiredResult`
through the same `elicitation=` handler that answers `elicitation/create` on older versions.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from helpers import imported_package
from servers.helpers import HOST, RefuseHandshake, serve_app
from servers.modern_server import build

from mcp_codegen.cli import cli
from mcp_codegen.demo.server import build_server as build_demo
from mcp_codegen_runtime.server_requests import Accept, Decline, ElicitationRequest

pytestmark = pytest.mark.anyio

MODERN_SERVER = Path(__file__).resolve().parents[1] / "servers" / "modern_server.py"
STDIO = f"{sys.executable} {MODERN_SERVER}"


def _run(*arguments: str) -> None:
    assert cli.main(args=[*arguments, "-q"], standalone_mode=False) in (None, 0)


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("modern") / "snapshot.json"
    _run("snapshot", "--stdio", STDIO, "-o", str(target))
    return target


@pytest.fixture(scope="module")
def modern(snapshot_file: Path) -> Iterator[ModuleType]:
    """A client package generated from the 2026-07-28-only server's snapshot (its launch: that server over stdio)."""
    target = snapshot_file.parent / "modern_client"
    _run("generate", "--snapshot", str(snapshot_file), "-o", str(target))
    with imported_package(target) as package:
        yield package


def test_a_server_without_initialize_is_snapshotted_over_stdio(snapshot_file: Path) -> None:
    data = json.loads(snapshot_file.read_text())
    assert data["protocolVersion"] == "2026-07-28"
    assert data["serverInfo"] == {"name": "modern-only", "version": "3.0.0"}
    assert data["instructions"] == "Speaks 2026-07-28 only."
    assert [tool["name"] for tool in data["tools"]] == ["ask_name", "echo"]


def test_a_server_refusing_the_handshake_is_snapshotted_and_checked_over_http(tmp_path: Path) -> None:
    gate = RefuseHandshake(build().streamable_http_app(host=HOST))
    with serve_app(gate) as base:
        url = base + "/mcp"
        target = tmp_path / "snapshot.json"
        _run("snapshot", "--url", url, "-o", str(target))
        assert json.loads(target.read_text())["protocolVersion"] == "2026-07-28"
        _run("check", "--against", str(target), "--url", url)
    assert gate.handshakes == 2  # tried once per connection, then `server/discover`


async def test_the_generated_client_talks_2026_07_28_over_stdio(modern: ModuleType) -> None:
    async with modern.AsyncClient.connect(timeout=30) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.server_info.name == "modern-only"
        assert (await client.echo(text="hi")).text == "hi"


def test_the_sync_client_talks_2026_07_28(modern: ModuleType) -> None:
    with modern.Client.connect(timeout=30) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.echo(text="sync").text == "sync"


async def test_input_required_is_answered_by_the_elicitation_handler(modern: ModuleType) -> None:
    asked: list[ElicitationRequest] = []

    def answer(request: ElicitationRequest) -> Accept:
        asked.append(request)
        return Accept({})  # the schema's default fills the name in

    async with modern.AsyncClient.connect(timeout=30, elicitation=answer) as client:
        result = await client.ask_name()
    assert [request.message for request in asked] == ["Your name?"]
    assert result.text == "hello {'action': 'accept', 'content': {'name': 'Ada'}}"


async def test_input_required_declined_and_unanswerable(modern: ModuleType) -> None:
    async with modern.AsyncClient.connect(timeout=30, elicitation=lambda request: Decline()) as client:
        assert (await client.ask_name()).text == "hello {'action': 'decline'}"
    async with modern.AsyncClient.connect(timeout=30) as client:
        with pytest.raises(modern.ServerRequestError, match="Elicitation not supported"):
            await client.ask_name()


async def test_input_required_through_with_options(modern: ModuleType) -> None:
    async with modern.AsyncClient.connect(timeout=30, elicitation=lambda request: Accept({"name": "Bo"})) as client:
        result = await client.with_options(timeout=20).ask_name()
    assert result.text == "hello {'action': 'accept', 'content': {'name': 'Bo'}}"


async def test_http_client_falls_back_to_discover(modern: ModuleType) -> None:
    gate = RefuseHandshake(build().streamable_http_app(host=HOST))
    with serve_app(gate) as base:
        async with modern.AsyncClient.http(base + "/mcp", timeout=30, transport="http") as client:
            assert client.protocol_version == "2026-07-28"
            assert (await client.echo(text="over http")).text == "over http"


@pytest.fixture(scope="module")
def handshake_era(snapshot_file: Path) -> Iterator[ModuleType]:
    """The same tools, generated from a snapshot that negotiated the 2025-11-25 handshake."""
    data = json.loads(snapshot_file.read_text(encoding="utf-8"))
    data["protocolVersion"] = "2025-11-25"
    older = snapshot_file.parent / "older_snapshot.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    target = snapshot_file.parent / "older_client"
    _run("generate", "--snapshot", str(older), "-o", str(target))
    with imported_package(target) as package:
        yield package


async def test_a_package_from_a_handshake_era_server_keeps_the_handshake(handshake_era: ModuleType) -> None:
    """Legacy first for a package generated over the handshake: a dual-era server (the SDK's) is never probed with
    `server/discover` (a server that ignores it would cost the SDK's 10 s probe)."""
    gate = RefuseHandshake(build_demo().streamable_http_app(host=HOST), refuse=False)
    with serve_app(gate) as base:
        async with handshake_era.AsyncClient.http(base + "/mcp", timeout=30, drift_check=False) as client:
            assert client.protocol_version != "2026-07-28"
    assert gate.methods[0] == "initialize"
    assert "server/discover" not in gate.methods


async def test_a_package_from_a_2026_server_starts_with_discover(modern: ModuleType) -> None:
    """A package generated from a 2026-07-28 server speaks it from the first request, also to a dual-era server
    (which would accept the handshake, and then miss the per-request `_meta` and headers it expects)."""
    gate = RefuseHandshake(build_demo().streamable_http_app(host=HOST), refuse=False)
    with serve_app(gate) as base:
        async with modern.AsyncClient.http(base + "/mcp", timeout=30, drift_check=False) as client:
            assert client.protocol_version == "2026-07-28"
    assert gate.methods[0] == "server/discover"
    assert "initialize" not in gate.methods
