"""The recording file: one JSON-RPC message a line, each with `_meta: {dir, server, ts}` (mcporter's envelope).

A line is the message as it crossed the transport, plus a top-level `_meta`: `dir` is `send` (client to
server), `recv` (server to client) or `lifecycle` (`$transport/start` and `$transport/close`, which bound one
session), `server` names the server and `ts` is an ISO 8601 UTC timestamp. A file holds one or more
sessions in the order they were opened; lines of sessions open at once may interleave, told apart by their
`server` and their start and close. mcporter 0.12.3 (`mcporter record`) writes the same lines.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal, cast

__all__ = [
    "TRANSPORT_CLOSE",
    "TRANSPORT_START",
    "Direction",
    "Line",
    "encode_line",
    "RecordedSession",
    "RecordingFormatError",
    "RecordingSink",
    "read_recording",
    "timestamp",
]

Direction = Literal["send", "recv", "lifecycle"]
TRANSPORT_START = "$transport/start"
TRANSPORT_CLOSE = "$transport/close"
_DIRECTIONS = frozenset({"send", "recv", "lifecycle"})


class RecordingFormatError(ValueError):
    """A recording file that cannot be read (names the file and the line)."""


def timestamp() -> str:
    """Now, as the envelope writes it: `2026-12-07T06:46:59.858Z`."""
    now = datetime.now(UTC)
    return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Line:
    """One message of a recording: its direction, server and time, and the JSON-RPC message itself."""

    direction: Direction
    server: str
    ts: str
    #: The JSON-RPC message without the envelope's `_meta`.
    message: dict[str, Any]

    @property
    def method(self) -> str | None:
        method = self.message.get("method")
        return method if isinstance(method, str) else None

    @property
    def is_request(self) -> bool:
        return self.method is not None and "id" in self.message

    @property
    def is_notification(self) -> bool:
        return self.method is not None and "id" not in self.message

    @property
    def is_response(self) -> bool:
        return self.method is None and "id" in self.message


def _lines() -> list[Line]:
    return []


@dataclass
class RecordedSession:
    """One session of a recording: its lines from `$transport/start` to `$transport/close`."""

    server: str
    lines: list[Line] = field(default_factory=_lines)


def read_recording(path: str | os.PathLike[str]) -> list[RecordedSession]:
    """The sessions of a recording file, in the order they started (`RecordingFormatError` when unreadable).

    A file without lifecycle lines (hand-written, or cut short) is one session per server.
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise RecordingFormatError(
            f"{source}: cannot read the recording ({error.strerror or error})"
        ) from None
    sessions: list[RecordedSession] = []
    open_by_server: dict[str, RecordedSession] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        line = _parse_line(raw, source, number)
        session = open_by_server.get(line.server)
        if line.direction == "lifecycle" and line.method == TRANSPORT_START:
            session = open_by_server[line.server] = RecordedSession(line.server)
            sessions.append(session)
            continue
        if session is None:
            session = open_by_server[line.server] = RecordedSession(line.server)
            sessions.append(session)
        if line.direction == "lifecycle":
            if line.method == TRANSPORT_CLOSE:
                del open_by_server[line.server]
            continue
        session.lines.append(line)
    return sessions


def _parse_line(raw: str, source: Path, number: int) -> Line:
    where = f"{source}:{number}"
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise RecordingFormatError(f"{where}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise RecordingFormatError(f"{where}: a line must be a JSON object")
    message = cast("dict[str, Any]", value)
    meta = message.pop("_meta", None)
    if not isinstance(meta, dict):
        raise RecordingFormatError(f"{where}: no `_meta` envelope (dir, server, ts)")
    envelope = cast("dict[str, Any]", meta)
    direction = envelope.get("dir")
    if direction not in _DIRECTIONS:
        raise RecordingFormatError(
            f"{where}: `_meta.dir` must be send, recv or lifecycle, not {direction!r}"
        )
    server = envelope.get("server")
    ts = envelope.get("ts")
    return Line(
        direction=cast("Direction", direction),
        server=server if isinstance(server, str) else "",
        ts=ts if isinstance(ts, str) else "",
        message=message,
    )


def encode_line(
    message: Mapping[str, Any], direction: Direction, server: str, ts: str
) -> str:
    """The recording line for `message` (compact JSON, non-ASCII kept, no newline)."""
    envelope = {**message, "_meta": {"dir": direction, "server": server, "ts": ts}}
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


class RecordingSink:
    """Where lines go: a file opened (and emptied) at the first line, each line flushed as it is written.

    Shared by every session of a connection (and, under the pytest plugin, of a test): lines from several
    event-loop threads are written whole, one at a time. `append=True` keeps what the file holds.
    """

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False) -> None:
        self.path = Path(path)
        self._append = append
        self._handle: IO[str] | None = None
        self._lock = threading.Lock()
        self.closed = False

    def write(
        self, message: Mapping[str, Any], direction: Direction, server: str
    ) -> None:
        text = encode_line(message, direction, server, timestamp())
        with self._lock:
            if self.closed:
                return
            handle = self._handle
            if handle is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                handle = self._handle = self.path.open(
                    "a" if self._append else "w", encoding="utf-8", newline="\n"
                )
            handle.write(text + "\n")
            handle.flush()

    def close(self) -> None:
        with self._lock:
            self.closed = True
            handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()
