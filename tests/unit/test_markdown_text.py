"""Server text in the generated README stays one paragraph: it can never start a heading, list, table or fence."""

from __future__ import annotations

import pytest

from mcp_codegen.generate.markdown import md_text as _md_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# type: ignore\nx", "\\# type: ignore x"),
        ("- item", "\\- item"),
        ("* item", "\\* item"),
        ("| a | b |", "\\| a | b |"),
        ("```python", "\\```python"),
        ("1. first", "1\\. first"),
        ("12) first", "12\\) first"),
        ("<script>", "&lt;script&gt;"),
        ("Plain text, 1. not at the start", "Plain text, 1. not at the start"),
        ("2026 was a year", "2026 was a year"),
    ],
)
def test_text_cannot_start_a_markdown_block(text: str, expected: str) -> None:
    assert _md_text(text) == expected
