"""The client's tools as agent tools (`tools()`) and running a model's tool calls (`handle_*`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
)

from .tool_calls import ToolCalls

if TYPE_CHECKING:
    from ..agents.protocols import ToolCaller
    from ..agents.tool import AgentTool
    from ..agents.toolset import ToolSet
    from ..calls.specs import ToolSpec


class AgentTools(ToolCalls):
    """The client's tools as agent tools (`tools()`) and running a model's tool calls (`handle_*`)."""

    __slots__ = ()

    def tools(
        self,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        *,
        prefix: str | None = None,
        namespace: str | bool | None = None,
        timeout: float | None = None,
        descriptions: Mapping[str, str] | None = None,
        resources: bool = False,
        prompts: bool = False,
        search: bool = False,
        code: bool = False,
        semantic: bool = False,
    ) -> ToolSet:
        """This client's tools as framework-neutral agent tools, bound to this client.

        `resources=True` adds `list_resources`, `read_resource` and one `read_<template>` tool
        per resource template; `prompts=True` one `prompt_<prompt>` tool per prompt (see
        `agent_extras`); `include`/`exclude` select server tools only.

        `include`/`exclude`: glob patterns (`fnmatch`, e.g. `"get_*"`) on wire or Python names.
        `prefix` is prepended to every name the model sees (default: the `--tool-prefix` chosen at
        generation); `namespace=True` names them `mcp__<server>__<tool>` (the server's name), a
        string uses that string as `<server>`. Names are valid for OpenAI and Anthropic (at most
        64 characters of `[a-zA-Z0-9_-]`) and distinct. `timeout` bounds every call (seconds);
        `descriptions` replaces descriptions by wire name. See `agent_toolset.ToolSet`.

        `search=True` gives the model two tools instead, `search_tools(query)` and
        `call_tool(name, arguments)`, over the tools chosen (`ToolSet.searching()`): a first turn
        of a few kilobytes however large the server.

        `code=True` gives the model one tool instead, `run_python(code)`: its Python runs against the
        chosen tools' typed code API in a sandbox (`run_code()`; see `code_mode.agent_tool`).

        `semantic=True` (with `search` or `code`) ranks `search_tools`' and `search_api`'s
        matches with the static embedding model fused with the lexical index (the `semantic`
        extra; see `ToolSet.search`).
        """
        if semantic and not (search or code):
            raise ValueError(
                "semantic=True ranks search_tools' or search_api's matches: give it with "
                "search=True or code=True (or call tools().search(query, semantic=True))"
            )
        toolset = type(self).toolset_for(
            self,
            include,
            exclude,
            prefix=prefix,
            namespace=self._namespace(namespace),
            timeout=timeout,
            descriptions=descriptions,
            resources=resources,
            prompts=prompts,
        )
        if search:
            toolset = toolset.searching(semantic=semantic)
        elif code:
            from ..code_mode.agent_tool import code_toolset
            from .code_calls import package_code_api

            if semantic:
                from ..agents.semantic import load_model

                load_model()  # a missing extra is reported here, not on the first search_api
            toolset = code_toolset(
                toolset, package_code_api(type(self)), semantic=semantic
            )
        self._register_agent_tools(toolset.values())
        return toolset

    @classmethod
    def toolset_for(
        cls,
        caller: ToolCaller,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        *,
        prefix: str | None = None,
        namespace: str | None = None,
        timeout: float | None = None,
        descriptions: Mapping[str, str] | None = None,
        resources: bool = False,
        prompts: bool = False,
    ) -> ToolSet:
        """`tools()` of this client class, bound to `caller` (a client, or a stand-in that connects
        on first use: a lazy `Toolkit`); built from the package's specs, no connection needed.
        """
        # Imported on first use: plain calls do not need the agent modules.
        from ..agents.extras import extra_specs
        from ..agents.toolset import make_toolset

        extras = extra_specs(
            templates=cls._templates.values(),
            prompts=cls._prompts.values(),
            resources=resources,
            with_prompts=prompts,
        )
        return make_toolset(
            cls._tools.values(),
            client=caller,
            include=include,
            exclude=exclude,
            prefix=cls._tool_prefix if prefix is None else prefix,
            namespace=namespace,
            timeout=timeout,
            descriptions=descriptions,
            extras=extras,
        )

    @property
    def tool_specs(self) -> Mapping[str, ToolSpec[Any, Any]]:
        """The specs of this client's tools by wire name (the generated package's `TOOLS`)."""
        return self._tools

    def _register_agent_tools(self, tools: Iterable[AgentTool]) -> None:
        registry = self._agent_tools
        if registry is None:
            registry = self._agent_tools = {}
        for tool in tools:
            registry[tool.name] = tool

    def _namespace(self, namespace: str | bool | None) -> str | None:
        if namespace is None or namespace is False:
            return None
        if isinstance(namespace, str):
            return namespace
        for spec in self._tools.values():
            name = spec.snapshot.server_info.get("name")
            if isinstance(name, str) and name:
                return name
            break
        info = self._session.server_info
        return info.name if info is not None else "server"

    def _agent_tool(self, name: str) -> AgentTool | None:
        """The agent tool a model called `name`: from `tools()`, else by wire or Python name (never an
        app-only one: refused as unknown, as `make_toolset` leaves it out)."""
        registry = self._agent_tools
        if registry is not None:
            tool = registry.get(name)
            if tool is not None:
                return tool
        spec = self._tools.get(name)
        if spec is None:
            spec = next(
                (s for s in self._tools.values() if s.python_name == name), None
            )
        if spec is None or not spec.model_visible:
            return None
        from ..agents.tool import AgentTool

        return AgentTool(spec, client=self)

    async def handle_openai_tool_calls(
        self, tool_calls: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the tool calls of one OpenAI Chat Completions message, concurrently.

        `tool_calls` is `message.tool_calls` (SDK objects or dicts). Returns one
        `{"role": "tool", "tool_call_id": ..., "content": ...}` message per call, in order, to
        append to the conversation. Failures (unknown tool, invalid arguments, `isError`, a
        timeout) become the content of their message, prefixed `Error:`; nothing is raised
        but a lost connection.
        """
        from ..agents.frameworks.openai import handle_openai_tool_calls

        return await handle_openai_tool_calls(self._agent_tool, tool_calls, timeout)

    async def handle_openai_responses_calls(
        self, output: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the `function_call` items of an OpenAI Responses API `response.output`, concurrently.

        Returns one `{"type": "function_call_output", "call_id": ..., "output": ...}` input
        item per call (other items are skipped); failures become their output, prefixed `Error:`.
        """
        from ..agents.frameworks.openai import handle_openai_responses_calls

        return await handle_openai_responses_calls(self._agent_tool, output, timeout)

    async def handle_anthropic_tool_use(
        self, content: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run every `tool_use` block of an Anthropic Messages API `message.content`, concurrently.

        Returns the `tool_result` blocks (in order) for the next user message: text blocks,
        images as image blocks, failures with `is_error: true`.
        """
        from ..agents.frameworks.anthropic import handle_anthropic_tool_use

        return await handle_anthropic_tool_use(self._agent_tool, content, timeout)
