"""The typed fake server plays tools that run as MCP tasks (2025-11-25): the generated client's typed call,
task handles, status messages, input requests through `tasks/result`, cancellation, and `mcp-codegen serve`.

The package is generated from the committed server-everything snapshot: `simulate-research-query` lists
`taskSupport: "required"`, `echo` `"forbidden"`. Bounds on durations are hang guards.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.anyio

RESEARCH = "simulate-research-query"


def _testing(pkg: ModuleType) -> Any:
    import importlib

    return importlib.import_module(f"{pkg.__name__}.testing")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _status_reports(fake: Any) -> Callable[[str], Awaitable[None]]:
    """A wait until a `tasks/get` of `fake` has reported a status message (a middleware notes them)."""
    reported: set[str] = set()
    waiting: list[anyio.Event] = []

    async def note(ctx: Any, call_next: Any) -> Any:
        answer = await call_next(ctx)
        if ctx.method == "tasks/get" and isinstance(answer, dict):
            reported.add(answer.get("statusMessage"))
            for event in waiting:
                event.set()
            waiting.clear()
        return answer

    fake.middleware.append(note)

    async def wait(message: str) -> None:
        while message not in reported:
            waiting.append(anyio.Event())
            await waiting[-1].wait()

    return wait


def _research_handler(
    pkg: ModuleType, fake: Any, events: list[str], *, followed: bool = False, holding: tuple[str, ...] = ()
) -> None:
    """A task handler: two status messages, a clarifying question when `ambiguous`, then its report.

    `followed`: each status message stays until a `tasks/get` has reported it, so a caller following the
    status sees both however loaded the machine. A topic in `holding` works after its first message until
    it is cancelled."""
    reported = _status_reports(fake) if followed else None

    async def post(ctx: Any, message: str) -> None:
        await ctx.status(message)
        if reported is not None:
            await reported(message)

    @fake.tools.simulate_research_query
    async def research(args: Any, ctx: Any) -> str:
        assert ctx.task_id is not None  # it runs as a task
        events.append(f"started {ctx.task_id}")
        try:
            await post(ctx, "gathering")
            await ctx.log("info", f"researching {args.topic}")
            if args.topic in holding:
                await anyio.sleep_forever()
            topic = args.topic
            if args.ambiguous:
                answer = await ctx.elicit(
                    "Which one?", {"type": "object", "properties": {"pick": {"type": "string"}}, "required": ["pick"]}
                )
                topic = f"{topic} ({answer.content['pick']})"
            await post(ctx, "synthesising")
        except anyio.get_cancelled_exc_class():
            events.append("cancelled")
            raise
        events.append("finished")
        return f"Report on {topic}"


async def test_a_typed_call_of_a_required_task_tool_returns_the_handlers_result(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    events: list[str] = []
    _research_handler(pkg, fake, events, followed=True)
    seen: list[str | None] = []
    logged: list[Any] = []
    async with pkg.AsyncClient.in_process(fake, on_log=logged.append) as client:
        with anyio.fail_after(10):
            result = await client.with_options(on_progress=lambda p, t, m: seen.append(m)).simulate_research_query(
                topic="bees"
            )
    assert result.text == "Report on bees"
    assert [entry.data for entry in logged] == ["researching bees"]  # a task handler's log reaches the client
    assert events[-1] == "finished"
    # the status messages the handler posted, as the client followed the task
    assert "gathering" in seen and "synthesising" in seen and seen.index("gathering") < seen.index("synthesising")
    (call,) = fake.tools.simulate_research_query.calls
    assert call.task_id is not None and events[0] == f"started {call.task_id}"
    assert fake.tasks[call.task_id].status == "completed"


async def test_without_a_handler_the_task_answers_synthesised_data(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    async with pkg.AsyncClient.in_process(fake) as client:
        with anyio.fail_after(10):
            result = await client.simulate_research_query(topic="ants")
    assert result.text == f"{RESEARCH}: fake result"
    assert fake.calls[-1].task_id in fake.tasks


async def test_the_input_request_reaches_the_elicitation_handler(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    events: list[str] = []
    _research_handler(pkg, fake, events)
    asked: list[str] = []

    async def pick(request: Any) -> Any:
        asked.append(request.message)
        return pkg.Accept({"pick": "honey bees"})

    async with pkg.AsyncClient.in_process(fake, elicitation=pick) as client:
        task = await client.tasks.start(RESEARCH, {"topic": "bees", "ambiguous": True})
        with anyio.fail_after(10):
            state = await task.wait("input_required")
            assert (state.status, state.message) == ("input_required", "Which one?")
            result = await task.result()  # the question goes out through the waiting tasks/result
    assert asked == ["Which one?"]
    assert result.text == "Report on bees (honey bees)"


async def test_the_input_request_carries_the_related_task_meta() -> None:
    """Checked on the wire with the SDK's own client: the elicitation comes during `tasks/result`, with `_meta`."""
    import mcp
    import mcp_types as types

    from mcp_codegen_runtime.serving.fake import FakeServer

    root = Path(__file__).resolve().parents[2]
    fake = FakeServer(root / "generated_examples" / "everything_client")

    @fake.tools[RESEARCH]
    async def research(arguments: dict[str, Any], ctx: Any) -> str:
        answer = await ctx.elicit("Which one?", {"type": "object", "properties": {"pick": {"type": "string"}}})
        sampled = await ctx.sample("Summarise", max_tokens=10)  # sampling goes the same way
        return f"Report on {answer.content['pick']}: {sampled.content.text}"

    metas: list[Any] = []

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        metas.append(params.meta)
        return types.ElicitResult(action="accept", content={"pick": "wasps"})

    async def sample(context: Any, params: Any) -> types.CreateMessageResult:
        metas.append(params.meta)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="ok"), model="m")

    async with mcp.Client(fake, mode="legacy", elicitation_callback=answer, sampling_callback=sample) as client:
        send = client.session._dispatcher.send_raw_request  # noqa: SLF001 - the raw wire, past result checks
        with anyio.fail_after(10):
            created = await send("tools/call", {"name": RESEARCH, "arguments": {"topic": "x"}, "task": {"ttl": 60000}}, None)
            task_id = created["task"]["taskId"]
            assert created["task"]["status"] == "working" and created["task"]["ttl"] == 60000
            while (await send("tasks/get", {"taskId": task_id}, None))["status"] != "input_required":
                await anyio.sleep(0.01)
            assert metas == []  # asked only through tasks/result
            result = await send("tasks/result", {"taskId": task_id}, None)
    related = {"io.modelcontextprotocol/related-task": {"taskId": task_id}}
    assert metas == [related, related]
    assert result["_meta"] == related and result["content"][0]["text"] == "Report on wasps: ok"


async def test_cancelling_a_handle_stops_the_handler(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    events: list[str] = []
    _research_handler(pkg, fake, events, holding=("bees",))
    async with pkg.AsyncClient.in_process(fake) as client:
        task = await client.tasks.start(RESEARCH, {"topic": "bees"})
        with anyio.fail_after(10):
            state = await task.wait("working")
            assert state.task_id == task.id
            while fake.tasks[task.id].message != "gathering":
                await anyio.sleep(0.01)
            assert (await task.status()).message == "gathering"
            cancelled = await task.cancel()
            assert cancelled.status == "cancelled"
            assert (await task.cancel()).status == "cancelled"  # cancelling twice is cancelling once
            with pytest.raises(pkg.TaskCancelledError, match="cancelled by the client"):
                await task.result()
            while "cancelled" not in events:  # the cancellation reaches the handler, which ends there
                await anyio.sleep(0.01)
        listed = await client.tasks.list()
    assert events == [f"started {task.id}", "cancelled"]
    assert [(state.task_id, state.status) for state in listed] == [(task.id, "cancelled")]
    assert fake.calls[-1].task_id == task.id and fake.calls[-1].error == "cancelled: cancelled by the client"


async def test_timing_out_a_typed_call_cancels_the_task_and_its_handler(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    events: list[str] = []

    @fake.tools.simulate_research_query
    async def research(args: Any, ctx: Any) -> str:
        try:
            await ctx.status("started")
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            events.append("cancelled")
            raise
        return "never"

    async with pkg.AsyncClient.in_process(fake) as client:
        # 3 s: the task is made well within it on a loaded machine, and its handler works for a minute.
        with anyio.fail_after(30), pytest.raises(pkg.RequestTimeoutError, match="it was cancelled"):
            await client.with_options(timeout=3).simulate_research_query(topic="bees")
        with anyio.fail_after(10):
            while not events:  # the cancellation reaches the handler
                await anyio.sleep(0.01)
    assert events == ["cancelled"]
    assert [task.status for task in fake.tasks] == ["cancelled"]


async def test_failures_errors_and_unknown_ids(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    fake.tools.simulate_research_query.script([_testing(pkg).FakeError("no sources")])
    async with pkg.AsyncClient.in_process(fake) as client:
        with anyio.fail_after(10):
            with pytest.raises(pkg.ToolError, match="no sources"):
                await client.simulate_research_query(topic="bees")
            assert [task.status for task in fake.tasks] == ["failed"]
            unknown = client.tasks.resume("no-such-task")
            for attempt in (unknown.status, unknown.result, unknown.cancel):
                with pytest.raises(pkg.TaskNotFoundError):
                    await attempt()
            expiring = await client.tasks.start(RESEARCH, {"topic": "x"}, ttl=0.05)
            await anyio.sleep(0.1)
            with pytest.raises(pkg.TaskNotFoundError):
                await expiring.status()


async def test_task_true_and_false_override_the_listing(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    async with pkg.AsyncClient.in_process(fake) as client:
        with anyio.fail_after(10):
            at_once = await client.tasks.start("echo", {"message": "hi"})  # listed "forbidden"
            assert at_once.id == ""
            fake.tools.echo(lambda args: f"Echo: {args.message}", task=True)
            tasked = await client.tasks.start("echo", {"message": "hi"})
            assert tasked.id and (await tasked.result()).text == "Echo: hi"
            fake.tools.simulate_research_query(lambda args: "plain", task=False)
            assert (await client.simulate_research_query(topic="x")).text == "plain"
    assert [call.task_id is not None for call in fake.calls] == [False, True, False]
    fake.reset()
    assert fake.tools.echo.task is None and len(fake.tasks) == 0


async def test_plain_calls_do_not_make_tasks(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    async with pkg.AsyncClient.in_process(fake) as client:
        assert (await client.echo(message="hi")) is not None
    assert len(fake.tasks) == 0 and fake.calls[-1].task_id is None


# ------------------------------------------------------------------------------------ served


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


HANDLERS = """
import anyio

reported: list[anyio.Event] = []


def setup(fake):
    async def note_reports(ctx, call_next):
        answer = await call_next(ctx)
        if ctx.method == "tasks/get" and isinstance(answer, dict) and answer.get("statusMessage") == "gathering":
            for event in reported:
                event.set()
        return answer

    fake.middleware.append(note_reports)

    @fake.tools["simulate-research-query"]
    async def research(arguments, ctx):
        followed = arguments["topic"] == "bees" and not arguments.get("ambiguous")  # its caller follows the status
        reported.append(anyio.Event())
        await ctx.status("gathering")
        await ctx.log("info", "researching " + arguments["topic"])
        if followed:
            await reported[-1].wait()  # until a tasks/get has told the client
        if arguments.get("ambiguous"):
            answer = await ctx.elicit("Which one?", {"type": "object", "properties": {"pick": {"type": "string"}}})
            return "Report on " + answer.content["pick"]
        return "Report on " + arguments["topic"]
"""


def test_serve_plays_the_task_tool_over_stdio(fake_everything_pkg: ModuleType, tmp_path: Path) -> None:
    pkg = fake_everything_pkg
    (tmp_path / "my_task_fakes.py").write_text(HANDLERS, encoding="utf-8")
    package_dir = Path(pkg.__file__).parent
    command = [sys.executable, "-m", "mcp_codegen", "serve", "--snapshot", str(package_dir), "--handlers", "my_task_fakes:setup"]
    seen: list[str | None] = []

    async def main() -> None:
        connection = pkg.AsyncClient.stdio(
            command[0],
            command[1:],
            cwd=str(tmp_path),
            env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
            timeout=30,
            elicitation=lambda request: {"pick": "wasps"},
        )
        async with connection as client:
            with anyio.fail_after(30):
                result = await client.with_options(on_progress=lambda p, t, m: seen.append(m)).simulate_research_query(
                    topic="bees"
                )
                assert result.text == "Report on bees"
                asked = await client.simulate_research_query(topic="bees", ambiguous=True)
                assert asked.text == "Report on wasps"

    anyio.run(main)
    assert "gathering" in seen


def test_serve_over_http_keeps_tasks_across_connections(fake_everything_pkg: ModuleType, tmp_path: Path) -> None:
    pkg = fake_everything_pkg
    (tmp_path / "my_task_fakes.py").write_text(HANDLERS, encoding="utf-8")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen(
        [sys.executable, "-m", "mcp_codegen", "serve", "--snapshot", str(Path(pkg.__file__).parent), "--http",
         str(port), "--handlers", "my_task_fakes:setup"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for the listener (a bound on a hang)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"

        logged: list[Any] = []

        async def main() -> None:
            with anyio.fail_after(30):
                async with pkg.AsyncClient.http(url, timeout=20, on_log=logged.append) as first:
                    assert (await first.simulate_research_query(topic="owls")).text == "Report on owls"
                    task_id = (await first.tasks.start(RESEARCH, {"topic": "moths"})).id
                async with pkg.AsyncClient.http(url, timeout=20) as second:
                    resumed = second.tasks.resume(task_id, RESEARCH)
                    assert (await resumed.result()).text == "Report on moths"
                    assert (await resumed.status()).status == "completed"

        anyio.run(main)
        # the log a task handler sends reaches the client on its connection (the call was answered)
        assert "researching owls" in [entry.data for entry in logged]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_blocking_client_against_the_fakes_task_tool(fake_everything_pkg: ModuleType) -> None:
    pkg = fake_everything_pkg
    fake = _testing(pkg).FakeServer()
    events: list[str] = []
    _research_handler(pkg, fake, events, holding=("wasps",))
    with pkg.Client.in_process(fake) as client:
        assert client.simulate_research_query(topic="bees").text == "Report on bees"
        task = client.tasks.start(RESEARCH, {"topic": "wasps"})
        assert task.status().status == "working"
        assert task.cancel().status == "cancelled"
        with pytest.raises(pkg.TaskCancelledError):
            task.result()
    assert [task.status for task in fake.tasks] == ["completed", "cancelled"]
