"""Server text in generated source can only ever be data."""

from __future__ import annotations

import ast

import pytest

from mcp_codegen.generate.pysource import comment_text, docstring, string_literal

HOSTILE = [
    'a """ b',
    'ends with quote"',
    '""""',
    "back\\slash\\",
    "nul\x00byte",
    "cr\rlf\r\n",
    "line\u2028separator\u2029paragraph",
    "{{ jinja }} {% raw %}",
    "# type: ignore",
    "'''; import os; os.system('touch /tmp/pwned') #",
    '"""; __import__("os").system("touch /tmp/pwned"); """',
    "\t tab  \n  indented\n",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_docstring_is_a_single_string_expression(text: str) -> None:
    source = f"def f():\n    {docstring(text, 4)}\n    return 1\n"
    tree = ast.parse(source)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert len(function.body) == 2
    assert isinstance(function.body[0], ast.Expr) and isinstance(function.body[0].value, ast.Constant)


@pytest.mark.parametrize("text", HOSTILE)
def test_string_literal_round_trips(text: str) -> None:
    assert ast.literal_eval(string_literal(text)) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_comment_is_one_line(text: str) -> None:
    line = "# " + comment_text(text)
    assert len(line.splitlines()) == 1
    assert ast.parse(line + "\nx = 1\n").body[0].lineno == 2
