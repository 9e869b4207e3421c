"""What a fake's handlers reply (models, values, text, bytes, content blocks) made into MCP results."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

import mcp_types as types
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..calls.results import ToolResult
from ..calls.specs import ToolSpec

__all__ = [
    "answer_empty",
    "answer_no_completion",
    "error_result",
    "prompt_result",
    "resource_result",
    "result_text",
    "structured_result",
    "text_content",
    "tool_result",
]

_JsonObject = dict[str, Any]


def text_content(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def error_result(
    message: str, structured: Mapping[str, Any] | None = None
) -> types.CallToolResult:
    return types.CallToolResult(
        content=[text_content(message)],
        structured_content=dict(structured) if structured is not None else None,
        is_error=True,
    )


_CONTENT_TYPES = (
    types.TextContent,
    types.ImageContent,
    types.AudioContent,
    types.ResourceLink,
    types.EmbeddedResource,
)


def structured_result(structured: Any) -> types.CallToolResult:
    return types.CallToolResult(
        content=[text_content(json.dumps(structured, ensure_ascii=False))],
        structured_content=structured,
    )


def tool_result(
    tool: Mapping[str, Any], spec: ToolSpec[Any, Any] | None, value: Any
) -> types.CallToolResult:
    """A tool handler's reply as the `CallToolResult` the listed tool's schema calls for."""
    if isinstance(value, types.CallToolResult):
        return value
    if isinstance(value, ToolResult):
        return value.raw
    if isinstance(value, _CONTENT_TYPES):
        return types.CallToolResult(content=[value])
    has_output = isinstance(tool.get("outputSchema"), dict)
    wrap = spec.unwrap_result if spec is not None else _wraps_result(tool)
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(item, _CONTENT_TYPES) for item in cast("list[Any]", value))
    ):
        return types.CallToolResult(content=list(cast("list[Any]", value)))
    if not has_output:
        if isinstance(value, str):
            return types.CallToolResult(content=[text_content(value)])
        if value is None:
            return types.CallToolResult(content=[])
        return types.CallToolResult(
            content=[text_content(json.dumps(_jsonable(value), ensure_ascii=False))]
        )
    if (
        wrap
        and not (
            isinstance(value, dict) and set(cast("_JsonObject", value)) == {"result"}
        )
        and not _is_result_model(value, spec)
    ):
        return structured_result({"result": _jsonable(value)})
    structured = _jsonable(value)
    if not isinstance(structured, dict):
        structured = {"result": structured}
    return structured_result(structured)


# ------------------------------------------------------------------ resources


async def answer_empty(ctx: Any, params: Any) -> types.EmptyResult:
    return types.EmptyResult()


async def answer_no_completion(ctx: Any, params: Any) -> types.CompleteResult:
    return types.CompleteResult(completion=types.Completion(values=[]))


def result_text(result: types.CallToolResult) -> str:
    return "\n".join(
        block.text for block in result.content if isinstance(block, types.TextContent)
    )


def _jsonable(value: Any) -> Any:
    return to_jsonable_python(value, by_alias=True, exclude_none=True)


def _wraps_result(tool: Mapping[str, Any]) -> bool:
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict):
        return False
    schema = cast("_JsonObject", schema)
    properties = schema.get("properties")
    required = schema.get("required")
    return (
        isinstance(properties, dict)
        and list(cast("_JsonObject", properties)) == ["result"]
        and required == ["result"]
    )


def _is_result_model(value: Any, spec: ToolSpec[Any, Any] | None) -> bool:
    if spec is None or not isinstance(value, BaseModel):
        return False
    model = spec.result_model
    return model is not None and isinstance(value, model)


def resource_result(
    uri: str, mime_type: str | None, value: Any
) -> types.ReadResourceResult:
    if isinstance(value, types.ReadResourceResult):
        return value
    contents: list[types.TextResourceContents | types.BlobResourceContents]
    if isinstance(value, types.TextResourceContents | types.BlobResourceContents):
        contents = [value]
    elif isinstance(value, bytes):
        import base64

        contents = [
            types.BlobResourceContents(
                uri=uri,
                mime_type=mime_type,
                blob=base64.b64encode(value).decode("ascii"),
            )
        ]
    elif isinstance(value, str):
        contents = [
            types.TextResourceContents(uri=uri, mime_type=mime_type, text=value)
        ]
    elif isinstance(value, list | tuple):
        contents = list(cast("list[Any]", value))
    else:
        contents = [
            types.TextResourceContents(
                uri=uri,
                mime_type=mime_type or "application/json",
                text=json.dumps(_jsonable(value), ensure_ascii=False),
            )
        ]
    return types.ReadResourceResult(contents=contents)


def prompt_result(value: Any, description: str | None) -> types.GetPromptResult:
    if isinstance(value, types.GetPromptResult):
        return value
    items: list[Any] = (
        list(cast("list[Any]", value)) if isinstance(value, list | tuple) else [value]
    )
    messages = [
        (
            item
            if isinstance(item, types.PromptMessage)
            else types.PromptMessage(role="user", content=text_content(str(item)))
        )
        for item in items
    ]
    return types.GetPromptResult(description=description, messages=messages)
