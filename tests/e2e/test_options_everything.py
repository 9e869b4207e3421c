"""Per-call options against the npm server-everything, through a package generated from the committed snapshot.

`trigger-long-running-operation(duration, steps)` sends one progress notification per step
(`progress=step, total=steps`). That the server receives `notifications/cancelled` is proved in
memory (tests/runtime/test_runtime_options.py); here the calls must end well before the operation would.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from helpers import mypy_strict, pyright_strict

from .conftest import EXAMPLES, unique_name

pytestmark = pytest.mark.anyio

Progress = tuple[float, "float | None", "str | None"]


async def settled(seen: list[Any], count: int) -> None:
    """Wait (10 s at most) until `count` progress callbacks ran: each runs as a task of its own."""
    with anyio.move_on_after(10):
        while len(seen) < count:
            await anyio.sleep(0.01)


def settled_blocking(seen: list[Any], count: int) -> None:
    """`settled` for the blocking client, whose callbacks run on its loop thread."""
    deadline = time.monotonic() + 10
    while len(seen) < count and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, generate_package: Callable[..., Path]) -> Path:
    directory = tmp_path_factory.mktemp("options") / unique_name("everything_opts")
    return generate_package(directory, "--snapshot", str(EXAMPLES / "everything_client" / "snapshot.json"))


@pytest.fixture(scope="module")
def everything(generated: Path, import_package: Callable[[Path], ModuleType]) -> ModuleType:
    return import_package(generated)


def _connect(everything: ModuleType, command: list[str]) -> Any:
    return everything.AsyncClient.stdio(command[0], command[1:], timeout=60, stderr="discard")


async def test_progress_arrives_in_order_with_total(everything: ModuleType, everything_command: list[str]) -> None:
    seen: list[Progress] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with _connect(everything, everything_command) as client:
        view = client.with_options(on_progress=on_progress)
        done = await view.trigger_long_running_operation(duration=0.8, steps=4)
        assert done.text.startswith("Long running operation completed")
        await settled(seen, 4)
    assert [(progress, total) for progress, total, _ in seen] == [(1.0, 4.0), (2.0, 4.0), (3.0, 4.0), (4.0, 4.0)]


async def test_a_short_timeout_ends_the_call_fast(everything: ModuleType, everything_command: list[str]) -> None:
    async with _connect(everything, everything_command) as client:
        started = time.monotonic()
        with pytest.raises(everything.RequestTimeoutError):
            await client.with_options(timeout=0.5).trigger_long_running_operation(duration=60, steps=6)
        assert time.monotonic() - started < 30
        assert (await client.echo(message="still here")).text == "Echo: still here"


async def test_reset_on_progress_and_its_cap(everything: ModuleType, everything_command: list[str]) -> None:
    async with _connect(everything, everything_command) as client:
        # A progress notification every 0.2 s; the operation takes 3 s, three times the timeout.
        resetting = client.with_options(timeout=1.0, reset_timeout_on_progress=True)
        done = await resetting.trigger_long_running_operation(duration=3, steps=15)
        assert done.text.startswith("Long running operation completed")
        with pytest.raises(everything.RequestTimeoutError):
            await client.with_options(timeout=1.0).trigger_long_running_operation(duration=3, steps=15)
        started = time.monotonic()
        with pytest.raises(everything.RequestTimeoutError, match="max_timeout"):
            await resetting.with_options(max_timeout=2).trigger_long_running_operation(duration=60, steps=300)
        assert time.monotonic() - started < 30
        assert (await client.echo(message="still here")).text == "Echo: still here"


async def test_cancelling_the_task_ends_the_call(everything: ModuleType, everything_command: list[str]) -> None:
    async with _connect(everything, everything_command) as client:
        first = anyio.Event()
        started = time.monotonic()
        async with anyio.create_task_group() as group:

            async def call() -> None:
                view = client.with_options(on_progress=lambda progress, total, message: first.set())
                await view.trigger_long_running_operation(duration=60, steps=60)

            group.start_soon(call)
            with anyio.fail_after(30):
                await first.wait()
            group.cancel_scope.cancel()
        assert time.monotonic() - started < 30
        assert (await client.echo(message="after")).text == "Echo: after"


async def test_prompts_and_resources_take_options(everything: ModuleType, everything_command: list[str]) -> None:
    async with _connect(everything, everything_command) as client:
        view = client.with_options(timeout=30, reset_timeout_on_progress=True, max_timeout=60)
        prompt = await view.prompts.simple_prompt()
        assert prompt.messages
        resource = await view.resources.architecture_md()
        assert resource.text


def test_blocking_client_with_options(everything: ModuleType, everything_command: list[str]) -> None:
    seen: list[float] = []
    command = everything_command
    with everything.Client.stdio(command[0], command[1:], timeout=60, stderr="discard") as client:
        view = client.with_options(on_progress=lambda progress, total, message: seen.append(progress))
        assert view.trigger_long_running_operation(duration=0.6, steps=3).text.startswith("Long running")
        settled_blocking(seen, 3)
        assert seen == [1.0, 2.0, 3.0]
        started = time.monotonic()
        with pytest.raises(everything.RequestTimeoutError):
            client.with_options(timeout=0.5).trigger_long_running_operation(duration=60, steps=6)
        assert time.monotonic() - started < 30
        assert client.echo(message="x").text == "Echo: x"


USAGE = """
from __future__ import annotations

from {package} import AsyncClient, Client


async def use(client: AsyncClient, blocking: Client) -> None:
    seen: list[float] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def on_progress_async(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    view: AsyncClient = client.with_options(timeout=5, on_progress=on_progress)
    chained: AsyncClient = view.with_options(reset_timeout_on_progress=True, max_timeout=60.0)
    await chained.trigger_long_running_operation(duration=1, steps=2)
    await client.with_options(on_progress=on_progress_async).prompts.simple_prompt()
    same: Client = blocking.with_options(timeout=1.5, on_progress=lambda p, t, m: None)
    same.echo(message="x")
"""


@pytest.mark.slow(reason="mypy over server-everything's package and user code")
def test_user_code_with_options_type_checks(generated: Path) -> None:
    root = generated.parent
    (root / "usage.py").write_text(USAGE.format(package=generated.name))
    mypy = mypy_strict(root, "usage.py")
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    pyright = pyright_strict(root, "usage.py")
    assert pyright.returncode == 0, pyright.stdout + json.dumps(pyright.stderr)
