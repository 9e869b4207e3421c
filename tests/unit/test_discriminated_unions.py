"""Unions of objects told apart by a tag: members named by their tag value (not `...1`, `...2`) and declared
discriminated (`Field(discriminator=...)`) where the schema allows it, left alone where it does not."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import pytest
from helpers import generate_into, imported_package, mypy_strict, pyright_strict, snapshot_of
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, ValidationError

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.snapshot.fetch import snapshot_server

ADOPTED: list[str] = []


def tagged(tag: str, key: str = "kind", **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"const": tag}, **properties}, "required": [key]}


#: Tags are server text: punctuation, a name two tags share once made an identifier, a digit first,
#: nothing usable at all, and an attempt at code.
AWKWARD_TAGS = ["add-item", "add_item", "1st", "", 'x"]; import os  #']
RAW_TOOLS: list[dict[str, Any]] = [
    {
        "name": "batch",
        "inputSchema": {
            "type": "object",
            "properties": {
                "ops": {
                    "type": "array",
                    "items": {
                        "oneOf": [
                            tagged("add", x={"type": "integer"}),
                            tagged("drop-all"),
                            {"type": "object", "properties": {"kind": {"enum": ["move"]}}, "required": ["kind"]},
                        ]
                    },
                },
                "maybe": {"anyOf": [tagged("a"), tagged("b"), {"type": "null"}], "default": None},
                "awkward": {"oneOf": [tagged(tag) for tag in AWKWARD_TAGS]},
                # Not discriminable: a repeated tag, a tag not required, a member that is not an object.
                "repeated": {"oneOf": [tagged("same", x={"type": "integer"}), tagged("same", y={"type": "string"})]},
                "optional_tag": {"oneOf": [tagged("p"), {"type": "object", "properties": {"kind": {"const": "q"}}}]},
                "mixed": {"oneOf": [tagged("obj"), {"type": "string"}]},
            },
            "required": ["ops"],
        },
    }
]


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


def _pets_server() -> MCPServer:
    server = MCPServer("pets", version="1.0.0")

    @server.tool()
    def adopt(pet: Annotated[Cat | Dog, Field(discriminator="kind")]) -> str:
        """Adopt a pet (a pydantic discriminated union: `oneOf` of refs with a `discriminator`)."""
        ADOPTED.append(pet.kind)
        return pet.kind

    return server


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("unions")

    async def take() -> Any:
        return await snapshot_server(_pets_server(), diagnostics=Diagnostics())

    for snapshot, name in ((snapshot_of(RAW_TOOLS), "raw_unions"), (anyio.run(take), "pet_unions")):
        diagnostics = generate_into(directory, snapshot, name)
        assert not diagnostics.errors and not diagnostics.warnings, diagnostics.items
    return directory


def _annotations(module: Path, class_name: str) -> dict[str, str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return {
        s.target.id: ast.unparse(s.annotation)
        for s in node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id != "model_config"
    }


def test_packages_pass_mypy_and_pyright_strict(packages: Path) -> None:
    checked = mypy_strict(packages, "raw_unions", "pet_unions")
    assert checked.returncode == 0, checked.stdout
    checked = pyright_strict(packages, "raw_unions", "pet_unions")
    assert checked.returncode == 0, checked.stdout


def test_members_are_named_by_tag_and_the_union_is_discriminated(packages: Path) -> None:
    fields = _annotations(packages / "raw_unions/models/batch.py", "BatchArguments")
    assert fields["ops"] == (
        "list[Annotated[BatchArgumentsOpsAdd | BatchArgumentsOpsDropAll | BatchArgumentsOpsMove, "
        "Field(discriminator='kind')]]"
    )
    assert fields["maybe"] == (
        "Annotated[BatchArgumentsMaybeA | BatchArgumentsMaybeB | None, Field(discriminator='kind')]"
    )
    # Untrusted tags become ASCII identifiers; two that meet get numbers in schema order.
    assert fields["awkward"] == (
        "Annotated[BatchArgumentsAwkwardAddItem | BatchArgumentsAwkwardAddItem2 | BatchArgumentsAwkwardVariant1st"
        " | BatchArgumentsAwkwardVariant | BatchArgumentsAwkwardXImportOs | None, Field(discriminator='kind')]"
    )
    for name in ("repeated", "optional_tag", "mixed"):
        assert "discriminator" not in fields[name], name
    pets = _annotations(packages / "pet_unions/models/adopt.py", "AdoptArguments")
    assert pets["pet"] == "Annotated[AdoptCat | AdoptDog, Field(discriminator='kind', title='Pet')]"


def test_names_are_deterministic() -> None:
    first = generate_files(snapshot_of(RAW_TOOLS), package_name="again", diagnostics=Diagnostics())
    second = generate_files(snapshot_of(RAW_TOOLS), package_name="again", diagnostics=Diagnostics())
    assert first == second


def test_the_tag_chooses_the_member_and_names_itself_in_errors(packages: Path) -> None:
    with imported_package(packages / "raw_unions") as package:
        models = importlib.import_module(f"{package.__name__}.models")
        arguments = models.BatchArguments.model_validate(
            {"ops": [{"kind": "add", "x": 1}, {"kind": "drop-all"}], "awkward": {"kind": AWKWARD_TAGS[-1]}}
        )
        assert [type(op).__name__ for op in arguments.ops] == ["BatchArgumentsOpsAdd", "BatchArgumentsOpsDropAll"]
        assert type(arguments.awkward).__name__ == "BatchArgumentsAwkwardXImportOs"
        with pytest.raises(ValidationError) as raised:
            models.BatchArguments.model_validate({"ops": [{"kind": "add", "x": "not a number"}]})
        assert [error["loc"] for error in raised.value.errors()] == [("ops", 0, "add", "x")]
        with pytest.raises(ValidationError, match="union_tag_invalid"):
            models.BatchArguments.model_validate({"ops": [{"kind": "nope"}]})


@pytest.mark.anyio
async def test_a_wrong_tag_is_refused_before_sending(packages: Path) -> None:
    ADOPTED.clear()
    with imported_package(packages / "pet_unions") as package:
        async with package.AsyncClient.in_process(_pets_server()) as client:
            assert await client.adopt(pet=package.AdoptDog(kind="dog")) == "dog"
            with pytest.raises(package.ArgumentsValidationError):
                await client.adopt(pet={"kind": "fish"})  # type: ignore[arg-type]
    assert ADOPTED == ["dog"]
