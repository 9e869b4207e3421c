"""The docs' examples run, so none can rot: every ```python block of docs/**/*.md and README.md runs against a server.

Each block runs on its own, as a script in an interpreter of its own (forked from one that has imported `mcp`,
tests/prewarmed.py; a `pytest` block in a fresh one), with a package generated at test time on PYTHONPATH:
`demo_client` from the demo server (`python -m mcp_codegen.demo`, prewarmed too), by default. A line right above
the fence changes that, and is used sparingly:

    <!-- docs-test: everything -->                  against `everything_client` (npm server-everything)
    <!-- docs-test: pdf -->                         against `pdf_client` (npm server-pdf, an MCP Apps server)
    <!-- docs-test: skills -->                      against `skills_client` (a FastMCP 4.2.3 server of two skills)
    <!-- docs-test: pytest -->                      the block is a test module: run it with pytest
    <!-- docs-test: compile-only; REASON -->        only compiled (it needs a real OAuth server, a model's API
                                                    key, ...): REASON says what, and it must say it

Top-level `await` / `async with` run as in `python -m asyncio`. The ```toml blocks that name their file in their
first line (`# mcp-codegen.toml`) are loaded as that file.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import prewarmed
import pytest

from mcp_codegen.diagnostics import CODES
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MARKER = re.compile(r"<!-- docs-test: (?P<mode>[a-z-]+)(?:; (?P<reason>.+?))? -->")
MODES = ("demo", "everything", "pdf", "skills", "pytest", "compile-only")

#: Runs a file like `python FILE`, except that top-level `await` is allowed (as `python -m asyncio` does).
RUNNER = """
import ast, asyncio, inspect, sys
path = sys.argv[1]
code = compile(open(path, encoding="utf-8").read(), path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
namespace = {"__name__": "__main__", "__file__": path}
result = eval(code, namespace)
if inspect.iscoroutine(result):
    asyncio.run(result)
"""


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    language: str
    code: str
    mode: str
    reason: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks(language: str) -> list[Example]:
    found = []
    for path in [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]:
        lines = path.read_text(encoding="utf-8").splitlines()
        index = 0
        while index < len(lines):
            line = lines[index]
            if line.startswith("```"):
                end = next(j for j in range(index + 1, len(lines)) if lines[j].startswith("```"))
                if line.strip() == f"```{language}":
                    above = next((lines[j] for j in range(index - 1, -1, -1) if lines[j].strip()), "")
                    marker = MARKER.fullmatch(above.strip())
                    found.append(
                        Example(
                            page=path.relative_to(DOCS if path.is_relative_to(DOCS) else ROOT).as_posix(),
                            line=index + 1,
                            language=language,
                            code="\n".join(lines[index + 1 : end]) + "\n",
                            mode=marker.group("mode") if marker else "demo",
                            reason=(marker.group("reason") or "") if marker else "",
                        )
                    )
                index = end
            index += 1
    return found


EXAMPLES = _blocks("python")
RUN = [example for example in EXAMPLES if example.mode != "compile-only"]


def test_the_docs_have_examples_and_most_of_them_run() -> None:
    assert len(EXAMPLES) >= 20  # the scan finds the blocks (the tests below would pass vacuously otherwise)
    assert {example.mode for example in EXAMPLES} <= set(MODES), "unknown docs-test marker"
    assert len(RUN) >= 0.7 * len(EXAMPLES), "compile-only is for the few examples that cannot run here"
    # every page with Python examples runs at least one, apart from those that need outside services
    assert {e.page for e in RUN} >= {e.page for e in EXAMPLES} - {
        "how-to/several-servers.md",
        "how-to/server-skeletons.md",
        "how-to/temporal.md",  # a Temporal server and worker processes: tests/temporal runs the same code
    }


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.mode == "compile-only"], ids=lambda e: e.id)
def test_an_example_that_cannot_run_here_compiles_and_says_why(example: Example) -> None:
    assert len(example.reason) >= 20, f"{example.id}: compile-only needs a reason"
    compile(example.code, example.id, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


@pytest.fixture(scope="session")
def packages(tmp_path_factory: pytest.TempPathFactory, demo_stdio_command: list[str]) -> Callable[[str], Path]:
    """`packages(mode)`: a directory holding the package the mode's examples import, generated once."""
    made: dict[str, Path] = {}

    def generate(name: str, command: list[str]) -> Path:
        directory = tmp_path_factory.mktemp(f"docs-{name}")
        done = subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "generate", "-q", "--stdio", shlex.join(command)]
            + ["-o", str(directory / name)],
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return directory

    def get(mode: str) -> Path:
        if mode not in made:
            if mode == "everything":
                from servers import install

                made[mode] = generate("everything_client", install.everything_command())
            elif mode == "pdf":
                from servers import install

                made[mode] = generate("pdf_client", install.pdf_server_command())
            elif mode == "skills":
                from servers import install

                made[mode] = generate("skills_client", install.skills_server_command())
            else:  # its server starts prewarmed too (tests/conftest.py): most examples connect to it
                made[mode] = generate("demo_client", demo_stdio_command)
        return made[mode]

    return get


@pytest.mark.parametrize("example", RUN, ids=lambda e: e.id)
def test_a_docs_example_runs(example: Example, packages: Callable[[str], Path], tmp_path: Path) -> None:
    directory = packages(example.mode if example.mode in ("everything", "pdf", "skills") else "demo")
    script = tmp_path / "example.py" if example.mode != "pytest" else tmp_path / "test_example.py"
    script.write_text(example.code, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(directory), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        # `python` in an example is this interpreter; stored OAuth tokens go to a directory of the test's own.
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "MCP_CODEGEN_CONFIG_DIR": str(tmp_path / "config"),
        "MCP_CODEGEN_TOKEN_STORE": "file",
    }
    if example.mode == "pytest":
        (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(script)]
    else:
        command = prewarmed.command(["-c", RUNNER, str(script)])
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, f"{example.id} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    if example.mode == "pytest":  # its tests ran and passed (an async test without its plugin would be skipped)
        assert re.search(r"\b[1-9][0-9]* passed", done.stdout) and "skipped" not in done.stdout, done.stdout


def _named_toml_examples() -> list[tuple[str, str, str]]:
    """Every ```toml block of the docs that names its file in its first line: (where, file name, text)."""
    named = []
    for example in _blocks("toml"):
        first = example.code.splitlines()[0]
        if match := re.fullmatch(r"#\s*(mcp-codegen\.toml|pyproject\.toml)\b.*", first):
            named.append((example.id, match.group(1), example.code))
    return named


def test_the_docs_show_both_config_forms() -> None:
    assert sorted(name for _, name, _ in _named_toml_examples()) == ["mcp-codegen.toml", "pyproject.toml"]


@pytest.mark.parametrize(
    ("name", "text"), [pytest.param(name, text, id=where) for where, name, text in _named_toml_examples()]
)
def test_docs_config_examples_parse_as_the_file_they_name(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    cfg = load_config(path)
    assert set(cfg.servers) == {"memory", "time", "docs"}
    assert set(cfg.allow_warnings) <= set(CODES)
    # and the other file name rejects it: the two forms are not interchangeable
    other = tmp_path / ("pyproject.toml" if name == "mcp-codegen.toml" else "mcp-codegen.toml")
    other.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError):
        load_config(other)
