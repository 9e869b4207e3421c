"""`generate --formatter ruff|black|none`: each one's output type-checks, and the user's pyproject.toml settings count.

The demo server's package is generated with each formatter and checked with `mypy --strict` (and pyright strict); ruff's and black's
outputs are checked with the formatters themselves at the settings a `pyproject.toml` above the output gives.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import mypy_strict, pyright_strict

from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.formatter import FormatterSettings, formatter_settings
from mcp_codegen.inputs.options import GenerateOptions

ROOT = Path(__file__).resolve().parents[2]
DEMO_SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"
SETTINGS = """\
[tool.ruff]
line-length = 100

[tool.ruff.format]
quote-style = "single"

[tool.black]
line-length = 60
skip-string-normalization = true
"""


def _run(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=False, cwd=cwd)


def _generate(output: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run("-m", "mcp_codegen", "generate", "--snapshot", str(DEMO_SNAPSHOT), "-o", str(output), "-q", *extra)


def _rewritten(output: Path, *extra: str) -> bool:
    """Generate into an existing package: whether its manifest was written again (else it was up to date)."""
    before = (output / ".mcp-codegen.json").stat()
    completed = _generate(output, *extra)
    assert completed.returncode == 0, completed.stderr
    after = (output / ".mcp-codegen.json").stat()
    return (before.st_ino, before.st_mtime_ns) != (after.st_ino, after.st_mtime_ns)


def _python(package: Path) -> dict[str, str]:
    """The package's own Python files (its name written as `PKG`, to compare packages of other names)."""
    return {
        path.relative_to(package).as_posix(): path.read_text(encoding="utf-8").replace(package.name, "PKG")
        for path in sorted(package.rglob("*.py"))
    }


def test_each_formatter_writes_a_package_that_passes_mypy_strict(tmp_path: Path) -> None:
    for formatter in ("ruff", "black", "none"):
        completed = _generate(tmp_path / f"demo_{formatter}", "--formatter", formatter)
        assert completed.returncode == 0, completed.stderr
        manifest = json.loads((tmp_path / f"demo_{formatter}" / ".mcp-codegen.json").read_text(encoding="utf-8"))
        assert manifest["options"]["formatter"] == formatter
    ruff, black, unformatted = (_python(tmp_path / f"demo_{name}") for name in ("ruff", "black", "none"))
    assert ruff.keys() == black.keys() == unformatted.keys()
    # Without settings both formatters write black's style; `none` leaves the rendered code as it is.
    assert [path for path in ruff if ruff[path] != black[path]] == []
    assert [path for path in ruff if ruff[path] != unformatted[path]] != []
    for text in unformatted.values():
        ast.parse(text)
    checked = mypy_strict(tmp_path, "demo_ruff", "demo_black", "demo_none")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    checked = pyright_strict(tmp_path, "demo_black", "demo_none")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The recorded formatter is what `verify` and the up-to-date check regenerate with.
    verified = _run("-m", "mcp_codegen", "verify", str(tmp_path / "demo_black"), str(tmp_path / "demo_none"))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert _rewritten(tmp_path / "demo_none", "--formatter", "none") is False
    assert _generate(tmp_path / "demo_none", "--formatter", "none", "--check").returncode == 0
    assert _generate(tmp_path / "demo_none", "--check").returncode == 1  # ruff's output differs


def test_the_users_pyproject_settings_are_honoured_by_both(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    for formatter in ("ruff", "black"):
        completed = _generate(project / "clients" / f"demo_{formatter}", "--formatter", formatter)
        assert completed.returncode == 0, completed.stderr
    _generate(tmp_path / "demo_default")
    default = _python(tmp_path / "demo_default")
    ruff, black = _python(project / "clients" / "demo_ruff"), _python(project / "clients" / "demo_black")
    assert "SERVER_NAME: Final = 'demo'" in ruff["specs.py"] and ruff != default
    assert black != default and black != ruff
    files = [str(project / "clients" / "demo_ruff" / path) for path in ruff]
    ruff_check = _run(
        "-m", "ruff", "format", "--check", "--isolated", "--line-length=100",
        "--config=format.quote-style='single'", *files,
    )  # fmt: skip
    assert ruff_check.returncode == 0, ruff_check.stdout + ruff_check.stderr
    files = [str(project / "clients" / "demo_black" / path) for path in black]
    black_check = _run("-m", "black", "--check", "-l", "60", "-S", "--target-version=py311", *files)
    assert black_check.returncode == 0, black_check.stdout + black_check.stderr
    checked = mypy_strict(project / "clients", "demo_ruff", "demo_black")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The settings are inputs: unchanged, the package is up to date; a new line length rewrites it.
    assert _rewritten(project / "clients" / "demo_black", "--formatter", "black") is False
    (project / "pyproject.toml").write_text(SETTINGS.replace("60", "70"), encoding="utf-8")
    assert _rewritten(project / "clients" / "demo_black", "--formatter", "black") is True


def test_settings_are_read_from_the_nearest_pyproject_with_the_formatters_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[tool.black]\nline-length = 99\n[project]\nname = "x"\n', encoding="utf-8")
    output = inner / "pkg"
    assert formatter_settings("black", output) == FormatterSettings("black", 99)
    assert formatter_settings("ruff", output) == FormatterSettings("ruff", 100, (("quote-style", "single"),))
    assert formatter_settings("none", output) == FormatterSettings("none")
    # mcp-codegen's own project file (`--meta pyproject`) is not the user's.
    (output).mkdir()
    (output / "pyproject.toml").write_text("# @generated by mcp-codegen\n[tool.black]\nline-length = 5\n")
    assert formatter_settings("black", output).line_length == 99
    assert GenerateOptions(formatter="black").located(output).formatting() == FormatterSettings("black", 99)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.black]\nline-length = '88'\n", "line-length must be a whole number"),
        ("[tool.black]\nskip-string-normalization = 1\n", "must be true or false"),
        ("[tool.ruff.format]\nquote-style = 'backtick'\n", "must be one of double, single, preserve"),
        ("[tool.black\n", "cannot read the formatter settings"),
    ],
)
def test_a_bad_setting_is_a_one_line_usage_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    formatter = "ruff" if "ruff" in text else "black"
    with pytest.raises(UsageError, match=message) as raised:
        formatter_settings(formatter, tmp_path / "pkg")
    assert "\n" not in str(raised.value)
    completed = _generate(tmp_path / "pkg", "--formatter", formatter)
    assert completed.returncode == 2 and "Traceback" not in completed.stderr


def test_the_config_key_and_the_command_line_flag() -> None:
    from mcp_codegen.inputs.config import apply_overrides, resolve_server, validate_config

    cfg = validate_config({"servers": {"a": {"command": "x", "formatter": "black"}, "b": {"command": "y"}}}, where="c")
    assert resolve_server(cfg, "a")[1].formatter == "black"
    assert resolve_server(cfg, "b")[1].formatter == "ruff"
    overridden = apply_overrides(cfg, server={"formatter": "none"})
    assert {resolve_server(overridden, name)[1].formatter for name in ("a", "b")} == {"none"}
    with pytest.raises(UsageError, match="formatter"):
        validate_config({"servers": {"a": {"command": "x", "formatter": "yapf"}}}, where="c")
