"""Observed result types: a real server whose tools declare no output schema (`@itseasy21/mcp-knowledge-graph`
1.0.7), its recorded sessions (tests/recording/knowledge_graph, `record.py` makes them again), `generate
--results-from` and `check --results-from`."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from helpers import mypy_strict, pyright_strict, ty_check
from recording_files import KNOWLEDGE_GRAPH, generate
from servers.install import knowledge_graph_command

from mcp_codegen.cli import cli
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.snapshot.model import Snapshot, read_snapshot
from mcp_codegen.snapshot.observed import infer_schema, observed_entries
from mcp_codegen_runtime import ObservedResultError, ToolResult

pytestmark = pytest.mark.anyio

SESSIONS = KNOWLEDGE_GRAPH / "sessions"
ENTITIES = [
    {"name": "Ada Lovelace", "entityType": "person", "observations": ["wrote the first program"]},
    {"name": "Charles Babbage", "entityType": "person", "observations": ["designed the engine"]},
    {"name": "Analytical Engine", "entityType": "machine", "observations": []},
]
RELATIONS = [
    {"from": "Ada Lovelace", "to": "Analytical Engine", "relationType": "programmed"},
    {"from": "Charles Babbage", "to": "Analytical Engine", "relationType": "designed"},
]


# ---- the join ------------------------------------------------------------------------------------------------


def test_the_join_of_samples() -> None:
    schema = infer_schema(
        [
            {"id": 1, "score": 2, "tags": [{"k": "a"}], "note": None, "owner": {"name": "x"}},
            {"id": 2, "score": 2.5, "tags": [], "extra": True, "owner": {"name": "y", "mail": "m"}},
        ]
    )
    assert schema == {
        "type": "object",
        "properties": {
            "extra": {"type": "boolean"},  # seen once: optional
            "id": {"type": "integer"},
            "note": {"type": "null"},
            "owner": {
                "type": "object",
                "properties": {"mail": {"type": "string"}, "name": {"type": "string"}},
                "required": ["name"],
            },
            "score": {"type": "number"},  # an integer widens to a number
            "tags": {
                "type": "array",
                "items": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]},
            },
        },
        "required": ["id", "owner", "score", "tags"],  # `note` was null: optional
    }
    assert infer_schema([{"v": "a"}, {"v": None}])["properties"]["v"] == {"type": ["string", "null"]}
    assert infer_schema([{"v": "a"}, {"v": 1}])["properties"]["v"] == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]
    }


def test_only_tools_without_an_output_schema_and_with_json_answers_are_typed() -> None:
    snapshot = Snapshot.from_json(
        {
            "formatVersion": 2,
            "serverInfo": {"name": "s"},
            "tools": [
                {"name": "declared", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}},
                {"name": "json", "inputSchema": {"type": "object"}},
                {"name": "mixed", "inputSchema": {"type": "object"}},
                {"name": "text", "inputSchema": {"type": "object"}},
            ],
        }
    )
    diagnostics = Diagnostics()
    answers: dict[str, list[object]] = {
        "declared": [{"a": 1}],
        "json": [{"a": 1}, {"a": 2}],
        "mixed": [{"a": 1}, None],
        "text": [None],
    }
    entries = observed_entries(snapshot, answers, diagnostics)
    assert list(entries) == ["json"]
    assert entries["json"]["samples"] == 2 and entries["json"]["observed"] is True
    assert [d.code for d in diagnostics] == ["observed-results-mixed"]


# ---- generation -----------------------------------------------------------------------------------------------


def test_the_snapshot_keeps_each_observed_schema_marked_with_its_samples(knowledge_graph_dir: Path) -> None:
    snapshot = read_snapshot(knowledge_graph_dir / "snapshot.json")
    observed = snapshot.observed_results
    assert sorted(observed) == [
        "add_observations", "create_entities", "create_relations", "open_nodes", "read_graph", "search_nodes"
    ]  # fmt: skip
    assert observed["read_graph"]["observed"] is True and observed["read_graph"]["samples"] == 2
    assert observed["read_graph"]["schema"]["required"] == ["entities", "relations"]
    assert all(tool.get("outputSchema") is None for tool in snapshot.tools)  # the listing is as the server sent it


def test_check_stays_offline_and_current(knowledge_graph_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "knowledge_graph_client"
    shutil.copytree(knowledge_graph_dir, copy)
    result = CliRunner().invoke(
        cli, ["generate", "--snapshot", str(copy / "snapshot.json"), "-o", str(copy), "--check", "-q"]
    )
    assert result.exit_code == 0, result.output


async def test_typed_results_from_a_replayed_session(knowledge_graph: ModuleType) -> None:
    async with knowledge_graph.AsyncClient.replay(SESSIONS / "build_graph.ndjson") as kg:
        created = await kg.create_entities(entities=ENTITIES)
        assert [entity.name for entity in created.items] == [entity["name"] for entity in ENTITIES]
        assert isinstance(created.tool_result, ToolResult)  # the whole result, as sent
        assert json.loads(created.tool_result.text)[0]["name"] == "Ada Lovelace"
        relations = await kg.create_relations(relations=RELATIONS)
        assert relations.items[0].from_ == "Ada Lovelace"
        await kg.add_observations(observations=[{"entityName": "Ada Lovelace", "contents": ["born in 1815"]}])
        graph = await kg.read_graph()
        assert type(graph).__name__ == "ReadGraphResult"
        ada = next(entity for entity in graph.entities if entity.name == "Ada Lovelace")
        assert ada.entity_type == "person" and "born in 1815" in ada.observations
        assert graph.entities[0].model_extra == {}  # every recorded key is a field
        await kg.search_nodes(query="engine")
        await kg.open_nodes(names=["Ada Lovelace"])
        deleted = await kg.delete_relations(relations=RELATIONS[1:])  # answers text: untyped
        assert isinstance(deleted, ToolResult)


def _with_answer(tool: str, text: str, source: Path, target: Path) -> Path:
    """`source` with the recorded answer of `tool` replaced by one text block."""
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    ids = {
        json.dumps(line["id"])
        for line in lines
        if line.get("method") == "tools/call" and line["params"]["name"] == tool
    }
    for line in lines:
        if "result" in line and json.dumps(line.get("id")) in ids:
            line["result"] = {"content": [{"type": "text", "text": text}]}
    target.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return target


async def test_a_result_that_does_not_fit_raises_with_the_raw_result(
    knowledge_graph: ModuleType, tmp_path: Path
) -> None:
    changed = {"entities": [{"name": "Ada"}], "relations": []}  # entityType, observations... gone
    path = _with_answer("read_graph", json.dumps(changed), SESSIONS / "empty_graph.ndjson", tmp_path / "changed.ndjson")
    async with knowledge_graph.AsyncClient.replay(path) as kg:
        with pytest.raises(ObservedResultError, match="does not fit the type observed") as raised:
            await kg.read_graph()
        assert json.loads(raised.value.result.text) == changed
        assert raised.value.tool == "read_graph"
        await kg.search_nodes(query="nothing")
    path = _with_answer("read_graph", "the graph is empty", SESSIONS / "empty_graph.ndjson", tmp_path / "text.ndjson")
    async with knowledge_graph.AsyncClient.replay(path) as kg:
        with pytest.raises(ObservedResultError, match="holds no JSON"):
            await kg.read_graph()
        await kg.search_nodes(query="nothing")


async def test_a_new_session_of_the_real_server_fits_the_observed_types(
    knowledge_graph: ModuleType, tmp_path: Path
) -> None:
    command = knowledge_graph_command(tmp_path / "memory.jsonl")
    async with knowledge_graph.AsyncClient.stdio(command[0], command[1:], stderr="discard") as kg:
        await kg.create_entities(entities=[{"name": "Grace", "entityType": "person", "observations": ["COBOL"]}])
        graph = await kg.read_graph()
        assert [entity.name for entity in graph.entities] == ["Grace"]
        found = await kg.search_nodes(query="Grace")
        assert found.entities[0].observations == ["COBOL"]


def test_a_declared_output_schema_is_never_retyped(everything: ModuleType, tmp_path: Path) -> None:
    """server-everything's `get-structured-content` declares an output schema: recorded answers leave it alone."""
    recording = tmp_path / "recorded"
    recording.mkdir()
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get-structured-content"}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": {"other": 1}}}
    lines = [
        {**call, "_meta": {"dir": "send", "server": "s", "ts": ""}},
        {**answer, "_meta": {"dir": "recv", "server": "s", "ts": ""}},
    ]
    (recording / "s.ndjson").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    snapshot = Path(everything.__file__).parent / "snapshot.json"
    target = tmp_path / "everything_observed"
    generate(target, "--snapshot", str(snapshot), "--results-from", str(recording))
    assert "observedResults" not in json.loads((target / "snapshot.json").read_text(encoding="utf-8"))


# ---- type checkers ---------------------------------------------------------------------------------------------

USE = """
from knowledge_graph_client import Client

with Client.replay("session.ndjson") as kg:
    graph = kg.read_graph()
    name: str = graph.entities[0].name
    observations: list[str] = graph.entities[0].observations
    created = kg.create_entities(entities=[])
    first: str = created.items[0].entity_type
    text: str = graph.tool_result.text
"""
MISSPELT = """
from knowledge_graph_client import Client

with Client.replay("session.ndjson") as kg:
    graph = kg.read_graph()
    print(graph.entitys)
"""


@pytest.mark.slow(reason="mypy, pyright and ty over a package typed from a recording, twice each")
def test_mypy_pyright_and_ty_accept_observed_fields_and_refuse_misspelt_ones(
    knowledge_graph_dir: Path, tmp_path: Path
) -> None:
    shutil.copytree(knowledge_graph_dir, tmp_path / "knowledge_graph_client")
    (tmp_path / "use.py").write_text(textwrap.dedent(USE), encoding="utf-8")
    (tmp_path / "misspelt.py").write_text(textwrap.dedent(MISSPELT), encoding="utf-8")
    for check in (mypy_strict, pyright_strict, ty_check):
        right = check(tmp_path, "use.py", "knowledge_graph_client")
        assert right.returncode == 0, right.stdout + right.stderr
        wrong = check(tmp_path, "misspelt.py")
        assert wrong.returncode != 0 and "entitys" in wrong.stdout, wrong.stdout


# ---- result drift -----------------------------------------------------------------------------------------------


def _recordings_where(tmp_path: Path, change: object) -> Path:
    """A copy of the sessions in which every read_graph and search_nodes answer went through `change`."""
    target = tmp_path / "new-recordings"
    target.mkdir(parents=True)
    for source in SESSIONS.glob("*.ndjson"):
        lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
        for line in lines:
            content = line.get("result", {}).get("content") if isinstance(line.get("result"), dict) else None
            if content and content[0].get("type") == "text":
                try:
                    value = json.loads(content[0]["text"])
                except ValueError:
                    continue
                if isinstance(value, dict) and "entities" in value:
                    content[0]["text"] = json.dumps(change(value))  # type: ignore[operator]
        (target / source.name).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return target


def _check(package: Path, recordings: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["check", "--against", str(package), "--results-from", str(recordings), "--fail-on", "dangerous"]
    )
    return result.exit_code, result.output


def test_check_names_the_tool_whose_answers_lost_a_field(knowledge_graph_dir: Path, tmp_path: Path) -> None:
    def drop(graph: dict[str, list[dict[str, object]]]) -> object:
        for entity in graph["entities"]:
            entity.pop("entityType")
        return graph

    code, output = _check(knowledge_graph_dir, _recordings_where(tmp_path, drop))
    assert code == 1
    assert "breaking" in output
    for tool in ("read_graph", "search_nodes", "open_nodes"):
        assert f"tools.{tool}.observed.entities[].entityType  output-required-property-removed" in output


def test_result_drift_levels(knowledge_graph_dir: Path, tmp_path: Path) -> None:
    assert _check(knowledge_graph_dir, SESSIONS) == (0, "no schema drift\n")

    def widen(graph: dict[str, list[dict[str, object]]]) -> object:
        for entity in graph["entities"]:
            entity["version"] = 1.5
            entity["rank"] = 3
        return graph

    code, output = _check(knowledge_graph_dir, _recordings_where(tmp_path / "w", widen))
    print(output)
    assert code == 1
    assert output.startswith("schema drift: 0 breaking, 3 dangerous, 3 safe")
    for tool in ("read_graph", "search_nodes", "open_nodes"):
        assert f"tools.{tool}.observed.entities[].version  observed-type-widened" in output  # integer -> number
        assert f"tools.{tool}.observed.entities[].rank  output-property-added" in output  # a new field: safe


async def test_the_fake_server_answers_observed_types(knowledge_graph: ModuleType) -> None:
    """A tool typed from recordings: the package's fake synthesises an answer of that type, as JSON text."""
    from knowledge_graph_client.models.open_nodes import OpenNodesResult
    from knowledge_graph_client.testing import FakeServer

    fake = FakeServer()

    @fake.tools.open_nodes
    def open_nodes(args: object) -> OpenNodesResult:  # a handler returns the observed model
        return OpenNodesResult.model_validate({"entities": [], "relations": []})

    async with knowledge_graph.AsyncClient.in_process(fake) as kg:
        assert type(await kg.read_graph()).__name__ == "ReadGraphResult"
        assert type(await kg.create_entities(entities=[])).__name__ == "CreateEntitiesResult"
        assert (await kg.open_nodes(names=["x"])).entities == []


def test_every_result_drift_rule_is_reached() -> None:
    """Each rule of `result_rules` is what `diff_results` reports for some change of the recorded answers."""
    from mcp_codegen.drift.result_rules import RESULT_RULES
    from mcp_codegen.drift.results import diff_results

    old = Snapshot.from_json(
        {
            "formatVersion": 2,
            "serverInfo": {"name": "s"},
            "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
            "observedResults": {
                "t": {"observed": True, "samples": 1, "schema": infer_schema([{"n": 1, "s": "x", "k": "a"}])}
            },
        }
    )
    changes: dict[str, list[object]] = {
        "observed-type-widened": [{"n": 1.5, "s": "x", "k": "a"}],
        "observed-became-nullable": [{"n": 1, "s": "x", "k": "a"}, {"n": 1, "s": None, "k": "a"}],
        "observed-branch-added": [{"n": 1, "s": "x", "k": "a"}, {"n": 1, "s": "x", "k": {"nested": True}}],
        "observed-results-not-json": [None],
    }
    for rule, answers in changes.items():
        found = {finding.rule: finding.level for finding in diff_results(old, {"t": answers}).findings}
        assert rule in found, (rule, found)
    assert set(changes) == {rule.id for rule in RESULT_RULES}
