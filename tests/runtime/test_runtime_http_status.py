"""Errors after connecting: HTTP statuses are kept (with the header names sent, never their values), also by the drift guard."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pytest
from fakepkg import AsyncClient, Client
from mcp.server import Server
from rt_server import build_server
from servers.helpers import HOST, RevokeCredentials, serve_app

from mcp_codegen_runtime import HttpStatusError, SchemaDriftError, ServerRequestError

pytestmark = pytest.mark.anyio

SECRET = "Bearer very-secret-value"


@pytest.fixture
def revocable() -> Iterator[tuple[str, RevokeCredentials]]:
    """The test server over streamable HTTP behind a middleware whose `revoke()` turns on 401s."""
    yield from _served(401)


def _served(status: int, *, after_initialized: bool = False) -> Iterator[tuple[str, RevokeCredentials]]:
    app = build_server().streamable_http_app(streamable_http_path="/mcp", host=HOST)
    middleware = RevokeCredentials(app, status, after_initialized=after_initialized)
    with serve_app(middleware) as base:
        yield base + "/mcp", middleware


class Guarded(AsyncClient):
    """A client whose package recorded tool hashes, so connecting runs the drift guard."""

    _tool_hashes: ClassVar[Mapping[str, str] | None] = {"add": "0000000000000000"}


async def test_a_401_after_connecting_keeps_the_status_and_names_the_header(
    revocable: tuple[str, RevokeCredentials],
) -> None:
    url, middleware = revocable
    async with AsyncClient.http(url, headers={"Authorization": SECRET}, transport="http") as client:
        assert await client.add(a=1, b=2) == 3
        middleware.revoke()
        with pytest.raises(HttpStatusError) as caught:
            await client.add(a=1, b=2)
        error = caught.value
        assert isinstance(error, ServerRequestError)  # existing `except ServerRequestError` still catches it
        assert error.status == 401 and error.headers_sent == ("Authorization",)
        assert error.method == "tools/call"
        message = str(error)
        assert message.startswith(f"HTTP 401 Unauthorized from {url}")
        assert "check the credentials in header(s) Authorization" in message
        assert "very-secret-value" not in message and "\n" not in message
        with pytest.raises(HttpStatusError, match="HTTP 401"):
            await client.list_tools()


def test_a_403_after_connecting_through_the_blocking_client() -> None:
    for url, middleware in _served(403):
        with Client.http(url, headers={"X-Api-Key": "k-123456"}, transport="http") as client:
            assert client.add(a=2, b=2) == 4
            middleware.revoke()
            with pytest.raises(HttpStatusError) as caught:
                client.add(a=2, b=2)
        assert caught.value.status == 403
        assert "HTTP 403 Forbidden" in str(caught.value) and "X-Api-Key" in str(caught.value)
        assert "k-123456" not in str(caught.value)


async def test_the_strict_drift_guard_reports_a_401_not_drift() -> None:
    for url, _ in _served(401, after_initialized=True):
        with pytest.raises(HttpStatusError) as caught:
            async with Guarded.http(url, headers={"Authorization": SECRET}, transport="http", strict=True):
                pytest.fail("connected")
        assert not isinstance(caught.value, SchemaDriftError)
        assert caught.value.status == 401 and caught.value.method == "tools/list"
        assert "no drift" not in str(caught.value)


async def test_the_drift_warning_names_the_401(caplog: pytest.LogCaptureFixture) -> None:
    for url, _ in _served(401, after_initialized=True):
        with caplog.at_level(logging.WARNING):
            async with Guarded.http(url, headers={"Authorization": SECRET}, transport="http") as client:
                with pytest.raises(HttpStatusError):
                    await client.add(a=1, b=1)
    warnings = [r.getMessage() for r in caplog.records if "drift" in r.getMessage()]
    assert len(warnings) == 1
    assert "HTTP 401 Unauthorized" in warnings[0] and "Authorization" in warnings[0]
    assert "very-secret-value" not in caplog.text


def _off_spec_server() -> Server[Any]:
    """Lists tools as a string: no reader can use the listing (a schema without "type" is read as an object)."""

    async def unreachable(ctx: Any, params: Any) -> Any:
        raise AssertionError("answered by the middleware")

    server: Server[Any] = Server("off-spec", on_list_tools=unreachable)

    async def middleware(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/list":  # a middleware's own result is sent as written
            return {"tools": "add"}
        return await call_next(ctx)

    server.middleware.append(middleware)
    return server


async def test_the_strict_drift_guard_on_an_unreadable_listing_says_so() -> None:
    with pytest.raises(SchemaDriftError) as caught:
        async with Guarded.in_process(_off_spec_server(), strict=True):
            pytest.fail("connected")
    message = str(caught.value)
    assert message.startswith("could not compare the server's tools with this client's snapshot (ProtocolError:")
    assert "no drift" not in message and caught.value.reason is not None
