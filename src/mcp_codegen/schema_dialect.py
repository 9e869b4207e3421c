"""JSON Schema dialects: a schema's `$schema` read once, and its legacy spellings said in 2020-12 terms.

MCP reads a schema without `$schema` as 2020-12. Drafts 03 to 07 differ where it matters to models and drift:
a `$ref` there ignores its siblings, and `items` may be an array (2020-12's `prefixItems`, with
`additionalItems` as the `items` after them). Both stages rewrite each (sub)schema through `in_current_dialect`.
"""

from __future__ import annotations

from typing import Any

#: Keys that describe a schema without constraining it.
ANNOTATIONS = ("title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment")


def is_legacy_dialect(uri: object) -> bool:
    """Whether a `$schema` URI names draft-07 or an older draft (where `$ref` ignores its siblings)."""
    return isinstance(uri, str) and any(f"draft-0{n}" in uri for n in range(3, 8))


def in_current_dialect(schema: dict[str, Any], legacy: bool) -> dict[str, Any]:
    """`schema` said in 2020-12 terms (`schema` itself when nothing changes; never modified).

    In a legacy dialect a `$ref` stands alone (its annotations kept); in every dialect an array-form `items`
    becomes `prefixItems`, and `additionalItems` the `items` that follow them.
    """
    if legacy and "$ref" in schema:
        return {key: value for key, value in schema.items() if key == "$ref" or key in ANNOTATIONS}
    items = schema.get("items")
    if not isinstance(items, list):
        return schema
    rewritten = {key: value for key, value in schema.items() if key not in ("items", "additionalItems")}
    rewritten["prefixItems"] = items
    if "additionalItems" in schema:
        rewritten["items"] = schema["additionalItems"]
    return rewritten
