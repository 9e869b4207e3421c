"""`search_tools` and `call_tool`: a large tool set offered to a model as two tools (`tools(search=True)`).

The model first asks `search_tools(query)` for the best matches (their names, descriptions and input
schemas, as JSON), then runs one with `call_tool(name, arguments)`. Both are `ExtraSpec`s, so every
converter (`to_openai()`, `to_anthropic()`, LangChain, pydantic-ai, ...) and every `handle_*` method
serves them unchanged. `call_tool` runs the named tool of the same set exactly as its own agent tool
would (`AgentTool.run`: its arguments checked against its schema, the same retries and safety rules,
failures returned to the model), so a tool the set leaves out cannot be called through it either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

from .extras import ExtraSpec, Invoke
from .output import ContentPart, ToolOutput

if TYPE_CHECKING:
    from .search import Embed
    from .toolset import ToolSet

__all__ = ["meta_specs"]

_JsonObject = dict[str, Any]
#: The most matches one search may return (the model may ask for fewer).
MAX_LIMIT = 20


class SearchToolsArguments(BaseModel):
    query: str = Field(description="What you want to do, in plain words.")
    limit: int | None = Field(
        default=None, description=f"How many tools to return (1 to {MAX_LIMIT})."
    )


class CallToolArguments(BaseModel):
    name: str = Field(description="The tool's name, as search_tools gave it.")
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        description="The tool's arguments, matching its input schema.",
    )


class MetaSpec(ExtraSpec):
    """An `ExtraSpec` with its own arguments model and annotations."""

    __slots__ = ("_annotations", "_arguments")

    def __init__(
        self,
        *,
        name: str,
        description: str,
        arguments: type[BaseModel],
        annotations: _JsonObject,
        invoke: Invoke,
    ) -> None:
        schema = arguments.model_json_schema()
        schema.pop("title", None)
        for value in schema.get("properties", {}).values():
            value.pop("title", None)
        super().__init__(
            name=name, description=description, input_schema=schema, invoke=invoke
        )
        self._arguments = arguments
        self._annotations = annotations

    @property
    def annotations(self) -> _JsonObject:
        return dict(self._annotations)

    @property
    def arguments_model(self) -> type[BaseModel]:
        return self._arguments


def _definition(tool: Any) -> _JsonObject:
    found: _JsonObject = {"name": tool.name}
    if tool.description:
        found["description"] = tool.description
    found["input_schema"] = tool.parameters_view()
    return found


def meta_specs(
    toolset: ToolSet,
    *,
    limit: int = 5,
    embed: Embed | None = None,
    semantic: bool = False,
) -> list[ExtraSpec]:
    """The `search_tools` and `call_tool` specs over `toolset` (`limit` matches by default;
    `semantic`/`embed` rank them as `ToolSet.search` does)."""

    async def search(
        client: Any, arguments: Mapping[str, Any], timeout: float | None
    ) -> tuple[Any, ToolOutput]:
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ValueError("search_tools needs a 'query' (a non-empty string)")
        wanted = arguments.get("limit")
        count = wanted if isinstance(wanted, int) and wanted > 0 else limit
        found = toolset.search(
            query, limit=min(count, MAX_LIMIT), embed=embed, semantic=semantic
        )
        listed = [_definition(tool) for tool in found]
        text = (
            json.dumps(listed, ensure_ascii=False)
            if listed
            else (
                "No tool matches. Try other words: what the tool does, or the kind of thing it acts on."
            )
        )
        return found, ToolOutput(
            [ContentPart("text", text=text)], structured={"tools": listed}
        )

    async def call(
        client: Any, arguments: Mapping[str, Any], timeout: float | None
    ) -> tuple[Any, ToolOutput]:
        name = arguments.get("name")
        values: object = arguments.get("arguments")
        if not isinstance(name, str) or not name:
            raise ValueError("call_tool needs a 'name' (a string)")
        if values is not None and not isinstance(values, dict):
            raise ValueError("call_tool's 'arguments' must be a JSON object")
        target = toolset.find(name)
        if target is None:
            return None, ToolOutput.failure(
                f"unknown tool {name!r}: use search_tools to find a tool's exact name"
            )
        given = cast("dict[str, Any] | None", values)
        # A bound target runs on its own client (a toolkit's tools belong to several); an unbound
        # set's tools run on the client this pair was bound to.
        runner = target if target.client is not None else target.bind(client)
        output = await runner.run(given, timeout=timeout)
        return output, output

    return [
        MetaSpec(
            name="search_tools",
            description=(
                f"Find the tools for a task among {len(toolset)} tools: returns the best matches' "
                "names, descriptions and input schemas as JSON. Then run one with call_tool."
            ),
            arguments=SearchToolsArguments,
            annotations={"readOnlyHint": True, "openWorldHint": False},
            invoke=search,
        ),
        MetaSpec(
            name="call_tool",
            description=(
                "Run a tool found with search_tools: its exact name, and its arguments as an "
                "object matching its input schema."
            ),
            arguments=CallToolArguments,
            annotations={"openWorldHint": True},
            invoke=call,
        ),
    ]
