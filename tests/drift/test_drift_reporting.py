"""Allow-lists, the four output formats, exit codes and the rule table itself."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from drift_support import Data, input_props, snapshot, source, tool

from mcp_codegen.drift import (
    FORMATS,
    RULES,
    AllowlistError,
    DriftReport,
    Finding,
    apply_allowlist,
    diff_snapshots,
    exit_code,
    load_allowlist,
    parse_allowlist,
    render,
)
from mcp_codegen.drift.rules import LEVELS, all_rules, render_reason, rule_table_markdown
from mcp_codegen.errors import ExitCode, UsageError


def _drifted() -> tuple[Data, Data]:
    """One breaking, one dangerous and one safe change (and one more breaking) on the demo listing."""
    old, new = source("demo"), source("demo")
    new["tools"].remove(tool(new, "forecast"))  # tool-removed (B)
    input_props(new, "get_weather")["units"]["enum"].remove("fahrenheit")  # input-enum-value-removed (B)
    tool(new, "add")["annotations"]["readOnlyHint"] = False  # annotation-riskier (D)
    new["serverInfo"]["version"] = "1.1.0"  # server-version-changed (S)
    return old, new


@pytest.fixture
def report() -> DriftReport:
    old, new = _drifted()
    return diff_snapshots(snapshot(old), snapshot(new))


def test_the_fixture_report(report: DriftReport) -> None:
    assert [(f.rule, f.location) for f in report.findings] == [
        ("server-version-changed", "server.serverInfo.version"),
        ("annotation-riskier", "tools.add.annotations.readOnlyHint"),
        ("tool-removed", "tools.forecast"),
        ("input-enum-value-removed", "tools.get_weather.input.units"),
    ]
    assert report.summary() == {"breaking": 2, "dangerous": 1, "safe": 1}


# ---- allow-lists -------------------------------------------------------------------------------------------------

_ALLOW = """
[[allow]]
rule = "tool-removed"
location = "tools.forecast"
reason = "forecast moved to the weather server"

[[allow]]
rule = "input-enum-*"
location = "tools.*.input.units"
reason = "fahrenheit dropped on purpose"

[[allow]]
rule = "prompt-removed"
location = "prompts.plan_trip"
reason = "kept for when the prompt goes"
"""


def test_allowed_findings_and_stale_entries(report: DriftReport, tmp_path: Path) -> None:
    path = tmp_path / "drift-allow.toml"
    path.write_text(_ALLOW, encoding="utf-8")
    allowed = apply_allowlist(report, load_allowlist(path))
    assert [(f.rule, f.location) for f in allowed.findings] == [
        ("server-version-changed", "server.serverInfo.version"),
        ("annotation-riskier", "tools.add.annotations.readOnlyHint"),
    ]
    assert [(a.finding.rule, a.allowance.reason) for a in allowed.allowed] == [
        ("tool-removed", "forecast moved to the weather server"),
        ("input-enum-value-removed", "fahrenheit dropped on purpose"),
    ]
    assert [(s.rule, s.location) for s in allowed.stale_allowances] == [("prompt-removed", "prompts.plan_trip")]
    assert allowed.summary() == {"breaking": 0, "dangerous": 1, "safe": 1}
    assert exit_code(report, "breaking") == 1
    assert exit_code(allowed, "breaking") == 0
    assert exit_code(allowed, "dangerous") == 1


def test_globs_match_brackets_and_dots_literally() -> None:
    finding = Finding("input-type-changed", "breaking", 'tools.t.input.tags[]["a.b"]')
    report = DriftReport(findings=(finding,))
    literal = parse_allowlist(
        '[[allow]]\nrule = "input-type-changed"\nlocation = \'tools.t.input.tags[]["a.b"]\'\nreason = "r"\n'
    )
    assert apply_allowlist(report, literal).findings == ()
    other = parse_allowlist(
        '[[allow]]\nrule = "input-type-changed"\nlocation = "tools.t.input.tags[]x"\nreason = "r"\n'
    )
    assert apply_allowlist(report, other).findings == (finding,)
    star = parse_allowlist('[[allow]]\nrule = "*"\nlocation = "tools.*"\nreason = "everything in tools"\n')
    assert apply_allowlist(report, star).findings == ()


def test_an_entry_shadowed_by_an_earlier_one_is_not_stale(report: DriftReport) -> None:
    text = _ALLOW + '\n[[allow]]\nrule = "tool-*"\nlocation = "tools.*"\nreason = "broad"\n'
    allowed = apply_allowlist(report, parse_allowlist(text))
    assert [s.reason for s in allowed.stale_allowances] == ["kept for when the prompt goes"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[allow]\n", "not valid TOML"),
        ('[[allows]]\nrule = "tool-removed"\n', "unknown top-level key"),
        ('allow = "x"\n', "array of tables"),
        ('[[allow]]\nrule = "tool-removed"\nlocation = "tools.x"\n', "`reason` must be a non-empty string"),
        ('[[allow]]\nrule = "tool-removed"\nlocation = "tools.x"\nreason = "  "\n', "`reason` must be"),
        ('[[allow]]\nrule = "tool-gone"\nlocation = "tools.x"\nreason = "r"\n', "unknown rule 'tool-gone'"),
        (
            '[[allow]]\nrule = "tool-removed"\nlocation = "tools.x"\nreason = "r"\nexpires = 1\n',
            "unknown key(s) expires",
        ),
        ('[[allow]]\nrule = 3\nlocation = "tools.x"\nreason = "r"\n', "`rule` must be"),
    ],
)
def test_invalid_allow_lists_are_usage_errors(text: str, message: str) -> None:
    with pytest.raises(AllowlistError) as raised:
        parse_allowlist(text, source="drift-allow.toml")
    assert message in str(raised.value)
    assert str(raised.value).startswith("drift-allow.toml")
    assert isinstance(raised.value, UsageError) and raised.value.exit_code == ExitCode.USAGE


def test_a_missing_allow_list_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AllowlistError, match="no such allow-list file"):
        load_allowlist(tmp_path / "nope.toml")


def test_an_empty_allow_list_is_valid(report: DriftReport) -> None:
    assert apply_allowlist(report, parse_allowlist("")) == report


# ---- formats ---------------------------------------------------------------------------------------------------


def _allowed_report(report: DriftReport) -> DriftReport:
    return apply_allowlist(report, parse_allowlist(_ALLOW))


def test_json_matches_the_documented_shape(report: DriftReport) -> None:
    data = json.loads(render(_allowed_report(report), "json"))
    assert set(data) == {"formatVersion", "summary", "findings", "allowed", "staleAllowances"}
    assert data["formatVersion"] == 1
    assert data["summary"] == {"breaking": 0, "dangerous": 1, "safe": 1}
    keys = {"rule", "level", "location", "old", "new", "reason", "wireImpact", "sourceImpact", "hint"}
    assert all(set(f) == keys for f in data["findings"])
    assert all(set(a) == keys | {"allowedBy"} for a in data["allowed"])
    assert all(set(a["allowedBy"]) == {"rule", "location", "reason"} for a in data["allowed"])
    assert data["staleAllowances"] == [
        {"rule": "prompt-removed", "location": "prompts.plan_trip", "reason": "kept for when the prompt goes"}
    ]
    assert data["findings"][1] == {
        "rule": "annotation-riskier",
        "level": "dangerous",
        "location": "tools.add.annotations.readOnlyHint",
        "old": True,
        "new": False,
        "reason": "tool 'add': readOnlyHint is now false (was true): riskier",
        "wireImpact": RULES["annotation-riskier"].wire_impact,
        "sourceImpact": RULES["annotation-riskier"].source_impact,
        "hint": None,
    }


def test_github_lines_are_workflow_commands(report: DriftReport) -> None:
    lines = render(report, "github").splitlines()
    assert len(lines) == 4
    by_rule = {re.search(r"title=([^ ]+)", line).group(1): line for line in lines}  # type: ignore[union-attr]
    assert by_rule["tool-removed"].startswith("::error title=tool-removed (breaking)::tools.forecast: ")
    assert by_rule["input-enum-value-removed"].startswith("::error ")
    assert by_rule["annotation-riskier"].startswith("::warning ")
    assert by_rule["server-version-changed"].startswith("::notice ")
    stale = render(_allowed_report(report), "github").splitlines()
    assert any(line.startswith("::warning title=stale allow-list entry::") for line in stale)


def test_github_escapes_newlines_percent_and_property_separators() -> None:
    finding = Finding("tool-removed", "breaking", "tools.a:b,c", reason="50% gone\nreally")
    line = render(DriftReport(findings=(finding,)), "github")
    assert line == "::error title=tool-removed (breaking)::tools.a:b,c: 50% gone really\n".replace("%", "%25")
    stale = apply_allowlist(
        DriftReport(), parse_allowlist('[[allow]]\nrule = "*"\nlocation = "x"\nreason = """a\nb"""\n')
    )
    assert render(stale, "github").endswith("(a%0Ab)\n")


def test_markdown_is_a_table(report: DriftReport) -> None:
    text = render(_allowed_report(report), "markdown")
    lines = text.splitlines()
    header = lines.index(
        "| level | rule | location | change | wire impact (old client) | source impact (after regenerating) |"
    )
    rows = [line for line in lines[header + 2 :] if line.startswith("| ")]
    assert len(rows) >= 2
    assert "**1 dangerous**" in text and "0 breaking" in text
    assert "2 allowed by the allow-list" in text and "stale allow-list entries" in text
    pipe = Finding("input-docs-changed", "safe", "tools.a|b.input", reason="a | b\nc")
    table_row = render(DriftReport(findings=(pipe,)), "markdown").splitlines()[-1]
    assert "`tools.a&#124;b.input`" in table_row and "a \\| b<br>c" in table_row
    assert table_row.count(" | ") == 5


def test_text_groups_by_level(report: DriftReport) -> None:
    text = render(report, "text")
    lines = text.splitlines()
    assert lines[0] == "schema drift: 2 breaking, 1 dangerous, 1 safe"
    assert lines.index("breaking (2):") < lines.index("dangerous (1):") < lines.index("safe (1):")
    assert "  tools.forecast  tool-removed  tool 'forecast' removed" in lines
    assert render(DriftReport(), "text") == "no schema drift\n"


@pytest.mark.parametrize("output_format", FORMATS)
def test_every_format_renders_an_empty_report(output_format: str) -> None:
    assert render(DriftReport(), output_format) is not None


def test_an_unknown_format_is_a_usage_error(report: DriftReport) -> None:
    with pytest.raises(UsageError, match="--format"):
        render(report, "junit")


# ---- exit codes ------------------------------------------------------------------------------------------------


def _only(level: str) -> DriftReport:
    return DriftReport(findings=(Finding("x", level, "l"),))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("level", "fail_on", "code"),
    [
        ("breaking", "breaking", 1),
        ("breaking", "dangerous", 1),
        ("breaking", "any", 1),
        ("dangerous", "breaking", 0),
        ("dangerous", "dangerous", 1),
        ("dangerous", "any", 1),
        ("safe", "breaking", 0),
        ("safe", "dangerous", 0),
        ("safe", "any", 1),
    ],
)
def test_exit_code_thresholds(level: str, fail_on: str, code: int) -> None:
    assert exit_code(_only(level), fail_on) == code


def test_no_findings_exit_zero_and_bad_threshold_is_usage() -> None:
    assert all(exit_code(DriftReport(), fail_on) == 0 for fail_on in ("breaking", "dangerous", "any"))
    with pytest.raises(UsageError, match="--fail-on"):
        exit_code(DriftReport(), "safe")


# ---- the rule table ----------------------------------------------------------------------------------------------


def test_every_rule_is_complete() -> None:
    for rule in all_rules():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.id), rule.id
        assert rule.level in LEVELS
        assert rule.spec and rule.reason and rule.wire_impact and rule.source_impact
        rendered = render_reason(rule, name="n", detail="d", old="1", new="2")
        assert "?" not in rendered and "{" not in rendered, rule.id
    assert len(RULES) == len(all_rules())


def test_the_rule_table_is_printable() -> None:
    table = rule_table_markdown()
    assert all(f"`{rule_id}`" in table for rule_id in RULES)
