"""A server's cached results (`cache.ServerResults`): the few a run made go to a small recent entry, not the whole
one; the whole entry is written again once they are one in `REWRITE_SHARE`; a stale or corrupt entry is a miss,
and so is an entry another Python wrote (marshal's format is the interpreter's: its cache tag names the file)."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen.generate import cache as cache_module
from mcp_codegen.generate.cache import (
    RECENT,
    REWRITE_SHARE,
    SUFFIX,
    ResultCache,
    ServerResults,
    encode_entry,
    read_entry,
)


def _open() -> ServerResults:
    store = ServerResults.open("kind", "f" * 40, "server", lambda entry: isinstance(entry["value"], int))
    assert store is not None
    return store


def _run(values: dict[str, int]) -> dict[str, bool]:
    """One run using `values` (key -> value): which were found in the cache (else made and added)."""
    store = _open()
    found = {}
    for key, value in values.items():
        entry = store.get(key)
        found[key] = entry is not None
        if entry is not None:
            assert entry == {"value": value}
        store.use(key, entry or {"value": value}, made=entry is None)
    store.close()
    return found


def _entries(cache: Path) -> dict[str, dict[str, Any]]:
    return {path.name.removesuffix(SUFFIX): read_entry(path) for path in sorted(cache.rglob(f"*{SUFFIX}"))}


def test_an_entry_is_named_with_the_interpreter_cache_tag(cache: Path) -> None:
    _run({"tool": 1})
    [path] = [path for path in cache.rglob("*") if path.is_file()]
    assert path.name.endswith(f".{sys.implementation.cache_tag}.marshal")
    assert marshal.loads(path.read_bytes()) == {"format": ServerResults.FORMAT, "results": {"tool": {"value": 1}}}


def test_a_few_new_results_go_to_the_recent_entry(cache: Path) -> None:
    values = {f"tool{n}": n for n in range(40)}
    assert not any(_run(values).values())  # cold: all made, written whole
    [whole] = _entries(cache).values()
    assert whole["results"].keys() == values.keys()

    changed = {key: value for key, value in values.items() if key != "tool3"} | {"new": 1}  # one gone, one new
    found = _run(changed)
    assert [key for key, hit in found.items() if not hit] == ["new"]
    entries = _entries(cache)
    assert len(entries) == 2
    recent = next(entry for name, entry in entries.items() if name.endswith(RECENT))
    assert recent["results"] == {"new": {"value": 1}}  # the whole entry is left as it was
    assert next(entry for name, entry in entries.items() if not name.endswith(RECENT)) == whole

    assert all(_run(changed).values())  # the next run finds everything, and writes nothing
    assert _entries(cache) == entries


def test_the_whole_entry_is_written_again_once_enough_are_new(cache: Path) -> None:
    values = {f"tool{n}": n for n in range(2 * REWRITE_SHARE)}
    _run(values)
    _run({**values, "a": 1})
    _run({**values, "a": 1, "b": 2})  # the recent results still used are kept with the new one
    assert any(name.endswith(RECENT) for name in _entries(cache))
    [recent] = [entry for name, entry in _entries(cache).items() if name.endswith(RECENT)]
    assert recent["results"].keys() == {"a", "b"}
    _run({**values, "a": 1, "b": 2, "c": 3})  # 3 of 35: one in 16 reached
    [whole] = _entries(cache).values()
    assert whole["results"].keys() == {*values, "a", "b", "c"}


def test_a_corrupt_or_stale_recent_entry_is_a_miss(cache: Path) -> None:
    values = {f"tool{n}": n for n in range(40)}
    _run(values)
    _run({**values, "new": 1})
    [recent_path] = [path for path in cache.rglob(f"*{SUFFIX}") if path.name.removesuffix(SUFFIX).endswith(RECENT)]
    good = recent_path.read_bytes()
    assert read_entry(recent_path) == {"format": 1, "results": {"new": {"value": 1}}}
    for damaged in (
        b"\x00garbage\xff",  # no marshal data
        b"",
        good[: len(good) // 2],  # truncated
        good[:-1],
        b'{"format": 1, "results": {"new": {"value": 1}}}',  # a JSON entry of before
        marshal.dumps([1, 2]),  # marshal data of another shape
        marshal.dumps({"format": 99, "results": {"new": {"value": 1}}}),  # another layout's
        marshal.dumps({"format": 1, "results": ["new"]}),
        marshal.dumps({"format": 1, "results": {"new": {"value": "x"}}}),  # a result this version would not write
        marshal.dumps({"format": 1, "results": {"new": ("value", 1)}}),
        marshal.dumps(compile("1", "<entry>", "eval")),  # marshal data that is no entry at all
    ):
        recent_path.write_bytes(damaged)
        assert _run({**values, "new": 1}) == {**{key: True for key in values}, "new": False}, damaged  # made again
        assert read_entry(recent_path) == {"format": 1, "results": {"new": {"value": 1}}}  # and kept
    assert _run({**values, "new": 1})["new"] is True


def test_reading_a_bad_entry_raises_value_error(tmp_path: Path) -> None:
    path = tmp_path / f"x{SUFFIX}"
    for damaged in (b"", b"\x00garbage", encode_entry({"a": [1, 2.5, None, True, "é"]})[:-3]):
        path.write_bytes(damaged)
        with pytest.raises(ValueError):
            read_entry(path)
    with pytest.raises(OSError):
        read_entry(tmp_path / "missing")


def test_an_entry_of_another_python_is_neither_read_nor_pruned(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as other:  # another interpreter: another cache tag
        other.setattr(cache_module, "SUFFIX", ".cpython-399.marshal")
        assert not any(_run({"tool": 1}).values())
        assert all(_run({"tool": 1}).values())
    [foreign] = [path for path in cache.rglob("*") if path.is_file()]
    assert foreign.name.endswith(".cpython-399.marshal")
    assert not any(_run({"tool": 1}).values())  # not read here: made again, kept under this Python's name
    assert all(_run({"tool": 1}).values())
    assert foreign.is_file()

    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 2)
    store = ResultCache.open("kind", "f" * 40, lambda entry: True)
    assert store is not None
    for n in range(4):
        store.put(f"key{n}", {"n": n})
    store.prune()
    assert len(list(store.directory.glob(f"*{SUFFIX}"))) == 2  # this Python's entries, pruned to the bound
    assert foreign.is_file()  # the other's left alone


def test_an_entry_marshal_cannot_encode_is_not_kept(cache: Path) -> None:
    store = ResultCache.open("kind", "f" * 40, lambda entry: True)
    assert store is not None
    store.put("key", {"value": object()})  # never made by the generator: like an unwritable cache, not kept
    assert store.written == 0 and store.get("key") is None
