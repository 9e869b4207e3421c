"""Where the recording tests' files are, and generating a package from the command line as a user would."""

from __future__ import annotations

from pathlib import Path

from mcp_codegen.cli import cli

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EVERYTHING_SNAPSHOT = ROOT / "generated_examples" / "everything_client" / "snapshot.json"
#: The knowledge-graph server's snapshot and recorded sessions (`record.py` makes them again).
KNOWLEDGE_GRAPH = HERE / "knowledge_graph"
#: Recordings made by other clients (mcporter 0.12.3).
FIXTURES = HERE / "fixtures"


def generate(target: Path, *arguments: str) -> None:
    result = cli.main(args=["generate", *arguments, "-o", str(target), "-q"], standalone_mode=False)
    assert result in (None, 0)
