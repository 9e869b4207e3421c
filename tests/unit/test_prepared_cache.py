"""Prepared schemas from the cache: the plans and the bytes of a run without it, replayed only while their class
names still hold (a tool added before one can take a name it was granted), a corrupt entry a miss."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_names, corpus_snapshot, snapshot_of

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import prepared_cache, schema_prep
from mcp_codegen.generate.build_ir import ToolPlan, plan_tools
from mcp_codegen.generate.cache import SUFFIX, encode_entry, read_entry
from mcp_codegen.generate.naming import ClassNames
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.snapshot.model import Snapshot


@pytest.fixture
def preparations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The locations of the tools prepared afresh (not taken from the cache)."""
    prepared: list[str] = []
    real = prepared_cache.prepare_tool

    def counted(tool: dict[str, Any], **keywords: Any) -> Any:
        prepared.append(keywords["location"])
        return real(tool, **keywords)

    monkeypatch.setattr(prepared_cache, "prepare_tool", counted)
    return prepared


def _plans(snapshot: Snapshot) -> tuple[list[ToolPlan], list[str]]:
    diagnostics = Diagnostics()
    plans = plan_tools(snapshot, diagnostics)
    return plans, [str(item) for item in diagnostics.items]


def _without_cache(monkeypatch: pytest.MonkeyPatch, make: Any) -> Any:
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    try:
        return make()
    finally:
        monkeypatch.delenv("MCP_CODEGEN_NO_CACHE")


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"prepared/*/*{SUFFIX}"))


def _tool_entries(cache: Path) -> dict[str, Any]:
    (store,) = _entries(cache)  # one per server
    tools: dict[str, Any] = read_entry(store)["results"]
    return tools


@pytest.mark.parametrize("name", corpus_names())
def test_plans_from_the_cache_are_the_plans_made_afresh(
    name: str, cache: Path, preparations: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = corpus_snapshot(name)
    fresh = _without_cache(monkeypatch, lambda: _plans(snapshot))
    assert _plans(snapshot) == fresh  # cold: prepared and stored
    assert len(_tool_entries(cache)) == len(fresh[0])
    preparations.clear()
    assert _plans(snapshot) == fresh  # warm: every tool from the cache
    assert preparations == []


@pytest.mark.parametrize("name", corpus_names())
def test_generated_bytes_are_those_of_a_run_without_the_cache(
    name: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = corpus_snapshot(name)

    def generate() -> tuple[dict[str, bytes], list[str]]:
        diagnostics = Diagnostics()
        files = generate_files(snapshot, package_name="corpus_client", diagnostics=diagnostics)
        return files, [str(item) for item in diagnostics.items]

    without = _without_cache(monkeypatch, generate)
    generate()
    assert _entries(cache)
    assert generate() == without


def _object(properties: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "$defs": definitions}


#: Tool `a_b` (class prefix `AB`) hoists `Item` and `Zed` as `ABItem` and `ABZed`; tool `a` (prefix `A`) hoists
#: `BZed`, also `ABZed`. Sorted, `a` comes first and takes `ABZed`: `a_b`'s recorded `ABZed` is no longer granted.
A_B = {
    "name": "a_b",
    "inputSchema": _object(
        {"item": {"$ref": "#/$defs/Item"}, "zed": {"$ref": "#/$defs/Zed"}},
        {"Item": _object({"n": {"type": "integer"}}, {}), "Zed": _object({"s": {"type": "string"}}, {})},
    ),
}
A = {"name": "a", "inputSchema": _object({"z": {"$ref": "#/$defs/BZed"}}, {"BZed": _object({"b": {}}, {})})}


def test_a_tool_added_before_takes_a_recorded_name_and_the_replay_is_rejected(
    cache: Path, preparations: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, both = snapshot_of([A_B]), snapshot_of([A_B, A])
    plans, _ = _plans(alone)
    assert set(plans[0].prepared.definitions) == {"ABArguments", "ABItem", "ABZed"}
    preparations.clear()
    warm = _plans(both)
    # `a_b`'s first recorded name still holds, its second does not: prepared again, and `ABItem` was not
    # left taken by the rejected replay (it would have become `ABItem2`).
    assert preparations == ["tools.a", "tools.a_b"]
    assert warm == _without_cache(monkeypatch, lambda: _plans(both))
    assert set(warm[0][1].prepared.definitions) == {"ABArguments", "ABItem", "ABZed2"}
    preparations.clear()
    assert _plans(both) == warm  # the new entries replay
    assert preparations == []


def test_the_bytes_after_a_rejected_replay_are_those_of_a_run_without_the_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def generate(snapshot: Snapshot) -> dict[str, bytes]:
        return generate_files(snapshot, package_name="pkg", diagnostics=Diagnostics())

    generate(snapshot_of([A_B]))
    both = snapshot_of([A_B, A])
    assert generate(both) == _without_cache(monkeypatch, lambda: generate(both))


@pytest.mark.parametrize(
    "damage",
    [
        b"not an entry",
        b"",
        None,  # the entry truncated
        b'{"format": 1, "results": {}}',  # a JSON entry
        encode_entry([]),
        encode_entry({"format": 1}),
        encode_entry({"format": 1, "results": []}),
    ],
)
def test_a_corrupt_store_is_a_miss(damage: bytes | None, cache: Path, preparations: list[str]) -> None:
    snapshot = corpus_snapshot("github")
    expected = _plans(snapshot)
    (store,) = _entries(cache)
    store.write_bytes(store.read_bytes()[:-7] if damage is None else damage)
    preparations.clear()
    assert _plans(snapshot) == expected
    assert len(preparations) == len(snapshot.tools)  # each prepared again (and stored again)
    preparations.clear()
    assert _plans(snapshot) == expected
    assert preparations == []


@pytest.mark.parametrize("damage", [None, [], {}, {"claims": [["A"]], "diagnostics": [], "prepared": {}}])
def test_a_corrupt_tool_entry_is_a_miss_for_that_tool(damage: Any, cache: Path, preparations: list[str]) -> None:
    snapshot = corpus_snapshot("github")
    expected = _plans(snapshot)
    (store,) = _entries(cache)
    bundle = read_entry(store)
    key = sorted(bundle["results"])[0]
    bundle["results"][key] = damage
    store.write_bytes(encode_entry(bundle))
    preparations.clear()
    assert _plans(snapshot) == expected
    assert len(preparations) == 1


def test_the_store_keeps_the_tools_of_the_last_run(cache: Path) -> None:
    _plans(snapshot_of([A_B, A]))
    _plans(snapshot_of([A_B]))
    assert len(_tool_entries(cache)) == 1


def test_diagnostics_and_checked_defaults_are_replayed_from_the_cache(
    cache: Path, preparations: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    properties = {
        "p": {"type": "string", "pattern": "(?=x)", "default": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},  # checked by jsonschema
        "bad": {"type": "array", "items": {"type": "integer"}, "default": ["a"]},
    }
    snapshot = snapshot_of([{"name": "t", "inputSchema": {"properties": properties}}])
    plans, first = _plans(snapshot)
    codes = ["input-schema-no-type", "pattern-dropped", "default-dropped", "default-dropped"]
    assert [line.split(":")[0] for line in first] == [f"warning[{code}]" for code in codes]
    monkeypatch.setattr(schema_prep, "default_fits", None)  # a warm run checks no default again
    preparations.clear()
    assert _plans(snapshot) == (plans, first)
    assert plans[0].prepared.definitions["TArguments"]["properties"]["tags"]["default"] == ["a"]
    assert preparations == []


def test_a_rejected_replay_takes_no_name() -> None:
    names = ClassNames({"Taken"})
    assert not names.replay([("Free", "Free"), ("Taken", "Taken")])
    assert names.claim("Free") == "Free"
    assert names.replay([("Other", "Other"), ("Other", "Other2"), ("Taken", "Taken2")])
    assert names.taken == {"Taken", "Free", "Other", "Other2", "Taken2"}


def _numbered_tools(count: int, changed: int = 0) -> Snapshot:
    return snapshot_of(
        [
            {
                "name": f"t{i:02}",
                "inputSchema": _object({"n": {"type": "integer", "maximum": 1 if i < changed else 0}}, {}),
            }
            for i in range(count)
        ]
    )


def test_the_store_is_written_again_once_enough_of_its_tools_are_new(cache: Path, preparations: list[str]) -> None:
    _plans(_numbered_tools(32))
    (store,) = _entries(cache)
    written = store.read_bytes()
    preparations.clear()
    _plans(_numbered_tools(32, changed=1))  # one tool in 32 new: prepared, kept in the small recent entry
    _plans(_numbered_tools(32, changed=1))
    assert preparations == ["tools.t00"]
    assert store.read_bytes() == written  # not worth rewriting the whole store
    assert len(_entries(cache)) == 2
    preparations.clear()
    _plans(_numbered_tools(32, changed=2))  # one in 16 new or recent: the whole store written again
    _plans(_numbered_tools(32, changed=2))
    assert preparations == ["tools.t01"]
    assert _entries(cache) == [store] and store.read_bytes() != written


def test_a_value_digest_depends_on_the_value_alone() -> None:
    import copy
    import json
    import sys

    from mcp_codegen.generate.cache import value_digest

    for name in corpus_names():
        for tool in corpus_snapshot(name).tools:
            value = [tool.get("inputSchema"), tool.get("outputSchema"), name]
            shared = [value[0], value[0], name]  # one object twice
            digest = value_digest(value)
            assert value_digest(copy.deepcopy(value)) == digest
            assert value_digest(json.loads(json.dumps(value))) == digest
            assert value_digest(shared) == value_digest(copy.deepcopy(shared))
    word = "".join(["ty", "pe"])  # not interned, equal to an interned one
    assert value_digest({word: 1}) == value_digest({sys.intern("type"): 1})
    distinct = [1, 1.0, True, "1", [1], {"1": 1}, None, [], {}, [None], ["a", "b"], ["ab"]]
    assert len({value_digest(value) for value in distinct}) == len(distinct)
    assert value_digest({"a": 1, "b": 2}) != value_digest({"b": 2, "a": 1})  # order is part of it, as in JSON text
