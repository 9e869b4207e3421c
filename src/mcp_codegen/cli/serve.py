"""`mcp-codegen serve`: a stand-in for a server, from its snapshot, over stdio or streamable HTTP.

The server is the runtime's `FakeServer`: it lists exactly the snapshot (names, descriptions, schemas,
annotations, instructions, server info), validates arguments against the input schemas, and answers
tools without a handler with data synthesised from their output schemas (`--unhandled error`: an error).
`--handlers module:object` plugs in the user's handlers. Exit codes: 0 (stopped, Ctrl-C included), 2 bad
usage (an unreadable snapshot, handlers that cannot be loaded), 3 the HTTP address cannot be used.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import click

from mcp_codegen.cli.common import run_command
from mcp_codegen.errors import ServerError, UsageError
from mcp_codegen.snapshot.model import read_snapshot


@click.command("serve")
@click.option(
    "--snapshot",
    "source",
    required=True,
    type=click.Path(path_type=Path),
    help="A snapshot file, or a generated package (its snapshot.json).",
)
@click.option("--http", "address", metavar="[HOST:]PORT", help="Serve streamable HTTP at /mcp (default: stdio).")
@click.option(
    "--handlers",
    metavar="MODULE:OBJECT",
    help="Your handlers: a function taking the FakeServer (it registers handlers on it), or a FakeServer.",
)
@click.option(
    "--unhandled",
    type=click.Choice(["synthesise", "error"]),
    default="synthesise",
    show_default=True,
    help="What a tool without a handler answers.",
)
def serve_command(source: Path, address: str | None, handlers: str | None, unhandled: str) -> None:
    """Serve a stand-in of a server from its snapshot (for tests, agents, the MCP inspector, CI).

    \b
    mcp-codegen serve --snapshot server.snapshot.json                 # stdio
    mcp-codegen serve --snapshot client_pkg --http 8765               # http://127.0.0.1:8765/mcp
    mcp-codegen serve --snapshot client_pkg --handlers my_tests.fakes:setup
    """

    def action() -> None:
        fake = _fake(source, handlers, unhandled)
        if address is None:
            _serve_stdio(fake)
        else:
            host, port = _address(address)
            _serve_http(fake, host, port)

    run_command(action)


def _fake(source: Path, handlers: str | None, unhandled: str) -> Any:
    from mcp_codegen_runtime.serving.fake import FakeServer

    path = source / "snapshot.json" if source.is_dir() else source
    snapshot = read_snapshot(path)  # a malformed file is a one-line error (exit 2)
    fake = FakeServer(json.loads(snapshot.to_text()), unhandled=unhandled)  # type: ignore[arg-type]
    if handlers is None:
        return fake
    target = _load(handlers)
    if isinstance(target, FakeServer):
        return target
    if not callable(target):
        raise UsageError(f"--handlers {handlers}: not a FakeServer or a function taking one")
    try:
        target(fake)
    except Exception as error:  # the user's code: its failure is theirs to read, in one line
        raise UsageError(f"--handlers {handlers} failed: {error.__class__.__name__}: {error}") from None
    return fake


def _load(spec: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UsageError(f"--handlers {spec}: expected MODULE:OBJECT (e.g. my_tests.fakes:setup)")
    sys.path.insert(0, str(Path.cwd()))  # like `python -m`: the user's own modules are importable
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise UsageError(
            f"--handlers {spec}: cannot import {module_name} ({error.__class__.__name__}: {error})"
        ) from None
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise UsageError(f"--handlers {spec}: {module_name} has no {attribute}") from None
    return target


def _address(text: str) -> tuple[str, int]:
    from mcp_codegen_runtime.serving.transport import parse_address

    try:
        return parse_address(text)
    except ValueError:
        raise UsageError(f"--http {text}: expected [HOST:]PORT (port 1-65535)") from None


def _serve_stdio(fake: Any) -> None:
    from mcp_codegen_runtime.serving.transport import serve_stdio

    click.echo(f"mcp-codegen: serving {fake.name} over stdio", err=True)
    serve_stdio(fake)


def _serve_http(fake: Any, host: str, port: int) -> None:
    from mcp_codegen_runtime.serving.transport import AddressInUseError, serve_http

    try:
        serve_http(fake, host, port)  # announces itself on stderr once the address is bound
    except AddressInUseError as error:
        raise ServerError(str(error)) from None
