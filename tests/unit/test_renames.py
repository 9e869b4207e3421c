"""One naming rule for methods, parameters and model fields (snake_case, wire name as alias), every rename reported."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import generate_into, imported_package, snapshot_of
from pydantic import BaseModel

from mcp_codegen.casing import words
from mcp_codegen.diagnostics import Level
from mcp_codegen.generate.manifest import recorded_diagnostics

ENTITY = {
    "type": "object",
    "properties": {"entityType": {"type": "string"}, "name": {"type": "string"}, "HTTPCode": {"type": "integer"}},
    "required": ["entityType"],
}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "sympy_And",
        "inputSchema": {
            "type": "object",
            "properties": {"entityNames": {"type": "array", "items": {"type": "string"}}, "entity": ENTITY},
            "required": ["entityNames"],
        },
        "outputSchema": {"type": "object", "properties": {"matchedEntity": ENTITY, "total_count": {"type": "integer"}}},
    },
    {"name": "sympy_Point3D", "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}}}},
    {"name": "get_sum", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}}},
    {"name": "get-sum", "inputSchema": {"type": "object", "properties": {"class": {"type": "string"}}}},
]


def test_words_keep_a_digits_capital_suffix() -> None:
    assert words("sympy_Point3D") == ["sympy", "point3d"]
    assert words("getHTTPResponse-v2") == ["get", "http", "response", "v2"]
    assert words("ipv4Address") == ["ipv4", "address"]
    assert words("HTTP2Server") == ["http2", "server"]


def test_one_rule_for_methods_parameters_and_fields_and_every_rename_reported(tmp_path: Path) -> None:
    diagnostics = generate_into(tmp_path, snapshot_of(TOOLS), "renamed")
    notes = {d.location: d.message for d in diagnostics if d.level is Level.INFO}
    assert not diagnostics.problems, [str(d) for d in diagnostics.problems]
    top = "tools.sympy_And.inputSchema.properties"
    out = "tools.sympy_And.outputSchema.properties"
    assert set(notes) == {
        "tools.sympy_And",
        "tools.sympy_Point3D",
        "tools.get-sum",
        "tools.get-sum.inputSchema.properties.class",
        f"{top}.entityNames",
        f"{top}.entity.properties.entityType",
        f"{top}.entity.properties.HTTPCode",
        f"{out}.matchedEntity",
        f"{out}.matchedEntity.properties.entityType",
        f"{out}.matchedEntity.properties.HTTPCode",
    }
    assert notes["tools.sympy_And"].startswith("method renamed to sympy_and ('sympy_And' is not a snake_case name)")
    assert notes["tools.sympy_Point3D"].startswith("method renamed to sympy_point3d")
    assert notes["tools.get-sum"].startswith("method renamed to get_sum_2 (get_sum is taken by 'get_sum')")
    assert notes["tools.get-sum.inputSchema.properties.class"].startswith(
        "parameter renamed to class_ (class is reserved)"
    )
    assert notes[f"{top}.entity.properties.entityType"].startswith("field renamed to entity_type")

    with imported_package(tmp_path / "renamed") as package:
        method = package.Client.sympy_and
        assert list(inspect.signature(method).parameters)[1:] == ["entity_names", "entity"]
        spec = package.specs.TOOLS["sympy_And"]
        models = importlib.import_module(f"{package.__name__}.models")
        entity_class = models.SympyAndArgumentsEntity
        assert list(entity_class.model_fields) == ["entity_type", "name", "http_code"]
        wire = {"entityNames": ["a"], "entity": {"entityType": "t", "HTTPCode": 200, "extra": 1}}
        arguments = spec.arguments_model.model_validate(wire)
        assert arguments.entity.entity_type == "t"
        assert arguments.model_dump(by_alias=True, exclude_unset=True) == wire
        result = spec.result_model.model_validate({"matchedEntity": {"entityType": "r"}, "total_count": 1})
        assert result.matched_entity.entity_type == "r" and result.total_count == 1

        # Every name that differs from its wire name anywhere in the package was reported.
        reported_wire_names = {location.rsplit(".", 1)[-1] for location in notes}
        for class_name in dir(models):
            model = getattr(models, class_name)
            if isinstance(model, type) and issubclass(model, BaseModel):
                for python, info in model.model_fields.items():
                    if info.alias is not None and info.alias != python:
                        assert info.alias in reported_wire_names, (class_name, python)
    # The manifest keeps them as notes: an up-to-date `--strict` run does not fail on them.
    recorded = recorded_diagnostics(tmp_path / "renamed")
    assert recorded and all(d.level is Level.INFO for d in recorded)


def test_strict_passes_with_renames_and_json_lists_them(tmp_path: Path) -> None:
    snapshot = tmp_path / "s.json"
    snapshot.write_text(snapshot_of(TOOLS).to_text(), encoding="utf-8")
    command = [sys.executable, "-m", "mcp_codegen", "generate", "--strict", "--format", "json"]
    result = subprocess.run(
        [*command, "--snapshot", str(snapshot), "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    levels = {d["location"]: d["level"] for d in report["diagnostics"]}
    assert levels["tools.sympy_And"] == "info"
    assert levels["tools.sympy_And.inputSchema.properties.entity.properties.entityType"] == "info"
    assert set(levels.values()) == {"info"}


def test_text_output_shows_renames_unless_quiet(tmp_path: Path) -> None:
    snapshot = tmp_path / "s.json"
    snapshot.write_text(snapshot_of(TOOLS).to_text(), encoding="utf-8")
    stderr = {}
    for flags in ((), ("-q",), ("-v",)):
        result = subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "generate", *flags, "--snapshot", str(snapshot)]
            + ["-o", str(tmp_path / f"out{len(flags)}")],
            capture_output=True,
            text=True,
            check=False,
            env=os.environ.copy(),
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        stderr[flags] = result.stderr
    # By default one line per kind of note, with its count; -v lists each one.
    listed = [line for line in stderr[("-v",)].splitlines() if line.startswith("mcp-codegen: info[renamed]: tools.")]
    assert any(
        line.startswith("mcp-codegen: info[renamed]: tools.sympy_And: method renamed to sympy_and") for line in listed
    )
    summary = f"mcp-codegen: info[renamed]: {len(listed)} names spelt differently in Python; --verbose lists them"
    assert summary in stderr[()].splitlines()
    assert "tools.sympy_And" not in stderr[()]
    assert stderr[("-q",)] == ""  # -q prints only warnings and errors
