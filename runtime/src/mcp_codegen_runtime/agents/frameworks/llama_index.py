"""LlamaIndex: an agent tool as a `FunctionTool` (llama-index-core imported on first use).

`fn_schema` is the tool's generated arguments model, and the parameters the LLM sees are the
server's exact input schema (LlamaIndex would otherwise derive them from the model). The tool
is async (`async_fn`), and also sync for a blocking `Client`'s tools. A result is the text, or,
with media, LlamaIndex content blocks (`TextBlock`, `ImageBlock`, `AudioBlock`); failures raise,
which LlamaIndex's agents hand the model as an error output.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...calls.specs import copy_json
from ..imports import require

if TYPE_CHECKING:
    from ..output import ToolOutput
    from ..tool import AgentTool

__all__ = ["function_tool"]

_METADATA: list[Any] = []


def _metadata_class() -> Any:
    """A `ToolMetadata` whose parameters are a given JSON Schema, defined once LlamaIndex is imported."""
    if _METADATA:
        return _METADATA[0]
    tools = require("llama_index.core.tools", "to_llama_index()")

    @dataclass
    class SchemaToolMetadata(tools.ToolMetadata):  # type: ignore[misc,name-defined]
        parameters: dict[str, Any] = field(default_factory=dict[str, Any])

        def get_parameters_dict(self) -> dict[str, Any]:
            return copy_json(self.parameters)

    _METADATA.append(SchemaToolMetadata)
    return SchemaToolMetadata


def _result(output: ToolOutput) -> Any:
    if output.is_error:
        raise RuntimeError(output.text or "the tool failed")
    if not output.has_media:
        return output.text
    types = require("llama_index.core.base.llms.types", "to_llama_index()")
    blocks: list[Any] = []
    for part in output.parts:
        if part.kind == "image":
            data = base64.b64decode(part.data)
            blocks.append(types.ImageBlock(image=data, image_mimetype=part.mime_type))
        elif part.kind == "audio":
            data = base64.b64decode(part.data)
            audio_format = part.mime_type.partition("/")[2] or None
            blocks.append(types.AudioBlock(audio=data, format=audio_format))
        elif part.text:
            blocks.append(types.TextBlock(text=part.text))
    return blocks


def function_tool(tool: AgentTool) -> Any:
    """A LlamaIndex `FunctionTool` for `tool` (see the module docstring)."""
    tools = require("llama_index.core.tools", "to_llama_index()")
    metadata_class = _metadata_class()
    tool.ensure_bound()

    async def async_fn(**kwargs: Any) -> Any:
        return _result(await tool.run(kwargs, framework="llama_index"))

    def blocking(**kwargs: Any) -> Any:
        return _result(tool.run_sync(kwargs, framework="llama_index"))

    metadata = metadata_class(
        description=tool.description or tool.name,
        name=tool.name,
        fn_schema=tool.arguments_model,
        parameters=tool.parameters_view(),
    )
    return tools.FunctionTool(
        fn=blocking if tool.sync_client is not None else None,
        async_fn=async_fn,
        metadata=metadata,
    )
