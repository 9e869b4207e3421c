"""Several OS processes refreshing one stored OAuth token at once: one refresh reaches the token endpoint.

The server (tests/servers/oauth_server.py, the SDK's server-side auth) rotates refresh tokens and revokes
the whole family when a spent one comes back, as providers do. The workers (refresh_race.py) are separate
processes sharing the stored record (file or keyring backend) whose access token has expired; they start
their first request at one barrier. The server holds the first refresh until every worker has reached the
refresh lock, so the others are waiting while it is in flight: with the lock they then read the new token
from the store; without it each sends the same refresh token and the family is revoked. Last, a plugged
`TokenBackend` as a store.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import anyio
import keyring
import pytest
from auth_helpers import Headless, text_of
from fakepkg import AsyncClient
from mcp.shared.auth import OAuthToken
from refresh_race import SqliteBackend, real_backend, worker
from servers.oauth_server import RunningServer, buffered, serve_oauth

from mcp_codegen_runtime import ConnectError
from mcp_codegen_runtime.auth import TokenBackend, TokenStore, oauth

pytestmark = pytest.mark.anyio

WORKERS = 3
WAIT = 120  # seconds: a bound on a hang, not a budget


class HoldRefreshes:
    """In front of the server: each refresh request at /token waits until every worker has reached the refresh
    lock (`arrived`) and, with `all_refresh`, until every worker's refresh has arrived too."""

    def __init__(self, arrived: Any, *, all_refresh: bool) -> None:
        self.arrived = arrived
        self.all_refresh = all_refresh
        self.refreshes = 0
        self.timed_out = False
        self._everyone: anyio.Event | None = None
        self._all_here: anyio.Event | None = None

    def wrap(self, app: Any, _running: RunningServer) -> Any:
        async def held(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/token":
                await app(scope, receive, send)
                return
            body, replay = await buffered(receive)
            if dict(parse_qsl(body.decode())).get("grant_type") == "refresh_token":
                await self.hold()
            await app(scope, replay, send)

        return held

    async def hold(self) -> None:
        self.refreshes += 1
        if self._everyone is None:
            self._everyone, self._all_here = anyio.Event(), anyio.Event()

            def every_worker_arrives() -> bool:
                return all(self.arrived.acquire(timeout=WAIT) for _ in range(WORKERS))

            if not await anyio.to_thread.run_sync(every_worker_arrives):
                self.timed_out = True
            self._everyone.set()
        await self._everyone.wait()
        assert self._all_here is not None
        if self.refreshes >= WORKERS:
            self._all_here.set()
        if self.all_refresh:
            with anyio.move_on_after(WAIT) as waited:
                await self._all_here.wait()
            self.timed_out |= waited.cancelled_caught


@pytest.fixture(params=["file", "keyring", "sqlite"])
def kind(request: pytest.FixtureRequest, token_dir: Path) -> Iterator[str]:
    """The backend the workers share: the 0600 file, the keyring (a `FileKeyring`, restored after), or a
    plugged `TokenBackend` (SQLite, its lock a lease row)."""
    before = keyring.get_keyring()
    yield str(request.param)
    keyring.set_keyring(before)


def expire(backend: TokenBackend, url: str) -> None:
    """Mark the stored access token expired (the store's own expiry, which the providers trust)."""
    key = TokenStore(url, backend=backend).url
    text = backend.load(key)
    assert text is not None
    record = json.loads(text)
    record["expiresAt"] = 1.0
    backend.save(key, json.dumps(record))


class Race:
    """One round: a login, the token expired, `WORKERS` processes calling a tool at once; what they saw."""

    def __init__(self, kind: str, directory: Path, *, locked: bool, mode: str = "expired") -> None:
        self.kind, self.directory, self.locked, self.mode = kind, directory, locked, mode
        self.context = multiprocessing.get_context("spawn")
        self.arrived = self.context.Semaphore(0)
        self.hold = HoldRefreshes(self.arrived, all_refresh=not locked)
        self.backend = real_backend(kind, directory)
        self.client_id = ""
        self.outcomes: list[tuple[int, str, str, str]] = []

    async def run(self, server: RunningServer) -> None:
        flow = Headless()
        store = TokenStore(server.url, backend=self.backend)
        auth = oauth(server.url, store=store, redirect_handler=flow.redirect, callback_handler=flow.callback)
        async with AsyncClient.http(server.url, auth=auth, drift_check=False) as client:
            self.client_id = text_of(await client.call_raw("whoami"))
        if self.mode == "expired":
            expire(self.backend, server.url)
        refused = self.mode == "refused"  # then this process meets the workers at both barriers
        warmed = self.context.Barrier(WORKERS + 1) if refused else None
        start = self.context.Barrier(WORKERS + refused)
        no_lock = None if self.locked else self.context.Barrier(WORKERS)
        results = self.context.Queue()
        arguments = (
            server.url,
            str(self.directory),
            self.kind,
            self.arrived,
            no_lock,
            start,
            results,
            self.mode,
            warmed,
        )
        processes = [self.context.Process(target=worker, args=arguments) for _ in range(WORKERS)]
        for process in processes:
            process.start()
        try:
            if warmed is not None:
                await anyio.to_thread.run_sync(warmed.wait, WAIT)
                server.provider.revoke_all_access()  # every worker's next request is refused (401)
                await anyio.to_thread.run_sync(start.wait, WAIT)
            self.outcomes = [await anyio.to_thread.run_sync(results.get, True, WAIT) for _ in processes]
        finally:
            for process in processes:
                await anyio.to_thread.run_sync(process.join, WAIT)
                if process.is_alive():
                    process.kill()
        assert flow.logins == 1

    def stored_tokens(self, url: str) -> dict[str, Any]:
        text = self.backend.load(TokenStore(url, backend=self.backend).url)
        assert text is not None
        return dict(json.loads(text)["tokens"])


async def test_processes_sharing_an_expired_token_send_one_refresh_and_all_call_the_tool(
    kind: str, token_dir: Path
) -> None:
    race = Race(kind, token_dir, locked=True)
    with serve_oauth(wrap=race.hold.wrap) as server:
        await race.run(server)
    provider = server.provider
    assert not race.hold.timed_out  # every worker reached the lock while the first refresh was held
    assert [(outcome, text) for _pid, outcome, text, _log in race.outcomes] == [("ok", race.client_id)] * WORKERS
    assert provider.grants.count("refresh_token") == 1  # one request reached the token endpoint
    assert provider.issued["refresh_token"] == 1 and provider.reuses == 0
    tokens = race.stored_tokens(server.url)
    assert tokens["refresh_token"] in provider.refresh and tokens["access_token"] in provider.access
    # The others waited for the lock and found the new token stored: they used it (the SDK's own
    # initialisation read it after the lock), and nothing logged a token.
    logs = [log for _pid, _outcome, _text, log in race.outcomes]
    assert sum("changed while this process waited for the refresh lock" in log for log in logs) == WORKERS - 1
    assert not [secret for secret in provider.values if any(secret in log for log in logs)]


async def test_without_the_lock_each_process_refreshes_and_the_server_revokes_the_family(token_dir: Path) -> None:
    race = Race("file", token_dir, locked=False)
    with serve_oauth(wrap=race.hold.wrap) as server:
        await race.run(server)
    provider = server.provider
    assert not race.hold.timed_out
    # The same refresh token, sent by each (and the winner's next one, refused with its revoked family).
    assert provider.grants.count("refresh_token") >= WORKERS
    assert provider.issued["refresh_token"] == 1 and provider.reuses == WORKERS - 1
    failed = [text for _pid, outcome, text, _log in race.outcomes if outcome == "error"]
    assert failed and all("run `mcp-codegen auth login" in text for text in failed)
    assert race.stored_tokens(server.url)["refresh_token"] not in provider.refresh  # the family is gone


async def test_long_running_processes_whose_tokens_expire_together_share_one_refresh(token_dir: Path) -> None:
    # Each worker called the tool once, then its clock moved on two hours: the provider holds an expired
    # token in memory. After the lock it reads the store again and takes the token another worker stored.
    race = Race("file", token_dir, locked=True, mode="long_lived")
    with serve_oauth(wrap=race.hold.wrap) as server:
        server.provider.revoke_superseded = True  # the access token a worker holds in memory dies with the refresh
        await race.run(server)
    provider = server.provider
    assert not race.hold.timed_out
    assert [(outcome, text) for _pid, outcome, text, _log in race.outcomes] == [("ok", race.client_id)] * WORKERS
    assert provider.grants.count("refresh_token") == 1 and provider.reuses == 0
    logs = [log for _pid, _outcome, _text, log in race.outcomes]
    assert sum("changed while this process waited for the refresh lock" in log for log in logs) == WORKERS - 1


async def test_processes_whose_token_the_server_refuses_send_one_refresh_and_the_others_retry_with_it(
    token_dir: Path,
) -> None:
    # Each worker's token is refused (401) at once: the first to take the lock refreshes; the others find the
    # new token stored and send their refused request again with it, instead of refreshing.
    race = Race("file", token_dir, locked=True, mode="refused")
    with serve_oauth(wrap=race.hold.wrap) as server:
        await race.run(server)
    provider = server.provider
    assert not race.hold.timed_out
    assert [(outcome, text) for _pid, outcome, text, _log in race.outcomes] == [("ok", race.client_id)] * WORKERS
    assert provider.grants.count("refresh_token") == 1 and provider.reuses == 0


async def test_a_plugged_backend_keeps_the_record_and_anything_else_is_refused(tmp_path: Path) -> None:
    plugged = SqliteBackend(tmp_path / "tokens.db")
    store = TokenStore.for_url("HTTP://Example.COM:80/mcp/", backend=plugged)
    assert (store.backend, store.path) == ("sqlite", None)
    assert repr(store) == "TokenStore('http://example.com/mcp', backend='sqlite')"
    await store.set_tokens(OAuthToken(access_token="at-sentinel", refresh_token="rt-sentinel", expires_in=60))
    assert json.loads(plugged.load("http://example.com/mcp") or "{}")["tokens"]["refresh_token"] == "rt-sentinel"
    assert (
        await TokenStore.for_url("http://example.com/mcp", backend=plugged).get_tokens()
    ) == await store.get_tokens()
    status = store.describe()
    assert (status.backend, status.has_refresh_token, status.path) == ("sqlite", True, None)
    assert store.clear() and plugged.load(store.url) is None and not store.has_tokens()
    for wrong in ("redis", object()):
        with pytest.raises(ConnectError) as caught:
            TokenStore("http://example.com/mcp", backend=wrong)  # type: ignore[arg-type]
        assert "\n" not in str(caught.value)
