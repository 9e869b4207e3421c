"""The generated README.md and SKILL.md say what is true of their package (issue 57).

Read for every committed example (generated_examples/, which tests/test_examples.py keeps equal to what the
generator writes), a package of the real FastMCP skills server, and packages of tests/servers/first_hour_server.py
(annotated tools, failing listings):

- every `## Section (N)` lists N entries, and no section has nothing to list (no `## Prompts (0)`); no run of
  blank lines;
- a package whose server offers skills has a skills section naming `client.skills` and every skill;
- the sentence on run-time imports names exactly the third-party modules the package's code imports (read with
  `ast` from every module);
- the example call (README, and SKILL.md's command line) is the tool the documented order picks: read-only first,
  then one marked not destructive, then one without the hint, then alphabetical; never an app-only tool.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import codegen
from servers import install

from mcp_codegen.generate.render import RUNTIME_IMPORTS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(path for path in (ROOT / "generated_examples").iterdir() if (path / "README.md").is_file())
FIRST_HOUR = [sys.executable, str(ROOT / "tests" / "servers" / "first_hour_server.py")]


def generate(output: Path, *args: str) -> Path:
    result = codegen("generate", "-q", *args, "-o", str(output))
    assert result.returncode == 0, result.stderr
    return output


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    base = tmp_path_factory.mktemp("readmes")
    try:
        skills_server = install.skills_server_command()
    except install.InstallError as exc:
        pytest.fail(f"cannot provide the FastMCP skills server: {exc}", pytrace=False)
    made = {
        "skills_client": generate(base / "skills_client", "--stdio", shlex.join(skills_server), "--cli"),
        "first_hour": generate(base / "first_hour", "--stdio", shlex.join(FIRST_HOUR), "--cli"),
        "failing_lists": generate(
            base / "failing_lists", "--stdio", shlex.join([*FIRST_HOUR, "--fail", "prompts", "--fail", "templates"])
        ),
    }
    yield {path.name: path for path in EXAMPLES} | made


NAMES = [path.name for path in EXAMPLES] + ["skills_client", "first_hour", "failing_lists"]


def snapshot_of(package: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((package / "snapshot.json").read_text(encoding="utf-8"))
    return data


def sections(readme: str) -> dict[str, str]:
    """`## Heading` -> its text up to the next `## ` heading (fenced code blocks skipped)."""
    found: dict[str, str] = {}
    current = None
    fenced = False
    for line in readme.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            current = line[3:]
            found[current] = ""
        elif current is not None:
            found[current] += line + "\n"
    return found


@pytest.mark.parametrize("name", NAMES)
def test_every_counted_section_lists_its_count_and_none_is_empty(name: str, packages: dict[str, Path]) -> None:
    readme = (packages[name] / "README.md").read_text(encoding="utf-8")
    counted = 0
    for heading, body in sections(readme).items():
        match = re.fullmatch(r"(.+) \((\d+)\)", heading)
        if match is None:
            continue
        counted += 1
        marker = "### " if match.group(1) in ("Tools", "Argument models") else "- "
        entries = [line for line in body.splitlines() if line.startswith(marker)]
        assert int(match.group(2)) > 0, f"{name}: empty section {heading!r}"
        assert len(entries) == int(match.group(2)), f"{name}: {heading!r} lists {len(entries)}"
    assert counted >= 1
    for text in (readme, *(p.read_text() for p in [packages[name] / "SKILL.md"] if p.is_file())):
        prose = re.sub(r"^```.*?^```$", "```", text, flags=re.MULTILINE | re.DOTALL)  # code keeps its own blank lines
        assert "\n\n\n" not in prose and text.endswith("\n") and not text.endswith("\n\n")
    snapshot = snapshot_of(packages[name])
    for key, heading in (
        ("prompts", "Prompts"),
        ("resources", "Resources"),
        ("resourceTemplates", "Resource templates"),
    ):
        listed = any(h.startswith(f"{heading} (") for h in sections(readme))
        assert listed == bool(snapshot.get(key)), f"{name}: {heading}"


@pytest.mark.parametrize("name", NAMES)
def test_a_server_with_skills_gets_a_skills_section(name: str, packages: dict[str, Path]) -> None:
    readme = (packages[name] / "README.md").read_text(encoding="utf-8")
    skills = [entry["frontmatter"]["name"] for entry in snapshot_of(packages[name]).get("skills") or []]
    found = {heading: body for heading, body in sections(readme).items() if heading.startswith("Skills")}
    if not skills:
        assert not found or "listed none" in next(iter(found.values()))
        return
    assert list(found) == [f"Skills ({len(skills)})"]
    body = found[f"Skills ({len(skills)})"]
    assert "`client.skills.list()`" in body and "client.skills.install(" in body
    assert re.findall(r"^- `([^`]+)`", body, re.MULTILINE) == sorted(skills)


def third_party_imports(package: Path) -> set[str]:
    """The top-level modules the package's Python code imports, other than the standard library and itself."""
    found: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {module for module in found if module not in sys.stdlib_module_names and module != "__future__"} - {
        package.name
    }


@pytest.mark.parametrize("name", NAMES)
def test_the_run_time_imports_sentence_is_what_the_code_imports(name: str, packages: dict[str, Path]) -> None:
    package = packages[name]
    imported = third_party_imports(package)
    assert "mcp_codegen_runtime" in imported and imported <= set(RUNTIME_IMPORTS)
    readme = (package / "README.md").read_text(encoding="utf-8")
    sentence = next(line for line in readme.splitlines() if line.startswith("At run time it imports"))
    named = re.findall(r"`([a-z_]+)`(?: \(the `[a-z-]+` distribution\))?(?: and|,)", sentence)
    assert set(named) == imported, sentence
    assert "needs only" not in readme


def expected_example(snapshot: dict[str, Any]) -> str:
    """The tool the README's example calls, by the documented order (independent of the generator's code)."""

    def rank(tool: dict[str, Any]) -> tuple[bool, int, str]:
        hints = tool.get("annotations") or {}
        visibility = ((tool.get("_meta") or {}).get("ui") or {}).get("visibility")
        app_only = isinstance(visibility, list) and "model" not in visibility
        if hints.get("readOnlyHint") is True:
            safety = 0
        else:
            safety = {False: 1, None: 2, True: 3}[hints.get("destructiveHint")]
        return (app_only, safety, re.sub(r"\W", "_", tool["name"]))

    return str(min(snapshot["tools"], key=rank)["name"])


@pytest.mark.parametrize("name", NAMES)
def test_the_example_call_prefers_a_read_only_tool(name: str, packages: dict[str, Path]) -> None:
    package = packages[name]
    readme = (package / "README.md").read_text(encoding="utf-8")
    if not snapshot_of(package)["tools"]:
        assert "result = client." not in readme and "@fake.tools." not in readme
        return
    wire = expected_example(snapshot_of(package))
    called = re.search(r"^    result = client\.(\w+)\(", readme, re.MULTILINE)
    assert called is not None
    assert called.group(1) == re.sub(r"\W", "_", wire)
    assert f"@fake.tools.{called.group(1)}\n" in readme
    skill = package / "SKILL.md"
    if skill.is_file():
        assert re.search(rf"^python -m {package.name} {re.escape(wire)}\b", skill.read_text(), re.MULTILINE)


def test_the_first_hour_servers_example_is_its_read_only_tool(packages: dict[str, Path]) -> None:
    """add_asset (changes data) sorts first, delete_everything is destructive: list_contexts is the example."""
    assert "result = client.list_contexts()" in (packages["first_hour"] / "README.md").read_text()


def test_a_listing_that_failed_is_named_in_the_readme(packages: dict[str, Path]) -> None:
    readme = (packages["failing_lists"] / "README.md").read_text(encoding="utf-8")
    assert "`prompts/list` answered with an error at generation" in readme
    assert "`resources/templates/list` answered with an error at generation" in readme
    assert "## Prompts" not in readme and "## Resource templates" not in readme and "## Resources (1)" in readme
