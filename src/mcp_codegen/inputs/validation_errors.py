"""Pydantic validation errors as one line each: every problem at its TOML-style dotted location, unknown keys
with the closest valid one; input values are never quoted (they may be secrets)."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Sequence
from typing import Any, Union

from pydantic import BaseModel, ValidationError

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def describe_validation_error(error: ValidationError, model: type[BaseModel]) -> str:
    """One line for a pydantic error: each problem with its dotted location, unknown keys with a suggestion.

    Input values are never quoted (they may be secrets).
    """
    problems: list[str] = []
    for item in error.errors(include_input=False, include_url=False):
        location = tuple(item["loc"])
        dotted = dotted_location(location)
        if item["type"] == "extra_forbidden":
            valid = _valid_keys(model, location[:-1])
            suggestion = difflib.get_close_matches(str(location[-1]), valid, n=1, cutoff=0.6)
            hint = f" (did you mean {suggestion[0]!r}?)" if suggestion else f" (valid keys: {', '.join(valid)})"
            problems.append(f"unknown key {dotted}{hint}")
            continue
        message = str(item["msg"]).removeprefix("Value error, ")
        problems.append(f"{dotted}: {message}" if dotted else message)
    shown = "; ".join(problems[:3])
    return shown + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")


def dotted_location(location: Sequence[int | str]) -> str:
    """`("servers", "my server", "env")` -> `servers."my server".env` (TOML dotted-key style)."""
    parts = []
    for part in location:
        text = str(part)
        parts.append(text if _BARE_KEY.fullmatch(text) else '"' + text.replace('"', '\\"') + '"')
    return ".".join(parts)


def _valid_keys(model: type[BaseModel], location: Sequence[int | str]) -> list[str]:
    """The field names of the model found at `location` under `model`, following dict values."""
    current: Any = model
    for part in location:
        origin = typing.get_origin(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return []
            current = _unwrap_optional(field.annotation)
        elif origin is dict:
            current = _unwrap_optional(typing.get_args(current)[1])
        elif origin is list:
            current = _unwrap_optional(typing.get_args(current)[0])
        else:
            return []
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return options[0]
    return annotation
