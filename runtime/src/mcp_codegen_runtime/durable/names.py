"""What Temporal sees of a package: its activities' names and the failure types its activities raise.

Names come from the package's server key (its import name, unless `server_key=` says otherwise) and a tool's
wire name, never from Python names nor from the name the server reports (`serverInfo.name`), so they stay the
same across regenerations and server renames (a renamed method keeps its activity); recorded histories replay.
"""

from __future__ import annotations

__all__ = [
    "LISTINGS",
    "MAY_HAVE_RUN",
    "MAY_HAVE_RUN_CAUSES",
    "listing_activity",
    "tool_activity",
]

#: The listings run as activities, by the word their activity is named with.
LISTINGS = ("tools", "resources", "prompts")

#: The `ApplicationError.type` a workflow receives when a tool not safe to repeat may have run.
MAY_HAVE_RUN = "ToolMayHaveRunError"

#: The client's errors (as the failure types an activity raises) after which a sent call may have run.
MAY_HAVE_RUN_CAUSES = frozenset({"OutcomeUnknownError", "RequestTimeoutError"})


def tool_activity(server_key: str, tool: str) -> str:
    """The activity of a tool: `mcp:<server key>:tool:<wire name>`."""
    return f"mcp:{server_key}:tool:{tool}"


def listing_activity(server_key: str, kind: str) -> str:
    """The activity listing a server's tools, resources or prompts: `mcp:<server key>:list:<kind>`."""
    return f"mcp:{server_key}:list:{kind}"
