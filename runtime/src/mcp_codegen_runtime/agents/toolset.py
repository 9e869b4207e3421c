"""`ToolSet`: agent tools by the name the model sees (a read-only mapping), converted and run as a whole."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .deferred import (
    Namespaces,
    ToolSearch,
    anthropic_deferred,
    openai_responses_deferred,
)
from .frameworks import (
    adk as agent_adk,
)
from .frameworks import (
    anthropic as agent_anthropic,
)
from .frameworks import (
    claude as agent_claude,
)
from .frameworks import (
    openai as agent_openai,
)
from .frameworks import (
    pydantic_ai as agent_pydantic_ai,
)
from .frameworks import (
    smolagents as agent_smolagents,
)
from .names import agent_tool_names, distinct_name
from .tool import AgentTool

if TYPE_CHECKING:
    from ..calls.specs import ToolSpec
    from .extras import ExtraSpec
    from .protocols import LoopRunner, ToolCaller
    from .search import Embed, Searcher
    from .strict import Strict

__all__ = ["ToolSet", "make_toolset"]


def _patterns(value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _matches(spec: ToolSpec[Any, Any], patterns: tuple[str, ...]) -> bool:
    return any(
        fnmatch.fnmatchcase(spec.name, pattern)
        or fnmatch.fnmatchcase(spec.python_name, pattern)
        for pattern in patterns
    )


def make_toolset(
    specs: Iterable[ToolSpec[Any, Any]],
    *,
    client: ToolCaller | None = None,
    include: str | Sequence[str] | None = None,
    exclude: str | Sequence[str] | None = None,
    prefix: str = "",
    namespace: str | None = None,
    timeout: float | None = None,
    descriptions: Mapping[str, str] | None = None,
    extras: Iterable[ExtraSpec] = (),
) -> ToolSet:
    """Agent tools for `specs` (selected by glob patterns) and `extras` (resource and prompt
    tools, see `agent_extras`), named by `toolnames.agent_tool_names`, all distinct.

    App-only tools (MCP Apps: `_meta.ui.visibility` without "model") are left out here, the one
    door into the agent layer: no converter offers them and a model's call to one is refused as
    an unknown tool. Typed methods still call them.
    """
    included = _patterns(include)
    excluded = _patterns(exclude)
    chosen = [
        spec
        for spec in specs
        if spec.model_visible
        and (not included or _matches(spec, included))
        and not (excluded and _matches(spec, excluded))
    ]
    names = agent_tool_names(
        [spec.name for spec in chosen], prefix=prefix, namespace=namespace
    )
    overrides = descriptions or {}
    tools = [
        AgentTool(
            spec,
            name=names[spec.name],
            client=client,
            timeout=timeout,
            description=overrides.get(spec.name, overrides.get(spec.python_name)),
        )
        for spec in chosen
    ]
    extra = list(extras)
    if extra:
        extra_names = agent_tool_names(
            [spec.name for spec in extra], prefix=prefix, namespace=namespace
        )
        taken = {tool.name for tool in tools}
        for spec in extra:
            name = distinct_name(extra_names[spec.name], taken)
            taken.add(name)
            tools.append(
                AgentTool(
                    spec,
                    name=name,
                    client=client,
                    timeout=timeout,
                    description=overrides.get(spec.name),
                )
            )
    return ToolSet(tools)


class ToolSet(Mapping[str, AgentTool]):
    """Agent tools by the name the model sees, in order: `tools["get_weather"]`, `tools.values()`.

    A read-only mapping: iterating gives the names (`keys()`), `values()` the `AgentTool`s,
    `len()` and `in` work as for a dict; `tools[name]` and `name in tools` also find a tool by its
    wire or Python name. Converts all of them at once (`to_openai()`, `to_anthropic()`,
    `to_langchain()`, `to_pydantic_ai()` (a toolset), `to_openai_agents()`) and runs a model's
    tool calls (`handle_openai_tool_calls`, `handle_anthropic_tool_use`, ...) by the names it
    handed out.
    """

    __slots__ = ("_by_name", "_searcher")

    def __init__(self, tools: Iterable[AgentTool]) -> None:
        listed = list(tools)
        self._by_name = {tool.name: tool for tool in listed}
        self._searcher: Searcher | None = None
        if len(self._by_name) != len(listed):
            raise ValueError("agent tool names must be distinct")

    @classmethod
    def from_specs(
        cls,
        specs: Iterable[ToolSpec[Any, Any]],
        *,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        prefix: str = "",
        namespace: str | None = None,
    ) -> ToolSet:
        """Unbound tools (definitions only) for specs such as `TOOLS.values()`; `bind(client)` later."""
        return make_toolset(
            specs, include=include, exclude=exclude, prefix=prefix, namespace=namespace
        )

    def bind(
        self,
        client: ToolCaller | LoopRunner,
        *,
        timeout: float | None = None,
    ) -> ToolSet:
        """A copy of every tool bound to `client` (an async or a blocking client)."""
        return ToolSet(
            tool.bind(client, timeout=timeout) for tool in self._by_name.values()
        )

    # ---- the mapping

    def __getitem__(self, name: str) -> AgentTool:
        tool = self.find(name)
        if tool is None:
            raise KeyError(name)
        return tool

    def find(self, name: str) -> AgentTool | None:
        """The tool named `name` (as the model sees it), else by wire or Python name, else None."""
        tool = self._by_name.get(name)
        if tool is not None:
            return tool
        for candidate in self._by_name.values():
            if name in (candidate.wire_name, candidate.python_name):
                return candidate
        return None

    def __len__(self) -> int:
        return len(self._by_name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    @property
    def names(self) -> list[str]:
        """The names the model sees, in order (`list(tools)`)."""
        return list(self._by_name)

    def __repr__(self) -> str:
        return f"ToolSet({self.names!r})"

    # ---- search (agents.search, agents.meta_tools)

    def search(
        self,
        query: str,
        *,
        limit: int = 5,
        embed: Embed | None = None,
        semantic: bool = False,
    ) -> list[AgentTool]:
        """The `limit` tools of this set most relevant to `query`, best first.

        Ranked by the package's shipped BM25F index (tool names split into words, titles,
        descriptions, parameter names and descriptions, weighted; no network). `semantic=True`
        fuses it with a static embedding model's similarity (the `semantic` extra: `pip install
        "mcp-codegen-runtime[semantic]"`; ImportError naming it when missing); `embed` (texts ->
        vectors, your own model) fuses it with that model's similarity instead. Only this set's
        tools are ranked, so its filters apply. See `agents.search` and `agents.semantic`.
        """
        searcher = self._searcher
        if searcher is None:
            from .search import Searcher

            searcher = self._searcher = Searcher(list(self._by_name.values()))
        return searcher.search(query, limit, embed, semantic)

    def searching(
        self, *, limit: int = 5, embed: Embed | None = None, semantic: bool = False
    ) -> ToolSet:
        """This set as two tools, `search_tools(query)` and `call_tool(name, arguments)`, bound
        like its tools (what `client.tools(search=True)` returns; see `agents.meta_tools`).
        `semantic` and `embed` rank `search_tools`' matches as in `search()`.
        """
        from .meta_tools import meta_specs

        if semantic:
            from .semantic import load_model

            load_model()  # a missing extra is reported here, not on the model's first search
        first = next(iter(self._by_name.values()), None)
        tools = [
            AgentTool(spec, client=first.client if first else None)
            for spec in meta_specs(self, limit=limit, embed=embed, semantic=semantic)
        ]
        if first is not None and first.sync_client is not None:
            return ToolSet(tools).bind(first.sync_client)
        return ToolSet(tools)

    # ---- conversions (each framework's module builds the definitions)

    def to_openai(self, *, strict: Strict = False) -> list[dict[str, Any]]:
        """OpenAI Chat Completions tools: the `tools=` of `client.chat.completions.create(...)`.

        `strict=True` sends OpenAI's strict form of every tool (NotStrictError naming a tool that
        has none, see `AgentTool.strict_error`); `strict="auto"` sends it for the tools that have
        one and the plain schema for the others; `False` (the default) the server's schema. The
        `handle_*` methods map a strict answer's nulls back to "not sent" whatever was chosen.
        """
        return [tool.to_openai(strict=strict) for tool in self._by_name.values()]

    def to_openai_responses(
        self,
        *,
        strict: Strict = False,
        defer_loading: bool = False,
        keep: str | Sequence[str] | None = None,
        namespaces: Namespaces = "auto",
    ) -> list[dict[str, Any]]:
        """OpenAI Responses API function tools (`strict` as in `to_openai`, always stated).

        `defer_loading=True` adds the `tool_search` tool and defers every tool but those `keep`
        names (glob patterns), grouped in `namespaces` (see `agents.deferred`).
        """
        if defer_loading:
            return openai_responses_deferred(
                self._by_name.values(), keep=keep, strict=strict, namespaces=namespaces
            )
        return [
            tool.to_openai_responses(strict=strict) for tool in self._by_name.values()
        ]

    def to_anthropic(
        self,
        *,
        cache_control: agent_anthropic.CacheControl = None,
        defer_loading: bool = False,
        keep: str | Sequence[str] | None = None,
        tool_search: ToolSearch = "bm25",
    ) -> list[dict[str, Any]]:
        """Anthropic tools; `cache_control` (True or a dict) goes on the last one, caching them all.

        `defer_loading=True` adds Anthropic's tool search tool (`tool_search="bm25"` or
        `"regex"`) and marks every tool but those `keep` names (glob patterns) `defer_loading`;
        `cache_control` then goes on the last tool that is not deferred (the search tool when
        `keep` names none), since Anthropic refuses a definition with both.
        """
        if defer_loading:
            return anthropic_deferred(
                self._by_name.values(),
                keep=keep,
                tool_search=tool_search,
                cache_control=cache_control,
            )
        return agent_anthropic.tool_definitions(
            self._by_name.values(), cache_control=cache_control
        )

    def to_langchain(self) -> list[Any]:
        """LangChain `StructuredTool`s (async and blocking)."""
        return [tool.to_langchain() for tool in self._by_name.values()]

    def to_pydantic_ai(self) -> Any:
        """A pydantic-ai `FunctionToolset` of every tool: `Agent(model, toolsets=[tools.to_pydantic_ai()])`."""
        return agent_pydantic_ai.function_toolset(self._by_name.values())

    def to_openai_agents(self, *, strict: Strict = "auto") -> list[Any]:
        """OpenAI Agents SDK `FunctionTool`s (`strict` as in `to_openai`; `"auto"` by default)."""
        return [tool.to_openai_agents(strict=strict) for tool in self._by_name.values()]

    def to_claude_agent_sdk(
        self, name: str = "tools", *, version: str = "1.0.0"
    ) -> Any:
        """A Claude Agent SDK in-process server config (`McpSdkServerConfig`) of every tool.

        Pass it as `ClaudeAgentOptions(mcp_servers={name: config},
        allowed_tools=tools.claude_allowed_tools(name))`; `name` must be the key it is given there.
        """
        return agent_claude.sdk_server(self._by_name.values(), name, version)

    def claude_allowed_tools(self, name: str = "tools") -> list[str]:
        """The tools' names in Claude Code for the server `name`: `mcp__<name>__<tool>`."""
        return agent_claude.allowed_tools(self._by_name.values(), name)

    def to_adk(
        self,
        *,
        tool_filter: Callable[..., bool] | list[str] | None = None,
        tool_name_prefix: str | None = None,
        close_client: bool = False,
    ) -> Any:
        """A Google ADK `BaseToolset` of every tool: `LlmAgent(tools=[tools.to_adk()])`.

        `tool_filter` (names or ADK's predicate) and `tool_name_prefix` work as in ADK's toolsets;
        with `close_client=True` the toolset owns the client and its `close()` closes it.
        """
        return agent_adk.adk_toolset(
            self._by_name.values(),
            tool_filter=tool_filter,
            tool_name_prefix=tool_name_prefix,
            close_client=close_client,
        )

    def to_smolagents(self) -> list[Any]:
        """smolagents `Tool`s (names made Python identifiers, kept distinct); a blocking `Client`'s tools."""
        taken: set[str] = set()
        built: list[Any] = []
        for tool in self._by_name.values():
            name = base = agent_smolagents.identifier(tool.name)
            count = 1
            while name in taken:
                count += 1
                name = f"{base}_{count}"
            taken.add(name)
            built.append(agent_smolagents.smolagents_tool(tool, name=name))
        return built

    def to_llama_index(self) -> list[Any]:
        """LlamaIndex `FunctionTool`s: `FunctionAgent(tools=tools.to_llama_index(), llm=...)`."""
        return [tool.to_llama_index() for tool in self._by_name.values()]

    # ---- running a model's calls

    async def handle_openai_tool_calls(
        self, tool_calls: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """See `AsyncClient.handle_openai_tool_calls`; names are resolved within this set."""
        return await agent_openai.handle_openai_tool_calls(
            self.find, tool_calls, timeout
        )

    async def handle_openai_responses_calls(
        self, output: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """See `AsyncClient.handle_openai_responses_calls`; names are resolved within this set."""
        return await agent_openai.handle_openai_responses_calls(
            self.find, output, timeout
        )

    async def handle_anthropic_tool_use(
        self, content: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """See `AsyncClient.handle_anthropic_tool_use`; names are resolved within this set."""
        return await agent_anthropic.handle_anthropic_tool_use(
            self.find, content, timeout
        )
