"""The worker processes of the token-store lock tests: each runs in an OS process of its own (multiprocessing, spawn).

They share one token directory with the test: `hold` keeps the record's lock until told to let go, `enter` tries
to take it, `update` changes the record through a `TokenStore` whose backend (`Gated`) lets the test order its
steps against another process's, and `call` calls the server's `whoami` tool through `stored()` or `oauth()`,
reporting what it saw and its DEBUG log. Events and queues come from the test; every wait is bounded (a hang
fails the test, it is not a time budget).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp_codegen_runtime.auth import FileBackend, TokenStore, oauth, stored

WAIT = 120  # seconds: a bound on a hang, not a budget
KEY = "http://127.0.0.1:9/mcp"


def hold(directory: str, held: Any, release: Any) -> None:
    """Take the lock of `KEY`'s record, say so (`held`), keep it until `release` is set."""
    import anyio

    async def main() -> None:
        async with FileBackend(Path(directory)).lock(KEY):
            held.set()
            await anyio.to_thread.run_sync(release.wait, WAIT)

    anyio.run(main)


def enter(directory: str, patience: float, results: Any) -> None:
    """Try to take the lock of `KEY`'s record for `patience` seconds; put True on `results` when it got in."""
    import anyio

    async def main() -> bool:
        with anyio.move_on_after(patience):
            async with FileBackend(Path(directory)).lock(KEY):
                return True
        return False

    results.put(anyio.run(main))


class Gated(FileBackend):
    """A `FileBackend` whose steps the test can order against another process's.

    `moved` is set when this process reaches the lock or reads the record; with `wait_for`, the first read
    then waits until that event is set (the other process has moved too) before it returns.
    """

    name = "gated"

    def __init__(self, directory: Path, moved: Any, wait_for: Any | None) -> None:
        super().__init__(directory)
        self.moved, self.wait_for = moved, wait_for
        self.waited = False

    def load(self, key: str) -> str | None:
        text = super().load(key)
        self.moved.set()
        if self.wait_for is not None and not self.waited:
            self.waited = True
            self.wait_for.wait(WAIT)
        return text

    @contextlib.asynccontextmanager
    async def lock(self, key: str) -> AsyncIterator[None]:  # type: ignore[override]
        self.moved.set()
        async with super().lock(key):
            yield


def update(directory: str, what: str, moved: Any, wait_for: Any | None, go: Any | None, results: Any) -> None:
    """Store `what` ("tokens" or "client") for `KEY`; with `go`, only once `go` is set. Puts "done" on `results`."""
    import anyio
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    store = TokenStore(KEY, backend=Gated(Path(directory), moved, wait_for))

    async def main() -> None:
        if go is not None:
            await anyio.to_thread.run_sync(go.wait, WAIT)
        if what == "tokens":
            await store.set_tokens(OAuthToken(access_token="at-sentinel", refresh_token="rt-sentinel"))
        else:
            await store.set_client_info(
                OAuthClientInformationFull(client_id="client-7", redirect_uris=["http://127.0.0.1:1/callback"])  # type: ignore[list-item]
            )

    anyio.run(main)
    results.put("done")


class Announce(logging.Handler):
    """Puts "waiting" on `queue` once a log line says this process waits for another's login."""

    def __init__(self, queue: Any) -> None:
        super().__init__(logging.INFO)
        self.queue = queue
        self.said = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.said and "waiting for the OAuth login" in record.getMessage():
            self.said = True
            self.queue.put(("waiting", record.getMessage()))


def call(url: str, directory: str, how: str, results: Any) -> None:
    """Call `whoami` through the record in `directory`, with `stored()` or an `oauth()` whose login only counts
    itself and fails (this process has no browser). Puts ("ok" or "error", text, logins, DEBUG log) on `results`.
    """
    import anyio
    from fakepkg import AsyncClient

    log = io.StringIO()
    logging.basicConfig(level=logging.DEBUG, stream=log, force=True)
    logging.getLogger().addHandler(Announce(results))
    store = TokenStore(url, backend=FileBackend(Path(directory)))
    logins: list[str] = []

    async def no_browser(authorize_url: str) -> None:
        logins.append(authorize_url)
        raise RuntimeError("this process has no browser")

    async def no_callback() -> Any:
        raise RuntimeError("this process has no browser")

    auth = (
        stored(url, store=store)
        if how == "stored"
        else oauth(url, store=store, redirect_handler=no_browser, callback_handler=no_callback)
    )

    async def main() -> str:
        async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=60) as client:
            return str((await client.call_raw("whoami")).text)

    try:
        outcome = ("ok", anyio.run(main))
    except Exception as error:  # reported to the test, which names it
        outcome = ("error", f"{type(error).__name__}: {error}")
    results.put((*outcome, len(logins), log.getvalue(), os.getpid()))
