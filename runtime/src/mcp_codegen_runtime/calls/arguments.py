"""A tool call's wire arguments: the caller's values as given, checked against the tool's own JSON Schema.

The rule (docs: "How arguments are checked"): what a tool's schema accepts is sent exactly as the caller
gave it (an `int` stays an int on a `number`, nothing is coerced, added or dropped), and what it refuses
is refused before anything is sent. The verdict is the schema's own, from a real JSON Schema validator in
the schema's dialect (`$schema`: draft-04 to 2020-12; 2020-12 when absent, as MCP says), `format` not
asserted. The generated types may accept more than the schema (where a keyword has no Python type); they
never decide alone.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, cast

from pydantic import BaseModel

from ..text import one_line

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from .specs import ToolSpec

__all__ = [
    "InvalidArguments",
    "SchemaCheck",
    "given_twice",
    "json_value",
    "python_named",
]

#: The number of problems an error lists (the exception keeps them all).
_PROBLEMS_KEPT: Final = 20
#: The longest schema value (an enum, a pattern) quoted in a message.
_QUOTED_LIMIT: Final = 80


class InvalidArguments(Exception):
    """The arguments are refused before sending: `errors` in pydantic's `ErrorDetails` form, by wire name."""

    def __init__(self, errors: list[ErrorDetails]) -> None:
        super().__init__(errors)
        self.errors = errors


def _error(
    kind: str, location: tuple[str | int, ...], message: str, value: object
) -> ErrorDetails:
    return cast(
        "ErrorDetails", {"type": kind, "loc": location, "msg": message, "input": value}
    )


def given_twice(name: str, value: object) -> ErrorDetails:
    return _error(
        "given_twice",
        (name,),
        "is given twice (as a parameter and in extra_arguments)",
        value,
    )


def python_named(
    errors: list[ErrorDetails], spec: ToolSpec[Any, Any]
) -> list[ErrorDetails]:
    """`errors` with each location's first part, a wire name, as the typed method's parameter name."""
    python_of = {wire: name for name, wire in spec.wire_names().items() if wire != name}
    if not python_of:
        return errors
    renamed: list[ErrorDetails] = []
    for error in errors:
        location = error["loc"]
        if location and isinstance(location[0], str) and location[0] in python_of:
            error = cast(
                "ErrorDetails",
                {**error, "loc": (python_of[location[0]], *location[1:])},
            )
        renamed.append(error)
    return renamed


def json_value(value: object, location: tuple[str | int, ...] = ()) -> object:
    """`value` as the JSON value it is sent as: unchanged where it already is one (numbers keep their form).

    Pydantic models become their JSON (by alias, only the fields that were set), enums their value, tuples
    lists; anything JSON cannot say (a set, bytes, a NaN, a non-string key) raises `InvalidArguments`.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if math.isfinite(cast(float, value)):
            return value
        raise InvalidArguments(
            [
                _error(
                    "json",
                    location,
                    "is not a finite number (JSON has no NaN or Infinity)",
                    value,
                )
            ]
        )
    if kind is dict or isinstance(value, Mapping):
        mapping = cast("Mapping[object, object]", value)
        result: dict[str, object] = {}
        for key, item in mapping.items():
            if not isinstance(key, str):
                raise InvalidArguments(
                    [
                        _error(
                            "json", location, "has a key that is not a string", mapping
                        )
                    ]
                )
            result[key] = json_value(item, (*location, key))
        return result
    if kind is list or kind is tuple:
        return [
            json_value(item, (*location, index))
            for index, item in enumerate(cast("list[object]", value))
        ]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, enum.Enum):
        return json_value(value.value, location)
    for base in (bool, int, float, str):  # subclasses (an IntEnum is caught above)
        if isinstance(value, base):
            return json_value(base(cast(Any, value)), location)
    raise InvalidArguments(
        [
            _error(
                "json", location, f"is a {kind.__name__}, which has no JSON form", value
            )
        ]
    )


class SchemaCheck:
    """One input (or output) schema, compiled once in its own dialect: `problems(value)` lists what it refuses."""

    __slots__ = ("_plain", "_unexpected", "_validator", "properties", "schema")

    def __init__(
        self, schema: Mapping[str, Any], *, key_noun: str = "an argument"
    ) -> None:
        self.schema = schema
        #: What a key the schema does not allow is called in messages ("an argument", "a key").
        self._unexpected = f"is not {key_noun} the schema allows"
        listed: object = schema.get("properties")
        #: The wire names the schema lists.
        self.properties: frozenset[str] = frozenset(
            cast("dict[str, object]", listed) if isinstance(listed, dict) else ()
        )
        self._validator: Any = _compiled(schema)
        self._plain = _PlainObject.of(schema) if self._validator is not None else None

    def problems(self, arguments: object) -> list[ErrorDetails]:
        """The schema's verdict on `arguments` (wire names, JSON values; or a structured result): empty when it
        accepts them.

        A schema the validator cannot read, or a `$ref` it cannot resolve here (a remote one), gives no
        verdict: the arguments are sent and the server decides.
        """
        validator = self._validator
        if validator is None:
            return []
        plain = self._plain
        if (
            plain is not None
            and type(arguments) is dict
            and plain.accepts(cast("dict[str, object]", arguments))
        ):
            return []
        try:
            if validator.is_valid(arguments):
                return []
            found = sorted(validator.iter_errors(arguments), key=_error_order)
        except (_Unresolvable, RecursionError, TypeError, ValueError, LookupError):
            return []
        errors: list[ErrorDetails] = []
        for error in found:
            errors.extend(_details(error, self._unexpected))
            if len(errors) >= _PROBLEMS_KEPT:
                break
        return errors[:_PROBLEMS_KEPT]


#: What a plain property's `type` admits, by the exact Python type of a JSON value (`bool` is not an `int`).
_PLAIN_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list,),
}
#: Keys that leave a schema plain (they describe, they do not constrain).
_PLAIN_KEYS: Final = frozenset(
    {"type", "title", "description", "default", "examples", "deprecated", "$comment"}
)
_PLAIN_ROOT_KEYS: Final = _PLAIN_KEYS | {
    "properties",
    "required",
    "additionalProperties",
    "$schema",
}


class _PlainObject:
    """The common schema of flat arguments (properties of one JSON type each, `required`, open or closed),
    checked with a few type tests: a sure "valid" skips the validator; anything else goes to it.
    """

    __slots__ = ("closed", "required", "types")

    def __init__(
        self,
        required: tuple[str, ...],
        types: dict[str, tuple[type, ...]],
        closed: bool,
    ) -> None:
        self.required = required
        self.types = types
        self.closed = closed

    @classmethod
    def of(cls, schema: Mapping[str, Any]) -> _PlainObject | None:
        """The plain reading of `schema`, or None where it has anything else (then only the validator decides)."""
        if (
            not set(schema) <= _PLAIN_ROOT_KEYS
            or schema.get("type", "object") != "object"
        ):
            return None
        if isinstance(schema.get("$schema"), str) and "draft-03" in schema["$schema"]:
            return None  # `required` was a property's boolean there
        properties: object = schema.get("properties", {})
        required: object = schema.get("required", [])
        extra: object = schema.get("additionalProperties", True)
        if not isinstance(properties, dict) or not isinstance(required, list):
            return None
        if not isinstance(extra, bool) or not all(
            isinstance(n, str) for n in cast("list[object]", required)
        ):
            return None
        types: dict[str, tuple[type, ...]] = {}
        for name, sub in cast("dict[str, object]", properties).items():
            if (
                not isinstance(sub, dict)
                or not set(cast("dict[str, object]", sub)) <= _PLAIN_KEYS
            ):
                return None
            kind: object = cast("dict[str, object]", sub).get("type")
            kinds = cast("list[object]", kind) if isinstance(kind, list) else [kind]
            if not kinds or not all(
                isinstance(k, str) and k in _PLAIN_TYPES for k in kinds
            ):
                return None
            types[name] = tuple(t for k in kinds for t in _PLAIN_TYPES[cast(str, k)])
        return cls(tuple(cast("list[str]", required)), types, not extra)

    def accepts(self, arguments: Mapping[str, object]) -> bool:
        for name in self.required:
            if name not in arguments:
                return False
        types = self.types
        for name, value in arguments.items():
            allowed = types.get(name)
            if allowed is None:
                if self.closed:
                    return False
            elif type(value) not in allowed:
                return False
        return True


#: `referencing`'s error for a `$ref` it cannot resolve (set when the first schema is compiled).
_Unresolvable: type[Exception] = LookupError


def _compiled(schema: Mapping[str, Any]) -> Any:
    """A `jsonschema` validator for `schema` in its dialect, or None when it is no valid JSON Schema.

    jsonschema (a dependency of `mcp`) ships no type information: it is imported as a module object, so
    the generated package stays `mypy --strict` clean without its stubs.
    """
    import importlib
    import warnings

    global _Unresolvable
    _Unresolvable = importlib.import_module("referencing.exceptions").Unresolvable
    validators: Any = importlib.import_module("jsonschema.validators")
    exceptions: Any = importlib.import_module("jsonschema.exceptions")
    registry: Any = importlib.import_module("referencing").Registry()
    with (
        warnings.catch_warnings()
    ):  # an unknown `$schema` URI: read as 2020-12, MCP's default
        warnings.simplefilter("ignore")
        validator_class = validators.validator_for(
            schema, default=validators.Draft202012Validator
        )
    try:
        validator_class.check_schema(schema)
    except exceptions.SchemaError:
        return None
    # An empty registry: `$ref`s resolve inside the schema (and the metaschemas), never over the network.
    return validator_class(schema, registry=registry)


def _error_order(error: Any) -> tuple[int, str]:
    return (
        len(error.absolute_path),
        "/".join(str(part) for part in error.absolute_path),
    )


def _details(error: Any, unexpected: str) -> Iterator[ErrorDetails]:
    """One validator error as `ErrorDetails`; its message names the schema's rule, never the value given."""
    location = tuple(error.absolute_path)
    keyword = str(error.validator)
    value = error.validator_value
    instance = error.instance
    if keyword == "required" and isinstance(instance, dict):
        for name in cast("list[object]", value):
            if isinstance(name, str) and name not in instance:
                yield _error("missing", (*location, name), "required, not given", None)
        return
    if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(
        instance, dict
    ):
        given = cast("dict[str, object]", instance)
        for name in _unexpected_keys(given, error.schema) or [""]:
            yield _error(
                keyword,
                (*location, name) if name else location,
                unexpected,
                given.get(name),
            )
        return
    message = _message(keyword, value)
    schema: object = error.schema
    if keyword in ("minimum", "maximum") and isinstance(schema, dict):
        bounds = cast("dict[str, object]", schema)
        if bounds.get(f"exclusive{keyword.title()}") is True:  # draft-04's form
            message = message.replace("=", "")
    if "propertyNames" in error.absolute_schema_path and isinstance(instance, str):
        message = (
            f"has a key, {one_line(repr(instance), _QUOTED_LIMIT)}, that {message}"
        )
    yield _error(keyword, location, message, instance)


def _unexpected_keys(instance: dict[str, object], schema: object) -> list[str]:
    import re

    if not isinstance(schema, dict):
        return []
    keywords = cast("dict[str, object]", schema)
    properties, patterns = keywords.get("properties"), keywords.get("patternProperties")
    listed = (
        set(cast("dict[str, object]", properties))
        if isinstance(properties, dict)
        else set[str]()
    )
    regexes: list[re.Pattern[str]] = []
    for pattern in (
        cast("dict[str, object]", patterns) if isinstance(patterns, dict) else ()
    ):
        try:
            regexes.append(re.compile(pattern))
        except re.error:
            continue
    return [
        key
        for key in instance
        if key not in listed and not any(regex.search(key) for regex in regexes)
    ]


def _quoted(value: object) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return one_line(text, _QUOTED_LIMIT)


def _count(value: object, unit: str) -> str:
    return f"{value} {unit}" if value == 1 else f"{value} {unit}s"


_MESSAGES: Final[dict[str, Callable[[object], str]]] = {
    "type": lambda v: (
        "must be of type "
        + (
            " or ".join(map(str, cast("list[object]", v)))
            if isinstance(v, list)
            else str(v)
        )
    ),
    "enum": lambda v: f"must be one of {_quoted(v)}",
    "const": lambda v: f"must be {_quoted(v)}",
    "minimum": lambda v: f"must be >= {v}",
    "maximum": lambda v: f"must be <= {v}",
    "exclusiveMinimum": lambda v: (
        f"must be > {v}" if not isinstance(v, bool) else "must be above the minimum"
    ),
    "exclusiveMaximum": lambda v: (
        f"must be < {v}" if not isinstance(v, bool) else "must be below the maximum"
    ),
    "multipleOf": lambda v: f"must be a multiple of {v}",
    "minLength": lambda v: f"must have at least {_count(v, 'character')}",
    "maxLength": lambda v: f"must have at most {_count(v, 'character')}",
    "pattern": lambda v: f"must match the pattern {_quoted(v)}",
    "minItems": lambda v: f"must have at least {_count(v, 'item')}",
    "maxItems": lambda v: f"must have at most {_count(v, 'item')}",
    "additionalItems": lambda v: "has more items than the schema allows",
    "items": lambda v: (
        "has more items than the schema allows"
        if v is False
        else "has an item the schema refuses"
    ),
    "unevaluatedItems": lambda v: "has more items than the schema allows",
    "uniqueItems": lambda v: "must not repeat an item",
    "contains": lambda v: "must contain an item the schema asks for",
    "minContains": lambda v: f"must contain at least {_count(v, 'matching item')}",
    "maxContains": lambda v: f"must contain at most {_count(v, 'matching item')}",
    "minProperties": lambda v: f"must have at least {_count(v, 'key')}",
    "maxProperties": lambda v: f"must have at most {_count(v, 'key')}",
    "propertyNames": lambda v: "has a key the schema does not allow",
    "dependentRequired": lambda v: "lacks a key another key requires",
    "dependencies": lambda v: "lacks what another key requires",
    "anyOf": lambda v: "matches none of the allowed forms (anyOf)",
    "oneOf": lambda v: "must match exactly one of the allowed forms (oneOf)",
    "not": lambda v: "matches a form the schema refuses (not)",
    "false": lambda v: "no value is allowed here",
}


def _message(keyword: str, value: object) -> str:
    describe = _MESSAGES.get(keyword)
    if describe is not None:
        return describe(value)
    if keyword == "None":  # the `false` schema
        return _MESSAGES["false"](value)
    return f"does not satisfy the schema's {one_line(keyword, 40)!r}"
