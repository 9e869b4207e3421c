"""What `mcp-codegen verify` compares: a generated package on disk against what its own snapshot and options generate.

Every kind of package mcp-codegen writes is covered, offline, from what its manifest recorded:

- a client package, a project (`--meta pyproject`, the package under `src/`) and a server skeleton
  (`--server-skeleton`, its client under `_generated/`): regenerated from the `snapshot.json` they carry;
- an umbrella package: each server's subpackage regenerated from its own snapshot, and the umbrella's own files
  (`__init__.py`, `README.md`) rendered again from the servers its manifest lists;
- a subpackage given alone (a file of it, as pre-commit passes): checked as part of its umbrella.

Connect-time warnings are not part of a package's manifest (`generate.pipeline`), so a package a live run wrote
verifies offline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.manifest import digest, read_manifest
from mcp_codegen.output.write import Difference, differences


@dataclass(frozen=True)
class Verified:
    """One package checked: how it differs (paths relative to `package`) and the command that regenerates it."""

    package: Path
    stale: list[Difference]
    regenerate: str


def umbrella_of(package: Path) -> Path | None:
    """The umbrella package `package` is a subpackage of (None: it stands alone)."""
    manifest = read_manifest(package) or {}
    options = manifest.get("options")
    if isinstance(options, dict) and options.get("sharedRuntime") is True and read_manifest(package.parent):
        return package.parent
    return None


def verify_package(package: Path) -> Verified:
    """Regenerate `package` (or, for a subpackage, its whole umbrella) in memory and compare it file by file."""
    umbrella = umbrella_of(package)
    if umbrella is not None:
        package = umbrella
    manifest = read_manifest(package) or {}
    options = manifest.get("options")
    record = options.get("umbrella") if isinstance(options, dict) else None
    if isinstance(record, dict) or _members(package):
        return Verified(
            package,
            _umbrella_differences(package, record if isinstance(record, dict) else None, manifest),
            f"`mcp-codegen generate` with the config that wrote {package}",
        )
    snapshot_file, name = _snapshot_and_name(package, manifest)
    flags = " --server-skeleton" if isinstance(options, dict) and options.get("server") is True else ""
    return Verified(
        package,
        _package_differences(package, snapshot_file, name),
        f"`mcp-codegen generate --snapshot {snapshot_file}{flags} -o {package}` (same options)",
    )


def _snapshot_and_name(package: Path, manifest: dict[str, Any]) -> tuple[Path, str]:
    """The snapshot a standalone package carries (`snapshot.json`, `src/NAME/...`, `_generated/...`) and its
    import name (its folder's name; a project's: the folder under `src/`)."""
    recorded = manifest.get("files")
    snapshots = sorted(
        (Path(path) for path in (recorded if isinstance(recorded, dict) else {}) if Path(path).name == "snapshot.json"),
        key=lambda path: len(path.parts),
    )
    relative = snapshots[0] if snapshots else Path("snapshot.json")
    name = relative.parts[1] if relative.parts[0] == "src" and len(relative.parts) > 2 else package.name
    return package / relative, name


def _package_differences(package: Path, snapshot_file: Path, name: str, umbrella: str = "") -> list[Difference]:
    from mcp_codegen.inputs.options import GenerateOptions
    from mcp_codegen.output.job import prepare
    from mcp_codegen.snapshot.model import read_snapshot

    options = GenerateOptions.from_json((read_manifest(package) or {}).get("options"))
    if umbrella and not options.parent_package:  # a subpackage written before its umbrella's name was recorded
        options = options.with_shared_runtime(umbrella)
    prepared = prepare(read_snapshot(snapshot_file), package, name, options, Diagnostics(), check=True)
    assert prepared.files is not None
    return differences(package, prepared.files)


def _members(umbrella: Path) -> list[str]:
    """The subpackages mcp-codegen wrote into `umbrella` (each with its manifest and snapshot)."""
    from mcp_codegen.output.umbrella import orphan_subpackages

    return orphan_subpackages(umbrella, ())  # those of no configured server: here, every one


def _umbrella_differences(umbrella: Path, record: dict[str, Any] | None, manifest: dict[str, Any]) -> list[Difference]:
    """Each subpackage against its snapshot, then the umbrella's own files: rendered again from the servers its
    manifest lists or, for an umbrella written before they were listed, against the hashes it recorded."""
    from mcp_codegen.output.umbrella import members_on_disk, umbrella_files

    recorded_name = (record or {}).get("package")
    name = recorded_name if isinstance(recorded_name, str) else umbrella.name
    found: list[Difference] = []
    for member in _members(umbrella):
        snapshot_file, _ = _snapshot_and_name(umbrella / member, read_manifest(umbrella / member) or {})
        found += [
            Difference(f"{member}/{d.path}", d.change)
            for d in _package_differences(umbrella / member, snapshot_file, member, name)
        ]
    if record is not None:
        pairs = record.get("members")
        packages = {
            str(pair[0]): str(pair[1])
            for pair in (pairs if isinstance(pairs, list) else [])
            if isinstance(pair, list) and len(pair) == 2
        }
        files = umbrella_files(name, members_on_disk(umbrella, packages))
        return found + differences(umbrella, files)
    recorded = manifest.get("files")
    for path, expected in sorted((recorded if isinstance(recorded, dict) else {}).items()):
        target = umbrella / path
        if not target.is_file():
            found.append(Difference(path, "removed"))
        elif digest(target.read_bytes()) != expected:
            found.append(Difference(path, "changed"))
    return found


__all__ = ["Verified", "umbrella_of", "verify_package"]
