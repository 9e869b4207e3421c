"""Helpers of the OAuth runtime tests: a headless "browser", a subprocess OAuth server, an in-memory keyring."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import keyring.backend
from mcp.shared.auth import AuthorizationCodeResult

SERVER_SCRIPT = str(Path(__file__).resolve().parents[1] / "servers" / "oauth_server.py")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Browser:
    """Plays the user's browser: follows the authorization URL (the test server approves at once)
    to the client's loopback listener, in a thread, as a real browser would."""

    def __init__(self) -> None:
        self.visited: list[str] = []
        self.pages: list[int] = []
        self._threads: list[threading.Thread] = []

    def __call__(self, url: str) -> None:
        self.visited.append(url)

        def visit() -> None:
            with httpx2.Client(follow_redirects=True, timeout=30) as client:
                self.pages.append(client.get(url).status_code)

        thread = threading.Thread(target=visit, daemon=True)
        thread.start()
        self._threads.append(thread)

    def join(self) -> None:
        for thread in self._threads:
            thread.join(30)


class Headless:
    """`redirect_handler` / `callback_handler` that complete the flow without a listener."""

    def __init__(self) -> None:
        self.location = ""
        self.logins = 0
        self.urls: list[str] = []

    async def redirect(self, url: str) -> None:
        self.logins += 1
        self.urls.append(url)
        async with httpx2.AsyncClient() as client:
            response = await client.get(url, follow_redirects=False)
        self.location = response.headers["location"]

    async def callback(self) -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(self.location).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A real keyring backend that keeps passwords in a dict."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if self.passwords.pop((service, username), None) is None:
            raise PasswordDeleteError("not found")


@contextlib.contextmanager
def subprocess_server(port: int, *arguments: str) -> Iterator[str]:
    """The OAuth test server as a child process on `port`; yields its MCP URL."""
    process = subprocess.Popen(
        [sys.executable, SERVER_SCRIPT, "--port", str(port), *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("READY "), f"the OAuth server did not start: {line!r}"
        yield line.split()[1]
    finally:
        process.terminate()
        process.wait(10)


def text_of(result: Any) -> str:
    return str(result.text)
