"""The names the generated clients' runtime bases already use, read from those classes: no method may take one.

Apart from `naming.py` because it imports the runtime, which the model generator's workers never need.
"""

from __future__ import annotations

from mcp_codegen import runtime


def public_members(*classes: type) -> frozenset[str]:
    """Every public attribute `classes` have, inherited ones included (`dir` walks the MRO)."""
    return frozenset(name for cls in classes for name in dir(cls) if not name.startswith("_"))


#: Public names of the generated client classes: their runtime bases' members (read from the classes, so a
#: member added to the runtime is reserved without a list to update) and the properties the template adds.
#: A tool method must not shadow them. The runtime is already imported by the generator (drift hashes).
_TEMPLATE_MEMBERS = frozenset({"prompts", "resources"})
RESERVED_CLIENT_MEMBERS: frozenset[str] = (
    public_members(runtime.AsyncClientBase, runtime.SyncClientBase) | _TEMPLATE_MEMBERS
)

#: Public names of the generated `prompts` and `resources` namespaces' bases, which their methods must not shadow.
RESERVED_NAMESPACE_MEMBERS: frozenset[str] = public_members(
    runtime.AsyncPromptsBase, runtime.AsyncResourcesBase, runtime.SyncPromptsBase, runtime.SyncResourcesBase
)

#: Public names of the `client.tasks` namespace's bases, which its per-tool methods must not shadow.
RESERVED_TASKS_MEMBERS: frozenset[str] = public_members(runtime.AsyncTasksBase, runtime.SyncTasksBase)
