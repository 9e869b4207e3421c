"""Generation-time selection: --include/--exclude globs, description overrides, the agent tool prefix."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from helpers import ROOT

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.fingerprint import input_hash
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions, Selection
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import read_snapshot

DEMO = read_snapshot(ROOT / "generated_examples" / "demo_client" / "snapshot.json")


def test_include_exclude_and_overrides(tmp_path: Path) -> None:
    options = GenerateOptions(
        Selection(include=("get_*", "add"), exclude=("get_note",), descriptions={"add": "Sum.", "nope": "x"}),
        tool_prefix="demo_",
    )
    diagnostics = Diagnostics()
    files = generate_files(DEMO, package_name="selected_pkg", diagnostics=diagnostics, options=options)
    assert [d.location for d in diagnostics] == ["descriptions.nope"]
    write_package(tmp_path / "selected_pkg", files, overwrite=True)
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("selected_pkg")
        assert sorted(package.TOOLS) == ["add", "get_weather"]
        assert package.TOOLS["add"].description == "Sum."
        assert package.TOOLS["get_weather"].description == DEMO.tools[4]["description"]
        assert importlib.import_module("selected_pkg.specs").TOOL_PREFIX == "demo_"
        assert not hasattr(package.AsyncClient, "get_note")
    finally:
        sys.path.remove(str(tmp_path))
    # The snapshot embedded is still the whole server (drift checks compare it).
    assert files["snapshot.json"] == DEMO.to_text().encode()


def test_options_are_part_of_the_input_hash() -> None:
    plain = input_hash(DEMO, "pkg")
    assert input_hash(DEMO, "pkg", GenerateOptions(Selection(exclude=("add",)))) != plain
    assert input_hash(DEMO, "pkg", GenerateOptions(tool_prefix="x")) != plain
    assert input_hash(DEMO, "pkg", GenerateOptions()) == plain
