"""MkDocs hook: renders the tables kept in code (exit codes, warning codes, drift rules, the server options) into
the docs pages.

A page asks for a table with a line `<!-- table: NAME -->`; an unknown name fails the build. The tables are read
from this checkout's `src/` (as mkdocstrings reads the API), so the pages always describe the code beside them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import click  # noqa: E402

from mcp_codegen.cli.common import AUTH_OPTIONS, SERVER_OPTIONS  # noqa: E402
from mcp_codegen.diagnostics import CODES  # noqa: E402
from mcp_codegen.drift.rules import rule_table_markdown  # noqa: E402
from mcp_codegen.errors import COMMAND_EXIT_CODES, EXIT_CODE_MEANINGS  # noqa: E402
from mcp_codegen_runtime.command_line import EXIT_CODES as CLI_EXIT_CODES  # noqa: E402

MARKER = re.compile(r"^<!-- table: ([a-z-]+) -->$", re.MULTILINE)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def exit_codes_table() -> str:
    rows = [f"| {int(code)} | {_cell(meaning)} |" for code, meaning in EXIT_CODE_MEANINGS.items()]
    return "\n".join(["| code | meaning |", "|---|---|", *rows])


def command_exit_codes_table() -> str:
    rows = [
        f"| `{command}` | {code} | {_cell(meaning)} |"
        for command, codes in COMMAND_EXIT_CODES.items()
        for code, meaning in codes.items()
    ]
    return "\n".join(["| command | code | meaning |", "|---|---|---|", *rows])


def cli_exit_codes_table() -> str:
    """The exit codes of a generated package's command line (`python -m PKG`, `generate --cli`)."""
    rows = [f"| {code} | {_cell(meaning)} |" for code, meaning in CLI_EXIT_CODES.items()]
    return "\n".join(["| code | meaning |", "|---|---|", *rows])


def warning_codes_table() -> str:
    rows = [f"| `{code}` | {_cell(meaning)} |" for code, meaning in CODES.items()]
    return "\n".join(["| code | meaning |", "|---|---|", *rows])


def option_label(option: click.Option) -> str:
    """`-H/--header 'NAME: VALUE'`, `--auth oauth|client-credentials|workload|none`, `--dpop/--no-dpop`: the option
    as `--help` names it, its choices spelt out."""
    names = "/".join([*option.opts, *option.secondary_opts])
    if isinstance(option.type, click.Choice):
        return f"{names} {'|'.join(map(str, option.type.choices))}"
    if option.is_flag:
        return names
    return f"{names} {option.metavar or option.type.name.upper()}"


def server_options_table() -> str:
    """The options of every command that reaches a server (`snapshot`, `generate`, `check`, `auth login`), from the
    click options themselves: what `--help` says, so the page cannot fall behind it."""

    def command(**_: Any) -> None:
        """Collects the options."""

    for option in reversed([*SERVER_OPTIONS, *AUTH_OPTIONS]):
        command = option(command)
    params = [param for param in click.command()(command).params if isinstance(param, click.Option)]
    rows = []
    for option in params:
        value = option.default
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        default = f" (default: {shown})" if option.show_default and value not in (None, ()) else ""
        rows.append(f"| `{_cell(option_label(option))}` | {_cell(option.help or '')}{default} |")
    return "\n".join(["| option | meaning |", "|---|---|", *rows])


TABLES: dict[str, Callable[[], str]] = {
    "exit-codes": exit_codes_table,
    "command-exit-codes": command_exit_codes_table,
    "cli-exit-codes": cli_exit_codes_table,
    "warning-codes": warning_codes_table,
    "drift-rules": rule_table_markdown,
    "server-options": server_options_table,
}


def render_tables(markdown: str) -> str:
    """The page with every table marker replaced by its table (KeyError naming an unknown table)."""

    def table(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in TABLES:
            raise KeyError(f"unknown table {name!r} (known: {', '.join(TABLES)})")
        return TABLES[name]()

    return MARKER.sub(table, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return render_tables(markdown)
