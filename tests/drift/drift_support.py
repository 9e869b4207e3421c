"""Real listings as mutable snapshot data, for the drift tests.

`source(name)` gives a fresh deep copy of the wire data of one real listing, ready for `Snapshot.from_json`:
`demo`, `everything` and `pdf` (the MCP Apps PDF server) are the snapshots embedded in
`generated_examples/*/snapshot.json`; `skills` is a FastMCP 4.2.3 server's (two skills, tests/fake); any other name is a
corpus listing (`tests/corpus/<name>.json`, given the snapshot format version).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from mcp_codegen.snapshot.model import Snapshot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "demo": ROOT / "generated_examples" / "demo_client",
    "everything": ROOT / "generated_examples" / "everything_client",
    "pdf": ROOT / "generated_examples" / "pdf_client",
}
SKILLS = ROOT / "tests" / "fake" / "skills_snapshot.json"
CORPUS = ROOT / "tests" / "corpus"

Data = dict[str, Any]


@cache
def _raw(name: str) -> str:
    if name in EXAMPLES:
        return (EXAMPLES[name] / "snapshot.json").read_text(encoding="utf-8")
    if name == "skills":
        return SKILLS.read_text(encoding="utf-8")
    data = json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))
    data["formatVersion"] = 1
    return json.dumps(data)


def source(name: str) -> Data:
    data: Data = json.loads(_raw(name))
    return copy.deepcopy(data)


def snapshot(data: Data) -> Snapshot:
    return Snapshot.from_json(data, source="test")


def tool(data: Data, name: str) -> Data:
    return next(t for t in data["tools"] if t["name"] == name)


def prompt(data: Data, name: str) -> Data:
    return next(p for p in data["prompts"] if p["name"] == name)


def argument(data: Data, prompt_name: str, name: str) -> Data:
    return next(a for a in prompt(data, prompt_name)["arguments"] if a["name"] == name)


def resource(data: Data, uri: str) -> Data:
    return next(r for r in data["resources"] if r["uri"] == uri)


def template(data: Data, uri_template: str) -> Data:
    return next(t for t in data["resourceTemplates"] if t["uriTemplate"] == uri_template)


def input_props(data: Data, tool_name: str) -> Data:
    props: Data = tool(data, tool_name)["inputSchema"]["properties"]
    return props


def output_props(data: Data, tool_name: str) -> Data:
    props: Data = tool(data, tool_name)["outputSchema"]["properties"]
    return props


def all_sources() -> list[str]:
    return ["demo", "everything", *sorted(p.stem for p in CORPUS.glob("*.json"))]
