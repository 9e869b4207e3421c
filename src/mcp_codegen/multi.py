"""Several servers at once: concurrent snapshots, a live per-server progress display, and the summary.

```python
with LiveProgress(list(launches)) as live:
    results = await snapshot_many(launches, timeout=30, progress=live, diagnostics=per_server)
text, partial = summarize(results)
```

`snapshot_many` runs `take_snapshot` for every server in one anyio task group. A failure never cancels
the others: it is caught and kept as the server's result (a `CodegenError`, normally the one-line
`ServerError`; anything unexpected is wrapped in a `ServerError` naming its type). Cancellation and
Ctrl-C still stop everything (each stdio server is shut down by `connect`).

Progress messages, per server, are the single-server ones (`starting ...`, `connecting to ...`,
`connected to ...`, `listing tools`, `listing tools (page 2)`, ...), framed by `waiting` (queued
behind `limit`), `done in 1.2 s: 12 tools, 3 resources, 1 resource template, 2 prompts`, and
`failed: <the one-line reason>`.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

import anyio

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import CodegenError, ServerError
from mcp_codegen.inputs.launch import ServerLaunch
from mcp_codegen.snapshot.model import Snapshot

if TYPE_CHECKING:
    from mcp_codegen.inputs.config import ProjectConfig
    from mcp_codegen.inputs.options import GenerateOptions
    from mcp_codegen.output.write import Difference

#: Per-server progress: (server name, message).
MultiProgress = Callable[[str, str], None]

WAITING = "waiting"
DONE = "done"
FAILED = "failed"
#: Servers snapshotted at the same time by default (each stdio server is a process; 2 cores are common).
DEFAULT_LIMIT = 8

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x1f\x7f-\x9f]")


async def snapshot_many(
    launches: Mapping[str, ServerLaunch],
    *,
    timeout: float = 30.0,
    progress: MultiProgress | None = None,
    diagnostics: dict[str, Diagnostics] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> dict[str, Snapshot | Exception]:
    """Snapshot every server concurrently (at most `limit` at a time); results in the order of `launches`.

    `timeout` applies to each server as in `take_snapshot` (it starts when the server's turn comes).
    `diagnostics`, when given, receives each server's `Diagnostics` under its name (created if missing).
    """
    from mcp_codegen.snapshot.connect import _quiet_unconfigured_sdk_logging
    from mcp_codegen.snapshot.fetch import take_snapshot

    results: dict[str, Snapshot | Exception] = {}
    limiter = anyio.CapacityLimiter(max(1, limit))

    def say(name: str, message: str) -> None:
        if progress is not None:
            try:
                progress(name, message)
            except OSError:  # a closed stderr must not fail the snapshot
                pass

    async def one(name: str, launch: ServerLaunch) -> None:
        found = diagnostics.setdefault(name, Diagnostics()) if diagnostics is not None else Diagnostics()
        async with limiter:
            started = time.perf_counter()
            try:
                snapshot = await take_snapshot(
                    launch, timeout=timeout, diagnostics=found, progress=lambda message: say(name, message)
                )
            except CodegenError as error:
                failure: Exception = error
            except Exception as error:  # a bug of ours or an unexpected SDK failure: still one line
                failure = ServerError(f"unexpected {error.__class__.__name__}: {str(error)[:200]}")
                failure.__cause__ = error
            else:
                results[name] = snapshot
                say(name, f"{DONE} in {time.perf_counter() - started:.1f} s: {counts(snapshot)}")
                return
        results[name] = failure
        say(name, f"{FAILED}: {one_line(failure)}")

    for name in launches:
        say(name, WAITING)
    # The SDK loggers are muted once around all connections: `connect` mutes and restores them per
    # connection, which, nested concurrently, could restore a muted level for good.
    with _quiet_unconfigured_sdk_logging():
        async with anyio.create_task_group() as group:
            for name, launch in launches.items():
                group.start_soon(one, name, launch)
    return {name: results[name] for name in launches}


def counts(snapshot: Snapshot) -> str:
    """`12 tools, 3 resources, 1 resource template, 2 prompts`."""

    def plural(count: int, word: str) -> str:
        return f"{count} {word}{'' if count == 1 else 's'}"

    return ", ".join(
        [
            plural(len(snapshot.tools), "tool"),
            plural(len(snapshot.resources), "resource"),
            plural(len(snapshot.resource_templates), "resource template"),
            plural(len(snapshot.prompts), "prompt"),
        ]
    )


def one_line(error: BaseException) -> str:
    """An error as one printable line."""
    text = " ".join(_CONTROL.sub(" ", str(error) or error.__class__.__name__).split())
    return text if len(text) <= 300 else text[:299] + "…"


def summarize(results: Mapping[str, Snapshot | Exception]) -> tuple[str, bool]:
    """The end-of-run summary (one line, plus one per failed server) and whether any server failed.

    `partial` is True when at least one server failed (also when all did: tell the two apart with
    `any(isinstance(r, Snapshot) for r in results.values())`).
    """
    succeeded = [name for name, result in results.items() if isinstance(result, Snapshot)]
    failed = {name: result for name, result in results.items() if not isinstance(result, Snapshot)}
    total = len(results)
    if not failed:
        head = f"snapshotted {total} server{'' if total == 1 else 's'}: {', '.join(succeeded)}"
        return head, False
    if succeeded:
        head = f"snapshotted {len(succeeded)} of {total} servers ({', '.join(succeeded)}); {len(failed)} failed:"
    else:
        head = f"all {total} server{'' if total == 1 else 's'} failed:"
    lines = [head, *(f"  {name}: {one_line(error)}" for name, error in failed.items())]
    return "\n".join(lines), True


class LiveProgress:
    """Per-server status lines on stderr: redrawn in place on a terminal, else one line per change.

    Call it as the `progress` of `snapshot_many`. Redrawing (ANSI cursor movement) is used when the
    stream is a TTY, `TERM` is not `dumb` and `CI` is not set (to anything but `0`/`false`); `redraw=`
    forces either way. Every message is cleaned of control characters (server names come from the
    server) and cut to the terminal width.
    """

    def __init__(
        self,
        names: Sequence[str],
        *,
        stream: TextIO | None = None,
        redraw: bool | None = None,
        prefix: str = "mcp-codegen: ",
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._redraw = _can_redraw(self._stream) if redraw is None else redraw
        self._color = self._redraw and "NO_COLOR" not in os.environ
        self._prefix = prefix
        self._names = list(dict.fromkeys(names))
        self._width = max((len(_clean(name)) for name in self._names), default=0)
        self.states: dict[str, str] = {name: WAITING for name in self._names}
        self._drawn = 0
        self._closed = False

    def __enter__(self) -> LiveProgress:
        if self._redraw:
            self._draw()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __call__(self, name: str, message: str) -> None:
        message = _clean(message)
        if name not in self.states:
            self._names.append(name)
            self._width = max(self._width, len(_clean(name)))
        elif self.states[name] == message:
            return
        self.states[name] = message
        if self._closed:
            return
        if self._redraw:
            self._draw()
        else:
            self._stream.write(f"{self._prefix}{_clean(name)}: {message}\n")
            self._stream.flush()

    def close(self) -> None:
        """Stop redrawing; the last state of every line stays on screen."""
        if not self._closed and self._redraw:
            self._draw()
        self._closed = True

    def _draw(self) -> None:
        columns = shutil.get_terminal_size((100, 24)).columns
        out = [f"\x1b[{self._drawn}F" if self._drawn else ""]
        for name in self._names:
            state = self.states.get(name, WAITING)
            line = f"{self._prefix}{_clean(name).ljust(self._width)}  {state}"
            if len(line) >= columns:
                line = line[: max(columns - 2, 1)] + "…"
            out.append("\x1b[2K" + self._paint(line, state) + "\n")
        self._drawn = len(self._names)
        self._stream.write("".join(out))
        self._stream.flush()

    def _paint(self, line: str, state: str) -> str:
        if not self._color:
            return line
        if state.startswith(DONE):
            return f"\x1b[32m{line}\x1b[0m"
        if state.startswith(FAILED):
            return f"\x1b[31m{line}\x1b[0m"
        if state == WAITING:
            return f"\x1b[2m{line}\x1b[0m"
        return line


def _can_redraw(stream: TextIO) -> bool:
    ci = os.environ.get("CI", "").strip().lower()
    if ci not in ("", "0", "false", "no"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _clean(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


# --------------------------------------------------------------------------------------------------
# Generating an umbrella package
# --------------------------------------------------------------------------------------------------


@dataclass
class ServerOutcome:
    """What became of one server in a several-server run."""

    package: str
    result: Snapshot | Exception
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: "written", "up to date", "stale" (with --check), "current" (with --check) or "failed".
    state: str = "failed"
    stale: list[Difference] = field(default_factory=list)


@dataclass
class UmbrellaRun:
    output: Path
    package_name: str
    outcomes: dict[str, ServerOutcome]
    #: With --check: how the umbrella's own files differ (a subpackage to remove is "removed").
    stale: list[Difference] = field(default_factory=list)
    #: Subpackages of servers no longer in the config, removed by this run.
    removed: list[str] = field(default_factory=list)

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
    check: bool = False,
    strict: bool = False,
    progress: MultiProgress | None = None,
) -> UmbrellaRun:
    """Snapshot the servers `names` of `cfg` concurrently and write (or, with `check`, compare) the
    umbrella package at `output`. A server that fails keeps its previous subpackage; see `umbrella`.

    Raises `UsageError`/`OutputConflictError` before anything is started; `StrictModeError` (nothing
    written) when `strict` and any server has warnings.
    """
    from mcp_codegen.errors import StrictModeError
    from mcp_codegen.generate.pipeline import generate_files
    from mcp_codegen.inputs.config import package_name_for, resolve_server
    from mcp_codegen.inputs.options import input_hash, validate_package_name
    from mcp_codegen.output.umbrella import (
        check_umbrella_ownership,
        members_on_disk,
        orphan_subpackages,
        remove_subpackage,
        umbrella_files,
        write_umbrella_files,
    )
    from mcp_codegen.output.write import Difference, differences, is_current, recorded_diagnostics, write_package

    validate_package_name(package_name)
    packages = {name: package_name_for(cfg, name) for name in cfg.servers}
    if not check:
        check_umbrella_ownership(output, [packages[name] for name in names], overwrite=overwrite)
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
        options[name] = server_options.with_shared_runtime()
    per_server: dict[str, Diagnostics] = {}
    snapshots = anyio.run(
        lambda: snapshot_many(launches, timeout=cfg.timeout, progress=progress, diagnostics=per_server)
    )
    files: dict[str, dict[str, bytes]] = {}
    for name in names:
        if name in outcomes:
            continue
        result = snapshots[name]
        outcome = outcomes[name] = ServerOutcome(packages[name], result, per_server.get(name, Diagnostics()))
        if not isinstance(result, Snapshot):
            continue
        target = output / outcome.package
        if not check and target.is_dir() and is_current(target, input_hash(result, outcome.package, options[name])):
            for diagnostic in recorded_diagnostics(target):
                outcome.diagnostics.add(diagnostic)
            outcome.state = "up to date"
            continue
        files[name] = generate_files(
            result, package_name=outcome.package, diagnostics=outcome.diagnostics, options=options[name]
        )
    outcomes = {name: outcomes[name] for name in names}
    warned = sum(len(outcome.diagnostics.problems) for outcome in outcomes.values())
    if strict and warned:
        raise StrictModeError(f"--strict: {warned} warning(s); nothing written")
    run = UmbrellaRun(output, package_name, outcomes)
    if check:
        for name, generated in files.items():
            outcome = outcomes[name]
            outcome.stale = differences(output / outcome.package, generated)
            outcome.state = "stale" if outcome.stale else "current"
        run.stale = differences_top(output, umbrella_files(package_name, members_on_disk(output, packages)))
        run.stale += [Difference(orphan, "removed") for orphan in orphan_subpackages(output, packages.values())]
        return run
    for name, generated in files.items():
        write_package(output / outcomes[name].package, generated, overwrite=overwrite)
        outcomes[name].state = "written"
    for orphan in orphan_subpackages(output, packages.values()):
        remove_subpackage(output / orphan)
        run.removed.append(orphan)
    write_umbrella_files(output, umbrella_files(package_name, members_on_disk(output, packages)))
    return run


def differences_top(directory: Path, files: Mapping[str, bytes]) -> list[Difference]:
    """How the umbrella's own files differ from `files` (its subpackages are not compared)."""
    from mcp_codegen.output.write import Difference

    changed = []
    for path, data in files.items():
        target = directory / path
        if not target.is_file():
            changed.append(Difference(path, "added"))
        elif target.read_bytes() != data:
            changed.append(Difference(path, "changed"))
    return changed


__all__ = [
    "DONE",
    "FAILED",
    "WAITING",
    "LiveProgress",
    "MultiProgress",
    "ServerOutcome",
    "UmbrellaRun",
    "counts",
    "generate_umbrella",
    "one_line",
    "snapshot_many",
    "summarize",
]
