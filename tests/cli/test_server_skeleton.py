"""`generate --server`: a typed server package from server-everything's snapshot, with a few handlers written.

The generated part (`_generated/`, `server.py`, ...) is rewritten on every run; `handlers.py`, created once with
typed stubs, is the user's and is never rewritten. The skeleton passes `mypy --strict`, answers the generated
client's typed calls over stdio, and its own snapshot is the original one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import prewarmed
import pytest
from helpers import imported_package, mypy_strict

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "generated_examples" / "everything_client" / "snapshot.json"

HANDLERS = '''"""Three tools, a resource and a prompt implemented; the rest answer an error naming them."""

from __future__ import annotations

from ._generated import ToolResult
from ._generated.models.echo import EchoArguments
from ._generated.models.get_structured_content import GetStructuredContentArguments, GetStructuredContentResult
from ._generated.models.get_sum import GetSumArguments
from ._generated.testing import FakeServer, NoVariables, SimplePromptPromptArguments


def register(server: FakeServer) -> None:
    @server.resources.architecture_md
    def architecture(variables: NoVariables) -> str:
        return "# Architecture"

    @server.prompts.simple_prompt
    def simple(arguments: SimplePromptPromptArguments) -> str:
        return "Say hello."

    @server.tools.echo
    def echo(arguments: EchoArguments) -> ToolResult:
        return ToolResult.from_text(f"Echo: {arguments.message}")

    @server.tools.get_sum
    async def get_sum(arguments: GetSumArguments) -> ToolResult:
        return ToolResult.from_text(f"The sum is {arguments.a + arguments.b:g}.")

    @server.tools.get_structured_content
    def weather(arguments: GetStructuredContentArguments) -> GetStructuredContentResult:
        return GetStructuredContentResult(temperature=21.5, conditions=f"sunny in {arguments.location}", humidity=40)
'''

pytestmark = pytest.mark.slow(reason="skeletons generated, type-checked with mypy and served")


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = prewarmed.command(["-m", "mcp_codegen", *arguments])
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("skeleton")
    made = _run("generate", "--snapshot", str(SNAPSHOT), "--server-skeleton", "-o", "every_server", "-q", cwd=root)
    assert made.returncode == 0, made.stderr
    client = _run("generate", "--snapshot", str(SNAPSHOT), "-o", "every_client", "-q", cwd=root)
    assert client.returncode == 0, client.stderr
    return root


def test_the_stubs_type_check_and_regeneration_keeps_the_users_handlers(work: Path) -> None:
    handlers = work / "every_server" / "handlers.py"
    stubs = handlers.read_text(encoding="utf-8")
    assert "@server.tools.trigger_long_running_operation" in stubs and "raise NotImplementedError" in stubs
    # Resources (static ones receive `NoVariables`) and prompts have typed stubs too.
    assert "@server.resources.architecture_md\n    def read_architecture_md(variables: NoVariables) -> str:" in stubs
    assert "@server.prompts.args_prompt\n    def prompt_args_prompt(arguments: ArgsPromptPromptArguments) -> str:" in stubs
    checked = mypy_strict(work, "every_server")
    assert checked.returncode == 0, checked.stdout

    handlers.write_text(HANDLERS, encoding="utf-8")
    again = _run("generate", "--snapshot", str(SNAPSHOT), "--server-skeleton", "-o", "every_server", cwd=work)
    assert again.returncode == 0, again.stderr
    assert handlers.read_text(encoding="utf-8") == HANDLERS  # the user's module is never rewritten
    assert "warning[server-handler-missing]: handlers.trigger_long_running_operation" in again.stderr
    assert "handlers.echo:" not in again.stderr and "handlers.get_structured_content:" not in again.stderr
    checked = mypy_strict(work, "every_server")
    assert checked.returncode == 0, checked.stdout
    verified = _run("verify", "every_server", cwd=work)
    assert verified.returncode == 0, verified.stderr


def test_overwrite_keeps_the_users_handlers_and_refuses_stray_files_unless_kept(tmp_path: Path) -> None:
    """`handlers.py` is the user's code the skeleton asked for: a regeneration with `--overwrite` (here: a changed
    description) keeps it without asking; another file of the user's makes `--overwrite` refuse, naming it, and
    `--keep-other-files` keeps it too."""
    snapshot = tmp_path / "snapshot.json"
    data = json.loads((ROOT / "generated_examples" / "demo_client" / "snapshot.json").read_text(encoding="utf-8"))
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    arguments = ("generate", "--snapshot", str(snapshot), "--server-skeleton", "--overwrite", "-o", "srv")
    assert _run(*arguments, cwd=tmp_path).returncode == 0
    handlers = tmp_path / "srv" / "handlers.py"
    handlers.write_text("# mine\n", encoding="utf-8")
    data["tools"][0]["description"] = "A new description."
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    again = _run(*arguments, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert handlers.read_text(encoding="utf-8") == "# mine\n"

    (tmp_path / "srv" / "stray.txt").write_text("not generated", encoding="utf-8")
    data["tools"][0]["description"] = "Another description."
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    refused = _run(*arguments, cwd=tmp_path)
    assert refused.returncode == 4 and "stray.txt" in refused.stderr and "handlers.py" not in refused.stderr
    kept = _run(*arguments, "--keep-other-files", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    assert handlers.read_text(encoding="utf-8") == "# mine\n"
    assert (tmp_path / "srv" / "stray.txt").read_text(encoding="utf-8") == "not generated"


def test_the_skeleton_answers_typed_calls_and_lists_the_original_snapshot(work: Path) -> None:
    (work / "every_server" / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    again = work / "again.json"
    taken = _run("snapshot", "--stdio", f"{sys.executable} -m every_server", "-o", str(again), "-q", cwd=work)
    assert taken.returncode == 0, taken.stderr
    original = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    served = json.loads(again.read_text(encoding="utf-8"))
    original.pop("launch")
    served.pop("launch")
    assert served == original

    with imported_package(work / "every_client") as package:

        async def main() -> None:
            server = package.AsyncClient.stdio(sys.executable, ["-m", "every_server"], cwd=work, stderr="discard")
            async with server as client:
                assert (await client.echo(message="hi")).text == "Echo: hi"
                assert (await client.get_sum(a=2, b=3)).text == "The sum is 5."
                weather = await client.get_structured_content(location="Chicago")
                assert weather.conditions == "sunny in Chicago" and weather.temperature == 21.5
                assert (await client.resources.architecture_md()).text == "# Architecture"
                assert (await client.prompts.simple_prompt()).text == "Say hello."
                with pytest.raises(package.ToolError, match="get-env"):  # no handler: an error naming the tool
                    await client.get_env()
                with pytest.raises(package.ArgumentsValidationError):
                    await client.get_structured_content(location="Paris")  # not in the schema's enum

        anyio.run(main)
