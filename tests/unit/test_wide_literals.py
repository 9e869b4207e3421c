"""Integer `enum`/`const` values beyond 64 bits: mypy rejects them inside `Literal[...]` (and pydantic checks an
Enum of integers as 64-bit), so such an enum or const is dropped and reported; values that fit stay literals.
Found by the hostile-listings fuzz (shard 1)."""

from __future__ import annotations

from pathlib import Path

from helpers import generate_into, imported_package, mypy_strict, pyright_strict, snapshot_of

WIDEST = 2**63 - 1  # mypy's bound for an integer in Literal[...], either sign
SCHEMA = {
    "type": "object",
    "properties": {
        "fits": {"type": "integer", "enum": [1, WIDEST, -WIDEST]},
        "too_wide": {"type": "integer", "enum": [1, 2**70]},
        "too_negative": {"type": "integer", "enum": [-(2**63)]},
        "wide_const": {"const": 2**64},
        "mixed": {"enum": ["a", -(2**70), True]},
    },
}


def test_wide_integer_literals_are_dropped_and_reported(tmp_path: Path) -> None:
    tools = [{"name": "wide", "inputSchema": SCHEMA, "outputSchema": SCHEMA}]
    diagnostics = generate_into(tmp_path, snapshot_of(tools), "wide_pkg")
    for schema in ("inputSchema", "outputSchema"):
        reported = {
            d.location.rpartition(".properties.")[2]
            for d in diagnostics
            if d.location.startswith(f"tools.wide.{schema}.") and "beyond 64 bits" in d.message
        }
        assert reported == {"too_wide.enum", "too_negative.enum", "wide_const.const", "mixed.enum"}

    mypy = mypy_strict(tmp_path, "-p", "wide_pkg")
    assert mypy.returncode == 0, mypy.stdout
    pyright = pyright_strict(tmp_path, "wide_pkg")
    assert pyright.returncode == 0, pyright.stdout
    models = (tmp_path / "wide_pkg" / "models" / "wide.py").read_text(encoding="utf-8")
    assert f"Literal[1, {WIDEST}, -{WIDEST}]" in models  # what fits stays a literal

    with imported_package(tmp_path / "wide_pkg") as package:
        spec = package.TOOLS["wide"]
        value = {"fits": WIDEST, "too_wide": 2**70, "too_negative": -(2**63), "wide_const": 2**64, "mixed": "a"}
        for model in (spec.arguments_model, spec.result_model):
            assert model.model_validate(value).model_dump(mode="json", exclude_unset=True) == value
        assert spec.input_schema == SCHEMA  # the schema models are sent keeps every value
