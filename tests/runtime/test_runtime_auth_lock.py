"""The token store's lock between OS processes: a permanent lock file, every read-modify-write under it, a
waiter that can be cancelled, and an interactive login that leaves the others free to refresh.

The other processes (tests/runtime/lock_workers.py) are spawned and share the test's token directory; they
tell the test where they are through events and queues, so nothing here depends on speed. Where an OAuth
server is needed it is the SDK's server-side auth (tests/servers/oauth_server.py), which rotates refresh tokens.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from auth_helpers import Headless, text_of
from fakepkg import AsyncClient
from lock_workers import KEY, WAIT, call, enter, hold, update
from servers.oauth_server import serve_oauth

from mcp_codegen_runtime.auth import FileBackend, TokenStore, oauth

pytestmark = pytest.mark.anyio

SPAWN = multiprocessing.get_context("spawn")


@pytest.fixture
def processes() -> Iterator[list[Any]]:
    """Processes a test starts: joined (or killed, after a hang) at its end."""
    started: list[Any] = []
    yield started
    for process in started:
        process.join(WAIT)
        if process.is_alive():
            process.kill()


def start(processes: list[Any], target: Any, *arguments: Any) -> Any:
    process = SPAWN.Process(target=target, args=arguments)
    process.start()
    processes.append(process)
    return process


async def get(queue: Any) -> Any:
    return await anyio.to_thread.run_sync(queue.get, True, WAIT)


async def wait(event: Any) -> None:
    assert await anyio.to_thread.run_sync(event.wait, WAIT)


async def test_two_processes_changing_the_record_at_once_lose_no_change(
    token_dir: Path, processes: list[Any]
) -> None:
    # The first process reads the record, then waits until the second has moved (reached the lock, or read the
    # record too). Without the lock around read-modify-write both read the empty record and the last write drops
    # the other's field; with it the second waits at the lock and reads the first one's record.
    first_moved, second_moved, results = SPAWN.Event(), SPAWN.Event(), SPAWN.Queue()
    start(processes, update, str(token_dir), "tokens", first_moved, second_moved, None, results)
    start(processes, update, str(token_dir), "client", second_moved, None, first_moved, results)
    assert [await get(results), await get(results)] == ["done", "done"]
    record = json.loads(FileBackend(token_dir).load(KEY) or "{}")
    assert record["tokens"]["refresh_token"] == "rt-sentinel"
    assert record["clientInfo"]["client_id"] == "client-7"


async def test_forgetting_the_record_while_a_process_holds_the_lock_lets_no_other_in(
    token_dir: Path, processes: list[Any]
) -> None:
    backend = FileBackend(token_dir)
    store = TokenStore(KEY, backend=backend)
    backend.save(KEY, json.dumps({"tokens": {"access_token": "at-sentinel", "token_type": "Bearer"}}))
    held, release, results = SPAWN.Event(), SPAWN.Event(), SPAWN.Queue()
    start(processes, hold, str(token_dir), held, release)
    await wait(held)
    try:
        assert store.clear()  # `mcp-codegen auth logout` while another process holds the lock
        # A third process may not take the lock while the first holds it (2 s: long enough to get in).
        start(processes, enter, str(token_dir), 2.0, results)
        assert await get(results) is False
        lock_file = backend.path(KEY).with_suffix(".lock")
        assert lock_file.exists() and stat.S_IMODE(lock_file.stat().st_mode) == 0o600
    finally:
        release.set()
    start(processes, enter, str(token_dir), float(WAIT), results)
    assert await get(results) is True  # and once let go, it is free


async def test_a_waiter_for_the_lock_is_cancelled_while_another_process_holds_it(
    token_dir: Path, processes: list[Any]
) -> None:
    held, release = SPAWN.Event(), SPAWN.Event()
    start(processes, hold, str(token_dir), held, release)
    await wait(held)
    waiting = anyio.Event()

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "another holder has" in record.getMessage():
                waiting.set()

    seen = Seen(logging.DEBUG)
    backends_log = logging.getLogger("mcp_codegen_runtime.auth.backends")
    backends_log.addHandler(seen)
    level = backends_log.level
    backends_log.setLevel(logging.DEBUG)
    # A bound on a hang: a wait that cannot be cancelled ends only once the holder lets go.
    guard = threading.Timer(WAIT, release.set)
    guard.start()
    entered = False
    try:
        async with anyio.create_task_group() as group:

            async def waiter() -> None:
                nonlocal entered
                async with FileBackend(token_dir).lock(KEY):
                    entered = True

            group.start_soon(waiter)
            with anyio.move_on_after(5):  # the waiter says it waits; 5 s to be waiting without saying it
                await waiting.wait()
            group.cancel_scope.cancel()
        # The task group ended while the other process still holds the lock: the wait was cut short.
        assert not release.is_set() and not entered
    finally:
        guard.cancel()
        release.set()
        backends_log.removeHandler(seen)
        backends_log.setLevel(level)


class HeldLogin(Headless):
    """A headless browser whose login stops at the authorization page until the test lets it go on."""

    def __init__(self) -> None:
        super().__init__()
        self.at_page = anyio.Event()
        self.go_on = anyio.Event()

    async def redirect(self, url: str) -> None:
        self.at_page.set()
        await self.go_on.wait()
        await super().redirect(url)


async def _log_in(server_url: str, store: TokenStore) -> str:
    flow = Headless()
    auth = oauth(server_url, store=store, redirect_handler=flow.redirect, callback_handler=flow.callback)
    async with AsyncClient.http(server_url, auth=auth, drift_check=False) as client:
        return text_of(await client.call_raw("whoami"))


@pytest.mark.parametrize("how", ["stored", "oauth"])
async def test_a_process_goes_on_while_another_is_in_the_middle_of_a_browser_login(
    token_dir: Path, processes: list[Any], how: str
) -> None:
    # The server forgets every access token. This process's `oauth()` is refused and logs in again, its
    # browser held at the authorization page. Meanwhile another process is refused too:
    # - with `stored()` it refreshes under the lock (the login does not hold it) and calls the tool;
    # - with `oauth()` it says that it waits for this process's login, then uses the token it stored.
    results = SPAWN.Queue()
    with serve_oauth() as server:
        store = TokenStore(server.url, backend=FileBackend(token_dir))
        client_id = await _log_in(server.url, store)
        server.provider.revoke_all_access()
        login = HeldLogin()
        auth = oauth(server.url, store=store, redirect_handler=login.redirect, callback_handler=login.callback)
        mine: list[str] = []
        async with anyio.create_task_group() as group:

            async def call_mine() -> None:  # connecting is refused first: the login starts there
                async with AsyncClient.http(server.url, auth=auth, drift_check=False, timeout=WAIT) as client:
                    mine.append(text_of(await client.call_raw("whoami")))

            group.start_soon(call_mine)
            with anyio.fail_after(WAIT):
                await login.at_page.wait()
            start(processes, call, server.url, str(token_dir), how, results)
            if how == "oauth":
                said = await get(results)
                assert said[0] == "waiting" and server.url.split("//")[1] in said[1]
                login.go_on.set()
            outcome, text, logins, log, _pid = await get(results)
            login.go_on.set()
        assert (outcome, text, logins) == ("ok", client_id, 0)
        assert mine == [client_id] and login.logins == 1
        if how == "stored":
            assert server.provider.grants.count("refresh_token") == 1
        assert not [secret for secret in server.provider.values if secret in log]
