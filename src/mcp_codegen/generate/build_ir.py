"""Stage 2: snapshot -> plans and IR, where every Python name is decided once.

`plan_tools` names each tool (method, models module, classes, parameters) and prepares its schemas;
after the models stage, `build_client_spec` completes the IR with the parameter types the models
ended up with. Bad items are reported and skipped; nothing is dropped silently.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_codegen import __version__
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import ir
from mcp_codegen.generate.models import FieldInfo, ModelsOutput, field_aliases, names_in
from mcp_codegen.generate.naming import (
    RESERVED_CLIENT_MEMBERS,
    RESERVED_IDENTIFIERS,
    RESERVED_NAMESPACE_MEMBERS,
    NameRegistry,
    class_prefixes,
    snake_case,
)
from mcp_codegen.generate.schema_prep import PreparedTool, is_wrapped_primitive, prepare_tool
from mcp_codegen.inputs.options import Selection
from mcp_codegen.runtime.drift import tool_fingerprint
from mcp_codegen.snapshot.model import Snapshot

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
PACKAGE_NAMES = frozenset(
    {"INSTRUCTIONS", "NOT_SENT", "PROMPTS", "RESOURCES", "SERVER_NAME", "SERVER_VERSION", "TEMPLATES", "TOOLS",
     "ArgumentsValidationError", "AsyncClient", "Client", "ConnectError", "ConnectionClosedError",
     "McpClientError", "NotSent", "PromptError", "PromptResult", "ProtocolError", "RequestTimeoutError",
     "ResourceError", "ResourceResult", "ResultValidationError", "SchemaDriftError", "ServerRequestError",
     "SnapshotError", "ToolError", "ToolResult", "ToolSpec", "UnknownToolError", "TYPE_CHECKING", "Any",
     "importlib"}
)  # fmt: skip
_CLASS_NAMES_TAKEN = _MODULE_NAMES | PACKAGE_NAMES
_NAMESPACE_MEMBERS = frozenset({"client", "list", "read", "get"})
_TEMPLATE_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")


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
    nullable: frozenset[str] = frozenset()
    description_override: str | None = None

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
            diagnostics.warn(f"descriptions.{wire}", "description override for a tool that is not generated")
    methods = NameRegistry(RESERVED_IDENTIFIERS | RESERVED_CLIENT_MEMBERS | {"models", "annotations"})
    method_names = methods.assign_all(tools, lambda wire: snake_case(wire, fallback="tool"))
    for wire, python in sorted(method_names.items()):
        if python != snake_case(wire, fallback="tool"):
            other = methods.claimed_by(snake_case(wire, fallback="tool"))
            reason = f"taken by tool {other!r}" if other and other != wire else "reserved"
            diagnostics.warn(
                f"tools.{wire}", f"method named {python} ({snake_case(wire, fallback='tool')} is {reason})"
            )

    class_names: set[str] = set(_CLASS_NAMES_TAKEN)
    prefix_of_method = class_prefixes(method_names.values(), taken=_CLASS_NAMES_TAKEN)
    prefixes = {wire: prefix_of_method[method_names[wire]] for wire in tools}
    for prefix in prefixes.values():
        class_names |= {f"{prefix}Arguments", f"{prefix}Result"}

    def claim(name: str) -> str:
        candidate, number = name, 2
        while candidate in class_names:
            candidate, number = f"{name}{number}", number + 1
        class_names.add(candidate)
        return candidate

    plans = []
    for wire in sorted(tools):
        raw = tools[wire]
        location = f"tools.{wire}"
        prepared = prepare_tool(
            raw, class_prefix=prefixes[wire], location=location, diagnostics=diagnostics, claim=claim
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
        )
        arguments = prepared.definitions[plan.arguments_class]
        properties = arguments.get("properties")
        if isinstance(properties, dict) and not prepared.permissive_arguments:
            registry = NameRegistry(RESERVED_IDENTIFIERS, reserved_prefix="model_")
            plan.parameter_names = registry.assign_all(properties, lambda p: snake_case(p, fallback="field"))
            plan.nullable = frozenset(p for p, schema in properties.items() if _accepts_null(schema))
        plans.append(plan)
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


def build_client_spec(
    snapshot: Snapshot,
    plans: Sequence[ToolPlan],
    models: ModelsOutput,
    *,
    package_name: str,
    diagnostics: Diagnostics,
) -> ir.ClientSpec:
    names_used: set[str] = set()
    tools = []
    for plan in plans:
        tool = _tool(plan, models, diagnostics)
        tools.append(tool)
        for parameter in tool.parameters:
            names_used |= names_in(parameter.type_source)
        names_used |= names_in(tool.return_type)
    type_imports = models.import_lines(names_used - {"ToolResult", "Any"})
    signature_models = sorted((name, models.class_module[name]) for name in names_used if name in models.class_module)
    parameter_types: set[str] = set()
    for tool in tools:
        for parameter in tool.parameters:
            parameter_types |= names_in(parameter.type_source)
    argument_models = _argument_models(parameter_types, models)
    server_title = snapshot.server_info.get("title")
    return ir.ClientSpec(
        package_name=package_name,
        generator_version=__version__,
        server_name=snapshot.server_name,
        server_version=snapshot.server_version,
        server_title=server_title if isinstance(server_title, str) else None,
        instructions=snapshot.instructions,
        launch=snapshot.launch.as_json() if snapshot.launch is not None else None,
        tools=tuple(tools),
        prompts=_prompts(snapshot, diagnostics),
        resources=(resources := _resources(snapshot, diagnostics))[0],
        templates=resources[1],
        type_imports=tuple(sorted(type_imports)),
        signature_models=tuple(sorted({*signature_models, *((m.name, m.module) for m in argument_models)})),
        argument_models=argument_models,
    )


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
                default=None if statement.value is None else ast.unparse(statement.value),
                description=description if isinstance(description, str) else None,
            )
        )
    return fields


def _tool(plan: ToolPlan, models: ModelsOutput, diagnostics: Diagnostics) -> ir.Tool:
    location = f"tools.{plan.wire_name}"
    fields: list[FieldInfo] = models.fields.get(plan.arguments_class, [])
    descriptions = _property_descriptions(plan.raw.get("inputSchema"))
    defaults = _property_defaults(plan.raw.get("inputSchema"))
    parameters = []
    for info in fields:
        expected = plan.parameter_names.get(info.wire_name)
        if expected is not None and expected != info.python_name:
            diagnostics.error(location, f"the model generator named parameter {info.wire_name!r} {info.python_name!r}")
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
    title = plan.raw.get("title")
    description = plan.raw.get("description")
    return ir.Tool(
        wire_name=plan.wire_name,
        python_name=plan.python_name,
        models_module=plan.models_module,
        arguments_class=plan.arguments_class,
        result_class=result_class,
        unwrap_result=unwrap,
        return_type=return_type,
        permissive=plan.prepared.permissive_arguments,
        parameters=tuple(parameters),
        title=title if isinstance(title, str) else None,
        description=description if isinstance(description, str) else None,
        description_override=plan.description_override,
        read_only=read_only if isinstance(read_only, bool) else None,
        fingerprint=tool_fingerprint(plan.raw.get("inputSchema"), plan.raw.get("outputSchema")),
    )


def _prompts(snapshot: Snapshot, diagnostics: Diagnostics) -> tuple[ir.Prompt, ...]:
    prompts = _unique_by(snapshot.prompts, "name", "prompts", diagnostics)
    registry = NameRegistry(RESERVED_IDENTIFIERS | RESERVED_NAMESPACE_MEMBERS | _NAMESPACE_MEMBERS)
    names = registry.assign_all(prompts, lambda wire: snake_case(wire, fallback="prompt"))
    result = []
    for wire in sorted(prompts):
        raw = prompts[wire]
        listed = raw.get("arguments")
        raw_arguments: list[Any] = listed if isinstance(listed, list) else []
        arguments_by_name = _unique_by(
            tuple(a for a in raw_arguments if isinstance(a, dict)), "name", f"prompts.{wire}.arguments", diagnostics
        )
        argument_names = NameRegistry(RESERVED_IDENTIFIERS).assign_all(
            arguments_by_name, lambda a: snake_case(a, fallback="argument")
        )
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
    registry = NameRegistry(RESERVED_IDENTIFIERS | RESERVED_NAMESPACE_MEMBERS | _NAMESPACE_MEMBERS)
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
        variables = template_variables(uri_template)
        variable_names = NameRegistry(RESERVED_IDENTIFIERS).assign_all(
            variables, lambda v: snake_case(v, fallback="value")
        )
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


def template_variables(uri_template: str) -> list[str]:
    """Variable names of an RFC 6570 template, in order of first appearance."""
    seen: list[str] = []
    for _operator, body in _TEMPLATE_EXPRESSION.findall(uri_template):
        for spec in body.split(","):
            name = spec.strip().rstrip("*").split(":", 1)[0]
            if name and name not in seen:
                seen.append(name)
    return seen


def _unique_by(
    items: Sequence[dict[str, Any]], key: str, location: str, diagnostics: Diagnostics
) -> dict[str, dict[str, Any]]:
    unique: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(items):
        value = item.get(key)
        if not isinstance(value, str):
            diagnostics.warn(f"{location}[{index}]", f"has no string {key!r}; left out")
        elif value in unique:
            diagnostics.warn(f"{location}.{value}", f"listed more than once; the later {key} duplicate is left out")
        else:
            unique[value] = item
    return unique


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True:
        return True
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and any(_accepts_null(b) for b in branches if isinstance(b, dict)):
            return True
    return kind is None and not any(k in schema for k in ("$ref", "enum", "const", "anyOf", "oneOf", "allOf"))


def _property_descriptions(schema: Any) -> dict[str, str]:
    if not isinstance(schema, dict) or not isinstance(properties := schema.get("properties"), dict):
        return {}
    return {
        name: prop["description"]
        for name, prop in properties.items()
        if isinstance(prop, dict) and isinstance(prop.get("description"), str)
    }


def _property_defaults(schema: Any) -> dict[str, str]:
    """Wire property name -> its schema `default` as a Python literal (JSON data, so `repr` is exact)."""
    if not isinstance(schema, dict) or not isinstance(properties := schema.get("properties"), dict):
        return {}
    return {
        name: repr(prop["default"]) for name, prop in properties.items() if isinstance(prop, dict) and "default" in prop
    }


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
