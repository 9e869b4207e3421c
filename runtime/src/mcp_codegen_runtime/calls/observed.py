"""Results typed from recorded answers (`generate --results-from`): the model base class, and parsing a result.

A tool that declares no output schema but answered JSON in the recordings it was generated with gets a result
model whose class extends `ObservedResult`. Its typed method parses each live result into it: the structured
content, or else the result's one text block read as JSON (an array is held as `.items`). The whole result
is kept (`.tool_result`). A result that does not fit raises `ObservedResultError` with the raw result: the
server's answers changed shape since they were recorded.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TypeVar, cast

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from .errors import ObservedResultError
from .results import ToolResult

if TYPE_CHECKING:
    from mcp_types import CallToolResult

__all__ = ["ObservedResult", "observed_result"]

ModelT = TypeVar("ModelT", bound="ObservedResult")


class ObservedResult(BaseModel):
    """The base of a result model made from recorded answers; `.tool_result` is the whole result received.

    Unknown keys are kept (`model_extra`), as the recordings may not have shown every field.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    _tool_result: ToolResult | None = PrivateAttr(default=None)

    @property
    def tool_result(self) -> ToolResult:
        """The result as the server sent it (content blocks, structured content; `.raw` the SDK's)."""
        if self._tool_result is None:
            raise AttributeError("this result was not received from a server")
        return self._tool_result


def _json_answer(raw: CallToolResult) -> dict[str, object] | list[object] | None:
    """The JSON a result carries: its structured content, else its one text block parsed (None if neither)."""
    if raw.structured_content is not None:
        return cast("dict[str, object]", raw.structured_content)
    if len(raw.content) != 1 or raw.content[0].type != "text":
        return None
    try:
        value = cast(object, json.loads(raw.content[0].text))
    except ValueError:
        return None
    return (
        value if isinstance(value, (dict, list)) else None
    )  # pyright: ignore[reportUnknownVariableType]


def observed_result(model: type[ModelT], raw: CallToolResult, *, tool: str) -> ModelT:
    """`raw` parsed into `model`, with the whole result kept; `ObservedResultError` when it does not fit."""
    value = _json_answer(raw)
    result = ToolResult(raw)
    if value is None:
        raise ObservedResultError(
            [],
            tool=tool,
            result=result,
            reason="the result holds no JSON (no structured content, nor one text block of a JSON object or array)",
        )
    data = {"items": value} if isinstance(value, list) else value
    try:
        parsed = model.model_validate(data)
    except ValidationError as error:
        raise ObservedResultError(
            error.errors(include_url=False), tool=tool, result=result
        ) from None
    parsed._tool_result = result  # pyright: ignore[reportPrivateUsage]
    return parsed
