"""Make one tool's raw JSON Schemas safe and faithful input for datamodel-code-generator.

The raw schemas stay untouched in the snapshot (they are what `TOOLS[name].input_schema` returns and
what agents are sent). This stage works on copies and fixes what would break or weaken the models:
- objects without `additionalProperties` get `true`, so unknown keys are kept, not silently dropped;
- `$defs`/`definitions` are hoisted into the shared document under names owned by the tool, and path
  refs such as `#/properties/x/items` or `#` become refs to hoisted definitions;
- patterns Python or pydantic cannot compile, remote or dangling refs, `enum`s and `const`s holding integers
  beyond 64 bits (mypy rejects them in `Literal[...]`, pydantic checks integer Enums as 64-bit), and defaults
  that do not fit their property are dropped, each with a diagnostic naming where;
- string formats map to `str` (datetime, URL and UUID types do not dump back to the same JSON).
"""

from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_codegen.casing import pascal_case
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.model_defaults import default_fits
from mcp_codegen.generate.schema_names import (
    place_name,
    resolve_pointer,
    same_definition,
)
from mcp_codegen.generate.unions import discriminated
from mcp_codegen.schema_dialect import ANNOTATIONS, in_current_dialect, is_legacy_dialect

JsonSchema = dict[str, Any]

_ANY_ARGUMENTS = "the tool takes any arguments (permissive model)"
_UNSUPPORTED_PATTERN = "pattern is not a regex pydantic can check; dropped (the server still checks it)"
#: Neither form works for them: mypy rejects such integers in Literal[...], and pydantic checks an Enum of
#: integers as 64-bit.
_WIDE_LITERAL = "holds an integer beyond 64 bits, which cannot be typed; dropped (the server still checks it)"
_UNFIT_DEFAULT = "default does not fit the property's type; left out of the model"
#: The largest integer mypy accepts inside `Literal[...]`, either sign.
_LITERAL_INT_MAX = 2**63 - 1

#: Keywords whose value is one schema; and those whose value is a list or a map of schemas.
_SCHEMA_KEYS = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_SCHEMA_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_DROPPED_KEYS = ("$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$comment")
_PRIMITIVE_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


@dataclass
class PreparedTool:
    """The definitions one tool contributes to the combined document, keyed by class name."""

    definitions: dict[str, JsonSchema] = field(default_factory=dict)
    #: Whether the arguments model is the permissive fallback (the input schema could not be used).
    permissive_arguments: bool = False
    #: None when the tool has no usable output schema.
    result_class: str | None = None


class _Hoister:
    """Rewrites refs of one root schema and collects the definitions they point to."""

    def __init__(
        self,
        root: JsonSchema,
        root_class: str,
        prefix: str,
        location: str,
        diagnostics: Diagnostics,
        claim: Callable[[str], str],
        arguments: _Hoister | None = None,
    ) -> None:
        self.root = root
        self.root_class = root_class
        self.prefix = prefix
        self.location = location
        self.diagnostics = diagnostics
        self.claim = claim
        self.hoisted: dict[str, str] = {}  # JSON pointer -> class name
        self.definitions: dict[str, JsonSchema] = {}
        #: Definitions whose body is being prepared (a recursive ref to one of them is not yet known).
        self.preparing: set[str] = set()
        #: Draft-07 or older (`$schema`): a `$ref` ignores its siblings.
        self.legacy = is_legacy_dialect(root.get("$schema"))
        #: The result's hoister shares the arguments' definitions that are the same schema (see `schema_names`).
        self.arguments = arguments

    def definition_for(self, pointer: str) -> str | None:
        if pointer in ("", "#"):
            return self.root_class
        if pointer in self.hoisted:
            return self.hoisted[pointer]
        target = resolve_pointer(self.root, pointer)
        if target is None:
            return None
        last = pointer.rstrip("/").rsplit("/", 1)[-1]
        base = pascal_case(last, fallback="Definition")
        if base.startswith(("Arguments", "Result")):
            base = f"Def{base}"  # keeps hoisted names apart from the roots and their nested classes
        name = self.prefix + base
        for holder in filter(None, (self, self.arguments)):
            if name in holder.definitions:
                theirs = {held: at for at, held in holder.hoisted.items()}.get(name)
                if theirs is not None and same_definition(
                    self.root, target, holder.root, resolve_pointer(holder.root, theirs)
                ):
                    self.hoisted[pointer] = name  # the same schema: the same class
                    return name
                name = self.root_class + place_name(pointer)  # by its place: `DraftNoteResultAuthor`
                break
        name = self.claim(name)
        self.hoisted[pointer] = name
        # Registered before preparing its body, so recursive refs inside it resolve to this name.
        self.definitions[name] = {}
        self.preparing.add(name)
        self.definitions[name] = prepare_schema(target, self, f"{self.location}.{pointer.lstrip('#/')}", name)
        self.preparing.discard(name)
        return name

    def accepts_anything(self, schema: Any) -> bool:
        """Whether a prepared (sub)schema takes every value: annotations at most, or a ref to such a definition."""
        if not isinstance(schema, dict):
            return False
        ref = schema.get("$ref")
        if isinstance(ref, str) and set(schema) == {"$ref"} and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in self.preparing or name not in self.definitions:
                return False
            schema = self.definitions[name]
        return set(schema) <= set(ANNOTATIONS)


def prepare_schema(schema: Any, hoister: _Hoister, location: str, class_path: str = "") -> JsonSchema:
    """A cleaned deep copy of one (sub)schema; refs point into the combined document.

    `class_path` is the class name the model generator gives an object here (`SearchArgumentsFilter`): the
    members of a discriminated union are named after it and their tag.
    """
    if schema is True or schema == {}:
        return {}
    if schema is False:
        return {"not": {}}
    if not isinstance(schema, dict):
        hoister.diagnostics.warn(location, "schema is not an object; accepted as any value", code="schema-not-object")
        return {}
    schema = in_current_dialect(schema, hoister.legacy)
    result: JsonSchema = {}
    for key, value in schema.items():
        if key in _DROPPED_KEYS or key in ("$defs", "definitions"):
            continue
        here = f"{location}.{key}"
        if key == "$ref":
            result[key] = _rewrite_ref(value, hoister, location)
        elif key in _SCHEMA_KEYS:
            result[key] = value if isinstance(value, bool) else prepare_schema(value, hoister, here, class_path)
        elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
            result[key] = [prepare_schema(item, hoister, f"{here}[{i}]", class_path) for i, item in enumerate(value)]
        elif key == "discriminator":
            continue  # OpenAPI's keyword, with refs to the server's names: made anew below where it holds
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            prepared = {}
            for name, sub in value.items():
                if key == "patternProperties" and not _compiles(name):
                    hoister.diagnostics.warn(f"{here}.{name}", _UNSUPPORTED_PATTERN, code="pattern-dropped")
                    continue
                nested_path = class_path + pascal_case(name, fallback="Field") if key == "properties" else class_path
                prepared[name] = prepare_schema(sub, hoister, f"{here}.{name}", nested_path)
            result[key] = prepared
        elif key == "pattern":
            if isinstance(value, str) and _compiles(value):
                result[key] = value
            else:
                hoister.diagnostics.warn(here, _UNSUPPORTED_PATTERN, code="pattern-dropped")
        elif key == "format":
            continue  # see the module docstring: every format stays a plain string
        elif key in ("enum", "const") and _has_wide_int(value if key == "enum" else [value]):
            hoister.diagnostics.warn(here, _WIDE_LITERAL, code="wide-integer-dropped")
        else:
            result[key] = copy.deepcopy(value)
    if "$ref" in result and isinstance(result["$ref"], dict):
        result.pop("$ref")
    result = _without_members_of_any_value(result, hoister)
    if "allOf" in result and "additionalProperties" not in result and any(map(_is_object, result["allOf"])):
        # The model generator merges an `allOf` of inline objects into one class and keeps only this level's
        # `additionalProperties`: without it, the keys its members leave open would be dropped.
        result["additionalProperties"] = True
    result = _widened(result)
    result = discriminated(result, hoister, class_path)
    _drop_unfit_default(result, location, hoister.diagnostics, lambda value: default_fits(value, schema, hoister.root))
    if _is_object(result) and "additionalProperties" not in result:
        result["additionalProperties"] = True
    return result


#: Keywords no Python type can say (they depend on other keywords' results, or on keys and positions):
#: dropped from the models, so the type accepts more; the tool's own schema still decides before sending.
_UNTYPED_KEYWORDS = (
    "unevaluatedItems", "unevaluatedProperties", "propertyNames", "contains", "minContains", "maxContains",
    "dependentSchemas", "dependentRequired", "dependencies", "if", "then", "else", "uniqueItems",
    "additionalItems", "minProperties", "maxProperties",
)  # fmt: skip
#: Keywords that fix which JSON types a schema without `type` takes (the others take any type).
_TYPE_DECIDING = ("type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf", "not")
_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})


def _without_members_of_any_value(schema: JsonSchema, hoister: _Hoister) -> JsonSchema:
    """`schema` less the `allOf` members that take any value (they add nothing), and less an `anyOf`/`oneOf` with
    such a member (it then takes any value; `oneOf`'s "only one" is a condition no type says).

    Members often take any value once widened (`{"properties": {...}}` without `type`: see `_widened`). Left in,
    the model generator makes an `allOf` of them a class with no fields that drops every key and refuses every
    value that is not an object.
    """
    members = schema.get("allOf")
    if isinstance(members, list) and any(hoister.accepts_anything(member) for member in members):
        kept = [member for member in members if not hoister.accepts_anything(member)]
        schema = {key: value for key, value in schema.items() if key != "allOf"}
        if kept:
            schema["allOf"] = kept
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list) and any(hoister.accepts_anything(member) for member in members):
            schema = {name: value for name, value in schema.items() if name != key}
    return schema


def _widened(schema: JsonSchema) -> JsonSchema:
    """`schema` less what Python types cannot say exactly, so the model accepts at least what it accepts.

    A generated type may accept more than the schema, never less: every call is checked against the tool's
    own schema before it is sent, so widening here costs a type's precision, never a valid call.
    """
    if "$ref" in schema:  # in 2020-12 the siblings of a `$ref` also apply: the ref's type alone is wider
        return {key: value for key, value in schema.items() if key == "$ref" or key in ANNOTATIONS}
    widened = {key: value for key, value in schema.items() if key not in _UNTYPED_KEYWORDS}
    if "prefixItems" in widened:  # positions: a list of anything (its length bounds still hold)
        del widened["prefixItems"]
        widened.pop("items", None)
    if "patternProperties" in widened:  # a key matching a pattern is allowed whatever else says
        del widened["patternProperties"]
        widened["additionalProperties"] = True
    for bound in ("exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(widened.get(bound), bool):  # draft-04's form
            del widened[bound]
    if "enum" in widened and not _scalar_list(widened["enum"]):
        del widened["enum"]
    if "const" in widened and not _scalar_list([widened["const"]]):
        del widened["const"]
    kind = widened.get("type")
    if kind is not None and not (
        (isinstance(kind, str) and kind in _JSON_TYPES)
        or (isinstance(kind, list) and kind and all(isinstance(k, str) and k in _JSON_TYPES for k in kind))
    ):
        del widened["type"]
    if not any(key in widened for key in _TYPE_DECIDING):  # keywords of one type apply only to that type
        return {key: value for key, value in widened.items() if key in ANNOTATIONS}
    return widened


def _scalar_list(values: object) -> bool:
    return (
        isinstance(values, list)
        and bool(values)
        and all(isinstance(v, str | int | float | bool) or v is None for v in values)
    )


def _flattened_root(schema: JsonSchema) -> JsonSchema:
    """An arguments root as one object of named properties: the methods' keyword parameters.

    The properties of the root's `allOf`, `anyOf` and `oneOf` branches (and of a root `$ref`) join its own:
    required where the root or an `allOf` branch requires them, else optional; a property two places type
    differently takes any value. Conditions between them (`not`, `if`, which branch) are left to the schema.
    """
    branches_by_key = {key: schema[key] for key in ("allOf", "anyOf", "oneOf") if isinstance(schema.get(key), list)}
    if isinstance(schema.get("$ref"), str):
        branches_by_key["allOf"] = [*branches_by_key.get("allOf", []), {"$ref": schema["$ref"]}]
    if not branches_by_key and not any(key in schema for key in ("not", "if", "then", "else")):
        return schema
    root = {
        k: v for k, v in schema.items() if k not in ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref")
    }
    listed = root.get("properties")
    properties: JsonSchema = dict(listed) if isinstance(listed, dict) else {}
    required = [name for name in root.get("required", []) if isinstance(name, str)]
    for key, branches in branches_by_key.items():
        for branch in branches:
            if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
                branch = resolve_pointer(schema, branch["$ref"]) if branch["$ref"].startswith("#") else None
            if not isinstance(branch, dict):
                continue
            branch_properties = branch.get("properties")
            for name, sub in (branch_properties if isinstance(branch_properties, dict) else {}).items():
                if name not in properties:
                    properties[name] = sub
                elif properties[name] != sub and key != "allOf":
                    properties[name] = {}
            if key == "allOf" and isinstance(branch.get("required"), list):
                required += [name for name in branch["required"] if isinstance(name, str)]
    root["properties"] = properties
    root["required"] = list(dict.fromkeys(required))
    return root


def _rewrite_ref(ref: Any, hoister: _Hoister, location: str) -> Any:
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        hoister.diagnostics.warn(
            f"{location}.$ref", "only local $refs are followed; this one is accepted as any value", code="ref-not-local"
        )
        return {}
    name = hoister.definition_for(ref)
    if name is None:
        hoister.diagnostics.warn(
            f"{location}.$ref", "unresolvable $ref; accepted as any value", code="ref-unresolvable"
        )
        return {}
    return f"#/$defs/{name}"


def _compiles(pattern: str) -> bool:
    """Whether both Python and pydantic's regex engine (Rust `regex`: no look-around, no backreferences)
    accept the pattern: one either rejects makes the generated module fail at import."""
    # On use: importing pydantic-core costs ~13 ms, which a regeneration whose changed tools hold no pattern skips.
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        with warnings.catch_warnings():  # FutureWarning on syntax Python may reinterpret: still compiles
            warnings.simplefilter("ignore")
            re.compile(pattern)
        SchemaValidator(core_schema.str_schema(pattern=pattern))
    except (re.error, SchemaError, RecursionError, OverflowError):
        return False
    return True


def _has_wide_int(values: object) -> bool:
    """Whether `values` (an enum's list) holds an integer mypy rejects in `Literal[...]`."""
    return isinstance(values, list) and any(beyond_literal_range(value) for value in values)


def beyond_literal_range(value: object) -> bool:
    """Whether `value` is an integer beyond 64 bits, which mypy rejects in `Literal[...]`."""
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > _LITERAL_INT_MAX


def _is_object(schema: JsonSchema) -> bool:
    kind = schema.get("type")
    return kind == "object" or (kind is None and "properties" in schema)


def _drop_unfit_default(
    schema: JsonSchema, location: str, diagnostics: Diagnostics, structured_fits: Callable[[Any], bool]
) -> None:
    """Keep a default only when it is a scalar that fits the declared type and enum, or an array or object
    that `structured_fits` (valid against the raw schema: see `model_defaults`).

    Defaults shape the model's default, which the fake server's handlers see (unset fields are never sent);
    one of the wrong type makes the generated module fail `mypy --strict`. A `null` default on a property
    that does not accept null (what schemas made from Python signatures say for an optional argument) is the
    server's "not given": it is left out without a warning, the field stays optional.
    """
    if "default" not in schema:
        return
    default = schema["default"]
    if default is None and not accepts_null(schema):
        del schema["default"]
        return
    if isinstance(default, list | dict):
        if not structured_fits(default):
            del schema["default"]
            diagnostics.warn(f"{location}.default", _UNFIT_DEFAULT, code="default-dropped")
        return
    fits = isinstance(default, str | int | float | bool) or default is None
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if fits and kinds is not None:
        fits = any(_fits_type(default, k) for k in kinds)
    if fits and "enum" in schema:
        fits = default in schema["enum"] if isinstance(schema["enum"], list) else False
    if fits and "const" in schema:
        fits = default == schema["const"]
    if not fits:
        del schema["default"]
        diagnostics.warn(f"{location}.default", _UNFIT_DEFAULT, code="default-dropped")


def _fits_type(value: object, kind: object) -> bool:
    if not isinstance(kind, str) or kind not in _PRIMITIVE_TYPES:
        return False  # a scalar never fits `object` or `array` (nor an unknown type)
    if isinstance(value, bool) and kind != "boolean":
        return False
    return isinstance(value, _PRIMITIVE_TYPES[kind])


def accepts_null(schema: Any) -> bool:
    """Whether `null` is a valid value of `schema`, as far as can be told without following `$ref`s.

    Unsure cases (a `$ref`) count as not accepting it: the caller then leaves null out, the safe side.
    """
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind is not None and not (
        kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True
    ):
        return False
    if "enum" in schema and not (isinstance(schema["enum"], list) and None in schema["enum"]):
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and not any(accepts_null(branch) for branch in branches):
            return False
    branches = schema.get("allOf")
    if isinstance(branches, list) and not all(accepts_null(branch) for branch in branches):
        return False
    return "$ref" not in schema


def prepare_tool(
    tool: dict[str, Any],
    *,
    class_prefix: str,
    location: str,
    diagnostics: Diagnostics,
    claim: Callable[[str], str],
) -> PreparedTool:
    """The arguments (and result) definitions of one tool for the combined document."""
    prepared = PreparedTool()
    arguments_class = f"{class_prefix}Arguments"
    arguments: _Hoister | None = None
    input_schema = tool.get("inputSchema")
    if _usable_input_schema(input_schema, f"{location}.inputSchema", diagnostics):
        assert isinstance(input_schema, dict)
        normalized = _normalized_root(input_schema)
        hoister = arguments = _Hoister(
            normalized, arguments_class, class_prefix, f"{location}.inputSchema", diagnostics, claim
        )
        root = prepare_schema(normalized, hoister, f"{location}.inputSchema", arguments_class)
        if not root.get("properties") and root.get("additionalProperties", True) is not True:
            # Keys alone (`additionalProperties: {schema}`): a root model to the generator, the method's
            # `extra_arguments` to us; the keys' schema is checked before sending.
            root["additionalProperties"] = True
        prepared.definitions[arguments_class] = root
        prepared.definitions.update(hoister.definitions)
    else:
        prepared.permissive_arguments = True
        prepared.definitions[arguments_class] = {"type": "object", "additionalProperties": True}

    output_schema = tool.get("outputSchema")
    if output_schema is not None:
        if _usable_output_schema(output_schema, f"{location}.outputSchema", diagnostics):
            assert isinstance(output_schema, dict)
            result_class = f"{class_prefix}Result"
            normalized = _normalized_root(output_schema)
            hoister = _Hoister(
                normalized, result_class, class_prefix, f"{location}.outputSchema", diagnostics, claim, arguments
            )
            prepared.definitions[result_class] = prepare_schema(
                normalized, hoister, f"{location}.outputSchema", result_class
            )
            prepared.definitions.update(hoister.definitions)
            prepared.result_class = result_class
    return prepared


def _normalized_root(schema: JsonSchema) -> JsonSchema:
    """A root schema as an object with `properties` (MCP roots are objects): a model class, never a root model."""
    schema = _flattened_root(schema)
    if schema.get("type") != "object":
        schema = {**schema, "type": "object"}
    if not isinstance(schema.get("properties"), dict):
        schema = {**schema, "properties": {}}
    return schema


def _object_schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be read as an object schema ("empty", or a description), or None if it can."""
    if not isinstance(schema, dict):
        return "schema is not a JSON object"
    kind = schema.get("type")
    if kind is None:
        return "empty" if not schema or set(schema) <= {"$schema", "title", "description"} else None
    return None if kind == "object" else f"schema type is {kind!r}, not 'object'"


def _usable_input_schema(schema: Any, location: str, diagnostics: Diagnostics) -> bool:
    """Whether the input schema can be read as an object schema; if not, one warning saying what happens instead."""
    problem = _object_schema_problem(schema)
    if problem == "empty":
        diagnostics.warn(location, f"empty schema; {_ANY_ARGUMENTS}", code="input-schema-empty")
    elif problem is not None:
        diagnostics.warn(location, f"{problem}; {_ANY_ARGUMENTS}", code="input-schema-permissive")
    elif "type" not in schema:
        diagnostics.warn(location, "schema has no 'type'; read as an object", code="input-schema-no-type")
    return problem is None


def _usable_output_schema(schema: Any, location: str, diagnostics: Diagnostics) -> bool:
    """Whether the output schema can be read as an object schema; if not, one warning: results are untyped."""
    problem = _object_schema_problem(schema)
    if problem is not None:
        what = "empty schema" if problem == "empty" else problem
        diagnostics.warn(location, f"{what}; results are untyped", code="output-schema-untyped")
    elif "type" not in schema:
        diagnostics.warn(location, "schema has no 'type'; read as an object", code="output-schema-no-type")
    return problem is None


#: Object keywords that say which keys beyond the listed properties a schema takes.
_EXTRA_KEY_KEYWORDS = ("patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentSchemas")


def names_extra_keys(input_schema: Any) -> bool:
    """Whether an input schema says it takes keys beyond its listed properties (`additionalProperties` or
    `unevaluatedProperties` other than false, or a keyword about keys): its method then takes `extra_arguments`.

    A schema that merely leaves `additionalProperties` out allows any key too, but says nothing of them: its
    extra keys go through `call()`, which keeps every method of the ordinary tools as short as the listing.
    """
    if not isinstance(input_schema, dict):
        return False
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if keyword in input_schema and input_schema[keyword] is not False:
            return True
    return any(keyword in input_schema for keyword in _EXTRA_KEY_KEYWORDS)


def is_wrapped_primitive(output_schema: Any) -> bool:
    """The SDK servers' `{"result": value}` wrapping of a primitive (or list) return value."""
    if not isinstance(output_schema, dict):
        return False
    properties = output_schema.get("properties")
    if not isinstance(properties, dict) or list(properties) != ["result"]:
        return False
    if output_schema.get("required") != ["result"]:
        return False
    title = output_schema.get("title")
    return output_schema.get("x-fastmcp-wrap-result") is True or (isinstance(title, str) and title.endswith("Output"))
