"""Printing what the command line got: a tool's result (JSON on stdout, errors one line on stderr)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..text import one_line
from .table import EXIT_OK, EXIT_TOOL_ERROR, CommandLine

if TYPE_CHECKING:
    import mcp_types

    from ..calls.specs import ToolSpec

__all__ = ["dump", "print_blocks", "print_json", "print_result"]


def print_result(
    line: CommandLine,
    prefix: str,
    spec: ToolSpec[Any, Any] | None,
    answer: mcp_types.CallToolResult,
    raw: bool,
) -> int:
    """Print a tool's result as a call does (the structured result as JSON, else its text blocks;
    `raw`: the whole result); a result with `isError` is one line on stderr and exit code 1.
    """
    if answer.is_error:
        from ..calls.results import ToolResult

        if raw:
            print_json(dump(answer))
        text = one_line(ToolResult(answer).text, None) or "the tool reported an error"
        print(f"{prefix}: {text}", file=sys.stderr)
        return EXIT_TOOL_ERROR
    if raw:
        print_json(dump(answer))
        return EXIT_OK
    structured = answer.structured_content
    if structured is not None:
        if spec is not None and spec.unwrap_result and len(structured) == 1:
            print_json(next(iter(structured.values())))
        else:
            print_json(structured)
    else:
        print_blocks(line, answer.content)
    return EXIT_OK


def dump(model: Any) -> object:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def print_json(value: object) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def print_blocks(line: CommandLine, blocks: Sequence[Any]) -> None:
    for block in blocks:
        if block.type == "text":
            print(block.text)
        else:
            kind = getattr(block, "mime_type", None) or block.type
            print(f"{line.prog}: a {kind} block is not shown (--raw)", file=sys.stderr)
