"""Record the knowledge-graph fixtures again: `python tests/recordings/knowledge_graph/record.py`.

Runs the pinned `@itseasy21/mcp-knowledge-graph` (tests/servers/knowledge_graph, installed by
tests/servers/install.py) with a fresh memory file, takes its snapshot (`snapshot.json`, the launch left out:
it names this machine's paths) and records sessions of a client generated from it into `sessions/`, each with
`record=`: a graph built and read back, and an empty graph read. None of its 11 tools declares an output
schema; most answer JSON text. The tests generate from these files with `--results-from` and replay them.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from servers.install import knowledge_graph_command  # noqa: E402

from mcp_codegen.cli import cli  # noqa: E402


async def build_graph(client_class: Any, *, memory: Path, record: Path) -> None:
    command = knowledge_graph_command(memory)
    async with client_class.stdio(command[0], command[1:], stderr="discard", record=record) as kg:
        await kg.create_entities(
            entities=[
                {"name": "Ada Lovelace", "entityType": "person", "observations": ["wrote the first program"]},
                {"name": "Charles Babbage", "entityType": "person", "observations": ["designed the engine"]},
                {"name": "Analytical Engine", "entityType": "machine", "observations": []},
            ]
        )
        await kg.create_relations(
            relations=[
                {"from": "Ada Lovelace", "to": "Analytical Engine", "relationType": "programmed"},
                {"from": "Charles Babbage", "to": "Analytical Engine", "relationType": "designed"},
            ]
        )
        await kg.add_observations(observations=[{"entityName": "Ada Lovelace", "contents": ["born in 1815"]}])
        await kg.read_graph()
        await kg.search_nodes(query="engine")
        await kg.open_nodes(names=["Ada Lovelace"])
        await kg.delete_relations(
            relations=[{"from": "Charles Babbage", "to": "Analytical Engine", "relationType": "designed"}]
        )


async def empty_graph(client_class: Any, *, memory: Path, record: Path) -> None:
    command = knowledge_graph_command(memory)
    async with client_class.stdio(command[0], command[1:], stderr="discard", record=record) as kg:
        await kg.read_graph()
        await kg.search_nodes(query="nothing")


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        command = knowledge_graph_command(work / "snapshot-memory.jsonl")
        package = work / "knowledge_graph_client"
        arguments = ["generate", "--stdio", " ".join(command), "-o", str(package), "-q"]
        cli.main(args=arguments, standalone_mode=False)
        snapshot = json.loads((package / "snapshot.json").read_text(encoding="utf-8"))
        snapshot.pop("launch", None)
        (HERE / "snapshot.json").write_text(json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        sys.path.insert(0, str(work))
        from knowledge_graph_client import AsyncClient

        sessions = HERE / "sessions"
        sessions.mkdir(exist_ok=True)
        anyio.run(lambda: build_graph(AsyncClient, memory=work / "built.jsonl", record=sessions / "build_graph.ndjson"))
        anyio.run(lambda: empty_graph(AsyncClient, memory=work / "empty.jsonl", record=sessions / "empty_graph.ndjson"))


if __name__ == "__main__":
    main()
