"""While a server has not answered: what is awaited, for how long, and the `--timeout` a slow start would need.

`Waits` runs beside a connection (`connect()` starts it when progress lines are shown): each request the
snapshot sends (`waiting_for`) starts a clock, and a request still unanswered after `FIRST_NOTICE` seconds gets a
progress line, then one every `NOTICE_EVERY` seconds. It wakes on those deadlines or on the next request, never
polls. `timeout_hint` is the advice both those lines and a timeout's error end with, tailored to the launcher:
a first `npx -y`, `uvx` or `pipx run` downloads and installs the server, a first `docker run` pulls its image.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from mcp_codegen.inputs.launch import ServerLaunch

#: Seconds without an answer before the first "still waiting" line, and between the next ones.
FIRST_NOTICE = 5.0
NOTICE_EVERY = 15.0

#: What a first run of a launcher does before the server can answer, and the --timeout that covers it.
_FIRST_RUNS: dict[str, tuple[str, float]] = {
    "npx": ("a first `npx -y` download can take a minute", 120),
    "uvx": ("a first `uvx` run downloads and installs the server, which can take a minute", 120),
    "pipx": ("a first `pipx run` installs the server, which can take a minute", 120),
    "docker": ("a first `docker run` pulls the image, which can take minutes", 300),
}
#: Commands that fetch a package before running it: command -> (the argument prefixes that make it do so, which of
#: `_FIRST_RUNS` it is like).
_LAUNCHERS: dict[str, tuple[tuple[tuple[str, ...], ...], str]] = {
    "npx": (((),), "npx"),
    "bunx": (((),), "npx"),
    "npm": ((("exec",),), "npx"),
    "pnpm": ((("dlx",),), "npx"),
    "yarn": ((("dlx",),), "npx"),
    "uvx": (((),), "uvx"),
    "uv": ((("tool", "run"), ("run",)), "uvx"),
    "pipx": ((("run",),), "pipx"),
    "docker": ((("run",),), "docker"),
    "podman": ((("run",),), "docker"),
}


def launcher(launch: ServerLaunch | None) -> str | None:
    """`npx`, `uvx`, `pipx` or `docker` when the stdio command is one of them (or works like one), else None."""
    from mcp_codegen.inputs.launch import StdioLaunch

    if not isinstance(launch, StdioLaunch):
        return None
    name = os.path.basename(launch.command).lower().removesuffix(".exe").removesuffix(".cmd")
    prefixes, kind = _LAUNCHERS.get(name, ((), ""))
    return kind if any(tuple(launch.args[: len(prefix)]) == prefix for prefix in prefixes) else None


def _seconds(value: float) -> str:
    """A round number of seconds at least `value`: 60, 120, 300, ..."""
    for step in (60, 120, 300, 600, 1200, 1800, 3600):
        if value <= step:
            return str(step)
    return str(math.ceil(value / 3600) * 3600)


def timeout_hint(launch: ServerLaunch | None, timeout: float, *, initializing: bool) -> str:
    """The advice a timeout (or a long wait) ends with: what may take long, and the `--timeout` that would do."""
    first_run = _FIRST_RUNS.get(launcher(launch) or "") if initializing else None
    if first_run is not None:
        what, seconds = first_run
        return f"{what}: --timeout {_seconds(max(seconds, 2 * timeout))}"
    what = "a server slow to start" if initializing else "a server slow to list"
    return f"{what} needs a longer --timeout, e.g. --timeout {_seconds(2 * timeout)}"


class Waits:
    """Progress lines while one request of a connection is unanswered (see the module docstring)."""

    def __init__(
        self,
        progress: Callable[[str], None],
        timeout: float,
        launch: ServerLaunch | None,
        *,
        first: float = FIRST_NOTICE,
        every: float = NOTICE_EVERY,
    ) -> None:
        self._progress = progress
        self._timeout = timeout
        self._launch = launch
        self._first = first
        self._every = every
        self._what: str | None = None
        self._since = 0.0
        self._changed = anyio.Event()

    def waiting_for(self, what: str | None) -> None:
        """A request is out (`what`: "initialize", "tools/list (page 2)", ...), or none (None): restart the clock."""
        self._what = what
        self._since = anyio.current_time()
        self._changed.set()
        self._changed = anyio.Event()

    async def run(self) -> None:
        """Say what is awaited while it lasts; runs until cancelled."""
        while True:
            what, since, changed = self._what, self._since, self._changed
            if what is None:
                await changed.wait()
                continue
            notices = 0
            deadline = since + self._first
            while not changed.is_set():
                with anyio.move_on_after(max(deadline - anyio.current_time(), 0)):
                    await changed.wait()
                if changed.is_set():
                    break
                self._progress(self._line(what, anyio.current_time() - since, first=notices == 0))
                notices += 1
                deadline += self._every

    def _line(self, what: str, elapsed: float, *, first: bool) -> str:
        initializing = what == "initialize"
        awaited = "the server to answer initialize" if initializing else f"the answer to {what}"
        line = f"still waiting for {awaited}: {elapsed:.0f} s of --timeout {self._timeout:g} s"
        if first:
            line += f"; {timeout_hint(self._launch, self._timeout, initializing=initializing)}"
        return line


__all__ = ["FIRST_NOTICE", "NOTICE_EVERY", "Waits", "launcher", "timeout_hint"]
