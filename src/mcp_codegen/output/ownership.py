"""What an output folder holds, sorted by its manifest, and whether a run may write there: nothing of the user's is lost.

A write replaces only files an earlier generation recorded that it wrote (the manifest, `generate/manifest.py`).
Everything else in the folder (a `.git`, the user's own modules, links, empty folders, sockets) is an *other*
entry: never deleted, never followed. The rules, for every mode of `generate`:

- the path itself: not the current folder (`-o ""`, `-o .`) or one holding it, and nothing on the way to it a
  symbolic link (the write would land elsewhere);
- a generated file the user changed since (other bytes, a link, a folder) is replaced only with `--overwrite`;
- an other entry where a generated file goes is always refused: it cannot be kept and written;
- other entries beside the generated files: kept in a folder mcp-codegen generated (the user's own modules in a
  package); in a folder it did not generate, or with `--overwrite` (which once meant "exactly the generated
  files"), the run is refused unless `--keep-other-files` says to generate beside them.

Each refusal is one `OutputConflictError` (exit 4) naming what was found and the flag or move that fixes it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mcp_codegen.errors import OutputConflictError
from mcp_codegen.generate.manifest import MANIFEST, read_manifest

#: Caches Python writes inside a package: neither the generator's nor the user's work (a rebuild makes them again).
CACHE_DIRS = frozenset({"__pycache__"})


@dataclass(frozen=True)
class Holdings:
    """An output folder's entries against its manifest (paths relative to the folder, `/`-separated)."""

    #: The folder has mcp-codegen's manifest.
    generated: bool
    #: The files the manifest lists (present or not).
    listed: frozenset[str]
    #: Listed files changed since they were written: other bytes, or now a link or something else.
    edited: tuple[str, ...]
    #: Everything the manifest does not list, named at its top-most unlisted folder (`.git/`, `data/`).
    others: tuple[str, ...]


def _folders(paths: Collection[str]) -> set[str]:
    """Every folder above each of `paths` (a package of 344 tools lists 700 files: pathlib took ~15 ms a survey)."""
    found: set[str] = set()
    for path in paths:
        if "//" in path or path.startswith(("/", "./")) or "/./" in path or path.endswith(("/", "/.")):
            found |= {parent.as_posix() for parent in PurePosixPath(path).parents if parent.as_posix() != "."}
            continue
        end = path.rfind("/")
        while end > 0 and (folder := path[:end]) not in found:
            found.add(folder)
            end = path.rfind("/", 0, end)
    return found


def survey(directory: Path, new_paths: Collection[str] = (), ignore: Collection[str] = ()) -> Holdings:
    """Sort the entries of `directory` (which may not exist): descend only into folders that hold listed files or
    that the new files go into; links are never followed. `ignore`: top-level names owned elsewhere (an
    umbrella's subpackages, each with its own manifest)."""
    manifest = read_manifest(directory) if directory.is_dir() and not directory.is_symlink() else None
    recorded = manifest.get("files") if manifest is not None else None
    listed = {str(path): str(value) for path, value in recorded.items()} if isinstance(recorded, dict) else {}
    descend = _folders(listed) | _folders(new_paths)
    edited: list[str] = []
    others: list[str] = []

    def walk(folder: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:  # unreadable: nothing in it is ours to touch
            return
        for entry in entries:
            path = prefix + entry.name
            if (not prefix and ((entry.name == MANIFEST and manifest) or entry.name in ignore)) or _is_cache(entry):
                continue
            if entry.is_symlink():
                (edited if path in listed else others).append(path)
            elif entry.is_dir():
                if path in descend:
                    walk(Path(entry.path), path + "/")
                else:
                    others.append(path + "/")
            elif path in listed and entry.is_file():
                if _digest(Path(entry.path)) != listed[path]:
                    edited.append(path)
            else:
                others.append(path)

    if directory.is_dir() and not directory.is_symlink():
        walk(directory, "")
    return Holdings(manifest is not None, frozenset(listed), tuple(edited), tuple(others))


def _is_cache(entry: os.DirEntry[str]) -> bool:
    return (entry.name in CACHE_DIRS and entry.is_dir(follow_symlinks=False)) or entry.name.endswith(".pyc")


#: The digests this process took, by the file and what any change to it changes (inode, size, modification and
#: status-change times in ns): a run surveys its output before it generates and again before it swaps the new
#: package in, and hashing ms-365's 11 MB of generated files took ~25 ms each time.
_taken: dict[tuple[str, int, int, int, int], str] = {}


def _digest(path: Path) -> str:
    """The manifest's hash of a file, read in chunks (a snapshot may be tens of MB)."""
    try:
        status = path.stat()
    except OSError:
        return ""
    key = (str(path), status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    known = _taken.get(key)
    if known is not None:
        return known
    sha = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                sha.update(chunk)
    except OSError:
        return ""
    _taken[key] = digest = sha.hexdigest()
    return digest


def listing(paths: Collection[str], limit: int = 5) -> str:
    ordered = list(paths)
    shown = ", ".join(ordered[:limit])
    return shown + (f" and {len(ordered) - limit} more" if len(ordered) > limit else "")


def check_output_path(output: Path) -> None:
    """Refuse an output path that is the current folder (or holds it), or leads through a symbolic link."""
    text = str(output)
    if text in ("", "."):
        raise OutputConflictError(
            f"-o {text or chr(34) * 2}: the current folder cannot be a package's folder; name a new one (-o my_client)"
        )
    absolute = Path(os.path.abspath(output))
    cwd = Path.cwd()
    if absolute == cwd or absolute in cwd.parents:
        raise OutputConflictError(
            f"-o {output}: the output folder would hold the current folder ({cwd}); name a new folder (-o my_client)"
        )
    base = Path(output.anchor) if output.is_absolute() else cwd
    probe = base
    for part in output.parts[1:] if output.is_absolute() else output.parts:
        probe = probe / part  # as written: `link/..` is caught at `link`
        if probe.is_symlink():
            shown = probe if output.is_absolute() else probe.relative_to(cwd)
            raise OutputConflictError(
                f"-o {output}: {shown} is a symbolic link (to {os.path.realpath(probe)}), so the package would be "
                f"written elsewhere; give the real path (-o {os.path.realpath(output)})"
            )


def check_holdings(
    directory: Path,
    *,
    overwrite: bool,
    keep_others: bool,
    new_paths: Collection[str] = (),
    users: Collection[str] = (),
    ignore: Collection[str] = (),
    consumed: Collection[str] = (),
) -> Holdings:
    """Survey `directory` and refuse (`OutputConflictError`, nothing written) what the mode does not allow.

    `new_paths`: the files this run writes (empty before they are known: the clash check waits for them).
    `users`: files of the user's that the package holds by design (a server package's `handlers.py`).
    `consumed`: listed files this run reads as its input (the package's own `snapshot.json`, edited and given to
    `--snapshot`): a change there is carried into what is written, not lost.
    """
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        kind = "a symbolic link" if directory.is_symlink() else "a file, not a folder"
        raise OutputConflictError(f"{directory} is {kind}; move it or choose another -o (nothing written)")
    found = survey(directory, new_paths, ignore)
    new_folders = _folders(new_paths)
    clashes = [
        path
        for path in found.others
        if (bare := path.rstrip("/")) in new_paths
        or bare in new_folders
        or any(parent.as_posix() in new_paths for parent in PurePosixPath(bare).parents)
    ]
    if clashes:
        one = len(clashes) == 1
        raise OutputConflictError(
            f"{directory}: {listing(clashes)} {'is' if one else 'are'} yours and mcp-codegen writes there; move "
            f"{'it' if one else 'them'} (nothing written: no flag replaces what mcp-codegen did not write)"
        )
    others = [path for path in found.others if path not in users]
    if others and not keep_others and (overwrite or not found.generated):
        why = (
            "--overwrite replaces only what mcp-codegen wrote, and this folder also holds"
            if found.generated
            else "mcp-codegen did not generate this folder, which holds"
        )
        raise OutputConflictError(
            f"{directory}: {why} {listing(others)}; nothing written: add --keep-other-files to generate beside "
            "them (they are never deleted), or choose a new folder"
        )
    edited = [path for path in found.edited if path not in consumed]
    if edited and not overwrite:
        one = len(edited) == 1
        raise OutputConflictError(
            f"{directory}: you changed {listing(edited)} since mcp-codegen wrote {'it' if one else 'them'}; "
            f"nothing written: add --overwrite to replace {'it' if one else 'them'}, or keep your change in a "
            "file of your own"
        )
    return found


__all__ = ["Holdings", "check_holdings", "check_output_path", "listing", "survey"]
