"""Resources and prompts as agent tools (opt-in: `client.tools(resources=True, prompts=True)`).

`ExtraSpec` stands where a `ToolSpec` stands in an `AgentTool` (same attributes), so every
converter applies unchanged; what it runs is a resource or prompt request, not `tools/call`:

* `list_resources`: the server's resources and resource templates, listed now, as JSON;
* `read_resource`: one resource by URI: its text (with URI and MIME type), images and audio as
  media;
* one `read_<template>` per resource template: its variables as (string) parameters;
* one `prompt_<prompt>` per prompt: its arguments as (string) parameters; the rendered messages
  come back as JSON (`{"description", "messages": [{"role", "content"}]}`), media as media too.

All are read-only (`readOnlyHint`). These calls go to the client's `read_resource`,
`get_prompt`, `list_resources` and `list_resource_templates`, not through `on_call` hooks.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..calls.uri import uri_template_expressions
from .output import ContentPart, ToolOutput, resource_parts

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..calls.specs import PromptSpec, TemplateSpec

__all__ = ["ExtraSpec", "extra_specs"]

_JsonObject = dict[str, Any]
#: (client, arguments, timeout) -> (the typed result, what the model gets)
Invoke = Callable[
    [Any, Mapping[str, Any], "float | None"], Awaitable[tuple[Any, ToolOutput]]
]


class ExtraSpec:
    """A resource or prompt request shaped like a `ToolSpec` (see the module docstring)."""

    __slots__ = (
        "_model",
        "description",
        "input_schema_data",
        "invoke",
        "name",
        "python_name",
        "title",
    )

    output_schema: None = None
    result_model: None = None
    unwrap_result = False

    def __init__(
        self,
        *,
        name: str,
        description: str,
        input_schema: _JsonObject,
        invoke: Invoke,
        title: str | None = None,
    ) -> None:
        self.name = name
        self.python_name = name
        self.description = description
        self.title = title
        self.input_schema_data = input_schema
        self.invoke = invoke
        self._model: type[BaseModel] | None = None

    @property
    def input_schema(self) -> _JsonObject:
        return json.loads(json.dumps(self.input_schema_data))  # type: ignore[no-any-return]

    def input_schema_view(self) -> _JsonObject:
        return self.input_schema_data

    def output_schema_view(self) -> None:
        return None

    @property
    def annotations(self) -> _JsonObject:
        return {"readOnlyHint": True, "openWorldHint": False}

    @property
    def arguments_model(self) -> type[BaseModel]:
        """A pydantic model of the (string) parameters, made on first use."""
        model = self._model
        if model is None:
            from pydantic import create_model

            properties: _JsonObject = self.input_schema_data.get("properties", {})
            required = set(self.input_schema_data.get("required", []))
            fields: dict[str, Any] = {
                key: (str, ...) if key in required else (str | None, None)
                for key in properties
            }
            model = self._model = create_model(
                f"{self.name.title().replace('_', '')}Arguments", **fields
            )
        return model

    def __repr__(self) -> str:
        return f"ExtraSpec(name={self.name!r})"


def _schema(properties: Mapping[str, str], required: Iterable[str]) -> _JsonObject:
    schema: _JsonObject = {
        "type": "object",
        "properties": {
            key: {"type": "string", "description": text} if text else {"type": "string"}
            for key, text in properties.items()
        },
    }
    needed = [key for key in required if key in properties]
    if needed:
        schema["required"] = needed
    return schema


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _read_output(result: Any) -> ToolOutput:
    parts: list[ContentPart] = []
    for item in result.raw.contents:
        parts.extend(resource_parts(item))
    return ToolOutput(parts)


async def _list(
    client: Any, arguments: Mapping[str, Any], timeout: float | None
) -> tuple[Any, ToolOutput]:
    resources = await client.list_resources()
    templates = await client.list_resource_templates()
    dump = {
        "resources": [
            item.model_dump(by_alias=True, exclude_none=True, mode="json")
            for item in resources
        ],
        "resourceTemplates": [
            item.model_dump(by_alias=True, exclude_none=True, mode="json")
            for item in templates
        ],
    }
    typed = {"resources": resources, "resource_templates": templates}
    return typed, ToolOutput([ContentPart("text", text=_json(dump))], structured=dump)


async def _read(
    client: Any, arguments: Mapping[str, Any], timeout: float | None
) -> tuple[Any, ToolOutput]:
    uri = arguments.get("uri")
    if not isinstance(uri, str) or not uri:
        raise ValueError("read_resource needs a 'uri' (a string)")
    result = await client.read_resource(uri, timeout=timeout)
    return result, _read_output(result)


def _template_invoke(spec: TemplateSpec) -> Invoke:
    async def invoke(
        client: Any, arguments: Mapping[str, Any], timeout: float | None
    ) -> tuple[Any, ToolOutput]:
        result = await client._read_template(spec, arguments, timeout=timeout)
        return result, _read_output(result)

    return invoke


def _prompt_output(result: Any) -> ToolOutput:
    media: list[ContentPart] = []
    messages: list[_JsonObject] = []
    for message in result.raw.messages:
        block = message.content
        content: object
        if block.type == "text":
            content = block.text
        elif block.type in ("image", "audio"):
            part = ContentPart(block.type, data=block.data, mime_type=block.mime_type)
            media.append(part)
            content = {
                "type": block.type,
                "mimeType": block.mime_type,
                "note": part.placeholder,
            }
        else:
            content = block.model_dump(by_alias=True, exclude_none=True, mode="json")
        messages.append({"role": message.role, "content": content})
    structured: _JsonObject = {"messages": messages}
    if result.raw.description:
        structured = {"description": result.raw.description, **structured}
    return ToolOutput(
        [ContentPart("text", text=_json(structured)), *media], structured=structured
    )


def _prompt_invoke(spec: PromptSpec) -> Invoke:
    async def invoke(
        client: Any, arguments: Mapping[str, Any], timeout: float | None
    ) -> tuple[Any, ToolOutput]:
        result = await client._get_prompt(spec, arguments, timeout=timeout)
        return result, _prompt_output(result)

    return invoke


def _template_variables(spec: TemplateSpec) -> tuple[dict[str, str], list[str]]:
    """The template's variables (wire names) with descriptions, and the required ones.

    Path-style variables are required; those of query expressions (`{?x}`, `{&x}`) are optional.
    """
    optional = {
        variable.name
        for expression in uri_template_expressions(spec.uri_template)
        if expression.operator in ("?", "&")
        for variable in expression.variables
    }
    variables = {
        wire: f"The {{{wire}}} part of {spec.uri_template}"
        for wire, _ in spec.variables
    }
    return variables, [wire for wire in variables if wire not in optional]


def _prompt_arguments(spec: PromptSpec) -> tuple[dict[str, str], list[str]]:
    listing = spec.snapshot.prompt(spec.name) if spec.snapshot is not None else None
    listed: object = (listing or {}).get("arguments")
    described: dict[str, str] = {}
    for item in cast("list[object]", listed) if isinstance(listed, list) else []:
        if isinstance(item, dict):
            entry = cast("_JsonObject", item)
            name, text = entry.get("name"), entry.get("description")
            if isinstance(name, str):
                described[name] = text if isinstance(text, str) else ""
    arguments = {wire: described.get(wire, "") for wire, _, _ in spec.arguments}
    return arguments, [wire for wire, _, needed in spec.arguments if needed]


def extra_specs(
    *,
    templates: Iterable[TemplateSpec] = (),
    prompts: Iterable[PromptSpec] = (),
    resources: bool = False,
    with_prompts: bool = False,
) -> list[ExtraSpec]:
    """The resource tools (`resources`) and prompt tools (`with_prompts`) for these specs."""
    found: list[ExtraSpec] = []
    if resources:
        found.append(
            ExtraSpec(
                name="list_resources",
                description=(
                    "List the server's resources (URI, name, MIME type, description) and resource "
                    "templates, as JSON. Read one with read_resource."
                ),
                input_schema=_schema({}, ()),
                invoke=_list,
            )
        )
        found.append(
            ExtraSpec(
                name="read_resource",
                description=(
                    "Read one of the server's resources by its URI: its text, or its image or audio."
                ),
                input_schema=_schema(
                    {"uri": "The resource's URI (see list_resources)."}, ["uri"]
                ),
                invoke=_read,
            )
        )
        for template in templates:
            variables, required = _template_variables(template)
            about = (
                template.description or f"Read a resource of {template.uri_template}."
            )
            found.append(
                ExtraSpec(
                    name=f"read_{template.python_name}",
                    description=f"{about}\n\nReads the resource {template.uri_template}.",
                    input_schema=_schema(variables, required),
                    invoke=_template_invoke(template),
                    title=template.name,
                )
            )
    if with_prompts:
        for prompt in prompts:
            arguments, required = _prompt_arguments(prompt)
            about = prompt.description or f"The prompt {prompt.name}."
            found.append(
                ExtraSpec(
                    name=f"prompt_{prompt.python_name}",
                    description=f"{about}\n\nReturns the prompt's messages as JSON.",
                    input_schema=_schema(arguments, required),
                    invoke=_prompt_invoke(prompt),
                    title=prompt.title,
                )
            )
    return found
