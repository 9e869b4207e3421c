"""One generation job, snapshot to package directory: up-to-date check, generate, --strict, then --check or write.

Both the single-server command and each server of an umbrella run go through here:

```python
preflight(output, overwrite=False, check=False)          # before any server is contacted
result = run_job(snapshot, output, "my_client", options, diagnostics, overwrite=False, strict=True, check=False)
```

An umbrella run calls the steps itself (`prepare` every server, `enforce_strict` over all of them,
then `finish` each) so that `--strict` writes nothing when any server warns.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codegen.collector import collector_paused
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import StrictModeError
from mcp_codegen.generate.manifest import digest, read_manifest, recorded_diagnostics
from mcp_codegen.output.ownership import check_output_path
from mcp_codegen.output.write import (
    Difference,
    check_location,
    check_ownership,
    differences,
    is_current,
    write_bytes_atomically,
    write_package,
)
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen.wording import plural

if TYPE_CHECKING:
    from mcp_codegen.inputs.options import GenerateOptions

#: A server package's files that are the user's by design (its handlers, created once): kept in every mode.
SERVER_USER_FILES = ("handlers.py",)

UP_TO_DATE = "up to date"
WRITTEN = "written"
STALE = "stale"
CURRENT = "current"


@dataclass
class Prepared:
    """A job generated (or found up to date) and not yet written."""

    snapshot: Snapshot
    output: Path
    package_name: str
    diagnostics: Diagnostics
    #: The tools generated (after --include/--exclude) and the number left out by them.
    tools: int
    left_out: int
    #: The package's files; None when the output is already up to date.
    files: dict[str, bytes] | None
    #: A server package's `handlers.py`: created once (its stubs) when it is missing, never rewritten.
    handlers_stubs: bytes | None = None
    #: Files of the user's that the package holds by design (a server's `handlers.py`): kept even by --overwrite.
    users: tuple[str, ...] = ()


@dataclass
class JobResult:
    #: WRITTEN, UP_TO_DATE, or with --check: STALE or CURRENT.
    state: str
    tools: int
    left_out: int
    #: With --check: how the output differs from what would be written.
    stale: list[Difference] = field(default_factory=list)
    #: Entries that are not mcp-codegen's (the user's own files, a `.git/`), left as they were.
    kept: list[str] = field(default_factory=list)


def preflight(
    output: Path,
    *,
    overwrite: bool,
    check: bool,
    keep_others: bool = False,
    consumed: Collection[str] = (),
    server: bool = False,
) -> None:
    """Fail before any server is contacted if `output` is a path no run may use, cannot be written, or holds what
    the mode may not write beside or over (exit 4, `output.ownership`)."""
    check_output_path(output)
    if check:
        return
    check_location(output)
    users = SERVER_USER_FILES if server else ()
    check_ownership(output, overwrite=overwrite, keep_others=keep_others, consumed=consumed, users=users)


def prepare(
    snapshot: Snapshot,
    output: Path,
    package_name: str,
    options: GenerateOptions,
    diagnostics: Diagnostics,
    *,
    check: bool,
) -> Prepared:
    """Generate the package's files, unless (outside --check) `output` is already what they would be:
    then its recorded diagnostics are added to `diagnostics` (so --strict still sees them)."""
    from mcp_codegen.generate.fingerprint import input_hash

    options = options.located(output)  # the formatter's settings, from the user's pyproject.toml
    if options.results_from is not None:  # result types observed in recordings go into the snapshot
        from mcp_codegen.snapshot.observed import with_observed_results

        snapshot = with_observed_results(snapshot, options.results_from, diagnostics)
    tools = sum(1 for tool in snapshot.tools if options.selection.selects(str(tool.get("name"))))
    left_out = len(snapshot.tools) - tools
    if not check and output.is_dir() and is_current(output, input_hash(snapshot, package_name, options)):
        for diagnostic in recorded_diagnostics(output):
            diagnostics.add(diagnostic)
        if options.server:
            _check_handlers(output, (output / "server.py").read_text(encoding="utf-8"), diagnostics)
        return Prepared(snapshot, output, package_name, diagnostics, tools, left_out, None)
    # The model generator starts while the pipeline is imported (if not started yet).
    with collector_paused(), model_workers(output):
        from mcp_codegen.generate.pipeline import HandlersFile, generate_files

        handlers = None
        if options.server:
            existing = output / "handlers.py"
            handlers = HandlersFile(existing.read_text(encoding="utf-8") if existing.is_file() else None)
        files = generate_files(
            snapshot, package_name=package_name, diagnostics=diagnostics, options=options, handlers=handlers
        )
    stubs = handlers.stubs if handlers is not None else None
    if options.server:
        _check_handlers(output, files["server.py"].decode("utf-8"), diagnostics)
    users = SERVER_USER_FILES if options.server else ()
    return Prepared(snapshot, output, package_name, diagnostics, tools, left_out, files, stubs, users)


def model_workers(output: Path) -> AbstractContextManager[None]:
    """Model generator workers started now for a run generating into `output` (`workers.warm_workers`): for a
    package regenerated, `workers.regeneration_workers`; otherwise one per core."""
    from mcp_codegen.generate.workers import regeneration_workers, warm, warm_workers

    if warm():  # started early (`_console`, `cli.generate`): the manifest and the cache need not be looked at again
        return warm_workers()
    if output.is_dir() and read_manifest(output) is not None:
        return regeneration_workers()
    return warm_workers()


def new_snapshot(snapshot_file: Path, output: Path) -> bool:
    """Whether `snapshot_file` differs from the snapshot `output` was generated from (a cheap byte compare: a
    snapshot written by mcp-codegen is byte for byte the package's `snapshot.json`)."""
    recorded = (read_manifest(output) or {}).get("files")
    try:
        data = snapshot_file.read_bytes()
    except OSError:
        return True
    return not isinstance(recorded, dict) or recorded.get("snapshot.json") != digest(data)


def enforce_strict(diagnostics: Iterable[Diagnostics], allowed: Collection[str] = ()) -> None:
    """--strict: raise `StrictModeError` (exit 1) naming the codes of every warning not in `allowed`."""
    blocking = [d for found in diagnostics for d in found.blocking(allowed)]
    if blocking:
        codes = ", ".join(sorted({d.code or "uncoded" for d in blocking}))
        raise StrictModeError(
            f"--strict: {plural(len(blocking), 'warning')} ({codes}); nothing written "
            "(accept a code with --allow-warning CODE)"
        )


def finish(
    prepared: Prepared, *, check: bool, overwrite: bool, keep_others: bool = False, consumed: Collection[str] = ()
) -> JobResult:
    """With `check`, compare the output with the generated files; else write them (if not up to date)."""
    tools, left_out = prepared.tools, prepared.left_out
    if prepared.files is None:
        return JobResult(UP_TO_DATE, tools, left_out)
    if check:
        stale = differences(prepared.output, prepared.files)
        return JobResult(STALE if stale else CURRENT, tools, left_out, stale=stale)
    written = write_package(
        prepared.output,
        prepared.files,
        overwrite=overwrite,
        keep_others=keep_others,
        users=prepared.users,
        consumed=consumed,
    )
    if prepared.handlers_stubs is not None:
        _create_once(prepared.output / "handlers.py", prepared.handlers_stubs)
    return JobResult(WRITTEN, tools, left_out, kept=written.kept)


def _check_handlers(output: Path, server_module: str, diagnostics: Diagnostics) -> None:
    """A server package: warn about each tool (the generated `server.TOOLS`) its `handlers.py` does not handle."""
    import ast
    import re

    handlers = output / "handlers.py"
    if not handlers.is_file():
        return  # the stubs are about to be written: every tool has one
    tools: tuple[str, ...] = ()
    for node in ast.parse(server_module).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "TOOLS":
            tools = tuple(ast.literal_eval(node.value)) if node.value is not None else ()
    registered = set(re.findall(r"@\s*\w+\.tools\.(\w+)", handlers.read_text(encoding="utf-8")))
    for name in tools:
        if name not in registered:
            diagnostics.warn(
                f"handlers.{name}",
                f"handlers.py has no handler for this tool (add `@server.tools.{name}`); it answers an error",
                code="server-handler-missing",
            )


def _create_once(path: Path, data: bytes) -> None:
    """Write `path` (atomically) unless it exists: it is the user's from now on."""
    if not path.exists():
        write_bytes_atomically(path, data, keep_existing=True)


def run_job(
    snapshot: Snapshot,
    output: Path,
    package_name: str,
    options: GenerateOptions,
    diagnostics: Diagnostics,
    *,
    overwrite: bool,
    strict: bool,
    check: bool,
    allowed: Collection[str] = (),
    keep_others: bool = False,
    consumed: Collection[str] = (),
) -> JobResult:
    """One server's whole job. Raises `StrictModeError` (nothing written; `diagnostics` holds the warnings)."""
    prepared = prepare(snapshot, output, package_name, options, diagnostics, check=check)
    if strict:
        enforce_strict([diagnostics], allowed)
    return finish(prepared, check=check, overwrite=overwrite, keep_others=keep_others, consumed=consumed)


__all__ = [
    "CURRENT",
    "STALE",
    "UP_TO_DATE",
    "WRITTEN",
    "JobResult",
    "Prepared",
    "enforce_strict",
    "finish",
    "prepare",
    "preflight",
    "run_job",
]
