"""The async client base the generated `AsyncClient` extends with one typed method per tool.

Built from parts, one job each: `core` (the session and sending requests), `server_features`
(listings, resources, prompts, roots), `tool_calls` (typed `tools/call`), `agent_tools` (agent
tools and model tool calls), `code_calls` (code mode), `connectors` (`stdio()`, `http()`, `connect()`, ...)
and `replaying` (`replay()`).
"""

from __future__ import annotations

from .agent_tools import AgentTools
from .code_calls import CodeCalls
from .core import ClientCore
from .namespaces import (
    AsyncPromptsBase,
    AsyncResourcesBase,
    prompt_arguments,
    template_uri,
)
from .replaying import Replaying
from .server_features import ServerFeatures
from .tool_calls import ToolCalls

__all__ = [
    "AsyncClientBase",
    "AsyncPromptsBase",
    "AsyncResourcesBase",
    "prompt_arguments",
    "template_uri",
]


class AsyncClientBase(
    Replaying, AgentTools, CodeCalls, ToolCalls, ServerFeatures, ClientCore
):
    """An MCP client session with typed calls; the generated `AsyncClient` adds one method per tool.

    Create one with `stdio()`, `http()` or `connect()` (async context managers that own the
    connection) or wrap a session you manage with `from_session()`. Calls may run concurrently.
    `with_options()` gives a view of the same client whose calls use per-call options.
    """

    __slots__ = ()
