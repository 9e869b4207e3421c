"""An umbrella generated before the runtime became a library held a `_runtime/` copy: regenerating removes it."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_codegen.generate.manifest import MANIFEST, digest
from mcp_codegen.output.umbrella import umbrella_files, write_umbrella_files


def test_regenerating_an_umbrella_removes_its_old_runtime_copy(tmp_path: Path) -> None:
    umbrella = tmp_path / "mcp_clients"
    (umbrella / "_runtime" / "calls").mkdir(parents=True)
    (umbrella / "_runtime" / "calls" / "errors.py").write_text("# the old copy\n")
    copy = digest(b"# the old copy\n")
    old = {"generator": "mcp-codegen", "files": {"__init__.py": "0", "_runtime/calls/errors.py": copy}}
    (umbrella / MANIFEST).write_text(json.dumps(old))
    write_umbrella_files(umbrella, umbrella_files("mcp_clients", []), (), overwrite=False, keep_others=False)
    assert not (umbrella / "_runtime").exists()
    assert "from mcp_codegen_runtime import" in (umbrella / "__init__.py").read_text(encoding="utf-8")


def test_a_runtime_folder_the_manifest_does_not_list_is_the_users_and_stays(tmp_path: Path) -> None:
    umbrella = tmp_path / "mcp_clients"
    (umbrella / "_runtime").mkdir(parents=True)
    (umbrella / "_runtime" / "mine.py").write_text("# the user's\n")
    (umbrella / MANIFEST).write_text(json.dumps({"generator": "mcp-codegen", "files": {"__init__.py": "0"}}))
    kept = write_umbrella_files(umbrella, umbrella_files("mcp_clients", []), (), overwrite=False, keep_others=False)
    assert kept == ["_runtime/"]
    assert (umbrella / "_runtime" / "mine.py").is_file()
