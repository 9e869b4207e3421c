"""Names a server may choose, in pools, and hypothesis strategies that build listings out of them.

The pools are read from what the generated code meets, never typed out: Python's builtins, keywords and soft
keywords; every name the committed examples import (typing, pydantic, the runtime); `BaseModel`'s attributes;
the package's own names (what its `__init__` binds, its modules, code mode's `search_api`); every public name of
the runtime's client, namespace, tasks and fake-hook classes; and names that break naive rules (the empty string,
names equal after snake_case or NFKC, non-ASCII, leading digits, JSON-pointer characters).

A drawn listing (`listings()`) has 1-3 tools, 0-2 prompts, 0-1 resources and 0-2 resource templates, all named
from the pools. Each tool's input schema has drawn property names of drawn types, then fields of every type an
annotation is written with (`tail_list: list[int]`, `tail_map: dict[str, str]`, `tail_str`...: after a field
named `list`, `list[...]` must still mean the builtin), a `$ref` to a `$defs` entry named from the pools whose
properties are drawn the same way, and an array of it. Its output schema is the same, so an echoing server brings
every value back through the result model.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from functools import cache
from typing import Any

from helpers import ROOT
from hypothesis import strategies as st
from pydantic import BaseModel

from mcp_codegen.generate.build_ir import PACKAGE_NAMES
from mcp_codegen.generate.class_members import read_class_members

#: Names that break naive rules: empty, equal after snake_case or NFKC, non-ASCII, digits first, pointer syntax.
ODD_NAMES = (
    "", " ", "_", "__", "_private", "__init__", "a-b", "a_b", "A-B", "aB", "a b", "a.b", "café", "cafe",
    "\ufb01le", "file", "日本語", "Ωmega", "1st", "3d-render", "0", "$ref", "@odata.type", "x~y", "MiXeD",
    "getHTTPResponse", "get_http_response", "self", "cls", "model_config", "model_dump", "tail_list_2",
)  # fmt: skip
#: The types a drawn property takes, with the value the round trip sends for it (`sample`).
LEAF_TYPES: tuple[dict[str, Any], ...] = (
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {"type": "string", "enum": ["x", "y"]},
    {"type": ["string", "null"]},
)
#: Fields after the drawn ones, of every type annotations are written with.
TAIL: dict[str, Any] = {
    "tail_list": {"type": "array", "items": {"type": "integer"}},
    "tail_map": {"type": "object", "additionalProperties": {"type": "string"}},
    "tail_str": {"type": "string"},
    "tail_int": {"type": "integer"},
    "tail_float": {"type": "number"},
    "tail_bool": {"type": "boolean"},
}
_TEMPLATE_VARIABLE = re.compile(r"[A-Za-z0-9_]+")


@cache
def pools() -> dict[str, tuple[str, ...]]:
    """Each pool of names by what it holds (sorted, so a seed draws the same names on every machine)."""
    imported: set[str] = set()
    modules: set[str] = set()
    for path in (ROOT / "generated_examples").rglob("*.py*"):
        if path.suffix in (".py", ".pyi"):
            modules.add(path.stem)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    members = read_class_members()  # from the classes, not the cache: the runtime as it is now
    runtime = members.client | members.namespaces | members.tasks | members.hooks
    found = {
        "builtins": set(dir(builtins)),
        "keywords": {*keyword.kwlist, *keyword.softkwlist},
        "imported": imported,
        "basemodel": set(dir(BaseModel)),
        "helpers": {*PACKAGE_NAMES, *modules, *members.code_module, "models", "specs", "extra_arguments"},
        "runtime": set(runtime),
        "odd": set(ODD_NAMES),
    }
    return {pool: tuple(sorted(names)) for pool, names in found.items()}


def every_name() -> tuple[str, ...]:
    return tuple(sorted({name for names in pools().values() for name in names}))


def names(*, min_size: int = 0, max_size: int) -> st.SearchStrategy[list[str]]:
    """Distinct names, each from a pool drawn first (so the small pools are drawn as often as the large ones)."""
    one = st.sampled_from(sorted(pools())).flatmap(lambda pool: st.sampled_from(pools()[pool]))
    return st.lists(one, min_size=min_size, max_size=max_size, unique=True)


@st.composite
def object_schema(draw: st.DrawFn) -> dict[str, Any]:
    """An object of 1-5 drawn properties of drawn types, then the `TAIL` fields."""
    keys = draw(names(min_size=1, max_size=5))
    properties = {key: draw(st.sampled_from(LEAF_TYPES)) for key in keys}
    required = draw(st.lists(st.sampled_from(keys), unique=True))
    return {"type": "object", "properties": {**properties, **TAIL}, "required": required}


@st.composite
def tool_schema(draw: st.DrawFn) -> dict[str, Any]:
    """An object schema with a `$ref` to a `$defs` entry named from the pools and an array of it."""
    schema = draw(object_schema())
    definition = draw(names(min_size=1, max_size=1).filter(lambda found: _pointer_safe(found[0])))[0]
    reference = {"$ref": f"#/$defs/{definition}"}
    schema["properties"] |= {"tail_nested": reference, "tail_nested_list": {"type": "array", "items": reference}}
    schema["$defs"] = {definition: draw(object_schema())}
    return schema


def _pointer_safe(name: str) -> bool:
    return bool(name) and not any(char in name for char in "/~#%\"' ")


@st.composite
def listings(draw: st.DrawFn) -> dict[str, Any]:
    """A whole listing: tools (their input and output schemas alike), prompts, resources and templates."""
    tools = []
    for name in draw(names(min_size=1, max_size=3)):
        schema = draw(tool_schema())
        tools.append({"name": name, "inputSchema": schema, "outputSchema": schema})
    prompts = [
        {
            "name": name,
            "arguments": [{"name": argument, "required": draw(st.booleans())} for argument in draw(names(max_size=3))],
        }
        for name in draw(names(max_size=2))
    ]
    resources = [
        {"uri": f"drawn://resource/{index}", "name": name} for index, name in enumerate(draw(names(max_size=1)))
    ]
    variable_names = names(min_size=1, max_size=2).filter(lambda found: all(map(_TEMPLATE_VARIABLE.fullmatch, found)))
    templates = []
    for index, name in enumerate(draw(names(max_size=2))):
        variables = draw(variable_names)
        uri = f"drawn://template{index}/" + "/".join(f"{{{variable}}}" for variable in variables)
        templates.append({"uriTemplate": uri, "name": name})
    return {"tools": tools, "prompts": prompts, "resources": resources, "resourceTemplates": templates}


def sample(schema: dict[str, Any], definitions: dict[str, Any], index: int = 0) -> Any:
    """A value of `schema` (`$ref`s into `definitions`), different for each `index`."""
    if "$ref" in schema:
        return sample(definitions[schema["$ref"].removeprefix("#/$defs/")], definitions, index)
    if "enum" in schema:
        return schema["enum"][index % len(schema["enum"])]
    kind = schema["type"]
    if kind == "object" and "properties" in schema:
        return {key: sample(sub, definitions, i) for i, (key, sub) in enumerate(schema["properties"].items())}
    if kind == "object":
        return {"k": sample(schema["additionalProperties"], definitions, index)}
    if kind == "array":
        return [sample(schema["items"], definitions, index), sample(schema["items"], definitions, index + 1)]
    values = {"string": f"s{index}", "integer": index, "number": index + 0.5, "boolean": index % 2 == 0}
    return values[kind[0] if isinstance(kind, list) else kind]
