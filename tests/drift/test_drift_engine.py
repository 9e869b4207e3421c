"""Normalisation, no-drift invariances, loading one side, determinism, renames and recursion."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from drift_support import EXAMPLES, Data, all_sources, snapshot, source, tool

from mcp_codegen.drift import diff_snapshots, load_side
from mcp_codegen.drift.normalize import canonical_json, index_items, normalize_schema
from mcp_codegen.errors import ExitCode, SnapshotFormatError, UsageError
from mcp_codegen.snapshot.model import Snapshot

# ---- respelling: the same API written differently --------------------------------------------------------------

_OUTER = {"title", "description", "default", "examples"}


def _respell(schema: Any, rng: random.Random) -> Any:
    """The same schema in another spelling: keys shuffled, lists reordered, nullable spelled the other way."""
    if isinstance(schema, list):
        return [_respell(item, rng) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            result[key] = (
                {name: _respell(sub, rng) for name, sub in value.items()} if isinstance(value, dict) else value
            )
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            result[key] = _respell(value, rng)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            branches = [_respell(b, rng) for b in value]
            rng.shuffle(branches)
            result[key] = branches
        elif key in ("required", "enum") and isinstance(value, list):
            result[key] = list(reversed(value))
        else:
            result[key] = value
    result = _swap_nullable(result)
    keys = list(result)
    rng.shuffle(keys)
    return {key: result[key] for key in keys}


def _swap_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) == 2 and "anyOf" not in schema and "oneOf" not in schema:
        other = next(k for k in kind if k != "null")
        outer = {k: v for k, v in schema.items() if k in _OUTER}
        core = {k: v for k, v in schema.items() if k not in _OUTER and k != "type"}
        return {**outer, "anyOf": [{"type": "null"}, {"type": other, **core}]}
    branches = schema.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        other = next(b for b in branches if b != {"type": "null"})
        conflict = any(k in schema and k not in _OUTER for k in other if k != "anyOf")
        if isinstance(other, dict) and isinstance(other.get("type"), str) and "$ref" not in other and not conflict:
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**rest, **{k: v for k, v in other.items() if k != "type"}, "type": [other["type"], "null"]}
    return schema


def _respelled_listing(data: Data, seed: int) -> Data:
    rng = random.Random(seed)
    respelled: Data = json.loads(json.dumps(data))
    for section in ("tools", "prompts", "resources", "resourceTemplates"):
        rng.shuffle(respelled[section])
    for item in respelled["tools"]:
        for key in ("inputSchema", "outputSchema"):
            if key in item:
                item[key] = _respell(item[key], rng)
        keys = list(item)
        rng.shuffle(keys)
        item_copy = {k: item[k] for k in keys}
        item.clear()
        item.update(item_copy)
    return respelled


@pytest.mark.parametrize("name", all_sources())
def test_identical_snapshots_have_no_findings(name: str) -> None:
    assert diff_snapshots(snapshot(source(name)), snapshot(source(name))).findings == ()


@pytest.mark.parametrize("name", all_sources())
def test_item_order_key_order_and_nullable_spelling_are_not_drift(name: str) -> None:
    original = source(name)
    respelled = _respelled_listing(original, seed=len(name))
    report = diff_snapshots(snapshot(original), snapshot(respelled))
    assert report.findings == ()
    assert diff_snapshots(snapshot(respelled), snapshot(original)).findings == ()


def test_the_respelling_really_respells() -> None:
    original = source("demo")
    respelled = _respelled_listing(original, seed=1)
    text = json.dumps(respelled)
    assert '"type": ["string", "null"]' not in json.dumps(original)
    assert '"type": ["string", "null"]' in text  # anyOf [string, null] respelled as a type list
    notion = json.dumps(_respelled_listing(source("notion"), seed=1))
    assert '{"type": "null"}' in notion and '"type": ["object", "null"]' not in notion  # and the other way
    assert [t["name"] for t in respelled["tools"]] != [t["name"] for t in original["tools"]]


def test_nullable_spellings_normalise_alike() -> None:
    spellings = [
        {"type": ["string", "null"], "maxLength": 3},
        {"type": ["null", "string"], "maxLength": 3},
        {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]},
        {"oneOf": [{"type": "null"}, {"maxLength": 3, "type": "string"}]},
        {
            "anyOf": [{"$ref": "#/$defs/Short"}, {"type": "null"}],
            "$defs": {"Short": {"type": "string", "maxLength": 3}},
        },
        {"type": "string", "nullable": True, "maxLength": 3},
    ]
    normalised = [canonical_json(normalize_schema(s)) for s in spellings]
    assert len(set(normalised)) == 1, normalised


def test_normalisation_sorts_drops_and_resolves() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "b": {"enum": ["z", "a", "a"]},
            "a": {"const": "x"},
            "list": {"type": "array", "items": {"type": "integer"}},
            "same_as_items": {"$ref": "#/properties/list/items"},
            "dangling": {"$ref": "#/$defs/Nope"},
            "remote": {"$ref": "https://example.com/schema.json"},
        },
        "required": ["b", "a", "b"],
        "additionalProperties": True,
    }
    result = normalize_schema(schema)
    assert "$schema" not in result and "additionalProperties" not in result
    assert result["required"] == ["a", "b"]
    assert result["properties"]["b"]["enum"] == ["a", "z"]
    assert result["properties"]["a"] == {"enum": ["x"]}
    assert result["properties"]["same_as_items"] == {"type": "integer"}
    assert result["properties"]["dangling"] == {"$ref": "#/$defs/Nope"}
    assert result["properties"]["remote"] == {"$ref": "https://example.com/schema.json"}
    assert schema["required"] == ["b", "a", "b"], "the input is never modified"


@pytest.mark.parametrize("name", all_sources())
def test_normalisation_is_idempotent_on_real_schemas(name: str) -> None:
    for item in source(name)["tools"]:
        for key in ("inputSchema", "outputSchema"):
            if key in item:
                once = normalize_schema(item[key])
                assert normalize_schema(once) == once, (item["name"], key)


# ---- recursion -------------------------------------------------------------------------------------------------

_TREE = {
    "type": "object",
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["label"],
        },
        "Ping": {"type": "object", "properties": {"pong": {"$ref": "#/$defs/Pong"}}},
        "Pong": {"type": "object", "properties": {"ping": {"$ref": "#/$defs/Ping"}, "n": {"type": "integer"}}},
    },
    "properties": {"root": {"$ref": "#/$defs/Node"}, "ping": {"$ref": "#/$defs/Ping"}, "self": {"$ref": "#"}},
}


def _tree_listing(schema: dict[str, Any]) -> Snapshot:
    return Snapshot.from_json(
        {"formatVersion": 1, "serverInfo": {"name": "t"}, "tools": [{"name": "walk", "inputSchema": schema}]}
    )


def test_recursive_schemas_are_expanded_once_per_path() -> None:
    normalised = normalize_schema(_TREE)
    node = normalised["properties"]["root"]
    assert node["properties"]["children"]["items"] == {"$recursiveRef": "#/$defs/Node"}
    pong = normalised["properties"]["ping"]["properties"]["pong"]
    assert pong["properties"]["ping"] == {"$recursiveRef": "#/$defs/Ping"}
    assert normalised["properties"]["self"] == {"$recursiveRef": "#"}
    assert diff_snapshots(_tree_listing(_TREE), _tree_listing(json.loads(json.dumps(_TREE)))).findings == ()


def test_a_change_inside_a_recursive_definition_is_found() -> None:
    changed = json.loads(json.dumps(_TREE))
    changed["$defs"]["Node"]["properties"]["label"]["maxLength"] = 10
    changed["$defs"]["Pong"]["properties"]["n"]["type"] = "string"
    found = {(f.rule, f.location) for f in diff_snapshots(_tree_listing(_TREE), _tree_listing(changed)).findings}
    assert found == {
        ("input-constraint-tightened", "tools.walk.input.root.label"),
        ("input-type-changed", "tools.walk.input.ping.pong.n"),
    }


# ---- renames ---------------------------------------------------------------------------------------------------


def test_ambiguous_renames_are_hints_not_renames() -> None:
    old = source("demo")
    new = source("demo")
    empty = {"type": "object", "properties": {}}
    old["tools"] += [{"name": "a1", "inputSchema": empty}, {"name": "a2", "inputSchema": empty}]
    new["tools"] += [{"name": "b1", "inputSchema": empty}, {"name": "b2", "inputSchema": empty}]
    report = diff_snapshots(snapshot(old), snapshot(new))
    removed = [f for f in report.findings if f.location in ("tools.a1", "tools.a2")]
    assert [f.rule for f in removed] == ["tool-removed", "tool-removed"]
    assert all(f.hint == "possibly renamed to one of: b1, b2" for f in removed)


def test_a_rename_with_a_changed_schema_is_a_removal() -> None:
    old, new = source("demo"), source("demo")
    renamed = tool(new, "get_note")
    renamed["name"] = "fetch_note"
    renamed["inputSchema"]["properties"]["note_id"]["maxLength"] = 10
    rules = {(f.rule, f.location) for f in diff_snapshots(snapshot(old), snapshot(new)).findings}
    assert rules == {("tool-removed", "tools.get_note"), ("tool-added", "tools.fetch_note")}


# ---- determinism -----------------------------------------------------------------------------------------------


def test_findings_come_in_a_deterministic_order() -> None:
    old, new = source("git"), source("cyanheads-git")
    first = diff_snapshots(snapshot(old), snapshot(new)).findings
    shuffled = _respelled_listing(new, seed=7)
    again = diff_snapshots(snapshot(_respelled_listing(old, seed=3)), snapshot(shuffled)).findings
    assert len(first) > 50
    assert [f.as_json() for f in first] == [f.as_json() for f in again]
    sections = [f.location.split(".", 1)[0] for f in first]
    order = {"server": 0, "tools": 1, "prompts": 2, "resources": 3, "resourceTemplates": 4}
    assert sections == sorted(sections, key=order.__getitem__)


def test_index_items_keys_duplicates_stably() -> None:
    items: list[dict[str, Any]] = [{"name": "a", "v": 1}, {"name": "a", "v": 2}, {"title": "no name"}]
    assert list(index_items(items, "name")) == ["a", "a#2", '{"title":"no name"}']


# ---- loading a side ----------------------------------------------------------------------------------------------


def test_load_side_reads_a_snapshot_file_and_a_package_directory(tmp_path: Path) -> None:
    package = tmp_path / "demo_client"
    shutil.copytree(EXAMPLES["demo"], package)
    from_dir = load_side(package)
    from_file = load_side(package / "snapshot.json")
    assert from_dir == from_file
    assert diff_snapshots(from_dir, snapshot(source("demo"))).findings == ()


@pytest.mark.parametrize(
    "content",
    [
        None,  # missing file
        "",  # empty
        "{not json",
        "[]",
        json.dumps({"serverInfo": {"name": "x"}, "tools": []}),  # a raw listing: no formatVersion
        json.dumps({"formatVersion": 99, "serverInfo": {"name": "x"}}),
        json.dumps({"formatVersion": 1, "serverInfo": {"name": "x"}, "tools": {"a": 1}}),
    ],
    ids=["missing", "empty", "bad-json", "not-an-object", "no-format-version", "future-version", "bad-tools"],
)
def test_a_side_that_cannot_be_read_is_an_error_never_no_drift(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "side.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(SnapshotFormatError) as raised:
        load_side(path)
    assert isinstance(raised.value, UsageError) and raised.value.exit_code == ExitCode.USAGE
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


def test_a_directory_without_snapshot_json_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SnapshotFormatError, match="no snapshot.json"):
        load_side(tmp_path)


def test_a_corpus_listing_is_rejected_until_it_is_a_snapshot(tmp_path: Path) -> None:
    raw = (Path(__file__).resolve().parents[1] / "corpus" / "time.json").read_text(encoding="utf-8")
    path = tmp_path / "time.json"
    path.write_text(raw, encoding="utf-8")
    with pytest.raises(SnapshotFormatError, match="formatVersion"):
        load_side(path)


def test_junk_schemas_do_not_crash_the_diff() -> None:
    def listing(input_schema: Any, output_schema: Any) -> Snapshot:
        return Snapshot.from_json(
            {
                "formatVersion": 1,
                "serverInfo": {"name": "junk"},
                "tools": [{"name": "t", "inputSchema": input_schema, "outputSchema": output_schema}],
            }
        )

    junk: list[Any] = [None, 3, "x", [], True, False, {"type": 5}, {"properties": []}, {"anyOf": "x"}, {"$ref": 1}]
    for old in junk:
        for new in junk:
            diff_snapshots(listing(old, old), listing(new, new))
