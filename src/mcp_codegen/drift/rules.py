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
from types import MappingProxyType

from mcp_codegen.drift.result_rules import RESULT_RULES
from mcp_codegen.drift.rule import DOCS_SOURCE, LEVEL_RANK, LEVELS, NO_SOURCE, NO_WIRE, B, D, Level, Rule, S, Section
from mcp_codegen.drift.schema_rules import SCHEMA_RULES

__all__ = [
    "LEVELS",
    "LEVEL_RANK",
    "RULES",
    "Level",
    "Rule",
    "Section",
    "all_rules",
    "get_rule",
    "render_reason",
    "rule_table_markdown",
]

_TABLE: tuple[Rule, ...] = (
    # ---- tools -----------------------------------------------------------------------------------------------
    Rule(
        "tool-removed",
        B,
        "tools",
        "tool removed",
        "tool {name!r} removed",
        "calls to it fail (unknown tool)",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule(
        "tool-renamed",
        B,
        "tools",
        "tool renamed (removed + added with an identical input schema)",
        "tool {name!r} removed; possibly renamed to {new}",
        "calls under the old name fail (unknown tool)",
        "the method is renamed; code calling the old name no longer type-checks",
    ),
    Rule("tool-added", S, "tools", "tool added", "tool {name!r} added", NO_WIRE, "a new method"),
    Rule("tool-title-changed", S, "tools", "title changed", "title of tool {name!r} changed", NO_WIRE, DOCS_SOURCE),
    Rule(
        "tool-description-changed",
        S,
        "tools",
        "description changed",
        "description of tool {name!r} changed",
        "agents are shown the new description",
        DOCS_SOURCE,
    ),
    Rule(
        "tool-metadata-changed",
        S,
        "tools",
        "extension: other tool fields (_meta, icons, vendor annotation keys)",
        "{detail} of tool {name!r} changed",
        NO_WIRE,
        NO_SOURCE,
    ),
    Rule(
        "annotation-riskier",
        D,
        "tools",
        "annotation riskier (readOnlyHint T→F, destructiveHint F→T, idempotentHint T→F, openWorldHint F→T)",
        "tool {name!r}: {detail} is now {new} (was {old}): riskier",
        "calls still work, but an approval policy built on the hints is now wrong",
        "`TOOLS[...].annotations` report the riskier hint",
    ),
    Rule(
        "annotation-safer",
        S,
        "tools",
        "annotation safer",
        "tool {name!r}: {detail} is now {new} (was {old}): safer",
        NO_WIRE,
        "`TOOLS[...].annotations` report the safer hint",
    ),
    Rule(
        "task-support-required",
        B,
        "tools",
        "execution.taskSupport → required",
        "tool {name!r} now requires task-augmented calls (taskSupport {old} → {new})",
        "plain calls are refused",
        "plain calls compile but fail at run time",
    ),
    Rule(
        "task-support-forbidden",
        B,
        "tools",
        "execution.taskSupport required → forbidden",
        "tool {name!r} no longer accepts task-augmented calls (taskSupport {old} → {new})",
        "task calls are refused",
        "task calls compile but fail at run time",
    ),
    Rule(
        "task-support-narrowed",
        D,
        "tools",
        "extension: execution.taskSupport optional → forbidden",
        "tool {name!r} no longer accepts task-augmented calls (taskSupport {old} → {new})",
        "task calls, if a client makes them, are refused; plain calls work",
        NO_SOURCE,
    ),
    Rule(
        "task-support-changed",
        S,
        "tools",
        "extension: execution.taskSupport widened (forbidden → optional, required → optional)",
        "tool {name!r}: taskSupport {old} → {new}",
        NO_WIRE,
        NO_SOURCE,
    ),
    # MCP Apps (extension io.modelcontextprotocol/ui): a tool's `_meta.ui` (resource URI, visibility).
    Rule(
        "tool-became-app-only",
        B,
        "tools",
        'extension (MCP Apps): _meta.ui.visibility lost "model" (the tool became app-only)',
        "tool {name!r} became app-only (visibility {old} → {new}): hosts must keep it from models",
        "an old client still offers it to models, which MCP Apps forbids; agents relying on it lose it once regenerated",
        "agent tools leave it out and refuse a model's call to it; its typed method still calls it",
    ),
    Rule(
        "tool-became-model-visible",
        S,
        "tools",
        'extension (MCP Apps): _meta.ui.visibility gained "model"',
        "tool {name!r} is now offered to models (visibility {old} → {new})",
        "an old client keeps it from models",
        "agent tools offer it to models",
    ),
    Rule(
        "tool-visibility-changed",
        S,
        "tools",
        "extension (MCP Apps): _meta.ui.visibility changed, models keep (or still lack) it",
        "tool {name!r}: visibility {old} → {new}",
        NO_WIRE,
        "`TOOLS[...].ui.visibility` reports it",
    ),
    Rule(
        "tool-ui-resource-changed",
        D,
        "tools",
        "extension (MCP Apps): _meta.ui.resourceUri changed (as a resource no longer listed: D)",
        "tool {name!r}: UI resource {old} → {new}",
        "an old client's `read_ui()` reads the old URI, which the server may no longer serve",
        "`read_ui()` reads the new resource",
    ),
    Rule(
        "tool-ui-removed",
        D,
        "tools",
        "extension (MCP Apps): _meta.ui.resourceUri removed",
        "tool {name!r} no longer names a UI resource (was {old})",
        "an old client's `read_ui()` reads a URI the server may no longer serve",
        "`read_ui()` raises NoUIError for it",
    ),
    Rule(
        "tool-ui-added",
        S,
        "tools",
        "extension (MCP Apps): _meta.ui.resourceUri added",
        "tool {name!r} now has a UI resource {new}",
        NO_WIRE,
        "`read_ui()` reads it",
    ),
    Rule(
        "output-schema-removed",
        B,
        "tools",
        "outputSchema removed",
        "tool {name!r} no longer declares an output schema",
        "structured results stop coming; the old client's typed result cannot be built",
        "the typed return value becomes a plain ToolResult",
    ),
    Rule(
        "output-schema-added",
        D,
        "tools",
        "outputSchema added",
        "tool {name!r} now declares an output schema",
        "old clients ignore structuredContent and keep returning ToolResult",
        "the regenerated return type changes from ToolResult to a typed result",
    ),
    *SCHEMA_RULES,
    *RESULT_RULES,
    # ---- prompts ---------------------------------------------------------------------------------------------
    Rule(
        "prompt-removed",
        B,
        "prompts",
        "prompt removed",
        "prompt {name!r} removed",
        "getting it fails",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule("prompt-added", S, "prompts", "prompt added", "prompt {name!r} added", NO_WIRE, "a new method"),
    Rule(
        "prompt-required-argument-added",
        B,
        "prompts",
        "required argument added",
        "prompt {name!r}: new required argument {detail!r}",
        "requests without it are rejected",
        "a new required keyword argument; existing calls no longer type-check",
    ),
    Rule(
        "prompt-optional-argument-added",
        S,
        "prompts",
        "optional argument added",
        "prompt {name!r}: new optional argument {detail!r}",
        NO_WIRE,
        "a new optional keyword argument",
    ),
    Rule(
        "prompt-argument-removed",
        B,
        "prompts",
        "argument removed",
        "prompt {name!r}: argument {detail!r} removed",
        "requests sending it may be rejected",
        "the keyword argument disappears; code passing it no longer type-checks",
    ),
    Rule(
        "prompt-argument-became-required",
        B,
        "prompts",
        "optional → required",
        "prompt {name!r}: argument {detail!r} is now required",
        "requests without it are rejected",
        "the keyword argument loses its default",
    ),
    Rule(
        "prompt-argument-became-optional",
        S,
        "prompts",
        "required → optional",
        "prompt {name!r}: argument {detail!r} is now optional",
        NO_WIRE,
        "the keyword argument gains a default",
    ),
    Rule(
        "prompt-docs-changed",
        S,
        "prompts",
        "docs",
        "prompt {name!r}: {detail} changed",
        NO_WIRE,
        DOCS_SOURCE,
    ),
    # ---- resources -------------------------------------------------------------------------------------------
    Rule(
        "resource-removed",
        D,
        "resources",
        "resource no longer listed (resource lists are often data)",
        "resource {name} no longer listed",
        "reading it may fail",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule(
        "resource-mime-type-changed",
        B,
        "resources",
        "resource mimeType changed",
        "resource {name}: mimeType {old} → {new}",
        "contents arrive in a format code written for the old type misreads",
        "code decoding the old format breaks",
    ),
    Rule("resource-added", S, "resources", "resource added", "resource {name} added", NO_WIRE, "a new method"),
    Rule(
        "resource-name-changed",
        D,
        "resources",
        "extension: resource name changed",
        "resource {name}: name {old} → {new}",
        "none (resources are read by URI)",
        "the generated method is renamed; code calling the old name no longer type-checks",
    ),
    Rule(
        "resource-docs-changed",
        S,
        "resources",
        "extension: resource title/description/annotations changed",
        "resource {name}: {detail} changed",
        NO_WIRE,
        DOCS_SOURCE,
    ),
    # ---- resource templates ----------------------------------------------------------------------------------
    Rule(
        "template-removed",
        B,
        "resourceTemplates",
        "template removed",
        "resource template {name} removed",
        "reading URIs built from it may fail",
        "its method disappears; code calling it no longer type-checks",
    ),
    Rule(
        "template-variable-added",
        B,
        "resourceTemplates",
        "template variables added",
        "resource template {name}: new variable(s) {detail}",
        "URIs built by old clients lack the new part",
        "a new required keyword argument",
    ),
    Rule(
        "template-variable-removed",
        B,
        "resourceTemplates",
        "template variables removed",
        "resource template {name}: variable(s) {detail} removed",
        "URIs built by old clients carry a part the server no longer expects",
        "the keyword argument disappears; code passing it no longer type-checks",
    ),
    Rule(
        "template-variable-renamed",
        B,
        "resourceTemplates",
        "template variables renamed",
        "resource template {name}: variable(s) renamed {detail}",
        "URIs built by old clients may not match",
        "the keyword argument is renamed; code passing the old name no longer type-checks",
    ),
    Rule(
        "template-literal-changed",
        B,
        "resourceTemplates",
        "template literal text changed",
        "resource template {name}: literal text changed ({old} → {new})",
        "URIs built by old clients point elsewhere",
        "none: the method builds the new URI",
    ),
    Rule(
        "template-mime-type-changed",
        B,
        "resourceTemplates",
        "template mimeType changed",
        "resource template {name}: mimeType {old} → {new}",
        "contents arrive in a format code written for the old type misreads",
        "code decoding the old format breaks",
    ),
    Rule(
        "template-added",
        S,
        "resourceTemplates",
        "template added",
        "resource template {name} added",
        NO_WIRE,
        "a new method",
    ),
    Rule(
        "template-name-changed",
        D,
        "resourceTemplates",
        "extension: template name changed",
        "resource template {name}: name {old} → {new}",
        "none (resources are read by URI)",
        "the generated method is renamed; code calling the old name no longer type-checks",
    ),
    Rule(
        "template-docs-changed",
        S,
        "resourceTemplates",
        "extension: template title/description/annotations changed",
        "resource template {name}: {detail} changed",
        NO_WIRE,
        DOCS_SOURCE,
    ),
    # ---- skills (MCP Skills extension) ------------------------------------------------------------------------
    Rule(
        "skill-removed",
        B,
        "skills",
        "extension: skill removed",
        "skill {name!r} removed",
        "getting or installing it fails",
        "its name leaves the `SkillName` Literal; code naming it no longer type-checks",
    ),
    Rule(
        "skill-files-changed",
        D,
        "skills",
        "extension: skill's files or digests changed (its behaviour changed under the same name)",
        "skill {name!r}: {detail} changed",
        "agents given the skill now follow different instructions or files",
        NO_SOURCE,
    ),
    Rule(
        "skill-frontmatter-changed",
        D,
        "skills",
        "extension: skill's frontmatter changed (description, allowed tools, ...)",
        "skill {name!r}: frontmatter {detail} changed",
        "agents choose or run the skill differently",
        NO_SOURCE,
    ),
    Rule("skill-added", S, "skills", "extension: skill added", "skill {name!r} added", NO_WIRE, "a new `SkillName`"),
    Rule(
        "skills-extension-removed",
        B,
        "skills",
        "extension: the server no longer offers skills",
        "the server no longer offers the skills extension",
        "every skills request fails",
        "none, but `client.skills` fails at run time",
    ),
    # ---- server ----------------------------------------------------------------------------------------------
    Rule(
        "capability-removed",
        B,
        "server",
        "tools/prompts/resources capability removed",
        "server no longer offers {name}",
        "every {name} request fails",
        "none, but every {name} method fails at run time",
    ),
    Rule(
        "capability-feature-removed",
        D,
        "server",
        "subscribe, listChanged, completions, logging removed",
        "server no longer offers {name}",
        "requests or notifications relying on it stop working",
        NO_SOURCE,
    ),
    Rule(
        "capability-added",
        S,
        "server",
        "extension: capability added",
        "server now offers {name}",
        NO_WIRE,
        NO_SOURCE,
    ),
    Rule(
        "protocol-version-changed",
        D,
        "server",
        "protocol version changed",
        "protocol version {old} → {new}",
        "clients negotiate a different protocol version; behaviour may differ",
        NO_SOURCE,
    ),
    Rule(
        "server-version-changed",
        S,
        "server",
        "serverInfo.version changed (a label only)",
        "server version {old} → {new}",
        NO_WIRE,
        DOCS_SOURCE,
    ),
    Rule(
        "server-info-changed",
        S,
        "server",
        "extension: other serverInfo fields (name, title, ...)",
        "serverInfo.{detail} {old} → {new}",
        NO_WIRE,
        DOCS_SOURCE,
    ),
    Rule(
        "listing-not-compared",
        D,
        "server",
        "extension: a listing one snapshot lacks (failed, timed out or --skip): its items are not compared",
        "{name} not compared: the listing {detail}",
        "unknown: what the server offers there was not listed",
        "unknown; the package has none of them while the listing fails or is skipped",
    ),
    Rule(
        "instructions-changed",
        S,
        "server",
        "instructions changed",
        "server instructions changed",
        "agents are given the new instructions",
        NO_SOURCE,
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
