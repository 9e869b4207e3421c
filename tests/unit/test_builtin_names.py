"""A parameter or field named like a builtin keeps its name unless generated code would see it shadowed."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from helpers import generate_into, imported_package, mypy_strict, snapshot_of

from mcp_codegen.diagnostics import Level

TOOLS: list[dict[str, Any]] = [
    {
        "name": "scan",
        "inputSchema": {
            "type": "object",
            "properties": {
                "range": {"type": "integer"},
                "type": {"type": "string"},
                "filter": {"type": "string"},
                "id": {"type": "integer"},
                "match": {"type": "string"},
                # Generated annotations are written with `str` and `int`: these two must be renamed.
                "str": {"type": "string"},
                "int": {"type": "integer"},
                "self": {"type": "string"},
                "nested": {"type": "object", "properties": {"Format": {"type": "string"}, "b": {"type": "string"}}},
            },
            "required": ["range"],
        },
    }
]
PROMPTS = [{"name": "plan", "arguments": [{"name": "range", "required": True}, {"name": "str"}]}]
TEMPLATES = [{"uriTemplate": "logs://{range}/{id}", "name": "logs"}]


def test_builtin_names_are_kept_where_nothing_generated_uses_them(tmp_path: Path) -> None:
    snapshot = snapshot_of(
        TOOLS,
        prompts=PROMPTS,
        resourceTemplates=TEMPLATES,
        capabilities={"tools": {}, "prompts": {}, "resources": {}},
    )
    diagnostics = generate_into(tmp_path, snapshot, "builtins_client")
    assert not diagnostics.problems, [str(d) for d in diagnostics.problems]
    renamed = {d.location.rsplit(".", 1)[-1] for d in diagnostics if d.level is Level.INFO}
    assert renamed == {"str", "int", "self", "Format"}  # `Format` only for its case
    with imported_package(tmp_path / "builtins_client") as package:
        parameters = list(inspect.signature(package.Client.scan).parameters)[1:]
        assert parameters == ["range", "type", "filter", "id", "match", "str_", "int_", "self_", "nested"]
        assert list(inspect.signature(package.client.Prompts.plan).parameters)[1:] == ["range", "str_"]
        assert list(inspect.signature(package.client.Resources.logs).parameters)[1:] == ["range", "id"]
        nested = package.models.ScanArgumentsNested
        assert list(nested.model_fields) == ["format", "b"]
        arguments = package.specs.TOOLS["scan"].arguments_model.model_validate({"range": 3, "type": "t"})
        assert (arguments.range, arguments.type) == (3, "t")
    result = mypy_strict(tmp_path, "builtins_client")
    assert result.returncode == 0, result.stdout[-3000:]
