"""Elicitation answers checked against the requested schema; the stock handlers accept_defaults and ask_on_terminal."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TextIO, cast

from .messages import (
    Accept,
    Cancel,
    Decline,
    ElicitationAnswer,
    ElicitationRequest,
)

__all__ = ["accept_defaults", "ask_on_terminal", "elicited_content"]


def _properties(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    raw = schema.get("properties")
    if not isinstance(raw, Mapping):
        return {}
    found: dict[str, Mapping[str, Any]] = {}
    for name, spec in cast(Mapping[object, object], raw).items():
        if isinstance(name, str) and isinstance(spec, Mapping):
            found[name] = cast(Mapping[str, Any], spec)
    return found


def _type_error(name: str, spec: Mapping[str, Any], value: object) -> str | None:
    """Why `value` does not fit the property `spec`, or None."""
    kind = spec.get("type")
    if kind == "string":
        if not isinstance(value, str):
            return f"{name!r} must be a string"
        choices = _choices(spec)
        if choices is not None and value not in choices:
            return f"{name!r} must be one of {sorted(choices)}"
        low, high = spec.get("minLength"), spec.get("maxLength")
        if isinstance(low, int) and len(value) < low:
            return f"{name!r} must have at least {low} characters"
        if isinstance(high, int) and len(value) > high:
            return f"{name!r} must have at most {high} characters"
    elif kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{name!r} must be a {kind}"
        if kind == "integer" and not (isinstance(value, int) or value.is_integer()):
            return f"{name!r} must be an integer"
        if isinstance(value, float) and not math.isfinite(value):
            return f"{name!r} must be finite"
        low, high = spec.get("minimum"), spec.get("maximum")
        if isinstance(low, int | float) and value < low:
            return f"{name!r} must be at least {low}"
        if isinstance(high, int | float) and value > high:
            return f"{name!r} must be at most {high}"
    elif kind == "boolean":
        if not isinstance(value, bool):
            return f"{name!r} must be a boolean"
    elif kind == "array":
        if not isinstance(value, list | tuple) or not all(
            isinstance(item, str) for item in cast(Sequence[object], value)
        ):
            return f"{name!r} must be a list of strings"
        items = spec.get("items")
        choices = (
            _choices(cast(Mapping[str, Any], items))
            if isinstance(items, Mapping)
            else None
        )
        if choices is not None:
            bad = [i for i in cast(Sequence[str], value) if i not in choices]
            if bad:
                return f"{name!r} must only hold values of {sorted(choices)}"
    return None


def _choices(spec: Mapping[str, Any]) -> set[str] | None:
    """The allowed values of a string (or array item) schema: `enum`, or `oneOf`/`anyOf` consts."""
    enum = spec.get("enum")
    if isinstance(enum, list):
        return {str(v) for v in cast(list[object], enum)}
    for key in ("oneOf", "anyOf"):
        options = spec.get(key)
        if isinstance(options, list):
            values = {
                str(cast(Mapping[str, object], option)["const"])
                for option in cast(list[object], options)
                if isinstance(option, Mapping) and "const" in option
            }
            if values:
                return values
    return None


def elicited_content(
    schema: Mapping[str, Any], content: Mapping[str, object]
) -> dict[str, object]:
    """`content` checked against the elicitation `schema`, with the schema's defaults filled in.

    Raises `ValueError` naming what does not fit (an unknown or missing required property, a
    wrong type, a value outside its enum or bounds).
    """
    properties = _properties(schema)
    result: dict[str, object] = {}
    problems: list[str] = []
    for name, value in content.items():
        spec = properties.get(name)
        if spec is None:
            problems.append(f"{name!r} is not a requested property")
            continue
        if value is None:
            continue
        problem = _type_error(name, spec, value)
        if problem is not None:
            problems.append(problem)
        else:
            result[name] = (
                list(cast(tuple[object, ...], value))
                if isinstance(value, tuple)
                else value
            )
    for name, spec in properties.items():
        if name not in result and "default" in spec:
            result[name] = spec["default"]
    required = schema.get("required")
    if isinstance(required, list):
        for wanted in cast(list[object], required):
            if isinstance(wanted, str) and wanted not in result:
                problems.append(f"{wanted!r} is required")
    if problems:
        raise ValueError("; ".join(problems))
    return result


def accept_defaults(request: ElicitationRequest) -> Accept | Decline:
    """An elicitation handler that accepts with the schema's defaults (and nothing else).

    Declines when a required property has no default (there is nothing valid to send), and
    in URL mode (nobody is there to open the URL).
    """
    if request.mode == "url":
        return Decline()
    properties = _properties(request.requested_schema)
    required = request.requested_schema.get("required")
    if isinstance(required, list):
        for name in cast(list[object], required):
            if not (isinstance(name, str) and "default" in properties.get(name, {})):
                return Decline()
    return Accept({})


def _parse_answer(spec: Mapping[str, Any], text: str) -> object:
    kind = spec.get("type")
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind == "integer":
        return int(text)
    if kind == "number":
        number = float(text)
        return int(number) if number.is_integer() else number
    if kind == "array":
        return [item.strip() for item in text.split(",") if item.strip()]
    return text


def ask_on_terminal(
    request: ElicitationRequest,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> ElicitationAnswer:
    """An elicitation handler that asks on the terminal, one line per requested property.

    An empty line keeps the property's default (or leaves it out); end of input cancels;
    a first answer of `!decline` declines. It blocks its thread while waiting: with an
    `AsyncClient` prefer an `async def` wrapper running it in `anyio.to_thread.run_sync`.
    `stdin`/`stdout` default to `sys.stdin`/`sys.stdout`.
    """
    import sys

    reader = stdin if stdin is not None else sys.stdin
    writer = stdout if stdout is not None else sys.stdout
    writer.write(f"{request.message}\n")
    if request.mode == "url":
        writer.write(f"Open {request.url} ? [y/N] ")
        writer.flush()
        line = reader.readline()
        if not line:
            return Cancel()
        return Accept() if line.strip().lower() in ("y", "yes") else Decline()
    content: dict[str, object] = {}
    required = request.requested_schema.get("required")
    needed: set[object] = (
        set(cast(list[object], required)) if isinstance(required, list) else set()
    )
    for name, spec in _properties(request.requested_schema).items():
        label = str(spec.get("title") or name)
        hints: list[str] = []
        choices = _choices(spec)
        if choices is not None:
            hints.append("/".join(sorted(choices)))
        if "default" in spec:
            hints.append(f"default {spec['default']}")
        if name in needed:
            hints.append("required")
        while True:
            suffix = f" [{', '.join(hints)}]" if hints else ""
            writer.write(f"{label}{suffix}: ")
            writer.flush()
            line = reader.readline()
            if not line:
                return Cancel()
            text = line.rstrip("\r\n")
            if text == "!decline" and not content:
                return Decline()
            if not text:
                break
            value: object = None
            try:
                value = _parse_answer(spec, text)
                problem = _type_error(name, spec, value)
            except ValueError as error:
                problem = str(error) or "invalid value"
            if problem is None:
                content[name] = value
                break
            writer.write(f"  {problem}\n")
    return Accept(content)
