"""Run MCP servers for tests: in-process over HTTP (streamable or legacy SSE), on loopback only.

    from servers.helpers import serve_http, serve_sse

    with serve_http(build_server()) as url:        # "http://127.0.0.1:PORT/mcp"
        async with mcp.Client(url, mode="legacy", cache=None) as client: ...

    with serve_sse(build_server()) as url:         # "http://127.0.0.1:PORT/sse"
        async with mcp.Client(sse_client(url), mode="legacy", cache=None) as client: ...

Both accept an ``MCPServer`` or a low-level ``mcp.server.Server``. The server runs under uvicorn in a
daemon thread with its own event loop, on a free port picked by the OS, and is shut down when the
``with`` block exits. Each call builds a new ASGI app, so the same server object can be served again.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from mcp.server import MCPServer, Server
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "HOST",
    "STARTUP_TIMEOUT_SECONDS",
    "RefuseHandshake",
    "RequireHeaders",
    "RevokeCredentials",
    "serve_app",
    "serve_http",
    "serve_sse",
]

HOST = "127.0.0.1"
STARTUP_TIMEOUT_SECONDS = 20.0
SHUTDOWN_TIMEOUT_SECONDS = 10.0

AnyServer = MCPServer[Any] | Server[Any]


@contextlib.contextmanager
def serve_app(app: ASGIApp, *, host: str = HOST, port: int = 0) -> Iterator[str]:
    """Serve any ASGI app under uvicorn in a background thread; yield its base URL ``http://HOST:PORT``.

    `port` 0 lets the OS pick a free one; a fixed port serves a "restarted" server at the same address."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{id(server):x}", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the in-process uvicorn server exited during startup (see the log above)")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the in-process uvicorn server did not start within {STARTUP_TIMEOUT_SECONDS} s")
        time.sleep(0.01)
    try:
        bound = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(SHUTDOWN_TIMEOUT_SECONDS)
        if thread.is_alive():
            server.force_exit = True
            thread.join(SHUTDOWN_TIMEOUT_SECONDS)


@contextlib.contextmanager
def serve_http(server: AnyServer, *, path: str = "/mcp", **app_options: Any) -> Iterator[str]:
    """Serve ``server`` over streamable HTTP; yield the endpoint URL (``http://127.0.0.1:PORT/mcp``).

    Extra keyword arguments go to ``server.streamable_http_app()`` (e.g. ``json_response=True``,
    ``stateless_http=True``).
    """
    app = server.streamable_http_app(streamable_http_path=path, host=HOST, **app_options)
    with serve_app(app) as base:
        yield base + path


@contextlib.contextmanager
def serve_sse(server: AnyServer, *, path: str = "/sse", message_path: str = "/messages/") -> Iterator[str]:
    """Serve ``server`` over the legacy HTTP+SSE transport; yield the SSE URL (``http://127.0.0.1:PORT/sse``)."""
    app: ASGIApp
    if isinstance(server, MCPServer):
        app = server.sse_app(sse_path=path, message_path=message_path, host=HOST)
    else:
        app = _lowlevel_sse_app(server, path, message_path)
    with serve_app(app) as base:
        yield base + path


def _lowlevel_sse_app(server: Server[Any], path: str, message_path: str) -> Starlette:
    """What ``MCPServer.sse_app`` builds, for a low-level ``Server`` (which has no such method)."""
    transport = SseServerTransport(
        message_path,
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{HOST}:*", "localhost:*"],
            allowed_origins=[f"http://{HOST}:*", "http://localhost:*"],
        ),
    )

    async def sse_endpoint(request: Request) -> Response:
        async with transport.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return Response()

    return Starlette(
        routes=[
            Route(path, endpoint=sse_endpoint, methods=["GET"]),
            Mount(message_path, app=transport.handle_post_message),
        ]
    )


class RequireHeaders:
    """ASGI middleware in front of an app: 401 unless every required header has its exact value.

    `challenge`: the 401's `WWW-Authenticate` value (e.g. a plain "Bearer", as a server that checks a static
    token sends); none by default. Every request is checked, the `/.well-known/` metadata paths included (a
    server without OAuth has none to offer)."""

    def __init__(self, app: ASGIApp, required: dict[str, str], *, challenge: str | None = None) -> None:
        self.app = app
        self.required = {name.lower().encode(): value.encode() for name, value in required.items()}
        self.challenge = challenge
        #: The paths refused (to see what a client asked for before it gave up).
        self.refused: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if any(headers.get(name) != value for name, value in self.required.items()):
                self.refused.append(scope["path"])
                extra = {"WWW-Authenticate": self.challenge} if self.challenge is not None else None
                refusal = PlainTextResponse("authentication required", status_code=401, headers=extra)
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class RevokeCredentials:
    """ASGI middleware in front of an app: requests pass until credentials are "revoked", then POSTs get `status`.

    `revoke()` starts refusing now; with ``after_initialized=True`` refusing starts by itself right after
    the client's ``notifications/initialized`` (so the session is up, and its first request is refused).
    """

    def __init__(self, app: ASGIApp, status: int = 401, *, after_initialized: bool = False) -> None:
        self.app = app
        self.status = status
        self.after_initialized = after_initialized
        self.revoked = False

    def revoke(self) -> None:
        self.revoked = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        if self.revoked:
            await PlainTextResponse("credentials revoked", status_code=self.status)(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if self.after_initialized and b'"notifications/initialized"' in body:
            self.revoked = True
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class RefuseHandshake:
    """ASGI middleware in front of an app: the server speaks only MCP 2026-07-28, so `initialize` is refused.

    The SDK's HTTP server serves both eras; a 2026-07-28-only server answers the legacy handshake with
    UNSUPPORTED_PROTOCOL_VERSION (-32022) naming the versions it speaks. `methods` records every JSON-RPC
    method posted; `refuse=False` only records (to see what a client sends a server of both eras).
    """

    def __init__(self, app: ASGIApp, *, refuse: bool = True) -> None:
        self.app = app
        self.refuse = refuse
        self.methods: list[str] = []

    @property
    def handshakes(self) -> int:
        return self.methods.count("initialize")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body) if body else None
        method = request.get("method") if isinstance(request, dict) else None
        if isinstance(method, str):
            self.methods.append(method)
        if self.refuse and method == "initialize":
            assert isinstance(request, dict)
            error = {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"]}}
            reply = {"jsonrpc": "2.0", "id": request.get("id"), "error": error}
            await JSONResponse(reply)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
