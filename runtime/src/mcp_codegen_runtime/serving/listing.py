"""What a fake serves from its snapshot: the listings indexed and paged, and requests checked against them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import Any, cast

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..calls.specs import SnapshotData

__all__ = [
    "IDENTITY",
    "LIST_METHODS",
    "RESOURCE_NOT_FOUND",
    "ArgumentChecks",
    "index_items",
    "load_snapshot",
    "missing_prompt_arguments",
    "page_of",
]

_JsonObject = dict[str, Any]

#: method -> (snapshot key, capability)
LIST_METHODS: dict[str, tuple[str, str]] = {
    "tools/list": ("tools", "tools"),
    "resources/list": ("resources", "resources"),
    "resources/templates/list": ("resourceTemplates", "resources"),
    "prompts/list": ("prompts", "prompts"),
}
#: snapshot key -> the key that names an item
IDENTITY = {
    "tools": "name",
    "resources": "uri",
    "resourceTemplates": "uriTemplate",
    "prompts": "name",
}
#: JSON-RPC code for an unknown resource (MCP spec).
RESOURCE_NOT_FOUND = -32002


def load_snapshot(
    source: SnapshotData | Mapping[str, Any] | str | os.PathLike[str],
) -> _JsonObject:
    """The snapshot's wire dict, from a package's `SnapshotData`, a mapping or a path."""
    if isinstance(source, SnapshotData):
        return source.data
    if isinstance(source, Mapping):
        return dict(source)
    return SnapshotData(Path(source)).data


def index_items(data: Mapping[str, Any], key: str) -> dict[str, _JsonObject]:
    """The items listed under `key`, by their identity (the first of duplicates wins)."""
    identity = IDENTITY[key]
    found: dict[str, _JsonObject] = {}
    items = data.get(key)
    if isinstance(items, list):
        for item in cast("list[object]", items):
            if isinstance(item, dict):
                name = cast("_JsonObject", item).get(identity)
                if isinstance(name, str):
                    found.setdefault(name, cast("_JsonObject", item))
    return found


def page_of(
    key: str, items: list[_JsonObject], cursor: str | None, page_size: int | None
) -> _JsonObject:
    """One page of a listing; the cursor is the index of the page's first item."""
    start = 0
    if cursor is not None:
        if not cursor.isdigit() or int(cursor) > len(items):
            raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor")
        start = int(cursor)
    end = len(items) if page_size is None else start + page_size
    page: _JsonObject = {key: items[start:end]}
    if end < len(items):
        page["nextCursor"] = str(end)
    return page


class ArgumentChecks:
    """Tool arguments checked against the listed input schema with `jsonschema`, as real servers do."""

    __slots__ = ("_validators",)

    def __init__(self) -> None:
        self._validators: dict[str, Any] = {}

    def forget(self, name: str) -> None:
        """Drop the validator of a tool whose listing changed."""
        self._validators.pop(name, None)

    def _validator(self, name: str, tool: Mapping[str, Any]) -> Any:
        validator = self._validators.get(name)
        if validator is None:
            jsonschema = import_module("jsonschema")
            listed = tool.get("inputSchema")
            schema = cast("_JsonObject", listed) if isinstance(listed, dict) else {}
            try:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                validator = cls(schema)
            except (
                Exception
            ):  # an off-spec schema: the real server could not check it either
                validator = False
            self._validators[name] = validator
        return validator

    def problem(self, name: str, tool: Mapping[str, Any], arguments: Any) -> str | None:
        """Why `arguments` do not fit the tool's input schema, or None."""
        validator = self._validator(name, tool)
        if validator is False:
            return None
        error = next(iter(validator.iter_errors(arguments)), None)
        if error is None:
            return None
        best = (
            import_module("jsonschema.exceptions").best_match(
                validator.iter_errors(arguments)
            )
            or error
        )
        where = "/".join(str(part) for part in best.absolute_path)
        return f"Input validation error: {best.message}" + (
            f" (at {where})" if where else ""
        )


def missing_prompt_arguments(
    prompt: Mapping[str, Any], arguments: Mapping[str, Any]
) -> list[str]:
    """The prompt's required arguments that `arguments` lack."""
    declared = prompt.get("arguments")
    declared_list = (
        [
            cast("_JsonObject", a)
            for a in cast("list[object]", declared)
            if isinstance(a, dict)
        ]
        if isinstance(declared, list)
        else []
    )
    return [
        str(a["name"])
        for a in declared_list
        if a.get("required") and a.get("name") not in arguments
    ]
