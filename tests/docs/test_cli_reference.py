"""The CLI reference cannot fall behind `--help` (issue 57: the page listed `--auth oauth|client-credentials|none`
while `--help` also had `workload`).

The page is read as the site renders it: the hook's tables (the server options come from the click options) and the
`::: mkdocs-click` block expanded by mkdocs-click itself. Every option and every choice that `mcp-codegen COMMAND
--help` prints, for every command and subcommand, must be on it; and wherever the docs spell out an option's choices
(`--auth oauth|client-credentials|workload|none`), they must be all of that option's choices.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner
from mkdocs_click._extension import replace_command_docs
from mkdocs_click._processing import replace_blocks

from mcp_codegen.cli import cli

from .hooks import DOCS, render_docs_page


def commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command path: ("generate",), ("auth", "login"), ..."""
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name)


COMMANDS = list(commands())


def reference_page() -> str:
    """docs/reference/cli.md as the site renders it: tables by the hook, the full reference by mkdocs-click."""
    lines = render_docs_page("reference/cli.md").splitlines()
    return "\n".join(replace_blocks(lines, title="mkdocs-click", replace=replace_command_docs))


def help_text(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(cli, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def shown_options(help_output: str) -> tuple[set[str], dict[str, set[str]]]:
    """The option names `--help` shows, and the choices it shows for each (`--auth [oauth|...]`)."""
    names: set[str] = set()
    choices: dict[str, set[str]] = {}
    options = help_output.split("Options:", 1)[1]
    for line in options.splitlines():
        match = re.match(r"\s+((?:-{1,2}[A-Za-z][\w-]*(?:\s*/\s*|,\s*)?)+)(?:\s+\[([^\]]+)\])?", line)
        if match is None:
            continue
        found = re.findall(r"-{1,2}[A-Za-z][\w-]*", match.group(1))
        names.update(found)
        if match.group(2) and "|" in match.group(2):
            for name in found:
                choices[name] = set(match.group(2).split("|"))
    return names, choices


def test_the_reference_renders_every_command() -> None:
    page = reference_page()
    assert len(COMMANDS) >= 10 and ("auth", "login") in COMMANDS
    assert "::: mkdocs-click" not in page and "<!-- table:" not in page
    for path in COMMANDS:
        assert f"mcp-codegen {' '.join(path)}" in page, path


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_the_reference_names_every_option_and_choice_help_shows(path: tuple[str, ...]) -> None:
    page = reference_page()
    names, choices = shown_options(help_text(path))
    assert "--help" in names and len(names) >= 2
    for name in sorted(names):
        assert re.search(rf"`[^`]*(?<![\w-]){re.escape(name)}(?![\w-])", page), (
            f"{' '.join(path)}: {name} not on the page"
        )
    for name, values in sorted(choices.items()):
        for value in sorted(values):
            assert re.search(rf"`{re.escape(value)}`|\b{re.escape(value)}\b", page), f"{name}: choice {value}"


def spelt_out_choices(text: str) -> Iterator[tuple[str, set[str]]]:
    """Every `--option a|b|c` the text writes in code (a Markdown table escapes `|` as `\\|`)."""
    for match in re.finditer(r"`(--[a-z][\w-]*) ([\w-]+(?:\\?\|[\w-]+)+)`", text):
        yield match.group(1), set(match.group(2).replace("\\|", "|").split("|"))


def all_choices() -> dict[str, list[set[str]]]:
    """Option name -> the choice sets it has in the commands (`--format` differs between commands)."""
    found: dict[str, list[set[str]]] = {}
    for path in COMMANDS:
        _, choices = shown_options(help_text(path))
        for name, values in choices.items():
            found.setdefault(name, []).append(values)
    return found


def test_wherever_the_docs_spell_out_choices_they_are_all_of_them() -> None:
    known = all_choices()
    assert set(known["--auth"][0]) == {"oauth", "client-credentials", "workload", "none"}
    pages = {str(path.relative_to(DOCS)): render_docs_page(str(path.relative_to(DOCS))) for path in DOCS.rglob("*.md")}
    pages["README.md"] = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    spelt = [(page, name, values) for page, text in pages.items() for name, values in spelt_out_choices(text)]
    assert len(spelt) >= 5  # the scan finds them (it would pass vacuously otherwise)
    for page, name, values in spelt:
        if name in known:
            assert values in known[name], f"{page}: `{name} {'|'.join(sorted(values))}` is not {known[name]}"


def test_a_stale_choice_list_is_caught() -> None:
    """The check above fails on the page as it was (three of --auth's four choices)."""
    stale = "| `--auth oauth\\|client-credentials\\|none` | ... |"
    ((name, values),) = spelt_out_choices(stale)
    assert values not in all_choices()[name]
