"""End to end against the demo server: generated over stdio AND over streamable HTTP, then used for real.

Both generations must give the same client; only the launch record (specs.LAUNCH, snapshot.json
"launch") may differ. The packages are imported under unique names and talk to live servers: the
stdio child, the session's HTTP server, an HTTP server that records the JSON-RPC requests it gets
(to see exactly which arguments went over the wire), and an in-memory `mcp.Client`.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import mcp
import pytest
from servers.helpers import RequireHeaders, serve_app
from starlette.types import ASGIApp, Receive, Scope, Send

import mcp_codegen_runtime
from mcp_codegen.demo.server import build_server

from .conftest import ROOT, tree, unique_name

NOTE_IDS = ["welcome", "groceries", "ideas"]
APP_CONFIG = {
    "default_units": "celsius",
    "features": {"notes": True, "weather": True, "writes": False},
    "name": "demo",
    "version": "1.0.0",
}


# --------------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------------


class Packages:
    def __init__(self, http_dir: Path, stdio_dir: Path, http: ModuleType, stdio: ModuleType) -> None:
        self.http_dir, self.stdio_dir, self.http, self.stdio = http_dir, stdio_dir, http, stdio


@pytest.fixture(scope="module")
def packages(
    demo_http_url: str,
    demo_stdio_command: list[str],
    tmp_path_factory: pytest.TempPathFactory,
    import_package: Callable[[Path], ModuleType],
) -> Packages:
    """The demo client generated twice, from `--url` and from `--stdio`, both runs in parallel."""
    root = tmp_path_factory.mktemp("demo")
    http_dir = root / unique_name("demo_http")
    stdio_dir = root / unique_name("demo_stdio")
    runs = [
        (http_dir, ["--url", demo_http_url]),
        (stdio_dir, ["--stdio", shlex.join(demo_stdio_command)]),
    ]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "mcp_codegen", "generate", "-q", *server, "-o", str(directory)]
            + ["--package-name", directory.name],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for directory, server in runs
    ]
    for process in processes:
        stdout, stderr = process.communicate(timeout=180)
        assert process.returncode == 0, stderr
        assert stdout == "" and stderr == ""  # -q
    return Packages(http_dir, stdio_dir, import_package(http_dir), import_package(stdio_dir))


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def connect(packages: Packages, demo_http_url: str, demo_stdio_command: list[str], transport: str) -> Callable[[], Any]:
    """`AsyncClient.stdio(...)` or `AsyncClient.http(...)` of the package generated over that transport."""
    if transport == "http":
        return lambda: packages.http.AsyncClient.http(demo_http_url, timeout=30)
    return lambda: packages.stdio.AsyncClient.stdio(demo_stdio_command[0], demo_stdio_command[1:], timeout=30)


@pytest.fixture
def pkg(packages: Packages, transport: str) -> ModuleType:
    return packages.http if transport == "http" else packages.stdio


class Recorder:
    """ASGI middleware in front of the real demo app: keeps every JSON-RPC request body it passes on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            self.messages.append(parsed)
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def tool_calls(self) -> list[dict[str, Any]]:
        return [m["params"] for m in self.messages if m.get("method") == "tools/call"]


@pytest.fixture(scope="module")
def recording_server() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder(build_server().streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1"))
    with serve_app(recorder) as base:
        yield base + "/mcp", recorder


def _without_launch(specs_source: str) -> str:
    return re.sub(r"^LAUNCH: .*?^}\n", "LAUNCH = ...\n", specs_source, count=1, flags=re.M | re.S)


# --------------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------------


def test_http_and_stdio_generate_the_same_client(
    packages: Packages, demo_http_url: str, demo_stdio_command: list[str]
) -> None:
    http, stdio = tree(packages.http_dir), tree(packages.stdio_dir)
    assert sorted(http) == sorted(stdio)
    for path in http:
        # temporal.py (its SERVER_KEY) and code_api.pyi (its module) name the package, as README.md does.
        named = ("README.md", "temporal.py", "code_api.pyi", ".mcp-codegen.json")
        if path in ("specs.py", "testing.py", "snapshot.json", *named):
            continue
        assert http[path] == stdio[path], path
    assert http["client.py"] == stdio["client.py"]
    assert {p for p in http if p.startswith("models/")} == {p for p in stdio if p.startswith("models/")}

    # specs.py: only the launch record differs.
    http_specs, stdio_specs = http["specs.py"].decode(), stdio["specs.py"].decode()
    assert http_specs != stdio_specs
    assert _without_launch(http_specs) == _without_launch(stdio_specs)
    assert packages.http.specs.LAUNCH == {"transport": "http", "url": demo_http_url}
    assert packages.stdio.specs.LAUNCH == {
        "transport": "stdio",
        "command": demo_stdio_command[0],
        "args": demo_stdio_command[1:],
    }

    # snapshot.json: only "launch" differs.
    http_snapshot, stdio_snapshot = json.loads(http["snapshot.json"]), json.loads(stdio["snapshot.json"])
    assert http_snapshot.pop("launch") == {"transport": "http", "url": demo_http_url}
    assert stdio_snapshot.pop("launch")["transport"] == "stdio"
    assert http_snapshot == stdio_snapshot

    # README.md: only the package name differs.
    assert http["README.md"].decode().replace(packages.http_dir.name, "PKG") == stdio["README.md"].decode().replace(
        packages.stdio_dir.name, "PKG"
    )


# --------------------------------------------------------------------------------------------------
# Tools, over both transports
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_every_tool_typed(pkg: ModuleType, connect: Callable[[], Any]) -> None:
    async with connect() as client:
        assert client.server_info.name == "demo"

        total = await client.add(a=2, b=3)
        assert total == 5 and type(total) is int

        weather = await client.get_weather(city="Paris")
        assert type(weather).__name__ == "GetWeatherResult"
        assert weather.city == "Paris" and weather.units == "celsius"
        assert weather.conditions in {"sunny", "cloudy", "rainy", "windy", "snowy"}
        assert isinstance(weather.temperature, float) and 0 <= weather.humidity <= 100
        fahrenheit = await client.get_weather(city="Paris", units="fahrenheit")
        assert fahrenheit.units == "fahrenheit"
        assert fahrenheit.temperature == pytest.approx(weather.temperature * 9 / 5 + 32, abs=0.11)

        notes = await client.list_notes()
        assert isinstance(notes, list)
        assert [note.id for note in notes] == NOTE_IDS
        assert all(type(note).__name__ == "ListNotesNote" for note in notes)
        assert notes[0].author is not None and notes[0].author.name == "Demo Bot"
        assert [note.id for note in await client.list_notes(tag="work")] == ["ideas"]
        assert [note.id for note in await client.list_notes(limit=1)] == ["welcome"]

        note = await client.get_note(note_id="ideas")
        assert note.id == "ideas" and note.tags == ["work"]
        with pytest.raises(pkg.ToolError) as raised:
            await client.get_note(note_id="nope")
        assert raised.value.result.is_error is True
        assert raised.value.tool == "get_note"
        assert "No note with id 'nope'" in str(raised.value)
        assert isinstance(raised.value, pkg.McpClientError)

        forecast = await client.forecast(city="Paris", days=2)
        assert isinstance(forecast, pkg.ToolResult)
        assert forecast.text.splitlines()[0] == "Forecast for Paris:"
        assert len(forecast.text.splitlines()) == 3
        assert forecast.structured is None and not forecast.is_error

        found = await client.search_notes(query="weather", limit=2)
        assert found.total == 3 and len(found.notes) == 2 and found.query == "weather"

        draft_author = importlib.import_module(pkg.__name__ + ".models.draft_note").DraftNoteAuthor
        draft = await client.draft_note(title="Trip to Oslo", body="Pack a coat.", author=draft_author(name="Ada"))
        assert draft.id == "trip-to-oslo" and draft.author.name == "Ada" and draft.priority == "normal"

        # Invalid arguments are refused before anything is sent; the session stays usable.
        with pytest.raises(pkg.ArgumentsValidationError):
            await client.search_notes(query="x", limit=0)
        assert await client.add(a=-1, b=1) == 0


@pytest.mark.anyio
async def test_typed_results_match_the_raw_sdk(packages: Packages, demo_http_url: str) -> None:
    pkg = packages.http
    async with (
        pkg.AsyncClient.http(demo_http_url) as client,
        mcp.Client(demo_http_url, mode="legacy", cache=None) as raw,
    ):
        weather = await client.get_weather(city="Lisbon", units="fahrenheit")
        expected = await raw.call_tool("get_weather", {"city": "Lisbon", "units": "fahrenheit"})
        assert weather.model_dump(mode="json") == expected.structured_content

        notes = await client.list_notes(tag=None)
        expected = await raw.call_tool("list_notes", {"tag": None})
        assert [n.model_dump(mode="json", exclude_unset=True) for n in notes] == expected.structured_content["result"]

        forecast = await client.forecast(city="Rome")
        expected = await raw.call_tool("forecast", {"city": "Rome"})
        assert forecast.raw == expected

        with pytest.raises(pkg.ToolError) as raised:
            await client.get_note(note_id="nope")
        expected = await raw.call_tool("get_note", {"note_id": "nope"})
        assert raised.value.result.raw == expected


@pytest.mark.anyio
async def test_call_by_wire_name(pkg: ModuleType, connect: Callable[[], Any]) -> None:
    async with connect() as client:
        result = await client.call("search-notes", {"query": "x"})
        assert type(result).__name__ == "SearchNotesResult"
        assert result.query == "x" and result.total == 0 and result.notes == []
        assert (await client.call("search_notes", {"query": "Paris"})).total == 1
        assert await client.call("add", {"a": 20, "b": 22}) == 42
        with pytest.raises(pkg.McpClientError, match="did you mean 'search-notes'"):
            await client.call("serch-notes", {"query": "x"})
        raw = await client.call_raw("get_note", {"note_id": "nope"})
        assert raw.is_error


# --------------------------------------------------------------------------------------------------
# NOT_SENT vs None
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_none_is_sent_as_null_and_not_sent_is_omitted(
    packages: Packages, recording_server: tuple[str, Recorder]
) -> None:
    url, recorder = recording_server
    pkg = packages.http
    author = importlib.import_module(pkg.__name__ + ".models.draft_note").DraftNoteAuthor
    async with pkg.AsyncClient.http(url) as client:
        recorder.messages.clear()
        all_notes = await client.list_notes(tag=None)  # explicit null: "all notes"
        omitted = await client.list_notes()
        explicitly_not_sent = await client.list_notes(tag=pkg.NOT_SENT, limit=pkg.NOT_SENT)
        await client.draft_note(title="T", body="b", author=author(name="A"), tags=None)
        await client.draft_note(title="T", body="b", author=author(name="A", email=None))
        with pytest.raises(pkg.ArgumentsValidationError):
            await client.list_notes(limit=None)  # not nullable: refused, nothing sent
    assert [n.id for n in all_notes] == [n.id for n in omitted] == [n.id for n in explicitly_not_sent] == NOTE_IDS
    assert recorder.tool_calls() == [
        {"name": "list_notes", "arguments": {"tag": None}},
        {"name": "list_notes", "arguments": {}},
        {"name": "list_notes", "arguments": {}},
        {"name": "draft_note", "arguments": {"title": "T", "body": "b", "author": {"name": "A"}, "tags": None}},
        {"name": "draft_note", "arguments": {"title": "T", "body": "b", "author": {"name": "A", "email": None}}},
    ]


def test_validated_arguments_keep_none_and_drop_unset(packages: Packages) -> None:
    model = packages.http.TOOLS["list_notes"].arguments_model
    assert model.model_validate({"tag": None}).model_dump(mode="json", exclude_unset=True) == {"tag": None}
    assert model.model_validate({}).model_dump(mode="json", exclude_unset=True) == {}


# --------------------------------------------------------------------------------------------------
# Resources and prompts
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_resources_and_template(pkg: ModuleType, connect: Callable[[], Any]) -> None:
    async with connect() as client:
        config = await client.resources.app_config()
        assert isinstance(config, pkg.ResourceResult)
        assert json.loads(config.text) == APP_CONFIG
        assert config.mime_types == ["application/json"]
        assert [str(item.uri) for item in config.contents] == ["config://app"]

        for note_id in NOTE_IDS:
            note = await client.resources.note(note_id=note_id)
            assert [str(item.uri) for item in note.contents] == [f"notes://{note_id}"]
            assert note.mime_types == ["text/markdown"]
            assert note.text.startswith("# ")
        assert (await client.resources.note(note_id="ideas")).text == (
            "# Ideas\n\nGenerate a typed client for every MCP server; check the weather before a trip to Paris."
            "\n\n#work\n"
        )
        with pytest.raises(pkg.ServerRequestError) as raised:
            await client.resources.note(note_id="nope")
        assert raised.value.uri == "notes://nope"
        assert "No note with id 'nope'" in str(raised.value)
        # The same by URI.
        assert (await client.read_resource("notes://welcome")).text.startswith("# Welcome to the demo")


@pytest.mark.anyio
async def test_prompts(pkg: ModuleType, connect: Callable[[], Any]) -> None:
    async with connect() as client:
        summary = await client.prompts.summarize_note(note_id="ideas")
        assert isinstance(summary, pkg.PromptResult)
        assert summary.description == "Ask the model to summarize one of the notes."
        assert summary.text.startswith("Summarize this note as bullet points:\n\nGenerate a typed client")
        styled = await client.prompts.summarize_note(note_id="ideas", style="one sentence")
        assert styled.text.startswith("Summarize this note as one sentence:")

        trip = await client.prompts.plan_trip(city="Oslo")
        assert [m.role for m in trip.messages] == ["user", "assistant", "user"]
        assert trip.messages[0].content.text == "I'm going to Oslo. What should I pack?"
        assert "°C in Oslo" in trip.messages[1].content.text


@pytest.mark.anyio
async def test_prompts_and_resources_match_the_raw_sdk(packages: Packages, demo_http_url: str) -> None:
    pkg = packages.http
    async with (
        pkg.AsyncClient.http(demo_http_url) as client,
        mcp.Client(demo_http_url, mode="legacy", cache=None) as raw,
    ):
        assert (await client.prompts.plan_trip(city="Oslo")).raw == await raw.get_prompt("plan_trip", {"city": "Oslo"})
        assert (await client.prompts.summarize_note(note_id="welcome", style="haiku")).raw == await raw.get_prompt(
            "summarize_note", {"note_id": "welcome", "style": "haiku"}
        )
        assert (await client.resources.app_config()).raw == await raw.read_resource("config://app")
        assert (await client.resources.note(note_id="groceries")).raw == await raw.read_resource("notes://groceries")


# --------------------------------------------------------------------------------------------------
# Other ways in: the blocking client, connect(), from_session()
# --------------------------------------------------------------------------------------------------


def test_sync_client_from_a_plain_thread(packages: Packages, demo_http_url: str, demo_stdio_command: list[str]) -> None:
    results: dict[str, Any] = {}
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with packages.http.Client.http(demo_http_url) as client:
                results["add"] = client.add(a=2, b=3)
                results["weather"] = client.get_weather(city="Paris")
                results["notes"] = client.list_notes(tag="home")
                try:
                    client.get_note(note_id="nope")
                except packages.http.ToolError as error:
                    results["tool_error"] = error.result.is_error
                results["config"] = client.resources.app_config().text
                results["note"] = client.resources.note(note_id="welcome").text
                results["prompt"] = client.prompts.plan_trip(city="Paris").messages
                results["call"] = client.call("search-notes", {"query": "x"})
            with packages.stdio.Client.stdio(demo_stdio_command[0], demo_stdio_command[1:]) as client:
                results["stdio_add"] = client.add(a=40, b=2)
            try:
                client.add(a=1, b=1)
            except packages.stdio.ConnectionClosedError:
                results["closed"] = True
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    thread = threading.Thread(target=work, name="plain-worker")
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
    assert errors == []
    assert results["add"] == 5
    assert results["weather"].city == "Paris"
    assert [note.id for note in results["notes"]] == ["groceries"]
    assert results["tool_error"] is True
    assert json.loads(results["config"]) == APP_CONFIG
    assert results["note"].startswith("# Welcome to the demo")
    assert len(results["prompt"]) == 3
    assert results["call"].total == 0
    assert results["stdio_add"] == 42
    assert results["closed"] is True


@pytest.mark.anyio
async def test_connect_reaches_the_recorded_server(packages: Packages) -> None:
    for pkg in (packages.http, packages.stdio):
        async with pkg.AsyncClient.connect(timeout=30) as client:
            assert client.server_info.name == "demo"
            assert await client.add(a=1, b=2) == 3
            assert (await client.resources.note(note_id="ideas")).text.startswith("# Ideas")


def test_sync_connect_reaches_the_recorded_server(packages: Packages) -> None:
    with packages.http.Client.connect() as client:
        assert client.list_notes(limit=2)[1].id == "groceries"


@pytest.mark.anyio
async def test_from_session_with_an_in_memory_client(packages: Packages, demo_server: Any) -> None:
    pkg = packages.http
    async with mcp.Client(demo_server, mode="legacy", cache=None) as session:
        client = pkg.AsyncClient.from_session(session)
        assert await client.add(a=2, b=3) == 5
        assert (await client.get_weather(city="Paris")).city == "Paris"
        assert [note.id for note in await client.list_notes()] == NOTE_IDS
        with pytest.raises(pkg.ToolError):
            await client.get_note(note_id="nope")
        assert json.loads((await client.resources.app_config()).text) == APP_CONFIG
        assert (await client.prompts.plan_trip(city="Paris")).messages[0].role == "user"
        assert (await client.call("search-notes", {"query": "x"})).total == 0
        await client.aclose()  # marks the wrapper closed; the session is still the caller's
        with pytest.raises(pkg.ConnectionClosedError):
            await client.add(a=1, b=1)
        assert (await session.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}


# --------------------------------------------------------------------------------------------------
# The package's surface is what its README and __all__ say
# --------------------------------------------------------------------------------------------------


def test_every_error_the_client_raises_is_exported(packages: Packages) -> None:
    pkg = packages.http
    runtime_errors = {name for name in mcp_codegen_runtime.__all__ if name.endswith("Error")}
    # A Toolkit's own error, which the umbrella package of several servers exports (it has the Toolkit).
    assert runtime_errors - {"ServerUnavailableError"} <= set(pkg.__all__)


@pytest.mark.anyio
async def test_template_method_callable_as_the_readme_shows(packages: Packages, demo_http_url: str) -> None:
    readme = (packages.http_dir / "README.md").read_text(encoding="utf-8")
    assert "`resources.note(*, note_id: str | int)`" in readme
    async with packages.http.AsyncClient.http(demo_http_url) as client:
        result = await client.resources.note(note_id="welcome")  # as documented
    assert result.text.startswith("# Welcome")


# --------------------------------------------------------------------------------------------------
# connect() with recorded header names and ${VAR} templates
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_connect_reads_recorded_header_templates_from_the_environment(
    tmp_path: Path, import_package: Callable[[Path], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    token, key = "E2E-BEARER-TOKEN", "E2E-API-KEY"
    app = build_server().streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    guarded = RequireHeaders(app, {"Authorization": f"Bearer {token}", "X-Api-Key": key})
    with serve_app(guarded) as base:
        url = base + "/mcp"
        directory = tmp_path / unique_name("demo_guarded")
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "mcp_codegen",
                "generate",
                "-q",
                "--url",
                url,
                "-H",
                "Authorization: Bearer ${E2E_TOKEN}",
                "-H",
                f"X-Api-Key: {key}",
                "-o",
                str(directory),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "E2E_TOKEN": token},
            timeout=180,
        )
        assert result.returncode == 0, result.stderr
        pkg = import_package(directory)
        assert pkg.specs.LAUNCH == {
            "transport": "http",
            "url": url,
            "headers": [
                {"name": "Authorization", "template": "Bearer ${E2E_TOKEN}"},
                {"name": "X-Api-Key", "template": "${X_API_KEY}"},  # a literal secret: a placeholder (issue 57)
            ],
        }
        for path in directory.rglob("*"):
            if path.is_file():
                assert token.encode() not in path.read_bytes() and key.encode() not in path.read_bytes()

        monkeypatch.delenv("E2E_TOKEN", raising=False)
        with pytest.raises(pkg.ConnectError, match=r"\$\{E2E_TOKEN\}"):
            async with pkg.AsyncClient.connect(headers={"X-Api-Key": key}):
                pass

        monkeypatch.setenv("E2E_TOKEN", token)
        monkeypatch.delenv("X_API_KEY", raising=False)
        with pytest.raises(pkg.ConnectError) as raised:
            async with pkg.AsyncClient.connect():  # X-Api-Key's literal was recorded as ${X_API_KEY}
                pass
        assert "header 'X-Api-Key' needs the environment variable ${X_API_KEY}" in str(raised.value)
        assert token not in str(raised.value) and key not in str(raised.value)

        async with pkg.AsyncClient.connect(headers={"X-Api-Key": key}) as client:
            assert await client.add(a=1, b=2) == 3
