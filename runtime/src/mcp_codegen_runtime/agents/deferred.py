"""Deferred loading in the providers' own dialects: definitions the model finds with their tool search.

* Anthropic Messages API: every deferred definition gets `"defer_loading": true` and the tool search
  tool comes first (`tool_search_tool_bm25_20251119` or `tool_search_tool_regex_20251119`); the model's
  context holds the search tool, the kept tools and what a search returns. Anthropic refuses a
  definition with both `defer_loading` and `cache_control`, so the prompt-caching breakpoint goes on
  the last definition that is loaded: a kept tool, or the search tool when every tool is deferred.
* OpenAI Responses API: `{"type": "tool_search"}` first, the kept tools as plain functions, the
  deferred ones with `"defer_loading": true` inside namespaces (`{"type": "namespace", "name",
  "description", "tools"}`): one per server, and a server of more than `NAMESPACE_SIZE` tools split by
  the topic of their names (`list-mail-messages` and `send-mail` -> `mail`), since OpenAI advises
  fewer than 10 functions a namespace. `namespaces=None` sends them as top-level functions.

`keep` (glob patterns on the model's, wire or Python name) keeps tools loaded. The model calls a
deferred tool by its own name, so `handle_*` runs it as before.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..calls.specs import ToolSpec
from .frameworks import anthropic as agent_anthropic
from .frameworks import openai as agent_openai
from .search_index import name_words

if TYPE_CHECKING:
    from .strict import Strict
    from .tool import AgentTool

__all__ = [
    "NAMESPACE_SIZE",
    "Namespaces",
    "ToolSearch",
    "anthropic_deferred",
    "openai_responses_deferred",
]

#: Anthropic's tool search tools by the caller's choice (`tool_search=`).
ToolSearch = Literal["bm25", "regex"]
_ANTHROPIC_SEARCH: dict[str, dict[str, str]] = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {
        "type": "tool_search_tool_regex_20251119",
        "name": "tool_search_tool_regex",
    },
}
#: How deferred OpenAI functions are grouped: by server, split by topic past `NAMESPACE_SIZE`
#: ("auto"), by server only, or not at all (None).
Namespaces = Literal["auto", "server"] | None
NAMESPACE_SIZE = 10
#: Words that say what a tool does rather than what it acts on: skipped when naming its topic.
_VERBS = frozenset(
    "get list create update delete remove add send search find set run upload download move copy "
    "read write check start stop cancel show describe fetch query post put patch edit new make "
    "open close reply forward accept decline".split()
)


def _kept(tool: AgentTool, keep: tuple[str, ...]) -> bool:
    return any(
        fnmatch.fnmatchcase(name, pattern)
        for pattern in keep
        for name in (tool.name, tool.wire_name, tool.python_name)
    )


def _patterns(keep: str | Sequence[str] | None) -> tuple[str, ...]:
    if keep is None:
        return ()
    return (keep,) if isinstance(keep, str) else tuple(keep)


def anthropic_deferred(
    tools: Iterable[AgentTool],
    *,
    keep: str | Sequence[str] | None = None,
    tool_search: ToolSearch = "bm25",
    cache_control: agent_anthropic.CacheControl = None,
) -> list[dict[str, Any]]:
    """The search tool, then every definition, `"defer_loading": true` on those `keep` leaves out;
    `cache_control` on the last definition that is not deferred."""
    if tool_search not in _ANTHROPIC_SEARCH:
        raise ValueError(f"tool_search must be 'bm25' or 'regex', not {tool_search!r}")
    kept = _patterns(keep)
    definitions: list[dict[str, Any]] = [dict(_ANTHROPIC_SEARCH[tool_search])]
    for tool in tools:
        definition = agent_anthropic.tool_definition(tool)
        if not _kept(tool, kept):
            definition["defer_loading"] = True
        definitions.append(definition)
    control = agent_anthropic.cache_control_value(cache_control)
    if control is not None:
        # Anthropic refuses a definition with both `defer_loading` and `cache_control`, and
        # deferred ones are not in the cached prefix anyway: the breakpoint goes on the last
        # loaded one, the search tool itself when every tool is deferred.
        loaded = [item for item in definitions if not item.get("defer_loading")]
        loaded[-1]["cache_control"] = control
    return definitions


def _server(tool: AgentTool) -> str | None:
    spec = tool.spec
    if isinstance(spec, ToolSpec):
        name = spec.snapshot.server_info.get("name")
        if isinstance(name, str) and name:
            return name
    return None


def _topic(tool: AgentTool) -> str:
    words = name_words(tool.wire_name) or [tool.wire_name.lower()]
    return next((word for word in words if word not in _VERBS), words[0])


def _namespace_name(text: str, taken: set[str]) -> str:
    name = base = re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")[:56] or "tools"
    count = 1
    while name in taken:
        count += 1
        name = f"{base}_{count}"
    taken.add(name)
    return name


def _groups(
    tools: list[AgentTool], namespaces: Literal["auto", "server"]
) -> list[tuple[str, str, list[AgentTool]]]:
    """(name, description, tools) of each namespace, in the order of their first tool."""
    by_server: dict[str, list[AgentTool]] = {}
    default = next((s for s in map(_server, tools) if s is not None), "tools")
    for tool in tools:
        by_server.setdefault(_server(tool) or default, []).append(tool)
    taken: set[str] = set()
    groups: list[tuple[str, str, list[AgentTool]]] = []
    for server, members in by_server.items():
        parts: dict[str, list[AgentTool]] = {}
        if namespaces == "server" or len(members) <= NAMESPACE_SIZE:
            parts[""] = members
        else:
            for tool in members:
                parts.setdefault(_topic(tool), []).append(tool)
            # Topics of one or two tools share one namespace rather than make dozens.
            few = [topic for topic, part in parts.items() if len(part) < 3]
            if len(few) > 1:
                parts["other"] = [tool for topic in few for tool in parts.pop(topic)]
        for topic, part in parts.items():
            listed = ", ".join(tool.name for tool in part)
            if len(listed) > 300:
                listed = listed[:297].rsplit(", ", 1)[0] + ", ..."
            about = f"{topic} tools of {server}" if topic else f"Tools of {server}"
            name = _namespace_name(f"{server}_{topic}" if topic else server, taken)
            groups.append((name, f"{about}: {listed}", part))
    return groups


def openai_responses_deferred(
    tools: Iterable[AgentTool],
    *,
    keep: str | Sequence[str] | None = None,
    strict: Strict = False,
    namespaces: Namespaces = "auto",
) -> list[dict[str, Any]]:
    """`{"type": "tool_search"}`, the kept functions, then the deferred ones (in namespaces)."""
    kept = _patterns(keep)
    listed = list(tools)
    definitions: list[dict[str, Any]] = [{"type": "tool_search"}]
    deferred: list[AgentTool] = []
    for tool in listed:
        if _kept(tool, kept):
            definitions.append(agent_openai.responses_tool(tool, strict=strict))
        else:
            deferred.append(tool)

    def function(tool: AgentTool) -> dict[str, Any]:
        return {
            **agent_openai.responses_tool(tool, strict=strict),
            "defer_loading": True,
        }

    if namespaces is None:
        definitions.extend(function(tool) for tool in deferred)
        return definitions
    for name, description, members in _groups(deferred, namespaces):
        definitions.append(
            {
                "type": "namespace",
                "name": name,
                "description": description,
                "tools": [function(tool) for tool in members],
            }
        )
    return definitions
