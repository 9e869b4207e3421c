"""What a generated package shows its user: method names that never shadow the runtime, the tool prefix
chosen at generation, exported models, and docstrings (defaults, `Raises:`, instructions)."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import generate_into, imported_package, mypy_strict, snapshot_of
from mcp.server.mcpserver import MCPServer

import mcp_codegen_runtime
from mcp_codegen.demo.server import build_server
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.snapshot.fetch import snapshot_server
from mcp_codegen_runtime import (
    AsyncClientBase,
    AsyncPromptsBase,
    AsyncResourcesBase,
    SyncClientBase,
    SyncPromptsBase,
    SyncResourcesBase,
)

ROOT = Path(__file__).resolve().parents[2]


def _public(*classes: type) -> set[str]:
    return {name for cls in classes for name in dir(cls) if not name.startswith("_")}


def _snapshot(server: Any) -> Any:
    async def take() -> Any:
        return await snapshot_server(server, diagnostics=Diagnostics())

    return anyio.run(take)


def _echo_tool(name: str) -> Any:
    def tool() -> str:
        return name

    return tool


def test_tools_named_after_every_client_member_keep_the_members_intact(tmp_path: Path) -> None:
    members = _public(AsyncClientBase, SyncClientBase) | {"prompts", "resources"}
    assert {"ping", "closed", "instructions", "call_raw", "in_process", "from_async"} <= members
    server = MCPServer("shadow", version="1.0.0")
    for member in sorted(members):
        server.add_tool(_echo_tool(member), name=member, description=f"A tool named {member}.")
    diagnostics = generate_into(tmp_path, _snapshot(server), "shadow_client")
    assert not diagnostics.errors

    checked = mypy_strict(tmp_path, "shadow_client")
    assert checked.returncode == 0, checked.stdout + checked.stderr

    with imported_package(tmp_path / "shadow_client") as package:
        python_names = {spec.name: spec.python_name for spec in package.TOOLS.values()}
        assert set(python_names) == members
        assert not set(python_names.values()) & members
        runtime = mcp_codegen_runtime  # the package's own copy of the runtime
        for cls, base in ((package.AsyncClient, runtime.AsyncClientBase), (package.Client, runtime.SyncClientBase)):
            for member in _public(base):
                assert inspect.getattr_static(cls, member) is inspect.getattr_static(base, member), member

        async def main() -> None:
            async with package.AsyncClient.in_process(server) as client:
                await client.ping(timeout=10)  # what Toolkit.health calls
                assert client.closed is False
                for wire, python in sorted(python_names.items()):
                    assert await getattr(client, python)() == wire

        anyio.run(main)
        with package.Client.in_process(server) as client:
            assert client.ping_() == "ping"
            assert client.instructions_() == "instructions"


def test_namespace_methods_never_shadow_their_bases() -> None:
    from mcp_codegen.generate.class_members import class_members

    assert (
        _public(AsyncPromptsBase, AsyncResourcesBase, SyncPromptsBase, SyncResourcesBase)
        <= class_members().namespaces
    )


def test_tool_prefix_from_the_command_line_names_the_agent_tools(tmp_path: Path) -> None:
    snapshot_file = tmp_path / "demo.json"
    snapshot_file.write_text(_snapshot(build_server()).to_text(), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate", "--snapshot", str(snapshot_file), "-o",
         str(tmp_path / "prefixed_demo"), "--tool-prefix", "x_", "-q"],
        capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    with imported_package(tmp_path / "prefixed_demo") as package:
        server = build_server()
        with package.Client.in_process(server) as client:
            names = client.tools().names
            assert names and all(name.startswith("x_") for name in names)
            assert "x_add" in names
            assert client.tools(prefix="").names == [name.removeprefix("x_") for name in names]

        async def main() -> None:
            async with package.AsyncClient.in_process(server) as client:
                assert "x_add" in client.tools().names  # hands the tools out (to a model) under their names
                [message] = await client.handle_openai_tool_calls(
                    [{"id": "1", "function": {"name": "x_add", "arguments": '{"a": 2, "b": 3}'}}]
                )
                assert message["content"] == "5"

        anyio.run(main)


NESTED = snapshot_of(
    [
        {
            "name": "create-order",
            "description": "Create an order.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "item": {"$ref": "#/$defs/Item", "description": "What to order."},
                    "address": {
                        "type": "object",
                        "description": "Where to send it.",
                        "properties": {
                            "street": {"type": "string", "description": "Street and number."},
                            "zip": {"type": "string", "default": "00000"},
                        },
                        "required": ["street"],
                    },
                    "count": {"type": "integer", "default": 3, "description": "How many"},
                    "note": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}, "default": ["x" * 30] * 5},
                },
                "required": ["item"],
                "$defs": {
                    "Item": {
                        "type": "object",
                        "properties": {"sku": {"type": "string", "description": "Stock unit."}},
                        "required": ["sku"],
                    }
                },
            },
            "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
        {"name": "reset", "description": "Reset.", "inputSchema": {"type": "object"}},
        {  # method `connect_`, class prefix `Connect`: its `$defs` Error must not become `ConnectError`
            "name": "connect",
            "inputSchema": {
                "type": "object",
                "properties": {"error": {"$ref": "#/$defs/Error"}},
                "$defs": {"Error": {"type": "object", "properties": {"code": {"type": "integer"}}}},
            },
        },
    ],
    instructions='Use create-order first.\nThen """ reset """ \\ when done.',
)


@pytest.fixture(scope="module")
def nested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("surface")
    diagnostics = generate_into(directory, NESTED, "nested_client")
    assert not diagnostics.errors
    return directory / "nested_client"


def _method_docstring(package: Path, class_name: str, method: str) -> str:
    tree = ast.parse((package / "client.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == method:
                    docstring = ast.get_docstring(item)
                    assert docstring is not None
                    return docstring
    raise AssertionError(f"{class_name}.{method} not found")


def test_docstrings_show_defaults_raises_and_only_useful_wire_names(nested: Path) -> None:
    for class_name in ("AsyncClient", "Client"):
        doc = _method_docstring(nested, class_name, "create_order")
        assert "    count: How many. Default 3, applied by the server when not sent." in doc
        [tags] = [line for line in doc.splitlines() if line.strip().startswith("tags:")]
        assert tags.endswith("..., applied by the server when not sent.") and len(tags) < 120
        assert "note:" not in doc and "(no description)" not in doc
        assert "Raises:" not in doc  # said once, in the class docstring
        assert "Wire name: create-order" in doc
        reset = _method_docstring(nested, class_name, "reset")
        assert "Wire name" not in reset and "Raises:" not in reset
        [client] = [n for n in ast.parse((nested / "client.py").read_text()).body if getattr(n, "name", "") == class_name]
        raises = (ast.get_docstring(client) or "").split("Raises:\n", 1)[1]
        assert [line.split(":")[0].strip() for line in raises.splitlines()] == [
            "ArgumentsValidationError",
            "ToolError",
            "ResultValidationError",
            "ServerRequestError",
            "PromptError",
            "ResourceError",
            "RequestTimeoutError",
            "ConnectionClosedError",
        ]


def test_no_argument_sync_methods_fit_on_one_line(nested: Path) -> None:
    assert "        return self._run(self._async.reset)\n" in (nested / "client.py").read_text(encoding="utf-8")


def test_instructions_are_a_constant_not_the_package_docstring(nested: Path) -> None:
    init = ast.parse((nested / "__init__.py").read_text(encoding="utf-8"))
    docstring = ast.get_docstring(init)
    assert docstring is not None and "\n" not in docstring and "create-order" not in docstring
    with imported_package(nested) as package:
        assert package.INSTRUCTIONS == NESTED.instructions
        assert "INSTRUCTIONS" in package.__all__


def test_header_line_is_plain_for_plain_names_and_quoted_otherwise() -> None:
    from mcp_codegen.generate.render import header_line

    # No version: a release that changes only the runtime leaves every file but `__init__.py` as it was.
    assert header_line("my-server", "2.0.0") == "# @generated by mcp-codegen from my-server 2.0.0. Do not edit."
    hostile = header_line("evil\nimport os", None)
    assert "\n" not in hostile and '"evil\\nimport os"' in hostile


def test_nested_argument_models_are_exported_lazily_and_typed(nested: Path) -> None:
    (nested.parent / "use_models.py").write_text(
        "from nested_client import Client, ConnectError, CreateOrderArgumentsAddress, CreateOrderItem\n"
        "from nested_client.models import CreateOrderItem as SameItem\n\n\n"
        "def order(client: Client) -> str:\n"
        "    item: SameItem = CreateOrderItem(sku='a')\n"
        "    return client.create_order(item=item, address=CreateOrderArgumentsAddress(street='Main 1')).id\n\n\n"
        "def failed(error: ConnectError) -> str:\n"
        "    return str(error)\n",
        encoding="utf-8",
    )
    checked = mypy_strict(nested.parent, "nested_client", "use_models.py")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with imported_package(nested) as package:
        assert "nested_client.models.create_order" not in sys.modules  # imported on first use only
        assert package.CreateOrderItem is package.models.CreateOrderItem
        assert "nested_client.models.create_order" in sys.modules
        assert {"CreateOrderItem", "CreateOrderArgumentsAddress", "CreateOrderResult"} <= set(package.__all__)
        assert issubclass(package.ConnectError, package.McpClientError)  # the runtime's, not a model
        [error_model] = [name for name in package.__all__ if name.startswith("ConnectError") and name != "ConnectError"]
        assert "code" in getattr(package, error_model).model_fields  # the `$defs` Error, renamed
        with pytest.raises(AttributeError):
            _ = package.NoSuchModel


def test_readme_lists_the_fields_of_argument_models(nested: Path) -> None:
    readme = (nested / "README.md").read_text(encoding="utf-8")
    models = readme.split("## Argument models", 1)[1]
    assert "### `CreateOrderItem`\n- `sku: str` (required): Stock unit." in models
    assert (
        "### `CreateOrderArgumentsAddress`\n- `street: str` (required): Street and number.\n- `zip: str = '00000'`"
        in models
    )
    assert "nested_client.INSTRUCTIONS" in readme


def test_the_names_the_package_binds_are_the_ones_models_may_not_take(nested: Path) -> None:
    from mcp_codegen.generate.build_ir import PACKAGE_NAMES

    tree = ast.parse((nested / "__init__.py").read_text(encoding="utf-8"))
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            bound |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            bound |= {alias.asname or alias.name for alias in node.names}
    with imported_package(nested) as package:
        models = set(package._LAZY)
    assert {name for name in bound - models if not name.startswith("_")} <= PACKAGE_NAMES


def test_hostile_defaults_stay_inside_the_docstring(tmp_path: Path) -> None:
    hostile = '"""\nimport os\nos.system("x")\n\u2028"""' + "\\" * 3 + "x" * 60
    snapshot = snapshot_of(
        [
            {
                "name": "tool_with_default",
                "inputSchema": {
                    "type": "object",
                    "properties": {"mode": {"type": "string", "default": hostile, "description": 'Mode """'}},
                },
            }
        ]
    )
    generate_into(tmp_path, snapshot, "hostile_default")
    source = (tmp_path / "hostile_default" / "client.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import) and node.names[0].name == "os"]
    doc = _method_docstring(tmp_path / "hostile_default", "AsyncClient", "tool_with_default")
    [line] = [line for line in doc.splitlines() if line.strip().startswith("mode:")]
    assert line.endswith("..., applied by the server when not sent.")
    shown = line.strip().removeprefix('mode: Mode """. Default ').removesuffix("..., applied by the server when not sent.")
    assert shown and repr(hostile).startswith(shown) and repr(hostile)[len(shown)] == " "  # cut between words


def test_tool_prefix_from_a_config_file_names_the_agent_tools(tmp_path: Path) -> None:
    from mcp_codegen.generate.pipeline import generate_files
    from mcp_codegen.inputs.config import load_config, resolve_server
    from mcp_codegen.output.write import write_package

    (tmp_path / "mcp-codegen.toml").write_text(
        '[servers.demo]\ncommand = "python"\nargs = ["-m", "mcp_codegen.demo"]\ntool_prefix = "d_"\n'
    )
    _launch, options, _package = resolve_server(load_config(tmp_path / "mcp-codegen.toml"), "demo")
    files = generate_files(
        _snapshot(build_server()), package_name="config_demo", diagnostics=Diagnostics(), options=options
    )
    write_package(tmp_path / "config_demo", files, overwrite=True)
    with imported_package(tmp_path / "config_demo") as package:
        with package.Client.in_process(build_server()) as client:
            names = client.tools().names
    assert names and all(name.startswith("d_") for name in names)


def test_the_package_re_exports_every_runtime_export(nested: Path) -> None:
    """Handlers and per-call options are typed from the package itself (`from pkg import Accept, CallOptions`)."""
    import mcp_codegen_runtime as runtime

    with imported_package(nested) as package:
        for name in runtime.PACKAGE_EXPORTS:
            assert getattr(package, name) is getattr(mcp_codegen_runtime, name), name
            assert name in package.__all__
        assert package.Accept({"x": 1}).content == {"x": 1}
        lazy = [name for name in runtime.PACKAGE_LAZY_EXPORTS if name in package.__all__]
        assert lazy == list(runtime.PACKAGE_LAZY_EXPORTS)
        assert package.oauth is mcp_codegen_runtime.auth.oauth
        # The docs' `from pkg import TOOLS, ToolSet`: unbound definitions without a connection.
        assert package.ToolSet is mcp_codegen_runtime.agents.ToolSet
        assert package.ToolSet.from_specs(package.TOOLS.values()).to_anthropic()
    assert all(hasattr(runtime, name) for name in runtime.PACKAGE_EXPORTS)
    # OAuth and the agent tools are imported on first use, not by a plain import of the package.
    code = f"import sys, {nested.name}; print(sorted(m for m in sys.modules if m.startswith(('mcp_codegen_runtime.auth', 'mcp_codegen_runtime.agents'))))"
    loaded = subprocess.run([sys.executable, "-c", code], cwd=nested.parent, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
    assert runtime.ToolSet is runtime.agents.ToolSet


def test_the_package_names_the_generator_version(nested: Path) -> None:
    from mcp_codegen import __version__

    with imported_package(nested) as package:
        assert package.__generator_version__ == __version__
        assert "__generator_version__" in package.__all__
    init = (nested / "__init__.py").read_text(encoding="utf-8")
    assert init.count(__version__) == 1 and f'__generator_version__ = "{__version__}"' in init


def test_a_server_with_nothing_listed_still_generates_every_module(tmp_path: Path) -> None:
    """The conformance harness's `initialize` server lists nothing: every template must still make valid Python."""
    generate_into(tmp_path, snapshot_of([]), "empty_client")
    for path in sorted((tmp_path / "empty_client").rglob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    with imported_package(tmp_path / "empty_client") as package:
        assert importlib.import_module(f"{package.__name__}.testing").FakeServer


def test_the_readme_says_what_a_fake_handler_may_return(nested: Path) -> None:
    readme = (nested / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if "raise to answer `isError`" in line)
    assert "a ToolResult or a list of content blocks" in line, line
    assert "ToolResult (or a ToolResult" not in line and "(or a ToolResult, content blocks)" not in line
