"""RFC 6570 URI templates: the one parser of their expressions, expansion, and matching a URI.

The SDK's `UriTemplate` expands when it accepts the template; it rejects some templates that are
fine to expand but ambiguous to match (e.g. `{a}{b}`) and the `{var:N}` prefix modifier, so a
small complete level-1..4 expander (no associative arrays) backs it up. `uri_template_expressions`
is what the generator (variable names), the drift check (template shapes), the agent adapters
(optional query variables) and the fake server (matching) read templates with.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple
from urllib.parse import quote, unquote

__all__ = [
    "TemplateExpression",
    "TemplateVariable",
    "expand_uri_template",
    "match_uri_template",
    "uri_template_expressions",
    "uri_template_variables",
]

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
#: The operators RFC 6570 defines and the ones it reserves (`=,!@|`), never part of a name.
_OPERATOR_CHARACTERS = "+#./;?&=,!@|"
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="

# operator -> (first, separator, named, if-empty, allow reserved)
_OPERATORS: dict[str, tuple[str, str, bool, str, bool]] = {
    "": ("", ",", False, "", False),
    "+": ("", ",", False, "", True),
    ".": (".", ".", False, "", False),
    "/": ("/", "/", False, "", False),
    ";": (";", ";", True, "", False),
    "?": ("?", "&", True, "=", False),
    "&": ("&", "&", True, "=", False),
    "#": ("#", ",", False, "", True),
}

Value = str | Sequence[str]


class TemplateVariable(NamedTuple):
    """One variable of an expression: `{name}`, `{name:3}` (prefix) or `{name*}` (explode)."""

    name: str
    prefix: int | None
    explode: bool


class TemplateExpression(NamedTuple):
    """One `{...}` of a template: where it stands, its operator ("" for none) and variables."""

    start: int
    end: int
    operator: str
    variables: tuple[TemplateVariable, ...]


def _parse_expression(body: str) -> tuple[str, tuple[TemplateVariable, ...]]:
    operator = body[:1] if body[:1] and body[:1] in _OPERATOR_CHARACTERS else ""
    variables: list[TemplateVariable] = []
    for spec in body[len(operator) :].split(","):
        spec = spec.strip()
        explode = spec.endswith("*")
        name, _, length = spec.rstrip("*").partition(":")
        name = name.strip()
        if name:
            prefix = int(length) if length.isdigit() else None
            variables.append(TemplateVariable(name, prefix, explode))
    return operator, tuple(variables)


def uri_template_expressions(template: str) -> list[TemplateExpression]:
    """The expressions of `template`, in order."""
    return [
        TemplateExpression(match.start(), match.end(), *_parse_expression(match[1]))
        for match in _EXPRESSION.finditer(template)
    ]


def uri_template_variables(template: str) -> list[str]:
    """The variable names of `template`, in order of first appearance."""
    names: list[str] = []
    for expression in uri_template_expressions(template):
        for variable in expression.variables:
            if variable.name not in names:
                names.append(variable.name)
    return names


def match_uri_template(template: str, uri: str) -> dict[str, str] | None:
    """The variables of `uri` under `template` (simple, reserved, fragment, label and path
    expressions of one variable; query expressions match any query), or None."""
    pattern: list[str] = []
    names: list[str] = []
    position = 0
    for expression in uri_template_expressions(template):
        pattern.append(re.escape(template[position : expression.start]))
        operator, variables = expression.operator, expression.variables
        group = f"g{len(names)}"
        if operator in ("", "+", "#") and len(variables) == 1:
            names.append(variables[0].name)
            body = "[^/?#]*" if operator == "" else ".*?"  # lazy: a query may follow
            pattern.append(re.escape(operator if operator == "#" else ""))
            pattern.append(f"(?P<{group}>{body})")
        elif operator in ("/", ".") and len(variables) == 1:
            names.append(variables[0].name)
            pattern.append(re.escape(operator) + f"(?P<{group}>[^/?#.]*)")
        elif operator in ("?", "&"):
            pattern.append(r"(?:[?&][^#]*)?")
        else:
            pattern.append(".*")
        position = expression.end
    pattern.append(re.escape(template[position:]))
    found = re.fullmatch("".join(pattern), uri)
    if found is None:
        return None
    return {name: unquote(found[f"g{index}"]) for index, name in enumerate(names)}


def _encode(value: str, allow_reserved: bool) -> str:
    if allow_reserved:
        # Reserved characters and existing percent-encoded triplets pass through.
        return quote(value, safe=_UNRESERVED + _RESERVED + "%")
    return quote(value, safe=_UNRESERVED)


def _expand_expression(body: str, values: Mapping[str, Value]) -> str:
    operator, variables = _parse_expression(body)
    if operator not in _OPERATORS:  # a reserved operator: nothing RFC 6570 can expand
        return ""
    first, separator, named, if_empty, allow_reserved = _OPERATORS[operator]
    pieces: list[str] = []
    for name, prefix, explode in variables:
        value = values.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            text = value[:prefix] if prefix is not None else value
            encoded = _encode(text, allow_reserved)
            if named:
                pieces.append(f"{name}{'=' + encoded if encoded else if_empty}")
            else:
                pieces.append(encoded)
            continue
        items = [_encode(item, allow_reserved) for item in value]
        if not items:
            continue
        if explode:
            if named:
                pieces.append(
                    separator.join(
                        f"{name}{'=' + item if item else if_empty}" for item in items
                    )
                )
            else:
                pieces.append(separator.join(items))
        elif named:
            pieces.append(f"{name}={','.join(items)}")
        else:
            pieces.append(",".join(items))
    if not pieces:
        return ""
    return first + separator.join(pieces)


def _expand_locally(template: str, values: Mapping[str, Value]) -> str:
    return _EXPRESSION.sub(
        lambda match: _expand_expression(match.group(1), values), template
    )


def expand_uri_template(template: str, values: Mapping[str, Value]) -> str:
    """Expand `template` with `values` (missing variables are left out, as RFC 6570 says)."""
    try:
        from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate
    except (
        ImportError
    ):  # pragma: no cover - the SDK always ships it in the supported range
        return _expand_locally(template, values)
    try:
        return UriTemplate.parse(template).expand(values)
    except InvalidUriTemplate:
        return _expand_locally(template, values)
