"""Nothing a user wrote is deleted: every kind of entry an output folder may hold, against every mode of `generate`.

For each kind of entry (a generated file intact or edited or turned into a link, one the new generation drops,
the user's own files at the top and nested, a `.git`, an empty folder, links to folders and files outside, a
FIFO, a file where a new generated file goes), in a folder mcp-codegen generated and in one it did not, and for
each mode (no flag, `--overwrite`, `--keep-other-files`, both, `--check`), the write runs as `generate` runs it
(`preflight`, then the package written) and these hold:

- every entry the previous manifest does not list is exactly as before (bytes, link target, kind), written or not;
- a listed file the user changed is replaced only with `--overwrite`;
- what is outside the folder (where links point) is never touched;
- a refusal changes nothing, is one `OutputConflictError`, and names what it found;
- `--check` changes nothing at all.

The umbrella's own folder is enumerated the same way, then the paths no run may use (`-o ""`, `-o .`, links on
the way) and the issue's case (a `.git` and `mywork.py` with `--overwrite`) run through the real command.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli.test_cli import TINY_SNAPSHOT, assert_fails, run, write_json
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import OutputConflictError
from mcp_codegen.generate.manifest import MANIFEST
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.output.job import preflight, prepare
from mcp_codegen.output.umbrella import UMBRELLA_FILES, preflight_umbrella, umbrella_files, write_umbrella_files
from mcp_codegen.output.write import differences, write_package
from mcp_codegen.snapshot.model import read_snapshot

ECHO = TINY_SNAPSHOT["tools"][0]
#: The previous generation (tools echo and peng) and the new one (echo and pong): peng's files are dropped,
#: pong's are new.
BEFORE: dict[str, Any] = {**TINY_SNAPSHOT, "tools": [ECHO, {**ECHO, "name": "peng"}]}
AFTER: dict[str, Any] = {**TINY_SNAPSHOT, "tools": [ECHO, {**ECHO, "name": "pong", "description": "Pong."}]}
MODES = {
    "no flag": {"overwrite": False, "keep_others": False},
    "--overwrite": {"overwrite": True, "keep_others": False},
    "--keep-other-files": {"overwrite": False, "keep_others": True},
    "--overwrite --keep-other-files": {"overwrite": True, "keep_others": True},
    "--check": {},
}


def _generated(tmp_path_factory: pytest.TempPathFactory, snapshot: dict[str, Any]) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("snapshots")
    taken = read_snapshot(write_json(folder / "s.json", snapshot))
    prepared = prepare(taken, folder / "pkg", "pkg", GenerateOptions(), Diagnostics(), check=True)
    assert prepared.files is not None
    return prepared.files


@pytest.fixture(scope="module")
def generations(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, bytes]]:
    return _generated(tmp_path_factory, BEFORE), _generated(tmp_path_factory, AFTER)


@dataclass(frozen=True)
class Kind:
    """One kind of entry: how to put it in the folder, the path a refusal names, and what the rules make of it."""

    name: str
    make: Callable[[Path, Path], None]  # (package folder, a folder outside it)
    named: str
    #: "listed-edited" (a generated file changed), "clash" (where a new file goes), "other" (not ours), "ours".
    role: str


def _write(path: str, data: bytes = b"mine\n") -> Callable[[Path, Path], None]:
    def make(folder: Path, _outside: Path) -> None:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)

    return make


def _edit(path: str) -> Callable[[Path, Path], None]:
    def make(folder: Path, _outside: Path) -> None:
        (folder / path).write_bytes((folder / path).read_bytes() + b"# my change\n")

    return make


def _link_over(path: str) -> Callable[[Path, Path], None]:
    def make(folder: Path, outside: Path) -> None:
        (folder / path).unlink()
        (folder / path).symlink_to(outside / "target.py")

    return make


def _git(folder: Path, _outside: Path) -> None:
    (folder / ".git" / "objects" / "ab").mkdir(parents=True)
    (folder / ".git" / "refs" / "tags").mkdir(parents=True)  # empty, as git leaves it
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / ".git" / "objects" / "ab" / "cdef").write_bytes(b"\x00blob")


def _empty_folder(folder: Path, _outside: Path) -> None:
    (folder / "data").mkdir()


def _link_to_folder(folder: Path, outside: Path) -> None:
    (folder / "linked").symlink_to(outside, target_is_directory=True)


def _link_to_file(folder: Path, outside: Path) -> None:
    (folder / "notes.md").symlink_to(outside / "target.py")


def _fifo(folder: Path, _outside: Path) -> None:
    os.mkfifo(folder / "pipe")


def _clash_folder(folder: Path, _outside: Path) -> None:
    (folder / "models" / "pong.py").mkdir(parents=True)  # a folder where a generated file goes
    (folder / "models" / "pong.py" / "keep.txt").write_text("mine\n")


KINDS = [
    Kind("intact generated files", lambda folder, outside: None, "", "ours"),
    Kind("a generated file edited", _edit("client.py"), "client.py", "listed-edited"),
    Kind("a generated file turned into a link", _link_over("client.py"), "client.py", "listed-edited"),
    Kind("a dropped generated file edited", _edit("models/peng.py"), "models/peng.py", "listed-edited"),
    Kind("the user's module", _write("mywork.py"), "mywork.py", "other"),
    Kind("the user's file in a generated folder", _write("models/mine.py"), "models/mine.py", "other"),
    Kind("a dotfile", _write(".env", b"A=1\n"), ".env", "other"),
    Kind("a .git folder", _git, ".git/", "other"),
    Kind("an empty folder", _empty_folder, "data/", "other"),
    Kind("nested folders", _write("a/b/c.txt"), "a/", "other"),
    Kind("a link to a folder outside", _link_to_folder, "linked", "other"),
    Kind("a link to a file outside", _link_to_file, "notes.md", "other"),
    Kind("a FIFO", _fifo, "pipe", "other"),
    Kind("the user's file where a new file goes", _write("models/pong.py"), "models/pong.py", "clash"),
    Kind("the user's folder where a new file goes", _clash_folder, "models/pong.py/", "clash"),
    Kind("the user's folder inside a generated folder", _write("models/x/y.py"), "models/x/", "other"),
]
#: Only in a folder not generated (in a generated one, the manifest is mcp-codegen's own).
FOREIGN_ONLY = [Kind("the user's file named like the manifest", _write(MANIFEST, b"{}"), MANIFEST, "clash")]
#: Each kind in each folder where it can exist: a folder not generated lists nothing, so nothing in it is a
#: generated file (edited or not).
CASES = [(kind, True) for kind in KINDS] + [
    (kind, False) for kind in KINDS + FOREIGN_ONLY if kind.role not in ("listed-edited", "ours")
]


def _entries(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under `root`, links not followed: its kind and bytes (or link target)."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for folder, folders, names in os.walk(root):
        for name in folders + names:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                found[key] = ("link", os.readlink(path))
            elif stat.S_ISDIR(mode):
                found[key] = ("folder", b"")
            elif stat.S_ISREG(mode):
                found[key] = ("file", path.read_bytes())
            else:
                found[key] = ("special", b"")
    return found


def _expected_refusal(kind: Kind, generated: bool, overwrite: bool, keep_others: bool) -> bool:
    """The rules of `output.ownership`, stated once more for the test."""
    if kind.role == "clash":
        return True
    if kind.role == "listed-edited":
        return not overwrite
    if kind.role == "other":
        return (overwrite or not generated) and not keep_others
    return False


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "kind, generated",
    CASES,
    ids=[f"{kind.name} ({'generated' if generated else 'not generated'})" for kind, generated in CASES],
)
def test_nothing_unlisted_is_deleted_and_a_refusal_names_what_it_found(
    generations: tuple[dict[str, bytes], dict[str, bytes]], tmp_path: Path, kind: Kind, generated: bool, mode: str
) -> None:
    previous, new = generations
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text("outside\n")
    folder = tmp_path / "pkg"
    folder.mkdir()
    if generated:
        write_package(folder, previous, overwrite=False)
    kind.make(folder, outside)
    listed = set(json.loads(previous[MANIFEST])["files"]) if generated else set()
    before, outside_before = _entries(folder), _entries(outside)

    if mode == "--check":
        preflight(folder, overwrite=False, check=True)
        differences(folder, new)
        assert _entries(folder) == before and _entries(outside) == outside_before
        return
    flags = MODES[mode]
    refused = _expected_refusal(kind, generated, flags["overwrite"], flags["keep_others"])
    try:
        preflight(folder, check=False, **flags)
        write_package(folder, new, **flags)
    except OutputConflictError as error:
        assert refused, f"refused: {error}"
        # Named as found: before the new files are known, at its top-most folder (`models/` for `models/mine.py`).
        assert kind.named in str(error) or kind.named.split("/")[0] + "/" in str(error), str(error)
        assert "\n" not in str(error)
        assert _entries(folder) == before
    else:
        assert not refused, f"{kind.name} with {mode} was not refused"
        after = _entries(folder)
        for path, entry in before.items():
            ours = path in listed or path == MANIFEST and generated
            parent_of_ours = any(item.startswith(path + "/") for item in listed | set(new))
            if not ours and not parent_of_ours:
                assert after.get(path) == entry, f"{path} changed or deleted"
        for path, data in new.items():
            assert after[path] == ("file", data), path
        if kind.role == "listed-edited":
            assert after.get(kind.named) != before[kind.named]  # replaced (or, dropped, removed): --overwrite
        assert not any(name.startswith(".pkg.") for name in os.listdir(tmp_path))  # no staging left
    assert _entries(outside) == outside_before


UMBRELLA_KINDS = [
    Kind("the user's module", _write("mywork.py"), "mywork.py", "other"),
    Kind("a .git folder", _git, ".git/", "other"),
    Kind("a link to a folder outside", _link_to_folder, "linked", "other"),
    Kind("the umbrella's README edited", _edit("README.md"), "README.md", "listed-edited"),
    Kind("the user's file where the umbrella writes", _write("py.typed"), "py.typed", "clash"),
]


UMBRELLA_CASES = [(kind, generated) for kind in UMBRELLA_KINDS for generated in (True, False)]
UMBRELLA_CASES = [(kind, generated) for kind, generated in UMBRELLA_CASES if generated or kind.role != "listed-edited"]


@pytest.mark.parametrize("mode", [mode for mode in MODES if mode != "--check"])
@pytest.mark.parametrize(
    "kind, generated",
    UMBRELLA_CASES,
    ids=[f"{kind.name} ({'generated' if generated else 'not generated'})" for kind, generated in UMBRELLA_CASES],
)
def test_the_umbrellas_own_folder_obeys_the_same_rule(tmp_path: Path, kind: Kind, generated: bool, mode: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text("outside\n")
    folder = tmp_path / "clients"
    folder.mkdir()
    files = umbrella_files("clients", [])
    if generated:
        write_umbrella_files(folder, files, (), overwrite=False, keep_others=False)
    if kind.role == "clash" and generated:
        (folder / "py.typed").unlink()
        kind.make(folder, outside)
        manifest = json.loads((folder / MANIFEST).read_text())
        del manifest["files"]["py.typed"]  # the user's file now, where the umbrella writes its own
        (folder / MANIFEST).write_text(json.dumps(manifest))
    else:
        kind.make(folder, outside)
    before = _entries(folder)
    flags = MODES[mode]
    refused = _expected_refusal(kind, generated, flags["overwrite"], flags["keep_others"])
    try:
        preflight_umbrella(folder, {}, [], check=False, **flags)
        kept = write_umbrella_files(folder, files, (), **flags)
    except OutputConflictError as error:
        assert refused, f"refused: {error}"
        assert kind.named in str(error)
        assert _entries(folder) == before
    else:
        assert not refused, f"{kind.name} with {mode} was not refused"
        after = _entries(folder)
        if kind.role == "other":
            assert kind.named in kept
            assert {path: entry for path, entry in after.items() if path.startswith(kind.named.rstrip("/"))} == {
                path: entry for path, entry in before.items() if path.startswith(kind.named.rstrip("/"))
            }
        assert all(after[path] == ("file", data) for path, data in files.items() if path in UMBRELLA_FILES)
    assert _entries(outside) == {"target.py": ("file", b"outside\n")}


# --------------------------------------------------------------------------------------------------
# Through the command line
# --------------------------------------------------------------------------------------------------


def test_overwrite_with_a_git_folder_and_the_users_module_keeps_both_or_refuses(tmp_path: Path) -> None:
    """The issue's case: `generate --overwrite` deleted a folder's `.git` and `mywork.py`."""
    snapshot = str(write_json(tmp_path / "tiny.json", TINY_SNAPSHOT))
    for generated_first in (True, False):
        out = tmp_path / f"pkg_{generated_first}"
        if generated_first:
            assert run("generate", "-q", "--snapshot", snapshot, "-o", str(out)).returncode == 0
        else:
            out.mkdir()
        _git(out, tmp_path)
        (out / "mywork.py").write_text("WORK = 1\n")
        before = _entries(out)
        result = run("generate", "-q", "--snapshot", snapshot, "-o", str(out), "--overwrite")
        assert_fails(result, 4, ".git/", "mywork.py", "--keep-other-files")
        assert _entries(out) == before
        kept = run("generate", "--snapshot", snapshot, "-o", str(out), "--overwrite", "--keep-other-files")
        assert kept.returncode == 0, kept.stderr
        after = _entries(out)
        assert {path: entry for path, entry in before.items() if path.startswith((".git", "mywork"))} == {
            path: entry for path, entry in after.items() if path.startswith((".git", "mywork"))
        }
        assert (out / "client.py").is_file()


@pytest.mark.parametrize("output", ["", ".", "./", "..", "sub/.."])
def test_an_output_that_is_the_current_folder_or_holds_it_is_refused(tmp_path: Path, output: str) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "mine.txt").write_text("mine\n")
    snapshot = str(write_json(tmp_path / "tiny.json", TINY_SNAPSHOT))
    before = _entries(tmp_path)
    result = run("generate", "--snapshot", snapshot, "-o", output, "--overwrite", "--keep-other-files", cwd=tmp_path)
    assert_fails(result, 4, "current folder", "-o my_client")
    assert _entries(tmp_path) == before


def test_an_output_through_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(elsewhere, target_is_directory=True)
    snapshot = str(write_json(tmp_path / "tiny.json", TINY_SNAPSHOT))
    for output in ("link", "link/pkg", "link/../pkg", str(work / "link" / "pkg"), str(work / "link")):
        result = run("generate", "--snapshot", snapshot, "-o", output, "--keep-other-files", cwd=work)
        assert_fails(result, 4, "is a symbolic link", str(elsewhere))
    assert list(elsewhere.iterdir()) == [] and sorted(os.listdir(work)) == ["link"]
    assert run("generate", "-q", "--snapshot", snapshot, "-o", "real/pkg", cwd=work).returncode == 0


def test_the_packages_own_snapshot_edited_and_given_to_snapshot_is_its_input_not_a_loss(tmp_path: Path) -> None:
    """Editing a package's snapshot.json and regenerating from it needs no --overwrite: the change is carried into
    what is written. Another generated file changed still does."""
    out = tmp_path / "tiny_pkg"
    assert (
        run(
            "generate", "-q", "--snapshot", str(write_json(tmp_path / "t.json", TINY_SNAPSHOT)), "-o", str(out)
        ).returncode
        == 0
    )
    own = out / "snapshot.json"
    data = json.loads(own.read_text())
    data["tools"][0]["description"] = "Answer back, edited."
    own.write_text(json.dumps(data))
    result = run("generate", "-q", "--snapshot", str(own), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "Answer back, edited." in (out / "client.py").read_text() and "Answer back, edited." in own.read_text()
    (out / "client.py").write_text((out / "client.py").read_text() + "# mine\n")
    data["tools"][0]["description"] = "Edited twice."
    own.write_text(json.dumps(data))
    assert_fails(run("generate", "-q", "--snapshot", str(own), "-o", str(out)), 4, "you changed client.py")


def test_a_crafted_manifest_removes_nothing_outside_the_package_when_written_in_place(
    generations: tuple[dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    previous, new = generations
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    folder = tmp_path / "out" / "pkg"
    write_package(folder, previous, overwrite=False)
    (folder / "linked").symlink_to(outside, target_is_directory=True)  # the user's: the write goes in place
    manifest = json.loads((folder / MANIFEST).read_text())
    crafted = [
        "../../outside/keep.txt",
        str(outside / "keep.txt"),
        "linked/keep.txt",
        "models/../../../outside/keep.txt",
    ]
    manifest["files"] |= dict.fromkeys(crafted, "0")
    (folder / MANIFEST).write_text(json.dumps(manifest))
    write_package(folder, new, overwrite=True, keep_others=True)
    assert (outside / "keep.txt").read_text() == "keep\n" and (folder / "linked").is_symlink()
    assert json.loads((folder / MANIFEST).read_text())["files"].keys() == json.loads(new[MANIFEST])["files"].keys()
