"""The drift engine's results: findings, allow-list entries and the report that carries them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_codegen.drift.rules import LEVEL_RANK, LEVELS, Level

#: Version of the JSON report shape (`report.render_json`); bumped on any incompatible change.
REPORT_FORMAT_VERSION = 1


@dataclass(frozen=True)
class Finding:
    """One classified change between two snapshots."""

    rule: str
    level: Level
    #: Where: `tools.<wire name>.input.<path>`, `tools.<name>.output.<path>`, `prompts.<name>.arguments.<arg>`,
    #: `resources.<uri>`, `resourceTemplates.<uriTemplate>`, `server.capabilities.<name>`, ...
    location: str
    old: Any = None
    new: Any = None
    reason: str = ""
    wire_impact: str = ""
    source_impact: str = ""
    hint: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "level": self.level,
            "location": self.location,
            "old": self.old,
            "new": self.new,
            "reason": self.reason,
            "wireImpact": self.wire_impact,
            "sourceImpact": self.source_impact,
            "hint": self.hint,
        }


@dataclass(frozen=True)
class Allowance:
    """One `[[allow]]` entry of an allow-list file: accepts findings whose rule and location match."""

    rule: str
    location: str
    reason: str
    #: Where the entry was read from (`file.toml: allow[3]`), for messages.
    origin: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "location": self.location, "reason": self.reason}


@dataclass(frozen=True)
class AllowedFinding:
    """A finding accepted by an allow-list entry (reported, never counted, never failing)."""

    finding: Finding
    allowance: Allowance

    def as_json(self) -> dict[str, Any]:
        return {**self.finding.as_json(), "allowedBy": self.allowance.as_json()}


@dataclass(frozen=True)
class DriftReport:
    """Everything `diff_snapshots` found, after the allow-list (if any) was applied."""

    findings: tuple[Finding, ...] = ()
    allowed: tuple[AllowedFinding, ...] = ()
    stale_allowances: tuple[Allowance, ...] = field(default=())

    def summary(self) -> dict[str, int]:
        """Counts of the (not allowed) findings per level, every level present."""
        counts: dict[str, int] = {level: 0 for level in LEVELS}
        for finding in self.findings:
            counts[finding.level] += 1
        return counts

    def at_or_above(self, level: Level) -> tuple[Finding, ...]:
        threshold = LEVEL_RANK[level]
        return tuple(f for f in self.findings if LEVEL_RANK[f.level] >= threshold)

    @property
    def worst(self) -> Level | None:
        """The highest level among the (not allowed) findings; None when there are none."""
        for level in LEVELS:
            if any(f.level == level for f in self.findings):
                return level
        return None
