"""Typed tool calls as Temporal activities: `activities` (the worker's side), `workflow` (the workflow's side).

Only a generated package's `temporal` module imports these names, and only their modules import `temporalio`
(the runtime's `temporal` extra): each is imported on first use, so a package used without it never loads
Temporal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .activities import Activities, Connect, tool_activities
    from .workflow import (
        ActivityOptions,
        ToolMayHaveRunError,
        ToolsBase,
        bind_lazy_names,
    )

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "activities": ("Activities", "Connect", "tool_activities"),
        "workflow": (
            "ActivityOptions",
            "ToolMayHaveRunError",
            "ToolsBase",
            "bind_lazy_names",
        ),
    },
)

__all__ = [
    "Activities",
    "ActivityOptions",
    "Connect",
    "ToolMayHaveRunError",
    "ToolsBase",
    "bind_lazy_names",
    "tool_activities",
]
