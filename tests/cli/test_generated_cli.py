"""`generate --cli`: the generated package's command line (`python -m PKG`) and its agent skill (`SKILL.md`).

Real servers only: the demo server over stdio (the launch recorded at generation, or `--stdio`), the npm
server-everything generated live, and real listings from tests/corpus generated offline. Every command line runs
in an interpreter of its own, as a user runs it (forked from one that imported `mcp` already: tests/prewarmed.py).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import prewarmed
import pytest
from helpers import CORPUS, codegen, corpus_snapshot, mypy_strict, pyright_strict

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import Snapshot

ROOT = Path(__file__).resolve().parents[2]


def run_cli(package: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m <package> args...` in an interpreter of its own (forked from one that imported `mcp` already:
    tests/prewarmed.py), the package's parent on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package.parent), str(ROOT / "src")])}
    return subprocess.run(
        prewarmed.command(["-m", package.name, *args]),
        cwd=cwd or package.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def generate_offline(directory: Path, snapshot: Snapshot, name: str, **options: Any) -> Path:
    files = generate_files(
        snapshot, package_name=name, diagnostics=Diagnostics(), options=GenerateOptions(cli=True, **options)
    )
    write_package(directory / name, files, overwrite=True)
    return directory / name


def table(package: Path) -> list[tuple[Any, ...]]:
    """The generated `COMMANDS` table, read back as data."""
    import ast

    module = ast.parse((package / "__main__.py").read_text(encoding="utf-8"))
    for node in module.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "COMMANDS":
            assert node.value is not None
            value: list[tuple[Any, ...]] = list(ast.literal_eval(node.value))
            return value
    raise AssertionError("no COMMANDS table")


def front_matter(skill: str) -> dict[str, str]:
    lines = skill.split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    fields = {}
    for line in lines[1:end]:
        key, _, value = line.partition(": ")
        fields[key] = json.loads(value) if value.startswith('"') else value
    return fields


def marker_command(marker: Path) -> str:
    """A `--stdio` command that leaves `marker` behind if it is ever started (it is no MCP server)."""
    code = f"open({str(marker)!r}, 'w').close()"
    return shlex.join([sys.executable, "-c", code])


# --------------------------------------------------------------------------------------------------
# The demo server: generated live with --cli, called through the recorded launch
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_stdio_command: list[str]) -> Path:
    package = tmp_path_factory.mktemp("cli") / "demo_cli"
    result = codegen("generate", "-q", "--stdio", shlex.join(demo_stdio_command), "--cli", "-o", str(package))
    assert result.returncode == 0, result.stderr
    return package


def test_help_lists_every_tool_with_its_first_line(demo: Path) -> None:
    result = run_cli(demo, "--help")
    assert result.returncode == 0, result.stderr
    rows = table(demo)
    listed = json.loads((demo / "snapshot.json").read_text(encoding="utf-8"))
    wire_names = sorted(tool["name"] for tool in listed["tools"])
    assert sorted(row[1] for row in rows) == wire_names
    for name, _wire, summary, _options in rows:
        assert f"  {name}" in result.stdout
        assert summary in result.stdout
    assert "Add two integers and return their sum." in result.stdout
    assert "resources read URI" in result.stdout and "prompts get NAME" in result.stdout


def test_tool_help_shows_types_defaults_and_descriptions(demo: Path) -> None:
    result = run_cli(demo, "draft_note", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "--title TEXT Note title. (required)" in text
    assert "--author JSON Who is writing the note. (required)" in text
    assert "--priority {low,normal,high}" in text and 'default "normal"' in text
    assert "--tags TEXT Tags to attach; none when null. (default null; repeatable)" in text
    assert "Validate a new note and return it as it would be stored" in text  # the whole description


def test_a_call_prints_the_structured_result_as_json(demo: Path) -> None:
    result = run_cli(demo, "add", "--a", "2", "--b", "40")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == 42  # the SDK's {"result": 42} wrapping unwrapped

    weather = run_cli(demo, "get_weather", "--city", "Paris")
    assert weather.returncode == 0, weather.stderr
    assert json.loads(weather.stdout)["city"] == "Paris"


def test_lists_objects_json_files_and_the_whole_arguments_object(demo: Path, tmp_path: Path) -> None:
    author = tmp_path / "author.json"
    author.write_text('{"name": "Ada", "email": "ada@example.org"}', encoding="utf-8")
    result = run_cli(
        demo,
        "draft_note",
        "--json",
        '{"title": "Hello", "body": "text", "priority": "low"}',
        "--author",
        f"@{author}",
        "--tags",
        "a",
        "--tags",
        "b",
        "--priority",
        "high",  # an option wins over --json
    )
    assert result.returncode == 0, result.stderr
    note = json.loads(result.stdout)
    assert note["title"] == "Hello" and note["tags"] == ["a", "b"] and note["priority"] == "high"
    assert note["author"] == {"name": "Ada", "email": "ada@example.org"}


def test_text_results_print_as_text_and_raw_prints_the_whole_result(demo: Path) -> None:
    forecast = run_cli(demo, "forecast", "--city", "Oslo", "--days", "2")
    assert forecast.returncode == 0, forecast.stderr
    assert forecast.stdout.startswith("Forecast for Oslo:")
    raw = run_cli(demo, "--raw", "add", "--a", "1", "--b", "2")
    assert raw.returncode == 0, raw.stderr
    whole = json.loads(raw.stdout)
    assert whole["structuredContent"] == {"result": 3} and whole["content"][0]["type"] == "text"


def test_a_tool_error_exits_1_with_one_line(demo: Path) -> None:
    result = run_cli(demo, "get_note", "--note-id", "nope")
    assert result.returncode == 1
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "No note with id 'nope'" in result.stderr


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (["add", "--a", "x", "--b", "1"], "--a"),  # not an integer: argparse
        (["add", "--a", "1"], "--b"),  # a required parameter missing
        (["draft_note", "--title", "", "--body", "b", "--author", '{"name": "A"}'], "--title"),  # the model
        (["draft_note", "--title", "t", "--body", "b", "--author", '{"name": ""}'], "--author['name']"),
        (["draft_note", "--title", "t", "--body", "b", "--author", "{not json"], "--author"),
        (["draft_note", "--priority", "urgent"], "--priority"),
        (["add", "--json", "[1, 2]"], "--json"),
        (["get_weather", "--ci", "Paris"], "--ci"),  # no abbreviations
    ],
)
def test_bad_arguments_exit_2_naming_the_parameter_without_contacting_the_server(
    demo: Path, tmp_path: Path, arguments: list[str], named: str
) -> None:
    marker = tmp_path / "started"
    result = run_cli(demo, "--stdio", marker_command(marker), *arguments)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not marker.exists(), "the server was started for bad arguments"


def test_good_arguments_do_reach_the_server(demo: Path, tmp_path: Path) -> None:
    """The other side of the test above: with valid arguments the (fake) server is started, and fails to speak MCP."""
    marker = tmp_path / "started"
    result = run_cli(demo, "--timeout", "20", "--stdio", marker_command(marker), "add", "--a", "1", "--b", "2")
    assert marker.exists()
    assert result.returncode == 3, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_connection_failure_exits_3(demo: Path) -> None:
    result = run_cli(demo, "--stdio", "no-such-command-mcp-codegen", "add", "--a", "1", "--b", "2")
    assert result.returncode == 3
    assert "no-such-command-mcp-codegen" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_tool_and_unknown_global_option(demo: Path) -> None:
    unknown = run_cli(demo, "get_wether")
    assert unknown.returncode == 2 and "did you mean get_weather" in unknown.stderr
    option = run_cli(demo, "--nope", "add")
    assert option.returncode == 2 and "--nope" in option.stderr


def test_a_tool_by_its_wire_python_or_dashed_name(demo: Path) -> None:
    for name in ("get_weather", "get-weather"):
        result = run_cli(demo, name, "--city", "Paris")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["city"] == "Paris"


def test_find_takes_every_spelling_of_a_tool() -> None:
    from types import SimpleNamespace
    from typing import cast

    from mcp_codegen_runtime.command_line.parsing import find
    from mcp_codegen_runtime.command_line.table import CommandRow, UsageError

    rows: list[CommandRow] = [
        ("search_objects", "search_objects", "", ()),
        ("list-items", "listItems", "", ()),
        ("a_b", "a_b", "", ()),
        ("a-b", "a-b", "", ()),
    ]
    tools = cast(Any, {"listItems": SimpleNamespace(python_name="list_items")})
    for name in ("search_objects", "search-objects", "_search_objects_"):
        assert find(rows, name, tools).wire_name == "search_objects"
    for name in ("list-items", "listItems", "list_items"):
        assert find(rows, name, tools).wire_name == "listItems"
    assert find(rows, "a-b", tools).wire_name == "a-b"  # an exact name wins over a dashed one
    with pytest.raises(UsageError, match="ambiguous"):
        find([("x_y", "x_y", "", ()), ("x-y-tool", "x-y", "", ())], "_x_y_", {})


def test_resources_and_prompts(demo: Path) -> None:
    read = run_cli(demo, "resources", "read", "config://app")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["name"] == "demo"
    listed = run_cli(demo, "resources", "list")
    assert listed.returncode == 0 and "notes://{note_id}" in listed.stdout
    prompt = run_cli(demo, "prompts", "get", "plan_trip", "--arg", "city=Paris")
    assert prompt.returncode == 0, prompt.stderr
    assert "Paris" in prompt.stdout
    missing = run_cli(demo, "prompts", "get", "plan_trip")
    assert missing.returncode == 2 and "city" in missing.stderr
    unknown = run_cli(demo, "prompts", "get", "plan_trip", "--arg", "town=Paris")
    assert unknown.returncode == 2 and "town" in unknown.stderr


def test_skill_lists_the_tools_and_check_covers_it(demo: Path) -> None:
    skill = (demo / "SKILL.md").read_text(encoding="utf-8")
    fields = front_matter(skill)
    assert fields["name"] == "demo-cli"
    assert "python -m demo_cli" in fields["description"]
    for name, _wire, summary, _options in table(demo):
        assert f"- `{name}`: {summary}" in skill
    assert "python -m demo_cli --help" in skill and "python -m demo_cli add --a 1 --b 1" in skill

    assert codegen("verify", str(demo)).returncode == 0
    (demo / "SKILL.md").write_text(skill.replace("demo", "edited"), encoding="utf-8")
    stale = codegen("verify", str(demo))
    assert stale.returncode == 1 and "SKILL.md" in stale.stdout
    (demo / "SKILL.md").write_text(skill, encoding="utf-8")


def test_every_group_the_command_line_answers_is_a_name_no_tool_command_takes(tmp_path: Path) -> None:
    """The runtime's dispatch (`command_line/run.py`) answers `GROUP_COMMANDS` before any tool: the generator
    reads the same set, so a tool named after any group, in any case, gets a command of its own."""
    import ast
    import inspect

    from mcp_codegen_runtime.command_line import run
    from mcp_codegen_runtime.command_line.table import GROUP_COMMANDS

    dispatched = {
        node.comparators[0].value
        for node in ast.walk(ast.parse(inspect.getsource(run._main)))
        if isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and node.left.id == "name"
        and isinstance(node.comparators[0], ast.Constant)
    }
    assert dispatched == GROUP_COMMANDS
    names = sorted(GROUP_COMMANDS) + [name.upper() for name in sorted(GROUP_COMMANDS)]
    snapshot = Snapshot.from_json(
        {
            "formatVersion": 1,
            "serverInfo": {"name": "groups", "version": "1"},
            "capabilities": {"tools": {}},
            "tools": [{"name": name, "inputSchema": {"type": "object"}} for name in names],
        }
    )
    package = generate_offline(tmp_path, snapshot, "groups_cli")
    commands = {row[1]: row[0] for row in table(package)}
    assert {commands[name] for name in names}.isdisjoint(GROUP_COMMANDS | {n.upper() for n in GROUP_COMMANDS})
    assert len(set(commands.values())) == len(names)
    for name in names:
        called = run_cli(package, commands[name], "--help")
        assert called.returncode == 0 and name in called.stdout, called.stdout + called.stderr


def test_the_generated_command_line_is_strictly_typed(demo: Path) -> None:
    checked = mypy_strict(demo.parent, demo.name)
    assert checked.returncode == 0, checked.stdout
    pyright = pyright_strict(demo.parent, f"{demo.name}/__main__.py")
    assert pyright.returncode == 0, pyright.stdout


# --------------------------------------------------------------------------------------------------
# Real listings
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["github", "notion"])
def test_a_real_listing(tmp_path: Path, name: str) -> None:
    snapshot = corpus_snapshot(name)
    package = generate_offline(tmp_path, snapshot, f"{name}_cli")
    rows = table(package)
    assert sorted(row[1] for row in rows) == sorted(tool["name"] for tool in snapshot.tools)

    listed = run_cli(package, "--help")
    assert listed.returncode == 0, listed.stderr
    for command, _wire, summary, _options in rows:
        assert f"  {command}" in listed.stdout and summary in listed.stdout

    # every tool's own help builds (enums, lists, objects, defaults of a real server)
    command, _wire, _summary, options = max(rows, key=lambda row: len(row[3]))
    helped = run_cli(package, command, "--help")
    assert helped.returncode == 0, helped.stderr
    assert all(option[1] in helped.stdout for option in options)

    required = next(row for row in rows if any(option[4] for option in row[3]))
    marker = tmp_path / "started"
    missing = run_cli(package, "--stdio", marker_command(marker), required[0])
    first_required = next(option[1] for option in required[3] if option[4])
    assert missing.returncode == 2 and first_required in missing.stderr
    assert not marker.exists()

    skill = (package / "SKILL.md").read_text(encoding="utf-8")
    assert front_matter(skill)["name"] == f"{name}-cli"
    assert all(f"- `{row[0]}`" in skill for row in rows)


def test_a_real_server_called_through_the_command_line(tmp_path: Path, everything_command: list[str]) -> None:
    package = tmp_path / "everything_cli"
    result = codegen("generate", "-q", "--stdio", shlex.join(everything_command), "--cli", "-o", str(package))
    assert result.returncode == 0, result.stderr
    echoed = run_cli(package, "echo", "--message", "hello from the shell")
    assert echoed.returncode == 0, echoed.stderr
    assert "hello from the shell" in echoed.stdout
    structured = run_cli(package, "get-structured-content", "--location", "New York")
    assert structured.returncode == 0, structured.stderr
    assert isinstance(json.loads(structured.stdout), dict)
    bad = run_cli(package, "get-sum", "--a", "one", "--b", "2")
    assert bad.returncode == 2 and "--a" in bad.stderr


# --------------------------------------------------------------------------------------------------
# Untrusted server text
# --------------------------------------------------------------------------------------------------

HOSTILE = 'Evil """ tool\n---\nname: pwned\n\x1b[31mred\x1b[0m %(prog)s %d `code` <script>'


def test_server_text_stays_data_in_main_and_skill(tmp_path: Path) -> None:
    snapshot = Snapshot.from_json(
        {
            "formatVersion": 1,
            "serverInfo": {"name": 'evil"\n---', "version": "1"},
            "capabilities": {"tools": {}},
            "tools": [
                {
                    "name": "tool'); import os; os.system('x') #",
                    "description": HOSTILE,
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "from": {"type": "string", "description": HOSTILE, "default": HOSTILE},
                            "mode": {"enum": ['a"b', "--help", "x\ny"]},
                            "json": {"type": "object"},
                        },
                        "required": ["from"],
                    },
                }
            ],
        }
    )
    package = generate_offline(tmp_path, snapshot, "evil_cli")
    skill = (package / "SKILL.md").read_text(encoding="utf-8")
    fields = front_matter(skill)
    assert set(fields) == {"name", "description"} and fields["name"] == "evil-cli"
    assert "\x1b" not in skill and "<script>" not in skill
    assert "\nname: pwned" not in skill
    ((command, _wire, _summary, options),) = table(package)
    assert [option[1] for option in options] == ["--from", "--mode", "--json-arg"]

    helped = run_cli(package, command, "--help")
    assert helped.returncode == 0, helped.stderr
    assert "\x1b" not in helped.stdout and "%(prog)s %d" in helped.stdout
    listed = run_cli(package, "--help")
    assert listed.returncode == 0 and "\x1b" not in listed.stdout
    marker = tmp_path / "started"
    bad = run_cli(package, "--stdio", marker_command(marker), command, "--from", "x", "--mode", "nope")
    assert bad.returncode == 2 and "--mode" in bad.stderr and not marker.exists()


# --------------------------------------------------------------------------------------------------
# Options and configuration
# --------------------------------------------------------------------------------------------------


def test_cli_is_recorded_and_without_it_there_is_no_command_line(tmp_path: Path) -> None:
    snapshot = corpus_snapshot("time")
    with_cli = generate_offline(tmp_path, snapshot, "time_cli")
    manifest = json.loads((with_cli / ".mcp-codegen.json").read_text(encoding="utf-8"))
    assert manifest["options"]["cli"] is True
    plain = generate_files(snapshot, package_name="time_plain", diagnostics=Diagnostics())
    assert "__main__.py" not in plain and "SKILL.md" not in plain


def test_cli_with_a_server_skeleton_is_refused() -> None:
    result = codegen("generate", "--snapshot", str(CORPUS / "time.json"), "--cli", "--server-skeleton", "-o", "x")
    assert result.returncode == 2 and "--cli" in result.stderr


def test_the_cli_config_key(tmp_path: Path, demo_stdio_command: list[str]) -> None:
    command, *arguments = demo_stdio_command
    (tmp_path / "mcp-codegen.toml").write_text(
        f"[servers.demo]\ncommand = {json.dumps(command)}\nargs = {json.dumps(arguments)}\ncli = true\n",
        encoding="utf-8",
    )
    result = codegen("generate", "-q", "--server", "demo", "-o", str(tmp_path / "demo_pkg"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "demo_pkg" / "__main__.py").is_file() and (tmp_path / "demo_pkg" / "SKILL.md").is_file()
    bad = (tmp_path / "mcp-codegen.toml").read_text().replace("cli = true", 'cli = "yes"')
    (tmp_path / "mcp-codegen.toml").write_text(bad, encoding="utf-8")
    refused = codegen("generate", "-q", "--server", "demo", "-o", str(tmp_path / "demo_pkg"), cwd=tmp_path)
    assert refused.returncode == 2 and "cli" in refused.stderr


def test_a_subpackage_of_an_umbrella_package(tmp_path: Path, demo_stdio_command: list[str]) -> None:
    """`cli = true` for one server of several: `python -m UMBRELLA.SERVER`, named so in its SKILL.md."""
    server = demo_stdio_command
    tables = "".join(
        f"[servers.{name}]\ncommand = {json.dumps(server[0])}\nargs = {json.dumps(server[1:])}\n{extra}"
        for name, extra in (("demo", "cli = true\n"), ("other", ""))
    )
    (tmp_path / "mcp-codegen.toml").write_text(f'output = "clients"\n{tables}', encoding="utf-8")
    (tmp_path / ".git").mkdir()  # the config search stops here
    result = codegen("generate", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    umbrella = tmp_path / "clients"
    assert not (umbrella / "other" / "__main__.py").exists()
    skill = (umbrella / "demo" / "SKILL.md").read_text(encoding="utf-8")
    assert front_matter(skill)["name"] == "clients-demo" and "python -m clients.demo add --a 1 --b 1" in skill
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src")])}
    called = subprocess.run(
        [sys.executable, "-m", "clients.demo", "add", "--a", "20", "--b", "22"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (called.returncode, called.stdout.strip()) == (0, "42"), called.stderr
    assert (
        "usage: python -m clients.demo"
        in subprocess.run(
            [sys.executable, "-m", "clients.demo", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True
        ).stdout
    )
