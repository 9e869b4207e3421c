"""take_snapshot and skills: a server listing skill:// resources over the legacy handshake is asked again at
2026-07-28 (the real FastMCP case is tests/e2e/test_skills.py); when that second connection fails, the legacy
snapshot stands, with a warning."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.inputs.launch import StdioLaunch
from mcp_codegen.snapshot.fetch import take_snapshot

pytestmark = pytest.mark.anyio

#: Serves one skill:// resource on its first launch; exits at once on every later one.
_ONCE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    marker = Path(sys.argv[1])
    if marker.exists():
        sys.exit(3)
    marker.write_text("started")
    from mcp.server.mcpserver import MCPServer
    server = MCPServer("once")

    @server.resource("skill://demo/SKILL.md")
    def skill() -> str:
        return "---\\nname: demo\\ndescription: d\\n---\\n"

    server.run()
    """
)


async def test_a_failed_second_connection_keeps_the_legacy_snapshot(tmp_path: Path) -> None:
    script = tmp_path / "once.py"
    script.write_text(_ONCE, encoding="utf-8")
    diagnostics = Diagnostics()
    launch = StdioLaunch(sys.executable, (str(script), str(tmp_path / "marker")))
    snapshot = await take_snapshot(launch, timeout=30.0, diagnostics=diagnostics)
    assert snapshot.protocol_version == "2025-11-25"
    assert snapshot.skills is None
    assert [r["uri"] for r in snapshot.resources] == ["skill://demo/SKILL.md"]
    assert [d.code for d in diagnostics.warnings] == ["skills-not-listed"]
