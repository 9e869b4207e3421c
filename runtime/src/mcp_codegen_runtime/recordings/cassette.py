"""A test's recording under the pytest plugin: which of its connections replay, which record, and the file.

Record modes (as pytest-recording's): `none` replays and never records (a missing file is an error, the
safe default in CI); `once` records when the file is missing, else replays; `new` replays the sessions the
file holds and records the connections beyond them, appended; `all` records every connection again. The
n-th connection of a test replays the first unused session of its server (its client's package), else the
first unused one. A recording is written beside the file and moved into place when the test ends, so a
file is replaced whole or not at all.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from ..calls.errors import ReplayMismatchError
from .envelope import RecordedSession, RecordingSink, read_recording
from .plan import ConnectionPlan, RecordSettings, make_tap
from .replay import Replayer

__all__ = ["MODES", "Cassette"]

MODES = ("none", "once", "new", "all")


class Cassette:
    """One marked test's recording file and what its connections do with it."""

    def __init__(
        self,
        path: Path,
        mode: str,
        *,
        redact: bool = True,
        lenient: bool = False,
        ignore_arguments: Sequence[str] = (),
    ) -> None:
        if mode not in MODES:
            raise ValueError(
                f"record mode must be one of {', '.join(MODES)}, not {mode!r}"
            )
        self.path = path
        self.mode = mode
        self.redact = redact
        self.lenient = lenient
        self.ignore_arguments = tuple(ignore_arguments)
        exists = path.is_file()
        replays = exists and mode != "all"
        self.sessions: list[RecordedSession] = read_recording(path) if replays else []
        self.records = mode in ("new", "all") or (mode == "once" and not exists)
        self._taken: set[int] = set()
        self._staged = path.with_name(f".{path.name}.partial")
        self._sink: RecordingSink | None = None
        self.replayers: list[Replayer] = []

    @property
    def missing(self) -> bool:
        """Whether the test must replay a file that is not there (`none` mode)."""
        return self.mode == "none" and not self.path.is_file()

    def plan(self, server: str, settings: RecordSettings) -> ConnectionPlan:
        index = self._next_session(server)
        if index is not None:
            self._taken.add(index)
            replayer = Replayer(
                self.sessions[index],
                source=str(self.path),
                lenient=self.lenient,
                ignore_arguments=self.ignore_arguments,
            )
            self.replayers.append(replayer)
            return ConnectionPlan(replayer=replayer)
        if not self.records:
            return ConnectionPlan(
                failure=ReplayMismatchError(
                    f"{self.path} holds {len(self.sessions)} session(s), all replayed already:"
                    " this test connects more often than when it was recorded"
                    " (record again with --mcp-record-mode=all)"
                )
            )
        return ConnectionPlan(
            tap=make_tap(
                self._recording_sink(), server, _with_redact(settings, self.redact)
            )
        )

    def _next_session(self, server: str) -> int | None:
        free = [i for i in range(len(self.sessions)) if i not in self._taken]
        same = [i for i in free if self.sessions[i].server == server]
        chosen = same or free
        return chosen[0] if chosen else None

    def _recording_sink(self) -> RecordingSink:
        sink = self._sink
        if sink is None:
            self._staged.parent.mkdir(parents=True, exist_ok=True)
            keep = self.mode == "new" and self.path.is_file()
            if keep:  # what the file holds stays first; new sessions are appended
                shutil.copyfile(self.path, self._staged)
            sink = self._sink = RecordingSink(self._staged, append=keep)
        return sink

    def finish(self) -> list[str]:
        """Put a new recording in place; what went wrong (sessions never replayed), one line each."""
        sink, self._sink = self._sink, None
        if sink is not None:
            sink.close()
            if self._staged.is_file():
                os.replace(self._staged, self.path)
        unused = len(self.sessions) - len(self._taken)
        if unused and not self.records:
            return [
                f"{self.path}: {unused} recorded session(s) never replayed (the test connected"
                f" {len(self._taken)} time(s); record again with --mcp-record-mode=all)"
            ]
        return []


def _with_redact(settings: RecordSettings, redact: bool) -> RecordSettings:
    """The connector's settings; the marker's `redact=False` turns redaction off for the whole test."""
    if redact or not settings.redact:
        return settings
    return RecordSettings(path=settings.path, redact=False, secrets=settings.secrets)
