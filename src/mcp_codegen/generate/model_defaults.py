"""Array and object defaults: which ones a model keeps (`default_fits`) and how it holds them (`hold_object_defaults`).

A schema's `"default": []` must reach the arguments model as `[]`, not as `None`: the fake server's handlers and
the typed method's validation read the model, and a real server applies the default. Defaults are server data:
they reach the generated code only as the JSON literals datamodel-code-generator writes for them.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import json
import os
from collections.abc import Mapping, MutableMapping
from importlib import import_module
from typing import Any

from mcp_codegen.generate.cache import ResultCache, cache_root


def default_fits(value: Any, schema: Any, root: Any) -> bool:
    """Whether `value` is valid against `schema`, a subschema of `root` whose local `$ref`s resolve in `root`.

    `jsonschema` (a dependency of `mcp`) is imported only when a schema has an array or object default, and the
    verdict is kept in the user's cache (importing jsonschema costs a regeneration ~0.15 s on its own).
    """
    try:
        key = hashlib.sha256(json.dumps([value, schema, root], separators=(",", ":")).encode()).hexdigest()
    except (TypeError, ValueError):
        return _validates(value, schema, root)
    store = _verdicts(str(cache_root()), bool(os.environ.get("MCP_CODEGEN_NO_CACHE")))
    entry = store.get(key) if store is not None else None
    if entry is not None:
        return bool(entry["fits"])
    fits = _validates(value, schema, root)
    if store is not None:  # new verdicts are few (only new defaults): pruning after each is cheap
        store.put(key, {"fits": fits})
        store.prune()
    return fits


@functools.cache
def _verdicts(root: str, off: bool) -> ResultCache | None:
    """The cache of `default_fits` verdicts (one per cache directory this process used)."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    return None if off else ResultCache.open("default-fits", generator_fingerprint(), _valid_verdict)


def _valid_verdict(entry: dict[str, Any]) -> bool:
    return isinstance(entry["fits"], bool)


def _validates(value: Any, schema: Any, root: Any) -> bool:
    try:
        validators = import_module("jsonschema.validators")
        validator_class = validators.validator_for(root, default=validators.Draft202012Validator)
        # `evolve` keeps the root's resolver: refs in `schema` resolve in `root`.
        return bool(validator_class(root).evolve(schema=schema).is_valid(value))
    except Exception:  # a schema jsonschema cannot read (or one too deep): the default is left out
        return False


def hold_object_defaults(definitions: Mapping[str, ast.stmt], imports: MutableMapping[str, str]) -> None:
    """Write each field default holding a JSON object as a factory that validates it into the field's type.

    The model generator writes `author: Author = {"name": "x"}` (and `[{"x": 1}]` for a list of models), which
    pydantic accepts but `mypy --strict` rejects; `Field(default_factory=lambda: TypeAdapter(Author)
    .validate_python({"name": "x"}))` is the same default, typed. Lists of scalars and `[]` stay as written.
    """
    for node in definitions.values():
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            if (
                isinstance(statement, ast.AnnAssign)
                and statement.value is not None
                and any(isinstance(item, ast.Dict) for item in ast.walk(statement.value))
                and _names(statement.annotation) & definitions.keys()
            ):
                statement.value = _factory(copy.deepcopy(_plain(statement.annotation)), statement.value)
                imports.setdefault("TypeAdapter", "from pydantic import TypeAdapter")
                imports.setdefault("Field", "from pydantic import Field")


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _plain(annotation: ast.expr) -> ast.expr:
    """The type of `Annotated[T, Field(...)]`: T (its constraints stay on the field)."""
    if (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "Annotated"
        and isinstance(annotation.slice, ast.Tuple)
    ):
        return annotation.slice.elts[0]
    return annotation


def _factory(type_: ast.expr, value: ast.expr) -> ast.expr:
    """`Field(default_factory=lambda: TypeAdapter(type_).validate_python(value))`."""
    adapter = ast.Call(ast.Name("TypeAdapter", ast.Load()), [type_], [])
    validated = ast.Call(ast.Attribute(adapter, "validate_python", ast.Load()), [value], [])
    factory = ast.Lambda(ast.arguments([], [], None, [], [], None, []), validated)
    return ast.Call(ast.Name("Field", ast.Load()), [], [ast.keyword("default_factory", factory)])


def default_source(value: ast.expr) -> str:
    """A field's default as the README shows it: the JSON literal of a `hold_object_defaults` factory."""
    if (
        isinstance(value, ast.Call)
        and [k.arg for k in value.keywords] == ["default_factory"]
        and isinstance(factory := value.keywords[0].value, ast.Lambda)
        and isinstance(validated := factory.body, ast.Call)
        and isinstance(validated.func, ast.Attribute)
        and validated.func.attr == "validate_python"
        and len(validated.args) == 1
    ):
        return ast.unparse(validated.args[0])
    return ast.unparse(value)
