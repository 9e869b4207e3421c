"""The write path as users meet it: their own files in a generated package, where the output may go,
the counts in the summary, and `--strict` with accepted warning codes.

Each test runs the real command on a snapshot file (offline) or a small stdio server script.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.test_cli import LOOSE_SNAPSHOT, TINY_SNAPSHOT, assert_fails, files, run, state, write_json
from mcp_codegen.generate.manifest import MANIFEST, digest
from mcp_codegen.output.umbrella import remove_subpackage
from mcp_codegen.output.write import write_package

THREE_TOOLS: dict[str, Any] = {
    **TINY_SNAPSHOT,
    "tools": [{**TINY_SNAPSHOT["tools"][0], "name": name} for name in ("ping", "pong", "peng")],
}


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_json(tmp_path / "tiny.json", TINY_SNAPSHOT)


@pytest.fixture
def generated(tiny: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out" / "tiny_pkg"
    result = run("generate", "-q", "--snapshot", str(tiny), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def _changed_snapshot(tmp_path: Path) -> Path:
    """TINY with another description: regenerating from it rewrites the package."""
    tools = [{**TINY_SNAPSHOT["tools"][0], "description": "Answer pong, again."}]
    return write_json(tmp_path / "changed.json", {**TINY_SNAPSHOT, "tools": tools})


# --------------------------------------------------------------------------------------------------
# 8. The user's own files
# --------------------------------------------------------------------------------------------------


def test_regeneration_keeps_the_users_own_files(generated: Path, tmp_path: Path) -> None:
    (generated / "my_extra.py").write_text("EXTRA = 1\n")
    (generated / "models" / "helpers.py").write_text("HELP = 2\n")
    (generated / "NOTES.md").write_text("notes\n")
    result = run("generate", "--snapshot", str(_changed_snapshot(tmp_path)), "-o", str(generated))
    assert result.returncode == 0, result.stderr
    assert "Answer pong, again." in (generated / "client.py").read_text()
    assert (generated / "my_extra.py").read_text() == "EXTRA = 1\n"
    assert (generated / "models" / "helpers.py").read_text() == "HELP = 2\n"
    assert (generated / "NOTES.md").read_text() == "notes\n"
    assert "kept 3 files of yours" in result.stderr and "my_extra.py" in result.stderr
    # The manifest still lists only what mcp-codegen wrote, so the next run keeps them again.
    recorded = json.loads((generated / MANIFEST).read_text())["files"]
    assert "my_extra.py" not in recorded and "client.py" in recorded


def test_a_users_link_to_a_folder_is_kept_as_a_link_and_never_followed(generated: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "data.txt").write_text("mine\n")
    (generated / "linked").symlink_to(outside, target_is_directory=True)
    (generated / "__pycache__").mkdir(exist_ok=True)
    (generated / "__pycache__" / "client.cpython-311.pyc").write_bytes(b"cache")
    result = run("generate", "--snapshot", str(_changed_snapshot(tmp_path)), "-o", str(generated))
    assert result.returncode == 0, result.stderr
    assert "kept 1 file of yours" in result.stderr and "linked" in result.stderr  # the link, not what it reaches
    assert (generated / "linked").is_symlink() and (generated / "linked" / "deep" / "data.txt").read_text() == "mine\n"


def test_users_files_do_not_make_the_output_stale(generated: Path, tiny: Path) -> None:
    (generated / "my_extra.py").write_text("EXTRA = 1\n")
    before = state(generated)
    result = run("generate", "--snapshot", str(tiny), "-o", str(generated))
    assert result.returncode == 0, result.stderr
    assert "is up to date" in result.stderr
    assert state(generated) == before
    assert run("generate", "-q", "--check", "--snapshot", str(tiny), "-o", str(generated)).returncode == 0


def test_a_user_file_where_a_generated_file_goes_is_refused_and_nothing_written(
    generated: Path, tmp_path: Path
) -> None:
    """A new tool `pong` needs models/pong.py: the user's file there is named, exit 4, the package untouched."""
    (generated / "models" / "pong.py").write_text("# mine\n")
    before = state(generated)
    two = write_json(tmp_path / "two.json", {**THREE_TOOLS, "tools": THREE_TOOLS["tools"][:2]})
    result = run("generate", "-q", "--snapshot", str(two), "-o", str(generated))
    assert_fails(result, 4, "models/pong.py is yours", "move it")
    assert state(generated) == before
    for flags in (["--overwrite"], ["--keep-other-files"], ["--overwrite", "--keep-other-files"]):
        assert_fails(run("generate", "-q", "--snapshot", str(two), "-o", str(generated), *flags), 4, "models/pong.py")
        assert state(generated) == before


def test_overwrite_never_removes_the_users_files_it_names_them_and_keeps_them_with_a_flag(
    generated: Path, tmp_path: Path
) -> None:
    """`--overwrite` once made the folder exactly the generated files, deleting the rest: now it refuses, naming
    them, and `--keep-other-files` generates beside them."""
    (generated / "NOTES.md").write_text("notes\n")
    (generated / "helper.py").write_text("x = 1\n")
    before = state(generated)
    changed = str(_changed_snapshot(tmp_path))
    result = run("generate", "-q", "--snapshot", changed, "-o", str(generated), "--overwrite")
    assert_fails(result, 4, "NOTES.md, helper.py", "--keep-other-files", "--overwrite replaces only what")
    assert state(generated) == before
    result = run(
        "generate", "--format", "json", "--snapshot", changed, "-o", str(generated), "--overwrite", "--keep-other-files"
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kept"] == ["NOTES.md", "helper.py"]
    assert "Answer pong, again." in (generated / "client.py").read_text()
    assert (generated / "NOTES.md").read_text() == "notes\n" and (generated / "helper.py").read_text() == "x = 1\n"


def test_a_generated_file_you_edited_is_replaced_only_with_overwrite(generated: Path, tmp_path: Path) -> None:
    client = generated / "client.py"
    client.write_text(client.read_text() + "# my fix\n")
    before = state(generated)
    changed = str(_changed_snapshot(tmp_path))
    assert_fails(run("generate", "-q", "--snapshot", changed, "-o", str(generated)), 4, "you changed client.py",
                 "--overwrite")  # fmt: skip
    assert state(generated) == before
    result = run("generate", "-q", "--snapshot", changed, "-o", str(generated), "--overwrite")
    assert result.returncode == 0, result.stderr
    assert "# my fix" not in client.read_text() and "Answer pong, again." in client.read_text()


def test_a_failed_write_leaves_the_previous_output_and_the_users_files(generated: Path) -> None:
    """Atomic: files that cannot be written (a non-UTF-8-safe path is not the point; a clash is) change nothing."""
    (generated / "my_extra.py").write_text("EXTRA = 1\n")
    before = state(generated)
    with pytest.raises(Exception, match="mcp-codegen writes there"):
        write_package(generated, {"my_extra.py": b"generated\n", MANIFEST: b"{}"}, overwrite=False)
    assert state(generated) == before


def test_removing_an_orphan_subpackage_keeps_the_users_files(tmp_path: Path) -> None:
    sub = tmp_path / "umbrella" / "gone"
    package = {"__init__.py": b"", "models/__init__.py": b"", "snapshot.json": b"{}"}
    write_package(sub, {**package, MANIFEST: _manifest(package)}, overwrite=False)
    (sub / "mine.py").write_text("x = 1\n")
    assert remove_subpackage(sub) == ["mine.py"]
    assert files(sub) == {"mine.py": b"x = 1\n"}

    (sub / "mine.py").unlink()
    write_package(sub, {"__init__.py": b"", MANIFEST: _manifest({"__init__.py": b""})}, overwrite=True)
    assert remove_subpackage(sub) == []
    assert not sub.exists()


def test_removing_an_orphan_subpackage_keeps_a_file_you_edited_unless_overwrite(tmp_path: Path) -> None:
    sub = tmp_path / "umbrella" / "gone"
    package = {"__init__.py": b"", "client.py": b"x = 1\n"}
    write_package(sub, {**package, MANIFEST: _manifest(package)}, overwrite=False)
    (sub / "client.py").write_text("x = 2  # mine\n")
    assert remove_subpackage(sub) == ["client.py"]
    assert files(sub) == {"client.py": b"x = 2  # mine\n"}  # no manifest now: the file is the user's
    (sub / "client.py").unlink()
    write_package(sub, {**package, MANIFEST: _manifest(package)}, overwrite=False)
    (sub / "client.py").write_text("x = 2  # mine\n")
    assert remove_subpackage(sub, overwrite=True) == []
    assert not sub.exists()


def _manifest(files: dict[str, bytes]) -> bytes:
    return json.dumps(
        {"generator": "mcp-codegen", "files": {path: digest(data) for path, data in files.items()}}
    ).encode()


# --------------------------------------------------------------------------------------------------
# 9. Where the output may go: checked before the server is contacted
# --------------------------------------------------------------------------------------------------


def _recording_server(tmp_path: Path) -> tuple[str, Path]:
    """A stdio "server" that only records that it was started."""
    marker = tmp_path / "started"
    script = tmp_path / "server.py"
    script.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('yes')\n")
    return shlex.join([sys.executable, str(script)]), marker


def test_output_under_a_regular_file_fails_before_connecting(tmp_path: Path) -> None:
    command, marker = _recording_server(tmp_path)
    (tmp_path / "afile").write_text("x")
    result = run("generate", "--stdio", command, "-o", str(tmp_path / "afile" / "pkg"))
    assert_fails(result, 4, "afile", "is not a directory")
    assert not marker.exists()
    result = run("generate", "--stdio", command, "-o", str(tmp_path / "afile" / "deeper" / "pkg"))
    assert_fails(result, 4, "is not a directory")
    result = run("snapshot", "--stdio", command, "-o", str(tmp_path / "afile" / "s.json"))
    assert_fails(result, 4, "is not a directory")
    assert not marker.exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc (unwritable even for root)")
def test_output_in_an_unwritable_place_fails_before_connecting(tmp_path: Path) -> None:
    command, marker = _recording_server(tmp_path)
    result = run("generate", "--stdio", command, "-o", "/proc/mcp-codegen-test/pkg")
    assert_fails(result, 4, "cannot write", "not writable")
    assert not marker.exists()


# --------------------------------------------------------------------------------------------------
# 12. Counts
# --------------------------------------------------------------------------------------------------


def test_summary_counts_the_generated_tools_and_pluralizes(tmp_path: Path) -> None:
    snapshot = write_json(tmp_path / "three.json", THREE_TOOLS)
    result = run("generate", "--snapshot", str(snapshot), "-o", str(tmp_path / "three_pkg"), "--include", "ping")
    assert result.returncode == 0, result.stderr
    summary = result.stderr.splitlines()[-1]
    assert "(2 tools left out by --include/--exclude)" in summary
    assert summary.endswith(": 1 tool, 0 resources, 0 resource templates, 0 prompts, 0 warnings"), summary
    result = run(
        "generate", "--format", "json", "--snapshot", str(snapshot), "-o", str(tmp_path / "p2"), "--exclude", "p[oe]ng"
    )
    report = json.loads(result.stdout)
    assert (report["tools"], report["toolsLeftOut"]) == (1, 2)


# --------------------------------------------------------------------------------------------------
# 15. Warning codes and --allow-warning
# --------------------------------------------------------------------------------------------------


def test_warnings_carry_their_code_in_text_and_json(tmp_path: Path) -> None:
    loose = write_json(tmp_path / "loose.json", LOOSE_SNAPSHOT)
    result = run("generate", "--snapshot", str(loose), "-o", str(tmp_path / "a_pkg"))
    assert "mcp-codegen: warning[input-schema-empty]: tools.anything.inputSchema: " in result.stderr
    assert "1 tool, 0 resources" in result.stderr and "1 warning" in result.stderr
    result = run("generate", "--format", "json", "--snapshot", str(loose), "-o", str(tmp_path / "b_pkg"))
    [diagnostic] = json.loads(result.stdout)["diagnostics"]
    assert diagnostic["code"] == "input-schema-empty"


def test_strict_names_the_codes_and_allow_warning_accepts_them(tmp_path: Path) -> None:
    loose = write_json(tmp_path / "loose.json", LOOSE_SNAPSHOT)
    out = tmp_path / "loose_pkg"
    result = run("generate", "--strict", "--snapshot", str(loose), "-o", str(out))
    assert result.returncode == 1
    assert "error: --strict: 1 warning (input-schema-empty); nothing written" in result.stderr
    assert not out.exists()
    result = run(
        "generate", "-q", "--strict", "--allow-warning", "input-schema-empty", "--snapshot", str(loose), "-o", str(out)
    )
    assert result.returncode == 0, result.stderr
    assert (out / "client.py").is_file()
    # Up to date: the recorded warnings keep their codes, so the same flag still accepts them.
    result = run(
        "generate", "--strict", "--allow-warning", "input-schema-empty", "--snapshot", str(loose), "-o", str(out)
    )
    assert result.returncode == 0 and "is up to date" in result.stderr
    result = run("generate", "--strict", "--allow-warning", "pattern-dropped", "--snapshot", str(loose), "-o", str(out))
    assert result.returncode == 1 and "input-schema-empty" in result.stderr


def test_an_unknown_warning_code_is_a_usage_error(tmp_path: Path, tiny: Path) -> None:
    result = run("generate", "--allow-warning", "no-such-code", "--snapshot", str(tiny), "-o", str(tmp_path / "x"))
    assert_fails(result, 2, "no-such-code")
