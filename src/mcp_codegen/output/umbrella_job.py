"""Several servers into one umbrella package: snapshot all at once, run each server's job, write the umbrella's files.

A server that fails keeps its previous subpackage (see `output.umbrella`); `--strict` writes nothing
when any server has a warning not allowed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import CodegenError, UsageError, one_line
from mcp_codegen.inputs.launch import ServerLaunch
from mcp_codegen.output.job import Prepared, enforce_strict, finish, prepare
from mcp_codegen.output.write import Difference
from mcp_codegen.snapshot.many import FAILED, MultiProgress, snapshot_many
from mcp_codegen.snapshot.model import Snapshot

if TYPE_CHECKING:
    from mcp_codegen.inputs.config import ProjectConfig
    from mcp_codegen.inputs.options import GenerateOptions


@dataclass
class ServerOutcome:
    """What became of one server in a several-server run."""

    package: str
    result: Snapshot | Exception
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: "written", "up to date", "stale" (with --check), "current" (with --check) or "failed".
    state: str = "failed"
    stale: list[Difference] = field(default_factory=list)
    #: Entries in the subpackage that are not mcp-codegen's (the user's own files), left as they were.
    kept: list[str] = field(default_factory=list)


@dataclass
class UmbrellaRun:
    output: Path
    package_name: str
    outcomes: dict[str, ServerOutcome]
    #: With --check: how the umbrella's own files differ (a subpackage to remove is "removed").
    stale: list[Difference] = field(default_factory=list)
    #: Subpackages of servers no longer in the config, removed by this run.
    removed: list[str] = field(default_factory=list)
    #: Entries of the user's left in those subpackages, and files of theirs in the umbrella's own folder
    #: (paths relative to the umbrella).
    kept: list[str] = field(default_factory=list)

    @property
    def results(self) -> dict[str, Snapshot | Exception]:
        return {name: outcome.result for name, outcome in self.outcomes.items()}


def generate_umbrella(
    cfg: ProjectConfig,
    names: Sequence[str],
    *,
    output: Path,
    package_name: str,
    overwrite: bool = False,
    keep_others: bool = False,
    check: bool = False,
    strict: bool = False,
    allowed: Collection[str] = (),
    progress: MultiProgress | None = None,
) -> UmbrellaRun:
    """Snapshot the servers `names` of `cfg` concurrently and write (or, with `check`, compare) the
    umbrella package at `output`.

    Raises `UsageError`/`OutputConflictError` before anything is started; `StrictModeError` (nothing
    written) when `strict` and any server has warnings whose codes are not in `allowed`.
    """
    from mcp_codegen.inputs.config import package_name_for, resolve_server
    from mcp_codegen.inputs.options import validate_top_level_name
    from mcp_codegen.output.umbrella import (
        members_on_disk,
        orphan_subpackages,
        preflight_umbrella,
        remove_subpackage,
        umbrella_files,
        write_umbrella_files,
    )

    validate_top_level_name(package_name)
    packages = {name: package_name_for(cfg, name) for name in cfg.servers}
    preflight_umbrella(output, packages, [packages[name] for name in names], overwrite, keep_others, check=check)
    outcomes: dict[str, ServerOutcome] = {}
    launches: dict[str, ServerLaunch] = {}
    options: dict[str, GenerateOptions] = {}
    for name in names:
        try:
            launch, server_options, _ = resolve_server(cfg, name)
        except CodegenError as error:  # an unset variable fails this server only
            outcomes[name] = ServerOutcome(packages[name], error)
            if progress is not None:
                progress(name, f"{FAILED}: {one_line(error)}")
            continue
        launches[name] = launch
        if server_options.meta != "none":
            raise UsageError(
                f"servers.{name}: meta = {server_options.meta!r} needs one server written with -o "
                "(an umbrella package is one project)"
            )
        options[name] = server_options.with_shared_runtime(package_name)
    per_server: dict[str, Diagnostics] = {}
    snapshots = anyio.run(
        lambda: snapshot_many(
            launches,
            timeout=cfg.timeout,
            progress=progress,
            diagnostics=per_server,
            skip={name: server_options.skip for name, server_options in options.items()},
        )
    )
    prepared: dict[str, Prepared] = {}
    for name in names:
        if name in outcomes:
            continue
        result = snapshots[name]
        outcome = outcomes[name] = ServerOutcome(packages[name], result, per_server.get(name, Diagnostics()))
        if isinstance(result, Snapshot):
            target = output / outcome.package
            prepared[name] = prepare(result, target, outcome.package, options[name], outcome.diagnostics, check=check)
    outcomes = {name: outcomes[name] for name in names}
    if strict:
        enforce_strict([outcome.diagnostics for outcome in outcomes.values()], allowed)
    run = UmbrellaRun(output, package_name, outcomes)
    for name, job in prepared.items():
        done = finish(job, check=check, overwrite=overwrite, keep_others=keep_others)
        outcome = outcomes[name]
        outcome.state, outcome.stale, outcome.kept = done.state, done.stale, done.kept
    if check:
        run.stale = differences_top(output, umbrella_files(package_name, members_on_disk(output, packages)))
        run.stale += [Difference(orphan, "removed") for orphan in orphan_subpackages(output, packages.values())]
        return run
    orphans = orphan_subpackages(output, packages.values())
    for orphan in orphans:
        run.kept += [f"{orphan}/{path}" for path in remove_subpackage(output / orphan, overwrite=overwrite)]
        run.removed.append(orphan)
    files = umbrella_files(package_name, members_on_disk(output, packages))
    subpackages = [*packages.values(), *orphans]  # what is left of an orphan is named above
    run.kept += write_umbrella_files(output, files, subpackages, overwrite=overwrite, keep_others=keep_others)
    return run


def differences_top(directory: Path, files: Mapping[str, bytes]) -> list[Difference]:
    """How the umbrella's own files differ from `files` (its subpackages are not compared)."""
    changed = []
    for path, data in files.items():
        target = directory / path
        if not target.is_file():
            changed.append(Difference(path, "added"))
        elif target.read_bytes() != data:
            changed.append(Difference(path, "changed"))
    return changed


__all__ = ["ServerOutcome", "UmbrellaRun", "differences_top", "generate_umbrella"]
