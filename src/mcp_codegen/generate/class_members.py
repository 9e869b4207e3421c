"""The names classes already use (pydantic's models, the generated clients' runtime bases), which no generated name
may take: read from the classes once per generator and pydantic release, then from the user's cache.

So a run's main process imports neither pydantic nor the runtime's clients (~70 ms of a 0.5 s regeneration);
the names are still read from the classes, never kept as a list: a member added to the runtime is reserved by
the next run, whose generator fingerprint has changed.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ClassMembers:
    #: Attributes of pydantic models, their metaclass's included: datamodel-code-generator renames a field
    #: `mro` or `register` too.
    pydantic_model: frozenset[str]
    #: Public names of the generated client classes: their runtime bases' members and the properties the
    #: template adds. A tool method must not shadow them.
    client: frozenset[str]
    #: Public names of the generated `prompts` and `resources` namespaces' bases.
    namespaces: frozenset[str]
    #: Public names of the `client.tasks` namespace's bases, which its per-tool methods must not shadow.
    tasks: frozenset[str]


#: Properties the client template adds to its runtime bases.
_TEMPLATE_MEMBERS = frozenset({"prompts", "resources"})


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

    return ClassMembers(
        pydantic_model=frozenset(dir(BaseModel)) | frozenset(dir(type(BaseModel))),
        client=public_members(runtime.AsyncClientBase, runtime.SyncClientBase) | _TEMPLATE_MEMBERS,
        namespaces=public_members(
            runtime.AsyncPromptsBase, runtime.AsyncResourcesBase, runtime.SyncPromptsBase, runtime.SyncResourcesBase
        ),
        tasks=public_members(runtime.AsyncTasksBase, runtime.SyncTasksBase),
    )


def public_members(*classes: type) -> frozenset[str]:
    """Every public attribute `classes` have, inherited ones included (`dir` walks the MRO)."""
    return frozenset(name for cls in classes for name in dir(cls) if not name.startswith("_"))


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
