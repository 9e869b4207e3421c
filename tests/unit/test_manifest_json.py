"""The manifest's indented JSON is `json.dumps(indent=2, sort_keys=True)`'s text, byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import corpus_snapshot
from hypothesis import given
from hypothesis import strategies as st

from mcp_codegen.diagnostics import Diagnostic, Diagnostics, Level
from mcp_codegen.generate.manifest import MANIFEST, indented_json, manifest_bytes
from mcp_codegen.generate.pipeline import generate_files

VALUES: list[Any] = [
    {},
    [],
    "text",
    0,
    None,
    {"b": 1, "a": [1, {"x": None, "w": True}], "c": {}},
    {"nested": {"z": [[], [[]], {}], "y": {"q": [True, False, None]}}},
    {"unicode": 'é\u2028\U0001f600 "quoted" \\ back\nline\t', "ünï": "ascii escaped"},
    {"floats": [1.0, -0.0, 1.5e300, 2.5e-8, float("inf"), float("nan")], "ints": [10**30, -1]},
    ("a", ("tuple",)),
]


@pytest.mark.parametrize("value", VALUES)
def test_the_text_is_what_the_standard_library_writes(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, indent=2, sort_keys=True)


def test_a_real_manifest_is_written_as_before() -> None:
    files = generate_files(corpus_snapshot("github"), package_name="github_client", diagnostics=Diagnostics())
    manifest = json.loads(files[MANIFEST])
    assert manifest["diagnostics"] and manifest["files"]
    assert files[MANIFEST].decode() == json.dumps(manifest, indent=2, sort_keys=True) + "\n"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(JSON)
def test_any_json_value_is_written_as_the_standard_library_does(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, indent=2, sort_keys=True)


@given(
    st.lists(st.tuples(st.text(), st.text(), st.sampled_from(list(Level)), st.text(max_size=12)), max_size=6),
    st.dictionaries(st.text(max_size=8), st.binary(max_size=4), max_size=3),
)
def test_a_manifest_of_any_diagnostics_is_written_as_the_standard_library_does(
    drawn: list[tuple[str, str, Level, str]], files: dict[str, bytes]
) -> None:
    diagnostics = Diagnostics()
    for location, message, level, code in drawn:
        diagnostics.add(Diagnostic(location, message, level, code))
    written = manifest_bytes(files, "hash", "1.0", diagnostics, {"meta": "none"})
    manifest = json.loads(written)
    assert manifest["diagnostics"] == [item.as_json() for item in diagnostics]
    assert written.decode() == json.dumps(manifest, indent=2, sort_keys=True) + "\n"
