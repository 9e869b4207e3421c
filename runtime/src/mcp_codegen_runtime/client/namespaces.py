"""`client.prompts` and `client.resources`: prompt arguments and resource-template URIs checked and filled in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    cast,
)

from ..calls.errors import (
    ArgumentsValidationError,
)
from ..calls.results import PromptResult, ResourceResult
from ..calls.sentinel import NOT_SENT
from ..calls.uri import expand_uri_template

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from ..calls.specs import PromptSpec, ResourceSpec, TemplateSpec
    from .base import AsyncClientBase


def _error(kind: str, location: str, message: str, value: object) -> ErrorDetails:
    return {"type": kind, "loc": (location,), "msg": message, "input": value}


def template_uri(spec: TemplateSpec, values: Mapping[str, object]) -> str:
    """The URI of `spec` expanded with `values` (Python or wire variable names; NOT_SENT/None left out)."""
    variables: dict[str, str | Sequence[str]] = {}
    errors: list[ErrorDetails] = []
    known: set[str] = set()
    for wire, python in spec.variables:
        known.update((wire, python))
        value = values.get(python, NOT_SENT)
        if value is NOT_SENT:
            value = values.get(wire, NOT_SENT)
        if value is NOT_SENT or value is None:
            continue
        converted = _template_value(value)
        if converted is None:
            errors.append(
                _error("string_type", python, "Input should be a valid string", value)
            )
        else:
            variables[wire] = converted
    for key, value in values.items():
        if key not in known and value is not NOT_SENT and value is not None:
            converted = _template_value(value)
            if converted is not None:
                variables[key] = converted
    if errors:
        raise ArgumentsValidationError(errors, tool=spec.name, what="resource template")
    return expand_uri_template(spec.uri_template, variables)


def prompt_arguments(spec: PromptSpec, values: Mapping[str, object]) -> dict[str, str]:
    """The wire arguments of `spec` from `values` keyed by Python (or wire) names; NOT_SENT left out."""
    arguments: dict[str, str] = {}
    errors: list[ErrorDetails] = []
    known: set[str] = set()
    for wire, python, required in spec.arguments:
        known.update((wire, python))
        value = values.get(python, NOT_SENT)
        if value is NOT_SENT:
            value = values.get(wire, NOT_SENT)
        if value is NOT_SENT or value is None:
            if required:
                errors.append(_error("missing", python, "Field required", None))
            continue
        if not isinstance(value, str):
            errors.append(
                _error("string_type", python, "Input should be a valid string", value)
            )
            continue
        arguments[wire] = value
    for key, value in values.items():
        if key not in known and isinstance(value, str):
            arguments[key] = value
    if errors:
        raise ArgumentsValidationError(errors, tool=spec.name, what="prompt")
    return arguments


def _template_value(value: object) -> str | Sequence[str] | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        items: list[str] = []
        for item in cast(Sequence[object], value):
            if not isinstance(item, str | int | float) or isinstance(item, bool):
                return None
            items.append(str(item))
        return items
    return None


class AsyncPromptsBase:
    """Base of the generated `client.prompts` namespace: one method per prompt."""

    __slots__ = ("_client",)

    def __init__(self, client: AsyncClientBase) -> None:
        self._client = client

    async def _get(
        self, spec: PromptSpec, values: Mapping[str, object]
    ) -> PromptResult:
        return await self._client.get_prompt(spec.name, prompt_arguments(spec, values))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


class AsyncResourcesBase:
    """Base of the generated `client.resources` namespace: one method per resource and template."""

    __slots__ = ("_client",)

    def __init__(self, client: AsyncClientBase) -> None:
        self._client = client

    async def _read(self, spec: ResourceSpec | str) -> ResourceResult:
        uri = spec if isinstance(spec, str) else spec.uri
        return await self._client.read_resource(uri)

    async def subscribe(self, uri: str) -> None:
        """Ask for update notifications about the resource at `uri` (see `on_resource_updated=`)."""
        await self._client.subscribe_resource(uri)

    async def unsubscribe(self, uri: str) -> None:
        """Stop update notifications about the resource at `uri`."""
        await self._client.unsubscribe_resource(uri)

    async def _read_template(
        self, spec: TemplateSpec, values: Mapping[str, object]
    ) -> ResourceResult:
        return await self._client.read_resource(template_uri(spec, values))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"
