"""What users reference by tag: the pre-commit hooks (`.pre-commit-hooks.yaml`) and the GitHub Action (`action.yml`).

The hooks run through pre-commit's own `try-repo` on a temporary git repository (pre-commit installs this
repository into a hook environment, as it would from a tag). pre-commit runs from an environment of its own
holding pre-commit-uv, which builds that hook environment with uv (9 s, where pip takes 27): installed in the
suite's, its `.pth` file would slow every Python the suite starts by about 50 ms.

The action's shell steps run in a shell with the inputs substituted, as the runner would run them (the
setup-python and install steps need the network and GitHub's runner; the commands they install are the ones on
PATH here).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import venv_with

ROOT = Path(__file__).resolve().parents[2]
DEMO_SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"

pytestmark = pytest.mark.slow(reason="pre-commit hooks and the GitHub action run as a user runs them, in fresh repositories")


def _git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *arguments], cwd=repo, check=True,
                   capture_output=True)  # fmt: skip


def _generate(directory: Path, *extra: str, snapshot: Path = DEMO_SNAPSHOT) -> None:
    command = [sys.executable, "-m", "mcp_codegen", "generate", "--snapshot", str(snapshot), "-o", str(directory)]
    subprocess.run([*command, "-q", *extra], check=True)


@pytest.fixture(scope="module")
def pre_commit(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """`python -m pre_commit` of a fresh environment holding pre-commit and pre-commit-uv."""
    python = venv_with(tmp_path_factory.mktemp("pre-commit") / "venv", "pre-commit>=4.6.2,<5", "pre-commit-uv>=4.4,<5")
    return [str(python), "-m", "pre_commit"]


def test_the_current_hook_passes_on_a_current_client_and_fails_on_a_stale_one(
    tmp_path: Path, pre_commit: list[str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _generate(repo / "src" / "demo_client", "--include", "get_*")  # recorded options are used
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "client")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    command = [*pre_commit, "try-repo", str(ROOT), "mcp-codegen-current", "--all-files"]
    current = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=False)
    assert current.returncode == 0, current.stdout + current.stderr
    assert "generated MCP clients are current" in current.stdout and "Passed" in current.stdout

    client = repo / "src" / "demo_client" / "client.py"
    client.write_text(client.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    stale = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=False)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "Failed" in stale.stdout
    assert "changed: " in stale.stdout and "demo_client/client.py" in stale.stdout
    assert "is stale: regenerate it with `mcp-codegen generate --snapshot" in stale.stdout


def _action_steps(inputs: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """The action's shell steps as the runner would run them: (script, environment), `if:` applied."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    values = {name: inputs.get(name, spec.get("default", "")) for name, spec in action["inputs"].items()}

    def substitute(text: str) -> str:
        return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: values[m.group(1)], text)

    steps = []
    for step in action["runs"]["steps"]:
        if "uses" in step or step["name"] == "Install mcp-codegen":
            continue  # the runner's Python and the install: here, this environment
        condition = step.get("if")
        if condition is not None:
            match = re.fullmatch(r"inputs\.([\w-]+) != ''", condition)
            assert match is not None, f"unexpected condition {condition!r}"
            if values[match.group(1)] == "":
                continue
        environment = {key: substitute(str(value)) for key, value in step.get("env", {}).items()}
        steps.append((step["run"], environment))
    return steps


def _run_action(repo: Path, inputs: dict[str, str]) -> subprocess.CompletedProcess[str]:
    bin_dir = Path(sys.executable).parent
    output, errors, code = "", "", 0
    for script, environment in _action_steps(inputs):
        env = {**os.environ, **environment, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
        done = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True)
        output, errors, code = output + done.stdout, errors + done.stderr, done.returncode
        if code:
            break
    return subprocess.CompletedProcess([], code, output, errors)


def _with_snapshot_change(package: Path, change: Any) -> None:
    path = package / "snapshot.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _generate(package, snapshot=path)  # the package matches its (changed) snapshot: only the drift differs


def test_the_action_annotates_a_breaking_change_and_not_a_safe_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    package = repo / "src" / "demo_client"
    _generate(package)
    assert "::error" not in _run_action(repo, {"package": "src/demo_client"}).stdout

    # The package knows a tool the live server no longer has: breaking.
    def add_tool(data: dict[str, Any]) -> None:
        data["tools"].append({"name": "gone_tool", "inputSchema": {"type": "object", "properties": {}}})

    _with_snapshot_change(package, add_tool)
    broken = _run_action(repo, {"package": "src/demo_client"})
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert re.search(r"^::error .*gone_tool", broken.stdout, re.MULTILINE), broken.stdout

    # The server has a tool the package does not know yet: safe, so no error annotation and exit 0.
    def drop_tool(data: dict[str, Any]) -> None:
        data["tools"] = [tool for tool in data["tools"] if tool["name"] != "gone_tool" and tool["name"] != "add"]

    _with_snapshot_change(package, drop_tool)
    safe = _run_action(repo, {"package": "src/demo_client"})
    assert safe.returncode == 0, safe.stdout + safe.stderr
    assert "::error" not in safe.stdout


def test_the_action_fails_on_a_stale_client_before_contacting_the_server(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    package = repo / "pkgs" / "demo_client"
    _generate(package)
    (package / "specs.py").write_text("# edited\n", encoding="utf-8")
    result = _run_action(repo, {"package": "pkgs/demo_client", "paths": "pkgs"})
    assert result.returncode == 1
    assert "changed: " in result.stdout and "is stale" in result.stderr
