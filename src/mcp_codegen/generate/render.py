"""Stage 4: IR -> file texts, through the Jinja templates in `generate/templates/`.

Templates stay thin: signatures, docstrings and literals are computed by the filters below, which
are the only way server text reaches the output (see `pysource`).
"""

from __future__ import annotations

import ast
import os
import pprint
import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from mcp_codegen.generate import ir
from mcp_codegen.generate.models import ModelsOutput, names_in
from mcp_codegen.generate.naming import suffixed_class_names
from mcp_codegen.generate.pysource import comment_text, docstring, string_literal, toml_string
from mcp_codegen.inputs.options import templates_dir
from mcp_codegen.runtime import PACKAGE_EXPORTS, PACKAGE_LAZY_EXPORTS


def _template_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates, kept per user like .pyc files (compiling them is most of rendering a small package).
    Jinja checks each entry against its template's source; without a writable cache directory, compile every time."""
    try:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        directory = root / "mcp-codegen" / "templates"
        directory.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # RuntimeError: no home directory to be found
        return None
    return jinja2.FileSystemBytecodeCache(str(directory)) if os.access(directory, os.W_OK) else None


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        bytecode_cache=_template_cache(),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    environment.filters.update(
        pystr=_pystr,
        toml=toml_string,
        as_docstring=docstring,
        signature=_tool_signature,
        signature_md=lambda tool: _tool_signature(tool, with_self=False),
        tool_docstring=_tool_docstring,
        arguments_dict=_arguments_dict,
        forwarded_arguments=_forwarded_arguments,
        prompt_signature=_prompt_signature,
        prompt_signature_md=lambda prompt: _prompt_signature(prompt, with_self=False),
        prompt_docstring=_prompt_docstring,
        prompt_arguments_dict=_prompt_arguments_dict,
        resource_docstring=_resource_docstring,
        template_signature=_template_signature,
        template_docstring=_template_docstring,
        template_values_dict=_template_values_dict,
        md_code=_md_code,
        model_field_md=_model_field_md,
        md_text=_md_text,
    )
    return environment


_PACKAGE_SPEC_NAMES = ("INSTRUCTIONS", "PROMPTS", "RESOURCES", "SERVER_NAME", "SERVER_VERSION", "TEMPLATES", "TOOLS")


def _lazy_exports(spec: ir.ClientSpec, runtime: str) -> list[tuple[str, str]]:
    """What the package imports on first use, as (name, module relative to the package)."""
    lazy = sorted((name, f"{runtime}.{module}") for name, module in PACKAGE_LAZY_EXPORTS.items())
    return lazy + [(name, f".models.{module}") for name, module in spec.signature_models]


def _package_all(spec: ir.ClientSpec) -> list[str]:
    """The package's `__all__`: constants, then classes, then functions (each sorted), then its models."""

    def kind(name: str) -> int:
        return 0 if name.isupper() else 1 if name[0].isupper() else 2

    names = [*PACKAGE_EXPORTS, *PACKAGE_LAZY_EXPORTS, *_PACKAGE_SPEC_NAMES, "AsyncClient", "Client"]
    ordered = sorted(names, key=lambda name: (kind(name), name))
    return ["__generator_version__", *ordered, *(name for name, _module in spec.signature_models)]


def render_project(context: dict[str, Any]) -> dict[str, str]:
    """`--meta pyproject`: the project's own files (`pyproject.toml`, `README.md`) around the package."""
    environment = _environment()
    return {
        "pyproject.toml": environment.get_template("project/pyproject.toml.jinja").render(context),
        "README.md": environment.get_template("project/README.md.jinja").render(context),
    }


def render_package(
    spec: ir.ClientSpec, models: ModelsOutput, header: str, *, tool_prefix: str = "", shared_runtime: bool = False
) -> dict[str, str]:
    """Every generated Python and Markdown file of the package, by relative path (runtime excluded).

    `shared_runtime`: the package is a subpackage of an umbrella and imports the umbrella's `_runtime`.
    """
    environment = _environment()
    label = _server_label(spec)
    runtime = ".._runtime" if shared_runtime else "._runtime"
    context: dict[str, Any] = {"spec": spec, "header": header, "server_label": label, "runtime": runtime}
    files = {
        "__init__.py": environment.get_template("package_init.py.jinja").render(
            context,
            module_docstring=docstring(_package_description(spec), 0),
            runtime_exports=PACKAGE_EXPORTS,
            lazy_exports=_lazy_exports(spec, runtime),
            package_all=_package_all(spec),
        ),
        "client.py": environment.get_template("client.py.jinja").render(
            context,
            client_docstring=docstring(_client_description(spec, blocking=False), 4),
            sync_client_docstring=docstring(_client_description(spec, blocking=True), 4),
        ),
        "specs.py": environment.get_template("specs.py.jinja").render(
            context,
            spec_imports=_spec_imports(spec, models),
            launch_source=_literal(spec.launch),
            instructions_source=_text_literal(spec.instructions),
            tool_prefix=tool_prefix,
        ),
        "testing.py": environment.get_template("testing.py.jinja").render(
            context, spec_imports=_spec_imports(spec, models), **_testing_names(spec, models)
        ),
        "models/__init__.py": environment.get_template("models/package_init.py.jinja").render(
            context, exports=_exports(models)
        ),
        "README.md": environment.get_template("README.md.jinja").render(
            context,
            package_name=spec.package_name,
            generator_version=spec.generator_version,
            server_label_md=_md_text(label),
            tool_prefix=tool_prefix,
        ),
    }
    module_template = environment.get_template("models/module.py.jinja")
    for module, body in sorted(models.modules.items()):
        files[f"models/{module}.py"] = module_template.render(context, body=body)
    return files


def render_umbrella(spec: ir.UmbrellaSpec) -> dict[str, str]:
    """The umbrella package's own files: `__init__.py` (the `Toolkit`) and `README.md`."""
    environment = _environment()
    context: dict[str, Any] = {
        "spec": spec,
        "header": f"# @generated by mcp-codegen {spec.generator_version}. Do not edit.",
        "module_docstring": docstring(_umbrella_description(spec), 0),
    }
    return {
        "__init__.py": environment.get_template("umbrella/__init__.py.jinja").render(context),
        "README.md": environment.get_template("umbrella/README.md.jinja").render(context),
    }


def _umbrella_description(spec: ir.UmbrellaSpec) -> str:
    servers = ", ".join(f"{m.server_key} ({m.server_label})" for m in spec.members)
    return (
        f"Typed clients for {len(spec.members)} MCP servers, generated by mcp-codegen: {servers}.\n\n"
        "Each subpackage is one server's client; `Toolkit` connects to all of them at once."
    )


def _server_label(spec: ir.ClientSpec) -> str:
    return f"{spec.server_name} {spec.server_version}" if spec.server_version else spec.server_name


def _package_description(spec: ir.ClientSpec) -> str:
    # One line: the server's instructions are data (`INSTRUCTIONS`), not the package's documentation.
    return f"Typed client for the {_server_label(spec)} MCP server, generated by mcp-codegen."


def _client_description(spec: ir.ClientSpec, *, blocking: bool) -> str:
    what = "Blocking client" if blocking else "Async client"
    counts = [
        _count(len(spec.tools), "tool"),
        _count(len(spec.prompts), "prompt"),
        _count(len(spec.resources), "resource"),
        _count(len(spec.templates), "resource template"),
    ]
    return (
        f"{what} for the {_server_label(spec)} MCP server.\n\n"
        f"{', '.join(counts)}. One method per tool; `prompts` and `resources` hold the others."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _pystr(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return string_literal(value)
    raise TypeError(f"pystr takes str, bool or None, not {type(value).__name__}")


def _text_literal(value: str | None) -> str:
    """A string literal over several source lines (one per line of the text), for long server text."""
    if value is None:
        return "None"
    lines = value.splitlines(keepends=True)
    if len(lines) <= 1:
        return string_literal(value)
    return "(\n" + "".join(f"    {string_literal(line)}\n" for line in lines) + ")"


def _literal(value: Any) -> str:
    """A Python literal for JSON data (str reprs are escaped; checked by parsing it back)."""
    source = pprint.pformat(value, width=100, sort_dicts=True)
    if ast.literal_eval(source) != value:
        raise ValueError("launch spec does not round-trip as a literal")
    return source


def _parameter_source(parameter: ir.Parameter) -> str:
    if parameter.required:
        return f"{parameter.python_name}: {parameter.type_source}"
    return f"{parameter.python_name}: {parameter.type_source} | NotSent = NOT_SENT"


def _tool_signature(tool: ir.Tool, with_self: bool = True) -> str:
    parts = ["self"] if with_self else []
    if tool.permissive:
        parts.append("**arguments: Any")
    elif tool.parameters:
        parts.append("*")
        parts += [_parameter_source(p) for p in tool.parameters]
    return ", ".join(parts)


#: The errors every request can end with, after the call-specific ones (runtime/errors.py).
_REQUEST_RAISES = (
    ("RequestTimeoutError", "The server did not answer in time."),
    ("ConnectionClosedError", "The connection to the server is gone."),
)
#: Longest default shown in a docstring: defaults are server data, a long one would bury the line.
_DEFAULT_LIMIT = 60


def _argument_line(name: str, description: str | None, default: str | None) -> str | None:
    """One `Args:` line, or None when the server said nothing about the argument."""
    text = " ".join((description or "").split())
    if default is not None:
        default = _shortened(default)
        stop = "" if not text or text.endswith((".", "!", "?")) else "."
        text = f"{text}{stop} Default {default}, applied by the server when not sent.".lstrip()
    return f"    {name}: {text}" if text else None


def _args_section(lines: list[str | None]) -> list[str]:
    kept = [line for line in lines if line is not None]
    return ["", "Args:", *kept] if kept else []


def _raises_section(errors: list[tuple[str, str]]) -> list[str]:
    return ["", "Raises:", *(f"    {name}: {text}" for name, text in [*errors, *_REQUEST_RAISES])]


def _tool_docstring(tool: ir.Tool, indent: int) -> str:
    lines = [tool.description or tool.title or f"Call the `{tool.wire_name}` tool."]
    lines += _args_section([_argument_line(p.python_name, p.description, p.default) for p in tool.parameters])
    if tool.return_type != "ToolResult":
        lines += ["", "Returns:", f"    {tool.return_type}: The tool's structured result, validated."]
    errors = []
    if tool.parameters:
        errors.append(("ArgumentsValidationError", "The arguments do not match the tool's schema; nothing was sent."))
    errors.append(("ToolError", "The tool ran and reported failure (`isError`)."))
    if tool.result_class is not None:
        errors.append(("ResultValidationError", "The result does not match the tool's output schema."))
    errors.append(("ServerRequestError", "The server answered with a JSON-RPC error."))
    lines += _raises_section(errors)
    if tool.wire_name != tool.python_name:
        lines += ["", f"Wire name: {tool.wire_name}"]
    return docstring("\n".join(lines), indent)


def _arguments_dict(tool: ir.Tool) -> str:
    if tool.permissive:
        return "arguments"
    return "{" + ", ".join(f'"{p.python_name}": {p.python_name}' for p in tool.parameters) + "}"


def _forwarded_arguments(tool: ir.Tool) -> str:
    """`, a=a, b=b` after the method in `self._run(method...)`: empty for no parameters (no trailing comma,
    which the formatter would keep as a one-argument-per-line call)."""
    if tool.permissive:
        return ", **arguments"
    return "".join(f", {p.python_name}={p.python_name}" for p in tool.parameters)


def _prompt_signature(prompt: ir.Prompt, with_self: bool = True) -> str:
    parts = ["self"] if with_self else []
    if prompt.arguments:
        parts.append("*")
        for argument in prompt.arguments:
            suffix = "" if argument.required else " | NotSent = NOT_SENT"
            parts.append(f"{argument.python_name}: str{suffix}")
    return ", ".join(parts)


def _prompt_docstring(prompt: ir.Prompt, indent: int) -> str:
    lines = [prompt.description or prompt.title or f"Get the `{prompt.wire_name}` prompt."]
    lines += _args_section([_argument_line(a.python_name, a.description, None) for a in prompt.arguments])
    errors = []
    if prompt.arguments:
        errors.append(("ArgumentsValidationError", "A required argument is missing or not a string; nothing was sent."))
    errors.append(("PromptError", "The server answered with an error (unknown prompt, bad argument)."))
    lines += _raises_section(errors)
    if prompt.wire_name != prompt.python_name:
        lines += ["", f"Wire name: {prompt.wire_name}"]
    return docstring("\n".join(lines), indent)


def _prompt_arguments_dict(prompt: ir.Prompt) -> str:
    return "{" + ", ".join(f'"{a.python_name}": {a.python_name}' for a in prompt.arguments) + "}"


def _resource_docstring(resource: ir.Resource, indent: int) -> str:
    lines = [resource.description or f"Read the `{resource.name}` resource."]
    lines += ["", f"URI: {resource.uri}"] + ([f"MIME type: {resource.mime_type}"] if resource.mime_type else [])
    lines += _raises_section([("ResourceError", "The server answered with an error (for example: no such resource).")])
    return docstring("\n".join(lines), indent)


def _template_signature(template: ir.ResourceTemplate) -> str:
    if not template.variables:
        return "self"
    return ", ".join(["self", "*", *(f"{v.python_name}: str | int" for v in template.variables)])


def _template_docstring(template: ir.ResourceTemplate, indent: int) -> str:
    lines = [template.description or f"Read a `{template.name}` resource."]
    lines += ["", f"URI template: {template.uri_template}"]
    errors = []
    if template.variables:
        errors.append(
            ("ArgumentsValidationError", "A value is not a string, number or list of them; nothing was sent.")
        )
    errors.append(("ResourceError", "The server answered with an error (for example: no such resource)."))
    lines += _raises_section(errors)
    return docstring("\n".join(lines), indent)


def _template_values_dict(template: ir.ResourceTemplate) -> str:
    return "{" + ", ".join(f'"{v.python_name}": {v.python_name}' for v in template.variables) + "}"


def _spec_imports(spec: ir.ClientSpec, models: ModelsOutput) -> list[str]:
    names: set[str] = set()
    for tool in spec.tools:
        names |= {tool.arguments_class} | names_in(tool.return_type)
    return sorted(models.import_lines(names))


#: Names the testing module binds itself (its classes must not take them).
_TESTING_NAMES = frozenset(
    {"FakeCall", "FakeContext", "FakeError", "FakePrompts", "FakeResources", "FakeServer", "FakeServerBase",
     "FakeTools", "Literal", "NoVariables", "NotRequired", "PromptHook", "PromptHooks", "ResourceHook",
     "ResourceHooks", "TYPE_CHECKING", "ToolHook", "ToolHooks", "ToolResult", "TypedDict", "specs"}
)  # fmt: skip


def _testing_names(spec: ir.ClientSpec, models: ModelsOutput) -> dict[str, dict[str, str]]:
    """The testing module's typed-dict classes: a prompt's arguments, a template's variables."""
    taken = set(models.class_module) | _TESTING_NAMES
    prompt_classes = suffixed_class_names(
        [prompt.python_name for prompt in spec.prompts], "PromptArguments", taken=taken
    )
    taken |= set(prompt_classes.values())
    template_classes = suffixed_class_names(
        [template.python_name for template in spec.templates], "Variables", taken=taken
    )
    return {"prompt_classes": prompt_classes, "template_classes": template_classes}


def _exports(models: ModelsOutput) -> list[tuple[str, list[str]]]:
    by_module: dict[str, list[str]] = {}
    for name, module in sorted(models.class_module.items()):
        by_module.setdefault(module, []).append(name)
    return sorted(by_module.items())


def _model_field_md(field: ir.ModelField) -> str:
    """One README list item: `name: type = default` (the declaration), the wire name if other, the description."""
    declaration = f"{field.python_name}: {field.type_source}"
    if field.default is not None:
        declaration += f" = {_shortened(field.default)}"
    parts = [f"`{_md_code(declaration)}`"]
    if field.required:
        parts.append("(required)")
    if field.wire_name != field.python_name:
        parts.append(f"(wire name `{_md_code(field.wire_name)}`)")
    line = " ".join(parts)
    return f"{line}: {_md_text(field.description)}" if field.description else line


def _shortened(text: str) -> str:
    return text if len(text) <= _DEFAULT_LIMIT else text[: _DEFAULT_LIMIT - 3] + "..."


def _md_code(text: str) -> str:
    # Every line break str.splitlines knows (\r, \x85, \u2028...): some renderer ends a line at each.
    return " ".join(text.replace("`", "'").splitlines())


#: What makes a line start a heading, list, table, rule or code fence in Markdown: escaped when text starts with it.
_MD_BLOCK_START = re.compile(r"^(?:[#*+=|`~_-]|\d+(?=[.)]))")


def _md_text(text: str) -> str:
    # Markdown is documentation, not code, but keep it to one tidy paragraph without raw HTML; text may start a
    # line of the README, so a leading block marker (`# x` would be a heading) is escaped.
    # str.split() also splits at every line break str.splitlines knows.
    flat = " ".join(text.split())
    flat = re.sub(r"[<>]", lambda m: {"<": "&lt;", ">": "&gt;"}[m.group()], flat)
    marker = _MD_BLOCK_START.match(flat)
    if marker is None:
        return flat
    end = marker.end()
    return flat[:end] + "\\" + flat[end:] if marker.group()[0].isdigit() else "\\" + flat


#: Server names and versions shown as they are in the header comment; anything else is JSON-quoted.
_PLAIN_LABEL = re.compile(r"[A-Za-z0-9@._/+-]{1,100}")


def header_line(generator_version: str, server_name: str, server_version: str | None) -> str:
    server = " ".join(
        text if _PLAIN_LABEL.fullmatch(text) else comment_text(text)
        for text in (server_name, server_version)
        if text is not None
    )
    return f"# @generated by mcp-codegen {generator_version} from {server}. Do not edit."
