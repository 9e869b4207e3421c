"""A generated package's `testing` module: typed hooks, the generated clients (async, sync, agent tools)
against it, the cost of a plain import, and `mypy --strict` on typed handlers (and on wrong ones)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from helpers import mypy_strict

pytestmark = pytest.mark.anyio

TYPED_USE = """
from __future__ import annotations

from fake_demo_client import AsyncClient
from fake_demo_client.models.add import AddArguments
from fake_demo_client.models.get_weather import GetWeatherArguments, GetWeatherResult
from fake_demo_client.testing import FakeContext, FakeError, FakeServer, NoVariables
from fake_demo_client.testing import NoteVariables, PlanTripPromptArguments

fake = FakeServer(unhandled="error")


@fake.tools.get_weather
async def weather(args: GetWeatherArguments, ctx: FakeContext) -> GetWeatherResult:
    await ctx.progress(1, 1)
    return GetWeatherResult(city=args.city, temperature=21.5, conditions="sunny", units="celsius", humidity=40)


@fake.tools.add
def add(args: AddArguments) -> int:
    return args.a + args.b


@fake.prompts.plan_trip
def plan(args: PlanTripPromptArguments) -> str:
    return "Go to " + args["city"]


@fake.resources.note
def note(variables: NoteVariables) -> str:
    return variables["note_id"]


@fake.resources.app_config
def config(variables: NoVariables) -> bytes:
    return b"{}"


fake.tools.add.script([FakeError("busy"), 3])


async def use() -> int:
    async with AsyncClient.in_process(fake) as client:
        return await client.add(a=1, b=2)
"""

WRONG_USE = """
from __future__ import annotations

from fake_demo_client.models.add import AddArguments
from fake_demo_client.testing import FakeServer, PlanTripPromptArguments

fake = FakeServer()


@fake.tools.get_weather
def weather(args: AddArguments) -> str:
    return "x"


@fake.tools.add
async def add(args: AddArguments) -> str:
    return "three"


@fake.prompts.plan_trip
def plan(args: PlanTripPromptArguments) -> str:
    return args["town"]


fake.tools.add.script(["three"])
fake.tools.no_such_tool
"""


async def test_typed_handlers_answer_the_generated_clients(fake_demo_pkg: ModuleType) -> None:
    testing = __import__(f"{fake_demo_pkg.__name__}.testing", fromlist=["FakeServer"])
    models = importlib.import_module(f"{fake_demo_pkg.__name__}.models")
    fake = testing.FakeServer()

    @fake.tools.get_weather
    async def weather(args: Any, ctx: Any) -> Any:
        await ctx.progress(1, 2, "half")
        return models.GetWeatherResult(
            city=args.city, temperature=21.5, conditions="sunny", units=args.units or "celsius", humidity=40
        )

    @fake.tools.add
    def add(args: Any) -> int:
        return int(args.a + args.b)

    @fake.prompts.summarize_note
    def summarize(args: dict[str, str]) -> str:
        return f"{args['note_id']}/{args.get('style', '-')}"

    @fake.resources.note
    def note(variables: dict[str, str]) -> str:
        return f"note {variables['note_id']}"

    fake.tools.get_note.script([testing.FakeError("not yet")])
    progress: list[float] = []
    async with fake_demo_pkg.AsyncClient.in_process(fake) as client:
        weather_now = await client.with_options(on_progress=lambda p, t, m: progress.append(p)).get_weather(
            city="Paris"
        )
        assert weather_now.temperature == 21.5 and weather_now.city == "Paris"
        assert await client.add(a=2, b=3) == 5
        with pytest.raises(fake_demo_pkg.ToolError, match="not yet"):
            await client.get_note(note_id="n1")
        synthesised = await client.get_note(note_id="n1")
        assert isinstance(synthesised, models.GetNoteResult)
        assert (await client.prompts.summarize_note(note_id="n1")).messages[0].content.text == "n1/-"
        assert (await client.resources.note(note_id="n 2")).text == "note n 2"
        assert isinstance(await client.forecast(city="Oslo"), fake_demo_pkg.ToolResult)
    assert progress == [1]
    assert [call.name for call in fake.calls] == [
        "get_weather", "add", "get_note", "get_note", "summarize_note", "notes://n%202", "forecast"
    ]  # fmt: skip
    assert fake.tools.add.calls[0].arguments == {"a": 2, "b": 3}

    with fake_demo_pkg.Client.in_process(fake) as sync_client:
        assert sync_client.add(a=5, b=6) == 11


async def test_agent_tools_work_against_the_fake(fake_demo_pkg: ModuleType) -> None:
    testing = __import__(f"{fake_demo_pkg.__name__}.testing", fromlist=["FakeServer"])
    fake = testing.FakeServer()
    async with fake_demo_pkg.AsyncClient.in_process(fake) as client:
        tools = client.tools()
        out = await tools["add"].run(json.dumps({"a": 1, "b": 2}))
        assert not out.is_error
        weather = await tools["get_weather"].run(json.dumps({"city": "Oslo"}))
        assert not weather.is_error, weather.text
        assert weather.structured is not None and set(weather.structured) >= {"city", "temperature"}
    assert [call.name for call in fake.calls] == ["add", "get_weather"]


async def test_every_typed_call_of_everything_validates(fake_everything_pkg: ModuleType) -> None:
    """Each tool, called through the generated client's typed path (output validated by the client)."""
    testing = __import__(f"{fake_everything_pkg.__name__}.testing", fromlist=["FakeServer"])
    from mcp_codegen_runtime.serving.data import synthesise

    fake = testing.FakeServer()
    async with fake_everything_pkg.AsyncClient.in_process(fake) as client:
        for wire_name, spec in fake_everything_pkg.TOOLS.items():
            arguments = synthesise(spec.input_schema)
            raw = await client.call_raw(wire_name, arguments)
            assert not raw.is_error, (wire_name, raw.text)
            if spec.output_schema is not None:
                jsonschema.validate(raw.structured, spec.output_schema)
            result = await client.call(wire_name, arguments)  # the typed path: models and output validated
            if spec.result_model is not None and not spec.unwrap_result:
                assert isinstance(result, spec.result_model)


def test_plain_import_does_not_load_the_testing_module(fake_demo_pkg: ModuleType, fake_packages_dir: Path) -> None:
    name = fake_demo_pkg.__name__
    code = (
        f"import sys, {name}; "
        f"print(sorted(m for m in sys.modules if m.endswith('.testing') or m.startswith('mcp_codegen_runtime.serving.')))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=fake_packages_dir, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_typed_handlers_pass_mypy_strict_and_wrong_ones_fail(
    fake_demo_pkg: ModuleType, fake_packages_dir: Path
) -> None:
    (fake_packages_dir / "typed_use.py").write_text(TYPED_USE)
    (fake_packages_dir / "wrong_use.py").write_text(WRONG_USE)
    good = mypy_strict(fake_packages_dir, fake_demo_pkg.__name__, "typed_use.py")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = mypy_strict(fake_packages_dir, "wrong_use.py")
    lines = [line for line in bad.stdout.splitlines() if ": error:" in line]
    found = {int(line.split(":")[1]) for line in lines}
    source = WRONG_USE.splitlines()

    def line_of(text: str) -> int:
        return next(index for index, line in enumerate(source, 1) if line.startswith(text))

    assert line_of("@fake.tools.get_weather") in found  # argument and return types
    assert line_of("@fake.tools.add") in found  # async handler returning the wrong type
    assert line_of('    return args["town"]') in found  # not a prompt argument
    assert line_of("fake.tools.add.script") in found
    assert line_of("fake.tools.no_such_tool") in found
