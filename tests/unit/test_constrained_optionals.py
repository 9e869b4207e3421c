"""Constrained types in unions (`Optional[conint(ge=1)] = None`, a `oneOf` member with a pattern, an array's
nullable constrained item): typed as the plain type `| None`, strict-clean, and still checked before sending."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from helpers import generate_into, imported_package, mypy_strict, pyright_strict, snapshot_of
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, ValidationError, conint, constr

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.snapshot.fetch import snapshot_server

#: Every value the SDK server's tool was called with (a refused call must not show up here).
CALLS: list[dict[str, Any]] = []

NULL = {"type": "null"}
POSITIVE = {"type": "integer", "minimum": 1}
SHORT_LIST = {"type": "array", "items": {"type": "string"}, "maxItems": 2}
#: The neighbours of the SDK's shape, written as raw schemas: a constrained `oneOf` member, a nullable
#: constrained array item, the shape inside a nested object and a `$defs` entry, a non-null default.
RAW_TOOLS: list[dict[str, Any]] = [
    {
        "name": "shapes",
        "inputSchema": {
            "type": "object",
            "properties": {
                "choice": {
                    "oneOf": [{"type": "string", "pattern": "^a"}, {"type": "integer", "maximum": 3}, NULL],
                    "default": None,
                },
                "items": {"type": "array", "items": {"anyOf": [{"type": "integer", "minimum": 0}, NULL]}},
                "filter": {
                    "type": "object",
                    "properties": {"limit": {"anyOf": [POSITIVE, NULL], "default": None}},
                },
                "window": {"anyOf": [{"$ref": "#/$defs/Positive"}, NULL], "default": None},
                "depth": {"anyOf": [POSITIVE, NULL], "default": 3},
                "labels": {"anyOf": [SHORT_LIST, NULL], "default": None},
            },
            "$defs": {"Positive": POSITIVE},
        },
        "outputSchema": {
            "type": "object",
            "properties": {"score": {"anyOf": [{"type": "number", "maximum": 1}, NULL], "default": None}},
        },
    }
]


class Stats(BaseModel):
    score: Annotated[float, Field(le=1.0)] | None = None
    pages: list[Annotated[int, Field(ge=0)] | None] = []


def _sdk_server() -> MCPServer:
    server = MCPServer("constrained", version="1.0.0")

    @server.tool()
    def search(
        query: str,
        page: conint(ge=1) | None = None,  # type: ignore[valid-type]
        tags: list[str] | None = Field(None, max_length=50),  # noqa: B008 (the shape under test)
        code: constr(pattern="^[a-z]+$") | conint(le=3) | None = None,  # type: ignore[valid-type]
    ) -> Stats:
        """Search with optional constrained filters."""
        CALLS.append({"query": query, "page": page, "tags": tags, "code": code})
        return Stats(score=0.5, pages=[page or 1])

    return server


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("constrained")

    async def take() -> Any:
        return await snapshot_server(_sdk_server(), diagnostics=Diagnostics())

    for snapshot, name in ((anyio.run(take), "sdk_shapes"), (snapshot_of(RAW_TOOLS), "raw_shapes")):
        diagnostics = generate_into(directory, snapshot, name)
        assert not diagnostics.errors and not diagnostics.warnings, diagnostics.items
    return directory


class _WithoutTitles(ast.NodeTransformer):
    """Drops `title=` from `Field(...)` and an `Annotated[T, Field()]` left empty: the types, as read."""

    def visit_Call(self, node: ast.Call) -> ast.Call:
        node.keywords = [k for k in node.keywords if k.arg != "title"]
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        if ast.unparse(node.value) == "Annotated" and isinstance(node.slice, ast.Tuple):
            if all(ast.unparse(meta) == "Field()" for meta in node.slice.elts[1:]):
                return node.slice.elts[0]
        return node


def _fields(module: Path, class_name: str) -> dict[str, str]:
    """Field name -> `annotation = default` of one generated class (titles left out)."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return {
        s.target.id: f"{ast.unparse(_WithoutTitles().visit(s.annotation))} = {ast.unparse(s.value) if s.value else '...'}"
        for s in node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id != "model_config"
    }


def test_packages_pass_mypy_and_pyright_strict(packages: Path) -> None:
    checked = mypy_strict(packages, "sdk_shapes", "raw_shapes")
    assert checked.returncode == 0, checked.stdout
    checked = pyright_strict(packages, "sdk_shapes", "raw_shapes")
    assert checked.returncode == 0, checked.stdout


def test_constrained_branches_are_the_plain_type_or_none(packages: Path) -> None:
    for module in (packages / "sdk_shapes/models/search.py", packages / "raw_shapes/models/shapes.py"):
        assert "RootModel" not in module.read_text(encoding="utf-8")
    assert _fields(packages / "sdk_shapes/models/search.py", "SearchArguments") == {
        "query": "str = ...",
        "page": "Annotated[int, Field(ge=1)] | None = None",
        "tags": "Annotated[list[str], Field(max_length=50)] | None = None",
        "code": "Annotated[str, Field(pattern='^[a-z]+$')] | Annotated[int, Field(le=3)] | None = None",
    }
    raw = _fields(packages / "raw_shapes/models/shapes.py", "ShapesArguments")
    assert raw["choice"] == "Annotated[str, Field(pattern='^a')] | Annotated[int, Field(le=3)] | None = None"
    assert raw["items"] == "list[Annotated[int, Field(ge=0)] | None] | None = None"
    assert raw["depth"] == "Annotated[Annotated[int, Field(ge=1)] | None, Field(validate_default=True)] = 3"
    signature = (packages / "sdk_shapes/client.py").read_text(encoding="utf-8")
    assert "page: int | None | NotSent = NOT_SENT" in signature
    assert "code: str | int | None | NotSent = NOT_SENT" in signature


@pytest.mark.anyio
async def test_constraints_are_checked_before_anything_is_sent(packages: Path) -> None:
    CALLS.clear()
    with imported_package(packages / "sdk_shapes") as package:
        async with package.AsyncClient.in_process(_sdk_server()) as client:
            for bad in ({"page": 0}, {"tags": ["t"] * 51}, {"code": "ABC"}, {"code": 4}):
                with pytest.raises(package.ArgumentsValidationError):
                    await client.search(query="q", **bad)
            assert CALLS == []
            result = await client.search(query="q", page=2, tags=["a"], code="abc")
            await client.search(query="q", page=None, code=3)
    assert result.score == 0.5 and result.pages == [2]
    assert CALLS == [
        {"query": "q", "page": 2, "tags": ["a"], "code": "abc"},
        {"query": "q", "page": None, "tags": None, "code": 3},
    ]


@pytest.mark.parametrize(
    "arguments",
    [
        {"choice": "b"},
        {"choice": 4},
        {"items": [1, -1]},
        {"filter": {"limit": 0}},
        {"window": 0},
        {"depth": 0},
        {"labels": ["a", "b", "c"]},
    ],
)
def test_nested_and_one_of_constraints_are_checked(packages: Path, arguments: dict[str, Any]) -> None:
    with imported_package(packages / "raw_shapes") as package:
        models = importlib.import_module(f"{package.__name__}.models")
        arguments_class = models.ShapesArguments
        arguments_class.model_validate({"choice": "a", "items": [0, None], "filter": {"limit": None}, "depth": None})
        with pytest.raises(ValidationError):
            arguments_class.model_validate(arguments)
        with pytest.raises(ValidationError):
            models.ShapesResult.model_validate({"score": 1.5})
