"""Every exit code the commands use is in the one table of exit codes in code (`errors.EXIT_CODE_MEANINGS` and
`COMMAND_EXIT_CODES`), which the docs' exit-code page is rendered from."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click

from mcp_codegen.cli import cli
from mcp_codegen.errors import COMMAND_EXIT_CODES, EXIT_CODE_MEANINGS, ExitCode

SOURCE = Path(__file__).resolve().parents[2] / "src" / "mcp_codegen"
#: The commands whose codes are `ExitCode`'s (the first table of the page).
MAIN_TABLE_COMMANDS = {"generate", "snapshot", "init"}


def test_every_exit_code_has_a_meaning() -> None:
    assert set(EXIT_CODE_MEANINGS) == set(ExitCode)
    assert all(meaning.strip() for meaning in EXIT_CODE_MEANINGS.values())


def _exits() -> list[tuple[str, ast.expr]]:
    """The argument of every `sys.exit(...)` / `SystemExit(...)` of the generator (the runtime has no exits)."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        if "runtime" in path.relative_to(SOURCE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("sys.exit", "SystemExit") and node.args:
                found.append((f"{path.relative_to(SOURCE)}:{node.lineno}", node.args[0]))
    return found


def test_every_literal_exit_code_in_the_source_is_in_a_table() -> None:
    exits = _exits()
    assert len(exits) >= 8  # the scan finds them (it would pass vacuously otherwise)
    documented = {int(code) for code in ExitCode} | {code for codes in COMMAND_EXIT_CODES.values() for code in codes}
    for where, argument in exits:
        literals = [
            node.value for node in ast.walk(argument) if isinstance(node, ast.Constant) and node.value is not None
        ]
        members = [node.attr for node in ast.walk(argument) if ast.unparse(node).startswith("ExitCode.")]
        assert all(isinstance(value, int) and value in documented for value in literals), where
        assert all(member in ExitCode.__members__ for member in members), where


def test_every_command_has_its_exit_codes_documented() -> None:
    def leaves(group: click.Group, prefix: str = "") -> set[str]:
        names = set()
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                names |= leaves(command, f"{prefix}{name} ")
            else:
                names.add(f"{prefix}{name}")
        return names

    commands = leaves(cli)
    assert {"generate", "verify", "auth status", "serve"} <= commands
    tabled = {command.strip() for key in COMMAND_EXIT_CODES for command in key.split(",")}
    assert commands <= MAIN_TABLE_COMMANDS | tabled, sorted(commands - MAIN_TABLE_COMMANDS - tabled)


def test_the_command_help_lists_the_same_codes() -> None:
    """`mcp-codegen --help` has a short form of the table: the same codes."""
    help_text = cli.help or ""
    listed = {int(code) for code in re.findall(r"^\s+(\d+)\s", help_text.split("Exit codes:")[1], re.MULTILINE)}
    assert listed == {int(code) for code in ExitCode}
