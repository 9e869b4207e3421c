# pyright: reportPrivateUsage=false
# (agent tools are a view of the client: they call its internal, validated call path)
"""Framework-neutral agent tools, and converters to OpenAI, Anthropic, LangChain, pydantic-ai and the
OpenAI Agents SDK.

An `AgentTool` is one tool of the generated package as an agent sees it: the name the model uses
(valid for every model API, see `toolnames`), the description, the server's exact input JSON
Schema, the argument and result models and the annotations. Bound to a client it is callable:

    tools = client.tools()                          # a ToolSet, bound to the client
    await tools["get_weather"](city="Paris")        # the typed result, like client.get_weather()
    out = await tools["get_weather"].run({"city": "Paris"})   # what a model gets: a ToolOutput

Unbound (`AgentTool(TOOLS["get_weather"])`, `ToolSet.from_specs(TOOLS.values())`) it only makes
definitions; `tool.bind(client)` binds it.

Definitions carry the server's original JSON Schema. `to_openai(strict=True)` sends OpenAI's strict
dialect instead (every property required, optional ones nullable, `additionalProperties: false`)
and maps the model's answer back: a null for an optional property means "not sent". A tool whose
schema has no strict form (free-form objects, `allOf`, `not`, ...) says why in `strict_error`.

What the model receives (`ToolOutput`): text blocks joined; structured content as JSON (the
`{"result": ...}` wrapping removed); images and audio as native blocks where the framework takes
them, else a placeholder like `[image: image/png, 1234 bytes]`. Failures (`isError`, invalid
arguments, a timeout, an unknown tool) are returned in the framework's own error form, never
raised; only a lost connection (`ConnectionClosedError`) and cancellation propagate.

Every framework is imported on first use, with a clear message when it is not installed.
"""

from __future__ import annotations

import base64
import fnmatch
import importlib
import json
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

from .errors import (
    ConnectionClosedError,
    McpClientError,
    RequestTimeoutError,
    ToolError,
)
from .specs import copy_json
from .toolnames import agent_tool_names

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .client import AsyncClientBase
    from .results import ToolResult
    from .specs import ToolSpec
    from .sync import SyncClientBase

__all__ = [
    "AgentTool",
    "ContentPart",
    "ToolOutput",
    "ToolSet",
    "make_toolset",
    "strict_json_schema",
]

T = TypeVar("T")

Strict = bool | Literal["auto"]
_JsonObject = dict[str, Any]

_INSTALL = {
    "openai": "openai",
    "anthropic": "anthropic",
    "langchain_core": "langchain-core",
    "pydantic_ai": "pydantic-ai-slim",
    "agents": "openai-agents",
}


def _require(module: str, what: str) -> Any:
    """Import a framework module on first use; a clear ImportError when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        top = module.partition(".")[0]
        package = _INSTALL.get(top, top)
        raise ImportError(
            f"{what} needs the {package!r} package, which is not installed: pip install {package}"
        ) from error


# ------------------------------------------------------------------------------------ outputs


class ContentPart:
    """One piece of what a model receives: text, or base64 media (`kind` "image" or "audio")."""

    __slots__ = ("data", "kind", "mime_type", "text")

    kind: Literal["text", "image", "audio"]
    text: str
    data: str
    mime_type: str

    def __init__(
        self,
        kind: Literal["text", "image", "audio"],
        *,
        text: str = "",
        data: str = "",
        mime_type: str = "",
    ) -> None:
        self.kind = kind
        self.text = text
        self.data = data
        self.mime_type = mime_type

    @property
    def size(self) -> int:
        """Decoded size in bytes of media data (computed from the base64 length)."""
        data = self.data.strip()
        return max(0, len(data) * 3 // 4 - data[-2:].count("="))

    @property
    def placeholder(self) -> str:
        """What a text-only model sees instead of this media part."""
        return f"[{self.kind}: {self.mime_type or 'unknown type'}, {self.size} bytes]"

    def as_text(self) -> str:
        return self.text if self.kind == "text" else self.placeholder

    def __repr__(self) -> str:
        if self.kind == "text":
            return f"ContentPart(text={self.text[:60]!r})"
        return f"ContentPart({self.placeholder})"


class ToolOutput:
    """A tool call's outcome as a model receives it: parts (text and media) and an error flag.

    `result` is the full `ToolResult` when the server answered (also for `isError`), `error` the
    exception of a failure (ToolError, ArgumentsValidationError, RequestTimeoutError, ...).
    """

    __slots__ = ("error", "is_error", "parts", "result", "structured")

    def __init__(
        self,
        parts: list[ContentPart],
        *,
        is_error: bool = False,
        result: ToolResult | None = None,
        structured: object = None,
        error: Exception | None = None,
    ) -> None:
        self.parts = parts
        self.is_error = is_error
        self.result = result
        self.structured = structured
        self.error = error

    @classmethod
    def failure(cls, message: str, error: Exception | None = None) -> ToolOutput:
        result = error.result if isinstance(error, ToolError) else None
        return cls(
            [ContentPart("text", text=message)],
            is_error=True,
            result=result,
            error=error,
        )

    @property
    def text(self) -> str:
        """Every part as text (media as placeholders), joined with newlines."""
        return "\n".join(part.as_text() for part in self.parts if part.as_text())

    @property
    def has_media(self) -> bool:
        return any(part.kind != "text" for part in self.parts)

    def error_text(self) -> str:
        """`Error: <text>` for an error (text-only frameworks), else the text."""
        text = self.text
        if not self.is_error:
            return text
        return f"Error: {text}" if text else "Error: the tool failed"

    def as_dict(self) -> dict[str, Any]:
        return {"is_error": self.is_error, "text": self.text}

    # ---- framework forms

    def to_anthropic_content(self) -> list[dict[str, Any]]:
        """Anthropic `tool_result` content blocks: text, images as base64 image blocks."""
        blocks: list[dict[str, Any]] = []
        for part in self.parts:
            if part.kind == "image" and part.mime_type in _ANTHROPIC_IMAGE_TYPES:
                blocks.append(
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": part.mime_type,
                            "data": part.data,
                        },
                    }
                )
            else:
                text = part.as_text()
                if text:  # Anthropic rejects empty text blocks
                    blocks.append({"type": "text", "text": text})
        return blocks

    def to_openai_responses_output(self) -> str | list[dict[str, Any]]:
        """A Responses API `function_call_output.output`: a string, or input items with images."""
        if not any(part.kind == "image" for part in self.parts):
            return self.error_text()
        items: list[dict[str, Any]] = []
        if self.is_error:
            items.append({"type": "input_text", "text": "Error:"})
        for part in self.parts:
            if part.kind == "image":
                items.append(
                    {
                        "type": "input_image",
                        "image_url": f"data:{part.mime_type};base64,{part.data}",
                    }
                )
            elif part.as_text():
                items.append({"type": "input_text", "text": part.as_text()})
        return items

    def to_langchain_content(self) -> str | list[dict[str, Any]]:
        """LangChain tool message content: a string, or standard blocks with images."""
        if not any(part.kind == "image" for part in self.parts):
            return self.text
        blocks: list[dict[str, Any]] = []
        for part in self.parts:
            if part.kind == "image":
                blocks.append(
                    {"type": "image", "base64": part.data, "mime_type": part.mime_type}
                )
            elif part.as_text():
                blocks.append({"type": "text", "text": part.as_text()})
        return blocks

    def __repr__(self) -> str:
        flag = ", is_error=True" if self.is_error else ""
        return f"ToolOutput(text={self.text[:80]!r}{flag})"


_ANTHROPIC_IMAGE_TYPES = frozenset(
    {"image/jpeg", "image/png", "image/gif", "image/webp"}
)


def _resource_text(resource: Any) -> ContentPart:
    """An embedded resource: its text, or a placeholder naming its MIME type and size."""
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return ContentPart("text", text=text)
    uri = str(getattr(resource, "uri", ""))
    mime = getattr(resource, "mime_type", None) or "application/octet-stream"
    blob = str(getattr(resource, "blob", "")).strip()
    size = max(0, len(blob) * 3 // 4 - blob[-2:].count("="))
    return ContentPart("text", text=f"[resource {uri}: {mime}, {size} bytes]")


def output_from_result(result: ToolResult, *, unwrap: bool = False) -> ToolOutput:
    """What a model gets from a tool's result (see the module docstring)."""
    raw = result.raw
    parts: list[ContentPart] = []
    structured = raw.structured_content
    value_or_none: object = structured
    if structured is not None:
        value: object = structured
        if unwrap and "result" in structured:
            value = structured["result"]
        parts.append(
            ContentPart("text", text=json.dumps(value, ensure_ascii=False, default=str))
        )
    for block in raw.content:
        if block.type == "text":
            if structured is None:  # else it repeats the structured content
                parts.append(ContentPart("text", text=block.text))
        elif block.type == "image":
            parts.append(
                ContentPart("image", data=block.data, mime_type=block.mime_type)
            )
        elif block.type == "audio":
            parts.append(
                ContentPart("audio", data=block.data, mime_type=block.mime_type)
            )
        elif block.type == "resource_link":
            mime = f" ({block.mime_type})" if block.mime_type else ""
            parts.append(
                ContentPart(
                    "text", text=f"[resource link: {block.name} {block.uri}{mime}]"
                )
            )
        elif block.type == "resource":
            parts.append(_resource_text(block.resource))
        else:  # pragma: no cover - a future block type
            kind: object = cast(Any, block).type
            parts.append(ContentPart("text", text=f"[{kind} content]"))
    return ToolOutput(
        parts, is_error=bool(raw.is_error), result=result, structured=value_or_none
    )


def _failure_output(error: McpClientError, timeout: float | None) -> ToolOutput:
    """A failure as the model sees it: an `isError` result keeps its content."""
    if isinstance(error, ToolError):
        output = output_from_result(error.result)
        output.is_error = True
        output.error = error
        if not output.text:
            output.parts.append(ContentPart("text", text=str(error)))
        return output
    if isinstance(error, RequestTimeoutError):
        after = f" after {timeout:g} s" if timeout is not None else ""
        return ToolOutput.failure(f"the tool call timed out{after}", error)
    return ToolOutput.failure(str(error), error)


# ---------------------------------------------------------------------------- strict schemas


class NotStrictError(ValueError):
    """The schema has no OpenAI strict form; the message says why."""


_UNSUPPORTED = ("not", "if", "then", "else", "patternProperties", "dependentSchemas")
_STRICT_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
_KEPT = (
    "description",
    "enum",
    "const",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
)


def strict_json_schema(schema: Mapping[str, Any]) -> _JsonObject:
    """The OpenAI strict-mode form of an object schema (raises NotStrictError saying why not)."""
    if schema.get("type", "object") != "object" or "anyOf" in schema:
        raise NotStrictError("the input schema is not a plain object schema")
    root = _strict(schema, "arguments", root=True)
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            root[key] = {
                name: _strict(cast(Mapping[str, Any], sub), f"{key}.{name}")
                for name, sub in cast(_JsonObject, defs).items()
                if isinstance(sub, dict)
            }
    return root


def _strict(schema: object, path: str, *, root: bool = False) -> _JsonObject:
    if not isinstance(schema, dict):
        raise NotStrictError(f"{path}: a boolean schema")
    source = cast(_JsonObject, schema)
    for key in _UNSUPPORTED:
        if key in source:
            raise NotStrictError(f"{path}: uses {key!r}")
    ref = source.get("$ref")
    if isinstance(ref, str):
        if not (ref == "#" or ref.startswith(("#/$defs/", "#/definitions/"))):
            raise NotStrictError(f"{path}: reference {ref!r} is not to $defs")
        return {"$ref": ref}
    out: _JsonObject = {}
    for key in _KEPT:
        if key in source:
            out[key] = source[key]
    fmt = source.get("format")
    if isinstance(fmt, str) and fmt in _STRICT_FORMATS:
        out["format"] = fmt
    all_of = source.get("allOf")
    if isinstance(all_of, list):
        items = cast(list[object], all_of)
        if len(items) != 1:
            raise NotStrictError(f"{path}: uses 'allOf'")
        inner = _strict(items[0], path)
        return {**inner, **out}
    options = source.get("anyOf", source.get("oneOf"))
    if isinstance(options, list):
        out["anyOf"] = [
            _strict(option, f"{path}|{index}")
            for index, option in enumerate(cast(list[object], options))
        ]
        return out
    kind = source.get("type")
    if isinstance(kind, list):
        kinds = [k for k in cast(list[object], kind) if isinstance(k, str)]
        if len([k for k in kinds if k != "null"]) > 1:
            if any(k in source for k in ("properties", "items")):
                raise NotStrictError(f"{path}: several types with nested schemas")
            out["anyOf"] = [{"type": k} for k in kinds]
            return out
        out["type"] = kinds
    elif isinstance(kind, str):
        out["type"] = kind
    elif "properties" in source:
        out["type"] = "object"
    elif "enum" not in source and "const" not in source:
        raise NotStrictError(f"{path}: accepts any value (no type)")
    types = out.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    is_array = types == "array" or (isinstance(types, list) and "array" in types)
    if is_object:
        extra = source.get("additionalProperties")
        if extra not in (None, False):
            raise NotStrictError(f"{path}: an object with free-form keys")
        properties = source.get("properties")
        if not isinstance(properties, dict) or (not properties and not root):
            if not root:
                raise NotStrictError(f"{path}: an object without listed properties")
            properties = {}
        needed = _names(source.get("required"))
        converted: _JsonObject = {}
        for name, sub in cast(_JsonObject, properties).items():
            prop = _strict(sub, f"{path}.{name}")
            if name not in needed:
                prop = _nullable(prop, sub)
            converted[name] = prop
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False
    if is_array:
        items_schema = source.get("items")
        if not isinstance(items_schema, dict):
            raise NotStrictError(f"{path}: an array without an item schema")
        out["items"] = _strict(cast(object, items_schema), f"{path}[]")
    return out


def _names(value: object) -> set[str]:
    """The strings of a JSON list (e.g. `required`), else an empty set."""
    if not isinstance(value, list):
        return set()
    return {item for item in cast(list[object], value) if isinstance(item, str)}


def _nullable(prop: _JsonObject, original: object) -> _JsonObject:
    """`prop` accepting null too; the original default is noted in the description."""
    default = (
        cast(_JsonObject, original).get("default", None)
        if isinstance(original, dict)
        else None
    )
    note = "Optional (null: not sent"
    note += (
        f", default {json.dumps(default, default=str)})."
        if default is not None
        else ")."
    )
    description = prop.get("description")
    described = f"{description} {note}" if isinstance(description, str) else note
    kind = prop.get("type")
    if "$ref" in prop or "const" in prop:
        return {"anyOf": [prop, {"type": "null"}], "description": described}
    if "anyOf" in prop:
        options = cast(list[_JsonObject], prop["anyOf"])
        if not any(option.get("type") == "null" for option in options):
            options = [*options, {"type": "null"}]
        return {**prop, "anyOf": options, "description": described}
    result = dict(prop)
    if isinstance(kind, str):
        result["type"] = [kind, "null"] if kind != "null" else "null"
    elif isinstance(kind, list):
        kinds = cast(list[str], kind)
        result["type"] = kinds if "null" in kinds else [*kinds, "null"]
    else:
        return {"anyOf": [prop, {"type": "null"}], "description": described}
    enum = result.get("enum")
    if isinstance(enum, list) and None not in enum:
        result["enum"] = [*cast(list[object], enum), None]
    result["description"] = described
    return result


def drop_optional_nulls(value: object, schema: Mapping[str, Any]) -> object:
    """Undo the strict form on a model's answer: a null for an optional property is removed."""
    return _drop_nulls(value, schema, schema, 0)


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    for _ in range(32):
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema
        if ref == "#":
            schema = root
            continue
        target: object = root
        for piece in ref.removeprefix("#/").split("/"):
            if not isinstance(target, dict):
                return {}
            target = cast(Mapping[str, object], target).get(piece)
        schema = cast(_JsonObject, target) if isinstance(target, dict) else {}
    return schema


def _drop_nulls(
    value: object, schema: Mapping[str, Any], root: Mapping[str, Any], depth: int
) -> object:
    if depth > 64:
        return value
    schema = _resolve(schema, root)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(cast(list[object], all_of)) == 1:
        inner = cast(list[object], all_of)[0]
        if isinstance(inner, dict):
            schema = _resolve(cast(_JsonObject, inner), root)
    if isinstance(value, dict):
        data = cast(_JsonObject, value)
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            for option in _options(schema, root):
                props = option.get("properties")
                if isinstance(props, dict) and set(data) <= set(
                    cast(_JsonObject, props)
                ):
                    return _drop_nulls(data, option, root, depth + 1)
            return data
        props = cast(_JsonObject, properties)
        required = _names(schema.get("required"))
        cleaned: _JsonObject = {}
        for key, item in data.items():
            if item is None and key in props and key not in required:
                continue
            sub = props.get(key)
            cleaned[key] = (
                _drop_nulls(item, cast(_JsonObject, sub), root, depth + 1)
                if isinstance(sub, dict)
                else item
            )
        return cleaned
    if isinstance(value, list):
        elements = cast(list[object], value)
        items = schema.get("items")
        if isinstance(items, dict):
            return [
                _drop_nulls(item, cast(_JsonObject, items), root, depth + 1)
                for item in elements
            ]
        return elements
    return value


def _options(
    schema: Mapping[str, Any], root: Mapping[str, Any]
) -> Iterator[Mapping[str, Any]]:
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in cast(list[object], options):
                if isinstance(option, dict):
                    yield _resolve(cast(_JsonObject, option), root)


# ------------------------------------------------------------------------------------ the tool


class AgentTool:
    """One tool as agents see it; bound to a client (from `client.tools()`), it can be called.

    `name` is what the model sees (prefixed, namespaced, shortened: see `toolnames`), `wire_name`
    what is sent to the server. `input_schema` is the server's schema exactly as listed.
    """

    __slots__ = (
        "_description",
        "_schema",
        "_strict",
        "_strict_sent",
        "client",
        "name",
        "spec",
        "sync_client",
        "timeout",
    )

    spec: ToolSpec[Any, Any]
    name: str
    client: AsyncClientBase | None
    sync_client: SyncClientBase[Any] | None
    timeout: float | None

    def __init__(
        self,
        spec: ToolSpec[Any, Any],
        *,
        name: str | None = None,
        client: AsyncClientBase | None = None,
        timeout: float | None = None,
        description: str | None = None,
        sync_client: SyncClientBase[Any] | None = None,
    ) -> None:
        self.spec = spec
        self.name = (
            name if name is not None else agent_tool_names([spec.name])[spec.name]
        )
        self.client = client
        self.sync_client = sync_client
        self.timeout = timeout
        self._description = description
        self._schema: _JsonObject | None = None
        self._strict: _JsonObject | NotStrictError | None = None
        #: Set once a strict definition was handed out: nulls of optional properties mean "not sent".
        self._strict_sent = False

    # ---- what the tool is

    @property
    def wire_name(self) -> str:
        return self.spec.name

    @property
    def python_name(self) -> str:
        return self.spec.python_name

    @property
    def description(self) -> str:
        """The description (an override, the server's, else its title), "" when there is none."""
        if self._description is not None:
            return self._description
        return self.spec.description or self.spec.title or ""

    @property
    def title(self) -> str | None:
        return self.spec.title

    @property
    def input_schema(self) -> _JsonObject:
        """The tool's input JSON Schema exactly as the server listed it (a copy)."""
        return copy_json(self._input_schema())

    def _input_schema(self) -> _JsonObject:
        schema = self._schema
        if schema is None:
            schema = self._schema = self.spec.input_schema
        return schema

    def _parameters(self) -> _JsonObject:
        """The schema sent to models: the original; `type: object` added when it is missing."""
        schema = copy_json(self._input_schema())
        if "type" not in schema:
            schema["type"] = "object"
        return schema

    @property
    def output_schema(self) -> _JsonObject | None:
        return self.spec.output_schema

    @property
    def arguments_model(self) -> type[BaseModel]:
        return self.spec.arguments_model

    @property
    def result_model(self) -> type[BaseModel] | None:
        return self.spec.result_model

    @property
    def annotations(self) -> _JsonObject | None:
        """The tool's annotations as listed (`readOnlyHint`, `destructiveHint`, ...), or None."""
        return self.spec.annotations

    @property
    def strict_schema(self) -> _JsonObject | None:
        """The OpenAI strict form of the input schema, or None (`strict_error` says why)."""
        strict = self._strict_form()
        return None if isinstance(strict, NotStrictError) else copy_json(strict)

    @property
    def strict_error(self) -> str | None:
        """Why this tool cannot use OpenAI strict mode, or None when it can."""
        strict = self._strict_form()
        return str(strict) if isinstance(strict, NotStrictError) else None

    def _strict_form(self) -> _JsonObject | NotStrictError:
        strict = self._strict
        if strict is None:
            try:
                strict = strict_json_schema(self._input_schema())
            except NotStrictError as error:
                strict = error
            self._strict = strict
        return strict

    def _use_strict(self, strict: Strict) -> _JsonObject | None:
        if strict is False:
            return None
        form = self._strict_form()
        if isinstance(form, NotStrictError):
            if strict == "auto":
                return None
            raise NotStrictError(f"tool {self.name!r} cannot be strict: {form}")
        self._strict_sent = True
        return copy_json(form)

    # ---- binding and calling

    @property
    def bound(self) -> bool:
        return self.client is not None

    def bind(
        self,
        client: AsyncClientBase | SyncClientBase[Any],
        *,
        timeout: float | None = None,
    ) -> AgentTool:
        """A copy of this tool bound to `client` (an async or a sync client)."""
        from .sync import SyncClientBase

        sync_client: SyncClientBase[Any] | None = None
        if isinstance(client, SyncClientBase):
            sync_client = client
            async_client: AsyncClientBase = sync_client._async
        else:
            async_client = client
        return AgentTool(
            self.spec,
            name=self.name,
            client=async_client,
            timeout=timeout if timeout is not None else self.timeout,
            description=self._description,
            sync_client=sync_client,
        )

    def _client(self) -> AsyncClientBase:
        client = self.client
        if client is None:
            raise RuntimeError(
                f"agent tool {self.name!r} is not bound to a client: use client.tools() or tool.bind(client)"
            )
        return client

    async def _on_loop(self, call: Callable[[], Awaitable[T]]) -> T:
        sync_client = self.sync_client
        if sync_client is None:
            return await call()
        return await sync_client._run_elsewhere(call)

    async def __call__(self, **arguments: Any) -> Any:
        """Call the tool with keyword arguments; returns what the typed method returns (raises on errors)."""
        return await self.call(arguments)

    async def call(
        self,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Call the tool (wire or Python field names); the typed result, like `client.call()`."""
        client = self._client()
        limit = timeout if timeout is not None else self.timeout
        values = dict(arguments or {})
        return await self._on_loop(
            lambda: client._call_tool(self.spec, values, timeout=limit)
        )

    def call_sync(
        self,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """`call()` for a tool of a blocking `Client`: runs on the client's event-loop thread."""
        sync_client = self._sync_client()
        client = self._client()
        limit = timeout if timeout is not None else self.timeout
        values = dict(arguments or {})
        return sync_client._run(client._call_tool, self.spec, values, timeout=limit)

    def _sync_client(self) -> SyncClientBase[Any]:
        sync_client = self.sync_client
        if sync_client is None:
            raise RuntimeError(
                f"agent tool {self.name!r} belongs to an async client: await tool.call(...) / tool.run(...)"
            )
        return sync_client

    def arguments_from_model(
        self, arguments: Mapping[str, Any] | str | None, *, strict: bool | None = None
    ) -> dict[str, Any]:
        """A model's arguments (a dict or a JSON string) as sent to the server.

        With `strict` (default: whether a strict definition of this tool was handed out), a null
        for an optional property means "not sent" and is removed. Raises ValueError for JSON that
        is not an object.
        """
        if arguments is None or arguments == "":
            values: object = {}
        elif isinstance(arguments, str):
            try:
                values = json.loads(arguments)
            except ValueError as error:
                raise ValueError(
                    f"the arguments are not valid JSON ({error})"
                ) from None
        else:
            values = dict(arguments)
        if not isinstance(values, dict):
            raise ValueError("the arguments are not a JSON object")
        data = cast(_JsonObject, values)
        use_strict = self._strict_sent if strict is None else strict
        if use_strict:
            return cast(_JsonObject, drop_optional_nulls(data, self._input_schema()))
        return data

    async def run(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        timeout: float | None = None,
        strict: bool | None = None,
        framework: str | None = None,
    ) -> ToolOutput:
        """Run the tool for a model: arguments as the model sent them (dict or JSON string).

        Never raises for a failure the model should see (`isError`, invalid arguments, a timeout):
        they come back as a `ToolOutput` with `is_error`. A lost connection raises
        ConnectionClosedError.
        """
        client = self._client()
        limit = timeout if timeout is not None else self.timeout
        try:
            values = self.arguments_from_model(arguments, strict=strict)
        except ValueError as error:
            return ToolOutput.failure(f"invalid arguments for {self.name}: {error}")
        try:
            result = await self._on_loop(
                lambda: client._call_tool_result(
                    self.spec,
                    values,
                    timeout=limit,
                    agent_name=self.name,
                    framework=framework,
                )
            )
        except ConnectionClosedError:
            raise
        except McpClientError as error:
            return _failure_output(error, limit)
        return output_from_result(result, unwrap=self.spec.unwrap_result)

    def run_sync(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        timeout: float | None = None,
        strict: bool | None = None,
        framework: str | None = None,
    ) -> ToolOutput:
        """`run()` for a tool of a blocking `Client` (runs on the client's event-loop thread)."""
        sync_client = self._sync_client()
        return sync_client._run(
            self.run, arguments, timeout=timeout, strict=strict, framework=framework
        )

    # ---- definitions

    def to_openai(self, *, strict: Strict = False) -> dict[str, Any]:
        """An OpenAI Chat Completions tool: `{"type": "function", "function": {...}}`.

        `strict=True` sends the strict form (NotStrictError when the tool has none, see
        `strict_error`); `"auto"` uses it when there is one.
        """
        strict_schema = self._use_strict(strict)
        function: dict[str, Any] = {"name": self.name}
        if self.description:
            function["description"] = self.description
        function["parameters"] = (
            strict_schema if strict_schema is not None else self._parameters()
        )
        if strict_schema is not None:
            function["strict"] = True
        return {"type": "function", "function": function}

    def to_openai_responses(self, *, strict: Strict = False) -> dict[str, Any]:
        """An OpenAI Responses API function tool (`strict` is always stated: the API's default is true)."""
        strict_schema = self._use_strict(strict)
        tool: dict[str, Any] = {"type": "function", "name": self.name}
        if self.description:
            tool["description"] = self.description
        tool["parameters"] = (
            strict_schema if strict_schema is not None else self._parameters()
        )
        tool["strict"] = strict_schema is not None
        return tool

    def to_anthropic(self) -> dict[str, Any]:
        """An Anthropic Messages API tool: `{"name", "description", "input_schema"}`."""
        tool: dict[str, Any] = {"name": self.name}
        if self.description:
            tool["description"] = self.description
        tool["input_schema"] = self._parameters()
        return tool

    def to_langchain(self) -> Any:
        """A LangChain `StructuredTool` (async, and sync for a blocking `Client`'s tools).

        Its schema is the server's JSON Schema; the result is the model-facing content with the
        `ToolOutput` as artifact; failures become a ToolMessage with `status="error"`.
        """
        tools_module = _require("langchain_core.tools", "to_langchain()")
        self._client()
        structured_tool = tools_module.StructuredTool
        tool_exception = tools_module.ToolException

        def outcome(output: ToolOutput) -> tuple[Any, ToolOutput]:
            if output.is_error:
                raise tool_exception(output.text or "the tool failed")
            return output.to_langchain_content(), output

        async def coroutine(**kwargs: Any) -> tuple[Any, ToolOutput]:
            return outcome(await self.run(kwargs, framework="langchain"))

        def blocking(**kwargs: Any) -> tuple[Any, ToolOutput]:
            return outcome(self.run_sync(kwargs, framework="langchain"))

        func = blocking if self.sync_client is not None else None

        return structured_tool(
            name=self.name,
            description=self.description or self.name,
            args_schema=self._parameters(),
            func=func,
            coroutine=coroutine,
            response_format="content_and_artifact",
            handle_tool_error=True,
            metadata={"mcp_tool": self.wire_name, "annotations": self.annotations},
        )

    def to_pydantic_ai(self) -> Any:
        """A pydantic-ai `Tool` with the server's schema; failures raise `ToolFailed` (the model sees them)."""
        pydantic_ai = _require("pydantic_ai", "to_pydantic_ai()")
        self._client()
        tool_failed = pydantic_ai.ToolFailed
        binary_content = pydantic_ai.BinaryContent

        async def function(**kwargs: Any) -> Any:
            output = await self.run(kwargs, framework="pydantic_ai")
            if output.is_error:
                raise tool_failed(output.text or "the tool failed")
            if not output.has_media:
                return output.text
            content: list[Any] = []
            for part in output.parts:
                if part.kind == "text":
                    content.append(part.text)
                else:
                    data = base64.b64decode(part.data)
                    content.append(binary_content(data, media_type=part.mime_type))
            return content

        return pydantic_ai.Tool.from_schema(
            function,
            name=self.name,
            description=self.description,
            json_schema=self._parameters(),
        )

    def to_openai_agents(self, *, strict: Strict = "auto") -> Any:
        """An OpenAI Agents SDK `FunctionTool` (strict when the schema allows it, by default)."""
        agents = _require("agents", "to_openai_agents()")
        self._client()
        strict_schema = self._use_strict(strict)
        use_strict = strict_schema is not None
        text_output = agents.ToolOutputText
        image_output = agents.ToolOutputImage

        async def on_invoke_tool(context: Any, arguments: str) -> Any:
            output = await self.run(
                arguments, strict=use_strict, framework="openai_agents"
            )
            if output.is_error or not any(p.kind == "image" for p in output.parts):
                return output.error_text()
            items: list[Any] = []
            for part in output.parts:
                if part.kind == "image":
                    url = f"data:{part.mime_type};base64,{part.data}"
                    items.append(image_output(image_url=url))
                elif part.as_text():
                    items.append(text_output(text=part.as_text()))
            return items

        tool = agents.FunctionTool(
            name=self.name,
            description=self.description,
            params_json_schema=(
                strict_schema if strict_schema is not None else self._parameters()
            ),
            on_invoke_tool=on_invoke_tool,
            strict_json_schema=False,
        )
        # Set after construction: the SDK would copy and re-run its strict pass on a schema that is
        # already strict (ours is a fixed point of that pass; tests check it over the corpus).
        tool.strict_json_schema = use_strict
        return tool

    def __repr__(self) -> str:
        state = "bound" if self.client is not None else "unbound"
        wire = f", wire_name={self.wire_name!r}" if self.wire_name != self.name else ""
        return f"<AgentTool {self.name!r}{wire} {state}>"


# -------------------------------------------------------------------------------- tool sets


def _patterns(value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _matches(spec: ToolSpec[Any, Any], patterns: tuple[str, ...]) -> bool:
    return any(
        fnmatch.fnmatchcase(spec.name, pattern)
        or fnmatch.fnmatchcase(spec.python_name, pattern)
        for pattern in patterns
    )


def make_toolset(
    specs: Iterable[ToolSpec[Any, Any]],
    *,
    client: AsyncClientBase | None = None,
    include: str | Sequence[str] | None = None,
    exclude: str | Sequence[str] | None = None,
    prefix: str = "",
    namespace: str | None = None,
    timeout: float | None = None,
    descriptions: Mapping[str, str] | None = None,
    sync_client: SyncClientBase[Any] | None = None,
) -> ToolSet:
    """Agent tools for `specs`: selected by glob patterns, named by `toolnames.agent_tool_names`."""
    included = _patterns(include)
    excluded = _patterns(exclude)
    chosen = [
        spec
        for spec in specs
        if (not included or _matches(spec, included))
        and not (excluded and _matches(spec, excluded))
    ]
    names = agent_tool_names(
        [spec.name for spec in chosen], prefix=prefix, namespace=namespace
    )
    overrides = descriptions or {}
    tools = [
        AgentTool(
            spec,
            name=names[spec.name],
            client=client,
            timeout=timeout,
            description=overrides.get(spec.name, overrides.get(spec.python_name)),
            sync_client=sync_client,
        )
        for spec in chosen
    ]
    return ToolSet(tools)


class ToolSet(Sequence[AgentTool]):
    """An ordered, name-indexed set of agent tools: `tools[0]`, `tools["name"]`, `for tool in tools`.

    Converts all of them at once (`to_openai()`, `to_anthropic()`, `to_langchain()`,
    `to_pydantic_ai()` (a toolset), `to_openai_agents()`) and runs a model's tool calls
    (`handle_openai_tool_calls`, `handle_anthropic_tool_use`, ...) by the names it handed out.
    """

    __slots__ = ("_by_name", "_tools")

    def __init__(self, tools: Iterable[AgentTool]) -> None:
        self._tools = list(tools)
        self._by_name = {tool.name: tool for tool in self._tools}
        if len(self._by_name) != len(self._tools):
            raise ValueError("agent tool names must be distinct")

    @classmethod
    def from_specs(
        cls,
        specs: Iterable[ToolSpec[Any, Any]],
        *,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        prefix: str = "",
        namespace: str | None = None,
    ) -> ToolSet:
        """Unbound tools (definitions only) for specs such as `TOOLS.values()`; `bind(client)` later."""
        return make_toolset(
            specs, include=include, exclude=exclude, prefix=prefix, namespace=namespace
        )

    def bind(
        self,
        client: AsyncClientBase | SyncClientBase[Any],
        *,
        timeout: float | None = None,
    ) -> ToolSet:
        return ToolSet(tool.bind(client, timeout=timeout) for tool in self._tools)

    @overload
    def __getitem__(self, index: int) -> AgentTool: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[AgentTool]: ...
    @overload
    def __getitem__(self, index: str) -> AgentTool: ...

    def __getitem__(self, index: int | slice | str) -> AgentTool | Sequence[AgentTool]:
        if isinstance(index, str):
            tool = self.get(index)
            if tool is None:
                raise KeyError(index)
            return tool
        return self._tools[index]

    def get(self, name: str) -> AgentTool | None:
        """The tool named `name` (as the model sees it), else by wire or Python name."""
        tool = self._by_name.get(name)
        if tool is not None:
            return tool
        for candidate in self._tools:
            if name in (candidate.wire_name, candidate.python_name):
                return candidate
        return None

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[AgentTool]:
        return iter(self._tools)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return self.get(item) is not None
        return item in self._tools

    @property
    def names(self) -> list[str]:
        return [tool.name for tool in self._tools]

    def __repr__(self) -> str:
        return f"ToolSet({self.names!r})"

    # ---- conversions

    def to_openai(self, *, strict: Strict = False) -> list[dict[str, Any]]:
        return [tool.to_openai(strict=strict) for tool in self._tools]

    def to_openai_responses(self, *, strict: Strict = False) -> list[dict[str, Any]]:
        return [tool.to_openai_responses(strict=strict) for tool in self._tools]

    def to_anthropic(self) -> list[dict[str, Any]]:
        return [tool.to_anthropic() for tool in self._tools]

    def to_langchain(self) -> list[Any]:
        return [tool.to_langchain() for tool in self._tools]

    def to_pydantic_ai(self) -> Any:
        """A pydantic-ai `FunctionToolset` of every tool: `Agent(model, toolsets=[tools.to_pydantic_ai()])`."""
        toolsets = _require("pydantic_ai.toolsets", "to_pydantic_ai()")
        return toolsets.FunctionToolset([tool.to_pydantic_ai() for tool in self._tools])

    def to_openai_agents(self, *, strict: Strict = "auto") -> list[Any]:
        return [tool.to_openai_agents(strict=strict) for tool in self._tools]

    # ---- running a model's calls

    def _resolve(self, name: str) -> AgentTool | None:
        return self.get(name)

    async def handle_openai_tool_calls(
        self, tool_calls: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """See `AsyncClient.handle_openai_tool_calls`; names are resolved within this set."""
        return await _handle_openai(self._resolve, tool_calls, timeout)

    async def handle_openai_responses_calls(
        self, output: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        return await _handle_responses(self._resolve, output, timeout)

    async def handle_anthropic_tool_use(
        self, content: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        return await _handle_anthropic(self._resolve, content, timeout)


# ------------------------------------------------------------------------- running tool calls


def _field(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return cast(Mapping[str, Any], item).get(name)
    return getattr(item, name, None)


async def _gather(calls: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    """Run `calls` concurrently (one task each), results in order."""
    if len(calls) == 1:
        return [await calls[0]()]
    import anyio

    results: list[T | None] = [None] * len(calls)

    async def one(index: int, call: Callable[[], Awaitable[T]]) -> None:
        results[index] = await call()

    try:
        async with anyio.create_task_group() as group:
            for index, call in enumerate(calls):
                group.start_soon(one, index, call)
    except BaseExceptionGroup as group_error:
        from .errors import unwrap_exception_group

        raise unwrap_exception_group(group_error) from None
    return cast(list[T], results)


Resolver = Callable[[str], AgentTool | None]


async def _run_named(
    resolve: Resolver,
    name: object,
    arguments: object,
    timeout: float | None,
    framework: str,
) -> ToolOutput:
    if not isinstance(name, str):
        return ToolOutput.failure("the tool call has no tool name")
    tool = resolve(name)
    if tool is None:
        return ToolOutput.failure(f"unknown tool {name!r}")
    if arguments is not None and not isinstance(arguments, str | Mapping):
        return ToolOutput.failure(f"invalid arguments for {name}: not a JSON object")
    return await tool.run(
        cast("Mapping[str, Any] | str | None", arguments),
        timeout=timeout,
        framework=framework,
    )


async def _run_calls(
    resolve: Resolver,
    calls: Sequence[Any],
    timeout: float | None,
    framework: str,
    read: Callable[[Any], tuple[object, object]],
    answer: Callable[[Any, ToolOutput], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Run one model turn's tool calls concurrently: `read` gives a call's (name, arguments),
    `answer` turns its output into the framework's message; answers in the calls' order.
    """

    def runner(call: Any) -> Callable[[], Awaitable[dict[str, Any]]]:
        async def run() -> dict[str, Any]:
            name, arguments = read(call)
            output = await _run_named(resolve, name, arguments, timeout, framework)
            return answer(call, output)

        return run

    return await _gather([runner(call) for call in calls])


async def _handle_openai(
    resolve: Resolver, tool_calls: Sequence[Any] | None, timeout: float | None
) -> list[dict[str, Any]]:
    def read(call: Any) -> tuple[object, object]:
        function = _field(call, "function")
        return _field(function, "name"), _field(function, "arguments")

    def answer(call: Any, output: ToolOutput) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": _field(call, "id"),
            "content": output.error_text(),
        }

    calls = list(tool_calls or [])
    return await _run_calls(resolve, calls, timeout, "openai", read, answer)


async def _handle_responses(
    resolve: Resolver, output: Sequence[Any] | None, timeout: float | None
) -> list[dict[str, Any]]:
    def read(call: Any) -> tuple[object, object]:
        return _field(call, "name"), _field(call, "arguments")

    def answer(call: Any, result: ToolOutput) -> dict[str, Any]:
        return {
            "type": "function_call_output",
            "call_id": _field(call, "call_id"),
            "output": result.to_openai_responses_output(),
        }

    calls = [item for item in output or [] if _field(item, "type") == "function_call"]
    return await _run_calls(resolve, calls, timeout, "openai_responses", read, answer)


async def _handle_anthropic(
    resolve: Resolver, content: Sequence[Any] | None, timeout: float | None
) -> list[dict[str, Any]]:
    def read(block: Any) -> tuple[object, object]:
        return _field(block, "name"), _field(block, "input")

    def answer(block: Any, output: ToolOutput) -> dict[str, Any]:
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": _field(block, "id"),
        }
        blocks_out = output.to_anthropic_content()
        if blocks_out:
            result["content"] = blocks_out
        if output.is_error:
            result["is_error"] = True
        return result

    blocks = [block for block in content or [] if _field(block, "type") == "tool_use"]
    return await _run_calls(resolve, blocks, timeout, "anthropic", read, answer)


def _client_resolver(client: AsyncClientBase) -> Resolver:
    return client._agent_tool


async def handle_openai_tool_calls(
    client: AsyncClientBase, tool_calls: Sequence[Any] | None, *, timeout: float | None
) -> list[dict[str, Any]]:
    return await _handle_openai(_client_resolver(client), tool_calls, timeout)


async def handle_openai_responses_calls(
    client: AsyncClientBase, output: Sequence[Any] | None, *, timeout: float | None
) -> list[dict[str, Any]]:
    return await _handle_responses(_client_resolver(client), output, timeout)


async def handle_anthropic_tool_use(
    client: AsyncClientBase, content: Sequence[Any] | None, *, timeout: float | None
) -> list[dict[str, Any]]:
    return await _handle_anthropic(_client_resolver(client), content, timeout)
