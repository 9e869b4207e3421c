"""Regenerating into an existing package writes only what changed, and the result is byte for byte a fresh run's.

The listing is the github server of tests/corpus (real schemas, 26 tools). The package is generated, then one
tool's input schema changes (and later a tool goes away); each time the package is regenerated over the old one
(unchanged files hard-linked into the swapped-in package), with the cache warm, and compared file by file with a package generated from scratch with the cache off.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from helpers import CORPUS

from cli.test_cli import run, write_json
from mcp_codegen.output.job import new_snapshot

GITHUB: dict[str, Any] = {**json.loads((CORPUS / "github.json").read_text(encoding="utf-8")), "formatVersion": 1}


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _stamps(directory: Path) -> dict[str, tuple[int, int]]:
    return {
        path.relative_to(directory).as_posix(): (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def _generate(snapshot: Path, output: Path, **env: str) -> None:
    result = run("generate", "-q", "--snapshot", str(snapshot), "-o", str(output), env=env)
    assert result.returncode == 0, result.stderr


def _fresh(snapshot: Path, output: Path) -> dict[str, bytes]:
    _generate(snapshot, output, MCP_CODEGEN_NO_CACHE="1")
    return _tree(output)


def test_one_tool_changed_rewrites_its_files_only_and_matches_a_fresh_generation(tmp_path: Path) -> None:
    cache = {"MCP_CODEGEN_CACHE_DIR": str(tmp_path / "cache")}
    package = tmp_path / "out" / "github_client"
    _generate(write_json(tmp_path / "a.json", GITHUB), package, **cache)
    (package / "NOTES.md").write_text("mine\n", encoding="utf-8")  # a file of the user's stays
    before = _stamps(package)

    changed = copy.deepcopy(GITHUB)
    tool = changed["tools"][len(changed["tools"]) // 2]
    tool["inputSchema"]["properties"]["added_by_the_test"] = {"type": "integer", "description": "New."}
    snapshot = write_json(tmp_path / "b.json", changed)
    _generate(snapshot, package, **cache)
    after = _stamps(package)
    incremental = _tree(package)
    assert incremental.pop("NOTES.md") == b"mine\n"
    assert incremental == _fresh(snapshot, tmp_path / "fresh_b" / "github_client")
    rewritten = sorted(path for path in after if after[path] != before.get(path))
    # The tool's models module, the modules listing every tool (client, specs, temporal, code_api.pyi, README), its
    # snapshot, the search index (its parameter names are indexed) and the manifest; nothing else.
    module = f"models/{tool['name']}.py"
    assert module in rewritten and len(rewritten) <= 10, rewritten
    assert {"client.py", "temporal.py", "snapshot.json", "search_index.json", ".mcp-codegen.json"} <= set(rewritten)

    removed = copy.deepcopy(changed)
    gone = removed["tools"].pop(0)["name"]
    snapshot = write_json(tmp_path / "c.json", removed)
    _generate(snapshot, package, **cache)
    incremental = _tree(package)
    assert incremental.pop("NOTES.md") == b"mine\n"
    assert incremental == _fresh(snapshot, tmp_path / "fresh_c" / "github_client")
    assert not (package / "models" / f"{gone}.py").exists()


def test_a_crafted_manifest_cannot_make_a_regeneration_touch_files_outside_the_package(tmp_path: Path) -> None:
    package = tmp_path / "out" / "github_client"
    snapshot = write_json(tmp_path / "a.json", GITHUB)
    _generate(snapshot, package)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n", encoding="utf-8")
    (package / "linked").symlink_to(outside)
    manifest = json.loads((package / ".mcp-codegen.json").read_text(encoding="utf-8"))
    manifest["files"] |= {"../../outside/keep.txt": "0", str(outside / "keep.txt"): "0", "linked/keep.txt": "0"}
    (package / ".mcp-codegen.json").write_text(json.dumps(manifest), encoding="utf-8")
    changed = copy.deepcopy(GITHUB)
    changed["tools"][0]["description"] = "Changed."
    _generate(write_json(tmp_path / "b.json", changed), package)
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "keep\n"
    assert "Changed." in (package / "client.py").read_text(encoding="utf-8")


def test_the_model_generator_starts_early_only_for_a_snapshot_other_than_the_packages(tmp_path: Path) -> None:
    package = tmp_path / "out" / "github_client"
    original = write_json(tmp_path / "a.json", GITHUB)
    assert new_snapshot(original, package)  # nothing generated yet
    _generate(original, package, MCP_CODEGEN_CACHE_DIR=str(tmp_path / "cache"))
    own = package / "snapshot.json"
    assert not new_snapshot(own, package)  # byte for byte the package's own: most likely up to date
    edited = write_json(tmp_path / "b.json", {**GITHUB, "instructions": "Changed."})
    assert new_snapshot(edited, package)
    assert new_snapshot(tmp_path / "missing.json", package)
