"""Serving an SDK server object over stdio or streamable HTTP (`mcp-codegen serve` and generated server packages)."""

from __future__ import annotations

import socket
import sys
from typing import Any

__all__ = ["AddressInUseError", "parse_address", "serve_http", "serve_stdio"]

DEFAULT_HOST = "127.0.0.1"


class AddressInUseError(OSError):
    """The HTTP address cannot be bound (in use, or not this machine's)."""


def parse_address(text: str) -> tuple[str, int]:
    """`[HOST:]PORT` -> (host, port); host 127.0.0.1 by default. Raises ValueError for anything else."""
    host, _, port_text = text.rpartition(":")
    port = int(port_text)  # ValueError for a non-number
    if not 1 <= port <= 65535:
        raise ValueError(f"the port must be 1-65535, not {port}")
    return host or DEFAULT_HOST, port


def serve_stdio(server: Any) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes them (or Ctrl-C)."""
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        return


def serve_http(server: Any, host: str, port: int, *, announce: bool = True) -> None:
    """Serve `server` over streamable HTTP at `http://host:port/mcp` until Ctrl-C."""
    import uvicorn

    try:  # a clear error now, rather than uvicorn's log line and exit
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.bind((host, port))
    except OSError as error:
        raise AddressInUseError(
            f"cannot serve at {host}:{port}: {error.strerror or error}"
        ) from None
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on"
    )
    if announce:
        print(
            f"serving {server.name} at http://{host}:{port}/mcp (Ctrl-C stops)",
            file=sys.stderr,
            flush=True,
        )
    try:
        uvicorn.Server(config).run()
    except (
        KeyboardInterrupt
    ):  # uvicorn re-raises the signal once it has shut down: a normal stop here
        return
