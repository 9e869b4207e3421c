"""Per-tool models: cached and parallel generation write exactly the bytes of a cold, serial run.

The listing is every tool of the 13 real servers in tests/corpus, merged into one (names prefixed to keep them
distinct): deep request bodies, `$ref`s, enums, names that need renaming.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_names, corpus_snapshot

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import cache as cache_module
from mcp_codegen.generate import formatting, model_units, tool_models, workers
from mcp_codegen.generate.build_ir import plan_tools
from mcp_codegen.generate.cache import RECENT, SUFFIX, encode_entry, read_entry
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.snapshot.model import Snapshot


def merged_corpus(change: str | None = None) -> Snapshot:
    tools: list[dict[str, Any]] = []
    for name in corpus_names():
        for tool in corpus_snapshot(name).tools:
            renamed = {**tool, "name": f"{name}__{tool['name']}"}
            if renamed["name"] == change:
                schema = dict(renamed["inputSchema"])
                schema["properties"] = {**schema.get("properties", {}), "added": {"type": "integer"}}
                renamed["inputSchema"] = schema
            tools.append(renamed)
    return Snapshot(server_info={"name": "corpus", "version": "1.0.0"}, capabilities={"tools": {}}, tools=tuple(tools))


def _generate(snapshot: Snapshot) -> tuple[dict[str, bytes], list[str]]:
    diagnostics = Diagnostics()
    files = generate_files(snapshot, package_name="corpus_client", diagnostics=diagnostics)
    return files, [str(item) for item in diagnostics.items]


def _entries(cache: Path, kind: str = "models") -> list[Path]:
    return sorted(cache.glob(f"{kind}/*/*{SUFFIX}"))


def _results(cache: Path, kind: str = "models") -> dict[str, Any]:
    """The results of the one server's entries of `kind` (the whole one and its recent results), by key."""
    entries = _entries(cache, kind)
    assert len(entries) in (1, 2)
    results: dict[str, Any] = {}
    for entry in sorted(entries, key=lambda path: path.name.removesuffix(SUFFIX).endswith(RECENT)):
        results |= read_entry(entry)["results"]
    return results


def test_cached_and_parallel_runs_write_the_bytes_of_a_cold_run(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = merged_corpus()
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    cold = _generate(snapshot)
    monkeypatch.delenv("MCP_CODEGEN_NO_CACHE")
    monkeypatch.setattr(tool_models, "PARALLEL_FROM", 1)  # every miss goes to two worker processes
    filling = _generate(snapshot)
    assert len(_results(cache)) == len(snapshot.tools)
    monkeypatch.setattr(tool_models, "PARALLEL_FROM", 10**6)
    warm = _generate(snapshot)
    assert filling == cold
    assert warm == cold


def test_one_changed_tool_is_the_only_one_generated_again(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    changed = f"{corpus_names()[0]}__{corpus_snapshot(corpus_names()[0]).tools[0]['name']}"
    _generate(merged_corpus())
    before = set(_results(cache))
    generated: list[object] = []
    real = model_units.generate_unit
    monkeypatch.setattr(model_units, "generate_unit", lambda unit: generated.append(unit) or real(unit))
    formatted = _record_formatting(monkeypatch)
    incremental = _generate(merged_corpus(change=changed))
    assert len(generated) == 1
    assert len(set(_results(cache)) - before) == 1
    # Only that tool's models module, its pieces of the modules that list every tool (its two methods, its spec,
    # its function and classes in the code API's stub) and the one skeleton that changed (the specs module lists
    # the tools' schema hashes) are formatted again.
    assert sorted(path for path in formatted if not path.startswith("models/")) == [
        "_pieces_0.py",
        "_pieces_0.pyi",
        "_pieces_4.py",
        "specs.py",
    ]
    assert len(formatted) == 5
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    assert incremental == _generate(merged_corpus(change=changed))


def _record_formatting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the formatter is run on from now on."""
    paths: list[str] = []
    real = formatting._run_formatter
    monkeypatch.setattr(
        formatting,
        "_run_formatter",
        lambda python, settings, skeletons: paths.extend(python) or real(python, settings, skeletons),
    )
    return paths


def test_an_unchanged_listing_is_never_formatted_again(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = Snapshot(server_info={"name": "s"}, capabilities={"tools": {}}, tools=corpus_snapshot("github").tools)
    first = _generate(snapshot)
    formattable = [path for path in first[0] if path.endswith((".py", ".pyi"))]  # code_api.pyi is formatted too
    assert len(_results(cache, "formatted")) == len(formattable)
    formatted = _record_formatting(monkeypatch)
    assert _generate(snapshot) == first
    assert formatted == []


@pytest.mark.parametrize("damage", ["whole entries", "each result"])
def test_a_corrupt_cache_only_costs_time(damage: str, cache: Path) -> None:
    snapshot = Snapshot(
        server_info={"name": "s"}, capabilities={"tools": {}}, tools=corpus_snapshot("github").tools[:12]
    )
    first = _generate(snapshot)
    entries = _entries(cache) + _entries(cache, "formatted")
    for index, path in enumerate(entries):
        if damage == "whole entries":
            whole = path.read_bytes()
            path.write_bytes(
                [whole[: len(whole) // 2], encode_entry([]), encode_entry({"format": 1}), b"\x00garbage"][index % 4]
            )
            continue
        entry = read_entry(path)
        for number, key in enumerate(sorted(entry["results"])):
            entry["results"][key] = [{"format": 1}, [], {"text": 1}, None][number % 4]
        path.write_bytes(encode_entry(entry))
    assert _generate(snapshot) == first
    assert all(result["format"] == 2 for result in _results(cache).values())  # made again and kept
    assert all(isinstance(result["text"], str) for result in _results(cache, "formatted").values())


def test_an_unusable_cache_directory_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(blocker))
    snapshot = Snapshot(server_info={"name": "s"}, capabilities={"tools": {}}, tools=corpus_snapshot("time").tools)
    files, _ = _generate(snapshot)
    assert "models/get_current_time.py" in files


def test_the_cache_is_bounded_and_keeps_one_generator_version(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = cache / "models" / "an-older-generator"
    stale.mkdir(parents=True)
    (stale / "x.json").write_text("{}")
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 5)
    tools = corpus_snapshot("github").tools[:2]
    for server in range(7):  # one entry per server
        _generate(Snapshot(server_info={"name": f"s{server}"}, capabilities={"tools": {}}, tools=tools))
    assert len(_entries(cache)) == 5
    assert not stale.exists()


def test_a_tool_the_model_generator_rejects_is_untyped_with_a_warning_cached_or_not(cache: Path) -> None:
    bad = {"name": "bad", "inputSchema": {"type": "object", "properties": {"x": {"type": "object", "properties": [1]}}}}
    good = {"name": "good", "inputSchema": {"type": "object", "properties": {"y": {"type": "string"}}}}
    snapshot = Snapshot(server_info={"name": "s"}, capabilities={"tools": {}}, tools=(bad, good))
    files, warnings = _generate(snapshot)
    assert any("[model-generator-failed]: tools.bad:" in warning for warning in warnings)
    assert "def bad(self, **arguments: Any)" in files["client.py"].decode() or b"BadArguments" in files["models/bad.py"]
    assert "class GoodArguments" in files["models/good.py"].decode()
    assert _generate(snapshot) == (files, warnings)  # from the cache: same files, same warning


def test_tools_generated_together_get_the_entries_they_get_alone() -> None:
    diagnostics = Diagnostics()
    plans = plan_tools(merged_corpus(), diagnostics, GenerateOptions().selection)
    units = [tool_models._unit(plan) for plan in plans]
    batches = model_units._batches(units)
    assert len(batches) < len(units) / 4  # most tools share a generator call
    assert model_units.generate_units(units) == [model_units.generate_unit(unit) for unit in units]


def test_tools_that_could_affect_each_other_are_generated_alone() -> None:
    def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "inputSchema": {"type": "object", "properties": properties}}

    snapshot = Snapshot(
        server_info={"name": "s"},
        capabilities={"tools": {}},
        tools=(
            tool("get", {"mode": {"enum": ["a", "b"]}}),
            # Its class names start with the first tool's prefix (GetItems...): they could collide.
            tool("get_items", {"mode": {"enum": ["c"]}}),
            tool("list", {"from": {"type": "string"}, "x": {"type": "string"}}),
            # `from` is renamed in one tool only when the other has a field already called `from_`.
            tool("push", {"from": {"type": "string"}, "from_": {"type": "integer"}}),
        ),
    )
    plans = plan_tools(snapshot, Diagnostics(), GenerateOptions().selection)
    units = [tool_models._unit(plan) for plan in plans]
    sizes = [[unit["prefix"] for unit in batch] for batch in model_units._batches(units)]
    assert ["Get", "GetItems"] not in sizes and ["List", "Push"] not in sizes
    assert model_units.generate_units(units) == [model_units.generate_unit(unit) for unit in units]


def _github_snapshot(count: int) -> Snapshot:
    return Snapshot(
        server_info={"name": "s"}, capabilities={"tools": {}}, tools=corpus_snapshot("github").tools[:count]
    )


def test_inside_warm_workers_the_tools_go_to_the_workers_started_on_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    monkeypatch.setattr(workers, "cores", lambda: 2)
    snapshot = _github_snapshot(3)  # few tools: outside the block, made in this process
    alone = _generate(snapshot)
    with workers.warm_workers():
        started = list(workers._active or [])
        # Patched after the workers forked: only a tool made in this process would call it.
        monkeypatch.setattr(model_units, "generate_units", _fails)
        inside = _generate(snapshot)
    assert len(started) == 2
    assert inside == alone
    assert all(not worker.process.is_alive() for worker in started)  # stopped when the block ends


def test_a_block_of_one_worker_takes_a_second_when_many_tools_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    monkeypatch.setattr(workers, "cores", lambda: 2)
    snapshot = _github_snapshot(14)  # enough tools for both workers
    alone = _generate(snapshot)
    with workers.warm_workers(1):
        assert len(workers._active or []) == 1
        assert _generate(snapshot) == alone
        started = list(workers._active or [])
    assert len(started) == 2
    assert all(not worker.process.is_alive() for worker in started)


def test_a_worker_that_dies_only_costs_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    monkeypatch.setattr(workers, "cores", lambda: 2)
    snapshot = _github_snapshot(14)  # enough tools for both workers
    alone = _generate(snapshot)
    made_here: list[int] = []
    real = model_units.generate_units
    with workers.warm_workers():
        for worker in workers._active or []:
            worker.process.kill()
            worker.process.join()
        monkeypatch.setattr(model_units, "generate_units", lambda units: made_here.append(len(units)) or real(units))
        assert _generate(snapshot) == alone
    assert sum(made_here) == 14  # both shares made in this process instead


def _fails(units: object) -> list[dict[str, Any]]:
    raise AssertionError("a tool was made in the main process")
