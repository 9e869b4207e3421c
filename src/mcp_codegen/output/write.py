"""Stage 6: write the package atomically, replacing only what mcp-codegen wrote before.

What may be written where is `output.ownership`'s to decide (nothing of the user's is ever deleted). A folder
holding only generated files is replaced whole: the new package is staged in a temporary sibling and swapped in
with renames, so a failed or interrupted run leaves the previous output exactly as it was; files whose bytes did
not change are hard-linked into the staging directory rather than written again. A folder that also holds other
entries (the user's own modules, a `.git`) is written in place: every new file is staged first, then each is
renamed over its generated predecessor, and files the previous manifest lists that this run does not write are
removed; nothing else is touched. A manifest inside the package (`generate/manifest.py`) marks it as generated
and records file hashes (so an unchanged regeneration can be skipped and an edit is seen).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mcp_codegen.errors import OutputLocationError
from mcp_codegen.generate.manifest import MANIFEST, digest, indented_json, read_manifest
from mcp_codegen.interrupts import deferred_interrupts, pause, record_written
from mcp_codegen.output.ownership import check_holdings


def is_current(directory: Path, input_hash: str) -> bool:
    """True when `directory` was generated from the same inputs and no generated file has changed since
    (files the user added are not the generator's: they do not make it stale)."""
    manifest = read_manifest(directory)
    if manifest is None or manifest.get("inputHash") != input_hash:
        return False
    recorded = manifest.get("files")
    if not isinstance(recorded, dict):
        return False
    for path, expected in recorded.items():
        target = directory / path
        if not target.is_file() or target.is_symlink() or digest(target.read_bytes()) != expected:
            return False
    return True


def _tree_files(directory: Path, *, with_manifest: bool = False) -> list[str]:
    """Every file under `directory` (a symbolic link counts as a file and is never followed), caches left out."""
    found: list[str] = []

    def walk(folder: str, prefix: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:  # unreadable: as if empty
            return
        for entry in entries:
            if entry.name == "__pycache__" or entry.name.endswith(".pyc"):
                continue
            if entry.is_symlink() or entry.is_file():
                found.append(prefix + entry.name)
            elif entry.is_dir():
                walk(entry.path, f"{prefix}{entry.name}/")

    walk(str(directory), "")
    return sorted(path for path in found if with_manifest or path != MANIFEST)


def generated_paths(directory: Path) -> set[str] | None:
    """The files the manifest of `directory` says mcp-codegen wrote (None when it has no manifest)."""
    manifest = read_manifest(directory)
    if manifest is None:
        return None
    recorded = manifest.get("files")
    return set(recorded) if isinstance(recorded, dict) else set()


@dataclass(frozen=True)
class Difference:
    path: str
    change: str  # "added", "removed" or "changed"


def differences(directory: Path, files: Mapping[str, bytes]) -> list[Difference]:
    """How `directory` differs from what would be written (manifest included; the user's own files,
    which a regeneration keeps, are not differences)."""
    existing = set(_tree_files(directory, with_manifest=True)) if directory.is_dir() else set()
    ours = generated_paths(directory) if directory.is_dir() else None
    if ours is not None:
        existing &= ours | {MANIFEST}
    result = []
    for path in sorted(existing | set(files)):
        if path not in files:
            result.append(Difference(path, "removed"))
        elif path not in existing:
            result.append(Difference(path, "added"))
        elif (directory / path).read_bytes() != files[path]:
            result.append(Difference(path, "changed"))
    return result


def check_location(directory: Path) -> None:
    """Fail now (`OutputLocationError`, exit 4) if `directory` could not be created or replaced:
    a regular file on the way, or a parent that cannot be written. Called before any server is contacted."""
    path = Path(os.path.abspath(directory))
    probe = path.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise OutputLocationError(f"cannot write {directory}: {probe} is not a directory")
    try:  # the write swaps directories in the parent: try exactly that, not os.access (wrong for root, NFS, ...)
        os.rmdir(tempfile.mkdtemp(prefix=".mcp-codegen-probe-", dir=probe))
    except OSError as error:
        raise OutputLocationError(f"cannot write {directory}: {probe} is not writable ({_reason(error)})") from None


def _reason(error: OSError) -> str:
    return error.strerror or error.__class__.__name__


def check_ownership(
    directory: Path,
    *,
    overwrite: bool,
    keep_others: bool = False,
    consumed: Collection[str] = (),
    users: Collection[str] = (),
) -> None:
    """Fail now (`OutputConflictError`, exit 4) if the mode may not write into `directory` (`output.ownership`)."""
    check_holdings(directory, overwrite=overwrite, keep_others=keep_others, consumed=consumed, users=users)


@dataclass(frozen=True)
class WriteResult:
    """What a write did besides writing the generated files (paths relative to the package)."""

    #: Entries that are not mcp-codegen's, left as they were (folders end with `/`).
    kept: list[str] = field(default_factory=list)


def write_package(
    directory: Path,
    files: Mapping[str, bytes],
    *,
    overwrite: bool,
    keep_others: bool = False,
    users: tuple[str, ...] = (),
    consumed: Collection[str] = (),
) -> WriteResult:
    """Write `files` as the package in `directory`, replacing only what its manifest lists.

    `overwrite`: also replace listed files the user changed. `keep_others`: write beside entries that are not
    mcp-codegen's even where the mode would refuse them (`output.ownership`). `users`: files of the user's the
    package holds by design (a server's `handlers.py`), never a reason to refuse. `consumed`: listed files the
    run read as its input (`output.ownership.check_holdings`).

    Raises `OutputConflictError` (nothing written) for anything in the way; `OutputLocationError` when it cannot
    be written.
    """
    found = check_holdings(
        directory, overwrite=overwrite, keep_others=keep_others, new_paths=files, users=users, consumed=consumed
    )
    try:
        if found.others:
            _write_in_place(directory, files, found.listed)
        else:
            _swap_in(directory, files)
    except OSError as error:
        raise OutputLocationError(f"cannot write {directory}: {_reason(error)}") from None
    pause("written")
    return WriteResult(kept=list(found.others))


def _swap_in(directory: Path, files: Mapping[str, bytes]) -> None:
    """Stage the new package beside `directory`, then swap it in. Ctrl-C is held back throughout: it stops the
    run only while staging (staging removed, previous output whole) or once the swap and its clean-up are done
    (the new output recorded as in place), never between the two renames or with a staging or `.old-*` left."""
    parent = directory.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    with deferred_interrupts() as interrupt:
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.new-", dir=parent))
        backup: Path | None = None
        try:
            folders = {staging}  # made once each (a package of 344 tools has 700 files in a dozen folders)
            for path, data in files.items():
                interrupt.check()
                target = staging / path
                if target.parent not in folders:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    folders.add(target.parent)
                if not _link_if_unchanged(directory / path, target, data):
                    target.write_bytes(data)
            os.chmod(staging, 0o755)
            pause("staged")
            interrupt.check()
            if directory.exists() or directory.is_symlink():
                backup = Path(tempfile.mkdtemp(prefix=f".{directory.name}.old-", dir=parent))
                os.rmdir(backup)
                os.rename(directory, backup)
                pause("swapping")
            os.rename(staging, directory)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            if backup is not None and backup.exists() and not directory.exists():
                os.rename(backup, directory)
            raise
        if backup is not None:
            if backup.is_dir() and not backup.is_symlink():
                shutil.rmtree(backup, ignore_errors=True)
            else:
                backup.unlink(missing_ok=True)
        record_written(directory)


def _write_in_place(directory: Path, files: Mapping[str, bytes], listed: frozenset[str]) -> None:
    """Write `files` into a folder that also holds entries not mcp-codegen's, touching nothing else: all staged
    first (an interrupt there changes nothing), then, with Ctrl-C held back, a manifest listing the old and the
    new files (so an unfinished run still owns both), the old files not written again removed, each new file
    renamed into place, and the final manifest last."""
    with deferred_interrupts() as interrupt:
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.new-", dir=directory.resolve().parent))
        try:
            changed = []
            for path, data in files.items():
                interrupt.check()
                if path != MANIFEST and _same_file(directory / path, data):
                    continue
                (staging / path).parent.mkdir(parents=True, exist_ok=True)
                (staging / path).write_bytes(data)
                changed.append(path)
            pause("staged")
            interrupt.check()
            if MANIFEST in files:
                _write_manifest_of_both(directory, files[MANIFEST], listed - set(files))
            for path in sorted(listed - set(files)):
                remove_generated(directory, path)
            for path in changed:
                if path != MANIFEST:
                    (directory / path).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(staging / path, directory / path)
            if MANIFEST in files:
                os.replace(staging / MANIFEST, directory / MANIFEST)
            else:
                (directory / MANIFEST).unlink(missing_ok=True)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        record_written(directory)


def _same_file(current: Path, data: bytes) -> bool:
    """Whether `current` is a regular file (not a link) holding exactly `data`."""
    try:
        status = os.lstat(current)
        return stat.S_ISREG(status.st_mode) and status.st_size == len(data) and current.read_bytes() == data
    except OSError:
        return False


def _write_manifest_of_both(directory: Path, new_manifest: bytes, leaving: Collection[str]) -> None:
    """Before anything moves: the new manifest, also listing (with their old hashes) the files about to be
    removed, so a run killed midway leaves a folder whose every generated file is still recorded."""
    from mcp_codegen_runtime.files import write_atomically

    previous = (read_manifest(directory) or {}).get("files")
    try:
        manifest = json.loads(new_manifest)
    except ValueError:
        manifest = None
    if isinstance(manifest, dict) and isinstance(previous, dict) and isinstance(manifest.get("files"), dict):
        manifest["files"] = {**{path: previous[path] for path in leaving if path in previous}, **manifest["files"]}
        write_atomically(directory / MANIFEST, (indented_json(manifest) + "\n").encode())


def remove_generated(directory: Path, path: str) -> None:
    """Remove one generated file (a link is removed, never followed), then its folders left empty (but for
    Python's cache): a folder with anything of the user's in it stays. A path a manifest cannot honestly hold
    (absolute, `..`, through a link) is left alone: a crafted manifest removes nothing outside the package."""
    relative = PurePosixPath(path)
    if relative.is_absolute() or any(part in ("", ".", "..") or "\\" in part for part in relative.parts):
        return
    here = directory
    for part in relative.parts[:-1]:
        here = here / part
        if here.is_symlink() or not here.is_dir():
            return
    (directory / path).unlink(missing_ok=True)
    for folder in relative.parents:
        if folder == PurePosixPath("."):
            break
        here = directory / folder
        try:
            if {entry.name for entry in os.scandir(here)} == {"__pycache__"} and not (
                here / "__pycache__"
            ).is_symlink():
                shutil.rmtree(here / "__pycache__")
            here.rmdir()  # only an empty one
        except OSError:
            break


def _link_if_unchanged(current: Path, staged: Path, data: bytes) -> bool:
    """Hard-link a file whose bytes did not change into the staging directory instead of writing it again:
    a regeneration where one tool changed writes only the files that did (the swap stays atomic)."""
    try:
        status = os.lstat(current)  # one call for all three questions (700 files for ms-365)
        if not stat.S_ISREG(status.st_mode) or status.st_size != len(data):  # a link, a folder, another size
            return False
        if current.read_bytes() != data:
            return False
        os.link(current, staged)
    except OSError:
        return False
    return True


def write_text_atomically(path: Path, text: str) -> None:
    """Write one file (a snapshot, a config) through a uniquely named temporary sibling and a rename."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(path, text.encode("utf-8"))
    except OSError as error:
        raise OutputLocationError(f"cannot write {path}: {_reason(error)}") from None


def write_bytes_atomically(path: Path, data: bytes, *, mode: int = 0o644, keep_existing: bool = False) -> bool:
    """Stage `data` under a unique sibling name, then rename it into place (`runtime.files.write_atomically`).

    Unique staging names let any number of runs write beside each other. `keep_existing`: never replace a
    file that is there (a file the user owns from now on). Returns whether `path` was written.
    """
    # Imported on use: loading the runtime package costs ~0.06 s, which an up-to-date run never pays.
    from mcp_codegen_runtime.files import write_atomically

    with deferred_interrupts():  # its staged file is removed whatever happens, and the file recorded once in place
        done = write_atomically(path, data, mode=mode, keep_existing=keep_existing)
        if done:
            record_written(path)
    return done
