"""`mcp-codegen snapshot`: capture a server's listings as a canonical JSON file."""

from __future__ import annotations

from pathlib import Path

import click

from mcp_codegen.cli.common import (
    AuthOptions,
    Reporter,
    launch_from_options,
    run_command,
    server_options,
    take_snapshot,
)
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import UsageError


@click.command("snapshot")
@server_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Snapshot file to write ('-' for stdout).",
)
def snapshot_command(
    url: str | None,
    transport: str,
    headers: tuple[str, ...],
    stdio: str | None,
    env: tuple[str, ...],
    cwd: str | None,
    registry: str | None,
    registry_url: str | None,
    timeout: float,
    quiet: bool,
    verbose: bool,
    auth_kind: str | None,
    client_id: str | None,
    client_secret_env: str | None,
    client_secret: str | None,
    scopes: tuple[str, ...],
    no_browser: bool,
    output: Path,
) -> None:
    """Capture a server's tools, resources, templates and prompts as a canonical JSON file."""

    def action() -> None:
        from mcp_codegen.output.write import check_location, write_text_atomically

        reporter = Reporter(quiet, verbose=verbose)
        launch = launch_from_options(
            url,
            transport,
            headers,
            stdio,
            env,
            cwd,
            AuthOptions(auth_kind, client_id, client_secret_env, client_secret, scopes, no_browser),
            registry=registry,
            registry_url=registry_url,
            timeout=timeout,
        )
        if launch is None:
            raise UsageError("snapshot needs --url, --stdio or --registry")
        to_stdout = str(output) == "-"
        if not to_stdout:
            check_location(output)
        diagnostics = Diagnostics()
        taken = take_snapshot(launch, timeout, reporter, diagnostics)
        text = taken.to_text()
        if to_stdout:
            click.echo(text, nl=False)
        else:
            write_text_atomically(output, text)
        reporter.summary(taken, diagnostics, f"wrote {output}", {})

    run_command(action)
