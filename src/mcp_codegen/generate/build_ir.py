"""Stage 2: snapshot -> plans and IR, where every Python name is decided once.

`plan_tools` names each tool (method, models module, classes, parameters) and prepares its schemas;
after the models stage, `build_client_spec` completes the IR with the parameter types the models
ended up with. Bad items are reported and skipped; nothing is dropped silently.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_codegen import __version__
from mcp_codegen.casing import snake_case
from mcp_codegen.diagnostics import Diagnostic, Diagnostics
from mcp_codegen.generate import ir
from mcp_codegen.generate.class_members import class_members
from mcp_codegen.generate.model_defaults import default_source
from mcp_codegen.generate.models import FieldInfo, ModelsOutput, field_aliases, names_in
from mcp_codegen.generate.naming import (
    ClassNames,
    NameRegistry,
    class_prefixes,
    reserved_identifiers,
    reserved_parameters,
)
from mcp_codegen.generate.prepared_cache import open_store, prepared_tool_keyed
from mcp_codegen.generate.schema_prep import (
    PreparedTool,
    accepts_null,
    is_wrapped_primitive,
    names_extra_keys,
)
from mcp_codegen.generate.schema_properties import declared_properties, property_defaults, property_descriptions
from mcp_codegen.inputs.options import Selection
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen.snapshot.observed import observed_output_schema
from mcp_codegen_runtime import PACKAGE_EXPORTS, PACKAGE_LAZY_EXPORTS
from mcp_codegen_runtime.calls.drift import tool_fingerprint
from mcp_codegen_runtime.calls.retries import DEFAULT_RETRIES
from mcp_codegen_runtime.calls.skills import parse_skill, skill_fingerprint
from mcp_codegen_runtime.calls.ui import DEFAULT_VISIBILITY, tool_ui
from mcp_codegen_runtime.calls.uri import uri_template_variables

#: Names at the top of the generated client and specs modules, which import model classes: a model
#: class must not shadow them (a tool named `tool` would otherwise have a result class `ToolResult`).
_MODULE_NAMES = frozenset(
    {"AsyncClient", "Client", "AsyncPrompts", "Prompts", "AsyncResources", "Resources", "Any", "Literal",
     "Mapping", "NotSent", "NOT_SENT", "ToolResult", "ResourceResult", "PromptResult", "TYPE_CHECKING",
     "ClassVar", "Final", "Path", "ToolSpec", "PromptSpec", "ResourceSpec", "TemplateSpec", "SnapshotData",
     "AsyncClientBase", "AsyncPromptsBase", "AsyncResourcesBase", "SyncClientBase", "SyncPromptsBase",
     "SyncResourcesBase"}
)  # fmt: skip
#: What the package's `__init__` binds besides re-exported models (templates/package_init.py.jinja): the
#: package re-exports the models of its signatures, which must not take one of these names.
#: Names the package `__init__` binds besides the runtime's `PACKAGE_EXPORTS`: its specs, its clients,
#: and what its lazy model imports use.
_PACKAGE_OWN_NAMES = frozenset(
    {"INSTRUCTIONS", "PROMPTS", "RESOURCES", "SERVER_NAME", "SERVER_VERSION", "TEMPLATES", "TOOLS",
     "AsyncClient", "Client", "TYPE_CHECKING", "Any", "importlib", "__generator_version__", "check_runtime_version"}
)  # fmt: skip
PACKAGE_NAMES = _PACKAGE_OWN_NAMES | frozenset(PACKAGE_EXPORTS) | frozenset(PACKAGE_LAZY_EXPORTS)
_CLASS_NAMES_TAKEN = _MODULE_NAMES | PACKAGE_NAMES


@dataclass
class ToolPlan:
    raw: dict[str, Any]
    wire_name: str
    python_name: str
    class_prefix: str
    prepared: PreparedTool
    unwrap_result: bool
    #: Wire property name -> parameter name (top-level properties of the input schema).
    parameter_names: dict[str, str] = field(default_factory=dict)
    #: Wire property name -> how its parameter was renamed (reported when the parameters are final).
    parameter_notes: dict[str, str] = field(default_factory=dict)
    nullable: frozenset[str] = frozenset()
    description_override: str | None = None
    #: The tool's method in the `client.tasks` namespace, for a tool that may run as a task (else None).
    task_method: str | None = None
    #: A digest of what the prepared schemas are made from (`prepared_cache.prepared_tool_keyed`; with the names,
    #: all the tool's models are made from): empty without a cache.
    prepared_key: str = field(default="", compare=False)
    #: The result model is made from the result type observed in recordings (`--results-from`), not a listed
    #: output schema.
    observed: bool = False

    @property
    def models_module(self) -> str:
        return self.python_name

    @property
    def arguments_class(self) -> str:
        return f"{self.class_prefix}Arguments"


def plan_tools(snapshot: Snapshot, diagnostics: Diagnostics, selection: Selection | None = None) -> list[ToolPlan]:
    selection = selection or Selection()
    tools = _unique_by(snapshot.tools, "name", "tools", diagnostics)
    tools = {wire: tool for wire, tool in tools.items() if selection.selects(wire)}
    for wire in sorted(selection.descriptions):
        if wire not in tools:
            diagnostics.warn(
                f"descriptions.{wire}",
                "description override for a tool that is not generated",
                code="description-override-unused",
            )
    members = class_members()
    # `models`: the client module's annotations name `models.X`.
    reserved = reserved_identifiers() | members.client | members.hooks | members.code_module | members.models_package
    methods = NameRegistry(reserved | {"models", "annotations"})
    method_names = methods.assign_all(tools, lambda wire: snake_case(wire, fallback="tool"))
    for wire, python in sorted(method_names.items()):
        note = rename_note(wire, python, snake_case(wire, fallback="tool"), methods.claimed_by)
        if note is not None:
            diagnostics.info(f"tools.{wire}", f"method {note}", code="renamed")

    task_methods = NameRegistry(reserved_identifiers() | class_members().tasks).assign_all(
        (wire for wire in tools if task_support(tools[wire]) is not None), lambda wire: method_names[wire]
    )

    prefix_of_method = class_prefixes(method_names.values(), taken=_CLASS_NAMES_TAKEN)
    prefixes = {wire: prefix_of_method[method_names[wire]] for wire in tools}
    class_names = ClassNames(_CLASS_NAMES_TAKEN)
    for prefix in prefixes.values():
        class_names.taken |= {f"{prefix}Arguments", f"{prefix}Result"}

    store = open_store(snapshot.server_name)
    plans = []
    for wire in sorted(tools):
        raw = tools[wire]
        location = f"tools.{wire}"
        observed = observed_output_schema(snapshot, raw)
        prepared, prepared_key = prepared_tool_keyed(
            raw if observed is None else {**raw, "outputSchema": observed},
            class_prefix=prefixes[wire],
            location=location,
            diagnostics=diagnostics,
            names=class_names,
            store=store,
        )
        if wire in selection.descriptions:
            raw = {**raw, "description": selection.descriptions[wire]}
        plan = ToolPlan(
            raw=raw,
            wire_name=wire,
            python_name=method_names[wire],
            class_prefix=prefixes[wire],
            prepared=prepared,
            unwrap_result=prepared.result_class is not None and is_wrapped_primitive(raw.get("outputSchema")),
            description_override=selection.descriptions.get(wire),
            task_method=task_methods.get(wire),
            prepared_key=prepared_key,
            observed=observed is not None and prepared.result_class is not None,
        )
        arguments = prepared.definitions[plan.arguments_class]
        properties = arguments.get("properties")
        if isinstance(properties, dict) and not prepared.permissive_arguments:
            registry = NameRegistry(reserved_parameters() | {ir.EXTRA_ARGUMENTS}, reserved_prefix="model_")
            plan.parameter_names = registry.assign_all(properties, lambda p: snake_case(p, fallback="field"))
            for wire_property, python in plan.parameter_names.items():
                converted = snake_case(wire_property, fallback="field")
                note = rename_note(wire_property, python, converted, registry.claimed_by)
                if note is not None:
                    plan.parameter_notes[wire_property] = f"parameter {note}"
            plan.nullable = frozenset(p for p, schema in properties.items() if accepts_null(schema))
        plans.append(plan)
    if store is not None:
        store.close()
    return plans


def datamodel_document(plans: Sequence[ToolPlan]) -> tuple[dict[str, Any], dict[str, str]]:
    """The combined `$defs` document and the field aliases: scoped ones fix parameter names."""
    definitions: dict[str, Any] = {}
    for plan in plans:
        definitions.update(plan.prepared.definitions)
    aliases = field_aliases(definitions)
    for plan in plans:
        for wire, python in plan.parameter_names.items():
            if wire != python:
                aliases[f"{plan.arguments_class}.{wire}"] = python
    return {"$defs": definitions}, aliases


@dataclass(frozen=True)
class ToolIR:
    """One tool's part of the IR: its method, the model classes its arguments are built from (nested ones
    included), and the notes about its names. A pure function of the tool's plan and its own models, so it is
    kept per tool in the user's cache (`ir_cache.py`)."""

    tool: ir.Tool
    argument_models: tuple[ir.Model, ...]
    diagnostics: tuple[Diagnostic, ...]


def tool_ir(plan: ToolPlan, models: ModelsOutput) -> ToolIR:
    """The IR of one tool whose models are in `models`."""
    diagnostics = Diagnostics()
    tool = _tool(plan, models, diagnostics)
    parameter_types: set[str] = set()
    for parameter in tool.parameters:
        parameter_types |= names_in(parameter.type_source)
    _report_field_renames(plan, diagnostics)
    return ToolIR(tool, _argument_models(parameter_types, models), tuple(diagnostics))


def build_client_spec(
    snapshot: Snapshot,
    plans: Sequence[ToolPlan],
    models: ModelsOutput,
    *,
    package_name: str,
    diagnostics: Diagnostics,
    tool_irs: Sequence[ToolIR] | None = None,
    server_key: str | None = None,
) -> ir.ClientSpec:
    """The whole IR; `tool_irs` are the tools' parts when the caller has them (from the cache), in plan order;
    `server_key` is `package_name` unless given (a server package's client is a subpackage of its own)."""
    if tool_irs is None:
        tool_irs = [tool_ir(plan, models) for plan in plans]
    names_used: set[str] = set()
    argument_models: dict[str, ir.Model] = {}
    for part in tool_irs:
        for parameter in part.tool.parameters:
            names_used |= names_in(parameter.type_source)
        names_used |= names_in(part.tool.return_type)
        argument_models.update((model.name, model) for model in part.argument_models)
        for diagnostic in part.diagnostics:
            diagnostics.add(diagnostic)
    type_imports = models.import_lines(names_used - {"ToolResult", "Any"} - models.class_module.keys())
    signature_models = sorted((name, models.class_module[name]) for name in names_used if name in models.class_module)
    server_title = snapshot.server_info.get("title")
    return ir.ClientSpec(
        package_name=package_name,
        generator_version=__version__,
        server_name=snapshot.server_name,
        server_version=snapshot.server_version,
        protocol_version=snapshot.protocol_version,
        server_title=server_title if isinstance(server_title, str) else None,
        instructions=snapshot.instructions,
        launch=snapshot.launch.as_json() if snapshot.launch is not None else None,
        tools=tuple(part.tool for part in tool_irs),
        prompts=_prompts(snapshot, diagnostics),
        resources=(resources := _resources(snapshot, diagnostics))[0],
        templates=resources[1],
        type_imports=tuple(sorted(type_imports)),
        signature_models=tuple(sorted({*signature_models, *((m.name, m.module) for m in argument_models.values())})),
        argument_models=tuple(argument_models[name] for name in sorted(argument_models)),
        skills=_skills(snapshot),
        server_key=server_key or package_name,
        not_listed=tuple((_LIST_METHODS[key], why) for key, why in snapshot.not_listed.items()),
    )


#: A snapshot's listing key -> its list method (for the README's word on a listing the snapshot lacks).
_LIST_METHODS = {
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
    "prompts": "prompts/list",
}


def _skills(snapshot: Snapshot) -> tuple[ir.Skill, ...] | None:
    """The snapshot's usable skills by name (the snapshot left the others out with a warning)."""
    if snapshot.skills is None:
        return None
    found: dict[str, ir.Skill] = {}
    for entry in snapshot.skills:
        try:
            skill = parse_skill(entry)
        except ValueError:
            continue
        files = () if skill.files == "dynamic" else tuple(file.path for file in skill.files)
        found.setdefault(skill.name, ir.Skill(skill.name, skill.description, skill_fingerprint(entry), files))
    return tuple(found[name] for name in sorted(found))


def _argument_models(roots: set[str], models: ModelsOutput) -> tuple[ir.Model, ...]:
    """The `BaseModel` classes among `roots` and every one their fields reach, sorted by name."""
    trees: dict[str, ast.Module] = {}
    found: dict[str, ir.Model] = {}
    stack = sorted(roots & models.class_module.keys())
    while stack:
        name = stack.pop()
        module = models.class_module[name]
        if name in found or module not in models.modules:
            continue
        tree = trees.get(module) or trees.setdefault(module, ast.parse(models.modules[module]))
        node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if node is None or [ast.unparse(base) for base in node.bases] != ["BaseModel"]:
            continue
        fields = tuple(_model_fields(node))
        found[name] = ir.Model(name=name, module=module, fields=fields)
        for field_ in fields:
            stack.extend(sorted(names_in(field_.type_source) & models.class_module.keys() - found.keys()))
    return tuple(found[name] for name in sorted(found))


def _model_fields(node: ast.ClassDef) -> list[ir.ModelField]:
    """The fields of a generated pydantic class: `name: Annotated[T, Field(alias=..., description=...)] = default`."""
    fields = []
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        if statement.target.id == "model_config":
            continue
        annotation = statement.annotation
        keywords: dict[str | None, object] = {}
        if (
            isinstance(annotation, ast.Subscript)
            and ast.unparse(annotation.value) == "Annotated"
            and isinstance(annotation.slice, ast.Tuple)
        ):
            for meta in annotation.slice.elts[1:]:
                if isinstance(meta, ast.Call) and ast.unparse(meta.func) == "Field":
                    keywords |= {k.arg: k.value.value for k in meta.keywords if isinstance(k.value, ast.Constant)}
            annotation = annotation.slice.elts[0]
        alias, description = keywords.get("alias"), keywords.get("description")
        fields.append(
            ir.ModelField(
                python_name=statement.target.id,
                wire_name=alias if isinstance(alias, str) else statement.target.id,
                type_source=ast.unparse(annotation),
                required=statement.value is None,
                default=None if statement.value is None else default_source(statement.value),
                description=description if isinstance(description, str) else None,
            )
        )
    return fields


def _tool(plan: ToolPlan, models: ModelsOutput, diagnostics: Diagnostics) -> ir.Tool:
    location = f"tools.{plan.wire_name}"
    fields: list[FieldInfo] = models.fields.get(plan.arguments_class, [])
    descriptions = property_descriptions(plan.raw.get("inputSchema"))
    # The defaults the arguments model holds (a null default on a property that refuses null is no default).
    defaults = property_defaults(plan.prepared.definitions.get(plan.arguments_class))
    parameters = []
    for info in fields:
        expected = plan.parameter_names.get(info.wire_name)
        if expected is not None and expected != info.python_name:
            diagnostics.error(
                location,
                f"the model generator named parameter {info.wire_name!r} {info.python_name!r}",
                code="parameter-name-mismatch",
            )
        if info.wire_name in plan.parameter_notes:
            diagnostics.info(
                f"{location}.inputSchema.properties.{info.wire_name}",
                plan.parameter_notes[info.wire_name],
                code="renamed",
            )
        parameters.append(
            ir.Parameter(
                python_name=info.python_name,
                wire_name=info.wire_name,
                type_source=info.type_source,
                required=info.required,
                description=descriptions.get(info.wire_name),
                default=defaults.get(info.wire_name),
            )
        )
    # Required parameters first; within each group the schema's order.
    parameters.sort(key=lambda p: not p.required)
    result_class = plan.prepared.result_class if plan.prepared.result_class in models.class_module else None
    unwrap = plan.unwrap_result and result_class is not None and result_class in models.result_field_types
    if unwrap:
        assert result_class is not None
        return_type = models.result_field_types[result_class].type_source
    else:
        return_type = result_class or "ToolResult"
    annotations = plan.raw.get("annotations")
    read_only = annotations.get("readOnlyHint") if isinstance(annotations, dict) else None
    destructive = annotations.get("destructiveHint") if isinstance(annotations, dict) else None
    title = plan.raw.get("title")
    description = plan.raw.get("description")
    ui = tool_ui(plan.raw.get("_meta"))
    return ir.Tool(
        wire_name=plan.wire_name,
        python_name=plan.python_name,
        models_module=plan.models_module,
        arguments_class=plan.arguments_class,
        result_class=result_class,
        unwrap_result=unwrap,
        return_type=return_type,
        permissive=plan.prepared.permissive_arguments,
        extra_arguments=not plan.prepared.permissive_arguments and names_extra_keys(plan.raw.get("inputSchema")),
        parameters=tuple(parameters),
        title=title if isinstance(title, str) else None,
        description=description if isinstance(description, str) else None,
        description_override=plan.description_override,
        read_only=read_only if isinstance(read_only, bool) else None,
        task_support=task_support(plan.raw),
        task_method=plan.task_method,
        fingerprint=tool_fingerprint(plan.raw.get("inputSchema"), plan.raw.get("outputSchema")),
        ui_resource_uri=ui.resource_uri if ui is not None else None,
        ui_visibility=ui.visibility if ui is not None and ui.visibility != DEFAULT_VISIBILITY else None,
        destructive=destructive if isinstance(destructive, bool) else None,
        observed=plan.observed and result_class is not None,
        repeatable=DEFAULT_RETRIES.may_repeat(
            "tools/call", None, annotations if isinstance(annotations, dict) else None
        ),
    )


def task_support(raw: dict[str, Any]) -> str | None:
    """The listed `execution.taskSupport` of a tool that may run as an MCP task ("optional", "required"), else None."""
    execution = raw.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in ("optional", "required") else None


def _prompts(snapshot: Snapshot, diagnostics: Diagnostics) -> tuple[ir.Prompt, ...]:
    prompts = _unique_by(snapshot.prompts, "name", "prompts", diagnostics)
    registry = NameRegistry(reserved_identifiers() | class_members().namespaces | class_members().hooks)
    names = registry.assign_all(prompts, lambda wire: snake_case(wire, fallback="prompt"))
    result = []
    for wire in sorted(prompts):
        note = rename_note(wire, names[wire], snake_case(wire, fallback="prompt"), registry.claimed_by)
        if note is not None:
            diagnostics.info(f"prompts.{wire}", f"method {note}", code="renamed")
        raw = prompts[wire]
        listed = raw.get("arguments")
        raw_arguments: list[Any] = listed if isinstance(listed, list) else []
        arguments_by_name = _unique_by(
            tuple(a for a in raw_arguments if isinstance(a, dict)), "name", f"prompts.{wire}.arguments", diagnostics
        )
        argument_registry = NameRegistry(reserved_parameters())
        argument_names = argument_registry.assign_all(arguments_by_name, lambda a: snake_case(a, fallback="argument"))
        for name, python in argument_names.items():
            note = rename_note(name, python, snake_case(name, fallback="argument"), argument_registry.claimed_by)
            if note is not None:
                diagnostics.info(f"prompts.{wire}.arguments.{name}", f"parameter {note}", code="renamed")
        arguments = [
            ir.PromptArgument(
                python_name=argument_names[name],
                wire_name=name,
                required=arguments_by_name[name].get("required") is True,
                description=_text(arguments_by_name[name].get("description")),
            )
            for name in arguments_by_name  # the server's order
        ]
        arguments.sort(key=lambda a: not a.required)
        result.append(
            ir.Prompt(
                wire_name=wire,
                python_name=names[wire],
                arguments=tuple(arguments),
                title=_text(raw.get("title")),
                description=_text(raw.get("description")),
            )
        )
    return tuple(result)


def _resources(
    snapshot: Snapshot, diagnostics: Diagnostics
) -> tuple[tuple[ir.Resource, ...], tuple[ir.ResourceTemplate, ...]]:
    resources = _unique_by(snapshot.resources, "uri", "resources", diagnostics)
    templates = _unique_by(snapshot.resource_templates, "uriTemplate", "resourceTemplates", diagnostics)
    registry = NameRegistry(reserved_identifiers() | class_members().namespaces | class_members().hooks)
    # Resources and templates share the `client.resources` namespace; keys are tagged to stay apart.
    labels = {f"r:{uri}": _text(item.get("name")) or uri for uri, item in resources.items()}
    labels |= {f"t:{uri}": _text(item.get("name")) or uri for uri, item in templates.items()}
    names = registry.assign_all(labels, lambda key: snake_case(labels[key], fallback="resource"))
    resource_ir = tuple(
        ir.Resource(
            uri=uri,
            name=_text(item.get("name")) or uri,
            python_name=names[f"r:{uri}"],
            mime_type=_text(item.get("mimeType")),
            description=_text(item.get("description")),
        )
        for uri, item in sorted(resources.items())
    )
    template_ir = []
    for uri_template, item in sorted(templates.items()):
        variables = uri_template_variables(uri_template)
        variable_registry = NameRegistry(reserved_parameters())
        variable_names = variable_registry.assign_all(variables, lambda v: snake_case(v, fallback="value"))
        for variable in variables:
            python = variable_names[variable]
            note = rename_note(variable, python, snake_case(variable, fallback="value"), variable_registry.claimed_by)
            if note is not None:
                diagnostics.info(f"resourceTemplates.{uri_template}.{variable}", f"parameter {note}", code="renamed")
        template_ir.append(
            ir.ResourceTemplate(
                name=_text(item.get("name")) or uri_template,
                uri_template=uri_template,
                python_name=names[f"t:{uri_template}"],
                variables=tuple(ir.TemplateVariable(variable_names[v], v) for v in variables),
                mime_type=_text(item.get("mimeType")),
                description=_text(item.get("description")),
            )
        )
    return resource_ir, tuple(template_ir)


def _unique_by(
    items: Sequence[dict[str, Any]], key: str, location: str, diagnostics: Diagnostics
) -> dict[str, dict[str, Any]]:
    unique: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(items):
        value = item.get(key)
        if not isinstance(value, str):
            diagnostics.warn(f"{location}[{index}]", f"has no string {key!r}; left out", code="item-without-name")
        elif value in unique:
            diagnostics.warn(
                f"{location}.{value}",
                f"listed more than once; the later {key} duplicate is left out",
                code="duplicate-item",
            )
        else:
            unique[value] = item
    return unique


def rename_note(wire: str, python: str, converted: str, claimed_by: Callable[[str], str | None]) -> str | None:
    """Why `wire` is called `python` in the generated code, or None when it is not renamed.

    `converted` is the snake_case form the name was given before uniqueness and reserved names were
    considered; `claimed_by` tells which wire name holds a Python name.
    """
    if python == wire:
        return None
    if python == converted:
        kind = "a snake_case name" if wire.isascii() and wire.isidentifier() else "a valid Python name"
        return f"renamed to {python} ({wire!r} is not {kind}); the wire name is what is sent"
    other = claimed_by(converted)
    reason = f"{converted} is taken by {other!r}" if other is not None and other != wire else f"{converted} is reserved"
    return f"renamed to {python} ({reason}); the wire name is what is sent"


def _report_field_renames(plan: ToolPlan, diagnostics: Diagnostics) -> None:
    """One note per model field of the tool whose Python name differs from its property name, where it is declared.

    Top-level input properties are the parameters (reported with them); every other property is a model
    field, named among the tool's own definitions by `field_aliases` (as its models are generated).
    """
    aliases = field_aliases(plan.prepared.definitions)
    location = f"tools.{plan.wire_name}"
    declared: list[tuple[str, str]] = []
    if not plan.prepared.permissive_arguments:
        declared += declared_properties(plan.raw.get("inputSchema"), f"{location}.inputSchema", True)
    if plan.prepared.result_class is not None:
        declared += declared_properties(plan.raw.get("outputSchema"), f"{location}.outputSchema", False)
    holders = {aliases.get(wire, wire): wire for _, wire in sorted(declared, key=lambda item: item[1])}
    for path, wire in declared:
        note = rename_note(wire, aliases.get(wire, wire), snake_case(wire, fallback="field"), holders.get)
        if note is not None:
            diagnostics.info(path, f"field {note}", code="renamed")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
