"""Every diagnostic the pipeline can report carries a registered, documented code (what `--allow-warning` names)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from docs.hooks import render_docs_page  # tests/docs: the pages as the site renders them

from mcp_codegen.diagnostics import CODES

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "mcp_codegen"


def _diagnostic_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.name == "diagnostics.py" or "runtime" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("info", "warn", "error")
                and "diagnostics" in ast.unparse(node.func.value)
            ):
                calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return calls


def test_every_diagnostic_call_site_names_a_registered_code() -> None:
    calls = _diagnostic_calls()
    assert len(calls) >= 20  # the scan finds the call sites (it would pass vacuously otherwise)
    for where, call in calls:
        codes = [k.value for k in call.keywords if k.arg == "code"]
        assert len(codes) == 1 and isinstance(codes[0], ast.Constant), f"{where}: no literal code="
        assert codes[0].value in CODES, f"{where}: code {codes[0].value!r} is not in diagnostics.CODES"


def test_every_code_is_used_and_documented_in_the_docs() -> None:
    used = {
        k.value.value for _, call in _diagnostic_calls() for k in call.keywords if isinstance(k.value, ast.Constant)
    }
    assert used == set(CODES)
    page = render_docs_page("reference/warning-codes.md")
    documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", page, re.MULTILINE))
    assert documented == set(CODES), f"not on the warning-codes page: {sorted(set(CODES) - documented)}"


def test_codes_are_kebab_case() -> None:
    assert all(re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", code) for code in CODES)
