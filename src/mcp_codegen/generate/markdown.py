"""The README's Markdown: server text escaped, and the argument models' sections, each kept in the cache.

A large server's README lists thousands of argument-model fields (ms-365: 1,555 models, 8,143 fields, ~25 ms
to write). A model's section depends only on its tool's models, which are named by a hash of what they are
made from (`ModelsOutput.sources`): the sections are kept under that hash and the model's name
(`readme-models/`, one entry per server), so a regeneration writes only the changed tools' sections.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from mcp_codegen.generate import ir
from mcp_codegen.generate.cache import ServerResults
from mcp_codegen.generate.method_source import DEFAULT_LIMIT
from mcp_codegen.generate.models import ModelsOutput
from mcp_codegen_runtime.text import shortened

__all__ = ["argument_model_sections", "md_code", "md_text", "model_field_md"]


def model_field_md(field: ir.ModelField) -> str:
    """One README list item: `name: type = default` (the declaration), the wire name if other, the description."""
    declaration = f"{field.python_name}: {field.type_source}"
    if field.default is not None:
        declaration += f" = {shortened(field.default, DEFAULT_LIMIT, '...')}"
    parts = [f"`{md_code(declaration)}`"]
    if field.required:
        parts.append("(required)")
    if field.wire_name != field.python_name:
        parts.append(f"(wire name `{md_code(field.wire_name)}`)")
    line = " ".join(parts)
    return f"{line}: {md_text(field.description)}" if field.description else line


def md_code(text: str) -> str:
    # Every line break str.splitlines knows (\r, \x85, \u2028...): some renderer ends a line at each.
    return " ".join(text.replace("`", "'").splitlines())


#: What makes a line start a heading, list, table, rule or code fence in Markdown: escaped when text starts with it.
_MD_BLOCK_START = re.compile(r"^(?:[#*+=|`~_-]|\d+(?=[.)]))")


def md_text(text: str) -> str:
    # Markdown is documentation, not code, but keep it to one tidy paragraph without raw HTML; text may start a
    # line of the README, so a leading block marker (`# x` would be a heading) is escaped.
    # str.split() also splits at every line break str.splitlines knows.
    flat = " ".join(text.split())
    if "<" in flat or ">" in flat:  # (a README lists thousands of fields: no regex when there is nothing to escape)
        flat = flat.replace("<", "&lt;").replace(">", "&gt;")
    marker = _MD_BLOCK_START.match(flat)
    if marker is None:
        return flat
    end = marker.end()
    return flat[:end] + "\\" + flat[end:] if marker.group()[0].isdigit() else "\\" + flat


def _section(model: ir.Model) -> str:
    return f"\n### `{model.name}`\n" + "".join(f"- {model_field_md(field)}\n" for field in model.fields)


def argument_model_sections(
    models: Sequence[ir.Model], made_from: ModelsOutput, tools: Sequence[ir.Tool], server: str
) -> list[str]:
    """Each model's README section (a heading, a line per field), from the cache of `server` where it holds one
    under the hash its tool's models are made from (`made_from.sources`)."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    store = ServerResults.open("readme-models", generator_fingerprint(), server, _valid) if server else None
    wire_names = {tool.python_name: tool.wire_name for tool in tools}  # a tool's models module is its Python name
    sections = []
    for model in models:
        source = made_from.sources.get(wire_names.get(model.module, ""), "")
        key = hashlib.sha256(f"{source}\0{model.module}\0{model.name}".encode()).hexdigest() if source else ""
        entry = store.get(key) if store is not None and key else None
        text = entry["text"] if entry is not None else _section(model)
        if store is not None and key:
            store.use(key, entry or {"text": text}, made=entry is None)
        sections.append(text)
    if store is not None:
        store.close()
    return sections


def _valid(entry: dict[str, Any]) -> bool:
    return isinstance(entry["text"], str)
