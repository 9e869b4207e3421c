"""`mcp-codegen init`: a starter mcp-codegen.toml from a Claude Desktop, Cursor or VS Code MCP file."""

from __future__ import annotations

from pathlib import Path

import click

from mcp_codegen.cli.common import run_command
from mcp_codegen.errors import OutputConflictError
from mcp_codegen.wording import plural

CONFIG_FILE = "mcp-codegen.toml"  # `inputs.config.CONFIG_FILE` (that module imports pydantic: imported late)


@click.command("init")
@click.option(
    "--from",
    "source",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Claude Desktop, Cursor or VS Code MCP config file to start from.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path(CONFIG_FILE),
    show_default=True,
    help="Config file to write.",
)
@click.option("--force", is_flag=True, help="Replace an existing config file.")
def init_command(source: Path, output: Path, force: bool) -> None:
    """Write a starter mcp-codegen.toml from an mcp.json (secret values become ${VAR} references)."""

    def action() -> None:
        from mcp_codegen.inputs.mcp_json import load_mcp_json, starter_config_toml
        from mcp_codegen.output.write import check_location, write_text_atomically

        if output.exists() and not force:
            raise OutputConflictError(f"{output} exists; use --force to replace it")
        check_location(output)
        cfg = load_mcp_json(source)
        write_text_atomically(output, starter_config_toml(cfg))
        click.echo(
            f"mcp-codegen: wrote {output} with {plural(len(cfg.servers), 'server')}: {', '.join(cfg.servers)}; "
            "run `mcp-codegen generate`",
            err=True,
        )

    run_command(action)
