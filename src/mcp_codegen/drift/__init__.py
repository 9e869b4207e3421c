"""Schema drift: classify the differences between two snapshots of an MCP server (DRIFT_RULES.md).

    from mcp_codegen.drift import diff_snapshots, load_side, render, exit_code

    report = diff_snapshots(load_side(Path("old.json")), load_side(Path("client_pkg")))
    report = apply_allowlist(report, load_allowlist(Path("drift-allow.toml")))
    print(render(report, "text"), end="")
    sys.exit(exit_code(report, fail_on="breaking"))

Modules: `normalize` (canonical schemas), `rules` (the rule table), `diff` (the walk), `allowlist`, `report`
(text/json/markdown/github and the exit code). The client's cheap connect-time guard is not here: it ships in the
generated runtime (`runtime/drift.py`).
"""

from __future__ import annotations

from mcp_codegen.drift.allowlist import AllowList, AllowlistError, apply_allowlist, load_allowlist, parse_allowlist
from mcp_codegen.drift.diff import diff_snapshots, load_side
from mcp_codegen.drift.model import REPORT_FORMAT_VERSION, Allowance, AllowedFinding, DriftReport, Finding
from mcp_codegen.drift.report import FAIL_ON, FORMATS, exit_code, render
from mcp_codegen.drift.rules import LEVELS, RULES, Level, Rule

__all__ = [
    "FAIL_ON",
    "FORMATS",
    "LEVELS",
    "REPORT_FORMAT_VERSION",
    "RULES",
    "AllowList",
    "Allowance",
    "AllowedFinding",
    "AllowlistError",
    "DriftReport",
    "Finding",
    "Level",
    "Rule",
    "apply_allowlist",
    "diff_snapshots",
    "exit_code",
    "load_allowlist",
    "load_side",
    "parse_allowlist",
    "render",
]
