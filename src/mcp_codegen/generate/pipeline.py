"""The whole generator as one function: snapshot -> files (bytes by relative path).

Data flows one way through one module per stage:
snapshot (`snapshot.model`) -> plans and IR (`build_ir`) -> models (`tool_models`, per tool) and templates
(`render`) -> formatted (`formatting`) -> written (`write`, by the caller).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mcp_codegen import __version__
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import UsageError
from mcp_codegen.generate import ir
from mcp_codegen.generate.build_ir import ToolIR, ToolPlan, build_client_spec, plan_tools
from mcp_codegen.generate.cache import ServerResults
from mcp_codegen.generate.cli_table import cli_commands
from mcp_codegen.generate.code_api import CODE_API_FILE
from mcp_codegen.generate.code_api_pieces import code_api_file
from mcp_codegen.generate.fingerprint import generator_fingerprint, input_hash
from mcp_codegen.generate.formatting import format_python, open_stores
from mcp_codegen.generate.ir_cache import open_store as open_ir_store
from mcp_codegen.generate.ir_cache import tool_irs
from mcp_codegen.generate.manifest import MANIFEST, manifest_bytes
from mcp_codegen.generate.models import ModelsOutput
from mcp_codegen.generate.observed_models import with_observed_bases
from mcp_codegen.generate.project import project_files, project_version
from mcp_codegen.generate.render import header_line, render_cli, render_package, render_server
from mcp_codegen.generate.snapshot_text import snapshot_text as snapshot_text_of
from mcp_codegen.generate.tool_models import tool_models
from mcp_codegen.inputs.options import GenerateOptions, validate_package_name
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen_runtime.agents.search_index import (
    INDEX_FILE,
    TermCounts,
    count_index,
    document_from_listing,
    document_terms,
    index_json,
)


def generate_files(
    snapshot: Snapshot,
    *,
    package_name: str,
    diagnostics: Diagnostics,
    options: GenerateOptions | None = None,
    handlers: HandlersFile | None = None,
) -> dict[str, bytes]:
    """Every file of the package (bytes by relative path). With `options.server`, a server package: the
    client package goes to `_generated/`, and `handlers` (the user's `handlers.py`: its text when it exists)
    gets the typed stubs to create when it does not."""
    options = options or GenerateOptions()
    validate_package_name(package_name)
    # The manifest records only what generating from the snapshot says (so `verify`, offline, finds the same
    # manifest); warnings of the connection that took the snapshot stay in the caller's `diagnostics`.
    caller_diagnostics, diagnostics = diagnostics, Diagnostics()
    if options.tool_prefix and not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", options.tool_prefix):
        raise UsageError("--tool-prefix may only hold letters, digits, '_' and '-' (at most 40)")
    # Generate from the snapshot exactly as its file reads back (sorted keys), so a live run and an
    # offline run from the embedded snapshot write the same bytes. A snapshot read from a file is that already
    # (JSON read back from its canonical text is the same data): its text is made while the models are.
    snapshot_texts: list[str] = []
    if not snapshot.read_from_text():
        snapshot_texts.append(snapshot_text_of(snapshot))
        snapshot = snapshot.read_back(snapshot_texts[0])
    plans = plan_tools(snapshot, diagnostics, options.selection)
    # The IR of the tools whose models are cached is built while the model generator makes the others', and the
    # search index (the listing's text only) is counted then too.
    irs: dict[str, ToolIR] = {}
    index_texts: list[str] = []
    ir_stores: list[ServerResults | None] = []
    stores_opened: list[bool] = []

    def ir_store() -> ServerResults | None:
        """The cached IR, read on first use: once the model generator has the tools to make (~40 ms for 344)."""
        if not ir_stores:
            ir_stores.append(open_ir_store(snapshot.server_name))
        return ir_stores[0]

    def while_waiting(cached: Sequence[ToolPlan], cached_models: ModelsOutput) -> None:
        if not snapshot_texts:
            snapshot_texts.append(snapshot_text_of(snapshot))
        if not index_texts:
            index_texts.append(search_index(plans, snapshot.server_name))
        irs.update(zip((plan.wire_name for plan in cached), tool_irs(cached, cached_models, ir_store()), strict=True))
        if not stores_opened:  # called again as the workers answer: the store is read once
            open_stores(snapshot.server_name, options.formatting())
            stores_opened.append(True)

    models = with_observed_bases(
        tool_models(plans, diagnostics, server=snapshot.server_name, while_waiting=while_waiting), plans
    )
    snapshot_text = snapshot_texts[0] if snapshot_texts else snapshot_text_of(snapshot)
    rest = [plan for plan in plans if plan.wire_name not in irs]
    irs.update(zip((plan.wire_name for plan in rest), tool_irs(rest, models, ir_store()), strict=True))
    if (store := ir_store()) is not None:
        store.close()
    client_name = SERVER_CLIENT_PACKAGE if options.server else package_name
    spec = build_client_spec(
        snapshot,
        plans,
        models,
        package_name=client_name,
        diagnostics=diagnostics,
        tool_irs=[irs[plan.wire_name] for plan in plans],
        server_key=package_name,
    )
    header = header_line(snapshot.server_name, snapshot.server_version)
    rendered = render_package(
        spec,
        models,
        header,
        tool_prefix=options.tool_prefix,
        shared_runtime=options.shared_runtime,
        cli=options.cli,
        server=snapshot.server_name,
    )
    if options.cli:
        schemas = {plan.wire_name: plan.raw.get("inputSchema") for plan in plans}
        commands = cli_commands(spec.tools, schemas)
        rendered |= render_cli(
            spec, commands, header, shared_runtime=options.shared_runtime, parent_package=options.parent_package
        )
    listings = {plan.wire_name: plan.raw for plan in plans}
    keys = {plan.wire_name: plan.prepared_key for plan in plans}
    rendered[CODE_API_FILE] = code_api_file(spec, listings, header, keys, snapshot.server_name, diagnostics)
    texts = format_python(rendered, options.formatting(), server=snapshot.server_name)
    files = {path: text.encode("utf-8") for path, text in texts.items()}
    files["snapshot.json"] = snapshot_text.encode("utf-8")
    files[INDEX_FILE] = (index_texts[0] if index_texts else search_index(plans, snapshot.server_name)).encode("utf-8")
    files["py.typed"] = b""
    if options.server:
        files = _server_package(files, spec, models, header, package_name, handlers, options)
    if options.meta == "pyproject":
        version = project_version(snapshot, options.package_version, diagnostics)
        files = project_files(files, snapshot, package_name, version)
    files[MANIFEST] = manifest_bytes(
        files, input_hash(snapshot, package_name, options), __version__, diagnostics, options.as_json()
    )
    caller_diagnostics.extend(diagnostics)
    return dict(sorted(files.items()))


def search_index(plans: Sequence[ToolPlan], server: str = "") -> str:
    """The text of the package's tool-search index (`runtime.agents.search_index`), from the generated tools'
    listings: what `ToolSet.search()` reads instead of indexing the tools at run time. Each tool's term counts
    are cached under a digest of its indexed text, so a regeneration counts only the tools that changed."""

    def title(raw: dict[str, object]) -> object:
        annotations = raw.get("annotations")
        return raw.get("title") or (annotations.get("title") if isinstance(annotations, dict) else None)

    documents = [
        document_from_listing(
            plan.wire_name,
            title(plan.raw),
            plan.description_override or plan.raw.get("description"),
            plan.raw.get("inputSchema"),
        )
        for plan in plans
    ]
    store = ServerResults.open("search-terms", generator_fingerprint(), server, _valid_terms) if server else None
    counts: list[TermCounts] = []
    for document in documents:
        key = hashlib.sha256("\0".join(document.fields().values()).encode()).hexdigest()
        cached = store.get(key) if store is not None else None
        counted: TermCounts = cached["fields"] if cached is not None else document_terms(document)
        if store is not None:
            store.use(key, {"fields": counted}, made=cached is None)
        counts.append(counted)
    if store is not None:
        store.close()
    return index_json(count_index(documents, counts))


def _valid_terms(result: dict[str, object]) -> bool:
    return isinstance(result["fields"], dict)


#: The client package inside a server package (`generate --server`): its models, specs and typed fake server.
SERVER_CLIENT_PACKAGE = "_generated"


@dataclass
class HandlersFile:
    """The user's `handlers.py` of a server package: `existing` text (None: not there yet), `stubs` to create.

    `handlers.py` is the user's: it is not in the manifest, and regenerating never rewrites it."""

    existing: str | None = None
    stubs: bytes | None = None


def _server_package(
    client: dict[str, bytes],
    spec: ir.ClientSpec,
    models: ModelsOutput,
    header: str,
    package_name: str,
    handlers: HandlersFile | None,
    options: GenerateOptions,
) -> dict[str, bytes]:
    generated, handlers_text = render_server(spec, models, header, package_name)
    texts = format_python({**generated, "handlers.py": handlers_text}, options.formatting())
    files = {f"{SERVER_CLIENT_PACKAGE}/{path}": data for path, data in client.items()}
    files |= {path: text.encode("utf-8") for path, text in texts.items() if path != "handlers.py"}
    files["py.typed"] = b""
    if handlers is not None and handlers.existing is None:
        handlers.stubs = texts["handlers.py"].encode("utf-8")
    return files
