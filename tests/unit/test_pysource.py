"""Server text in generated source can only ever be data."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_codegen.generate.pysource import comment_text, docstring, docstring_text, string_literal

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


def _docstring_text_reference(value: str) -> str:
    """The character-by-character definition `docstring_text` must keep matching (it takes a faster path)."""
    escapes = {"\\": "\\\\", "\t": "\\t", "\r": "\\r"}
    out: list[str] = []
    text = value.replace("\r\n", "\n")
    for index, char in enumerate(text):
        if char == '"':
            touching = (index > 0 and text[index - 1] == '"') or (index + 1 < len(text) and text[index + 1] == '"')
            out.append('\\"' if touching or index == len(text) - 1 else char)
        elif char in escapes:
            out.append(escapes[char])
        elif char == "\n" or char.isprintable():
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    lines = [line.rstrip() for line in "".join(out).split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('"\\\t\r\n\x00\u2028 ab\u00e9')) | st.characters(), max_size=40))
def test_docstring_text_matches_its_character_by_character_definition(text: str) -> None:
    assert docstring_text(text) == _docstring_text_reference(text)


@pytest.mark.parametrize("text", [*HOSTILE, '"', '""', 'a"', 'a""', '"a"', '\\"', '"\\', '\x00"', 'x""y"'])
def test_docstring_text_on_hostile_text(text: str) -> None:
    assert docstring_text(text) == _docstring_text_reference(text)
