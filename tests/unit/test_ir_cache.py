"""A tool's IR read back from its cache entry is the IR built afresh, and the entry is what `asdict` writes."""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers import corpus_names, corpus_snapshot

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import ir_cache
from mcp_codegen.generate.build_ir import plan_tools, tool_ir
from mcp_codegen.generate.tool_models import tool_models


@pytest.mark.parametrize("name", corpus_names())
def test_an_entry_reads_back_as_the_ir_it_was_written_from(name: str) -> None:
    snapshot = corpus_snapshot(name)
    diagnostics = Diagnostics()
    plans = plan_tools(snapshot, diagnostics)
    models = tool_models(plans, diagnostics, workers=1)
    for plan in plans:
        part = tool_ir(plan, models)
        entry = json.loads(json.dumps(ir_cache._as_json(part)))
        expected = {
            "tool": dataclasses.asdict(part.tool),
            "argumentModels": [dataclasses.asdict(model) for model in part.argument_models],
            "diagnostics": [diagnostic.as_json() for diagnostic in part.diagnostics],
        }
        assert entry == json.loads(json.dumps(expected))
        assert ir_cache._from_json(entry) == part


def test_an_entry_missing_a_field_is_a_miss() -> None:
    snapshot = corpus_snapshot("github")
    diagnostics = Diagnostics()
    plans = plan_tools(snapshot, diagnostics)
    models = tool_models(plans, diagnostics, workers=1)
    entry = json.loads(json.dumps(ir_cache._as_json(tool_ir(plans[0], models))))
    del entry["tool"]["wire_name"]
    assert ir_cache._from_json(entry) is None
