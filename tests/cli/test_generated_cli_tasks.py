"""`generate --cli` for tools that run as MCP tasks: a call waits (status lines on stderr, the result alone on
stdout), `--no-wait` prints the task id, and `tasks list|status|wait|cancel` follow tasks by id.

Against tests/runtime/task_server.py (2025-11-25 tasks: `crunch` requires a task, `quick` allows one): over
stdio through the launch recorded at generation (a server process per command), and over streamable HTTP
(`--url`, one server process for the module) where a task started by one command is read by the next. Every
command line runs in a fresh interpreter, as a user runs it.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import prewarmed
import pytest
from helpers import codegen, sigint_by_default
from servers.helpers import serve_app

from .test_generated_cli import run_cli

TASK_SERVER = Path(__file__).resolve().parents[1] / "runtime" / "task_server.py"


def _task_server_module() -> ModuleType:
    return _runtime_test_module("task_server")


def _runtime_test_module(name: str) -> ModuleType:
    """A test server module of tests/runtime (not on this package's import path), loaded as `cli_<name>`."""
    spec = importlib.util.spec_from_file_location(f"cli_{name}", TASK_SERVER.parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tasky(tmp_path_factory: pytest.TempPathFactory) -> Path:
    package = tmp_path_factory.mktemp("cli-tasks") / "tasky"
    server = shlex.join(prewarmed.command([str(TASK_SERVER)]))  # the server each call launches starts prewarmed
    result = codegen("generate", "-q", "--stdio", server, "--cli", "-o", str(package))
    assert result.returncode == 0, result.stderr
    return package


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """One task server for the module: a task outlives the command line that started it."""
    server = _task_server_module()
    with serve_app(server.build_server(server.TaskStore()).streamable_http_app(host="127.0.0.1")) as base:
        yield base + "/mcp"


def _lines(stderr: str) -> list[str]:
    return [line.removeprefix("python -m tasky crunch: ") for line in stderr.splitlines()]


def test_a_required_task_tool_waits_with_status_lines_on_stderr(tasky: Path) -> None:
    result = run_cli(tasky, "crunch", "--n", "21", "--mode", "stepped")  # each step stays until polled again
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"total": 42}  # stdout is the result only
    lines = _lines(result.stderr)
    assert lines[0].startswith("task ") and len(lines[0].split()) == 2  # the id, once
    assert [line for line in lines if line.startswith("task ")] == lines[:1]
    assert lines[1:4] == ["working: step 1 of 3", "working: step 2 of 3", "working: step 3 of 3"]
    # the end: as a poll saw it, or (the result came first) as `tasks/result` answering implies
    assert lines[4:] in (["completed: step 3 of 3"], ["completed"])


def test_a_failed_task_exits_1_and_a_cancelled_one_6_each_with_one_line(tasky: Path) -> None:
    failed = run_cli(tasky, "crunch", "--n", "1", "--mode", "fail")
    assert failed.returncode == 1
    assert failed.stdout == ""
    *_, status, error = _lines(failed.stderr)
    assert status in ("failed: crunch failed", "failed")  # as a poll saw it, or implied by the result
    assert error == "crunch failed: too much"
    cancelled = run_cli(tasky, "crunch", "--n", "1", "--mode", "server-cancel")
    assert cancelled.returncode == 6
    assert cancelled.stdout == ""
    last = cancelled.stderr.splitlines()[-1]
    assert last.startswith("python -m tasky: task '") and last.endswith(
        "of tool 'crunch' was cancelled: cancelled by the server"
    )
    assert "Traceback" not in cancelled.stderr


def test_an_optional_task_tool_runs_plainly_unless_asked(tasky: Path) -> None:
    plain = run_cli(tasky, "quick", "--x", "4")
    assert (plain.returncode, json.loads(plain.stdout), plain.stderr) == (0, {"total": 4}, "")
    tasked = run_cli(tasky, "quick", "--x", "4", "--task")
    assert tasked.returncode == 0, tasked.stderr
    assert json.loads(tasked.stdout) == {"total": 4}
    assert tasked.stderr.splitlines()[0].startswith("python -m tasky quick: task ")
    assert tasked.stderr.splitlines()[-1] == "python -m tasky quick: completed: done"


def test_help_offers_the_task_options_and_the_tasks_commands(tasky: Path) -> None:
    listing = run_cli(tasky, "--help")
    assert listing.returncode == 0
    assert "tasks status ID" in listing.stdout and "tasks wait ID" in listing.stdout
    assert "  6   the tool ran as a task and the task was cancelled" in listing.stdout
    crunch = run_cli(tasky, "crunch", "--help").stdout
    assert "--no-wait" in crunch and "--task " not in crunch  # it always runs as a task
    quick = run_cli(tasky, "quick", "--help").stdout
    assert "--task " in quick and "--no-wait" in quick
    skill = (tasky / "SKILL.md").read_text(encoding="utf-8")
    assert "## Long-running tools (MCP tasks)" in skill and "tasks wait ID --tool TOOL" in skill


def test_an_unknown_task_id_exits_4_with_one_line(tasky: Path) -> None:
    for action in (["status"], ["wait", "--tool", "crunch"], ["cancel"]):
        result = run_cli(tasky, "tasks", action[0], "no-such-task", *action[1:])
        assert result.returncode == 4, (action, result.stderr)
        assert result.stdout == ""
        assert result.stderr == "python -m tasky: no task 'no-such-task' on the server (Task not found: no-such-task)\n"
    usage = run_cli(tasky, "tasks", "pause", "x")
    assert usage.returncode == 2 and "invalid choice: 'pause'" in usage.stderr


def test_no_wait_then_status_and_wait_by_id_from_other_processes(tasky: Path, url: str) -> None:
    # "stepped": still working when another process asks, however long processes take to start.
    started = run_cli(tasky, "--url", url, "crunch", "--n", "8", "--mode", "stepped", "--no-wait")
    assert started.returncode == 0, started.stderr
    task_id = started.stdout.strip()
    assert started.stdout == task_id + "\n" and task_id and started.stderr == ""
    status = run_cli(tasky, "--url", url, "tasks", "status", task_id)
    assert status.returncode == 0, status.stderr
    state = json.loads(status.stdout)
    assert (state["taskId"], state["status"], state["pollInterval"]) == (task_id, "working", 50)
    waited = run_cli(tasky, "--url", url, "tasks", "wait", task_id, "--tool", "crunch")
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout) == {"total": 16}
    lines = waited.stderr.splitlines()
    assert lines[0] == f"python -m tasky tasks wait: task {task_id}"
    assert lines[-1] in ("python -m tasky tasks wait: completed: step 3 of 3", "python -m tasky tasks wait: completed")
    assert "Traceback" not in waited.stderr
    raw = run_cli(tasky, "--url", url, "tasks", "wait", task_id, "--raw")
    assert json.loads(raw.stdout)["structuredContent"] == {"total": 16}
    listed = json.loads(run_cli(tasky, "--url", url, "tasks", "list").stdout)
    assert task_id in [item["taskId"] for item in listed]


def test_cancel_by_id_then_waiting_exits_6(tasky: Path, url: str) -> None:
    task_id = run_cli(tasky, "--url", url, "crunch", "--n", "1", "--mode", "slow", "--no-wait").stdout.strip()
    cancelled = run_cli(tasky, "--url", url, "tasks", "cancel", task_id)
    assert cancelled.returncode == 0, cancelled.stderr
    assert json.loads(cancelled.stdout)["status"] == "cancelled"
    again = run_cli(tasky, "--url", url, "tasks", "cancel", task_id)  # cancelling twice is cancelling once
    assert (again.returncode, json.loads(again.stdout)["status"]) == (0, "cancelled")
    waited = run_cli(tasky, "--url", url, "tasks", "wait", task_id)
    assert waited.returncode == 6 and waited.stdout == ""
    assert waited.stderr.splitlines()[-1] == f"python -m tasky: task {task_id!r} was cancelled: cancelled by the client"


def test_interrupting_a_waiting_call_cancels_its_task(tasky: Path, url: str) -> None:
    """Ctrl-C while a call waits: exit 130, and the task the call started is cancelled on the server."""
    import os
    import signal

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tasky.parent), str(Path(__file__).parents[2] / "src")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "tasky", "--url", url, "crunch", "--n", "1", "--mode", "slow"],
        cwd=tasky.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_by_default,
    )
    assert process.stderr is not None
    first = process.stderr.readline()  # "... crunch: task ID": the task runs
    task_id = first.split()[-1]
    following = process.stderr.readline()  # its first status line: the call is waiting on the task
    assert following.rstrip().endswith("working: working slowly"), following
    process.send_signal(signal.SIGINT)
    _out, rest = process.communicate(timeout=30)
    assert process.returncode == 130, rest
    status = run_cli(tasky, "--url", url, "tasks", "status", task_id)
    assert json.loads(status.stdout)["status"] == "cancelled"


def test_a_package_without_task_tools_has_no_tasks_command(tmp_path: Path) -> None:
    from helpers import corpus_snapshot

    from .test_generated_cli import generate_offline

    package = generate_offline(tmp_path, corpus_snapshot("time"), "time_cli")
    listing = run_cli(package, "--help")
    assert listing.returncode == 0 and "tasks status" not in listing.stdout
    result = run_cli(package, "tasks", "list")
    assert result.returncode == 2 and "no tool 'tasks'" in result.stderr


def test_names_a_task_tool_cannot_take(tasky: Path, tmp_path: Path) -> None:
    """A tool named `tasks` is `tasks-tool`; on a task tool a parameter `task` (or `no_wait`) gets `-arg`."""
    from mcp_codegen.snapshot.model import Snapshot

    from .test_generated_cli import generate_offline, table

    data = json.loads((tasky / "snapshot.json").read_text(encoding="utf-8"))
    properties = {"task": {"type": "string"}, "no_wait": {"type": "boolean"}}
    data["tools"].append(
        {
            "name": "tasks",
            "inputSchema": {"type": "object", "properties": properties},
            "execution": {"taskSupport": "optional"},
        }
    )
    data["tools"].append({"name": "plain", "inputSchema": {"type": "object", "properties": properties}})
    package = generate_offline(tmp_path, Snapshot.from_json(data, source="tasky"), "renamed")
    rows = {row[1]: row for row in table(package)}
    assert rows["tasks"][0] == "tasks-tool"
    assert sorted(option[1] for option in rows["tasks"][3]) == ["--no-wait-arg", "--task-arg"]
    assert sorted(option[1] for option in rows["plain"][3]) == ["--no-wait", "--task"]
    called = run_cli(package, "tasks-tool", "--task-arg", "x", "--no-wait-arg", "--help")
    assert called.returncode == 0 and "--no-wait-arg" in called.stdout and "  --task " in called.stdout


FAKES = """
import anyio

reported: list[anyio.Event] = []


def setup(fake):
    async def note_reports(ctx, call_next):
        answer = await call_next(ctx)
        if ctx.method == "tasks/get" and isinstance(answer, dict) and answer.get("statusMessage") == "halfway":
            for event in reported:
                event.set()
        return answer

    fake.middleware.append(note_reports)

    @fake.tools["crunch"]
    async def crunch(arguments, ctx):
        reported.append(anyio.Event())
        await ctx.status("halfway")
        await reported[-1].wait()  # until a tasks/get has told the client
        return {"total": 2 * arguments["n"]}

    fake.tools["quick"](lambda arguments: {"total": arguments["x"]}, task=False)  # never a task
"""


def test_against_the_package_served_as_a_fake(tasky: Path, tmp_path: Path) -> None:
    """Offline: `mcp-codegen serve` plays the task tool for the command line, status messages included; a
    server that answers at once where a task was asked gives the result and says so."""
    import os
    import shlex

    (tmp_path / "tasky_fakes.py").write_text(FAKES, encoding="utf-8")
    serve = shlex.join(
        [sys.executable, "-m", "mcp_codegen", "serve", "--snapshot", str(tasky), "--handlers", "tasky_fakes:setup"]
    )
    server_path = os.pathsep.join([str(tmp_path), str(Path(__file__).parents[2] / "src")])
    where = ["--stdio", serve, "--env", f"PYTHONPATH={server_path}"]
    waited = run_cli(tasky, *where, "crunch", "--n", "5", cwd=tmp_path)
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout) == {"total": 10}
    lines = waited.stderr.splitlines()
    assert lines[0].startswith("python -m tasky crunch: task ") and "python -m tasky crunch: working: halfway" in lines
    at_once = run_cli(tasky, *where, "quick", "--x", "3", "--no-wait", cwd=tmp_path)
    assert at_once.returncode == 0, at_once.stderr
    assert json.loads(at_once.stdout) == {"total": 3}
    assert at_once.stderr == "python -m tasky quick: the server ran the call at once (no task)\n"


def test_the_command_line_of_a_task_package_is_strictly_typed(tasky: Path) -> None:
    from helpers import mypy_strict, pyright_strict

    main = (tasky / "__main__.py").read_text(encoding="utf-8")
    assert 'task_tools=frozenset({"crunch", "quick"}),' in main  # --help reads no snapshot to offer `tasks`
    checked = mypy_strict(tasky.parent, f"{tasky.name}/__main__.py")
    assert checked.returncode == 0, checked.stdout
    pyright = pyright_strict(tasky.parent, f"{tasky.name}/__main__.py")
    assert pyright.returncode == 0, pyright.stdout


def test_tasks_of_the_2026_07_28_extension_on_the_command_line(tmp_path: Path) -> None:
    """FastMCP with fastmcp-tasks (the extension `io.modelcontextprotocol/tasks`): a required task tool waits with
    status lines, `--no-wait` prints an id that `tasks status|wait|cancel` follow from other processes."""
    tasks_ext_server = _runtime_test_module("tasks_ext_server")
    with tasks_ext_server.serve() as ext_url:
        package = tmp_path / "exty"
        made = codegen("generate", "-q", "--url", ext_url, "--cli", "-o", str(package))
        assert made.returncode == 0, made.stderr
        exported = run_cli(package, "--url", ext_url, "export-all", "--fmt", "json")
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout) == "exported as json"
        assert exported.stderr.splitlines()[0].startswith("python -m exty export_all: task ")
        started = run_cli(package, "--url", ext_url, "export-all", "--fmt", "csv", "--no-wait")
        task_id = started.stdout.strip()
        assert started.returncode == 0 and task_id, started.stderr
        waited = run_cli(package, "--url", ext_url, "tasks", "wait", task_id, "--tool", "export_all")
        assert (waited.returncode, json.loads(waited.stdout)) == (0, "exported as csv"), waited.stderr
        slow = run_cli(package, "--url", ext_url, "slow-count", "--run", "cli", "--steps", "600", "--no-wait")
        slow_id = slow.stdout.strip()
        cancelled = run_cli(package, "--url", ext_url, "tasks", "cancel", slow_id)
        assert (cancelled.returncode, json.loads(cancelled.stdout)["status"]) == (0, "cancelled"), cancelled.stderr
        status = run_cli(package, "--url", ext_url, "tasks", "status", slow_id)
        assert json.loads(status.stdout)["status"] == "cancelled"
        unknown = run_cli(package, "--url", ext_url, "tasks", "status", "no-such-task")
        assert unknown.returncode == 4 and len(unknown.stderr.splitlines()) == 1, unknown.stderr
        # Servers make ids of any characters: one that starts with "-" is an id, not an option.
        for action in (["status"], ["wait", "--tool", "export_all"], ["cancel"]):
            dashed = run_cli(package, "--url", ext_url, "tasks", action[0], "-no-such-task", *action[1:])
            assert dashed.returncode == 4 and "-no-such-task" in dashed.stderr, dashed.stderr
