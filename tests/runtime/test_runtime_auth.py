"""OAuth in the runtime: login, stored tokens (file and keyring), refresh, restarts, connect() and the launch spec.

Against tests/servers/oauth_server.py: the SDK's own server-side auth on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import keyring
import pytest
from auth_helpers import Browser, Headless, MemoryKeyring, free_port, subprocess_server, text_of
from fakepkg import AsyncClient, Client
from servers.oauth_server import RunningServer, serve_oauth

from mcp_codegen_runtime import AuthRequiredError, ConnectError, TokenStore, client_credentials, oauth, stored
from mcp_codegen_runtime.auth import normalise_url

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server() -> Iterator[RunningServer]:
    with serve_oauth() as running:
        yield running


def launch_client(launch: Mapping[str, Any] | None) -> type[AsyncClient]:
    class Launched(AsyncClient):
        _launch: ClassVar[Mapping[str, Any] | None] = launch

    return Launched


async def login(url: str) -> Headless:
    flow = Headless()
    async with AsyncClient.http(
        url, auth=oauth(url, redirect_handler=flow.redirect, callback_handler=flow.callback), drift_check=False
    ) as client:
        assert text_of(await client.call_raw("whoami"))
    return flow


async def whoami(url: str, auth: Any) -> str:
    async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=30) as client:
        return text_of(await client.call_raw("whoami"))


def record_of(store: TokenStore) -> dict[str, Any]:
    return json.loads(store.path.read_text())


# ------------------------------------------------------------------------------------------- login


async def test_login_through_the_loopback_listener_stores_tokens_in_a_private_file(
    server: RunningServer, token_dir: Path
) -> None:
    browser = Browser()
    auth = oauth(server.url, open_browser=False, on_authorize_url=browser)
    async with AsyncClient.http(server.url, auth=auth, drift_check=False) as client:
        client_id = text_of(await client.call_raw("whoami"))
        assert text_of(await client.call_raw("echo", {"text": "hi"})) == "hi"
    browser.join()
    assert len(browser.visited) == 1 and "code_challenge=" in browser.visited[0]
    assert browser.pages == [200]  # the listener answered the redirect with its page
    assert server.provider.issued["authorization_code"] == 1

    store = TokenStore.for_url(server.url)
    assert store.backend == "file" and store.path.parent == token_dir
    assert stat.S_IMODE(token_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    # No temporary file left; beside the record only the (permanent, user-only) lock files.
    others = [path for path in token_dir.iterdir() if path != store.path]
    assert store.path.exists() and all(path.suffix == ".lock" for path in others)
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in others)
    record = record_of(store)
    assert record["url"] == server.url
    assert record["tokens"]["access_token"] in server.provider.access
    assert record["clientInfo"]["client_id"] == client_id  # registered dynamically
    status = store.describe()
    assert status.has_tokens and status.has_refresh_token and status.client_id == client_id
    assert status.scopes == ("mcp",) and status.expires_at is not None and not status.expired
    assert record["tokens"]["access_token"] not in repr(status) + repr(store) + repr(auth)


async def test_stored_token_connects_a_new_process_without_login(server: RunningServer, token_dir: Path) -> None:
    await login(server.url)
    program = textwrap.dedent(
        f"""
        import anyio
        from fakepkg import AsyncClient
        from mcp_codegen_runtime import stored

        async def main():
            async with AsyncClient.http({server.url!r}, auth=stored({server.url!r}), drift_check=False) as client:
                print((await client.call_raw("whoami")).text)

        anyio.run(main)
        """
    )
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests" / "runtime")])}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=environment, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == TokenStore.for_url(server.url).describe().client_id
    assert server.provider.issued["authorization_code"] == 1  # no second login


async def test_expired_token_is_refreshed_and_the_refreshed_token_stored(
    server: RunningServer, token_dir: Path
) -> None:
    await login(server.url)
    store = TokenStore.for_url(server.url)
    first = record_of(store)["tokens"]
    # The store says the token expired: the provider refreshes before sending.
    record = record_of(store)
    record["expiresAt"] = 1.0
    store.path.write_text(json.dumps(record))
    assert store.describe().expired
    assert await whoami(server.url, stored(server.url))
    second = record_of(store)["tokens"]
    assert server.provider.issued["refresh_token"] == 1
    assert second["access_token"] != first["access_token"] and second["refresh_token"] != first["refresh_token"]
    assert not store.describe().expired
    # The server forgot every access token: the refusal is answered with a refresh, not a login.
    server.provider.revoke_all_access()
    assert await whoami(server.url, stored(server.url))
    assert server.provider.issued["refresh_token"] == 2
    assert record_of(store)["tokens"]["access_token"] in server.provider.access
    assert server.provider.issued["authorization_code"] == 1


async def test_interactive_oauth_refreshes_instead_of_logging_in_again(server: RunningServer, token_dir: Path) -> None:
    flow = await login(server.url)
    store = TokenStore.for_url(server.url)
    record = record_of(store)
    record["expiresAt"] = 1.0
    store.path.write_text(json.dumps(record))
    assert await whoami(server.url, oauth(server.url, redirect_handler=flow.redirect, callback_handler=flow.callback))
    assert flow.logins == 1 and server.provider.issued["refresh_token"] == 1


async def test_stored_without_a_token_names_the_login_command(server: RunningServer, token_dir: Path) -> None:
    with pytest.raises(AuthRequiredError) as caught:
        stored(server.url)
    assert str(caught.value) == (
        f"no OAuth token is stored for {server.url}: run `mcp-codegen auth login {server.url}`"
    )
    assert isinstance(caught.value, ConnectError) and caught.value.url == server.url


async def test_refused_token_that_cannot_be_refreshed_needs_a_login_not_a_browser(
    server: RunningServer, token_dir: Path
) -> None:
    flow = await login(server.url)
    store = TokenStore.for_url(server.url)
    secret = record_of(store)["tokens"]["access_token"]
    server.provider.revoke_all_access()
    server.provider.refresh.clear()
    with pytest.raises(AuthRequiredError) as caught:
        await whoami(server.url, stored(server.url))
    message = str(caught.value)
    assert f"mcp-codegen auth login {server.url}" in message and "\n" not in message
    assert secret not in message
    assert flow.logins == 1  # nothing interactive happened


async def test_http_without_auth_says_the_server_wants_oauth(server: RunningServer) -> None:
    with pytest.raises(ConnectError) as caught:
        async with AsyncClient.http(server.url, drift_check=False):
            pytest.fail("connected")
    assert "OAuth" in str(caught.value) and "auth=oauth(url)" in str(caught.value)


async def test_sync_client_http_with_auth(server: RunningServer, token_dir: Path) -> None:
    await login(server.url)
    with Client.http(server.url, auth=stored(server.url), drift_check=False) as client:
        assert client.call_raw("echo", {"text": "sync"}).text == "sync"


# ------------------------------------------------------------------------------ pre-registered clients


async def test_pre_registered_client_id_and_secret(token_dir: Path) -> None:
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    with serve_oauth(clients={"my-app": ("my-app-secret", [redirect])}) as running:
        browser = Browser()
        auth = oauth(
            running.url,
            client_id="my-app",
            client_secret="my-app-secret",
            redirect_port=port,
            open_browser=False,
            on_authorize_url=browser,
        )
        assert await whoami(running.url, auth) == "my-app"
        browser.join()
        assert "client_id=my-app" in browser.visited[0]
        stored_client = record_of(TokenStore.for_url(running.url))["clientInfo"]
        assert stored_client["client_id"] == "my-app"
        assert len(running.provider.clients) == 1  # nothing registered dynamically
        # Its refresh authenticates with the stored secret.
        running.provider.revoke_all_access()
        assert await whoami(running.url, stored(running.url)) == "my-app"
        assert running.provider.issued["refresh_token"] == 1


async def test_pre_registered_client_with_the_secret_in_the_form(token_dir: Path) -> None:
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    with serve_oauth(clients={"form-app": ("form-secret", [redirect], "client_secret_post")}) as running:
        flow = Headless()
        auth = oauth(
            running.url,
            client_id="form-app",
            client_secret="form-secret",
            redirect_port=port,
            token_endpoint_auth_method="client_secret_post",
            redirect_handler=flow.redirect,
            callback_handler=flow.callback,
        )
        assert await whoami(running.url, auth) == "form-app"


async def test_a_second_login_reuses_the_registered_redirect_port(server: RunningServer, token_dir: Path) -> None:
    browser = Browser()
    assert await whoami(server.url, oauth(server.url, open_browser=False, on_authorize_url=browser))
    store = TokenStore.for_url(server.url)
    registered = record_of(store)["clientInfo"]["redirect_uris"]
    # Tokens gone (say, revoked), the registration kept: a new login must match its redirect URI.
    record = record_of(store)
    del record["tokens"]
    store.path.write_text(json.dumps(record))
    server.provider.revoke_all_access()
    assert await whoami(server.url, oauth(server.url, open_browser=False, on_authorize_url=browser))
    browser.join()
    assert browser.pages == [200, 200]
    assert record_of(store)["clientInfo"]["redirect_uris"] == registered
    assert server.provider.issued["authorization_code"] == 2 and len(server.provider.clients) == 1


async def test_client_credentials_with_the_secret_in_the_form(token_dir: Path) -> None:
    with serve_oauth(clients={"form-bot": ("form-secret", None, "client_secret_post")}) as running:
        auth = client_credentials(
            running.url,
            client_id="form-bot",
            client_secret="form-secret",
            token_endpoint_auth_method="client_secret_post",
        )
        assert await whoami(running.url, auth) == "form-bot"
        TokenStore.for_url(running.url).clear()  # the server wants the form, not HTTP Basic
        with pytest.raises(ConnectError):
            await whoami(
                running.url, client_credentials(running.url, client_id="form-bot", client_secret="form-secret")
            )


async def test_client_credentials_for_machines(token_dir: Path) -> None:
    with serve_oauth(clients={"ci-bot": ("ci-secret", None)}) as running:
        assert await whoami(running.url, client_credentials(running.url, client_id="ci-bot", client_secret="ci-secret"))
        assert running.provider.issued["client_credentials"] == 1
        assert TokenStore.for_url(running.url).describe().has_tokens
        # A new client reuses the stored token while it is valid.
        assert await whoami(running.url, client_credentials(running.url, client_id="ci-bot", client_secret="ci-secret"))
        assert running.provider.issued["client_credentials"] == 1
        TokenStore.for_url(running.url).clear()
        with pytest.raises(ConnectError) as caught:
            await whoami(running.url, client_credentials(running.url, client_id="ci-bot", client_secret="wrong"))
        assert "wrong" not in str(caught.value) and "\n" not in str(caught.value)


# ------------------------------------------------------------------------------------------ restarts


async def test_server_restart_stored_token_still_works(tmp_path: Path, token_dir: Path) -> None:
    port = free_port()
    state = tmp_path / "server-state.json"
    with subprocess_server(port, "--state", str(state)) as url:
        await login(url)
    with subprocess_server(port, "--state", str(state)) as url:
        assert await whoami(url, stored(url))
    # A server that lost its state refuses token and refresh token alike: a login is needed.
    state.unlink()
    with subprocess_server(port, "--state", str(state)) as url:
        with pytest.raises(AuthRequiredError) as caught:
            await whoami(url, stored(url))
        assert f"mcp-codegen auth login {url}" in str(caught.value)


async def test_a_token_that_expired_while_the_server_was_down_is_refreshed(tmp_path: Path, token_dir: Path) -> None:
    port = free_port()
    state = tmp_path / "server-state.json"
    # The token expired while the server was down: the restarted server refreshes it.
    with subprocess_server(port, "--state", str(state), "--access-ttl", "3600") as url:
        await login(url)
    store = TokenStore.for_url(url)
    before = record_of(store)["tokens"]["access_token"]
    record = record_of(store)
    record["expiresAt"] = 1.0
    store.path.write_text(json.dumps(record))
    with subprocess_server(port, "--state", str(state), "--access-ttl", "3600") as url:
        assert await whoami(url, stored(url))
    assert record_of(store)["tokens"]["access_token"] != before
    assert json.loads(state.read_text())["issued"]["refresh_token"] == 1


# ------------------------------------------------------------------------------------------- keyring


async def test_keyring_backend(
    server: RunningServer, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = memory_keyring
    store = TokenStore.for_url(server.url)
    assert store.backend == "keyring"
    await login(server.url)
    secret = json.loads(backend.passwords[("mcp-codegen", server.url)])
    assert secret["tokens"]["access_token"] in server.provider.access
    index = store.path.read_text()  # the listing entry holds no secret
    assert secret["tokens"]["access_token"] not in index and secret["tokens"]["refresh_token"] not in index
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [status.url for status in TokenStore.stored_servers()] == [server.url]
    assert TokenStore.stored_servers()[0].backend == "keyring"
    assert await whoami(server.url, stored(server.url))
    # The environment variable chooses the file backend even with a keyring.
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "file")
    assert TokenStore.for_url(server.url).backend == "file"
    monkeypatch.delenv("MCP_CODEGEN_TOKEN_STORE")
    assert store.clear() and not backend.passwords and not store.path.exists()
    with pytest.raises(AuthRequiredError):
        stored(server.url)


def test_keyring_requested_without_a_usable_backend(tmp_path: Path) -> None:
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        assert TokenStore.for_url("http://h/mcp", directory=tmp_path).backend == "file"
        with pytest.raises(ConnectError, match="keyring"):
            TokenStore.for_url("http://h/mcp", backend="keyring", directory=tmp_path)
    finally:
        keyring.set_keyring(previous)


# ------------------------------------------------------------------------------------- store details


def test_store_locations_and_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "file")
    monkeypatch.delenv("MCP_CODEGEN_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert TokenStore.for_url("http://h/mcp").directory == tmp_path / "xdg" / "mcp-codegen" / "auth"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert TokenStore.for_url("http://h/mcp").directory == tmp_path / "home" / ".config" / "mcp-codegen" / "auth"
    monkeypatch.setenv("MCP_CODEGEN_CONFIG_DIR", str(tmp_path / "cfg"))
    assert TokenStore.for_url("http://h/mcp").directory == tmp_path / "cfg" / "auth"
    # One record per server: the same server spelled differently, secrets in the URL dropped.
    assert normalise_url("HTTPS://User:pw@Example.COM:443/mcp/?api_key=k#x") == "https://example.com/mcp"
    assert normalise_url("http://127.0.0.1:8080/mcp") == "http://127.0.0.1:8080/mcp"
    same = TokenStore.for_url("https://example.com/mcp").path
    assert TokenStore.for_url("https://EXAMPLE.com:443/mcp/?token=t").path == same
    assert TokenStore.for_url("https://example.com/other").path != same
    with pytest.raises(ConnectError):
        TokenStore.for_url("ftp://example.com/")
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "vault")
    with pytest.raises(ConnectError, match="vault"):
        TokenStore.for_url("http://h/mcp")


async def test_store_round_trip_listing_and_clear(tmp_path: Path) -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    store = TokenStore.for_url("http://127.0.0.1:9/mcp", backend="file", directory=tmp_path / "auth")
    assert await store.get_tokens() is None and await store.get_client_info() is None
    assert not store.describe().has_tokens and store.describe().path is None
    await store.set_client_info(OAuthClientInformationFull(client_id="c1", redirect_uris=None))
    await store.set_tokens(OAuthToken(access_token="tok-value", refresh_token="ref-value", scope="a b"))
    assert (await store.get_tokens()) == OAuthToken(access_token="tok-value", refresh_token="ref-value", scope="a b")
    assert (await store.get_client_info()).client_id == "c1"  # type: ignore[union-attr]
    status = store.describe()
    assert (status.client_id, status.scopes, status.expires_at) == ("c1", ("a", "b"), None)
    other = TokenStore.for_url("http://127.0.0.1:10/mcp", backend="file", directory=tmp_path / "auth")
    await other.set_tokens(OAuthToken(access_token="x"))
    listed = TokenStore.stored_servers(directory=tmp_path / "auth")
    assert [item.url for item in listed] == ["http://127.0.0.1:10/mcp", "http://127.0.0.1:9/mcp"]
    assert "tok-value" not in repr(listed)
    assert store.clear() and not store.clear()
    assert [item.url for item in TokenStore.stored_servers(directory=tmp_path / "auth")] == [other.url]
    store.path.write_text("not json")  # a damaged record reads as nothing stored
    assert await store.get_tokens() is None


# ---------------------------------------------------------------------------- connect() and the launch


async def test_connect_with_recorded_oauth_uses_the_stored_token(server: RunningServer, token_dir: Path) -> None:
    client_class = launch_client({"transport": "http", "url": server.url, "auth": {"kind": "oauth"}})
    with pytest.raises(AuthRequiredError) as missing:
        async with client_class.connect(drift_check=False):
            pytest.fail("connected")
    assert f"mcp-codegen auth login {server.url}" in str(missing.value)
    client_id = text_of(await _login_and_call(server.url, client_class))
    assert client_id == TokenStore.for_url(server.url).describe().client_id


async def _login_and_call(url: str, client_class: type[AsyncClient]) -> Any:
    await login(url)
    async with client_class.connect(drift_check=False) as client:
        return await client.call_raw("whoami")


async def test_connect_without_recorded_auth_uses_a_stored_token_on_a_bearer_challenge(
    server: RunningServer, token_dir: Path
) -> None:
    client_class = launch_client({"transport": "http", "url": server.url})
    with pytest.raises(AuthRequiredError) as missing:
        async with client_class.connect(drift_check=False):
            pytest.fail("connected")
    assert str(missing.value) == (
        f"no OAuth token is stored for {server.url}: run `mcp-codegen auth login {server.url}`"
    )
    await login(server.url)
    async with client_class.connect(drift_check=False) as client:
        assert text_of(await client.call_raw("echo", {"text": "x"})) == "x"
    with _sync_launch(client_class).connect(drift_check=False) as sync_client:
        assert sync_client.call_raw("echo", {"text": "y"}).text == "y"


def _sync_launch(async_class: type[AsyncClient]) -> type[Client]:
    class Launched(Client):
        _async_class = async_class

    return Launched


async def test_connect_with_recorded_client_credentials(token_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve_oauth(clients={"ci-bot": ("ci-secret", None)}) as running:
        client_class = launch_client(
            {
                "transport": "http",
                "url": running.url,
                "auth": {"kind": "client-credentials", "clientId": "ci-bot", "clientSecretEnv": "RT_CI_SECRET"},
            }
        )
        monkeypatch.delenv("RT_CI_SECRET", raising=False)
        with pytest.raises(ConnectError) as missing:
            async with client_class.connect(drift_check=False):
                pytest.fail("connected")
        assert "RT_CI_SECRET" in str(missing.value) and "not set" in str(missing.value)
        monkeypatch.setenv("RT_CI_SECRET", "ci-secret")
        async with client_class.connect(drift_check=False) as client:
            assert text_of(await client.call_raw("whoami")) == "ci-bot"
        # An explicit auth= wins over the recorded entry.
        TokenStore.for_url(running.url).clear()
        await login(running.url)
        async with client_class.connect(drift_check=False, auth=stored(running.url)) as client:
            assert text_of(await client.call_raw("whoami")) != "ci-bot"


async def test_connect_rejects_an_unknown_recorded_auth_kind() -> None:
    client_class = launch_client({"transport": "http", "url": "http://127.0.0.1:9/mcp", "auth": {"kind": "saml"}})
    with pytest.raises(ConnectError, match="saml"):
        async with client_class.connect():
            pytest.fail("connected")


async def test_generated_package_connects_with_the_stored_token(
    server: RunningServer, token_dir: Path, tmp_path: Path
) -> None:
    from helpers import generate_into, imported_package, snapshot_of

    snapshot = snapshot_of(
        [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}],
        launch={"transport": "http", "url": server.url, "auth": {"kind": "oauth"}},
    )
    generate_into(tmp_path / "gen", snapshot, "oauthpkg")
    await login(server.url)
    with imported_package(tmp_path / "gen" / "oauthpkg") as package:
        async with package.AsyncClient.connect(drift_check=False) as client:
            assert (await client.echo(text="typed")).text == "typed"


# ------------------------------------------------------------------------------------------- step-up


async def test_scope_step_up_logs_in_again_for_the_union_of_scopes(server: RunningServer, token_dir: Path) -> None:
    flow = Headless()
    auth = oauth(server.url, redirect_handler=flow.redirect, callback_handler=flow.callback)
    async with AsyncClient.http(server.url, auth=auth, drift_check=False) as client:
        assert text_of(await client.call_raw("echo", {"text": "a"})) == "a"
        assert flow.logins == 1
        assert text_of(await client.call_raw("admin")) == "extra mcp"  # 403 insufficient_scope, then a new login
        assert flow.logins == 2
        assert "scope=mcp+extra" in flow.urls[1] and "scope=mcp&" in flow.urls[0] + "&"
    assert TokenStore.for_url(server.url).describe().scopes == ("mcp", "extra")


async def test_stored_token_without_the_scope_a_tool_needs_names_the_login(
    server: RunningServer, token_dir: Path
) -> None:
    await login(server.url)
    async with AsyncClient.http(server.url, auth=stored(server.url), drift_check=False) as client:
        with pytest.raises(AuthRequiredError) as caught:
            await client.call_raw("admin")
    message = str(caught.value)
    assert "extra" in message and f"mcp-codegen auth login {server.url}" in message


# ---------------------------------------------------------------------------------- browser, listener


async def test_the_browser_is_opened_with_the_authorization_url(
    server: RunningServer, token_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import webbrowser

    browser = Browser()

    def open_url(url: str) -> bool:
        browser(url)
        return True

    monkeypatch.setattr(webbrowser, "open", open_url)  # the user's browser, played by Browser
    monkeypatch.delenv("CI", raising=False)  # CI refuses a login at once (tested below)
    assert await whoami(server.url, oauth(server.url))
    browser.join()
    assert len(browser.visited) == 1 and browser.pages == [200]


async def test_without_a_browser_the_url_is_printed(
    server: RunningServer, token_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import webbrowser

    shown: list[str] = []

    def no_browser(url: str) -> bool:
        shown.append(url)
        Browser()(url)  # the user copies the printed URL into a browser elsewhere
        return False

    monkeypatch.setattr(webbrowser, "open", no_browser)
    # A person at hand (interactive=True): pytest's stdin is no terminal, which would refuse the login.
    assert await whoami(server.url, oauth(server.url, interactive=True))
    assert shown[0] in capsys.readouterr().err


@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ({"CI": "true"}, "CI is set"),
        ({"interactive": False}, "interactive=False"),
        ({"open_browser": False}, "no browser opened and stdin is not a terminal"),
    ],
)
async def test_a_login_nobody_can_finish_fails_at_once(
    server: RunningServer, token_dir: Path, monkeypatch: pytest.MonkeyPatch, setting: dict[str, Any], reason: str
) -> None:
    import anyio

    monkeypatch.delenv("CI", raising=False)
    if "CI" in setting:
        monkeypatch.setenv("CI", setting.pop("CI"))
        monkeypatch.setattr("webbrowser.open", lambda _url: pytest.fail("a browser was opened under CI"))
    with anyio.fail_after(60), pytest.raises(AuthRequiredError) as caught:  # not the 300 s login wait
        await whoami(server.url, oauth(server.url, **setting))
    assert f"this process cannot wait for one ({reason})" in str(caught.value)
    assert f"run `mcp-codegen auth login {server.url}`" in str(caught.value)


async def test_a_login_waits_at_most_login_timeout(server: RunningServer, token_dir: Path) -> None:
    import anyio

    shown: list[str] = []  # the URL goes somewhere, and nobody opens it
    with anyio.fail_after(60), pytest.raises(ConnectError) as caught:
        await whoami(server.url, oauth(server.url, open_browser=False, on_authorize_url=shown.append, login_timeout=1))
    assert "no OAuth redirect within 1 s (the login was not finished)" in str(caught.value)
    assert len(shown) == 1


async def test_the_listener_reports_a_refused_login_in_one_line(token_dir: Path) -> None:
    import anyio
    import httpx2

    port = free_port()
    # An authorization server that refuses: the browser lands on the callback with ?error=.
    refused = f"http://127.0.0.1:{port}/callback?error=access_denied&error_description=User+said+no&state=s"
    auth = oauth("http://127.0.0.1:9/mcp", redirect_port=port, open_browser=False, on_authorize_url=lambda _url: None)
    listener_wait = auth.context.callback_handler  # type: ignore[attr-defined]
    redirect = auth.context.redirect_handler  # type: ignore[attr-defined]
    await redirect("http://127.0.0.1:9/authorize")
    pages: list[int] = []

    async def visit() -> None:
        async with httpx2.AsyncClient() as client:
            pages.append((await client.get(f"http://127.0.0.1:{port}/favicon.ico")).status_code)
            pages.append((await client.get(refused)).status_code)

    async with anyio.create_task_group() as group:
        group.start_soon(visit)
        with pytest.raises(ConnectError) as caught:
            await listener_wait()
    assert str(caught.value) == "the authorization server refused the login: User said no"
    assert pages == [404, 400]


# ------------------------------------------------------------- several processes, one record

# Two processes refreshing one expired token at once (refresh tokens are valid once: see the server).
REFRESH_AT_ONCE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path

    import anyio
    from fakepkg import AsyncClient
    from mcp_codegen_runtime import stored

    import mcp.client.streamable_http  # imported before the barrier so neither process is held up by it
    import mcp.client.session

    url, mine, theirs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    auth = stored(url)
    mine.touch()
    while not theirs.exists():  # both start their first request at the same moment
        time.sleep(0.001)

    async def main() -> None:
        async with AsyncClient.http(url, auth=auth, drift_check=False, timeout=30) as client:
            print((await client.call_raw("whoami")).text)

    anyio.run(main)
    """
)


async def test_two_processes_refreshing_one_stored_token_both_stay_logged_in(
    server: RunningServer, token_dir: Path, tmp_path: Path
) -> None:
    flow = await login(server.url)
    store = TokenStore.for_url(server.url)
    client_id = store.describe().client_id
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests" / "runtime")])}
    for round_ in range(3):
        record = json.loads(store.path.read_text())
        record["expiresAt"] = 1.0  # expired: the next request of each process refreshes first
        store.path.write_text(json.dumps(record))
        barrier = [tmp_path / f"ready-{round_}-{side}" for side in ("a", "b")]
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", REFRESH_AT_ONCE, server.url, str(mine), str(theirs)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=environment,
            )
            for mine, theirs in (barrier, barrier[::-1])
        ]
        for process in processes:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err[-2000:]
            assert out.strip() == client_id
        stored_tokens = json.loads(store.path.read_text())["tokens"]
        assert stored_tokens["refresh_token"] in server.provider.refresh  # the file holds the live one
    assert flow.logins == 1  # never a second login
    assert server.provider.issued["refresh_token"] == 3  # one refresh per round, shared by both
