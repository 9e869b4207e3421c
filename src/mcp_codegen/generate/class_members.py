"""The names classes already use (pydantic's models, the generated clients' runtime bases and the client template's
own members), which no generated name may take: read from the classes once per generator and pydantic release,
then from the user's cache.

So a run's main process imports neither pydantic nor the runtime's clients (~70 ms of a 0.5 s regeneration);
the names are still read from the classes, never kept as a list: a member added to the runtime is reserved by
the next run, whose generator fingerprint has changed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import re
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ClassMembers:
    #: Attributes of pydantic models, their metaclass's included: datamodel-code-generator renames a field
    #: `mro` or `register` too.
    pydantic_model: frozenset[str]
    #: Public names of the generated client classes: their runtime bases' members and the members the
    #: template adds (`prompts`, `skills`...). A tool method must not shadow them.
    client: frozenset[str]
    #: Public names of the generated `prompts` and `resources` namespaces and their bases.
    namespaces: frozenset[str]
    #: Public names of the `client.tasks` namespace and its bases, which its per-tool methods must not shadow.
    tasks: frozenset[str]
    #: Public names of the fake server's hook namespaces (`fake.tools`, `.prompts`, `.resources`: one attribute
    #: per tool, prompt and resource in the generated `testing.py`).
    hooks: frozenset[str]
    #: Names code mode's sandbox module defines beside the tools' functions (`search_api`).
    code_module: frozenset[str]
    #: Names the generated `models` package binds (`importlib`): a tool's models module (named as its method)
    #: must not replace one.
    models_package: frozenset[str]


#: The generated classes (in `templates/client.py.jinja`) of each kind of namespace.
_CLIENT_CLASSES = ("AsyncClient", "Client")
_NAMESPACE_CLASSES = ("AsyncPrompts", "Prompts", "AsyncResources", "Resources")
_TASKS_CLASSES = ("AsyncTasks", "Tasks")
_CLASS_LINE = re.compile(r"^class (\w+)\(", re.MULTILINE)
_IMPORT_LINE = re.compile(r"^import (\w+)")
_FROM_LINE = re.compile(r"^from [\w.]+ import ([\w, ()]+)$")
_BINDING_LINE = re.compile(r"^(?:(?:async )?def |class )(\w+)|^(\w+) *(?::[^=]*)?=")
_MEMBER_LINE = re.compile(r"^    (?:(?:async )?def ([A-Za-z_]\w*)\(|([A-Za-z_]\w*) *[:=])", re.MULTILINE)


@cache
def class_members() -> ClassMembers:
    """The members, from the user's cache when this generator and pydantic release read them before."""
    from mcp_codegen.generate.cache import ResultCache
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    key = hashlib.sha256(f"{generator_fingerprint()}\0{_pydantic_release()}".encode()).hexdigest()
    store = ResultCache.open("class-members", key, _valid)
    entry = store.get("members") if store is not None else None
    if entry is not None:
        return ClassMembers(**{name: frozenset(names) for name, names in entry.items()})
    members = read_class_members()
    if store is not None:
        store.put("members", {field.name: sorted(getattr(members, field.name)) for field in fields(members)})
    return members


def read_class_members() -> ClassMembers:
    """The members, read from the classes (imports pydantic and the runtime's clients)."""
    from pydantic import BaseModel

    import mcp_codegen_runtime as runtime
    from mcp_codegen_runtime import serving
    from mcp_codegen_runtime.code_mode.api import SEARCH_API_STUB

    own = template_members()
    return ClassMembers(
        pydantic_model=frozenset(dir(BaseModel)) | frozenset(dir(type(BaseModel))),
        client=public_members(runtime.AsyncClientBase, runtime.SyncClientBase) | own_members(own, _CLIENT_CLASSES),
        namespaces=public_members(
            runtime.AsyncPromptsBase, runtime.AsyncResourcesBase, runtime.SyncPromptsBase, runtime.SyncResourcesBase
        )
        | own_members(own, _NAMESPACE_CLASSES),
        tasks=public_members(runtime.AsyncTasksBase, runtime.SyncTasksBase) | own_members(own, _TASKS_CLASSES),
        hooks=public_members(serving.ToolHooks, serving.PromptHooks, serving.ResourceHooks),
        code_module=frozenset(
            node.name for node in ast.parse(SEARCH_API_STUB).body if isinstance(node, ast.FunctionDef | ast.ClassDef)
        ),
        models_package=template_module_names("models/package_init.py.jinja"),
    )


def template_members() -> dict[str, frozenset[str]]:
    """Class name -> the public names the client template itself declares in it (a method, a property, a class
    attribute), read from the template's text: the lines at the class body's indentation naming something."""
    from mcp_codegen.generate.fingerprint import templates_dir

    text = (templates_dir() / "client.py.jinja").read_text(encoding="utf-8")
    starts = list(_CLASS_LINE.finditer(text))
    members: dict[str, frozenset[str]] = {}
    for index, start in enumerate(starts):
        body = text[start.end() : starts[index + 1].start() if index + 1 < len(starts) else len(text)]
        names = {match.group(1) or match.group(2) for match in _MEMBER_LINE.finditer(body)}
        members[start.group(1)] = frozenset(name for name in names if not name.startswith("_"))
    return members


def template_module_names(template: str) -> frozenset[str]:
    """The names a module template binds at its top level (imports, functions, classes, assignments), read from its
    text: the unindented lines that bind something."""
    from mcp_codegen.generate.fingerprint import templates_dir

    text = (templates_dir() / template).read_text(encoding="utf-8")
    names: set[str] = set()
    for line in text.splitlines():
        if match := _IMPORT_LINE.match(line):
            names.add(match.group(1))
        elif match := _FROM_LINE.match(line):
            names.update(part.split(" as ")[-1].strip() for part in match.group(1).strip("()").split(","))
        elif match := _BINDING_LINE.match(line):
            names.add(match.group(1) or match.group(2))
    return frozenset(name for name in names if name.isidentifier())


def own_members(members: dict[str, frozenset[str]], classes: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name for cls in classes for name in members.get(cls, frozenset()))


def public_members(*classes: type) -> frozenset[str]:
    """Every public attribute `classes` have, inherited ones included (`dir` walks the MRO), and the instance
    attributes their classes declare (`name: T` in a class body, which `dir` does not list)."""
    declared = {name for cls in classes for klass in cls.__mro__ for name in inspect.get_annotations(klass)}
    return frozenset(
        name for name in {*declared, *(n for cls in classes for n in dir(cls))} if not name.startswith("_")
    )


def _pydantic_release() -> str:
    """The installed pydantic, told without importing it: its `version.py`, which holds the release, read as is."""
    spec = importlib.util.find_spec("pydantic")
    if spec is None or spec.origin is None:
        return ""
    try:
        return hashlib.sha256(Path(spec.origin).with_name("version.py").read_bytes()).hexdigest()
    except OSError:
        return spec.origin


def _valid(entry: dict[str, Any]) -> bool:
    names = {field.name for field in fields(ClassMembers)}
    return set(entry) == names and all(
        isinstance(value, list) and all(isinstance(item, str) for item in value) for value in entry.values()
    )
