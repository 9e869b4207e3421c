"""Whether a connection records, replays or neither: a connector's `record=`, or the pytest plugin's cassette.

The plugin makes one `Cassette` active for a marked test (`activate`); every connector consults it when it
connects (`plan_connection`), so clients opened anywhere inside the test (fixtures included, blocking
clients on their own threads) record to or replay from the test's file. Without a cassette, `record=PATH`
records that connection alone. Importing this module imports nothing heavy.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .cassette import Cassette
    from .replay import Replayer
    from .tap import RecordingTap

__all__ = [
    "TRANSPORT_TAP",
    "ConnectionPlan",
    "RecordSettings",
    "activate",
    "active_cassette",
    "deactivate",
    "launch_secrets",
    "plan_connection",
]

#: The `mcp.Client` option (taken out by `connection.attempt.sdk_client`) that records a connection's sessions.
TRANSPORT_TAP = "_mcp_codegen_transport_tap"
#: What a connector knows is secret: (the variables given to the server, the headers sent).
Secrets = Callable[[], "tuple[Mapping[str, str], Mapping[str, str]]"]

_lock = threading.Lock()
_active: Cassette | None = None


def _nothing_secret() -> tuple[Mapping[str, str], Mapping[str, str]]:
    return {}, {}


@dataclass(frozen=True)
class RecordSettings:
    """A connector's `record=` and `redact=`, and how to learn its secrets (only asked when recording)."""

    path: str | os.PathLike[str] | None = None
    redact: bool = True
    secrets: Secrets = _nothing_secret


@dataclass(frozen=True)
class ConnectionPlan:
    """A connection's recording: a tap to record through, a replayer to answer from, or an error to raise."""

    tap: RecordingTap | None = None
    replayer: Replayer | None = None
    failure: Exception | None = None

    def failing_attempts(self) -> Sequence[Any]:
        """In place of a connection's attempts: raise `failure` when it opens."""
        assert self.failure is not None
        raise self.failure


def activate(cassette: Cassette) -> None:
    """Make `cassette` the one every connector consults (the plugin, for one test)."""
    global _active
    with _lock:
        _active = cassette


def deactivate() -> None:
    global _active
    with _lock:
        _active = None


def active_cassette() -> Cassette | None:
    return _active


def plan_connection(server: str, settings: RecordSettings | None) -> ConnectionPlan:
    """How a connection to `server` (the client's package) records or replays, if at all."""
    cassette = _active
    if cassette is not None:
        return cassette.plan(server, settings or RecordSettings())
    if settings is None or settings.path is None:
        return ConnectionPlan()
    from .envelope import RecordingSink

    return ConnectionPlan(tap=make_tap(RecordingSink(settings.path), server, settings))


def make_tap(sink: object, server: str, settings: RecordSettings) -> RecordingTap:
    """A tap writing to `sink`, redacting with the connector's secrets unless `redact=False`."""
    from .envelope import RecordingSink
    from .redact import Redactor
    from .tap import RecordingTap

    assert isinstance(sink, RecordingSink)
    redactor = None
    if settings.redact:
        env, headers = settings.secrets()
        redactor = Redactor(env=env, headers=headers)
    return RecordingTap(sink, server, redactor)


_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


def launch_secrets(
    launch: Mapping[str, Any] | None,
    env: Mapping[str, str] | None,
    headers: Mapping[str, str] | None,
) -> tuple[dict[str, str], dict[str, str]]:
    """What `connect()` gives the recorded server, for redaction: the variables it names (in `envNames`,
    and as `${VAR}` in its arguments and header templates) as set now, `env=`; and its headers, expanded.
    """
    launch = launch or {}
    names: list[str] = []
    for key in ("envNames", "args"):
        value: object = launch.get(key)
        for item in cast("list[object]", value) if isinstance(value, list) else []:
            if isinstance(item, str):
                names += [item] if key == "envNames" else _REFERENCE.findall(item)
    sent: dict[str, str] = {}
    records: object = launch.get("headers")
    for entry in cast("list[object]", records) if isinstance(records, list) else []:
        record = cast("dict[str, object]", entry) if isinstance(entry, dict) else {}
        name, template = record.get("name"), record.get("template")
        if isinstance(name, str) and isinstance(template, str):
            names += _REFERENCE.findall(template)
            sent[name] = _REFERENCE_FULL.sub(
                lambda match: os.environ.get(match.group(1), ""), template
            )
    variables = {name: os.environ[name] for name in names if name in os.environ}
    variables.update(env or {})
    sent.update(headers or {})
    return variables, sent


_REFERENCE_FULL = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")
