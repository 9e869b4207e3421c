"""Run the demo server: ``python -m mcp_codegen.demo [--http | --sse] [--host H] [--port N]``."""

import argparse
from collections.abc import Sequence

from mcp_codegen.demo.server import build_server


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_codegen.demo",
        description="Run the mcp-codegen demo MCP server (stdio by default).",
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp")
    transport.add_argument("--sse", action="store_true", help="serve legacy SSE at http://HOST:PORT/sse")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind for --http/--sse (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port for --http/--sse (default: 8000)")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        help="server log level, logged to stderr (default: WARNING)",
    )
    args = parser.parse_args(argv)

    server = build_server(log_level=args.log_level)
    if args.http:
        server.run("streamable-http", host=args.host, port=args.port)
    elif args.sse:
        server.run("sse", host=args.host, port=args.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
