"""The findings of one diff being collected, and the helpers every part of the diff shares to describe values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from mcp_codegen.drift.model import Finding
from mcp_codegen.drift.normalize import (
    canonical_json,
)
from mcp_codegen.drift.rules import get_rule, render_reason
from mcp_codegen_runtime.text import shortened

#: The order of a report's sections.
_SECTION_ORDER = {"server": 0, "tools": 1, "prompts": 2, "resources": 3, "resourceTemplates": 4, "skills": 5}

Direction = Literal["input", "output"]


JsonObject = dict[str, Any]


class Findings:
    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        """`overrides` maps a rule id to the rule emitted in its place (observed result types read some
        changes more strictly than declared ones)."""
        self.items: list[Finding] = []
        self._overrides: Mapping[str, str] = overrides or {}

    def emit(
        self,
        rule_id: str,
        location: str,
        old: Any = None,
        new: Any = None,
        *,
        hint: str | None = None,
        name: str = "",
        detail: str = "",
    ) -> None:
        rule = get_rule(self._overrides.get(rule_id, rule_id))
        fields = {"name": name, "detail": detail, "old": show(old), "new": show(new)}
        self.items.append(
            Finding(
                rule=rule.id,
                level=rule.level,
                location=location,
                old=old,
                new=new,
                reason=render_reason(rule, **fields),
                wire_impact=rule.wire_impact.format_map(_Blank(fields)),
                source_impact=rule.source_impact.format_map(_Blank(fields)),
                hint=hint,
            )
        )

    def sorted(self) -> tuple[Finding, ...]:
        def key(finding: Finding) -> tuple[int, str, str, str]:
            section = finding.location.split(".", 1)[0]
            values = canonical_json([finding.old, finding.new])
            return (_SECTION_ORDER.get(section, 9), finding.location, finding.rule, values)

        return tuple(sorted(self.items, key=key))


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def show(value: Any, limit: int = 80) -> str:
    """A value as compact JSON, cut to `limit` characters, for reasons."""
    if value is None:
        return "none"
    text = value if isinstance(value, str) else canonical_json(value)
    return shortened(text, limit)


def changed(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> bool:
    return (key in old) != (key in new) or old.get(key) != new.get(key)


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}
