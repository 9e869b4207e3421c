"""The worker processes of the refresh-race tests: separate OS processes sharing one stored OAuth token.

`worker` runs in a process of its own (multiprocessing, spawn): it opens the shared record through a
`TokenStore` over the file or keyring backend, or `SqliteBackend` (a plugged one), waits at a barrier so every worker sends its first request
at once, calls the server's `whoami` tool and reports the outcome (and its DEBUG log) on a queue.
Its backend is the real one wrapped by `Signalling`, which tells the test server when the worker reaches
the refresh lock, so the server can hold the first refresh until every worker is there.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import keyring.backend

from mcp_codegen_runtime.auth import FileBackend, KeyringBackend, TokenBackend, TokenStore, stored


class FileKeyring(keyring.backend.KeyringBackend):
    """A real keyring backend keeping its passwords in one JSON file, so several processes share it."""

    priority = 1  # type: ignore[assignment]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def _read(self) -> dict[str, str]:
        try:
            return dict(json.loads(self.path.read_text()))
        except FileNotFoundError:
            return {}

    def _write(self, passwords: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        staged = self.path.with_suffix(f".{os.getpid()}")
        staged.write_text(json.dumps(passwords))
        os.replace(staged, self.path)

    def get_password(self, service: str, username: str) -> str | None:
        return self._read().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        self._write({**self._read(), f"{service}/{username}": password})

    def delete_password(self, service: str, username: str) -> None:
        passwords = self._read()
        passwords.pop(f"{service}/{username}", None)
        self._write(passwords)


class SqliteBackend:
    """A plugged `TokenBackend`, as a team would write one for a store shared across machines: records in a
    database table, the lock a lease row (taken when absent or expired, deleted by its holder)."""

    name = "sqlite"

    def __init__(self, path: Path, lease: float = 60.0) -> None:
        self.path, self.lease = path, lease
        with self._connect() as database:
            database.execute("CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, record TEXT)")
            database.execute("CREATE TABLE IF NOT EXISTS locks (key TEXT PRIMARY KEY, holder TEXT, until REAL)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60, isolation_level=None)

    def load(self, key: str) -> str | None:
        with contextlib.closing(self._connect()) as database:
            row = database.execute("SELECT record FROM records WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def save(self, key: str, record: str) -> None:
        with contextlib.closing(self._connect()) as database:
            database.execute("INSERT OR REPLACE INTO records VALUES (?, ?)", (key, record))

    def delete(self, key: str) -> bool:
        with contextlib.closing(self._connect()) as database:
            return database.execute("DELETE FROM records WHERE key = ?", (key,)).rowcount > 0

    def _take(self, key: str, holder: str) -> bool:
        with contextlib.closing(self._connect()) as database:
            database.execute("BEGIN IMMEDIATE")
            database.execute("DELETE FROM locks WHERE key = ? AND until < ?", (key, time.time()))
            taken = database.execute(
                "INSERT OR IGNORE INTO locks VALUES (?, ?, ?)", (key, holder, time.time() + self.lease)
            ).rowcount
            database.execute("COMMIT")
        return taken == 1

    @contextlib.asynccontextmanager
    async def lock(self, key: str) -> AsyncIterator[None]:
        import anyio

        holder = uuid.uuid4().hex
        while not self._take(key, holder):
            await anyio.sleep(0.05)  # a lease lock polls; its holder is at most one token request away
        try:
            yield
        finally:
            with contextlib.closing(self._connect()) as database:
                database.execute("DELETE FROM locks WHERE key = ? AND holder = ?", (key, holder))


def real_backend(kind: str, directory: Path) -> TokenBackend:
    """The file, keyring or SQLite backend over `directory` (the keyring: a `FileKeyring` beside it)."""
    if kind == "file":
        return FileBackend(directory)
    if kind == "sqlite":
        directory.mkdir(parents=True, exist_ok=True)
        return SqliteBackend(directory / "tokens.db")
    keyring.set_keyring(FileKeyring(directory.parent / "keyring.json"))
    return KeyringBackend(directory)


class Signalling:
    """A `TokenBackend` over `inner` whose lock first tells the test server it was reached (`arrived`).

    With `race` (a barrier of every worker), the lock is left out: each worker waits there until all
    have reached it, then all go on at once, as processes without the lock would.
    """

    name = "signalling"

    def __init__(self, inner: TokenBackend, arrived: Any, race: Any | None) -> None:
        self.inner = inner
        self.arrived = arrived
        self.race = race
        self.unlocked = race is not None
        #: Signal (and race) only once set: a long-lived worker's first call takes the lock quietly.
        self.armed = True

    def load(self, key: str) -> str | None:
        return self.inner.load(key)

    def save(self, key: str, record: str) -> None:
        self.inner.save(key, record)

    def delete(self, key: str) -> bool:
        return self.inner.delete(key)

    @contextlib.asynccontextmanager
    async def lock(self, key: str) -> AsyncIterator[None]:
        import anyio

        if not self.armed:
            async with self.inner.lock(key):
                yield
            return
        self.arrived.release()
        if self.unlocked:
            if self.race is not None:  # the first time only: after it, the lock is simply left out
                race, self.race = self.race, None
                await anyio.to_thread.run_sync(race.wait, 120)
            yield
            return
        async with self.inner.lock(key):
            yield


def worker(
    url: str,
    directory: str,
    kind: str,
    arrived: Any,
    race: Any | None,
    start: Any,
    results: Any,
    mode: str,
    warmed: Any | None,
) -> None:
    """Call `whoami` through the shared record; put (pid, "ok" or "error", text, DEBUG log) on `results`.

    `mode` "expired": the stored token has expired. "long_lived": call the tool once first, then let two hours
    pass (this process's clock moves on, so the token it holds in memory expires), then call it again on the
    same connection. "refused": call it once, wait at `warmed` while the server forgets every access token,
    then call it again (refused with 401).
    """
    import anyio
    from fakepkg import AsyncClient

    log = io.StringIO()
    logging.basicConfig(level=logging.DEBUG, stream=log, force=True)
    backend = Signalling(real_backend(kind, Path(directory)), arrived, race)
    backend.armed = mode == "expired"
    auth = stored(url, store=TokenStore(url, backend=backend))

    async def call() -> str:
        async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=60) as client:
            if mode != "expired":
                await client.call_raw("whoami")
                if mode == "long_lived":
                    real = time.time
                    time.time = lambda: real() + 7200  # type: ignore[assignment]
                else:
                    await anyio.to_thread.run_sync(warmed.wait, 120)
                backend.armed = True
            await anyio.to_thread.run_sync(start.wait, 120)  # every worker sends its request at once
            return str((await client.call_raw("whoami")).text)

    try:
        outcome = ("ok", anyio.run(call))
    except Exception as error:  # reported to the test, which names it
        outcome = ("error", f"{type(error).__name__}: {error}")
    results.put((os.getpid(), *outcome, log.getvalue()))
