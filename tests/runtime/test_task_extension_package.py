"""A package generated from a dual-era server with tasks of the 2026-07-28 extension (FastMCP + fastmcp-tasks).

Over the legacy handshake the snapshot records protocol 2025-11-25, and the server lists `execution.taskSupport`
but declares no 2025-11-25 `tasks` capability: its required task tools run only as tasks of the extension. The
generated client therefore starts with `server/discover` (2026-07-28), declares the extension, and its typed
methods follow a task to its result.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest
import tasks_ext_server
from helpers import imported_package

from mcp_codegen.cli import cli
from mcp_codegen_runtime.server_requests import Accept, ElicitationRequest

pytestmark = pytest.mark.anyio


def _run(*arguments: str) -> None:
    assert cli.main(args=[*arguments, "-q"], standalone_mode=False) in (None, 0)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with tasks_ext_server.serve() as served:
        yield served


@pytest.fixture(scope="module")
def snapshot_file(url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("tasky") / "snapshot.json"
    _run("snapshot", "--url", url, "-o", str(target))
    return target


@pytest.fixture(scope="module")
def tasky(snapshot_file: Path) -> Iterator[ModuleType]:
    target = snapshot_file.parent / "tasky_client"
    _run("generate", "--snapshot", str(snapshot_file), "-o", str(target))
    with imported_package(target) as package:
        yield package


def test_the_snapshot_of_a_dual_era_server(snapshot_file: Path) -> None:
    """What the generated client decides from: the legacy handshake's version, no 2025-11-25 `tasks`
    capability, and the tools' task support."""
    data = json.loads(snapshot_file.read_text())
    assert data["protocolVersion"] == "2025-11-25"
    assert "tasks" not in data["capabilities"]
    support = {tool["name"]: tool.get("execution", {}).get("taskSupport") for tool in data["tools"]}
    assert support == {
        "confirm": "required",
        "crunch": "optional",
        "echo": None,
        "explode": "required",
        "export_all": "required",
        "slow_count": "required",
    }


def test_the_client_starts_with_discover_and_declares_the_extension(tasky: ModuleType) -> None:
    options = tasky.AsyncClient._handshake_options()
    assert options["mode"] == "auto"
    assert [extension.identifier for extension in options["extensions"]] == ["io.modelcontextprotocol/tasks"]


async def test_typed_methods_follow_tasks_at_2026_07_28(tasky: ModuleType, url: str) -> None:
    async with tasky.AsyncClient.http(url, timeout=30) as client:
        assert client.protocol_version == "2026-07-28"
        assert await client.export_all(fmt="json") == "exported as json"  # required: only as a task
        report = await client.crunch(dataset="abc")  # optional: a task, since the client declared the extension
        assert (report.dataset, report.rows) == ("abc", 30)
        assert await client.echo(text="hi") == "hi"  # no task support: answered at once


async def test_typed_methods_answer_a_task_s_input_with_the_elicitation_handler(tasky: ModuleType, url: str) -> None:
    asked: list[str] = []

    def answer(request: ElicitationRequest) -> Accept:
        asked.append(request.message)
        return Accept({"ok": True})

    async with tasky.AsyncClient.http(url, timeout=30, elicitation=answer) as client:
        assert await client.confirm(item="db") == "db: accept {'ok': True}"
    assert asked == ["Really export db?"]


async def test_a_tool_error_inside_a_task_raises_the_tool_error(tasky: ModuleType, url: str) -> None:
    async with tasky.AsyncClient.http(url, timeout=30) as client:
        with pytest.raises(tasky.ToolError, match="boom"):
            await client.explode(reason="boom")


async def test_cancelling_a_typed_call_cancels_its_task(tasky: ModuleType, url: str) -> None:
    run = f"typed-{time.monotonic_ns()}"
    async with tasky.AsyncClient.http(url, timeout=30) as client:
        with anyio.move_on_after(30) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: client.slow_count(run=run, steps=100))
                while tasks_ext_server.WORK.get(run, {}).get("steps", 0) < 2:
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()
        assert not scope.cancelled_caught
        with anyio.fail_after(30):
            while not tasks_ext_server.WORK[run]["stopped"]:
                await anyio.sleep(0.05)
        assert tasks_ext_server.WORK[run]["finished"] is False
        assert await client.echo(text="still connected") == "still connected"


def test_tasks_of_the_2025_11_25_generation_keep_the_handshake() -> None:
    """server-everything lists a required task tool with the 2025-11-25 `tasks` capability: its tasks are the
    older generation, so its package neither probes `server/discover` nor declares the extension."""
    examples = Path(__file__).resolve().parents[2] / "generated_examples" / "everything_client"
    with imported_package(examples) as everything:
        assert everything.AsyncClient._protocol_version == "2025-11-25"
        assert everything.AsyncClient._handshake_options() == {}


async def test_a_handle_returns_at_once_and_gives_the_typed_result(tasky: ModuleType, url: str) -> None:
    """`client.tasks.start()` at 2026-07-28: a string id before the tool finishes, then the typed result."""
    run = f"handle-{time.monotonic_ns()}"
    tasks_ext_server.HELD.add(run)  # the work cannot end before the asserts below
    async with tasky.AsyncClient.http(url, timeout=30) as client:
        task = await client.tasks.slow_count(run=run, steps=5)
        assert isinstance(task.id, str) and task.id
        assert tasks_ext_server.WORK.get(run, {}).get("finished") is not True  # returned before the work ended
        assert (await task.status()).status == "working"
        tasks_ext_server.HELD.discard(run)
        assert await task.result(timeout=20) == 5
        assert (await task.status()).status == "completed"
        report = await client.tasks.crunch(dataset="abcd")
        assert isinstance((await report.result()), tasky.models.CrunchResult)  # the tool's own model
        assert (await report.result()).rows == 40
        assert (await client.tasks.start("crunch", {"dataset": "ab"})).id  # by name, as for any tool


async def test_a_handle_cancels_the_work_on_the_server(tasky: ModuleType, url: str) -> None:
    run = f"handle-cancel-{time.monotonic_ns()}"
    async with tasky.AsyncClient.http(url, timeout=30) as client:
        task = await client.tasks.slow_count(run=run, steps=100)
        await task.wait("working", timeout=10)
        with anyio.fail_after(10):
            while tasks_ext_server.WORK.get(run, {}).get("steps", 0) < 1:
                await anyio.sleep(0.05)
        assert (await task.cancel()).status == "cancelled"
        with pytest.raises(tasky.TaskCancelledError):
            await task.result()
        with anyio.fail_after(30):
            while not tasks_ext_server.WORK[run]["stopped"]:
                await anyio.sleep(0.05)
        assert tasks_ext_server.WORK[run]["finished"] is False
        with pytest.raises(tasky.TaskNotFoundError):
            await client.tasks.resume("no-such-task", "slow_count").status()
        with pytest.raises(tasky.UnsupportedByServerError, match="does not list"):
            await client.tasks.list()


async def test_a_handle_answers_a_task_s_input_with_the_elicitation_handler(tasky: ModuleType, url: str) -> None:
    async with tasky.AsyncClient.http(url, timeout=30, elicitation=lambda request: Accept({"ok": False})) as client:
        task = await client.tasks.confirm(item="logs")
        assert await task.result(timeout=20) == "logs: accept {'ok': False}"


async def test_typed_calls_report_status_and_time_out_as_a_whole(tasky: ModuleType, url: str) -> None:
    """At 2026-07-28 too, the call's timeout covers the whole wait, and a timeout cancels the task."""
    run = f"timeout-{time.monotonic_ns()}"
    async with tasky.AsyncClient.http(url, timeout=30) as client:
        # 3 s: the task is made well within it on a loaded machine, and its work takes 10 s.
        with pytest.raises(tasky.RequestTimeoutError, match="timed out after 3 s; it was cancelled"):
            await client.with_options(timeout=3).slow_count(run=run, steps=100)
        with anyio.fail_after(30):
            while not tasks_ext_server.WORK[run]["stopped"]:
                await anyio.sleep(0.05)


def test_a_task_started_in_one_process_is_resumed_in_another(tasky: ModuleType, url: str) -> None:
    package_dir = Path(tasky.__file__).parent
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(package_dir.parent)!r})
        import {tasky.__name__} as pkg
        with pkg.Client.http({url!r}, timeout=20) as client:
            print(client.tasks.export_all(fmt="parquet").id)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    task_id = done.stdout.strip()
    with tasky.Client.http(url, timeout=20) as client:
        task = client.tasks.resume(task_id, "export_all")
        assert task.result(timeout=20) == "exported as parquet"
        assert task.status().status == "completed"


def test_a_server_that_lists_no_task_support_at_2026_07_28(snapshot_file: Path, url: str) -> None:
    """A snapshot taken at 2026-07-28 (FastMCP lists no `taskSupport` there: the server decides per call) whose
    capabilities name the extension: the client declares it, its typed methods follow the tasks the server
    makes, and `client.tasks.start()` gives handles."""
    data = json.loads(snapshot_file.read_text())
    data["protocolVersion"] = "2026-07-28"
    data["capabilities"]["extensions"] = {"io.modelcontextprotocol/tasks": {}}
    for tool in data["tools"]:
        tool.pop("execution", None)
    modern = snapshot_file.parent / "modern" / "snapshot.json"
    modern.parent.mkdir()
    modern.write_text(json.dumps(data))
    target = modern.parent / "tasky_modern"
    _run("generate", "--snapshot", str(modern), "-o", str(target))
    with imported_package(target) as package:
        options = package.AsyncClient._handshake_options()
        # Every 2026-07-28 client also declares the skills extension (harmless where the server has none).
        assert sorted(extension.identifier for extension in options["extensions"]) == [
            "io.modelcontextprotocol/skills",
            "io.modelcontextprotocol/tasks",
        ]
        with package.Client.http(url, timeout=30) as client:
            assert client.export_all(fmt="xml") == "exported as xml"
            task = client.tasks.start("slow_count", {"run": f"modern-{time.monotonic_ns()}", "steps": 2})
            assert task.id and task.result(timeout=20) == 2
    del data["capabilities"]["extensions"]
    modern.write_text(json.dumps(data))
    plain = modern.parent / "tasky_plain"
    _run("generate", "--snapshot", str(modern), "-o", str(plain))
    with imported_package(plain) as package:
        declared = package.AsyncClient._handshake_options().get("extensions", [])
        assert [extension.identifier for extension in declared] == ["io.modelcontextprotocol/skills"]  # no tasks
