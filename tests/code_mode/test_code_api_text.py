"""The generated `code_api.pyi` against hostile listings: server text stays data (docstrings, string literals).

Every payload of the injection suite goes in as tool descriptions, property names (the functional
`TypedDict` form), enum values (`Literal`), `$defs` names and nested objects; the stub must parse into
nothing but imports, `TypedDict` classes and docstring-only `async def`s, keep every key and value
exactly, and pass `mypy --strict`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from helpers import mypy_strict, snapshot_of
from security.adversarial import CODE_PAYLOADS, MARKER, ODD_TEXT

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.code_api import CODE_API_FILE
from mcp_codegen.generate.pipeline import generate_files

PAYLOADS = [text for text in CODE_PAYLOADS + ODD_TEXT if text]


def _hostile_tools() -> list[dict[str, Any]]:
    keys = {text: {"type": "integer", "description": text} for text in PAYLOADS}
    choices = {"type": "string", "enum": PAYLOADS}
    nested = {"type": "object", "properties": {text: {"type": "string"} for text in PAYLOADS[:10]}, "required": PAYLOADS[:3]}
    return [
        {
            "name": f"tool{index}",
            "description": text,
            "inputSchema": {
                "type": "object",
                "properties": {"keys": {"type": "object", "properties": keys}, "choice": choices, "nested": nested,
                               "ref": {"$ref": f"#/$defs/{text}"}},
                "$defs": {text: {"type": "object", "properties": {text: {"const": text}}}},
                "required": ["choice"],
            },
            "outputSchema": {"type": "object", "properties": {text: {"type": "array", "items": nested}}},
        }
        for index, text in enumerate(PAYLOADS[:12])
    ]


def _strings(node: ast.AST) -> set[str]:
    return {child.value for child in ast.walk(node) if isinstance(child, ast.Constant) and isinstance(child.value, str)}


def test_hostile_text_stays_data_and_type_checks(tmp_path: Path) -> None:
    MARKER.unlink(missing_ok=True)
    files = generate_files(snapshot_of(_hostile_tools()), package_name="hostile_api", diagnostics=Diagnostics())
    text = files[CODE_API_FILE].decode("utf-8")
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef):
            assert len(node.body) == 1 and isinstance(node.body[0], ast.Expr), ast.dump(node)
            assert isinstance(node.body[0].value, ast.Constant) and not node.decorator_list
        elif isinstance(node, ast.ClassDef):
            assert [ast.unparse(base) for base in node.bases] == ["TypedDict"]
            assert all(isinstance(item, ast.AnnAssign) and item.value is None for item in node.body)
        elif isinstance(node, ast.Assign):
            assert isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "TypedDict"
            assert all(isinstance(key, ast.Constant) for key in node.value.args[1].keys)  # type: ignore[attr-defined]
        else:
            assert isinstance(node, ast.ImportFrom | ast.Expr), ast.dump(node)
    # No call anywhere but the functional TypedDicts', so nothing can run when the stub is read.
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert set(calls) <= {"TypedDict"}
    # Every key, enum value and const is there exactly, as a string literal.
    strings = _strings(tree)
    assert set(PAYLOADS) <= strings
    docstrings = [ast.get_docstring(n) for n in tree.body if isinstance(n, ast.AsyncFunctionDef)]
    assert len(docstrings) == 12 and all(docstrings)
    stub = tmp_path / "hostile_api.pyi"
    stub.write_text(text, encoding="utf-8")
    result = mypy_strict(tmp_path, str(stub))
    assert result.returncode == 0, result.stdout[-6000:]
    assert not MARKER.exists()


def test_the_stub_is_byte_deterministic() -> None:
    first = generate_files(snapshot_of(_hostile_tools()), package_name="hostile_api", diagnostics=Diagnostics())
    second = generate_files(snapshot_of(_hostile_tools()), package_name="hostile_api", diagnostics=Diagnostics())
    assert first[CODE_API_FILE] == second[CODE_API_FILE]


def test_app_only_tools_are_left_out() -> None:
    tools = [
        {"name": "shown", "inputSchema": {"type": "object"}},
        {"name": "app_only", "inputSchema": {"type": "object"}, "_meta": {"ui": {"resourceUri": "ui://x", "visibility": ["app"]}}},
    ]
    files = generate_files(snapshot_of(tools), package_name="apps_api", diagnostics=Diagnostics())
    names = [n.name for n in ast.parse(files[CODE_API_FILE].decode()).body if isinstance(n, ast.AsyncFunctionDef)]
    assert names == ["shown"]


def test_extra_arguments_do_not_exist_in_code_mode() -> None:
    """The typed method takes `extra_arguments` where the schema names other keys; the code API never does."""
    open_schema = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": {"type": "string"}}
    tools = [
        {"name": "search", "inputSchema": open_schema},
        {"name": "anything", "inputSchema": {"type": "object", "additionalProperties": True}},
    ]
    files = generate_files(snapshot_of(tools), package_name="open_api", diagnostics=Diagnostics())
    assert "extra_arguments" in files["client.py"].decode()
    tree = ast.parse(files[CODE_API_FILE].decode())
    signatures = {n.name: n.args for n in tree.body if isinstance(n, ast.AsyncFunctionDef)}
    assert [a.arg for a in signatures["search"].kwonlyargs] == ["q"] and signatures["search"].kwarg is None
    assert [a.arg for a in signatures["anything"].kwonlyargs] == []
