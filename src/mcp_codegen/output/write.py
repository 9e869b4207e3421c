"""Stage 6: write the package atomically, and only over a directory mcp-codegen owns.

Files are written to a temporary sibling directory and swapped in with renames, so a failed or
interrupted run leaves the previous output exactly as it was; files whose bytes did not change are hard-linked
into the staging directory rather than written again. A manifest inside the package
(`generate/manifest.py`) marks it as generated (and records file hashes, so an unchanged regeneration can be
skipped).

Files the user added inside a generated package (any file its manifest does not list, say
`my_extra.py` next to `client.py`) are kept: copied into the new package before the swap, like
openapi-python-client's custom files. A user file at a path the generator now writes is a conflict
(`OutputConflictError`, nothing written). `overwrite=True` replaces the directory with exactly the
generated files; what it removes is returned (`WriteResult.removed`) so the CLI can name it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcp_codegen.errors import OutputConflictError, OutputLocationError
from mcp_codegen.generate.manifest import MANIFEST, digest, read_manifest
from mcp_codegen.interrupts import deferred_interrupts, pause, record_written


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


def user_files(directory: Path) -> list[str]:
    """Files in `directory` mcp-codegen did not write: not in its manifest (all of them without one).
    Caches (`__pycache__`, `*.pyc`) do not count."""
    if not directory.is_dir() or directory.is_symlink():
        return []
    ours = generated_paths(directory) or set()
    return [path for path in _tree_files(directory) if path not in ours]


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


def _listing(paths: list[str], limit: int = 5) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


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


def check_ownership(directory: Path, *, overwrite: bool) -> None:
    if not directory.exists() or overwrite:
        return
    if not directory.is_dir():
        raise OutputConflictError(f"{directory} exists and is not a directory (use --overwrite to replace it)")
    if read_manifest(directory) is None and any(directory.iterdir()):
        found = user_files(directory) or sorted(entry.name for entry in directory.iterdir())
        raise OutputConflictError(
            f"{directory} is not empty and was not generated by mcp-codegen ({_listing(found)}); "
            "refusing to replace it (use --overwrite)"
        )


@dataclass(frozen=True)
class WriteResult:
    """What a write did besides writing the generated files (paths relative to the package)."""

    #: The user's own files, carried over into the new package.
    kept: list[str] = field(default_factory=list)
    #: Files mcp-codegen did not write that `overwrite=True` removed (`.` for a regular file replaced).
    removed: list[str] = field(default_factory=list)


def write_package(
    directory: Path, files: Mapping[str, bytes], *, overwrite: bool, users: tuple[str, ...] = ()
) -> WriteResult:
    """Replace `directory` with `files` (plus the user's own files, unless `overwrite`), atomically.

    `users`: files of the user's that the package holds by design (a server's `handlers.py`), kept even with
    `overwrite`: it replaces what mcp-codegen did not write, never the user's code it asked for.

    Raises `OutputConflictError` (nothing written) for a directory mcp-codegen does not own, or a user
    file where a generated file (or folder) goes; `OutputLocationError` when it cannot be written.
    """
    check_ownership(directory, overwrite=overwrite)
    found = user_files(directory)
    is_file = directory.exists() and not directory.is_dir()
    if overwrite:
        removed = [path for path in found if path not in users]
        result = WriteResult(removed=["."] if is_file else removed, kept=[path for path in found if path in users])
        found = result.kept
    else:
        result = WriteResult(kept=found)
        folders = {parent.as_posix() for path in files for parent in Path(path).parents}
        clashes = [path for path in found if path in files or path in folders or _under_file(path, files)]
        if clashes:
            what = "file" if len(clashes) == 1 else "files"
            raise OutputConflictError(
                f"{directory}: your {what} {_listing(clashes)} {'is' if len(clashes) == 1 else 'are'} "
                f"where mcp-codegen now writes; move {'it' if len(clashes) == 1 else 'them'}, or use --overwrite "
                "to replace everything not generated"
            )
    try:
        _swap_in(directory, files, found)
    except OSError as error:
        raise OutputLocationError(f"cannot write {directory}: {_reason(error)}") from None
    pause("written")
    return result


def _under_file(path: str, files: Mapping[str, bytes]) -> bool:
    return any(parent.as_posix() in files for parent in Path(path).parents)


def _swap_in(directory: Path, files: Mapping[str, bytes], keep: list[str]) -> None:
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
            for path in keep:  # copied, not moved: until the swap the previous package stays whole
                target = staging / path
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(directory / path, target, follow_symlinks=False)
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
