"""RFC 6570 URI template expansion for resource templates.

The SDK's `UriTemplate` is used when it accepts the template; it rejects some templates that are
fine to expand but ambiguous to match (e.g. `{a}{b}`) and the `{var:N}` prefix modifier, so a
small complete level-1..4 expander (no associative arrays) backs it up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote

__all__ = ["expand_uri_template"]

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
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


def _encode(value: str, allow_reserved: bool) -> str:
    if allow_reserved:
        # Reserved characters and existing percent-encoded triplets pass through.
        return quote(value, safe=_UNRESERVED + _RESERVED + "%")
    return quote(value, safe=_UNRESERVED)


def _expand_expression(body: str, values: Mapping[str, Value]) -> str:
    operator = body[:1] if body[:1] in _OPERATORS and body[:1] != "" else ""
    first, separator, named, if_empty, allow_reserved = _OPERATORS[operator]
    pieces: list[str] = []
    for spec in body[len(operator) :].split(","):
        explode = spec.endswith("*")
        name = spec[:-1] if explode else spec
        prefix: int | None = None
        if ":" in name:
            name, _, length = name.partition(":")
            prefix = int(length) if length.isdigit() else None
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
