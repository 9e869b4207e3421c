"""smolagents: an agent tool as a smolagents `Tool` (imported on first use).

smolagents calls tools synchronously, so these are the tools of a blocking `Client` (an async
client's tools raise a clear error when converted). Its `inputs` format has one entry per
property (`type` among smolagents' types, `description`, `nullable` for optional ones); the
property schemas' `enum`, `format`, `items` and `properties` go along when they hold no `$ref`.
Its tool names must be Python identifiers: other characters become `_` (`ToolSet` keeps them
distinct). A result is the structured content (a dict, for a tool with an output schema), else
the text; a result that is a single image is an `AgentImage` (smolagents' native image); audio
stays a placeholder (smolagents' `AgentAudio` needs torch). Failures raise, which smolagents
shows the model as a tool error.
"""

from __future__ import annotations

import base64
import io
import keyword
import re
from typing import TYPE_CHECKING, Any, cast

from ..imports import require

if TYPE_CHECKING:
    from ..output import ToolOutput
    from ..tool import AgentTool

__all__ = ["identifier", "inputs", "smolagents_tool"]

_TYPES = frozenset(
    {"string", "boolean", "integer", "number", "array", "object", "null"}
)
_KEPT = ("enum", "format", "items", "properties")


def identifier(name: str) -> str:
    """`name` as a Python identifier (smolagents' rule for tool names)."""
    text = re.sub(r"\W", "_", name, flags=re.ASCII)
    if not text or text[0].isdigit() or keyword.iskeyword(text):
        text = f"_{text}"
    return text


def _types(schema: dict[str, Any]) -> tuple[list[str], bool]:
    """(smolagents types, nullable) of one property schema."""
    declared: object = schema.get("type")
    found: list[str] = []
    if isinstance(declared, str):
        found = [declared]
    elif isinstance(declared, list):
        found = [t for t in cast(list[object], declared) if isinstance(t, str)]
    else:
        for key in ("anyOf", "oneOf"):
            branches: object = schema.get(key)
            if isinstance(branches, list):
                for branch in cast(list[object], branches):
                    if isinstance(branch, dict):
                        kind = cast(dict[str, Any], branch).get("type")
                        if isinstance(kind, str):
                            found.append(kind)
                        else:
                            return ["any"], False
    nullable = "null" in found
    kept = [t for t in dict.fromkeys(found) if t in _TYPES and t != "null"]
    return (kept or ["any"]), nullable


def _has_ref(value: object) -> bool:
    if isinstance(value, dict):
        items = cast(dict[str, Any], value)
        return "$ref" in items or any(_has_ref(item) for item in items.values())
    if isinstance(value, list):
        return any(_has_ref(item) for item in cast("list[object]", value))
    return False


def inputs(tool: AgentTool) -> dict[str, dict[str, Any]]:
    """smolagents' `inputs` for the tool's input schema (see the module docstring)."""
    schema = tool.parameters_view()
    properties: object = schema.get("properties")
    required: object = schema.get("required")
    needed: set[str] = set()
    if isinstance(required, list):
        needed = {str(item) for item in cast("list[object]", required)}
    found: dict[str, dict[str, Any]] = {}
    if not isinstance(properties, dict):
        return found
    for name, value in cast(dict[str, Any], properties).items():
        prop = cast(dict[str, Any], value) if isinstance(value, dict) else {}
        kinds, nullable = _types(prop)
        entry: dict[str, Any] = {
            "type": kinds[0] if len(kinds) == 1 else kinds,
            "description": str(prop.get("description") or prop.get("title") or name),
        }
        for key in _KEPT:
            if key in prop and not _has_ref(prop[key]):
                entry[key] = prop[
                    key
                ]  # shared: smolagents deep-copies inputs before use
        if nullable or name not in needed:
            entry["nullable"] = True
        found[name] = entry
    return found


def _result(output: ToolOutput, structured: bool) -> Any:
    if output.is_error:
        raise RuntimeError(output.text or "the tool failed")
    value = output.structured
    if structured and isinstance(value, dict) and not output.has_media:
        return cast("dict[str, Any]", value)
    images = [part for part in output.parts if part.kind == "image"]
    if len(images) == 1 and all(
        part.kind == "image" or not part.as_text() for part in output.parts
    ):
        agent_types = require("smolagents.agent_types", "to_smolagents()")
        pil_image = require("PIL.Image", "to_smolagents()")
        data = base64.b64decode(images[0].data)
        try:
            return agent_types.AgentImage(pil_image.open(io.BytesIO(data)))
        except (OSError, ValueError):  # data Pillow cannot read: the placeholder
            return output.text
    return output.text


_CLASS: list[Any] = []


def _tool_class() -> Any:
    """The `Tool` subclass of these tools, defined once smolagents is imported."""
    if _CLASS:
        return _CLASS[0]
    smolagents = require("smolagents", "to_smolagents()")

    class McpCodegenTool(smolagents.Tool):  # type: ignore[misc,name-defined]
        """One MCP tool of a generated client, called through its typed path."""

        skip_forward_signature_validation = True

        def __init__(self, tool: AgentTool, name: str) -> None:
            self.agent_tool = tool
            self.name = name
            self.description = tool.description or tool.name
            self.inputs = inputs(tool)
            schema = tool.output_schema_view()
            self.output_type = "object" if schema is not None else "any"
            self.output_schema = schema
            super().__init__()  # pyright: ignore[reportUnknownMemberType]

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            if args and not kwargs and isinstance(args[0], dict):
                kwargs = cast(dict[str, Any], args[0])
            tool: AgentTool = self.agent_tool
            output = tool.run_sync(kwargs, framework="smolagents")
            return _result(output, self.output_schema is not None)

    _CLASS.append(McpCodegenTool)
    return McpCodegenTool


def smolagents_tool(tool: AgentTool, *, name: str | None = None) -> Any:
    """A smolagents `Tool` calling `tool` through a blocking client (see the module docstring)."""
    cls = _tool_class()
    tool.ensure_bound()
    if tool.sync_client is None:
        raise RuntimeError(
            f"to_smolagents() needs the tools of a blocking Client (smolagents calls tools "
            f"synchronously); {tool.name!r} belongs to an AsyncClient"
        )
    return cls(tool, name or identifier(tool.name))
