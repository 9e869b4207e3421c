"""Semantic tool search (`semantic=True`, issue 62): the static model of the `semantic` extra fused with the index.

Checked here: the pure-Python tokenizer gives all-MiniLM-L6-v2's token ids; fusion gives the same order every
time over a corpus of real requests; every surface answers (`ToolSet.search`, `search_tools`, a set of several
packages' tools, the generated command line); the model needs no network and no model hub; and without the extra
(the model and numpy made unimportable in a child interpreter) the lexical search is unchanged and
`semantic=True` raises an ImportError naming `mcp-codegen-runtime[semantic]`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import GenerateOptions, generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import read_snapshot
from mcp_codegen_runtime.agents import AgentTool, ToolSet
from mcp_codegen_runtime.agents.extras import ExtraSpec
from mcp_codegen_runtime.agents.search_index import build_index, document_from_listing, query_terms, wants_listing
from mcp_codegen_runtime.agents.semantic import EXTRA, sentences

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = ROOT / "generated_examples"


def _catalog() -> tuple[ToolSet, list[str]]:
    """LiveMCPBench's 527 tools (as the search benchmark builds them) and a corpus of requests: its 94 questions
    and the 16 long requests."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from search_semantic import catalog, long_requests
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    tools, queries = catalog()
    return tools, [query["question"] for query in queries] + [item["request"] for item in long_requests()]


@pytest.fixture(scope="module")
def catalog() -> tuple[ToolSet, list[str]]:
    return _catalog()


def test_the_tokenizer_gives_the_sentence_models_token_ids() -> None:
    from mcp_codegen_search_model import load

    tokenizer = load().tokenizer
    cases = json.loads((DATA / "wordpiece_cases.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 100
    for case in cases:
        assert tokenizer.ids(case["text"]) == case["ids"], case["text"][:80]


def test_fusion_gives_the_same_order_every_time(catalog: tuple[ToolSet, list[str]]) -> None:
    tools, requests = catalog
    again = ToolSet(tools.values())  # a fresh set: its own index and vectors
    for request in requests:
        first = [tool.name for tool in tools.search(request, limit=10, semantic=True)]
        assert first == [tool.name for tool in tools.search(request, limit=10, semantic=True)], request
        assert first == [tool.name for tool in again.search(request, limit=10, semantic=True)], request
        assert len(first) == 10 == len(set(first))
    # Every tool is ranked once (the fused order is a permutation of the set).
    everything = tools.search(requests[0], limit=10_000, semantic=True)
    assert sorted(tool.name for tool in everything) == sorted(tools.names)


def test_semantic_and_embed_do_not_mix(catalog: tuple[ToolSet, list[str]]) -> None:
    tools, _ = catalog
    with pytest.raises(ValueError, match="one of semantic=True and embed="):
        tools.search("x", semantic=True, embed=lambda texts: [[1.0] for _ in texts])


def test_long_requests_are_scored_by_their_sentences() -> None:
    request = "I need the weather. Is it raining in Paris?\nAlso: nothing else; thanks!"
    assert sentences(request) == ["I need the weather.", "Is it raining in Paris?", "Also: nothing else;", "thanks!"]
    assert sentences("one short request") == ["one short request"]


def test_a_list_tool_ranks_first_for_things_in_the_plural() -> None:
    """Issue 57: `search_api('helm repositories')` ranked helm_repo_remove above helm_repo_list."""
    listing = json.loads((DATA / "kubectl_like_tools.json").read_text(encoding="utf-8"))
    documents = [
        document_from_listing(name, None, text, {"properties": {key: {} for key in keys}})
        for name, text, keys in listing
    ]
    index = build_index(documents)

    def first(request: str) -> str:
        scores = index.scores(query_terms(request), listing=wants_listing(request))
        return index.names[max(scores, key=lambda position: (scores[position], -position))]

    for request, expected in [
        ("helm repositories", "helm_repo_list"),
        ("helm plugins", "helm_plugin_list"),
        ("pods", "get_pods"),
        ("namespaces", "get_namespaces"),
        ("helm releases", "helm_list"),
        ("kubeconfig contexts", "list_kubeconfig_contexts"),
        # Named actions keep their tools; a singular asks for no listing.
        ("remove a helm repository", "helm_repo_remove"),
        ("delete pods", "delete_pod"),
        ("uninstall helm plugins", "helm_plugin_uninstall"),
    ]:
        assert first(request) == expected, request
    assert wants_listing("helm repositories") and not wants_listing("helm repository")
    assert not wants_listing("latest news") and not wants_listing("add repositories")

    # The same through ToolSet.search, lexical and semantic.
    async def never(*_: object) -> Any:
        raise RuntimeError("not called")

    tools = ToolSet(
        AgentTool(ExtraSpec(name=name, description=text, input_schema={"type": "object"}, invoke=never))
        for name, text, _ in listing
    )
    for semantic in (False, True):
        assert tools.search("helm repositories", limit=1, semantic=semantic)[0].name == "helm_repo_list"


def _cli_package(root: Path) -> Path:
    snapshot = read_snapshot(EXAMPLES / "demo_client" / "snapshot.json")
    files = generate_files(
        snapshot, package_name="semantic_cli_demo", diagnostics=Diagnostics(), options=GenerateOptions(cli=True)
    )
    write_package(root / "semantic_cli_demo", files, overwrite=True)
    return root / "semantic_cli_demo"


@pytest.fixture(scope="module")
def cli_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _cli_package(tmp_path_factory.mktemp("semantic_cli"))


def _python(package: Path, code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package.parent), str(ROOT / "src")]), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=package.parent, env=environment, capture_output=True, text=True,
        timeout=120, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


#: Run first in a child interpreter: the model's distribution and numpy cannot be imported (a plain install).
WITHOUT_EXTRA = """
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {"numpy", "mcp_codegen_search_model"}:
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, Blocked())
"""


def test_without_the_extra_lexical_is_unchanged_and_semantic_names_the_extra(cli_package: Path) -> None:
    code = (
        WITHOUT_EXTRA
        + """
import json
import semantic_cli_demo as package
tools = package.AsyncClient.toolset_for(None)
lexical = [t.name for t in tools.search("weather in a city", limit=3)]
errors = []
for attempt in (lambda: tools.search("weather", semantic=True), lambda: tools.searching(semantic=True)):
    try:
        attempt()
    except ImportError as error:
        errors.append(str(error))
import importlib.util
print(json.dumps({"lexical": lexical, "errors": errors, "numpy": "numpy" in sys.modules}))
"""
    )
    completed = _python(cli_package, code)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    sys.path.insert(0, str(cli_package.parent))
    try:
        import semantic_cli_demo as package  # noqa: PLC0415 - generated by the fixture
    finally:
        sys.path.remove(str(cli_package.parent))
    here = [tool.name for tool in package.AsyncClient.toolset_for(None).search("weather in a city", limit=3)]
    assert result["lexical"] == here and result["lexical"][0] == "get_weather"
    assert len(result["errors"]) == 2 and not result["numpy"]
    for message in result["errors"]:
        assert EXTRA in message and "mcp-codegen-runtime[semantic]" in message
    # The command line: one line, exit code 2 (a usage error: nothing was sent).
    cli = _python(
        cli_package,
        WITHOUT_EXTRA + "import runpy; sys.argv = ['x', '--search', 'rain', '--semantic']\n"
        "runpy.run_module('semantic_cli_demo', run_name='__main__')",
    )
    assert cli.returncode == 2 and "mcp-codegen-runtime[semantic]" in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1 and "Traceback" not in cli.stderr


def test_the_model_needs_no_network_and_no_model_hub(cli_package: Path) -> None:
    code = """
import json, socket, sys
def refuse(*args, **kwargs):
    raise OSError("no network in this test")
socket.socket.connect = refuse
socket.create_connection = refuse
import semantic_cli_demo as package
tools = package.AsyncClient.toolset_for(None)
found = [t.name for t in tools.search("how hot is it in Rome", limit=2, semantic=True)]
heavy = sorted(m for m in ("torch", "transformers", "huggingface_hub", "sentence_transformers", "tokenizers") if m in sys.modules)
print(json.dumps({"found": found, "heavy": heavy}))
"""
    completed = _python(cli_package, code, env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["heavy"] == [] and result["found"][0] == "get_weather"


def test_the_command_line_searches(cli_package: Path) -> None:
    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        return _python(
            cli_package,
            f"import runpy, sys; sys.argv = ['x', *{list(arguments)!r}]\n"
            "runpy.run_module('semantic_cli_demo', run_name='__main__')",
        )

    semantic = run("--search", "how hot is it in Rome", "--semantic", "--limit", "1")
    assert semantic.returncode == 0, semantic.stderr
    [line] = semantic.stdout.splitlines()
    assert line.startswith("get_weather: Get the current weather for a city")
    raw = run("--search", "notes with a tag", "--raw")
    assert raw.returncode == 0 and json.loads(raw.stdout)[0]["command"]
    for arguments, message in [
        (("--search", "x", "add"), "not both"),
        (("--semantic", "add"), "--semantic goes with --search"),
        (("--search", "x", "--limit", "0"), "--limit must be at least 1"),
    ]:
        refused = run(*arguments)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr


def test_search_tools_and_a_set_of_several_packages_answer(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    request = "how hot is it in Rome"

    async def main() -> tuple[list[str], list[str], list[str]]:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            pair = client.tools(search=True, semantic=True)
            output = await pair["search_tools"].run({"query": request, "limit": 2})
            direct = [tool.name for tool in client.tools().search(request, limit=2, semantic=True)]
            both = ToolSet([*client.tools(prefix="a_").values(), *client.tools(prefix="b_").values()])
            several = [tool.name for tool in both.search(request, limit=2, semantic=True)]
            return [item["name"] for item in json.loads(output.text)], direct, several

    from_pair, direct, several = anyio.run(main)
    assert from_pair == direct and direct[0] == "get_weather"
    assert demo_pkg.AsyncClient.toolset_for(None).search(request) == []  # no word of it is in the index
    assert set(several) == {"a_get_weather", "b_get_weather"}
    with pytest.raises(ValueError, match="search=True or code=True"):
        anyio.run(_tools_with_semantic_alone, demo_pkg, demo_server)


async def _tools_with_semantic_alone(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async with demo_pkg.AsyncClient.in_process(demo_server) as client:
        client.tools(semantic=True)
