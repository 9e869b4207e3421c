"""A server's cached results (`cache.ServerResults`): the few a run made go to a small recent entry, not the whole
one; the whole entry is written again once they are one in `REWRITE_SHARE`; a stale or corrupt entry is a miss."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_codegen.generate.cache import RECENT, REWRITE_SHARE, ServerResults


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
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(cache.rglob("*.json"))}


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
    [recent_path] = [path for path in cache.rglob("*.json") if path.stem.endswith(RECENT)]
    recent_path.write_text('{"format": 1, "results": {"new": {"value": "not a number"}}', encoding="utf-8")
    assert _run({**values, "new": 1}) == {**{key: True for key in values}, "new": False}  # not JSON: made again
    recent_path.write_text(json.dumps({"format": 99, "results": {"new": {"value": 1}}}), encoding="utf-8")
    assert _run({**values, "new": 1})["new"] is False  # another layout's
    recent_path.write_text(json.dumps({"format": 1, "results": {"new": {"value": "x"}}}), encoding="utf-8")
    assert _run({**values, "new": 1})["new"] is False  # a result this version would not write
    assert _run({**values, "new": 1})["new"] is True  # and each time made again and kept
