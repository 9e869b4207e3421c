"""The `temporal.py` module of a package: what its template needs beyond the client module's context."""

from __future__ import annotations

from typing import Any

from mcp_codegen.generate import ir
from mcp_codegen.generate.models import names_in
from mcp_codegen.generate.pysource import docstring
from mcp_codegen_runtime.durable.names import LISTINGS, listing_activity


def temporal_context(context: dict[str, Any]) -> dict[str, Any]:
    """The client module's `context` (`spec`, `typing_names`, `spec_imports`, ...) with what `temporal.py` adds: its
    typing imports and its docstring (the methods are pieces, `pieces/temporal_method.py.jinja`)."""
    spec: ir.ClientSpec = context["spec"]
    listings = ", ".join(f"`{listing_activity(spec.server_key, kind)}`" for kind in LISTINGS)
    # Only what the methods use: with `--formatter none` nothing removes an unused import.
    # The client module's typing names (`render._client_type_imports`), `Any` only where a method names it.
    typing_names = set(context["typing_names"]) - {"Any"} | {"TYPE_CHECKING", "Final"}
    if any(tool.permissive or _uses_any(tool) for tool in spec.tools):
        typing_names.add("Any")
    optional = any(not parameter.required for tool in spec.tools for parameter in tool.parameters)
    runtime_names = [*(["NOT_SENT", "NotSent"] if optional else [])]
    runtime_names += ["ToolResult"] if any("ToolResult" in names_in(tool.return_type) for tool in spec.tools) else []
    return {
        **context,
        "temporal_typing_names": sorted(typing_names),
        "temporal_runtime_names": runtime_names,
        "temporal_uses_mapping": any(tool.extra_arguments for tool in spec.tools),
        "module_docstring_source": docstring(
            f"Temporal activities and typed workflow calls for the {spec.server_name} MCP server (the `temporal` "
            "extra).\n\n"
            f"`activities()` are what a worker registers (one per tool, named `mcp:{spec.server_key}:tool:<wire "
            f"name>`, and the listings {listings}); `Tools(start_to_close_timeout=...)` calls them from workflow code, "
            "one typed method per tool, retried by Temporal only when the tool is safe to repeat. Import it in "
            "a workflow module through `workflow.unsafe.imports_passed_through()`, and give the Temporal client "
            "`temporalio.contrib.pydantic.pydantic_data_converter`.",
            0,
        ),
    }


def _uses_any(tool: ir.Tool) -> bool:
    """The tool's method names `Any` (a parameter or result typed `dict[str, Any]`, ...)."""
    sources = [tool.return_type, *(parameter.type_source for parameter in tool.parameters)]
    return any("Any" in names_in(source) for source in sources)
