"""Stage 3: JSON Schema to pydantic v2 modules, through one datamodel-code-generator call per server.

All tools' definitions go into one `$defs` document (class names decided by the IR), so the cost of
starting the generator is paid once. Its single output module is then split along the reference
graph into one module per tool (plus `_shared` for classes several tools reach), so a generated
package imports only the models of the tools it calls.
"""

from __future__ import annotations

import ast
import copy
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mcp_codegen.casing import snake_case
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.model_defaults import hold_object_defaults
from mcp_codegen.generate.naming import NameRegistry, kept_as_field_name, reserved_parameters
from mcp_codegen_runtime.text import shortened

SHARED_MODULE = "_shared"

#: Every string format stays a plain `str`: datetime, URL, UUID and email types do not dump back to the
#: same JSON (or need extra packages), and the schema's own JSON is what the server checks.
_STRING_FORMATS = (
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
    "uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid", "json-pointer",
    "relative-json-pointer", "regex", "password", "binary", "byte", "path", "phone", "decimal",
)  # fmt: skip


@dataclass(frozen=True)
class FieldInfo:
    """One top-level field of an arguments model, as the typed method's keyword parameter."""

    python_name: str
    wire_name: str
    #: The parameter's type as Python source (the field's type, less a `| None` the schema does not allow).
    type_source: str
    required: bool
    #: Names the type source refers to, to import in the client module.
    names: frozenset[str]


@dataclass
class ModelsOutput:
    #: Module name (under `models/`) -> module body without its header.
    modules: dict[str, str] = field(default_factory=dict)
    #: Class name -> the module defining it.
    class_module: dict[str, str] = field(default_factory=dict)
    #: Root arguments class -> its fields in declaration order.
    fields: dict[str, list[FieldInfo]] = field(default_factory=dict)
    #: Root result class -> the type source of its `result` field (for unwrapped primitive results).
    result_field_types: dict[str, FieldInfo] = field(default_factory=dict)
    #: Names imported by the generated code (`Literal`, `AnyUrl`...) -> the import line providing them.
    imports: dict[str, str] = field(default_factory=dict)
    #: Tool wire name -> a hash of everything its models were made from (what the IR cache keys build on).
    sources: dict[str, str] = field(default_factory=dict)

    def import_lines(self, names: Iterable[str]) -> set[str]:
        """The imports that make `names` (model classes, typing names) available to another module."""
        lines = set()
        for name in names:
            if name in self.class_module:
                lines.add(f"from .models.{self.class_module[name]} import {name}")
            elif name in self.imports:
                lines.add(self.imports[name])
        return lines


@functools.lru_cache(maxsize=65_536)
def names_in(type_source: str) -> frozenset[str]:
    """Identifiers a type expression refers to (not words inside its string literals).

    Remembered: a run asks about the same few thousand type expressions many times (the IR, each method's
    source, the imports of each module)."""
    return frozenset(node.id for node in ast.walk(ast.parse(type_source, mode="eval")) if isinstance(node, ast.Name))


#: Property names that would shadow what the generated module imports (`Field: Annotated[str, Field(...)]`
#: breaks type checkers): renamed in every model, the wire name kept as the alias.
_IMPORTED = ("Annotated", "Any", "AwareDatetime", "BaseModel", "ConfigDict", "Enum", "Field", "Literal", "RootModel")
_SHADOWING_FIELD_ALIASES = {name: f"{name.lower()}_" for name in _IMPORTED}


def field_aliases(definitions: Mapping[str, Any]) -> dict[str, str]:
    """Python names for the property names that are not kept as they are: the same rule as parameters.

    A property name that is already a snake_case name keeps it; any other (`entityType`, `sympy_And`,
    `my-field`, non-ASCII) becomes snake_case, the wire name staying the alias. Left to itself the
    generator would keep non-ASCII names (which Python NFKC-normalizes: `\ufb01le` and `file` would be
    one field) and names pydantic warns about (`model_dump_`). Its aliases for the classes it names
    itself (nested objects) are keyed by wire name alone, so each wire name gets one name for the whole
    document: ASCII, unique, and never a name another property keeps, so fields can never collide.
    Scoped `Class.wire` aliases (the arguments' parameters) take precedence over these.
    """
    wire_names = property_names(definitions)
    kept = {name for name in wire_names if kept_as_field_name(name)}
    renamed = wire_names - kept - _SHADOWING_FIELD_ALIASES.keys()
    registry = NameRegistry(reserved_parameters(), reserved_prefix="model_")
    registry.hold(kept | set(_SHADOWING_FIELD_ALIASES.values()))
    return _SHADOWING_FIELD_ALIASES | registry.assign_all(renamed, lambda wire: snake_case(wire, fallback="field"))


def property_names(node: Any) -> set[str]:
    """Every key of every `properties` map anywhere in `node` (a few extra names do no harm)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            properties = item.get("properties")
            if isinstance(properties, dict):
                names.update(properties)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return names


def run_datamodel_codegen(document: Mapping[str, Any], aliases: Mapping[str, str]) -> str:
    """One call for the whole server; options pinned so output never depends on the user's config."""
    from datamodel_code_generator import InputFileType, NamingStrategy, PythonVersion, generate
    from datamodel_code_generator._shared_types import LiteralType
    from datamodel_code_generator.enums import DataModelType

    source = generate(
        dict(document),
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_311,
        disable_timestamp=True,
        custom_file_header="# models",
        use_annotated=True,
        field_constraints=True,
        set_default_enum_member=True,
        allow_population_by_field_name=True,
        use_standard_collections=True,
        use_union_operator=True,
        use_double_quotes=True,
        strict_nullable=True,
        enum_field_as_literal=LiteralType.All,
        naming_strategy=NamingStrategy.FullPath,
        use_schema_description=True,
        type_mappings=[f"{name}=string" for name in _STRING_FORMATS],
        aliases=dict(aliases),
        formatters=[],  # formatting happens once, over the whole package (formatting.py)
        settings_path=Path(__file__).parent,  # never the user's pyproject.toml (this folder has none)
        keep_model_order=True,
        collapse_root_models=True,
    )
    if not isinstance(source, str):
        raise TypeError("datamodel-code-generator returned several modules; class names must not contain dots")
    return source


def split_models(
    source: str,
    owners: Mapping[str, Iterable[str]],
    nullable_fields: Mapping[str, frozenset[str]],
    diagnostics: Diagnostics,
) -> ModelsOutput:
    """Split the generator's one module into a module per owner.

    `owners` maps a module name to its root classes; `nullable_fields` maps an arguments class to the
    wire names of its properties that accept null.
    """
    tree = ast.parse(source)
    imports: dict[str, str] = {}
    definitions: dict[str, ast.stmt] = {}
    order: list[str] = []
    rebuilds: dict[str, list[ast.stmt]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            if statement.module == "__future__":
                continue
            for alias in statement.names:
                bound = alias.asname or alias.name
                imports[bound] = ast.unparse(ast.ImportFrom(statement.module, [alias], statement.level))
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                imports[alias.asname or alias.name] = ast.unparse(ast.Import([alias]))
        elif (name := _defined_name(statement)) is not None:
            definitions[name] = statement
            order.append(name)
        elif (target := _rebuild_target(statement)) is not None:
            rebuilds.setdefault(target, []).append(statement)
        else:
            raise ValueError(f"unexpected statement in generated models: {shortened(ast.unparse(statement), 80)}")
    _inline_constrained_roots(definitions)
    for definition in definitions.values():
        if any(isinstance(n, ast.Name) and n.id == "float" for n in _walk(definition)):  # else nothing to change
            _JsonNumbers().visit(definition)
    hold_object_defaults(definitions, imports)

    referenced = {name: _referenced(node) for name, node in definitions.items()}  # walked once: 1.6M nodes (ms-365)
    dependencies = {name: names & definitions.keys() - {name} for name, names in referenced.items()}
    reached_by: dict[str, set[str]] = {}
    for module, roots in owners.items():
        for name in _closure(roots, dependencies):
            reached_by.setdefault(name, set()).add(module)
    output = ModelsOutput(imports={k: v for k, v in imports.items()})
    # Classes no tool reaches (the generator's model of the document root) are left out.
    order = [name for name in order if name in reached_by]
    for name in order:
        modules = reached_by[name]
        output.class_module[name] = next(iter(modules)) if len(modules) == 1 else SHARED_MODULE

    grouped: dict[str, list[str]] = {}
    for name in order:
        grouped.setdefault(output.class_module[name], []).append(name)
    for module, names in grouped.items():
        output.modules[module] = _module_source(
            module, names, definitions, rebuilds, imports, output.class_module, referenced
        )

    root_models = {name: inner for name, node in definitions.items() if (inner := _root_model_type(node)) is not None}
    for roots in owners.values():
        for root in roots:
            node = definitions.get(root)
            if not isinstance(node, ast.ClassDef):
                diagnostics.error(
                    f"models.{root}", "the model generator did not produce this class", code="model-class-missing"
                )
                continue
            if root.endswith("Arguments"):
                if root in root_models:  # a method takes keyword arguments, never one `root`
                    diagnostics.error(
                        f"models.{root}",
                        "the model generator made a root model of the arguments",
                        code="model-class-missing",
                    )
                    continue
                fields = _fields(node, nullable_fields.get(root, frozenset()), root_models)
                output.fields[root] = list(fields)
            else:
                result_fields = [f for f in _fields(node, frozenset(), {}) if f.wire_name == "result"]
                if result_fields:
                    output.result_field_types[root] = result_fields[0]
    return output


def _defined_name(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.ClassDef):
        return statement.name
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    type_alias = getattr(ast, "TypeAlias", None)  # Python 3.12+
    if type_alias is not None and isinstance(statement, type_alias):
        name = getattr(statement, "name", None)
        return name.id if isinstance(name, ast.Name) else None
    return None


def _rebuild_target(statement: ast.stmt) -> str | None:
    if (
        isinstance(statement, ast.Expr)
        and isinstance(call := statement.value, ast.Call)
        and isinstance(attribute := call.func, ast.Attribute)
        and attribute.attr == "model_rebuild"
        and isinstance(attribute.value, ast.Name)
    ):
        return attribute.value.id
    return None


def _referenced(node: ast.AST) -> set[str]:
    """Names a definition reads (bases, annotations, defaults), not the fields it binds.

    String constants are data (enum members, defaults, aliases): the generated module starts with
    `from __future__ import annotations`, so no reference is quoted, except in the one place the
    generator writes a quoted type: the `__annotations__` it gives a class whose declared properties
    sit beside typed extras (`{"__pydantic_extra__": Dict[str, "Entry"]}`).
    """
    nodes = _walk(node)
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} | _quoted_names(nodes)


def _quoted_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names in the quoted types of a class's `__annotations__` (see `_referenced`), among `nodes` (`_walk`)."""
    names: set[str] = set()
    for statement in nodes:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__annotations__" for t in statement.targets)
            and isinstance(statement.value, ast.Dict)
        ):
            for value in statement.value.values:
                for quoted in _walk(value) if value is not None else ():
                    if isinstance(quoted, ast.Constant) and isinstance(quoted.value, str):
                        names |= _names_in_quoted(quoted.value)
    return names


def _walk(node: ast.AST) -> list[ast.AST]:
    """Every node under `node`, itself included, in no particular order: what `ast.walk` yields, at about half its
    cost (it asks each node for its fields through two generators; a large server's models hold millions)."""
    found = [node]
    index = 0
    while index < len(found):
        current = found[index]
        index += 1
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                found.append(value)
            elif isinstance(value, list):
                found.extend(item for item in value if isinstance(item, ast.AST))
    return found


def _names_in_quoted(text: str) -> set[str]:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _closure(roots: Iterable[str], dependencies: Mapping[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    stack = [root for root in roots if root in dependencies]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(dependencies[name] - seen)
    return seen


def _module_source(
    module: str,
    names: list[str],
    definitions: Mapping[str, ast.stmt],
    rebuilds: Mapping[str, list[ast.stmt]],
    imports: Mapping[str, str],
    class_module: Mapping[str, str],
    referenced: Mapping[str, set[str]],
) -> str:
    body = [ast.unparse(definitions[name]) for name in names]
    body += [ast.unparse(statement) for name in names for statement in rebuilds.get(name, [])]
    used: set[str] = set()
    for name in names:
        used |= referenced[name]
    local = set(names)
    lines = ["from __future__ import annotations", ""]
    lines += sorted({imports[name] for name in used if name in imports})
    cross = sorted(name for name in used - local if class_module.get(name) not in (None, module))
    for other in sorted({class_module[name] for name in cross}):
        members = ", ".join(name for name in cross if class_module[name] == other)
        lines.append(f"from .{other} import {members}")
    return "\n".join(lines) + "\n\n\n" + "\n\n\n".join(body) + "\n"


def _inline_constrained_roots(definitions: dict[str, ast.stmt]) -> None:
    """Write constrained types in place of the root models the generator wraps them in, in every definition.

    The generator hoists a constrained branch of a union (`anyOf: [{"type": "integer", "minimum": 1},
    {"type": "null"}]`, a `oneOf` member, an array's item) into `class X(RootModel[int])` and gives its
    `root` the property's default (`= None`, which fails `mypy --strict`). `Annotated[int, Field(ge=1)]`
    in the union checks the same at run time and reads as the plain type. Root models named as a base, a
    call or a quoted annotation, or reaching themselves, stay classes (their impossible `None` default
    dropped).
    """
    constrained: dict[str, ast.expr] = {}
    for name, node in definitions.items():
        root = _root_field(node)
        if root is not None and _is_constrained(root.annotation):
            constrained[name] = root.annotation
    pinned: set[str] = set()
    for node in definitions.values():
        nodes = _walk(node)
        if isinstance(node, ast.ClassDef):
            pinned |= {n.id for base in node.bases for n in _walk(base) if isinstance(n, ast.Name)}
            pinned |= _quoted_names(nodes)
        pinned |= {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    inlined = {name: annotation for name, annotation in constrained.items() if name not in pinned}
    # The names each annotation holds, found once (not again for every candidate: quadratic on a large server).
    held = {name: set(names_in(ast.unparse(annotation))) for name, annotation in inlined.items()}
    for name in list(inlined):
        dependencies = {other: held[other] & inlined.keys() for other in inlined}
        if name in _closure(held[name] & inlined.keys(), dependencies):
            del inlined[name]  # recursive: stays a class
    for name in inlined:
        del definitions[name]
    for name, node in definitions.items():
        if inlined and isinstance(node, ast.ClassDef):
            node.body = [_inline_in(statement, inlined) for statement in node.body]
        elif inlined:
            definitions[name] = node = _inline_in(node, inlined)
        root = _root_field(node)
        if root is not None and _none_default_unfit(root):
            root.value = None
            root.simple = 1


_Node = TypeVar("_Node", bound=ast.AST)


def _inline_in(node: _Node, inlined: Mapping[str, ast.expr]) -> _Node:
    """`node` with the inlined root models' names replaced (a node naming none of them is not visited)."""
    if not any(isinstance(n, ast.Name) and n.id in inlined for n in _walk(node)):
        return node
    replaced = _InlineConstrained(inlined).visit(node)
    assert isinstance(replaced, type(node))
    return replaced


def _root_field(node: ast.stmt) -> ast.AnnAssign | None:
    """The `root: ...` declaration of a `RootModel` class."""
    if _root_model_type(node) is None:
        return None
    assert isinstance(node, ast.ClassDef)
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if statement.target.id == "root":
                return statement
    return None


def _is_constrained(annotation: ast.expr) -> bool:
    """`Annotated[T, Field(...)]`: a type with constraints (or a description) and nothing else."""
    return (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "Annotated"
        and isinstance(annotation.slice, ast.Tuple)
        and len(annotation.slice.elts) == 2
        and isinstance(field_call := annotation.slice.elts[1], ast.Call)
        and isinstance(field_call.func, ast.Name)
        and field_call.func.id == "Field"
        and not field_call.args
        and all(k.arg not in (None, "default", "default_factory", "alias") for k in field_call.keywords)
    )


def _none_default_unfit(root: ast.AnnAssign) -> bool:
    """Whether `root` defaults to `None` but its type does not allow it."""
    if not (isinstance(root.value, ast.Constant) and root.value.value is None):
        return False
    return not any(isinstance(n, ast.Constant) and n.value is None for n in ast.walk(root.annotation))


class _InlineConstrained(ast.NodeTransformer):
    """Each name of an inlined root model -> the constrained type it wrapped."""

    def __init__(self, inlined: Mapping[str, ast.expr]) -> None:
        self.inlined = inlined

    def visit_Name(self, node: ast.Name) -> ast.expr:
        annotation = self.inlined.get(node.id)
        if annotation is None or not isinstance(node.ctx, ast.Load):
            return node
        replaced = self.visit(copy.deepcopy(annotation))  # not recursive: checked by the caller
        assert isinstance(replaced, ast.expr)
        return replaced


class _JsonNumbers(ast.NodeTransformer):
    """`float` -> `int | float` in a model's types: a JSON number keeps its form (`1` stays an int, which a
    `float` field would turn into `1.0`, and send as such)."""

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id == "float" and isinstance(node.ctx, ast.Load):
            return _INT_OR_FLOAT()
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        return node  # `Field(...)` holds values, not types


def _INT_OR_FLOAT() -> ast.BinOp:
    return ast.BinOp(ast.Name("int", ast.Load()), ast.BitOr(), ast.Name("float", ast.Load()))


class _PlainTypes(ast.NodeTransformer):
    """`Annotated[T, ...]` -> `T` anywhere in a type: a parameter's type, not the model's constraints; and
    `int | float` -> `float`, which type checkers read the same (an int is a float to them)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        if ast.dump(node) == _INT_OR_FLOAT_DUMP:
            return ast.Name("float", ast.Load())
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == "Annotated" and isinstance(node.slice, ast.Tuple):
            inner = self.visit(node.slice.elts[0])
            assert isinstance(inner, ast.expr)
            return inner
        self.generic_visit(node)
        return node


_INT_OR_FLOAT_DUMP = ast.dump(_INT_OR_FLOAT())


def plain_type(annotation: ast.expr) -> ast.expr:
    """A copy of `annotation` without `Annotated[...]` wrappers (constraints stay on the model)."""
    plain = _PlainTypes().visit(copy.deepcopy(annotation))
    assert isinstance(plain, ast.expr)
    return plain


def _root_model_type(node: ast.stmt) -> ast.expr | None:
    """`class X(RootModel[T])` -> T."""
    if isinstance(node, ast.ClassDef) and len(node.bases) == 1:
        base = node.bases[0]
        if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and base.value.id == "RootModel":
            return base.slice
    return None


class _InlineRootModels(ast.NodeTransformer):
    """Replace root-model classes by the type they wrap: a parameter takes `list[str]`, not `list[PathItem]`.

    The arguments model still validates (and constrains) the plain value.
    """

    def __init__(self, root_models: Mapping[str, ast.expr]) -> None:
        self.root_models = root_models
        self.depth = 0

    def visit_Name(self, node: ast.Name) -> ast.expr:
        inner = self.root_models.get(node.id)
        if inner is None or self.depth > 20:  # recursive root models stay as they are
            return node
        self.depth += 1
        if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id == "Annotated":
            inner = inner.slice.elts[0] if isinstance(inner.slice, ast.Tuple) else inner.slice
        replaced = self.visit(copy.deepcopy(inner))
        self.depth -= 1
        assert isinstance(replaced, ast.expr)
        return replaced


def _fields(node: ast.ClassDef, nullable: frozenset[str], root_models: Mapping[str, ast.expr]) -> Iterable[FieldInfo]:
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        python_name = statement.target.id
        if python_name == "model_config":
            continue
        annotation = statement.annotation
        wire_name = python_name
        if (
            isinstance(annotation, ast.Subscript)
            and isinstance(annotation.value, ast.Name)
            and annotation.value.id == "Annotated"
            and isinstance(annotation.slice, ast.Tuple)
        ):
            for meta in annotation.slice.elts[1:]:
                wire_name = wire_name if (alias := _alias(meta)) is None else alias  # "" is a wire name too
            annotation = annotation.slice.elts[0]
        required = statement.value is None
        if not required and wire_name not in nullable:
            annotation = _without_none(annotation)
        if root_models:
            annotation = _InlineRootModels(root_models).visit(copy.deepcopy(annotation))
        annotation = plain_type(annotation)
        names = frozenset(n.id for n in ast.walk(annotation) if isinstance(n, ast.Name))
        yield FieldInfo(python_name, wire_name, ast.unparse(annotation), required, names)


def _alias(meta: ast.expr) -> str | None:
    if isinstance(meta, ast.Call) and isinstance(meta.func, ast.Name) and meta.func.id == "Field":
        for keyword in meta.keywords:
            if (
                keyword.arg == "alias"
                and isinstance(keyword.value, ast.Constant)
                and isinstance(keyword.value.value, str)
            ):
                return keyword.value.value
    return None


def _without_none(annotation: ast.expr) -> ast.expr:
    """`X | None` -> `X`: an optional parameter is left out when not given, never sent as null."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        if isinstance(annotation.right, ast.Constant) and annotation.right.value is None:
            return annotation.left
        if isinstance(annotation.left, ast.Constant) and annotation.left.value is None:
            return annotation.right
    return annotation
