"""Rendering drift reports, and the exit code they mean.

Formats (`FORMATS`):

- `text`: a summary line, then the findings grouped by level (breaking, dangerous, safe), one line each:
  `  <location>  <rule>  <reason> (hint)`; then allowed findings and stale allow-list entries.
- `json`: the documented, versioned shape (`formatVersion` is bumped on any incompatible change)::

      {
        "formatVersion": 1,
        "summary": {"breaking": 0, "dangerous": 0, "safe": 0},      # findings not allowed, per level
        "findings": [{"rule", "level", "location", "old", "new", "reason", "wireImpact", "sourceImpact", "hint"}],
        "allowed": [{...the finding's keys..., "allowedBy": {"rule", "location", "reason"}}],
        "staleAllowances": [{"rule", "location", "reason"}]
      }

  `old`/`new` are JSON values (a type, an enum list, a bound, a short schema description, ...) or null; `hint`
  is a string or null.
- `markdown`: a heading, the counts and one table row per finding, for a pull-request comment.
- `github`: GitHub Actions workflow commands, one per line: `::error` for breaking, `::warning` for dangerous,
  `::notice` for safe and allowed findings, `::warning` for stale allow-list entries.

`exit_code(report, fail_on)`: 1 when a (not allowed) finding is at or above `fail_on` (`breaking`,
`dangerous`, or `any` level), else 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from mcp_codegen.drift.model import REPORT_FORMAT_VERSION, AllowedFinding, DriftReport, Finding
from mcp_codegen.drift.rules import LEVEL_RANK, LEVELS, Level
from mcp_codegen.errors import UsageError

__all__ = [
    "FAIL_ON",
    "FORMATS",
    "exit_code",
    "render",
    "render_github",
    "render_json",
    "render_markdown",
    "render_text",
    "report_json",
]

Format = Literal["text", "json", "markdown", "github"]
FailOn = Literal["breaking", "dangerous", "any"]
FORMATS: tuple[Format, ...] = ("text", "json", "markdown", "github")
FAIL_ON: tuple[FailOn, ...] = ("breaking", "dangerous", "any")


def exit_code(report: DriftReport, fail_on: str = "breaking") -> int:
    """0 when no (not allowed) finding is at or above `fail_on`, 1 when one is."""
    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    threshold: Level = "safe" if fail_on == "any" else "breaking" if fail_on == "breaking" else "dangerous"
    return 1 if report.at_or_above(threshold) else 0


def render(report: DriftReport, output_format: str = "text") -> str:
    renderers: dict[str, Callable[[DriftReport], str]] = {
        "text": render_text,
        "json": render_json,
        "markdown": render_markdown,
        "github": render_github,
    }
    if output_format not in renderers:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, not {output_format!r}")
    return renderers[output_format](report)


def _one_line(text: str) -> str:
    from mcp_codegen_runtime.text import one_line  # on use: the runtime costs ~0.2 s to import

    return one_line(text, None)


def _summary_words(report: DriftReport) -> str:
    counts = report.summary()
    return ", ".join(f"{counts[level]} {level}" for level in LEVELS)


def _with_hint(finding: Finding) -> str:
    reason = _one_line(finding.reason)
    return f"{reason} ({_one_line(finding.hint)})" if finding.hint else reason


# ---- text ------------------------------------------------------------------------------------------------------


def render_text(report: DriftReport) -> str:
    lines: list[str] = []
    if report.findings:
        lines.append(f"schema drift: {_summary_words(report)}")
    else:
        lines.append("no schema drift" + (f" ({len(report.allowed)} allowed)" if report.allowed else ""))
    for level in LEVELS:
        group = [f for f in report.findings if f.level == level]
        if not group:
            continue
        lines.append(f"{level} ({len(group)}):")
        lines.extend(f"  {f.location}  {f.rule}  {_with_hint(f)}" for f in group)
    if report.allowed:
        lines.append(f"allowed ({len(report.allowed)}):")
        lines.extend(
            f"  {a.finding.location}  {a.finding.rule}  {_with_hint(a.finding)}  [allowed: {_one_line(a.allowance.reason)}]"
            for a in report.allowed
        )
    if report.stale_allowances:
        lines.append(f"stale allow-list entries ({len(report.stale_allowances)}): they match nothing, remove them")
        lines.extend(
            f"  rule {s.rule!r} at {s.location!r}: {_one_line(s.reason)}" + (f" ({s.origin})" if s.origin else "")
            for s in report.stale_allowances
        )
    return "\n".join(lines) + "\n"


# ---- json ------------------------------------------------------------------------------------------------------


def report_json(report: DriftReport) -> dict[str, Any]:
    return {
        "formatVersion": REPORT_FORMAT_VERSION,
        "summary": report.summary(),
        "findings": [f.as_json() for f in report.findings],
        "allowed": [a.as_json() for a in report.allowed],
        "staleAllowances": [s.as_json() for s in report.stale_allowances],
    }


def render_json(report: DriftReport) -> str:
    return json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"


# ---- markdown --------------------------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    escaped = text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def _md_code(text: str) -> str:
    """Inline code that survives backticks and pipes in `text`, inside a table cell."""
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{_one_line(text).replace('|', '&#124;')}{pad}{fence}"


def _md_row(finding: Finding, note: str = "") -> str:
    change = _md(finding.reason) + (f"<br>_{_md(finding.hint)}_" if finding.hint else "")
    if note:
        change += f"<br>allowed: {_md(note)}"
    level = f"**{finding.level}**" if finding.level == "breaking" else finding.level
    return (
        f"| {level} | {_md_code(finding.rule)} | {_md_code(finding.location)} | {change} "
        f"| {_md(finding.wire_impact)} | {_md(finding.source_impact)} |"
    )


def render_markdown(report: DriftReport) -> str:
    counts = report.summary()
    lines = ["### MCP schema drift", ""]
    if report.findings:
        words = [f"**{counts[level]} {level}**" if counts[level] else f"{counts[level]} {level}" for level in LEVELS]
        lines.append(", ".join(words))
        lines.append("")
        lines.append(
            "| level | rule | location | change | wire impact (old client) | source impact (after regenerating) |"
        )
        lines.append("|---|---|---|---|---|---|")
        ordered = sorted(report.findings, key=lambda f: -LEVEL_RANK[f.level])  # stable: keeps the report's order
        lines.extend(_md_row(f) for f in ordered)
    else:
        lines.append("No schema drift.")
    if report.allowed:
        lines += ["", f"<details><summary>{len(report.allowed)} allowed by the allow-list</summary>", ""]
        lines.append(
            "| level | rule | location | change | wire impact (old client) | source impact (after regenerating) |"
        )
        lines.append("|---|---|---|---|---|---|")
        lines.extend(_md_row(a.finding, a.allowance.reason) for a in report.allowed)
        lines += ["", "</details>"]
    if report.stale_allowances:
        lines += [
            "",
            f"**{len(report.stale_allowances)} stale allow-list entries** (they match nothing; remove them):",
            "",
        ]
        lines.extend(
            f"- {_md_code(s.rule)} at {_md_code(s.location)}: {_md(s.reason)}" for s in report.stale_allowances
        )
    return "\n".join(lines) + "\n"


# ---- github ----------------------------------------------------------------------------------------------------

_COMMANDS: dict[str, str] = {"breaking": "error", "dangerous": "warning", "safe": "notice"}


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def _gh_line(command: str, title: str, message: str) -> str:
    return f"::{command} title={_gh_property(title)}::{_gh_data(message)}"


def render_github(report: DriftReport) -> str:
    lines = [
        _gh_line(_COMMANDS[f.level], f"{f.rule} ({f.level})", f"{f.location}: {_with_hint(f)}") for f in report.findings
    ]
    lines.extend(_allowed_line(a) for a in report.allowed)
    lines.extend(
        _gh_line(
            "warning",
            "stale allow-list entry",
            f"rule {s.rule!r} at {s.location!r} matches nothing; remove it ({s.reason})",
        )
        for s in report.stale_allowances
    )
    return "".join(line + "\n" for line in lines)


def _allowed_line(allowed: AllowedFinding) -> str:
    f = allowed.finding
    return _gh_line(
        "notice",
        f"allowed {f.level} drift: {f.rule}",
        f"{f.location}: {_with_hint(f)} [allowed: {allowed.allowance.reason}]",
    )
