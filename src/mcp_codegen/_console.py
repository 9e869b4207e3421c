"""The `mcp-codegen` console script: Ctrl-C is handled before the command line is imported, then it runs.

Importing click and the commands takes a noticeable moment; an interrupt then is one line and exit 130
(nothing can have been written yet), never a traceback. Once the command's outcome is decided, a late
Ctrl-C is ignored and the process ends without tearing down its objects one by one.

A regeneration from a file (`generate --snapshot FILE -o DIR`, DIR a generated package) starts the model
generator's worker first of all, so that its slow start (~0.25 s) overlaps the whole run, the command line's
import included: the arguments are only glanced at, and a wrong guess costs a worker started and stopped.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import AbstractContextManager, ExitStack, nullcontext
from pathlib import Path
from typing import NoReturn


def main() -> None:
    with ExitStack() as workers:  # stopped before the process ends (`_exit_now` would leave them to die alone)
        try:
            from mcp_codegen.interrupts import pause

            pause("start")
            workers.enter_context(_early_model_worker())
            from mcp_codegen.cli import main as run_cli
            from mcp_codegen.collector import paused_until_exit

            paused_until_exit()  # this process ends with the command (`_exit_now`)
        except KeyboardInterrupt:
            _interrupted_at_start()
        except RuntimeError as error:  # how Python reports a Ctrl-C while an imported module makes a class
            from mcp_codegen.interrupts import caused_by_interrupt

            if not caused_by_interrupt(error):
                raise
            _interrupted_at_start()
        try:
            run_cli()
        except SystemExit as done:
            code = done.code
        else:
            code = 0
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_now(code)


def _early_model_worker() -> AbstractContextManager[None]:
    """The model generator's workers (`workers.warm_workers`) for a regeneration from a file, started now."""
    output = _regeneration_output(sys.argv[1:])
    if output is None:
        return nullcontext()
    from mcp_codegen.generate.workers import regeneration_workers

    return regeneration_workers()


def _regeneration_output(arguments: list[str]) -> Path | None:
    """DIR of `generate --snapshot FILE -o DIR` (not `--check`) when DIR holds a generated package whose
    `snapshot.json` is not FILE's bytes, read from the raw arguments before click parses them (a guess:
    `cli.generate` stops the worker when the file is the package's own snapshot after all)."""
    if not arguments or arguments[0] != "generate" or "--check" in arguments:
        return None
    snapshot = output = None
    for argument, value in zip(arguments, [*arguments[1:], None], strict=True):
        if argument == "--snapshot" and value is not None:
            snapshot = value
        elif argument.startswith("--snapshot="):
            snapshot = argument.removeprefix("--snapshot=")
        elif argument in ("-o", "--output") and value is not None:
            output = value
        elif argument.startswith("--output="):
            output = argument.removeprefix("--output=")
        elif argument.startswith("-o") and len(argument) > 2:
            output = argument[2:]
    if not snapshot or not output:
        return None
    from mcp_codegen.generate.manifest import MANIFEST

    package = Path(output)
    if not (package / MANIFEST).is_file() or not _differs(Path(snapshot), package / "snapshot.json"):
        return None  # not a package yet (a cold run), the daily run that finds it up to date, or no FILE
    return package


def _differs(snapshot: Path, packaged: Path) -> bool:
    """Whether the file `snapshot` exists and is not `packaged` byte for byte."""
    try:
        size = snapshot.stat().st_size
    except OSError:
        return False
    try:
        return size != packaged.stat().st_size or snapshot.read_bytes() != packaged.read_bytes()
    except OSError:
        return True


def _interrupted_at_start() -> NoReturn:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr.write("mcp-codegen: interrupted; the previous output is unchanged\n")
    sys.exit(130)


def _exit_now(code: object) -> NoReturn:
    """End the process at once, as mypy does: freeing every object of a large run takes a noticeable moment
    (0.02-0.03 s for 300 tools), and the command has already closed what it opened (workers, servers, files)."""
    status = code if isinstance(code, int) else 0 if code is None else 1
    if not isinstance(code, int | None):
        sys.stderr.write(f"{code}\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more can be said
            pass
    if (logging := sys.modules.get("logging")) is not None:
        logging.shutdown()
    os._exit(status)


if __name__ == "__main__":
    main()
