"""Turning untrusted server text into Python source that can only ever be data.

Every string a server sent reaches generated code through one of these functions: as a string
literal (`repr`, which escapes quotes, backslashes, newlines and every non-printable character),
inside a docstring (escaped so it cannot close the docstring or hide a line break), or inside a
comment (JSON-escaped to ASCII on one line); a generated `pyproject.toml` gets TOML strings the same way.
The injection tests exercise them.
"""

from __future__ import annotations

import json
import re
import textwrap

_DOCSTRING_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\r": "\\r"}
_QUOTE_RUN = re.compile('"{2,}')


def string_literal(value: str) -> str:
    return repr(value)


def toml_string(value: str) -> str:
    """A TOML basic string (a generated `pyproject.toml`): TOML takes the escapes JSON writes."""
    return json.dumps(value, ensure_ascii=True)


def comment_text(value: str) -> str:
    """One line of ASCII, quoted: safe after `#`."""
    return json.dumps(value, ensure_ascii=True)


def docstring_text(value: str) -> str:
    """Text safe between triple double quotes, line breaks kept as real newlines.

    Backslashes and control characters are escaped (so nothing the server sends is interpreted as an
    escape or a line break the formatter would see differently), and a double quote is escaped
    wherever it touches another one or ends the text, so `\"\"\"` can never close the docstring.
    """
    text = value.replace("\r\n", "\n")
    if "\\" in text or not text.replace("\n", "").isprintable():  # else nothing to escape (most text)
        text = "".join(map(_escape_char, text))
    # Escaping other characters never adds or removes a quote, so quotes touch as they did in `value`.
    last_alone = text.endswith('"') and not text.endswith('""')
    text = _QUOTE_RUN.sub(lambda run: '\\"' * len(run.group()), text)
    if last_alone:
        text = text[:-1] + '\\"'
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def _escape_char(char: str) -> str:
    if char in _DOCSTRING_ESCAPES:
        return _DOCSTRING_ESCAPES[char]
    if char == "\n" or char.isprintable():
        return char
    return char.encode("unicode_escape").decode("ascii")


def docstring(value: str, indent: int) -> str:
    """A complete docstring literal, its continuation lines indented by `indent` spaces."""
    text = docstring_text(value) or "No description."
    if text.startswith(" ") or text.startswith('\\"'):
        text = text.lstrip(" ")
    pad = " " * indent
    first, *rest = text.split("\n")
    # Formatters strip the common indentation of the lines after the first (as inspect.cleandoc does);
    # doing it here keeps the formatted output the same as ours.
    lines = [first, *textwrap.dedent("\n".join(rest)).split("\n")] if rest else [first]
    if len(lines) == 1:
        body = lines[0]
        return f'"""{body}"""' if not body.endswith('"') else f'"""{body} """'
    joined = "\n".join(lines[:1] + [(pad + line) if line else "" for line in lines[1:]])
    return f'"""{joined}\n{pad}"""'
