"""What Temporal sees of a package: its activities' names and the failure types its activities raise.

Names come from the server's name and a tool's wire name, never from Python names, so they stay the same
across regenerations (a renamed method keeps its activity); histories recorded before still replay.
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


def tool_activity(server: str, tool: str) -> str:
    """The activity of a tool: `mcp:<server>:tool:<wire name>`."""
    return f"mcp:{server}:tool:{tool}"


def listing_activity(server: str, kind: str) -> str:
    """The activity listing a server's tools, resources or prompts: `mcp:<server>:list:<kind>`."""
    return f"mcp:{server}:list:{kind}"
