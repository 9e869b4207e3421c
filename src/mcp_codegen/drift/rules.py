"""The drift rule table, as data: every change `diff_snapshots` can report.

Each rule has a stable id (used in reports and allow-lists; never renamed), a level, a one-line reason
template (`str.format` fields: `{name}` the item, property or argument; `{old}`, `{new}` the values, as compact
JSON; `{detail}` extra words), and two impact texts (DRIFT_RULES.md, "Two impact axes"): *wire* is an old,
un-regenerated client talking to the new server; *source* is user code after regenerating the client.

The levels follow /DRIFT_RULES.md, with the generated code deciding where the rules say it does:

- result models are lenient (`extra='allow'`), so a result field added is safe, but a closed result object
  (`additionalProperties: false`) becomes a model with `extra='forbid'`, which rejects the new field: breaking
  for our clients (DRIFT_RULES gives dangerous for generic clients);
- result enums become closed `Literal` types, so a result enum value added is breaking (DRIFT_RULES: "B if
  results use closed enums"), and so is a result enum dropped altogether.

Rows DRIFT_RULES.md does not list (marked "extension" in `spec`) classify the remaining changes so that no
change of a snapshot goes unreported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

Level = Literal["breaking", "dangerous", "safe"]
Section = Literal["tools", "input", "output", "prompts", "resources", "resourceTemplates", "server"]

LEVELS: tuple[Level, ...] = ("breaking", "dangerous", "safe")
#: Higher is worse.
LEVEL_RANK: Mapping[str, int] = MappingProxyType({"safe": 0, "dangerous": 1, "breaking": 2})


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    section: Section
    #: The DRIFT_RULES.md row the rule implements ("extension: ..." when the rules do not list it).
    spec: str
    reason: str
    wire_impact: str
    source_impact: str


_B: Level = "breaking"
_D: Level = "dangerous"
_S: Level = "safe"

_NO_WIRE = "none"
_NO_SOURCE = "none"
_DOCS_SOURCE = "docstrings change"

_TABLE: tuple[Rule, ...] = (
    # ---- tools -----------------------------------------------------------------------------------------------
    Rule(
        "tool-removed",
        _B,
        "tools",
        "tool removed",
        "tool {name!r} removed",
        "calls to it fail (unknown tool)",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule(
        "tool-renamed",
        _B,
        "tools",
        "tool renamed (removed + added with an identical input schema)",
        "tool {name!r} removed; possibly renamed to {new}",
        "calls under the old name fail (unknown tool)",
        "the method is renamed; code calling the old name no longer type-checks",
    ),
    Rule("tool-added", _S, "tools", "tool added", "tool {name!r} added", _NO_WIRE, "a new method"),
    Rule("tool-title-changed", _S, "tools", "title changed", "title of tool {name!r} changed", _NO_WIRE, _DOCS_SOURCE),
    Rule(
        "tool-description-changed",
        _S,
        "tools",
        "description changed",
        "description of tool {name!r} changed",
        "agents are shown the new description",
        _DOCS_SOURCE,
    ),
    Rule(
        "tool-metadata-changed",
        _S,
        "tools",
        "extension: other tool fields (_meta, icons, vendor annotation keys)",
        "{detail} of tool {name!r} changed",
        _NO_WIRE,
        _NO_SOURCE,
    ),
    Rule(
        "annotation-riskier",
        _D,
        "tools",
        "annotation riskier (readOnlyHint T→F, destructiveHint F→T, idempotentHint T→F, openWorldHint F→T)",
        "tool {name!r}: {detail} is now {new} (was {old}): riskier",
        "calls still work, but an approval policy built on the hints is now wrong",
        "`TOOLS[...].annotations` report the riskier hint",
    ),
    Rule(
        "annotation-safer",
        _S,
        "tools",
        "annotation safer",
        "tool {name!r}: {detail} is now {new} (was {old}): safer",
        _NO_WIRE,
        "`TOOLS[...].annotations` report the safer hint",
    ),
    Rule(
        "task-support-required",
        _B,
        "tools",
        "execution.taskSupport → required",
        "tool {name!r} now requires task-augmented calls (taskSupport {old} → {new})",
        "plain calls are refused",
        "plain calls compile but fail at run time",
    ),
    Rule(
        "task-support-forbidden",
        _B,
        "tools",
        "execution.taskSupport required → forbidden",
        "tool {name!r} no longer accepts task-augmented calls (taskSupport {old} → {new})",
        "task calls are refused",
        "task calls compile but fail at run time",
    ),
    Rule(
        "task-support-narrowed",
        _D,
        "tools",
        "extension: execution.taskSupport optional → forbidden",
        "tool {name!r} no longer accepts task-augmented calls (taskSupport {old} → {new})",
        "task calls, if a client makes them, are refused; plain calls work",
        _NO_SOURCE,
    ),
    Rule(
        "task-support-changed",
        _S,
        "tools",
        "extension: execution.taskSupport widened (forbidden → optional, required → optional)",
        "tool {name!r}: taskSupport {old} → {new}",
        _NO_WIRE,
        _NO_SOURCE,
    ),
    Rule(
        "output-schema-removed",
        _B,
        "tools",
        "outputSchema removed",
        "tool {name!r} no longer declares an output schema",
        "structured results stop coming; the old client's typed result cannot be built",
        "the typed return value becomes a plain ToolResult",
    ),
    Rule(
        "output-schema-added",
        _D,
        "tools",
        "outputSchema added",
        "tool {name!r} now declares an output schema",
        "old clients ignore structuredContent and keep returning ToolResult",
        "the regenerated return type changes from ToolResult to a typed result",
    ),
    # ---- tool input schema (sent by the client) --------------------------------------------------------------
    Rule(
        "input-required-property-added",
        _B,
        "input",
        "new required property (even with a default)",
        "new required argument {name!r}",
        "servers reject calls that leave it out, i.e. every old call",
        "a new required keyword argument; existing calls no longer type-check",
    ),
    Rule(
        "input-optional-property-added",
        _S,
        "input",
        "new optional property",
        "new optional argument {name!r}",
        _NO_WIRE,
        "a new optional keyword argument",
    ),
    Rule(
        "input-property-removed",
        _B,
        "input",
        "property removed",
        "argument {name!r} removed",
        "SDK servers silently ignore it; strict servers reject calls that send it",
        "the keyword argument disappears; code passing it no longer type-checks",
    ),
    Rule(
        "input-property-became-required",
        _B,
        "input",
        "optional → required",
        "argument {name!r} is now required",
        "calls that leave it out are rejected",
        "the keyword argument loses its default; calls without it no longer type-check",
    ),
    Rule(
        "input-property-became-optional",
        _S,
        "input",
        "required → optional",
        "argument {name!r} is now optional",
        _NO_WIRE,
        "the keyword argument gains a default",
    ),
    Rule(
        "input-enum-value-removed",
        _B,
        "input",
        "enum value removed",
        "{name}: enum value(s) {detail} no longer accepted",
        "calls sending a removed value are rejected",
        "the Literal type loses the value(s); code passing them no longer type-checks",
    ),
    Rule(
        "input-enum-introduced",
        _B,
        "input",
        "free value became enum",
        "{name}: now restricted to {new}",
        "calls sending any other value are rejected",
        "the type narrows to a Literal; code passing other values no longer type-checks",
    ),
    Rule(
        "input-enum-value-added",
        _S,
        "input",
        "enum value added",
        "{name}: enum value(s) {detail} added",
        _NO_WIRE,
        "the Literal type gains the value(s)",
    ),
    Rule(
        "input-enum-dropped",
        _S,
        "input",
        "extension: enum became free value (type widened)",
        "{name}: no longer restricted to {old}",
        _NO_WIRE,
        "the Literal type widens",
    ),
    Rule(
        "input-type-narrowed",
        _B,
        "input",
        "type narrowed (number→integer)",
        "{name}: type narrowed from {old} to {new}",
        "calls sending values of the dropped type are rejected",
        "the parameter type narrows; some calls no longer type-check",
    ),
    Rule(
        "input-no-longer-nullable",
        _B,
        "input",
        "type narrowed ([T,null]→T)",
        "{name}: null no longer accepted",
        "calls sending null are rejected",
        "`None` is no longer accepted by the type",
    ),
    Rule(
        "input-branch-removed",
        _B,
        "input",
        "type narrowed (anyOf branch removed)",
        "{name}: union branch {old} removed",
        "calls sending values of the removed branch are rejected",
        "the union type narrows; some calls no longer type-check",
    ),
    Rule(
        "input-type-changed",
        _B,
        "input",
        "type changed",
        "{name}: type changed from {old} to {new}",
        "old calls send values of the wrong type and are rejected",
        "the parameter type changes; calls no longer type-check",
    ),
    Rule(
        "input-type-widened",
        _S,
        "input",
        "type widened (integer→number)",
        "{name}: type widened from {old} to {new}",
        _NO_WIRE,
        "the parameter type widens",
    ),
    Rule(
        "input-became-nullable",
        _S,
        "input",
        "type widened (T→[T,null])",
        "{name}: null now accepted",
        _NO_WIRE,
        "the parameter type gains `None`",
    ),
    Rule(
        "input-branch-added",
        _S,
        "input",
        "type widened (branch added)",
        "{name}: union branch {new} added",
        _NO_WIRE,
        "the union type widens",
    ),
    Rule(
        "input-constraint-tightened",
        _B,
        "input",
        "constraint tightened (max↓, min↑, pattern/format added)",
        "{name}: {detail} tightened ({old} → {new})",
        "calls with values valid before but outside the new bound are rejected",
        "pydantic validation of the arguments model rejects those values before sending",
    ),
    Rule(
        "input-constraint-relaxed",
        _S,
        "input",
        "constraint relaxed",
        "{name}: {detail} relaxed ({old} → {new})",
        _NO_WIRE,
        "the arguments model accepts more values",
    ),
    Rule(
        "input-pattern-changed",
        _D,
        "input",
        "pattern changed, neither wider nor narrower",
        "{name}: {detail} changed ({old} → {new})",
        "some values valid before may be rejected now",
        "the arguments model validates against the new {detail}",
    ),
    Rule(
        "input-default-changed",
        _D,
        "input",
        "default added/removed/changed on an optional property",
        "{name}: default {detail} ({old} → {new})",
        "calls that leave the argument out now get a different behaviour",
        "the keyword argument's documented default changes",
    ),
    Rule(
        "input-additional-properties-closed",
        _D,
        "input",
        "additionalProperties:false added",
        "{name}: unknown keys are no longer accepted (additionalProperties: false)",
        "calls sending keys outside the schema are rejected",
        "extra keys passed through the arguments model are rejected",
    ),
    Rule(
        "input-additional-properties-opened",
        _S,
        "input",
        "extension: additionalProperties:false removed",
        "{name}: unknown keys are accepted again",
        _NO_WIRE,
        _NO_SOURCE,
    ),
    Rule(
        "input-docs-changed",
        _S,
        "input",
        "title/description/examples changed",
        "{name}: {detail} changed",
        "agents are shown the new text",
        _DOCS_SOURCE,
    ),
    Rule(
        "input-keyword-changed",
        _D,
        "input",
        "extension: a keyword the rules do not classify",
        "{name}: keyword {detail} changed ({old} → {new})",
        "unknown: review the change",
        "unknown: review the change",
    ),
    # ---- tool output schema (received by the client) ---------------------------------------------------------
    Rule(
        "output-required-property-removed",
        _B,
        "output",
        "required field removed",
        "result field {name!r} removed (it was required)",
        "the old result model requires the field: results fail validation (ResultValidationError)",
        "the attribute disappears; code reading it no longer type-checks",
    ),
    Rule(
        "output-property-became-optional",
        _B,
        "output",
        "required → optional",
        "result field {name!r} is no longer always present",
        "the old result model requires the field: results without it fail validation",
        "the attribute becomes optional; code using it as always present no longer type-checks",
    ),
    Rule(
        "output-optional-property-removed",
        _D,
        "output",
        "optional field removed",
        "optional result field {name!r} removed",
        "it is never sent again; code waiting for it always sees it unset",
        "the attribute disappears; code reading it no longer type-checks",
    ),
    Rule(
        "output-property-became-required",
        _S,
        "output",
        "optional → required",
        "result field {name!r} is now always present",
        _NO_WIRE,
        "the attribute is no longer optional",
    ),
    Rule(
        "output-property-added",
        _S,
        "output",
        "field added",
        "new result field {name!r}",
        "the old result model keeps unknown keys (extra='allow')",
        "a new attribute",
    ),
    Rule(
        "output-property-added-closed",
        _B,
        "output",
        "field added to an object closed with additionalProperties:false (DRIFT_RULES: D; B for our models)",
        "new result field {name!r} in an object that was closed (additionalProperties: false)",
        "the old result model forbids unknown keys (extra='forbid'): results fail validation",
        "a new attribute",
    ),
    Rule(
        "output-enum-value-added",
        _B,
        "output",
        "enum value added (B: our result models use closed Literal enums)",
        "{name}: result enum value(s) {detail} added",
        "the old result model's Literal rejects the new value(s): results fail validation",
        "the Literal type gains the value(s); exhaustive matches miss them",
    ),
    Rule(
        "output-enum-value-removed",
        _S,
        "output",
        "enum value removed",
        "{name}: result enum value(s) {detail} no longer sent",
        _NO_WIRE,
        "the Literal type loses the value(s)",
    ),
    Rule(
        "output-enum-introduced",
        _S,
        "output",
        "extension: free value became enum (type narrowed)",
        "{name}: results now restricted to {new}",
        _NO_WIRE,
        "the attribute type narrows to a Literal",
    ),
    Rule(
        "output-enum-dropped",
        _B,
        "output",
        "extension: enum became free value (type widened; B with closed Literal enums)",
        "{name}: results no longer restricted to {old}",
        "the old result model's Literal rejects other values: results fail validation",
        "the attribute type widens; code relying on the Literal no longer type-checks",
    ),
    Rule(
        "output-type-widened",
        _B,
        "output",
        "type widened",
        "{name}: result type widened from {old} to {new}",
        "results of the new type fail validation in the old result model",
        "the attribute type widens; code relying on the old type no longer type-checks",
    ),
    Rule(
        "output-became-nullable",
        _B,
        "output",
        "became nullable",
        "{name}: results may now be null",
        "null results fail validation in the old result model",
        "the attribute type gains `None`; code using it unchecked no longer type-checks",
    ),
    Rule(
        "output-branch-added",
        _B,
        "output",
        "new anyOf branch",
        "{name}: result union branch {new} added",
        "results of the new branch fail validation in the old result model",
        "the union type widens; exhaustive handling misses the new branch",
    ),
    Rule(
        "output-type-narrowed",
        _S,
        "output",
        "type narrowed",
        "{name}: result type narrowed from {old} to {new}",
        _NO_WIRE,
        "the attribute type narrows",
    ),
    Rule(
        "output-no-longer-nullable",
        _S,
        "output",
        "extension: type narrowed ([T,null]→T)",
        "{name}: results are no longer null",
        _NO_WIRE,
        "the attribute type loses `None`",
    ),
    Rule(
        "output-branch-removed",
        _S,
        "output",
        "extension: type narrowed (anyOf branch removed)",
        "{name}: result union branch {old} removed",
        _NO_WIRE,
        "the union type narrows",
    ),
    Rule(
        "output-type-changed",
        _B,
        "output",
        "extension: type changed (neither wider nor narrower)",
        "{name}: result type changed from {old} to {new}",
        "results fail validation in the old result model",
        "the attribute type changes; code using it no longer type-checks",
    ),
    Rule(
        "output-constraint-relaxed",
        _D,
        "output",
        "constraint relaxed",
        "{name}: result {detail} relaxed ({old} → {new})",
        "results outside the old bound fail validation in the old result model",
        "code relying on the old bound may misbehave",
    ),
    Rule(
        "output-constraint-tightened",
        _S,
        "output",
        "constraint tightened",
        "{name}: result {detail} tightened ({old} → {new})",
        _NO_WIRE,
        _NO_SOURCE,
    ),
    Rule(
        "output-pattern-changed",
        _D,
        "output",
        "extension: pattern/format changed, neither wider nor narrower",
        "{name}: result {detail} changed ({old} → {new})",
        "results may fail validation in the old result model",
        "the result model validates against the new {detail}",
    ),
    Rule(
        "output-default-changed",
        _S,
        "output",
        "extension: default of a result field added/removed/changed",
        "{name}: result default {detail} ({old} → {new})",
        "results that leave the field out read as the old default in old clients",
        "the attribute's default changes",
    ),
    Rule(
        "output-additional-properties-opened",
        _D,
        "output",
        "extension: additionalProperties:false removed from a result object",
        "{name}: no longer closed (additionalProperties: false removed)",
        "the old result model forbids unknown keys: results carrying new keys fail validation",
        "the result model keeps unknown keys",
    ),
    Rule(
        "output-additional-properties-closed",
        _S,
        "output",
        "extension: additionalProperties:false added to a result object",
        "{name}: now closed (additionalProperties: false)",
        _NO_WIRE,
        "the result model forbids unknown keys",
    ),
    Rule(
        "output-docs-changed",
        _S,
        "output",
        "title/description/examples changed",
        "{name}: {detail} changed",
        _NO_WIRE,
        _DOCS_SOURCE,
    ),
    Rule(
        "output-keyword-changed",
        _D,
        "output",
        "extension: a keyword the rules do not classify",
        "{name}: keyword {detail} changed ({old} → {new})",
        "unknown: review the change",
        "unknown: review the change",
    ),
    # ---- prompts ---------------------------------------------------------------------------------------------
    Rule(
        "prompt-removed",
        _B,
        "prompts",
        "prompt removed",
        "prompt {name!r} removed",
        "getting it fails",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule("prompt-added", _S, "prompts", "prompt added", "prompt {name!r} added", _NO_WIRE, "a new method"),
    Rule(
        "prompt-required-argument-added",
        _B,
        "prompts",
        "required argument added",
        "prompt {name!r}: new required argument {detail!r}",
        "requests without it are rejected",
        "a new required keyword argument; existing calls no longer type-check",
    ),
    Rule(
        "prompt-optional-argument-added",
        _S,
        "prompts",
        "optional argument added",
        "prompt {name!r}: new optional argument {detail!r}",
        _NO_WIRE,
        "a new optional keyword argument",
    ),
    Rule(
        "prompt-argument-removed",
        _B,
        "prompts",
        "argument removed",
        "prompt {name!r}: argument {detail!r} removed",
        "requests sending it may be rejected",
        "the keyword argument disappears; code passing it no longer type-checks",
    ),
    Rule(
        "prompt-argument-became-required",
        _B,
        "prompts",
        "optional → required",
        "prompt {name!r}: argument {detail!r} is now required",
        "requests without it are rejected",
        "the keyword argument loses its default",
    ),
    Rule(
        "prompt-argument-became-optional",
        _S,
        "prompts",
        "required → optional",
        "prompt {name!r}: argument {detail!r} is now optional",
        _NO_WIRE,
        "the keyword argument gains a default",
    ),
    Rule(
        "prompt-docs-changed",
        _S,
        "prompts",
        "docs",
        "prompt {name!r}: {detail} changed",
        _NO_WIRE,
        _DOCS_SOURCE,
    ),
    # ---- resources -------------------------------------------------------------------------------------------
    Rule(
        "resource-removed",
        _D,
        "resources",
        "resource no longer listed (resource lists are often data)",
        "resource {name} no longer listed",
        "reading it may fail",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule(
        "resource-mime-type-changed",
        _B,
        "resources",
        "resource mimeType changed",
        "resource {name}: mimeType {old} → {new}",
        "contents arrive in a format code written for the old type misreads",
        "code decoding the old format breaks",
    ),
    Rule("resource-added", _S, "resources", "resource added", "resource {name} added", _NO_WIRE, "a new method"),
    Rule(
        "resource-name-changed",
        _D,
        "resources",
        "extension: resource name changed",
        "resource {name}: name {old} → {new}",
        "none (resources are read by URI)",
        "the generated method is renamed; code calling the old name no longer type-checks",
    ),
    Rule(
        "resource-docs-changed",
        _S,
        "resources",
        "extension: resource title/description/annotations changed",
        "resource {name}: {detail} changed",
        _NO_WIRE,
        _DOCS_SOURCE,
    ),
    # ---- resource templates ----------------------------------------------------------------------------------
    Rule(
        "template-removed",
        _B,
        "resourceTemplates",
        "template removed",
        "resource template {name} removed",
        "reading URIs built from it may fail",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule(
        "template-variable-added",
        _B,
        "resourceTemplates",
        "template variables added",
        "resource template {name}: new variable(s) {detail}",
        "URIs built by old clients lack the new part",
        "a new required keyword argument",
    ),
    Rule(
        "template-variable-removed",
        _B,
        "resourceTemplates",
        "template variables removed",
        "resource template {name}: variable(s) {detail} removed",
        "URIs built by old clients carry a part the server no longer expects",
        "the keyword argument disappears; code passing it no longer type-checks",
    ),
    Rule(
        "template-variable-renamed",
        _B,
        "resourceTemplates",
        "template variables renamed",
        "resource template {name}: variable(s) renamed {detail}",
        "URIs built by old clients may not match",
        "the keyword argument is renamed; code passing the old name no longer type-checks",
    ),
    Rule(
        "template-literal-changed",
        _B,
        "resourceTemplates",
        "template literal text changed",
        "resource template {name}: literal text changed ({old} → {new})",
        "URIs built by old clients point elsewhere",
        "none: the method builds the new URI",
    ),
    Rule(
        "template-mime-type-changed",
        _B,
        "resourceTemplates",
        "template mimeType changed",
        "resource template {name}: mimeType {old} → {new}",
        "contents arrive in a format code written for the old type misreads",
        "code decoding the old format breaks",
    ),
    Rule(
        "template-added",
        _S,
        "resourceTemplates",
        "template added",
        "resource template {name} added",
        _NO_WIRE,
        "a new method",
    ),
    Rule(
        "template-name-changed",
        _D,
        "resourceTemplates",
        "extension: template name changed",
        "resource template {name}: name {old} → {new}",
        "none (resources are read by URI)",
        "the generated method is renamed; code calling the old name no longer type-checks",
    ),
    Rule(
        "template-docs-changed",
        _S,
        "resourceTemplates",
        "extension: template title/description/annotations changed",
        "resource template {name}: {detail} changed",
        _NO_WIRE,
        _DOCS_SOURCE,
    ),
    # ---- server ----------------------------------------------------------------------------------------------
    Rule(
        "capability-removed",
        _B,
        "server",
        "tools/prompts/resources capability removed",
        "server no longer offers {name}",
        "every {name} request fails",
        "none, but every {name} method fails at run time",
    ),
    Rule(
        "capability-feature-removed",
        _D,
        "server",
        "subscribe, listChanged, completions, logging removed",
        "server no longer offers {name}",
        "requests or notifications relying on it stop working",
        _NO_SOURCE,
    ),
    Rule(
        "capability-added",
        _S,
        "server",
        "extension: capability added",
        "server now offers {name}",
        _NO_WIRE,
        _NO_SOURCE,
    ),
    Rule(
        "protocol-version-changed",
        _D,
        "server",
        "protocol version changed",
        "protocol version {old} → {new}",
        "clients negotiate a different protocol version; behaviour may differ",
        _NO_SOURCE,
    ),
    Rule(
        "server-version-changed",
        _S,
        "server",
        "serverInfo.version changed (a label only)",
        "server version {old} → {new}",
        _NO_WIRE,
        _DOCS_SOURCE,
    ),
    Rule(
        "server-info-changed",
        _S,
        "server",
        "extension: other serverInfo fields (name, title, ...)",
        "serverInfo.{detail} {old} → {new}",
        _NO_WIRE,
        _DOCS_SOURCE,
    ),
    Rule(
        "instructions-changed",
        _S,
        "server",
        "instructions changed",
        "server instructions changed",
        "agents are given the new instructions",
        _NO_SOURCE,
    ),
)

RULES: Mapping[str, Rule] = MappingProxyType({rule.id: rule for rule in _TABLE})
assert len(RULES) == len(_TABLE), "duplicate rule id"


def all_rules() -> tuple[Rule, ...]:
    """Every rule, in table order (section by section)."""
    return _TABLE


def get_rule(rule_id: str) -> Rule:
    try:
        return RULES[rule_id]
    except KeyError:
        raise KeyError(f"unknown drift rule {rule_id!r}") from None


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def render_reason(rule: Rule, **fields: str) -> str:
    """The rule's reason with its fields filled in (a missing field reads as `?`)."""
    return rule.reason.format_map(_Fields(fields))


def rule_table_markdown() -> str:
    """The rule table as Markdown (for the README or `--help` pages)."""
    lines = ["| rule | level | applies to | wire impact | source impact |", "|---|---|---|---|---|"]
    for rule in _TABLE:
        lines.append(
            f"| `{rule.id}` | {rule.level} | {rule.spec} | {rule.wire_impact} | {rule.source_impact} |".replace(
                "\n", " "
            )
        )
    return "\n".join(lines)
