"""Model classes are named by their place or tag, never by a number the model generator appends."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import CORPUS, corpus_names, corpus_snapshot, generate_into, imported_package, snapshot_of

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files


def _model_classes(files: dict[str, bytes]) -> set[str]:
    return {
        node.name
        for path, text in files.items()
        if path.startswith("models/")
        for node in ast.parse(text).body
        if isinstance(node, ast.ClassDef)
    }


def _server_digit_endings(data: Any) -> set[str]:
    """The digits ending a name the server gave (a key, a `name`, a `title`: `step2` -> 2, `Point3D` -> none)."""
    names: list[str] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            names += [key for key in item if isinstance(key, str)]
            names += [item[key] for key in ("name", "title") if isinstance(item.get(key), str)]
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
    return {match.group(1) for name in names if (match := re.search(r"(\d+)\W*$", name))}


@pytest.mark.parametrize("name", corpus_names())
def test_no_corpus_class_name_ends_in_a_number_the_server_did_not_write(name: str) -> None:
    files = generate_files(corpus_snapshot(name), package_name="corpus_client", diagnostics=Diagnostics())
    allowed = _server_digit_endings(json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8")))
    numbered = sorted(
        cls for cls in _model_classes(files) if (m := re.search(r"\d+$", cls)) and m.group() not in allowed
    )
    assert not numbered


AUTHOR = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
OTHER_AUTHOR = {"type": "object", "properties": {"handle": {"type": "string"}}, "required": ["handle"]}
CONTENT = {
    "type": "array",
    "items": {
        "anyOf": [
            {
                "type": "object",
                "properties": {"type": {"enum": ["image", "audio"]}, "data": {"type": "string"}},
                "required": ["type", "data"],
            },
            {
                "type": "object",
                "properties": {"type": {"const": "resource"}, "uri": {"type": "string"}},
                "required": ["type", "uri"],
            },
        ]
    },
}
COMMENTS = {
    "type": "array",
    "items": {
        "anyOf": [
            {
                "type": "object",
                "properties": {"path": {"type": "string"}, "line": {"type": "number"}},
                "required": ["path", "line"],
            },
            {
                "type": "object",
                "properties": {"path": {"type": "string"}, "position": {"type": "number"}},
                "required": ["path", "position"],
            },
        ]
    },
}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "draft",
        "inputSchema": {
            "type": "object",
            "$defs": {"Author": AUTHOR},
            "properties": {"author": {"$ref": "#/$defs/Author"}, "comments": COMMENTS},
        },
        "outputSchema": {
            "type": "object",
            "$defs": {"Author": AUTHOR},
            "properties": {"author": {"$ref": "#/$defs/Author"}, "content": CONTENT},
        },
    },
    {
        "name": "review",
        "inputSchema": {
            "type": "object",
            "$defs": {"Author": AUTHOR},
            "properties": {"author": {"$ref": "#/$defs/Author"}},
        },
        "outputSchema": {
            "type": "object",
            "$defs": {"Author": OTHER_AUTHOR},
            "properties": {"author": {"$ref": "#/$defs/Author"}},
        },
    },
]


PATHS = {
    "name": "paths",
    "inputSchema": {
        "type": "object",
        "$defs": {"Mode": {"type": "string"}},
        "definitions": {"Mode": {"type": "integer"}},
        "properties": {
            "a": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
            "b": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "string"}}}},
            "first": {"$ref": "#/properties/a/items"},
            "second": {"$ref": "#/properties/b/items"},
            "mode": {"$ref": "#/$defs/Mode"},
            "level": {"$ref": "#/definitions/Mode"},
        },
    },
}


def test_hoisted_definitions_of_one_name_are_one_class_when_the_same_and_named_by_path_when_not() -> None:
    files = generate_files(snapshot_of([PATHS]), package_name="paths_client", diagnostics=Diagnostics())
    fields = {
        node.target.id: ast.unparse(node.annotation)
        for node in ast.walk(ast.parse(files["models/paths.py"]))
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    assert fields["first"] == "PathsItems | None" and fields["second"] == "PathsArgumentsBItems | None"
    assert fields["mode"] == "str | None" and fields["level"] == "int | None"
    assert not [cls for cls in _model_classes(files) if cls[-1].isdigit()]


def test_shared_definitions_are_one_class_and_union_members_are_named_by_tag_or_own_property(tmp_path: Path) -> None:
    diagnostics = generate_into(tmp_path, snapshot_of(TOOLS), "names_client")
    assert not diagnostics.problems, [str(d) for d in diagnostics.problems]
    with imported_package(tmp_path / "names_client") as package:
        models = package.models
        # The same `Author` in arguments and result: one class; a different one: named by its place.
        draft = models.DraftResult.model_validate({"author": {"name": "n"}})
        assert type(draft.author) is models.DraftAuthor
        assert type(models.DraftArguments.model_validate({"author": {"name": "n"}}).author) is models.DraftAuthor
        review = models.ReviewResult.model_validate({"author": {"handle": "h"}})
        assert type(review.author) is models.ReviewResultAuthor
        content = models.DraftResult.model_validate(
            {"content": [{"type": "audio", "data": "x"}, {"type": "resource", "uri": "u"}]}
        )
        assert [type(item).__name__ for item in content.content or []] == [
            "DraftResultContentImageOrAudio",
            "DraftResultContentResource",
        ]
        comments = models.DraftArguments.model_validate(
            {"comments": [{"path": "a", "line": 1}, {"path": "b", "position": 2}]}
        )
        assert [type(item).__name__ for item in comments.comments or []] == [
            "DraftArgumentsCommentsWithLine",
            "DraftArgumentsCommentsWithPosition",
        ]
    files = generate_files(snapshot_of(TOOLS), package_name="names_client", diagnostics=Diagnostics())
    assert not [cls for cls in _model_classes(files) if cls[-1].isdigit()]
