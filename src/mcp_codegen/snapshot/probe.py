"""What one connection attempt observed (the server's stderr tail, an HTTP failure) and the secrets to keep out of messages."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc

from mcp_codegen.inputs.launch import HttpLaunch, ServerLaunch, StdioLaunch
from mcp_codegen_runtime.connection.http import HttpWatch
from mcp_codegen_runtime.connection.server_env import proxy_passwords
from mcp_codegen_runtime.connection.stdio import ProcessWatch
from mcp_codegen_runtime.text import one_line

_STDERR_TAIL_LINES = 5


LINE_LIMIT = 200
#: The server's own stderr lines are shown whole (a path cut in its middle explains nothing), up to this.
STDERR_LINE_LIMIT = 4000


#: HTTP statuses that mean the server wants (other) credentials.
AUTH_STATUSES = (401, 403, 407)


class SpawnError(Exception):
    """The child could not be started; the message is final."""


@dataclass(frozen=True)
class HttpFailure:
    status: int
    reason: str


@dataclass
class Probe:
    """What one connection attempt observed, for the snapshot and for explaining failures."""

    #: "initialize" until the handshake is done, then what the caller is doing ("tools/list (page 2)").
    phase: str = "initialize"
    #: The raw `initialize` result as received (wire camelCase, vendor keys kept).
    init_result: dict[str, Any] | None = None
    #: The raw `server/discover` result of a 2026-07-28 server (which has no `initialize`).
    discover_result: dict[str, Any] | None = None
    #: The HTTP statuses the runtime's transport saw (reset for each phase).
    http: HttpWatch | None = None
    #: The stdio child as the runtime's transport saw it (exit code, stderr tail, non-JSON stdout).
    watch: ProcessWatch | None = None

    @property
    def initializing(self) -> bool:
        return self.phase == "initialize"

    @property
    def http_failure(self) -> HttpFailure | None:
        """The first refused request of this phase."""
        if self.http is None or self.http.status is None:
            return None
        return HttpFailure(self.http.status, self.http.reason)

    @property
    def process(self) -> anyio.abc.Process | None:
        return self.watch.process if self.watch is not None else None

    @property
    def garbage(self) -> list[str]:
        return [one_line(line, LINE_LIMIT) for line in self.watch.garbage] if self.watch is not None else []

    @property
    def garbage_count(self) -> int:
        return self.watch.garbage_count if self.watch is not None else 0

    def where(self) -> str:
        return "during initialize" if self.initializing else f"during {self.phase}"

    def stderr_tail(self) -> list[str]:
        if self.watch is None:
            return []
        lines = [one_line(line, STDERR_LINE_LIMIT) for line in self.watch.tail]
        return [line for line in lines if line][-_STDERR_TAIL_LINES:]


class Scrubber:
    """Replaces secret values (header values, env values, URL credentials) in text meant for the user."""

    def __init__(self, secrets: list[str]) -> None:
        self._secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    @classmethod
    def for_launch(cls, launch: ServerLaunch | None) -> Scrubber:
        secrets: list[str] = []
        if isinstance(launch, StdioLaunch):
            secrets.extend(launch.env.values())
            secrets.extend(launch.hidden_values())
            secrets.extend(proxy_passwords())  # the server inherits the proxy variables
        elif isinstance(launch, HttpLaunch):
            for value in launch.headers.values():
                secrets.append(value)
                secrets.extend(value.split())  # "Bearer <token>": the token alone, too
            if launch.auth is not None and launch.auth.client_secret:
                secrets.append(launch.auth.client_secret)
            parts = urllib.parse.urlsplit(launch.url)
            secrets.extend(p for p in (parts.username, parts.password) if p)
            secrets.extend(v for _, v in urllib.parse.parse_qsl(parts.query) if v)
        return cls(secrets)
