"""Several real servers from one config: parallel generation, partial failure, the umbrella package's Toolkit.

The config holds the demo server over stdio, npm server-everything over stdio, the demo server over
streamable HTTP on 127.0.0.1 (a subprocess the tests stop and restart), and one server that cannot start.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from hashlib import sha256
from pathlib import Path
from typing import Any

import anyio
import prewarmed
import pytest
from helpers import imported_package, mypy_strict, pyright_strict

pytestmark = pytest.mark.anyio


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HttpDemo:
    """The demo server over streamable HTTP in a subprocess, on a fixed port so it can be restarted."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_codegen.demo", "--http", "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError("the demo HTTP server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture(scope="module")
def http_demo() -> Iterator[HttpDemo]:
    server = HttpDemo()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _toml_string(value: str) -> str:
    return json.dumps(value)


@pytest.fixture(scope="module")
def project(
    tmp_path_factory: pytest.TempPathFactory,
    http_demo: HttpDemo,
    everything_command: list[str],
    demo_stdio_command: list[str],
) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    node, *node_args = everything_command
    (root / "pyproject.toml").write_text(
        f"""[project]
name = "agent-app"

[tool.mcp-codegen]
output = "mcp_clients"
timeout = 30

[tool.mcp-codegen.servers.demo]
{_demo_toml(demo_stdio_command)}

[tool.mcp-codegen.servers.everything]
command = {_toml_string(node)}
args = {json.dumps(node_args)}
exclude = ["trigger-*"]

[tool.mcp-codegen.servers.demo-http]
url = "{http_demo.url}"
transport = "http"
tool_prefix = "h_"

[tool.mcp-codegen.servers.broken]
command = "mcp-codegen-no-such-command"
""",
        encoding="utf-8",
    )
    return root


def _demo_toml(demo_stdio_command: list[str]) -> str:
    """A config table's launch of the demo server (the fixture's command: started prewarmed)."""
    command, *arguments = demo_stdio_command
    return f"command = {_toml_string(command)}\nargs = {json.dumps(arguments)}"


def _retried_at_once(umbrella: Any) -> Any:
    """Retries without the default's waits (about 5 s in all): what these tests check is the failure reported."""
    return umbrella.demo_http.Retries(initial_delay=0.01, max_delay=0.05)


def run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *arguments]), cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def generated(project: Path) -> subprocess.CompletedProcess[str]:
    return run("generate", cwd=project)


@pytest.fixture(scope="module")
def umbrella(project: Path, generated: subprocess.CompletedProcess[str]) -> Iterator[Any]:
    with imported_package(project / "mcp_clients") as package:
        yield package


# --------------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------------


def test_partial_failure_generates_the_others_and_says_so(
    project: Path, generated: subprocess.CompletedProcess[str]
) -> None:
    assert generated.returncode == 5, generated.stderr  # documented: partial
    assert "Traceback" not in generated.stderr
    assert "snapshotted 3 of 4 servers (demo, everything, demo-http); 1 failed:" in generated.stderr
    assert "broken: command not found: mcp-codegen-no-such-command" in generated.stderr
    package = project / "mcp_clients"
    assert sorted(p.name for p in package.iterdir() if p.is_dir()) == ["demo", "demo_http", "everything"]
    # every subpackage shares the one installed runtime
    assert not (package / "demo" / "_runtime").exists()
    assert "from mcp_codegen_runtime import" in (package / "demo" / "client.py").read_text()
    assert "from mcp_codegen_runtime import" in (package / "__init__.py").read_text()
    # per-server options from the config apply
    assert not [p for p in (package / "everything" / "models").iterdir() if p.name.startswith("trigger")]


def test_progress_is_reported_per_server(generated: subprocess.CompletedProcess[str]) -> None:
    for server in ("demo", "everything", "demo-http"):
        assert f"mcp-codegen: {server}: done in " in generated.stderr
    assert "mcp-codegen: broken: failed: command not found" in generated.stderr


def test_umbrella_passes_mypy_strict_and_pyright(project: Path, generated: subprocess.CompletedProcess[str]) -> None:
    (project / "use_toolkit.py").write_text(
        "from mcp_clients import Toolkit\n"
        "from mcp_clients.demo.models import GetWeatherResult\n\n\n"
        "async def weather(kit: Toolkit) -> GetWeatherResult:\n"
        '    return await kit["demo"].get_weather(city="Paris")\n'
    )
    result = mypy_strict(project, "mcp_clients", "use_toolkit.py")
    assert result.returncode == 0, result.stdout + result.stderr
    result = pyright_strict(project, "mcp_clients", "use_toolkit.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_reports_the_umbrella_current(project: Path, generated: subprocess.CompletedProcess[str]) -> None:
    result = run("generate", "--check", "--server", "demo", "--server", "demo-http", cwd=project)
    assert result.returncode == 0, result.stderr


def test_a_failing_server_keeps_its_previous_subpackage(
    project: Path, generated: subprocess.CompletedProcess[str], http_demo: HttpDemo
) -> None:
    client = project / "mcp_clients" / "demo_http" / "client.py"
    before = client.read_bytes()
    http_demo.stop()
    try:
        result = run("generate", "--server", "demo-http", "--timeout", "5", cwd=project)
    finally:
        http_demo.start()
    assert result.returncode == 3, result.stderr  # the only server asked for failed
    assert "all 1 server failed:" in result.stderr
    assert client.read_bytes() == before
    assert '"demo-http"' in (project / "mcp_clients" / "__init__.py").read_text()


def test_an_unknown_server_name_suggests_the_closest(project: Path) -> None:
    result = run("generate", "--server", "everthing", cwd=project)
    assert result.returncode == 2
    assert "did you mean 'everything'?" in result.stderr


# --------------------------------------------------------------------------------------------------
# The Toolkit
# --------------------------------------------------------------------------------------------------


async def test_toolkit_connects_to_every_server_and_calls_them(umbrella: Any) -> None:
    async with umbrella.Toolkit() as kit:
        status = kit.status()
        assert {name: s.state for name, s in status.items()} == {
            "demo": "connected",
            "everything": "connected",
            "demo-http": "connected",
        }
        assert status["demo"].tools == 7
        assert await kit["demo"].add(a=2, b=3) == 5
        assert await kit["demo-http"].add(a=1, b=1) == 2
        echoed = await kit["everything"].echo(message="hi")
        assert "hi" in str(echoed)


async def test_agent_tools_are_namespaced_per_server(umbrella: Any) -> None:
    async with umbrella.Toolkit() as kit:
        tools = kit.tools()
        names = list(tools)
        assert "mcp__demo__add" in names and "mcp__demo-http__h_add" in names and "mcp__everything__echo" in names
        assert len(names) == len(set(names))
        assert all(len(name) <= 64 for name in names)
        only = kit.tools("get_*", servers=["demo"])
        assert sorted(only) == ["mcp__demo__get_note", "mcp__demo__get_weather"]
        output = await tools["mcp__demo-http__h_add"].run({"a": 20, "b": 22})
        assert "42" in output.text
        openai = tools.to_openai()
        assert {entry["function"]["name"] for entry in openai} == set(names)


async def test_toolkit_tools_honour_each_servers_tool_prefix(umbrella: Any) -> None:
    for lazy in (False, True):
        async with umbrella.Toolkit(lazy=lazy, disabled=["everything"]) as kit:
            names = set(kit.tools())
            assert "mcp__demo-http__h_add" in names and "mcp__demo__add" in names, names
            assert "mcp__demo-http__add" not in names
            if not lazy:  # the server's own tools() agrees
                assert "h_add" in kit["demo-http"].tools()
            # A prefix given here replaces each server's own.
            assert "mcp__demo-http__x_add" in kit.tools(prefix="x_")


async def test_toolkit_passes_server_request_handlers_to_every_server(umbrella: Any, tmp_path: Path) -> None:
    def elicit(request: Any) -> dict[str, object]:
        return {"name": "Kit"}

    async with umbrella.Toolkit(disabled=["demo", "demo-http"], elicitation=elicit, roots=[tmp_path]) as kit:
        everything = kit["everything"]
        listed = await everything.call_raw("get-roots-list", {})
        elicited = await everything.call_raw("trigger-elicitation-request", {})
    assert tmp_path.resolve().as_uri() in str(listed.content)
    assert '"name": "Kit"' in str(elicited.content)


async def test_disable_enable_and_reconnect(umbrella: Any) -> None:
    async with umbrella.Toolkit(disabled=["everything"]) as kit:
        assert kit.status()["everything"].state == "disabled"
        assert not [name for name in kit.tools() if name.startswith("mcp__everything__")]
        with pytest.raises(umbrella.ServerUnavailableError, match="disabled"):
            kit["everything"]
        assert (await kit.enable("everything")).state == "connected"
        assert [name for name in kit.tools() if name.startswith("mcp__everything__")]
        first = kit["demo"]
        assert (await kit.reconnect("demo")).state == "connected"
        assert kit["demo"] is not first and first.closed
        assert await kit["demo"].add(a=1, b=2) == 3
        assert (await kit.disable("demo")).state == "disabled"
        assert kit.status()["demo"].tools == 0


async def test_a_server_going_down_is_reported_and_reconnected(umbrella: Any, http_demo: HttpDemo) -> None:
    async with umbrella.Toolkit(timeout=10, retries=_retried_at_once(umbrella)) as kit:
        assert kit.status()["demo-http"].state == "connected"
        http_demo.stop()
        try:
            health = await kit.health(timeout=3)
            assert health["demo-http"].state == "failed", health
            assert health["demo-http"].error
            assert health["demo"].state == "connected"  # the others are untouched
            failed = await kit.reconnect("demo-http")
            assert failed.state == "failed" and "cannot connect" in (failed.error or "")
        finally:
            http_demo.start()
        assert (await kit.reconnect("demo-http")).state == "connected"
        assert await kit["demo-http"].add(a=3, b=4) == 7


async def test_a_server_that_cannot_be_reached_does_not_stop_the_others(umbrella: Any) -> None:
    unreachable = f"http://127.0.0.1:{_free_port()}/mcp"
    retries = _retried_at_once(umbrella)
    connectors = {"demo-http": lambda: umbrella.demo_http.AsyncClient.http(unreachable, timeout=5, retries=retries)}
    started = time.perf_counter()
    async with umbrella.Toolkit(connectors=connectors) as kit:
        status = kit.status()
        assert status["demo-http"].state == "failed"
        assert "cannot connect" in (status["demo-http"].error or "")
        assert status["demo"].state == "connected" and status["everything"].state == "connected"
        with pytest.raises(umbrella.ServerUnavailableError, match="failed"):
            kit["demo-http"]
    assert time.perf_counter() - started < 60


async def test_closing_leaves_no_server_running(umbrella: Any) -> None:
    kit = umbrella.Toolkit()
    async with kit:
        demo = kit["demo"]
    assert demo.closed
    assert {s.state for s in kit.status().values()} == {"closed"}
    with anyio.fail_after(5):
        await kit.close()  # idempotent


async def test_a_toolkit_records_each_server_and_replays_them_with_no_server(umbrella: Any, tmp_path: Path) -> None:
    from mcp_codegen_runtime import ReplayMismatchError

    recordings = tmp_path / "sessions"
    async with umbrella.Toolkit(record=recordings, headers={"demo-http": {"X-Api-Key": "sk-live-4f9a8b7c6d5e4f3a2b1c"}}) as kit:
        live = (await kit["demo"].add(a=2, b=3), await kit["demo-http"].add(a=1, b=1))
        echoed = str(await kit["everything"].echo(message="hi"))
    assert sorted(path.name for path in recordings.iterdir()) == ["demo-http.ndjson", "demo.ndjson", "everything.ndjson"]
    every_line = "".join(path.read_text(encoding="utf-8") for path in recordings.iterdir())
    assert "sk-live-4f9a8b7c6d5e4f3a2b1c" not in every_line and '"tools/call"' in every_line

    async with umbrella.Toolkit.replay(recordings) as replayed:
        assert {status.state for status in replayed.status().values()} == {"connected"}
        assert (await replayed["demo"].add(a=2, b=3), await replayed["demo-http"].add(a=1, b=1)) == live
        assert str(await replayed["everything"].echo(message="hi")) == echoed
    async with umbrella.Toolkit.replay(recordings) as replayed:
        with pytest.raises(ReplayMismatchError):
            await replayed["demo"].add(a=2, b=4)
        await replayed["demo"].add(a=2, b=3)
        await replayed["demo-http"].add(a=1, b=1)
        await replayed["everything"].echo(message="hi")

    # A config's server names are free text: each becomes a file name inside the folder, never a path.
    from mcp_codegen_runtime.client.toolkit_servers import recording_name

    assert recording_name("demo-http") == "demo-http.ndjson"
    assert recording_name("../../etc/x y") == "_etc_x_y.ndjson"
    assert recording_name("..") == f"tool_{sha256(b'..').hexdigest()[:8]}.ndjson"
    demo = umbrella.Toolkit.CLIENTS["demo"]
    clashing = type("Clashing", (umbrella.Toolkit,), {"CLIENTS": {"a b": demo, "a_b": demo}})
    with pytest.raises(ValueError, match=r"^servers would share a recording \(a_b.ndjson\)"):
        clashing(record=tmp_path / "clash")
    (recordings / "everything.ndjson").unlink()
    with pytest.raises(FileNotFoundError, match=r"no recording of 'everything' in .*Toolkit\(record=FOLDER\)"):
        umbrella.Toolkit.replay(recordings)


def test_unknown_server_names_are_rejected(umbrella: Any) -> None:
    with pytest.raises(KeyError, match="no server named 'nope'"):
        umbrella.Toolkit(disabled=["nope"])


def test_readme_lists_every_server(project: Path, generated: subprocess.CompletedProcess[str]) -> None:
    readme = (project / "mcp_clients" / "README.md").read_text()
    for package in ("demo", "demo_http", "everything"):
        assert f"[`{package}`]({package}/README.md)" in readme
    assert os.linesep in readme


def test_mcp_json_with_one_server_writes_a_plain_package(
    tmp_path: Path, http_demo: HttpDemo, demo_stdio_command: list[str]
) -> None:
    (tmp_path / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {"command": demo_stdio_command[0], "args": demo_stdio_command[1:]},
                    "remote": {"type": "http", "url": http_demo.url},
                    "off": {"command": "nope", "disabled": True},
                }
            }
        )
    )
    result = run("generate", "--mcp-json", "mcp.json", "--server", "remote", "-o", "remote_client", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "remote_client" / "client.py").is_file()  # a standalone package, not an umbrella
    assert not (tmp_path / "remote_client" / "__init__.py").read_text().count("Toolkit")
    both = run("generate", "--mcp-json", "mcp.json", "-o", "clients", "--format", "json", cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    report = json.loads(both.stdout)
    assert {name: server["state"] for name, server in report["servers"].items()} == {
        "demo": "written",
        "remote": "written",
    }
    assert (tmp_path / "clients" / "remote" / "client.py").is_file()


def test_a_server_taken_out_of_the_config_loses_its_subpackage(
    tmp_path: Path, demo_stdio_command: list[str]
) -> None:
    demo = _demo_toml(demo_stdio_command) + "\n"
    config = tmp_path / "mcp-codegen.toml"
    config.write_text(f"[servers.kept]\n{demo}\n[servers.dropped]\n{demo}", encoding="utf-8")
    assert run("generate", "-q", cwd=tmp_path).returncode == 0
    clients = tmp_path / "mcp_clients"
    assert (clients / "dropped" / "client.py").is_file()
    (clients / "notes").mkdir()  # the user's own folder: not ours to remove
    config.write_text(f"[servers.kept]\n{demo}", encoding="utf-8")

    check = run("generate", "--check", cwd=tmp_path)
    assert check.returncode == 1, check.stderr
    assert f"stale: {clients / 'dropped'}\n" in check.stderr
    assert (clients / "dropped").is_dir()  # --check touches nothing

    result = run("generate", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["removed"] == ["dropped"]
    assert not (clients / "dropped").exists() and (clients / "notes").is_dir() and (clients / "kept").is_dir()
    assert '"dropped"' not in (clients / "__init__.py").read_text()
    assert run("generate", "--check", cwd=tmp_path).returncode == 0


def test_strict_accepts_the_configs_allowed_warning_codes_and_keeps_user_files(
    tmp_path: Path, demo_stdio_command: list[str]
) -> None:
    """`allow_warnings` in the config works like --allow-warning; a subpackage keeps the user's files, also
    when its server is taken out of the config."""
    demo = _demo_toml(demo_stdio_command) + "\n"
    servers = f'[servers.alpha]\n{demo}descriptions = {{ no_such_tool = "x" }}\n\n[servers.beta]\n{demo}'
    config = tmp_path / "mcp-codegen.toml"
    config.write_text(servers, encoding="utf-8")
    clients = tmp_path / "mcp_clients"

    refused = run("generate", "--strict", cwd=tmp_path)
    assert refused.returncode == 1, refused.stderr
    assert "--strict: 1 warning (description-override-unused); nothing written" in refused.stderr
    assert not clients.exists()

    config.write_text('allow_warnings = ["description-override-unused"]\n\n' + servers, encoding="utf-8")
    accepted = run("generate", "-q", "--strict", cwd=tmp_path)
    assert accepted.returncode == 0, accepted.stderr
    assert "warning[description-override-unused]" in accepted.stderr  # still shown, just not fatal

    (clients / "alpha" / "my_extra.py").write_text("EXTRA = 1\n", encoding="utf-8")
    config.write_text(servers.replace("[servers.alpha]\n", '[servers.alpha]\nexclude = ["add"]\n'), encoding="utf-8")
    result = run("generate", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["servers"]["alpha"]["kept"] == ["my_extra.py"]
    assert (clients / "alpha" / "my_extra.py").read_text(encoding="utf-8") == "EXTRA = 1\n"
    assert not (clients / "alpha" / "models" / "add.py").exists()

    config.write_text(f"[servers.beta]\n{demo}", encoding="utf-8")
    result = run("generate", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["removed"], report["kept"]) == (["alpha"], ["alpha/my_extra.py"])
    assert sorted(p.name for p in (clients / "alpha").iterdir()) == ["my_extra.py"]


async def test_toolkit_resource_and_prompt_tools_per_server(umbrella: Any) -> None:
    async with umbrella.Toolkit(disabled=["demo-http", "everything"]) as kit:
        tools = kit.tools(exclude="*", resources=True, prompts=True)
        assert "mcp__demo__read_resource" in tools and "mcp__demo__prompt_plan_trip" in tools
        note = await tools["mcp__demo__read_note"].run({"note_id": "welcome"})
    assert note.text.startswith("[resource notes://welcome (text/markdown)]")


# --------------------------------------------------------------------------------------------------
# Lazy toolkits
# --------------------------------------------------------------------------------------------------


async def test_a_lazy_toolkit_connects_a_server_on_its_first_call_only(umbrella: Any) -> None:
    async with umbrella.Toolkit(lazy=True) as kit:
        assert {s.state for s in kit.status().values()} == {"not connected yet"}
        assert str(kit.status()["demo"]) == "demo: not connected yet"
        assert kit.clients() == {}
        assert await kit["demo"].add(a=2, b=3) == 5  # connects demo, and only demo
        states = {name: s.state for name, s in kit.status().items()}
        assert states == {"demo": "connected", "everything": "not connected yet", "demo-http": "not connected yet"}
        assert (await kit["demo"].prompts.plan_trip(city="Oslo")).messages  # a connected client now
        client = await kit.connected("demo-http")
        assert client is kit["demo-http"] and await client.add(a=1, b=1) == 2
    assert {s.state for s in kit.status().values()} == {"closed"}


async def test_a_lazy_toolkits_tools_need_no_connection_until_called(umbrella: Any) -> None:
    async with umbrella.Toolkit(lazy=True) as kit:
        tools = kit.tools()
        assert "mcp__demo__add" in tools and "mcp__everything__echo" in tools
        assert tools.to_anthropic()  # definitions from the snapshots
        assert {s.state for s in kit.status().values()} == {"not connected yet"}
        output = await tools["mcp__demo-http__h_add"].run({"a": 20, "b": 22})
        assert "42" in output.text
        assert kit.status()["demo-http"].state == "connected"
        assert kit.status()["demo"].state == "not connected yet"


async def test_a_toolkits_search_pair_ranks_semantically_over_every_server(umbrella: Any) -> None:
    """Issue 62: `kit.tools(search=True, semantic=True)` ranks the servers' tools as one set, with no connection."""
    request = "how hot is it in Rome"
    async with umbrella.Toolkit(lazy=True) as kit:
        pair = kit.tools(search=True, semantic=True)
        output = await pair["search_tools"].run({"query": request, "limit": 3})
        names = [item["name"] for item in json.loads(output.text)]
        assert names == [tool.name for tool in kit.tools().search(request, limit=3, semantic=True)]
        assert names[0].endswith("get_weather")
        assert {s.state for s in kit.status().values()} == {"not connected yet"}


async def test_concurrent_first_uses_share_one_connection(umbrella: Any) -> None:
    async with umbrella.Toolkit(lazy=True, disabled=["everything"]) as kit:
        results: list[int] = []

        async def add(value: int) -> None:
            results.append(await kit["demo"].add(a=value, b=1))

        async with anyio.create_task_group() as group:
            for value in range(5):
                group.start_soon(add, value)
        assert sorted(results) == [1, 2, 3, 4, 5]
        assert kit.status()["everything"].state == "disabled"
        report = await kit.health(timeout=10)  # connects what is still waiting for its first use
        assert report["demo-http"].state == "connected" and report["everything"].state == "disabled"


async def test_a_lazy_server_that_fails_says_why_on_first_use(umbrella: Any) -> None:
    unreachable = f"http://127.0.0.1:{_free_port()}/mcp"
    retries = _retried_at_once(umbrella)
    connectors = {"demo-http": lambda: umbrella.demo_http.AsyncClient.http(unreachable, timeout=5, retries=retries)}
    async with umbrella.Toolkit(lazy=True, connectors=connectors, disabled=["everything"]) as kit:
        with pytest.raises(umbrella.ServerUnavailableError, match="cannot connect"):
            await kit["demo-http"].add(a=1, b=2)
        assert kit.status()["demo-http"].state == "failed"
        assert kit.status()["demo"].state == "not connected yet"
