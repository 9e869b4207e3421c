"""The source of each generated method's parts: signatures, argument dicts and docstrings of tools, prompts,
resources and templates (the Jinja filters `render` registers; server text reaches them only through `pysource`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from mcp_codegen.generate import ir
from mcp_codegen.generate.models import names_in
from mcp_codegen.generate.pysource import docstring, string_literal
from mcp_codegen_runtime.text import shortened

EXTRA_ARGUMENTS = ir.EXTRA_ARGUMENTS
_EXTRA_ARGUMENTS_LINE = "Arguments beyond the listed ones, by wire name, sent as given (the schema allows them)."


def _parameter_source(parameter: ir.Parameter, model_names: frozenset[str]) -> str:
    type_source = qualified(parameter.type_source, model_names)
    if parameter.required:
        return f"{parameter.python_name}: {type_source}"
    return f"{parameter.python_name}: {type_source} | NotSent = NOT_SENT"


def tool_signature(tool: ir.Tool, model_names: frozenset[str] = frozenset(), with_self: bool = True) -> str:
    """The parameters of a tool's method; `model_names` are written `models.Name` (see `qualified`)."""
    parts = ["self"] if with_self else []
    if tool.permissive:
        parts.append("**arguments: Any")
    elif tool.parameters or tool.extra_arguments:
        parts.append("*")
        parts += [_parameter_source(p, model_names) for p in tool.parameters]
        if tool.extra_arguments:
            parts.append(f"{EXTRA_ARGUMENTS}: Mapping[str, object] | None = None")
    return ", ".join(parts)


class _QualifiedNames(ast.NodeTransformer):
    def __init__(self, model_names: frozenset[str]) -> None:
        self.model_names = model_names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.model_names:
            return ast.Attribute(ast.Name("models", ast.Load()), node.id, ast.Load())
        return node


def qualified(type_source: str, model_names: frozenset[str]) -> str:
    """`list[Note] | None` -> `list[models.Note] | None` for the client module.

    The client imports the `models` package (a few lines: each model module loads on first use), so a plain
    import stays cheap, and `typing.get_type_hints()` still resolves every annotation at run time: it reads
    `models.Note` from the module's globals, and the attribute imports the tool's module.
    """
    if not model_names & names_in(type_source):
        return type_source
    return ast.unparse(_QualifiedNames(model_names).visit(ast.parse(type_source, mode="eval")))


#: What the methods may raise, said once in the client classes' docstrings (and docs/reference/generated-package.md)
#: instead of in each method's: (error, when). The runtime's errors (`mcp_codegen_runtime.calls.errors`).
CLIENT_RAISES = (
    (
        "ArgumentsValidationError",
        "The arguments do not match the tool's (prompt's, template's) schema; nothing was sent.",
    ),
    ("ToolError", "The tool ran and reported failure (`isError`)."),
    ("ResultValidationError", "The result does not match the tool's output schema."),
    ("ServerRequestError", "The server answered with a JSON-RPC error (or refused to start a task)."),
    ("PromptError", "A prompt's server answered with an error (unknown prompt, bad argument)."),
    ("ResourceError", "A resource's server answered with an error (for example: no such resource)."),
    ("RequestTimeoutError", "The server did not answer in time."),
    (
        "ConnectionClosedError",
        "The connection failed and retrying could not help (`OutcomeUnknownError`: it may have run).",
    ),
)
#: Longest default shown in a docstring: defaults are server data, a long one would bury the line.
DEFAULT_LIMIT = 60


#: How descriptions state a default ("Defaults to HEAD", "(default: 10)", "Default is css", "When false
#: (default)", "by default"): then the line does not state it a second time.
_STATES_DEFAULT = re.compile(r"\bdefaults?\b\s*(?:to\b|is\b|[:=),])|\(\s*default\b|\bby default\b", re.IGNORECASE)


def _argument_line(name: str, description: str | None, default: str | None) -> str | None:
    """One `Args:` line, or None when the server said nothing about the argument."""
    text = " ".join((description or "").split())
    if default is not None and not _STATES_DEFAULT.search(text):
        default = shortened(default, DEFAULT_LIMIT, "...")  # generated text stays ASCII
        stop = "" if not text or text.endswith((".", "!", "?")) else "."
        text = f"{text}{stop} Default {default}, applied by the server when not sent.".lstrip()
    return f"    {name}: {text}" if text else None


def _args_section(lines: list[str | None]) -> list[str]:
    kept = [line for line in lines if line is not None]
    return ["", "Args:", *kept] if kept else []


def raises_section() -> str:
    """The `Raises:` section of the client classes' docstrings: what every method may raise."""
    return "\n".join(["Raises:", *(f"    {name}: {text}" for name, text in CLIENT_RAISES)])


#: What a method's docstring says of a tool the server runs as an MCP task (its `execution.taskSupport`).
_TASK_LINES = {
    "required": (
        "Runs as an MCP task: the call waits for the task's result (its timeout covers the whole wait);"
        " `client.tasks.{method}()` returns a handle instead."
    ),
    "optional": "The server may run it as an MCP task; `client.tasks.{method}()` returns a handle to follow.",
}


def _ui_line(tool: ir.Tool) -> str | None:
    """What the docstring says of an MCP Apps tool: app-only (hidden from models) or with a UI."""
    if tool.app_only:
        return "App-only (MCP Apps): its UI calls it; agent tools leave it out."
    if tool.ui_resource_uri is not None:
        return "Has an MCP Apps UI: `client.read_ui()` reads it."
    return None


def tool_docstring(tool: ir.Tool, indent: int) -> str:
    lines = [tool.description or tool.title or f"Call the `{tool.wire_name}` tool."]
    task_line = _TASK_LINES.get(tool.task_support or "")
    if task_line is not None:
        lines += ["", task_line.format(method=tool.task_method)]
    ui_line = _ui_line(tool)
    if ui_line is not None:
        lines += ["", ui_line]
    lines += _tool_args_section(tool)
    if tool.observed:
        what = "The result typed from its recorded answers (the tool declares no schema); ObservedResultError if not"
        lines += ["", "Returns:", f"    {tool.return_type}: {what}."]
    elif tool.return_type != "ToolResult":
        lines += ["", "Returns:", f"    {tool.return_type}: The tool's structured result, validated."]
    return _named_docstring(lines, tool.wire_name, tool.python_name, indent)


def _tool_args_section(tool: ir.Tool) -> list[str]:
    arguments = [_argument_line(p.python_name, p.description, p.default) for p in tool.parameters]
    if tool.extra_arguments:
        arguments.append(f"    {EXTRA_ARGUMENTS}: {_EXTRA_ARGUMENTS_LINE}")
    return _args_section(arguments)


def task_docstring(tool: ir.Tool, indent: int) -> str:
    """The docstring of a tool's method in `client.tasks`: what it starts and what its handle gives."""
    lines = [
        f"Start `{tool.wire_name}` as an MCP task and return its handle at once (the server may run it at once).",
        "",
        f"`result()` returns what `client.{tool.python_name}()` returns; keep `id` to `client.tasks.resume()` it"
        " later, from any connection or process.",
        *_tool_args_section(tool),
    ]
    return _named_docstring(lines, tool.wire_name, tool.python_name, indent)


def tool_call_arguments(tool: ir.Tool) -> str:
    """What a tool's method hands `_call_tool` after its spec: `{"wireName": wire_name}` keyed by the wire names
    (server text, written as string literals), and `extra=extra_arguments` where the method takes them."""
    if tool.permissive:
        return "arguments"
    values = "{" + ", ".join(f"{string_literal(p.wire_name)}: {p.python_name}" for p in tool.parameters) + "}"
    return f"{values}, extra={EXTRA_ARGUMENTS}" if tool.extra_arguments else values


def forwarded_arguments(tool: ir.Tool) -> str:
    """`, a=a, b=b` after the method in `self._run(method...)`: empty for no parameters (no trailing comma,
    which the formatter would keep as a one-argument-per-line call)."""
    if tool.permissive:
        return ", **arguments"
    names = [p.python_name for p in tool.parameters] + ([EXTRA_ARGUMENTS] if tool.extra_arguments else [])
    return "".join(f", {name}={name}" for name in names)


def prompt_signature(prompt: ir.Prompt, with_self: bool = True) -> str:
    parts = ["self"] if with_self else []
    if prompt.arguments:
        parts.append("*")
        for argument in prompt.arguments:
            suffix = "" if argument.required else " | NotSent = NOT_SENT"
            parts.append(f"{argument.python_name}: str{suffix}")
    return ", ".join(parts)


def prompt_docstring(prompt: ir.Prompt, indent: int) -> str:
    lines = [prompt.description or prompt.title or f"Get the `{prompt.wire_name}` prompt."]
    lines += _args_section([_argument_line(a.python_name, a.description, None) for a in prompt.arguments])
    return _named_docstring(lines, prompt.wire_name, prompt.python_name, indent)


def _named_docstring(lines: list[str], wire_name: str, python_name: str, indent: int) -> str:
    """`lines` and the wire name where the Python name differs from it, as a docstring (what the method may
    raise is in the client class's docstring: `raises_section`)."""
    if wire_name != python_name:
        lines += ["", f"Wire name: {wire_name}"]
    return docstring("\n".join(lines), indent)


def prompt_arguments_dict(prompt: ir.Prompt) -> str:
    return _names_dict(a.python_name for a in prompt.arguments)


def resource_docstring(resource: ir.Resource, indent: int) -> str:
    lines = [resource.description or f"Read the `{resource.name}` resource."]
    lines += ["", f"URI: {resource.uri}"] + ([f"MIME type: {resource.mime_type}"] if resource.mime_type else [])
    return docstring("\n".join(lines), indent)


def template_signature(template: ir.ResourceTemplate) -> str:
    if not template.variables:
        return "self"
    return ", ".join(["self", "*", *(f"{v.python_name}: str | int" for v in template.variables)])


def template_docstring(template: ir.ResourceTemplate, indent: int) -> str:
    lines = [template.description or f"Read a `{template.name}` resource."]
    lines += ["", f"URI template: {template.uri_template}"]
    return docstring("\n".join(lines), indent)


def template_values_dict(template: ir.ResourceTemplate) -> str:
    return _names_dict(v.python_name for v in template.variables)


def _names_dict(names: Iterable[str]) -> str:
    """`{"a": a, "b": b}`: a method's keyword parameters as the dict it sends, keyed by their Python names."""
    return "{" + ", ".join(f'"{name}": {name}' for name in names) + "}"
