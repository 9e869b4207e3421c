"""MCP Apps on the real PDF server (`@modelcontextprotocol/server-pdf` 2.0.4, npm, over stdio, offline): its six
app-only tools reach no model through any converter, `client.tools()`, a `Toolkit` or the `handle_*` methods (a
model's call to one is refused as an unknown tool's), typed methods still call them, and `read_ui` reads the
viewer's HTML and CSP. Catalogs without `_meta.ui` convert byte for byte as before.

The listing is the one generated_examples/pdf_client was generated from (scripts/regen_examples.py, from the
pinned copy in tests/servers/pdf); `pdf_pkg` is generated from it afresh (conftest.py).
"""

from __future__ import annotations

import base64
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import mcp
import pytest
from helpers import generate_into
from mcp.server.mcpserver import MCPServer

import mcp_codegen_runtime

DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"
SERVERS = Path(__file__).resolve().parents[1] / "servers"
APP_ONLY = {
    "poll_pdf_commands",
    "read_pdf_bytes",
    "save_pdf",
    "submit_page_data",
    "submit_save_data",
    "submit_viewer_state",
}
FOR_MODELS = {"display_pdf", "interact", "list_pdfs"}
VIEWER = "ui://pdf-viewer/mcp-app.html"


@pytest.fixture(scope="module")
def tiny_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pdfs") / "tiny.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
    return path


@pytest.fixture(scope="module")
def pdf_command(tiny_pdf: Path) -> list[str]:
    """The pinned PDF server over stdio, allowed to serve one local file (it reaches no network unasked)."""
    sys.path.insert(0, str(SERVERS))
    try:
        import install
    finally:
        sys.path.remove(str(SERVERS))
    return [*install.pdf_server_command(), str(tiny_pdf)]


@pytest.fixture(scope="module")
def pdf_client(pdf_pkg: ModuleType, pdf_command: list[str]) -> Iterator[Any]:
    """A blocking client of the real PDF server, shared by the module's tests."""
    with pdf_pkg.Client.stdio(pdf_command[0], pdf_command[1:], stderr="discard", timeout=60) as client:
        yield client


# ------------------------------------------------------------------------------------------- the specs


def test_specs_carry_the_ui_metadata_listed(pdf_pkg: ModuleType) -> None:
    runtime = mcp_codegen_runtime
    viewer = pdf_pkg.TOOLS["display_pdf"]
    assert viewer.ui == runtime.ToolUI(resource_uri=VIEWER, visibility=("model", "app"))
    assert viewer.model_visible
    for name in APP_ONLY:
        spec = pdf_pkg.TOOLS[name]
        assert spec.ui == runtime.ToolUI(resource_uri=None, visibility=("app",)), name
        assert spec.ui.app_only and not spec.model_visible
    assert pdf_pkg.TOOLS["interact"].ui is None and pdf_pkg.TOOLS["interact"].model_visible


def test_docstrings_say_app_only_or_has_a_ui(pdf_pkg: ModuleType) -> None:
    for client in (pdf_pkg.AsyncClient, pdf_pkg.Client):
        assert "App-only (MCP Apps)" in client.save_pdf.__doc__
        assert "Has an MCP Apps UI" in client.display_pdf.__doc__
        assert "MCP Apps" not in client.list_pdfs.__doc__


def test_the_agent_skill_leaves_app_only_tools_out() -> None:
    """`generate --cli`: SKILL.md (read by agents) lists only the tools for models; the command line has them all."""
    from mcp_codegen.diagnostics import Diagnostics
    from mcp_codegen.generate.pipeline import generate_files
    from mcp_codegen.inputs.options import GenerateOptions
    from mcp_codegen.snapshot.model import read_snapshot

    snapshot = read_snapshot(EXAMPLES / "pdf_client" / "snapshot.json")
    files = generate_files(
        snapshot, package_name="pdf_cli", diagnostics=Diagnostics(), options=GenerateOptions(cli=True)
    )
    skill, main = files["SKILL.md"].decode(), files["__main__.py"].decode()
    assert all(f"`{name}`" in skill for name in FOR_MODELS)
    assert not [name for name in APP_ONLY if name in skill]
    assert "3 tools" in skill
    assert all(f'"{name}"' in main for name in APP_ONLY)


# ------------------------------------------------------------------------------- kept from every model


def _names(toolset: Any) -> dict[str, set[str]]:
    """The tool names each converter offers a model."""
    config = toolset.to_claude_agent_sdk("pdf")

    async def claude_listing() -> Any:
        async with mcp.Client(config["instance"], mode="legacy", cache=None) as session:
            return await session.list_tools()

    return {
        "openai": {tool["function"]["name"] for tool in toolset.to_openai()},
        "openai_strict": {tool["function"]["name"] for tool in toolset.to_openai(strict="auto")},
        "openai_responses": {tool["name"] for tool in toolset.to_openai_responses()},
        "anthropic": {tool["name"] for tool in toolset.to_anthropic()},
        "langchain": {tool.name for tool in toolset.to_langchain()},
        "pydantic_ai": set(toolset.to_pydantic_ai().tools),
        "openai_agents": {tool.name for tool in toolset.to_openai_agents()},
        "claude_agent_sdk": {tool.name for tool in anyio.run(claude_listing).tools},
        "claude_allowed_tools": {name.removeprefix("mcp__pdf__") for name in toolset.claude_allowed_tools("pdf")},
        "adk": {tool.name for tool in anyio.run(toolset.to_adk().get_tools)},
        "llama_index": {tool.metadata.name for tool in toolset.to_llama_index()},
        "smolagents": {tool.name for tool in toolset.to_smolagents()},
    }


def test_no_app_only_tool_in_any_converters_output(pdf_pkg: ModuleType, pdf_client: Any) -> None:
    unbound = mcp_codegen_runtime.ToolSet.from_specs(pdf_pkg.TOOLS.values())
    assert set(unbound) == FOR_MODELS
    for toolset, prefix in (
        (unbound.bind(pdf_client), ""),
        (pdf_client.tools(), ""),
        (pdf_client.tools(include="*", prefix="p_"), "p_"),
    ):
        offered = _names(toolset)
        assert offered == dict.fromkeys(offered, {prefix + name for name in FOR_MODELS})
    # The filters of `include=` cannot bring one back.
    assert set(pdf_client.tools(include=["save_pdf", "list_pdfs"])) == {"list_pdfs"}


def test_the_async_client_and_a_toolkit_leave_them_out(pdf_pkg: ModuleType, pdf_command: list[str]) -> None:
    runtime = mcp_codegen_runtime

    toolkit = importlib.import_module("mcp_codegen_runtime.client.toolkit")

    class Kit(toolkit.ToolkitBase):  # type: ignore[misc]
        CLIENTS = {"pdf": pdf_pkg.AsyncClient}

    def connector() -> Any:
        return pdf_pkg.AsyncClient.stdio(pdf_command[0], pdf_command[1:], stderr="discard", timeout=60)

    async def main() -> tuple[set[str], set[str], set[str]]:
        async with pdf_pkg.AsyncClient.stdio(pdf_command[0], pdf_command[1:], stderr="discard") as client:
            direct = set(client.tools())
        async with Kit(connectors={"pdf": connector}, lazy=True) as lazy_kit:
            lazy = set(lazy_kit.tools())  # from the snapshot: the server is not connected yet
        async with Kit(connectors={"pdf": connector}) as kit:
            connected = set(kit.tools())
        return direct, lazy, connected

    direct, lazy, connected = anyio.run(main)
    assert direct == FOR_MODELS
    assert lazy == connected == {f"mcp__pdf__{name}" for name in FOR_MODELS}


def _openai_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_a_models_call_to_an_app_only_tool_is_refused_as_unknown(pdf_client: Any, tiny_pdf: Path) -> None:
    arguments = {"url": str(tiny_pdf), "byteCount": 16}
    chat = [_openai_call("1", "read_pdf_bytes", arguments), _openai_call("2", "no_such_tool", arguments)]
    responses = [
        {"type": "function_call", "call_id": str(i), "name": name, "arguments": json.dumps(arguments)}
        for i, name in enumerate(["read_pdf_bytes", "no_such_tool"])
    ]
    anthropic = [
        {"type": "tool_use", "id": str(i), "name": name, "input": arguments}
        for i, name in enumerate(["read_pdf_bytes", "no_such_tool"])
    ]

    def refusals(run: Callable[[Any], Any]) -> list[str]:
        answered = [
            *(m["content"] for m in run(lambda owner: owner.handle_openai_tool_calls(chat))),
            *(m["output"] for m in run(lambda owner: owner.handle_openai_responses_calls(responses))),
        ]
        blocks = run(lambda owner: owner.handle_anthropic_tool_use(anthropic))
        assert all(block["is_error"] for block in blocks)
        answered += [block["content"][0]["text"] for block in blocks]
        return answered

    def on_client(handle: Callable[[Any], Any]) -> Any:
        return handle(pdf_client)

    toolset = pdf_client.tools()

    def on_toolset(handle: Callable[[Any], Any]) -> Any:
        async def main() -> Any:
            return await handle(toolset)

        return anyio.run(main)

    # The client (which has handed out `tools()` by now) and a ToolSet's own handlers: refused as unknown.
    for run in (on_client, on_toolset):
        answered = refusals(run)
        assert answered[0::2] == [text.replace("no_such_tool", "read_pdf_bytes") for text in answered[1::2]]
        assert answered[0] == "Error: unknown tool 'read_pdf_bytes'"
    assert "save_pdf" not in toolset and toolset.find("save_pdf") is None
    with pytest.raises(KeyError):
        toolset["save_pdf"]


def test_the_claude_agent_sdk_server_refuses_an_app_only_tool(pdf_client: Any) -> None:
    config = pdf_client.tools().to_claude_agent_sdk("pdf")

    async def main() -> tuple[Any, Any]:
        async with mcp.Client(config["instance"], mode="legacy", cache=None) as session:
            hidden = await session.call_tool("save_pdf", {"url": "x.pdf", "data": ""})
            unknown = await session.call_tool("no_such_tool", {})
            return hidden, unknown

    hidden, unknown = anyio.run(main)
    assert hidden.is_error and unknown.is_error
    assert hidden.content[0].text == unknown.content[0].text.replace("no_such_tool", "save_pdf")


def test_typed_methods_still_call_app_only_tools(pdf_client: Any, tiny_pdf: Path) -> None:
    result = pdf_client.read_pdf_bytes(url=str(tiny_pdf), byte_count=8)
    assert base64.b64decode(result.bytes_) == tiny_pdf.read_bytes()[:8]
    assert result.has_more is True
    by_name = pdf_client.call("read_pdf_bytes", {"url": str(tiny_pdf), "offset": 8, "byteCount": 8})
    assert base64.b64decode(by_name.bytes_) == tiny_pdf.read_bytes()[8:16]


# ------------------------------------------------------------------------------------------------ read_ui


def test_read_ui_returns_the_viewers_html_and_csp(pdf_pkg: ModuleType, pdf_client: Any) -> None:
    runtime = mcp_codegen_runtime
    ui = pdf_client.read_ui("display_pdf")
    assert ui.uri == VIEWER
    assert ui.mime_type == "text/html;profile=mcp-app"
    assert ui.html.lstrip().lower().startswith("<!doctype html>") and "</html>" in ui.html
    assert ui.csp == runtime.UICsp(connect_domains=("https://unpkg.com",), resource_domains=("https://unpkg.com",))
    assert ui.permissions == runtime.UIPermissions(clipboard_write=True)
    assert ui.prefers_border is None and ui.domain is None
    assert ui.meta == ui.result.contents[0].meta["ui"]
    # By spec too (a spec of this package, or the same tool's wire name).
    assert pdf_client.read_ui(pdf_pkg.TOOLS["display_pdf"]).html == ui.html


def test_read_ui_of_a_tool_without_one_says_so(pdf_pkg: ModuleType, pdf_client: Any) -> None:
    runtime = mcp_codegen_runtime
    with pytest.raises(runtime.NoUIError, match="'list_pdfs' has no MCP Apps UI"):
        pdf_client.read_ui("list_pdfs")
    with pytest.raises(runtime.UnknownToolError, match="did you mean 'display_pdf'"):
        pdf_client.read_ui("display_pfd")


# ---------------------------------------------- the deprecated flat key, and every CSP field, on an SDK server


def _apps_server() -> MCPServer:
    server = MCPServer("apps")

    @server.tool(name="show-chart", meta={"ui/resourceUri": "ui://charts/app.html"})
    def show_chart(series: str) -> str:
        """Show a chart."""
        return series

    @server.tool(name="refresh-chart", meta={"ui": {"resourceUri": "ui://charts/app.html", "visibility": ["app"]}})
    def refresh_chart() -> str:
        """Called by the chart's UI."""
        return "fresh"

    ui_meta = {
        "ui": {
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://cdn.example.com"],
                "frameDomains": ["https://embed.example.com"],
                "baseUriDomains": ["https://example.com"],
            },
            "permissions": {"camera": {}, "microphone": {}},
            "prefersBorder": True,
            "domain": "charts.example.com",
        }
    }

    @server.resource("ui://charts/app.html", mime_type="text/html;profile=mcp-app", meta=ui_meta)
    def chart_app() -> str:
        return "<!doctype html><p>chart</p>"

    return server


@pytest.fixture(scope="module")
def apps_pkg(agent_packages_dir: Path) -> ModuleType:
    from helpers import snapshot_of

    async def listing() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with mcp.Client(_apps_server(), mode="legacy", cache=None) as session:
            tools = (await session.list_tools()).tools
            resources = (await session.list_resources()).resources
        dump: Callable[[Any], dict[str, Any]] = lambda item: item.model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
        return [dump(tool) for tool in tools], [dump(resource) for resource in resources]

    tools, resources = anyio.run(listing)
    generate_into(agent_packages_dir, snapshot_of(tools, resources=resources), "agents_apps_client")
    if str(agent_packages_dir) not in sys.path:
        sys.path.insert(0, str(agent_packages_dir))
    import agents_apps_client

    return agents_apps_client


def test_the_deprecated_flat_key_and_every_resource_field(apps_pkg: ModuleType) -> None:
    runtime = mcp_codegen_runtime
    assert apps_pkg.TOOLS["show-chart"].ui == runtime.ToolUI(resource_uri="ui://charts/app.html")
    assert apps_pkg.TOOLS["refresh-chart"].ui == runtime.ToolUI("ui://charts/app.html", ("app",))

    async def main() -> tuple[Any, set[str], list[dict[str, Any]]]:
        async with apps_pkg.AsyncClient.in_process(_apps_server()) as client:
            ui = await client.read_ui("show_chart")  # the Python name; the wire name reads the same
            assert (await client.read_ui("show-chart")).html == ui.html
            refused = await client.handle_anthropic_tool_use(
                [{"type": "tool_use", "id": "1", "name": "refresh-chart", "input": {}}]
            )
            return ui, set(client.tools()), refused

    ui, offered, refused = anyio.run(main)
    assert offered == {"show-chart"}
    assert refused[0]["is_error"]
    assert ui.html == "<!doctype html><p>chart</p>" and ui.mime_type == "text/html;profile=mcp-app"
    assert ui.csp == runtime.UICsp(
        connect_domains=("https://api.example.com",),
        resource_domains=("https://cdn.example.com",),
        frame_domains=("https://embed.example.com",),
        base_uri_domains=("https://example.com",),
    )
    assert ui.permissions == runtime.UIPermissions(camera=True, microphone=True)
    assert ui.prefers_border is True and ui.domain == "charts.example.com"
    # Typed methods of an app-only tool still call it.
    assert apps_pkg.TOOLS["refresh-chart"].python_name == "refresh_chart"


# --------------------------------------------------------------------- catalogs without `_meta.ui`: unchanged


@pytest.mark.parametrize("example", ["everything_client", "demo_client"])
def test_definitions_without_ui_metadata_are_byte_identical(
    example: str, everything_pkg: ModuleType, demo_pkg: ModuleType
) -> None:
    """The definitions every converter family builds on, as the generated examples gave them before MCP Apps."""
    pkg = {"everything_client": everything_pkg, "demo_client": demo_pkg}[example]
    tools = mcp_codegen_runtime.ToolSet.from_specs(pkg.TOOLS.values())
    now = {
        "to_openai": tools.to_openai(),
        "to_openai_strict_auto": tools.to_openai(strict="auto"),
        "to_openai_responses": tools.to_openai_responses(),
        "to_anthropic": tools.to_anthropic(),
    }
    before = json.loads((DATA / "definitions_before_mcp_apps.json").read_text(encoding="utf-8"))[example]
    assert json.dumps(now, indent=1, ensure_ascii=False) == json.dumps(before, indent=1, ensure_ascii=False)
    assert all(spec.ui is None for spec in pkg.TOOLS.values())
