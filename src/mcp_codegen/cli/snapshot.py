"""`mcp-codegen snapshot`: capture a server's listings as a canonical JSON file."""

from __future__ import annotations

from pathlib import Path

import click

from mcp_codegen.cli.common import (
    Reporter,
    ServerArguments,
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
    server: ServerArguments,
    output: Path,
) -> None:
    """Capture a server's tools, resources, templates and prompts as a canonical JSON file."""

    def action() -> None:
        from mcp_codegen.output.write import check_location, write_text_atomically

        reporter = Reporter(server.quiet, verbose=server.verbose)
        launch = server.launch()
        if launch is None:
            raise UsageError("snapshot needs --url, --stdio or --registry")
        to_stdout = str(output) == "-"
        if not to_stdout:
            check_location(output)
        diagnostics = Diagnostics()
        taken = take_snapshot(launch, server.timeout, reporter, diagnostics, server.skipped)
        text = taken.to_text()
        if to_stdout:
            click.echo(text, nl=False)
        else:
            write_text_atomically(output, text)
        reporter.summary(taken, diagnostics, f"wrote {output}", {})

    run_command(action)
