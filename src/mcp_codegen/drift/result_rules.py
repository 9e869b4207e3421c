"""The rules of result drift (`check --results-from`): observed result types against new recordings.

New recordings are compared with the observed types in the snapshot by the output-schema rules (a required
field gone is breaking, a new field safe), except where an observed type differs from a declared one: the
old samples may simply not have shown the wider type, so a widening is dangerous (look, then record again
and regenerate) rather than breaking.
"""

from __future__ import annotations

from mcp_codegen.drift.rule import B, D, Rule

#: Output-schema rules that read differently for an observed type: the rule that replaces each.
OBSERVED_OVERRIDES = {
    "output-type-widened": "observed-type-widened",
    "output-became-nullable": "observed-became-nullable",
    "output-branch-added": "observed-branch-added",
}

_WIRE = "results of the new kind raise ObservedResultError in the old client"
_SOURCE = "after regenerating with --results-from, the attribute type widens"

RESULT_RULES: tuple[Rule, ...] = (
    Rule(
        "observed-type-widened",
        D,
        "output",
        "extension: an observed result type widened in new recordings (the old samples may not have shown it)",
        "{name}: recorded results of type {new}, observed as {old}",
        _WIRE,
        _SOURCE,
    ),
    Rule(
        "observed-became-nullable",
        D,
        "output",
        "extension: an observed result field recorded as null",
        "{name}: recorded results now hold null",
        _WIRE,
        "after regenerating with --results-from, the attribute type gains `None`",
    ),
    Rule(
        "observed-branch-added",
        D,
        "output",
        "extension: a new kind of observed result value",
        "{name}: recorded results of a new kind {new}",
        _WIRE,
        _SOURCE,
    ),
    Rule(
        "observed-results-not-json",
        B,
        "tools",
        "extension: a tool typed from recorded answers answered something that is not JSON",
        "tool {name!r}: {detail} of its recorded answers hold no JSON",
        "those results raise ObservedResultError",
        "after regenerating with --results-from, the method returns ToolResult again",
    ),
)
