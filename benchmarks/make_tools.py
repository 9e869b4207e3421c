"""Build N realistic MCP tools, deterministically, for the benchmarks.

The tools are real wire data: `data/corpus_tools.json` holds the tool listings of 13 published MCP
servers (copied from the shared corpus). Tools are taken round-robin across the servers (so even
N=10 mixes styles), cycling when N exceeds the corpus, and renamed uniquely with a `_vNNNN` suffix (not `_NNNN`: a
name segment starting with a digit gives class names like `Echo_0042Arguments`, which
datamodel-code-generator renames to `Echo0042Arguments`, so those tools' models went missing).
Input and output schemas are kept as they are. A corpus tool without an `outputSchema` gets a copy of
another corpus tool's output schema, except every fourth one, so about 85% of the tools have one
(real listings mix both; every output schema adds a result model to generate).

    python benchmarks/make_tools.py 100 --snapshot snap.json --tools tools.json
"""

from __future__ import annotations

import argparse
import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "corpus_tools.json"

Tool = dict[str, Any]


@cache
def _corpus() -> tuple[tuple[Tool, ...], tuple[dict[str, Any], ...]]:
    """(tools round-robin across servers, the output schemas found in the corpus)."""
    servers = json.loads(DATA.read_text(encoding="utf-8"))["servers"]
    lists = [server["tools"] for server in sorted(servers, key=lambda s: s["label"])]
    tools: list[Tool] = []
    for index in range(max(len(items) for items in lists)):
        tools.extend(items[index] for items in lists if index < len(items))
    outputs = [tool["outputSchema"] for tool in tools if isinstance(tool.get("outputSchema"), dict)]
    return tuple(tools), tuple(outputs)


def corpus_size() -> int:
    return len(_corpus()[0])


def make_tools(count: int) -> list[Tool]:
    """`count` tools with unique names; the same `count` always gives the same list."""
    corpus, outputs = _corpus()
    tools = []
    for index in range(count):
        tool = copy.deepcopy(corpus[index % len(corpus)])
        suffix = f"_v{index:04d}"
        tool["name"] = f"{tool['name']}{suffix}"
        if isinstance(tool.get("title"), str):
            tool["title"] = f"{tool['title']} {index:04d}"
        if "outputSchema" not in tool and index % 4 != 3:
            tool["outputSchema"] = copy.deepcopy(outputs[(index * 7) % len(outputs)])
        tools.append(tool)
    return tools


def snapshot_dict(tools: list[Tool], *, name: str = "bench-server") -> dict[str, Any]:
    """An mcp-codegen snapshot (format 1) listing `tools`."""
    return {
        "formatVersion": 1,
        "serverInfo": {"name": name, "version": "1.0.0"},
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "instructions": None,
        "tools": tools,
        "resources": [],
        "resourceTemplates": [],
        "prompts": [],
    }


def tools_document(tools: list[Tool]) -> dict[str, Any]:
    """The `tools/list` result datamodel-code-generator's `mcp-tools` input reads."""
    return {"tools": tools}


def write_inputs(count: int, directory: Path) -> tuple[Path, Path]:
    """Write `snap.json` (ours) and `tools.json` (datamodel-codegen) for `count` tools into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    tools = make_tools(count)
    snapshot = directory / "snap.json"
    listing = directory / "tools.json"
    snapshot.write_text(json.dumps(snapshot_dict(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    listing.write_text(json.dumps(tools_document(tools), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return snapshot, listing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int)
    parser.add_argument("--snapshot", type=Path, help="write an mcp-codegen snapshot here")
    parser.add_argument("--tools", type=Path, help="write a tools/list result (for datamodel-codegen) here")
    arguments = parser.parse_args()
    tools = make_tools(arguments.count)
    if arguments.snapshot:
        arguments.snapshot.write_text(json.dumps(snapshot_dict(tools), indent=2, sort_keys=True) + "\n")
    if arguments.tools:
        arguments.tools.write_text(json.dumps(tools_document(tools), indent=2, sort_keys=True) + "\n")
    with_output = sum(1 for tool in tools if "outputSchema" in tool)
    print(f"{len(tools)} tools ({with_output} with outputSchema) from a corpus of {corpus_size()}")


if __name__ == "__main__":
    main()
