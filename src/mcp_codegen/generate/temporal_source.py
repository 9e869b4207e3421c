"""The `temporal.py` module of a package: what its template needs beyond the client's (activity names, docstrings)."""

from __future__ import annotations

from typing import Any

import jinja2

from mcp_codegen.generate import ir
from mcp_codegen.generate.pysource import docstring, string_literal
from mcp_codegen.runtime.durable.names import listing_activity, tool_activity


def temporal_module(template: jinja2.Template, context: dict[str, Any]) -> str:
    """`temporal.py` from the client module's `context` (`spec`, `typing_names`, `spec_imports`, ...)."""
    return template.render(context, **temporal_context(context["spec"], context["typing_names"]))


def temporal_context(spec: ir.ClientSpec, typing_names: list[str]) -> dict[str, Any]:
    """The template's names: typing imports, and per tool (by Python name) its method's docstring."""
    docstrings = {}
    for tool in spec.tools:
        text = tool.description or tool.title or f"The `{tool.wire_name}` tool."
        if tool.repeatable:
            safety = "Safe to repeat (read-only or idempotent): Temporal retries it with backoff."
        else:
            safety = (
                "Not safe to repeat: tried once; `ToolMayHaveRunError` (non-retryable) when the attempt may "
                "have run on the server."
            )
        docstrings[tool.python_name] = docstring(
            f"{text}\n\nActivity `{tool_activity(spec.server_name, tool.wire_name)}`. {safety}", 8
        )
    listings = ", ".join(f"`{listing_activity(spec.server_name, kind)}`" for kind in ("tools", "resources", "prompts"))
    return {
        "temporal_typing_names": sorted({*typing_names, "TYPE_CHECKING", "Any", "ClassVar"}),
        "temporal_docstrings": docstrings,
        "server_name_source": string_literal(spec.server_name),
        "module_docstring_source": docstring(
            f"Temporal activities and typed workflow calls for the {spec.server_name} MCP server (the `temporal` "
            "extra).\n\n"
            "`activities()` are what a worker registers (one per tool, named `mcp:<server>:tool:<wire name>`, "
            f"and the listings {listings}); `Tools(start_to_close_timeout=...)` calls them from workflow code, "
            "one typed method per tool, retried by Temporal only when the tool is safe to repeat. Import it in "
            "a workflow module through `workflow.unsafe.imports_passed_through()`, and give the Temporal client "
            "`temporalio.contrib.pydantic.pydantic_data_converter`.",
            0,
        ),
    }
