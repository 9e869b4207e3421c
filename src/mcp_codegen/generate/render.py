"""Stage 4: IR -> file texts, through the Jinja templates in `generate/templates/`.

Templates stay thin: signatures, docstrings and literals are computed by the filters below, which
are the only way server text reaches the output (see `pysource`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import pprint
import re
from collections.abc import Collection, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from mcp_codegen.generate import ir
from mcp_codegen.generate.cli_table import table_source
from mcp_codegen.generate.fingerprint import templates_dir
from mcp_codegen.generate.launch_variables import launch_variables
from mcp_codegen.generate.markdown import argument_model_sections, md_code, md_text
from mcp_codegen.generate.method_source import (
    forwarded_arguments,
    prompt_arguments_dict,
    prompt_docstring,
    prompt_signature,
    qualified,
    raises_section,
    resource_docstring,
    task_docstring,
    template_docstring,
    template_signature,
    template_values_dict,
    tool_call_arguments,
    tool_docstring,
    tool_signature,
)
from mcp_codegen.generate.models import ModelsOutput, names_in
from mcp_codegen.generate.naming import suffixed_class_names
from mcp_codegen.generate.pieces import Piece, PieceFile, slot_line
from mcp_codegen.generate.pysource import comment_text, docstring, string_literal, toml_string
from mcp_codegen.generate.skill import example_tool, skill_context
from mcp_codegen.generate.temporal_source import temporal_context
from mcp_codegen_runtime import PACKAGE_EXPORTS, PACKAGE_LAZY_EXPORTS, runtime_window
from mcp_codegen_runtime.command_line.table import Command


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
        signature=tool_signature,
        signature_md=lambda tool: tool_signature(tool, with_self=False),
        qualified=qualified,
        tool_docstring=tool_docstring,
        task_docstring=task_docstring,
        tool_call_arguments=tool_call_arguments,
        forwarded_arguments=forwarded_arguments,
        prompt_signature=prompt_signature,
        prompt_signature_md=lambda prompt: prompt_signature(prompt, with_self=False),
        prompt_docstring=prompt_docstring,
        prompt_arguments_dict=prompt_arguments_dict,
        resource_docstring=resource_docstring,
        template_signature=template_signature,
        template_docstring=template_docstring,
        template_values_dict=template_values_dict,
        md_code=md_code,
        md_text=md_text,
    )
    return environment


_PACKAGE_SPEC_NAMES = ("INSTRUCTIONS", "PROMPTS", "RESOURCES", "SERVER_NAME", "SERVER_VERSION", "TEMPLATES", "TOOLS")


#: The runtime every generated package imports (the distribution mcp-codegen-runtime), by its public names only.
RUNTIME_PACKAGE = "mcp_codegen_runtime"


def _lazy_exports(spec: ir.ClientSpec) -> list[tuple[str, str]]:
    """What the package imports on first use, as (name, module: the runtime's, or relative to the package)."""
    lazy = sorted((name, RUNTIME_PACKAGE) for name in PACKAGE_LAZY_EXPORTS)
    return lazy + [(name, f".models.{module}") for name, module in spec.signature_models]


def _package_all(spec: ir.ClientSpec) -> list[str]:
    """The package's `__all__`: constants, then classes, then functions (each sorted), then its models."""

    def kind(name: str) -> int:
        return 0 if name.isupper() else 1 if name[0].isupper() else 2

    names = [*PACKAGE_EXPORTS, *PACKAGE_LAZY_EXPORTS, *_PACKAGE_SPEC_NAMES, "AsyncClient", "Client"]
    ordered = sorted(names, key=lambda name: (kind(name), name))
    return ["__generator_version__", *ordered, *(name for name, _module in spec.signature_models)]


def render_server(
    spec: ir.ClientSpec, models: ModelsOutput, header: str, package_name: str
) -> tuple[dict[str, str], str]:
    """`generate --server`: the generated modules of a server package around the client package
    (`_generated/`), and the text of `handlers.py`, the user's module (written once, never again)."""
    environment = _environment()
    label = _server_label(spec)
    context: dict[str, Any] = {"spec": spec, "header": header, "package_name": package_name}
    generated = {
        "__init__.py": environment.get_template("server/package_init.py.jinja").render(
            context,
            module_docstring=docstring(
                f"A typed MCP server for {label}, generated by mcp-codegen: implement its tools in `handlers.py`.", 0
            ),
        ),
        "server.py": environment.get_template("server/server.py.jinja").render(context),
        "__main__.py": environment.get_template("server/main.py.jinja").render(context),
    }
    names: set[str] = set()
    for tool in spec.tools:
        names |= {tool.arguments_class} | names_in(tool.return_type)
    imports = sorted(line.replace("from .models.", "from ._generated.models.") for line in models.import_lines(names))
    stubs = _skeleton_stubs(spec, _testing_names(spec, models))
    handlers = environment.get_template("server/handlers.py.jinja").render(
        context,
        module_docstring=docstring(
            f"Your implementation of the {label} tools: mcp-codegen created this file once and never rewrites it.\n\n"
            "Each handler receives the tool's arguments model and returns its result (the model, the value, or a "
            "`ToolResult`); raising answers an error result. A resource's handler receives the URI's variables "
            "(`NoVariables` for a static resource) and a prompt's its arguments; both return text (or contents, "
            "messages). Run the server with `python -m "
            f"{package_name}`.",
            0,
        ),
        handler_imports=imports,
        tool_result_used=any(tool.return_type == "ToolResult" for tool in spec.tools),
        handler_docstrings={
            tool.python_name: docstring(tool.description or tool.title or f"The `{tool.wire_name}` tool.", 8)
            for tool in spec.tools
        },
        stubs=stubs,
        stub_classes=sorted({stub["variables"] for stub in stubs}),
    )
    return generated, handlers


def _skeleton_stubs(spec: ir.ClientSpec, classes: dict[str, dict[str, str]]) -> list[dict[str, str]]:
    """The resource and prompt stubs of `handlers.py`: hook, function name (distinct from the tools'), the
    typed dict it receives, its docstring."""
    taken = {tool.python_name for tool in spec.tools}

    def function_name(base: str) -> str:
        name, count = base, 1
        while name in taken:
            count += 1
            name = f"{base}_{count}"
        taken.add(name)
        return name

    # (hook group, function prefix, python name, typed dict, description or fallback)
    rows = [
        *(("resources", "read", r.python_name, "NoVariables", r.description or f"The `{r.uri}` resource.")
          for r in spec.resources),
        *(("resources", "read", t.python_name, classes["template_classes"][t.python_name],
           t.description or f"The `{t.uri_template}` resource template.") for t in spec.templates),
        *(("prompts", "prompt", p.python_name, classes["prompt_classes"][p.python_name],
           p.description or f"The `{p.wire_name}` prompt.") for p in spec.prompts),
    ]  # fmt: skip
    stubs = [
        {
            "hook": f"{group}.{name}",
            "function": function_name(f"{prefix}_{name}"),
            "variables": variables,
            "docstring": docstring(text, 8),
        }
        for group, prefix, name, variables, text in rows
    ]
    return stubs


#: What a generated package may import at run time beyond the standard library (module -> its distribution): the
#: runtime always, pydantic in its models. The README says which (a test reads every module's imports against it).
RUNTIME_IMPORTS = {"mcp_codegen_runtime": "mcp-codegen-runtime", "pydantic": "pydantic"}


def _runtime_imports_md(models: ModelsOutput) -> str:
    """The README's sentence on what the package imports at run time (pydantic only in model modules)."""
    named = [
        f"`{module}`" + (f" (the `{distribution}` distribution)" if distribution != module else "")
        for module, distribution in RUNTIME_IMPORTS.items()
        if module != "pydantic" or models.modules
    ]
    return (
        f"At run time it imports {' and '.join(named)}, nothing else: the runtime brings the MCP SDK (`mcp`), and"
        " `__init__.py` checks the runtime's version."
    )


#: How the README says why a listing is missing (`ClientSpec.not_listed`).
_NOT_LISTED_WORDS = {
    "failed": "answered with an error",
    "timed-out": "did not answer in time",
    "skipped": "was skipped (`--skip`)",
}


def render_project(context: dict[str, Any]) -> dict[str, str]:
    """`--meta pyproject`: the project's own files (`pyproject.toml`, `README.md`) around the package."""
    environment = _environment()
    return {
        "pyproject.toml": environment.get_template("project/pyproject.toml.jinja").render(context),
        "README.md": environment.get_template("project/README.md.jinja").render(context),
    }


def render_package(
    spec: ir.ClientSpec,
    models: ModelsOutput,
    header: str,
    *,
    tool_prefix: str = "",
    shared_runtime: bool = False,
    cli: bool = False,
    server: str = "",
) -> dict[str, str | PieceFile]:
    """Every generated Python and Markdown file of the package, by relative path (runtime excluded); the client
    and specs modules as their pieces (`pieces.py`).

    `shared_runtime`: the package is a subpackage of an umbrella (both import the one installed runtime).
    `server`: the name the README's cached sections are kept under (none: not kept).
    """
    environment = _environment()
    label = _server_label(spec)
    context: dict[str, Any] = {"spec": spec, "header": header, "server_label": label, "runtime": RUNTIME_PACKAGE}
    model_names = frozenset(name for name, _module in spec.signature_models)
    pieces = _tool_pieces(spec.tools, model_names)
    spec_imports = _spec_imports(spec, models)
    client_context = {**context, "model_names": model_names, **_client_type_imports(spec)}
    files: dict[str, str | PieceFile] = {
        "__init__.py": environment.get_template("package_init.py.jinja").render(
            context,
            module_docstring=docstring(_package_description(spec), 0),
            runtime_exports=PACKAGE_EXPORTS,
            lazy_exports=_lazy_exports(spec),
            runtime_window=runtime_window(spec.generator_version),
            package_all=_package_all(spec),
        ),
        "client.py": _piece_file(
            environment.get_template("client.py.jinja"),
            {
                **client_context,
                "client_docstring": docstring(_client_description(spec, blocking=False), 4),
                "sync_client_docstring": docstring(_client_description(spec, blocking=True), 4),
            },
            # In the order the template places them.
            {
                "async_tool_methods": pieces["async_tool_method"],
                "async_task_methods": pieces["async_task_method"],
                "sync_tool_methods": pieces["sync_tool_method"],
                "sync_task_methods": pieces["sync_task_method"],
            },
        ),
        "specs.py": _piece_file(
            environment.get_template("specs.py.jinja"),
            {
                **context,
                "spec_imports": spec_imports,
                "launch_source": _literal(spec.launch),
                "instructions_source": _text_literal(spec.instructions),
                "tool_prefix": tool_prefix,
            },
            {"tool_specs": pieces["tool_spec"]},
        ),
        "testing.py": environment.get_template("testing.py.jinja").render(
            context, spec_imports=spec_imports, **_testing_names(spec, models)
        ),
        "temporal.py": _piece_file(
            environment.get_template("temporal.py.jinja"),
            temporal_context({**client_context, "spec_imports": spec_imports}),
            {"temporal_methods": pieces["temporal_method"]},
        ),
        "models/__init__.py": environment.get_template("models/package_init.py.jinja").render(
            context, exports=_exports(models)
        ),
        "README.md": environment.get_template("README.md.jinja").render(
            context,
            package_name=spec.package_name,
            server_label_md=md_text(label),
            tool_prefix=tool_prefix,
            cli=cli,
            variables=launch_variables(spec.launch),
            example=example_tool(spec.tools),
            runtime_imports_md=_runtime_imports_md(models),
            not_listed_words=_NOT_LISTED_WORDS,
            argument_model_md=argument_model_sections(spec.argument_models, models, spec.tools, server),
        ),
    }
    # Every models module is its body in the same frame: rendered once around a marker (ms-365 has 344 modules).
    frame = environment.get_template("models/module.py.jinja").render(context, body=_BODY).split(_BODY)
    if len(frame) != 2:
        raise AssertionError("the models module template must place its body once, as given")
    for module, body in sorted(models.modules.items()):
        files[f"models/{module}.py"] = frame[0] + body + frame[1]
    return files


#: Where a models module's body goes in its rendered frame (the frame, a header line, holds no NUL).
_BODY = "\0body\0"


#: The pieces of every tool, and those of a tool that may run as a task (its `client.tasks` methods).
_TOOL_PIECES = ("async_tool_method", "sync_tool_method", "tool_spec", "temporal_method")
_TASK_PIECES = ("async_task_method", "sync_task_method")


def _tool_pieces(tools: Sequence[ir.Tool], model_names: frozenset[str]) -> dict[str, tuple[Piece, ...]]:
    """Each tool's async method, blocking method and spec, and the `client.tasks` methods of a task tool (`pieces.py`),
    by kind, rendered only if the formatter asks."""
    environment = _environment()
    kinds = _TOOL_PIECES + _TASK_PIECES
    templates = {kind: environment.get_template(f"pieces/{kind}.py.jinja") for kind in kinds}
    pieces: dict[str, list[Piece]] = {kind: [] for kind in kinds}
    for tool in tools:
        group, qualified_names = _piece_group(tool, model_names)
        for kind in _TOOL_PIECES + (_TASK_PIECES if tool.task_method is not None else ()):
            render = functools.partial(_render_piece, templates[kind], tool, qualified_names)
            pieces[kind].append(Piece(group, kind, 0 if kind == "tool_spec" else 4, render))
    return {kind: tuple(found) for kind, found in pieces.items()}


def _piece_file(template: jinja2.Template, context: dict[str, Any], slots: dict[str, tuple[Piece, ...]]) -> PieceFile:
    """A module whose template takes its pieces as lists of text (`slots`: list name -> pieces)."""
    skeleton = template.render(context, **{name: [slot_line(p.indent) for p in group] for name, group in slots.items()})

    def whole() -> str:
        return template.render(context, **{name: [piece.render() for piece in group] for name, group in slots.items()})

    return PieceFile(skeleton, tuple(piece for group in slots.values() for piece in group), whole)


def _piece_group(tool: ir.Tool, model_names: Collection[str]) -> tuple[str, frozenset[str]]:
    """The hash naming what a tool's pieces are rendered from, and the model classes among its types (all the
    pieces depend on of the package's models: they are written `models.Name`)."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    names = set(names_in(tool.return_type))
    for parameter in tool.parameters:
        names |= names_in(parameter.type_source)
    qualified_names = frozenset(name for name in names if name in model_names)
    what = f"{generator_fingerprint()}\0{tool!r}\0{sorted(qualified_names)!r}"
    return hashlib.sha256(what.encode()).hexdigest(), qualified_names


def _render_piece(template: jinja2.Template, tool: ir.Tool, model_names: frozenset[str]) -> str:
    return template.render(tool=tool, model_names=model_names).rstrip("\n")


def render_cli(
    spec: ir.ClientSpec,
    commands: Sequence[Command],
    header: str,
    *,
    shared_runtime: bool = False,
    parent_package: str = "",
) -> dict[str, str]:
    """`generate --cli`: the package's `__main__.py` (the command line, its tools as a table) and `SKILL.md`.

    `parent_package`: the umbrella package a subpackage sits in (its command line is `python -m PARENT.PKG`)."""
    from mcp_codegen_runtime.command_line import EXIT_CODES

    environment = _environment()
    label = _server_label(spec)
    package = f"{parent_package}.{spec.package_name}" if parent_package else spec.package_name
    context: dict[str, Any] = {"spec": spec, "header": header, "runtime": RUNTIME_PACKAGE, "package_name": package}
    main = environment.get_template("cli/main.py.jinja").render(
        context,
        module_docstring=docstring(f"`python -m {package}`: call the tools of the {label} MCP server.", 0),
        prog_source=f'"python -m " + (__package__ or {string_literal(package)})',
        server_label=label,
        table_source=table_source(commands),
        task_tools_source=_task_tools_source(spec),
    )
    skill = environment.get_template("cli/SKILL.md.jinja").render(
        context,
        server_label_md=md_text(label),
        exit_codes=[(code, meaning) for code, meaning in EXIT_CODES.items()],
        variables=launch_variables(spec.launch),
        **skill_context(spec, package, label, commands),
    )
    return {"__main__.py": main, "SKILL.md": skill}


def _task_tools_source(spec: ir.ClientSpec) -> str:
    """`frozenset({...})` of the wire names of the tools that may run as MCP tasks, or "" for none."""
    names = sorted(tool.wire_name for tool in spec.tools if tool.task_support)
    if not names:
        return ""
    return "frozenset({" + ", ".join(string_literal(name) for name in names) + "})"


def render_umbrella(spec: ir.UmbrellaSpec) -> dict[str, str]:
    """The umbrella package's own files: `__init__.py` (the `Toolkit`) and `README.md`."""
    environment = _environment()
    context: dict[str, Any] = {
        "spec": spec,
        "header": "# @generated by mcp-codegen. Do not edit.",
        "runtime": RUNTIME_PACKAGE,
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
        f"{', '.join(counts)}. One method per tool; `prompts` and `resources` hold the others.\n\n"
        f"{raises_section()}"
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


def _client_type_imports(spec: ir.ClientSpec) -> dict[str, Any]:
    """The client module's `typing` names (one line) and its other imports for the signatures' types."""
    typing_names = {"Any", "ClassVar"} | ({"TYPE_CHECKING"} if spec.signature_models else set())
    if spec.skills:
        typing_names.add("Literal")
    other_lines = []
    for line in spec.type_imports:
        if line.startswith("from typing import "):
            typing_names |= {name.strip() for name in line.removeprefix("from typing import ").split(",")}
        else:
            other_lines.append(line)
    return {"typing_names": sorted(typing_names), "other_type_imports": sorted(other_lines)}


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


#: Server names and versions shown as they are in the header comment; anything else is JSON-quoted.
_PLAIN_LABEL = re.compile(r"[A-Za-z0-9@._/+-]{1,100}")


def header_line(server_name: str, server_version: str | None) -> str:
    """The first line of every generated file. No version: a runtime-only release changes one literal, in
    `__init__.py` (`__generator_version__`), not every file."""
    server = " ".join(
        text if _PLAIN_LABEL.fullmatch(text) else comment_text(text)
        for text in (server_name, server_version)
        if text is not None
    )
    return f"# @generated by mcp-codegen from {server}. Do not edit."
