"""Allow-lists: known, reviewed drift that should not fail CI.

The file is TOML, one `[[allow]]` table per accepted change::

    [[allow]]
    rule = "tool-removed"                 # a rule id (see rules.py); `*` globs allowed
    location = "tools.legacy_*"           # a finding location; `*` matches any run of characters, dots included
    reason = "legacy tools retired in 2.0, announced in #123"   # required: why this is fine

Only `*` is special in patterns (so `tags[]` and `["a.b"]` match literally). A finding matched by an entry is
moved to the report's `allowed` list (shown, never counted, never failing). An entry that matches no finding is
*stale* and reported, so the list shrinks once the change is released. A missing or malformed file, an unknown
key or an unknown rule id (without `*`) is an `AllowlistError` (a `UsageError`: exit code 2).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from mcp_codegen.drift.model import Allowance, AllowedFinding, DriftReport, Finding
from mcp_codegen.drift.rules import RULES
from mcp_codegen.errors import UsageError

__all__ = [
    "AllowList",
    "Allowance",
    "AllowlistError",
    "apply_allowlist",
    "load_allowlist",
    "matches",
    "parse_allowlist",
]

_ENTRY_KEYS = ("rule", "location", "reason")


class AllowlistError(UsageError):
    """The allow-list file cannot be read or is not valid."""


@dataclass(frozen=True)
class AllowList:
    entries: tuple[Allowance, ...] = ()
    source: str = "allow-list"


def load_allowlist(path: Path) -> AllowList:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AllowlistError(f"{path}: no such allow-list file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise AllowlistError(f"{path}: cannot read allow-list ({error.__class__.__name__})") from None
    return parse_allowlist(text, source=str(path))


def parse_allowlist(text: str, *, source: str = "allow-list") -> AllowList:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise AllowlistError(f"{source}: not valid TOML ({error})") from None
    unknown = sorted(set(data) - {"allow"})
    if unknown:
        raise AllowlistError(f"{source}: unknown top-level key(s) {', '.join(unknown)} (expected [[allow]] tables)")
    tables = data.get("allow", [])
    if not isinstance(tables, list):
        raise AllowlistError(f"{source}: `allow` must be an array of tables ([[allow]])")
    entries = tuple(_entry(table, f"{source}: allow[{index}]") for index, table in enumerate(tables, start=1))
    return AllowList(entries, source)


def _entry(table: Any, origin: str) -> Allowance:
    if not isinstance(table, Mapping):
        raise AllowlistError(f"{origin}: must be a table with rule, location and reason")
    extra = sorted(set(table) - set(_ENTRY_KEYS))
    if extra:
        raise AllowlistError(f"{origin}: unknown key(s) {', '.join(extra)} (allowed: rule, location, reason)")
    values: dict[str, str] = {}
    for key in _ENTRY_KEYS:
        value = table.get(key)
        if not isinstance(value, str) or not value.strip():
            raise AllowlistError(f"{origin}: `{key}` must be a non-empty string")
        values[key] = value.strip()
    rule = values["rule"]
    if "*" not in rule and rule not in RULES:
        raise AllowlistError(f"{origin}: unknown rule {rule!r}")
    return Allowance(rule=rule, location=values["location"], reason=values["reason"], origin=origin)


@lru_cache(maxsize=512)
def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in glob.split("*")), re.DOTALL)


def matches(allowance: Allowance, finding: Finding) -> bool:
    return bool(
        _pattern(allowance.rule).fullmatch(finding.rule) and _pattern(allowance.location).fullmatch(finding.location)
    )


def apply_allowlist(report: DriftReport, allowlist: AllowList | Iterable[Allowance]) -> DriftReport:
    """The report with matching findings moved to `allowed` (first matching entry wins) and stale entries listed."""
    entries = allowlist.entries if isinstance(allowlist, AllowList) else tuple(allowlist)
    kept: list[Finding] = []
    allowed: list[AllowedFinding] = list(report.allowed)
    used: set[int] = set()
    for finding in report.findings:
        for index, entry in enumerate(entries):
            if matches(entry, finding):
                allowed.append(AllowedFinding(finding, entry))
                used.add(index)
                break
        else:
            kept.append(finding)
    # An entry that is shadowed by an earlier one but would match is not stale: it is still true.
    for index, entry in enumerate(entries):
        if index not in used and any(matches(entry, a.finding) for a in allowed):
            used.add(index)
    stale = tuple(entry for index, entry in enumerate(entries) if index not in used)
    return DriftReport(findings=tuple(kept), allowed=tuple(allowed), stale_allowances=report.stale_allowances + stale)
