"""The reference tables of the docs are rendered from the tables in code, and every page's markers are known."""

from __future__ import annotations

import re

import pytest

from mcp_codegen.drift.rules import RULES
from mcp_codegen.errors import COMMAND_EXIT_CODES, EXIT_CODE_MEANINGS, ExitCode
from mcp_codegen_runtime.command_line import EXIT_CODES as CLI_EXIT_CODES

from .hooks import DOCS, HOOKS, render_docs_page


def test_every_page_renders_and_no_marker_is_left() -> None:
    pages = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    rendered = {page: render_docs_page(page) for page in pages}
    assert not [page for page, text in rendered.items() if HOOKS.MARKER.search(text)]
    # the three reference pages do ask for their tables
    assert sum("<!-- table:" in (DOCS / page).read_text(encoding="utf-8") for page in pages) >= 3


def test_an_unknown_table_fails_the_build() -> None:
    with pytest.raises(KeyError, match="exit-kodes"):
        HOOKS.render_tables("text\n<!-- table: exit-kodes -->\n")


def test_the_exit_code_page_lists_every_code_of_every_command() -> None:
    page = render_docs_page("reference/exit-codes.md")
    main = set(re.findall(r"^\| (\d+) \| ", page, re.MULTILINE))
    assert main == {str(int(code)) for code in ExitCode}
    per_command = set(re.findall(r"^\| `([a-z, ]+)` \| (\d+) \| ", page, re.MULTILINE))
    assert per_command == {(command, str(code)) for command, codes in COMMAND_EXIT_CODES.items() for code in codes}
    # the generated command line's codes, in their own section
    cli_section = page.split("## A generated package's command line", 1)[1]
    assert set(re.findall(r"^\| (\d+) \| ", cli_section, re.MULTILINE)) == {str(code) for code in CLI_EXIT_CODES}
    # a meaning with a `|` in it stays in its cell
    assert all(meaning.replace("|", "\\|") in page for meaning in EXIT_CODE_MEANINGS.values())


def test_the_drift_rules_page_lists_every_rule() -> None:
    page = render_docs_page("reference/drift-rules.md")
    assert set(re.findall(r"^\| `([^`]+)` \|", page, re.MULTILINE)) == set(RULES)
