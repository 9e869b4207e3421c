"""`generate --cli`: the command line's table of tools (command names, options, kinds) from the IR and the schemas.

The generated `__main__.py` holds this table as literals, so `python -m PKG --help` builds its parser from data
without importing models or `mcp`. Server text reaches the source only through `pysource.string_literal`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mcp_codegen.generate import ir
from mcp_codegen.generate.pysource import string_literal
from mcp_codegen_runtime.command_line.table import GROUP_COMMANDS, Choice, Command, Option
from mcp_codegen_runtime.text import one_line

#: Options every tool command has: a parameter whose option would be one of these gets `-arg` appended.
RESERVED_OPTIONS = frozenset({"--help", "--json", "--raw"})
#: Options a tool that may run as an MCP task has as well (`taskSupport` optional or required).
TASK_OPTIONS = frozenset({"--task", "--no-wait"})
_PLAIN_COMMAND = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SCALAR_KINDS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_SUMMARY_LIMIT = 100
_HELP_LIMIT = 300
_DEFAULT_LIMIT = 60


def first_line(text: str | None) -> str:
    """The first line (or sentence-ending paragraph start) of a description, for listings."""
    stripped = (text or "").strip()
    return cli_line(stripped.splitlines()[0] if stripped else "", _SUMMARY_LIMIT)


def cli_commands(tools: Sequence[ir.Tool], schemas: Mapping[str, Any]) -> tuple[Command, ...]:
    """One command per tool, in the IR's order; `schemas` maps wire names to their (raw) input schemas."""
    taken: set[str] = set(GROUP_COMMANDS)
    commands = []
    for tool in tools:
        name = _command_name(tool, taken)
        taken.add(name)
        schema = schemas.get(tool.wire_name)
        options = _options(tool, schema if isinstance(schema, dict) else {})
        summary = first_line(tool.description or tool.title)
        commands.append(Command(name, tool.wire_name, summary, options))
    return tuple(commands)


def _command_name(tool: ir.Tool, taken: set[str]) -> str:
    """The tool's command: its wire name when plain, else its Python name with dashes; `-tool` appended while the
    name is taken (by a group, `GROUP_COMMANDS`, or an earlier tool)."""
    name = tool.wire_name if _PLAIN_COMMAND.fullmatch(tool.wire_name) else tool.python_name.replace("_", "-")
    if name.startswith("-"):
        name = tool.python_name
    while name in taken or name.lower() in GROUP_COMMANDS:
        name = f"{name}-tool"
    return name


def _options(tool: ir.Tool, schema: dict[str, Any]) -> tuple[Option, ...]:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    taken: set[str] = set(RESERVED_OPTIONS)
    if tool.task_support is not None:
        taken |= TASK_OPTIONS
    options = []
    wire_names = [p.wire_name for p in tool.parameters] if not tool.permissive else list(properties)
    for wire in wire_names:
        if not isinstance(wire, str):
            continue
        parameter = next((p for p in tool.parameters if p.wire_name == wire), None)
        python = parameter.python_name if parameter is not None else re.sub(r"\W", "_", wire)
        flag = "--" + (python.strip("_") or python).replace("_", "-")
        while flag in taken:
            flag += "-arg"
        taken.add(flag)
        property_schema = _resolve(properties.get(wire), schema)
        kind, repeated, choices = _kind(property_schema, schema)
        default = property_schema.get("default", _MISSING) if isinstance(property_schema, dict) else _MISSING
        description = parameter.description if parameter is not None else None
        if description is None and isinstance(property_schema, dict):
            text = property_schema.get("description")
            description = text if isinstance(text, str) else None
        options.append(
            Option(
                wire_name=wire,
                flag=flag,
                kind=kind,
                repeated=repeated,
                required=parameter.required if parameter is not None else wire in required_names,
                help=cli_line(description, _HELP_LIMIT),
                default=None if default is _MISSING else cli_line(_json(default), _DEFAULT_LIMIT),
                choices=choices,
            )
        )
    options.sort(key=lambda option: not option.required)
    return tuple(options)


_MISSING = object()


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def _resolve(schema: object, root: Mapping[str, Any], depth: int = 0) -> object:
    """A local `$ref` (`#/$defs/X`, `#/definitions/X`) followed, a few levels deep; other schemas as they are."""
    if not isinstance(schema, dict) or depth > 8:
        return schema
    reference = schema.get("$ref")
    if not isinstance(reference, str) or not reference.startswith("#/"):
        return schema
    target: object = root
    for part in reference[2:].split("/"):
        target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        return schema
    merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return _resolve(merged, root, depth + 1)


def _without_null(schema: object, root: Mapping[str, Any]) -> object:
    """The schema with a `null` alternative removed (`["string", "null"]`, `anyOf: [X, {"type": "null"}]`)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if len(kinds) == 1:
            return {**schema, "type": kinds[0]}
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            kept = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(kept) == 1 and len(kept) < len(options):
                rest = {k: v for k, v in schema.items() if k != key}
                only = _resolve(kept[0], root)
                return _without_null({**rest, **only} if isinstance(only, dict) else rest, root)
    return schema


def _kind(schema: object, root: Mapping[str, Any]) -> tuple[str, bool, tuple[str | int | float | bool | None, ...]]:
    schema = _without_null(schema, root)
    if not isinstance(schema, dict):
        return "value", False, ()
    scalar = _scalar_kind(schema)
    if scalar is not None:
        return scalar
    if schema.get("type") == "array":
        items = _without_null(schema.get("items"), root)
        item = _scalar_kind(items) if isinstance(items, dict) else None
        if item is not None and item[0] != "bool":
            return item[0], True, item[2]
        return "json", False, ()
    kind = schema.get("type")
    accepts_text = kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)
    if kind is None and any(key in schema for key in ("properties", "items", "anyOf", "oneOf", "allOf")):
        accepts_text = _mentions_string(schema, root)
    return ("value" if accepts_text else "json"), False, ()


def _mentions_string(schema: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                resolved = _resolve(option, root)
                if isinstance(resolved, dict) and resolved.get("type") == "string":
                    return True
    return False


def _scalar_kind(schema: Mapping[str, Any]) -> tuple[str, bool, tuple[str | int | float | bool | None, ...]] | None:
    values = schema.get("enum")
    if "const" in schema and not isinstance(values, list):
        values = [schema["const"]]
    if isinstance(values, list) and values:
        if all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
            unique = tuple(dict.fromkeys(values))
            return "enum", False, unique
        return None
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _SCALAR_KINDS:
        return _SCALAR_KINDS[kind], False, ()
    return None


def table_source(commands: Sequence[Command]) -> str:
    """The `COMMANDS` table as Python source: nested tuples of constants (loaded from the bytecode cache as one
    constant, nothing to construct at import), every string through `string_literal`."""
    lines = ["("]
    for command in commands:
        lines.append(
            f"    ({string_literal(command.name)}, {string_literal(command.wire_name)}, "
            f"{string_literal(command.summary)}, ("
        )
        for option in command.options:
            choices = "".join(f"{_scalar(value)}, " for value in option.choices)
            lines.append(
                f"        ({string_literal(option.wire_name)}, {string_literal(option.flag)}, "
                f"{string_literal(option.kind)}, {option.repeated}, {option.required}, "
                f"{string_literal(option.help)}, "
                f"{'None' if option.default is None else string_literal(option.default)}, ({choices})),"
            )
        lines.append("    )),")
    lines.append(")")
    return "\n".join(lines)


def _scalar(value: Choice) -> str:
    if isinstance(value, str):
        return string_literal(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("a choice is not a finite number")
    return repr(value)


def cli_line(text: str | None, limit: int) -> str:
    """A server's text as one printable line for command-line help, cut to `limit` with ASCII "..."."""
    # ASCII "..." where the command line cuts a server's text: help goes to any terminal.
    return one_line(text, limit, "...")
