"""The package's code API, `code_api.pyi`: one typed `async def` per model-visible tool, for code mode's sandbox.

Code mode (`client.run_code()`) runs a model's Python in a sandbox that holds plain values, so the
stub types object parameters and structured results as `TypedDict`s (keys are wire names) rather
than the package's pydantic models. Functions and parameters are named as the client's typed
methods are (from the IR); types come from the tool's listed schemas and widen, never narrow: what
has no plain Python type is `Any`. Every server string reaches the stub through `pysource` (names
as string literals in `Literal[...]` and functional `TypedDict`s, descriptions as docstrings);
class and function names are the generator's own. A key is a class-body name only where `naming.identifier_key`
allows it (else the functional form keeps it a string); an object with a key no checker accepts (`""`) is typed
`dict[str, Any]`, with a note.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any

from mcp_codegen.casing import pascal_case
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import ir
from mcp_codegen.generate.models import names_in
from mcp_codegen.generate.naming import identifier_key, pascal_from_snake, usable_key
from mcp_codegen.generate.pysource import docstring, string_literal
from mcp_codegen.generate.schema_prep import beyond_literal_range

__all__ = ["CODE_API_FILE", "TYPING_NAMES", "StubWriter", "code_api_text", "stub_prefix", "stub_text"]

#: The stub's file name in the package (read by `runtime/code_mode`).
CODE_API_FILE = "code_api.pyi"
#: How deep a schema is followed before its type becomes `Any` (a recursive `$ref` stops here too).
_MAX_DEPTH = 12
TYPING_NAMES = ("Any", "Literal", "NotRequired", "TypedDict")
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_JsonObject = dict[str, Any]


def code_api_text(
    spec: ir.ClientSpec, listings: Mapping[str, Mapping[str, Any]], header: str, diagnostics: Diagnostics | None = None
) -> str:
    """The `.pyi` text of the module `spec.package_name` as code mode shows it; `listings` are the tools'
    listed definitions by wire name (their `inputSchema` and `outputSchema`)."""
    tools = [tool for tool in spec.tools if not tool.app_only]
    writer = StubWriter({tool.python_name for tool in tools} | set(TYPING_NAMES), diagnostics or Diagnostics())
    functions = [writer.function(tool, listings.get(tool.wire_name, {})) for tool in tools]
    used = [name for name in TYPING_NAMES if writer.uses(name)]
    return stub_text(stub_prefix(spec, header, used), [*writer.classes, *functions])


def stub_prefix(spec: ir.ClientSpec, header: str, used: list[str]) -> list[str]:
    """The stub's lines before its first class or function: the header, the module docstring, the imports."""
    intro = (
        f"The tools of the {_label(spec)} MCP server as async functions, for code mode: "
        f"`import {spec.package_name}`, then `await {spec.package_name}.<tool>(...)`.\n\n"
        "Objects are plain dicts (TypedDicts keyed by wire names); a tool without structured output returns "
        "its text. A failed call raises: ValueError (arguments refused, nothing sent), RuntimeError (the "
        "tool reported an error), TimeoutError, ConnectionError (the call may have run)."
    )
    parts = [header, docstring(intro, 0), ""]
    if used:
        parts += [f"from typing import {', '.join(used)}", ""]
    return parts


def stub_text(prefix: list[str], blocks: list[str]) -> str:
    """The stub: `prefix`, then each class and function block."""
    parts = list(prefix)
    for block in blocks:
        parts += ["", block, ""]
    return "\n".join(parts).rstrip("\n") + "\n"


def _label(spec: ir.ClientSpec) -> str:
    return f"{spec.server_name} {spec.server_version}" if spec.server_version else spec.server_name


class StubWriter:
    """Types of one package's schemas as stub source, collecting the `TypedDict` classes they need.

    The tools are written in order, and share `taken` (class names), `bodies` (the classes written, by stem and
    fields), `used` (typing names) and `classes` (the blocks written): all one tool's text depends on of the
    others' (`code_api_pieces` records and replays a tool's questions and changes to them)."""

    def __init__(self, taken: set[str], diagnostics: Diagnostics) -> None:
        self.classes: list[str] = []
        self.diagnostics = diagnostics
        self.taken = set(taken)
        #: Classes named but not written yet: a functional `TypedDict` quotes a type that names one.
        self._pending: set[str] = set()
        self.used: set[str] = set()
        #: A `$defs` entry already written as a class, by (tool, reference).
        self._defined: dict[tuple[str, str], str] = {}
        #: The classes written, by (stem, fields): an identical one is reused.
        self.bodies: dict[tuple[str, str], str] = {}

    def uses(self, name: str) -> bool:
        return name in self.used

    def function(self, tool: ir.Tool, listing: Mapping[str, Any]) -> str:
        stem = pascal_from_snake(tool.python_name)
        input_schema = _object(listing.get("inputSchema"))
        properties = _object(input_schema.get("properties"))
        parts: list[str] = []
        if tool.permissive:
            self.used.add("Any")
            parts.append("**arguments: Any")
        elif tool.parameters:  # no `extra_arguments`: code reaches only the parameters the schema names
            parts.append("*")
            for parameter in tool.parameters:
                schema = properties.get(parameter.wire_name)
                context = _Context(tool, "inputSchema", input_schema)
                type_source = self._type(schema, context, stem + pascal_case(parameter.wire_name, fallback="Value"), 0)
                default = "" if parameter.required else " = ..."
                parts.append(f"{parameter.python_name}: {type_source}{default}")
        returns = self._returns(tool, stem, _object(listing.get("outputSchema")))
        text = tool.description or tool.title or f"Call the `{tool.wire_name}` tool."
        return f"async def {tool.python_name}({', '.join(parts)}) -> {returns}:\n    {docstring(text, 4)}"

    def _returns(self, tool: ir.Tool, stem: str, output_schema: _JsonObject) -> str:
        if tool.result_class is None or not output_schema:
            return "str"
        context = _Context(tool, "outputSchema", output_schema)
        if tool.unwrap_result:
            wrapped = _object(output_schema.get("properties")).get("result")
            return self._type(wrapped, context, stem + "Result", 0)
        return self._type(output_schema, context, stem + "Result", 0)

    # ---- schema -> type source

    def _any(self) -> str:
        self.used.add("Any")
        return "Any"

    def _type(self, schema: object, context: _Context, name: str, depth: int) -> str:
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return self._any()
        node: _JsonObject = schema
        reference = node.get("$ref")
        if isinstance(reference, str):
            return self._reference(reference, context, depth)
        if "const" in node:
            return self._literal([node["const"]]) or self._any()
        if isinstance(node.get("enum"), list):
            return self._literal(node["enum"]) or self._any()
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                options = [self._type(option, context, f"{name}{index}", depth + 1)
                           for index, option in enumerate(node[key], start=1)]  # fmt: skip
                return self._union(options)
        kind = node.get("type")
        if isinstance(kind, list):
            return self._union([self._typed(node, str(one), context, name, depth) for one in kind])
        if isinstance(kind, str):
            return self._typed(node, kind, context, name, depth)
        if isinstance(node.get("properties"), dict):
            return self._typed(node, "object", context, name, depth)
        return self._any()

    def _typed(self, node: _JsonObject, kind: str, context: _Context, name: str, depth: int) -> str:
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            items = node.get("items")
            return (
                f"list[{self._type(items, context, name + 'Item', depth + 1)}]"
                if isinstance(items, dict)
                else f"list[{self._any()}]"
            )
        if kind != "object":
            return self._any()
        properties = _object(node.get("properties"))
        if not properties:
            extra = node.get("additionalProperties")
            value = self._type(extra, context, name + "Value", depth + 1) if isinstance(extra, dict) else self._any()
            return f"dict[str, {value}]"
        return self._typed_dict(node, properties, context, name, depth)

    def _typed_dict(
        self, node: _JsonObject, properties: _JsonObject, context: _Context, stem: str, depth: int, name: str = ""
    ) -> str:
        """A `TypedDict` class for an object schema; one already written with the same stem and fields is reused
        (a `$defs` entry that several tools share becomes one class)."""
        class_name = name or self._class_name(stem)
        if not all(map(usable_key, properties)):
            self._pending.discard(class_name)
            self.taken.discard(class_name)
            self.diagnostics.info(
                context.location,
                f"an object has a property named {next(k for k in properties if not usable_key(k))!r}, which no type"
                " checker takes as a TypedDict key: code_api.pyi types it dict[str, Any]",
                code="code-api-loose-type",
            )
            return f"dict[str, {self._any()}]"
        required = {key for key in node.get("required", []) if isinstance(key, str)}
        fields: list[tuple[str, str]] = []
        for key, value in properties.items():
            field_type = self._type(value, context, class_name + pascal_case(key, fallback="Field"), depth + 1)
            if key not in required:
                self.used.add("NotRequired")
                field_type = f"NotRequired[{field_type}]"
            fields.append((key, field_type))
        self.used.add("TypedDict")
        annotation_names = {name for _, type_source in fields for name in names_in(type_source)}
        as_class = all(identifier_key(key, annotation_names) for key, _ in fields)
        if as_class:
            shape = "\n".join(f"    {key}: {type_source}" for key, type_source in fields)
        else:  # keys that are not identifiers: the functional form, each key a string literal
            later = self._pending | {class_name}  # a value, not a class body: a name defined below is quoted
            shape = ", ".join(
                f"{string_literal(key)}: {string_literal(type_source) if names_in(type_source) & later else type_source}"
                for key, type_source in fields
            )
        self._pending.discard(class_name)
        same = self.bodies.get((stem, shape))
        if same is not None and class_name not in shape:
            self.taken.discard(class_name)
            return same
        self.bodies[(stem, shape)] = class_name
        if as_class:
            self.classes.append(f"class {class_name}(TypedDict):\n{shape}")
        else:
            self.classes.append(f"{class_name} = TypedDict({string_literal(class_name)}, {{{shape}}})")
        return class_name

    def _reference(self, reference: str, context: _Context, depth: int) -> str:
        target = context.resolve(reference)
        if target is None:
            return self._any()
        key = (context.tool.python_name, reference)
        defined = self._defined.get(key)
        if defined is not None:
            return defined
        if not _is_object(target):
            return self._type(target, context, "Item", depth + 1)
        stem = pascal_case(reference.rsplit("/", 1)[-1], fallback="Item")
        # Named before its fields are written, so a recursive reference names the class.
        self._defined[key] = self._class_name(stem)
        written = self._typed_dict(
            target, _object(target.get("properties")), context, stem, depth + 1, self._defined[key]
        )
        self._defined[key] = written
        return written

    def _literal(self, values: list[Any]) -> str | None:
        plain = [value for value in values if isinstance(value, str | int | bool) or value is None]
        if len(plain) != len(values) or not plain or any(beyond_literal_range(value) for value in plain):
            return None  # widened: an integer beyond 64 bits cannot stand in `Literal[...]`
        self.used.add("Literal")
        return "Literal[" + ", ".join(_literal_source(value) for value in plain) + "]"

    def _union(self, options: list[str]) -> str:
        if "Any" in options:
            return "Any"
        unique = list(dict.fromkeys(options))
        return " | ".join(unique) if unique else self._any()

    def _class_name(self, stem: str) -> str:
        name, number = stem, 2
        while name in self.taken or keyword.iskeyword(name):
            name, number = f"{stem}{number}", number + 1
        self.taken.add(name)
        self._pending.add(name)
        return name


class _Context:
    """The schema a tool's `$ref`s resolve in (its input or output schema's root)."""

    def __init__(self, tool: ir.Tool, schema: str, root: _JsonObject) -> None:
        self.tool = tool
        self.location = f"tools.{tool.wire_name}.{schema}"
        self.root = root

    def resolve(self, reference: str) -> _JsonObject | None:
        if not reference.startswith("#/"):
            return None
        node: object = self.root
        for part in reference[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, dict) else None
        return node if isinstance(node, dict) else None


def _is_object(schema: _JsonObject) -> bool:
    return (schema.get("type") == "object" or "type" not in schema) and bool(_object(schema.get("properties")))


def _object(value: object) -> _JsonObject:
    return value if isinstance(value, dict) else {}


def _literal_source(value: str | int | bool | None) -> str:
    return string_literal(value) if isinstance(value, str) else repr(value)
