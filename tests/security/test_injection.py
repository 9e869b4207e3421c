"""Hostile listings: whatever a server names or describes, the generated package only holds it as data.

A hypothesis property test builds adversarial snapshots (tests/security/adversarial.py): 1-5 tools,
prompts, resources and templates whose names, descriptions, titles, property names, enum values,
defaults, consts, patterns, URIs and server info hold quote and docstring breakouts, backslashes,
newlines, CR, NUL, U+2028/2029, Jinja syntax, `# type: ignore`, 10,000-character strings, non-ASCII,
keywords, builtins, dunders, `model_*`, `self`, the generated runtime's own names and names that
collide after snake_case. Every payload that could run tries to create a marker file.

Every example goes through the whole generator in-process (`generate_files`) and is checked fast:
every file compiles (SyntaxWarnings are errors), no injected call appears in any AST, identifiers
outside `models/` are ASCII, the embedded snapshot is the listing exactly, the literal keys of
`TOOLS`/`PROMPTS`/`RESOURCES`/`TEMPLATES` are the wire names exactly, the README has one heading
per tool and no raw HTML, and the marker file never appears. Every `IMPORT_EVERY`-th example is also
written out and checked in a fresh interpreter (batches of `IMPORT_BATCH` packages per subprocess,
tests/security/check_packages.py): import, every model class loaded and its JSON schema built,
`TOOLS[wire].description`/`input_schema`/`output_schema` equal to the listing, enum members, consts
and defaults present in the models' JSON schemas and round-tripping, no import-time warnings. The
first `MYPY_PACKAGES` of those go through one `mypy --strict` run at the end of each shard.

The examples are reproducible: no database, a fixed seed per shard (`@seed(shard)`), no deadline.

Settings (environment variables):

* `MCP_CODEGEN_FUZZ_EXAMPLES` - total examples over all shards (default 2000);
* `MCP_CODEGEN_FUZZ_SHARDS` - number of shards (default 8: about 30 s each, so that the workers of
  `pytest -n` share them evenly), each a separate test with its own seed;
* `MCP_CODEGEN_FUZZ_IMPORT_EVERY` - check every N-th example in a subprocess (default 8);
* `MCP_CODEGEN_FUZZ_MYPY_PACKAGES` - packages per shard given to `mypy --strict` (default 3).

100,000 examples locally (about 45 CPU-minutes per 10,000; use every core)::

    MCP_CODEGEN_FUZZ_EXAMPLES=100000 MCP_CODEGEN_FUZZ_SHARDS=16 MCP_CODEGEN_FUZZ_MYPY_PACKAGES=40 \\
        python -m pytest -n auto -p no:cacheprovider tests/security/test_injection.py

A failure prints the offending listing; `generate_files(Snapshot.from_json(listing), ...)` reproduces it.
Bugs the fuzz has found have their own targeted tests below.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers import imported_package, mypy_strict, snapshot_of
from hypothesis import HealthCheck, given, seed, settings
from mcp import Client as McpClient
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.fetch import snapshot_server
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen_runtime.calls.uri import uri_template_variables as template_variables

from . import adversarial
from .adversarial import MARKER, listings, non_ascii_identifiers, source_findings

EXAMPLES = int(os.environ.get("MCP_CODEGEN_FUZZ_EXAMPLES", "2000"))
SHARDS = max(1, int(os.environ.get("MCP_CODEGEN_FUZZ_SHARDS", "8")))
IMPORT_EVERY = max(1, int(os.environ.get("MCP_CODEGEN_FUZZ_IMPORT_EVERY", "8")))
MYPY_PACKAGES = int(os.environ.get("MCP_CODEGEN_FUZZ_MYPY_PACKAGES", "3"))
IMPORT_BATCH = 25
CHECKER = Path(__file__).with_name("check_packages.py")


# --------------------------------------------------------------------------------------------------
# In-process checks, every example
# --------------------------------------------------------------------------------------------------


def _show(listing: dict[str, Any]) -> str:
    text = json.dumps(listing, ensure_ascii=True)
    return text if len(text) < 6000 else text[:6000] + "...(truncated)"


def _literal_assignments(source: str) -> dict[str, ast.expr]:
    tree = ast.parse(source)
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
    return found


def _dict_keys(node: ast.expr) -> list[Any]:
    assert isinstance(node, ast.Dict), ast.dump(node)[:200]
    return [ast.literal_eval(key) for key in node.keys if key is not None]


def _call_keywords(node: ast.expr) -> dict[str, Any]:
    assert isinstance(node, ast.Call)
    return {k.arg: k.value for k in node.keywords if k.arg is not None}


#: Modules already found clean, by digest and whether their names must be ASCII: the checks depend on nothing else,
#: and many modules come out the same in every package (an `__init__` of a kind, a client of no tool in common).
_CLEAN: set[tuple[bytes, bool]] = set()


def check_module(path: str, data: bytes) -> None:
    """It compiles with no SyntaxWarning, makes no injected call, and names nothing non-ASCII outside `models/`."""
    ascii_names = not path.startswith("models/")
    key = (hashlib.blake2b(data, digest_size=16).digest(), ascii_names)
    if key in _CLEAN:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an invalid escape sequence in a literal is a SyntaxWarning
        tree = ast.parse(data.decode("utf-8"), path)
        compile(tree, path, "exec", dont_inherit=True)
    findings = source_findings(tree, ascii_names=ascii_names)
    assert not findings, f"{path}: {findings}"
    _CLEAN.add(key)


def check_files(listing: dict[str, Any], files: dict[str, bytes]) -> None:
    """Everything that can be checked without running the generated code."""
    for path, data in files.items():
        if path.endswith(".py"):
            check_module(path, data)

    # The embedded snapshot is the listing, exactly.
    embedded = json.loads(files["snapshot.json"])
    canonical = Snapshot.from_json(listing).as_json()
    for key in ("tools", "prompts", "resources", "resourceTemplates", "serverInfo", "instructions"):
        assert embedded[key] == canonical[key], key

    # The literal keys of the spec mappings are the wire names, exactly.
    specs = files["specs.py"].decode("utf-8")
    assigned = _literal_assignments(specs)
    tool_names = [tool["name"] for tool in listing["tools"]]
    assert sorted(_dict_keys(assigned["TOOLS"])) == sorted(tool_names)
    for name in tool_names:
        matches = [
            value
            for value in assigned.values()
            if isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "ToolSpec"
            and ast.literal_eval(_call_keywords(value)["name"]) == name
        ]
        assert len(matches) == 1, name
    assert sorted(_dict_keys(assigned["PROMPTS"])) == sorted(p["name"] for p in listing["prompts"])
    assert sorted(_dict_keys(assigned["RESOURCES"])) == sorted(r["uri"] for r in listing["resources"])
    assert sorted(_dict_keys(assigned["TEMPLATES"])) == sorted(t["uriTemplate"] for t in listing["resourceTemplates"])
    prompts_node = assigned["PROMPTS"]
    assert isinstance(prompts_node, ast.Dict)
    prompt_arguments = {
        ast.literal_eval(key): ast.literal_eval(_call_keywords(value)["arguments"])
        for key, value in zip(prompts_node.keys, prompts_node.values, strict=True)
        if key is not None
    }
    for prompt in listing["prompts"]:
        assert sorted(a for a, _, _ in prompt_arguments[prompt["name"]]) == sorted(
            a["name"] for a in prompt["arguments"]
        )
    server_name = listing["serverInfo"]["name"] or "mcp-server"
    assert ast.literal_eval(assigned["SERVER_NAME"]) == server_name

    # README: one heading per tool, no raw HTML line (Markdown line breaks are \n, \r\n and \r).
    readme = files["README.md"].decode("utf-8")
    lines = re.split(r"\r\n|\r|\n", readme)
    tools_part, _, models_part = readme.partition("\n## Argument models")
    headings = [line for line in re.split(r"\r\n|\r|\n", tools_part) if line.startswith("#")]
    # Title, "Testing your code against a fake server", Tools, and Prompts, Resources, Resource templates when listed.
    sections = sum(bool(listing.get(key)) for key in ("prompts", "resources", "resourceTemplates"))
    assert len(headings) == 3 + sections + len(listing["tools"]), headings
    model_headings = [line for line in re.split(r"\r\n|\r|\n", models_part) if line.startswith("#")]
    assert all(re.fullmatch(r"### `[A-Za-z_][A-Za-z0-9_]*`", line) for line in model_headings), model_headings
    assert not [line for line in lines if line.lstrip().startswith("<")]

    assert not MARKER.exists()


# --------------------------------------------------------------------------------------------------
# Subprocess checks, sampled
# --------------------------------------------------------------------------------------------------


def run_checker(root: Path, entries: list[dict[str, str]]) -> list[dict[str, Any]]:
    failures: list[dict[str, Any]] = []
    for start in range(0, len(entries), IMPORT_BATCH):
        manifest = root / f"manifest-{start}.json"
        manifest.write_text(
            json.dumps({"root": str(root), "marker": str(MARKER), "packages": entries[start : start + IMPORT_BATCH]}),
            encoding="utf-8",
        )
        completed = subprocess.run(
            [sys.executable, "-X", "utf8", str(CHECKER), str(manifest)],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr[-3000:]
        failures.extend(json.loads(completed.stdout))
    return failures


def _fuzz(shard: int, root: Path) -> tuple[int, list[dict[str, str]]]:
    """Run one shard's examples; returns how many ran and the packages written for the subprocess checks."""
    counter = itertools.count()
    written: list[dict[str, str]] = []

    @seed(shard)
    @settings(
        max_examples=max(1, EXAMPLES // SHARDS),
        database=None,
        deadline=None,
        derandomize=False,
        print_blob=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(listings())
    def example(listing: dict[str, Any]) -> None:
        number = next(counter)
        package = f"fuzz{shard}_{number}"
        diagnostics = Diagnostics()
        try:
            files = generate_files(Snapshot.from_json(listing), package_name=package, diagnostics=diagnostics)
            assert not diagnostics.errors, [str(d) for d in diagnostics.errors]
            check_files(listing, files)
        except BaseException as error:
            error.add_note(f"listing: {_show(listing)}")
            raise
        if number % IMPORT_EVERY == 0:
            write_package(root / package, files, overwrite=True)
            expected = root / f"{package}.expected.json"
            permissive = sorted(
                {
                    d.location.removeprefix("tools.")
                    for d in diagnostics
                    if "cannot handle this tool" in d.message or "permissive model" in d.message
                }
            )
            untypeable = sorted(d.location for d in diagnostics if "beyond 64 bits" in d.message)
            templates = {t["uriTemplate"]: template_variables(t["uriTemplate"]) for t in listing["resourceTemplates"]}
            expected.write_text(
                json.dumps(
                    {
                        "listing": listing,
                        "permissive": permissive,
                        "untypeable": untypeable,
                        "templateVariables": templates,
                    }
                ),
                encoding="utf-8",
            )
            written.append({"package": package, "expected": str(expected)})

    example()
    return next(counter), written


@pytest.mark.slow(reason="250 hostile listings generated, a batch imported in subprocesses, three through mypy")
@pytest.mark.parametrize("shard", range(SHARDS))
def test_hostile_listings_generate_data_only(shard: int, tmp_path: Path) -> None:
    MARKER.unlink(missing_ok=True)
    ran, written = _fuzz(shard, tmp_path)
    assert ran >= EXAMPLES // SHARDS
    assert not MARKER.exists()

    failures = run_checker(tmp_path, written)
    assert not failures, json.dumps(failures[:5], indent=1)[:8000]
    assert not MARKER.exists()

    checked = [entry["package"] for entry in written[:MYPY_PACKAGES]]
    if checked:
        result = mypy_strict(tmp_path, *itertools.chain.from_iterable(("-p", name) for name in checked))
        assert result.returncode == 0, result.stdout[-6000:]
    assert not MARKER.exists()


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("client.py", f"x = 1\n{adversarial.CANARY}()\n"),
        ("client.py", "import os\nos.system('true')\neval('1')\n"),
        ("specs.py", "from pathlib import Path\nPath('/tmp/x').touch()\n"),
        ("client.py", "caf\u00e9 = 1\n"),
        ("client.py", "pattern = '\\d'\n"),
        ("client.py", "def f(a, a): pass\n"),
    ],
)
def test_the_module_check_refuses_what_the_fuzz_looks_for(path: str, source: str) -> None:
    """Each kind of finding fails `check_module`, a second time too: only clean modules are remembered."""
    for _ in range(2):
        with pytest.raises((AssertionError, SyntaxError)):
            check_module(path, source.encode())


def test_the_module_check_allows_non_ascii_names_in_models_only() -> None:
    check_module("models/tool.py", "caf\u00e9 = 1\n".encode())
    with pytest.raises(AssertionError):
        check_module("client.py", "caf\u00e9 = 1\n".encode())


# --------------------------------------------------------------------------------------------------
# Targeted payloads and the bugs the fuzz found (fast, always run)
# --------------------------------------------------------------------------------------------------


def _every_payload_everywhere() -> dict[str, Any]:
    """One listing carrying every payload in every position at once."""
    payloads = adversarial.CODE_PAYLOADS + adversarial.ODD_TEXT
    properties = {
        f"p{index}": {
            "type": "string",
            "description": text,
            "title": text,
            "enum": [text, "plain"],
            "default": text,
        }
        for index, text in enumerate(payloads)
    }
    properties |= {f"c{index}": {"const": text} for index, text in enumerate(payloads)}
    properties |= {f"r{index}": {"type": "string", "pattern": re.escape(text)} for index, text in enumerate(payloads)}
    properties |= {text: {"type": "integer"} for text in payloads}
    return {
        "formatVersion": 1,
        "serverInfo": {"name": payloads[2], "version": payloads[3], "title": payloads[4]},
        "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
        "instructions": "\n".join(payloads),
        "tools": [
            {
                "name": word + text,
                "title": text,
                "description": text,
                "inputSchema": {"type": "object", "description": text, "properties": properties},
                "outputSchema": {"type": "object", "properties": {"result": {"type": "string", "description": text}}},
            }
            for word, text in zip(
                ("alpha", "beta", "gamma", "delta", "epsilon", "zeta"), adversarial.CODE_PAYLOADS, strict=False
            )
        ],
        "prompts": [
            {"name": text, "description": text, "arguments": [{"name": text, "description": text}]}
            for text in adversarial.CODE_PAYLOADS[6:12]
        ],
        "resources": [{"uri": text, "name": text, "description": text} for text in adversarial.CODE_PAYLOADS[12:18]],
        "resourceTemplates": [
            {"uriTemplate": f"x://{{a}}/{text}", "name": text, "description": text}
            for text in adversarial.CODE_PAYLOADS[18:24]
        ],
    }


def test_every_payload_in_every_position_at_once(tmp_path: Path) -> None:
    """The whole payload list in one package: generated, imported, type-checked, data intact."""
    MARKER.unlink(missing_ok=True)
    listing = _every_payload_everywhere()
    diagnostics = Diagnostics()
    files = generate_files(Snapshot.from_json(listing), package_name="every_payload", diagnostics=diagnostics)
    assert not diagnostics.errors
    assert not [d for d in diagnostics if "cannot handle" in d.message], [str(d) for d in diagnostics]
    check_files(listing, files)
    write_package(tmp_path / "every_payload", files, overwrite=True)
    templates = {t["uriTemplate"]: template_variables(t["uriTemplate"]) for t in listing["resourceTemplates"]}
    expected = tmp_path / "every_payload.expected.json"
    expected.write_text(json.dumps({"listing": listing, "permissive": [], "templateVariables": templates}))
    failures = run_checker(tmp_path, [{"package": "every_payload", "expected": str(expected)}])
    assert not failures, json.dumps(failures, indent=1)[:8000]
    result = mypy_strict(tmp_path, "-p", "every_payload")
    assert result.returncode == 0, result.stdout[-6000:]
    assert not MARKER.exists()


def _generate(tmp_path: Path, tools: list[dict[str, Any]], package: str, **extra: Any) -> Diagnostics:
    diagnostics = Diagnostics()
    files = generate_files(snapshot_of(tools, **extra), package_name=package, diagnostics=diagnostics)
    write_package(tmp_path / package, files, overwrite=True)
    return diagnostics


def _python(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )


def test_numbered_method_names_keep_their_models(tmp_path: Path) -> None:
    """README's own example: `get_sum` stays, `get-sum` becomes `get_sum_2`; `step_1` is a name of its own."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    tools = [{"name": name, "inputSchema": schema} for name in ("get_sum", "get-sum", "step_1")]
    diagnostics = _generate(tmp_path, tools, "numbered")
    assert not diagnostics.errors, [str(d) for d in diagnostics.errors]
    result = _python(
        tmp_path,
        "import numbered\n"
        "for spec in numbered.TOOLS.values():\n"
        "    assert spec.arguments_model(a=1).model_dump() == {'a': 1}, spec\n",
    )
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize(
    "other",
    [
        {"type": "object", "properties": {"GetArguments": {"type": "string"}}},
        {"type": "object", "properties": {"mode": {"type": "string", "enum": ["GetArguments", "x"]}}},
        {"type": "object", "properties": {"mode": {"type": "string", "default": "GetArguments"}}},
    ],
    ids=["property-name", "enum-value", "default"],
)
def test_a_name_shared_with_another_tools_class_keeps_both_models(tmp_path: Path, other: dict[str, Any]) -> None:
    tools = [
        {"name": "get", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}},
        {"name": "other", "inputSchema": other},
    ]
    diagnostics = _generate(tmp_path, tools, "shared_name")
    assert not diagnostics.errors
    result = _python(
        tmp_path,
        "import shared_name\nfor spec in shared_name.TOOLS.values():\n    spec.arguments_model.model_json_schema()\n",
    )
    assert result.returncode == 0, result.stderr[-2000:]


def _specs_server() -> MCPServer:
    server = MCPServer("specs-server", version="1")

    @server.tool()
    def echo(specs: str) -> str:
        return specs

    @server.prompt()
    def greet(specs: str) -> str:
        return f"hello {specs}"

    @server.resource("note://{specs}")
    def note(specs: str) -> str:
        return f"note {specs}"

    return server


@pytest.fixture
def specs_package(tmp_path: Path) -> Iterator[Any]:
    """A package generated from a server whose tool, prompt and template all take a `specs` argument."""
    import anyio

    snapshot = anyio.run(lambda: snapshot_server(_specs_server(), diagnostics=Diagnostics()))
    files = generate_files(snapshot, package_name="specs_clash", diagnostics=Diagnostics())
    write_package(tmp_path / "specs_clash", files, overwrite=True)
    with imported_package(tmp_path / "specs_clash") as package:
        yield package


@pytest.mark.parametrize("kind", ["tool", "prompt", "template"])
def test_a_parameter_named_specs_still_works(specs_package: Any, kind: str) -> None:
    import anyio

    async def call() -> str:
        async with McpClient(_specs_server(), mode="legacy", cache=None) as session:
            client = specs_package.AsyncClient.from_session(session)
            if kind == "tool":
                return str(await client.echo(specs="x"))
            if kind == "prompt":
                return str(await client.prompts.greet(specs="x"))
            return str(await client.resources.note(specs="x"))

    assert "x" in anyio.run(call)


def test_nested_properties_that_differ_only_after_nfkc_stay_apart(tmp_path: Path) -> None:
    nested = {
        "type": "object",
        "properties": {"\ufb01le": {"type": "integer"}, "file": {"type": "string"}},
        "required": ["\ufb01le", "file"],
    }
    tools = [{"name": "t", "inputSchema": {"type": "object", "properties": {"o": nested}, "required": ["o"]}}]
    _generate(tmp_path, tools, "nfkc")
    result = _python(
        tmp_path,
        "import nfkc\n"
        "model = nfkc.TOOLS['t'].arguments_model\n"
        "value = {'o': {'\\ufb01le': 1, 'file': 'x'}}\n"
        "assert model.model_validate(value).model_dump(by_alias=True, exclude_unset=True) == value\n",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    source = (tmp_path / "nfkc" / "models" / "t.py").read_text(encoding="utf-8")
    assert not non_ascii_identifiers(source)


def test_nested_model_prefixed_properties_import_without_warnings(tmp_path: Path) -> None:
    nested = {"type": "object", "properties": {"model_dump": {"type": "string"}, "model_validate": {"type": "string"}}}
    tools = [{"name": "t", "inputSchema": {"type": "object", "properties": {"o": nested}}}]
    _generate(tmp_path, tools, "protected")
    result = _python(tmp_path, "import protected\nprotected.TOOLS['t'].arguments_model.model_json_schema()\n")
    assert result.returncode == 0, result.stderr[-2000:]


def test_properties_named_like_pydantic_metaclass_methods_keep_their_parameters(tmp_path: Path) -> None:
    """`mro` and `register` are attributes of pydantic's metaclass: datamodel-code-generator renames such fields."""
    properties = {"mro": {"type": "string"}, "register": {"type": "string"}}
    nested = {"type": "object", "properties": properties}
    tools = [{"name": "t", "inputSchema": {"type": "object", "properties": {**properties, "o": nested}}}]
    diagnostics = _generate(tmp_path, tools, "metaclass_names")
    assert not diagnostics.errors, [str(d) for d in diagnostics.errors]
    result = _python(
        tmp_path,
        "import metaclass_names\n"
        "value = {'mro': 'a', 'register': 'b', 'o': {'mro': 'c', 'register': 'd'}}\n"
        "model = metaclass_names.TOOLS['t'].arguments_model\n"
        "assert model.model_validate(value).model_dump(by_alias=True, exclude_unset=True) == value\n",
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_tools_named_like_the_runtime_result_types_type_check(tmp_path: Path) -> None:
    """The result classes of `tool`, `prompt` and `resource` must not be `ToolResult`, `PromptResult` and
    `ResourceResult`, which the client and specs modules import from the runtime."""
    output = {"type": "object", "properties": {"x": {"type": "string"}}}
    names = ("tool", "prompt", "resource")
    tools = [{"name": name, "inputSchema": {"type": "object"}, "outputSchema": output} for name in names]
    diagnostics = _generate(tmp_path, tools, "result_names")
    assert not diagnostics.errors, [str(d) for d in diagnostics.errors]
    result = mypy_strict(tmp_path, "-p", "result_names")
    assert result.returncode == 0, result.stdout[-6000:]


def test_readme_cannot_be_broken_by_a_carriage_return() -> None:
    name = "x\r# Injected heading\r<img src=x onerror=alert(1)>\r"
    listing = snapshot_of(
        [{"name": name, "inputSchema": {"type": "object"}}],
        prompts=[{"name": name}],
        resources=[{"uri": name, "name": "r"}],
        capabilities={"tools": {}, "prompts": {}, "resources": {}},
    )
    files = generate_files(listing, package_name="readme_cr", diagnostics=Diagnostics())
    readme = files["README.md"].decode("utf-8")
    lines = re.split(r"\r\n|\r|\n", readme)
    assert not [line for line in lines if line.startswith("# Injected") or line.startswith("<img")]


def test_a_lowlevel_server_listing_payloads_round_trips_through_snapshot_server(tmp_path: Path) -> None:
    """Payloads that came over a real (in-memory) session, not a hand-built snapshot, stay data too."""
    import anyio

    payload_tools = [
        types.Tool(
            name=f"tool{index}",
            description=text,
            title=text,
            input_schema={
                "type": "object",
                "properties": {"p": {"type": "string", "enum": [text], "description": text}},
            },
        )
        for index, text in enumerate(adversarial.CODE_PAYLOADS)
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=payload_tools)

    server: Server[Any] = Server(
        adversarial.CODE_PAYLOADS[2], version=adversarial.CODE_PAYLOADS[3], on_list_tools=list_tools
    )
    snapshot = anyio.run(lambda: snapshot_server(server, diagnostics=Diagnostics()))
    listing = snapshot.as_json()
    files = generate_files(snapshot, package_name="wire_payloads", diagnostics=Diagnostics())
    check_files(listing, files)
    write_package(tmp_path / "wire_payloads", files, overwrite=True)
    expected = tmp_path / "wire.expected.json"
    expected.write_text(json.dumps({"listing": listing, "permissive": [], "templateVariables": {}}))
    assert not run_checker(tmp_path, [{"package": "wire_payloads", "expected": str(expected)}])
    assert not MARKER.exists()
