"""`AgentTool`: one tool of the generated package as an agent sees it (definition, binding, calling).

An `AgentTool` has the name the model uses (valid for every model API, see `toolnames`), the
description, the server's exact input JSON Schema, the argument and result models and the
annotations. Bound to a client (a `protocols.ToolCaller`, or a blocking client's
`protocols.LoopRunner`) it is callable: `await tool(city="Paris")` gives the typed result,
`await tool.run({"city": "Paris"})` what a model gets (an `agent_output.ToolOutput`).

Each framework's definition comes from that framework's module (`agent_openai`,
`agent_anthropic`, `agent_langchain`, `agent_pydantic_ai`, `agent_openai_agents`,
`agent_claude`, `agent_adk`, `agent_smolagents`, `agent_llama_index`); the
`to_<framework>()` methods here and on `ToolSet` only forward to them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..calls.errors import ConnectionClosedError, McpClientError
from ..calls.specs import copy_json
from .extras import ExtraSpec
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
    langchain as agent_langchain,
)
from .frameworks import (
    llama_index as agent_llama_index,
)
from .frameworks import (
    openai as agent_openai,
)
from .frameworks import (
    openai_agents as agent_openai_agents,
)
from .frameworks import (
    pydantic_ai as agent_pydantic_ai,
)
from .frameworks import (
    smolagents as agent_smolagents,
)
from .names import agent_tool_names
from .output import ToolOutput, failure_output, output_from_result
from .protocols import LoopRunner, ToolCaller
from .strict import (
    NotStrictError,
    Strict,
    drop_optional_nulls,
    strict_json_schema,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..calls.specs import ToolSpec

__all__ = ["AgentTool"]

T = TypeVar("T")
_JsonObject = dict[str, Any]


class AgentTool:
    """One tool as agents see it; bound to a client (from `client.tools()`), it can be called.

    `name` is what the model sees (prefixed, namespaced, shortened: see `toolnames`), `wire_name`
    what is sent to the server. `input_schema` is the server's schema exactly as listed.
    """

    __slots__ = (
        "_description",
        "_output",
        "_schema",
        "_strict",
        "client",
        "name",
        "spec",
        "sync_client",
        "timeout",
    )

    spec: ToolSpec[Any, Any] | ExtraSpec
    name: str
    client: ToolCaller | None
    sync_client: LoopRunner | None
    timeout: float | None

    def __init__(
        self,
        spec: ToolSpec[Any, Any] | ExtraSpec,
        *,
        name: str | None = None,
        client: ToolCaller | None = None,
        timeout: float | None = None,
        description: str | None = None,
        sync_client: LoopRunner | None = None,
    ) -> None:
        self.spec = spec
        self.name = (
            name if name is not None else agent_tool_names([spec.name])[spec.name]
        )
        self.client = client
        self.sync_client = sync_client
        self.timeout = timeout
        self._description = description
        self._schema: _JsonObject | None = None
        self._output: tuple[_JsonObject | None] | None = None
        self._strict: _JsonObject | NotStrictError | None = None

    # ---- what the tool is

    @property
    def wire_name(self) -> str:
        return self.spec.name

    @property
    def python_name(self) -> str:
        return self.spec.python_name

    @property
    def description(self) -> str:
        """The description (an override, the server's, else its title), "" when there is none."""
        if self._description is not None:
            return self._description
        return self.spec.description or self.spec.title or ""

    @property
    def title(self) -> str | None:
        return self.spec.title

    @property
    def input_schema(self) -> _JsonObject:
        """The tool's input JSON Schema exactly as the server listed it (a copy)."""
        return copy_json(self._input_schema())

    def _input_schema(self) -> _JsonObject:
        schema = self._schema
        if schema is None:
            schema = self._schema = self.spec.input_schema_view()
        return schema

    @property
    def parameters(self) -> _JsonObject:
        """The schema sent to models: the original (a copy), `type: object` added when it is missing."""
        schema = copy_json(self._input_schema())
        if "type" not in schema:
            schema["type"] = "object"
        return schema

    def parameters_view(self) -> _JsonObject:
        """`parameters` without the deep copy: shared, never to be mutated (for converters whose
        framework only reads it or copies it itself; building 300 tools stays fast).
        """
        schema = self._input_schema()
        return schema if "type" in schema else {**schema, "type": "object"}

    @property
    def output_schema(self) -> _JsonObject | None:
        """The tool's output JSON Schema as listed (a copy), or None."""
        view = self.output_schema_view()
        return None if view is None else copy_json(view)

    def output_schema_view(self) -> _JsonObject | None:
        """`output_schema` without the copy: shared, never to be mutated."""
        output = self._output
        if output is None:
            output = self._output = (self.spec.output_schema_view(),)
        return output[0]

    @property
    def arguments_model(self) -> type[BaseModel]:
        return self.spec.arguments_model

    @property
    def result_model(self) -> type[BaseModel] | None:
        return self.spec.result_model

    @property
    def annotations(self) -> _JsonObject | None:
        """The tool's annotations as listed (`readOnlyHint`, `destructiveHint`, ...), or None."""
        return self.spec.annotations

    @property
    def strict_schema(self) -> _JsonObject | None:
        """The OpenAI strict form of the input schema, or None (`strict_error` says why)."""
        strict = self._strict_form()
        return None if isinstance(strict, NotStrictError) else copy_json(strict)

    @property
    def strict_error(self) -> str | None:
        """Why this tool cannot use OpenAI strict mode, or None when it can."""
        strict = self._strict_form()
        return str(strict) if isinstance(strict, NotStrictError) else None

    def _strict_form(self) -> _JsonObject | NotStrictError:
        strict = self._strict
        if strict is None:
            try:
                strict = strict_json_schema(self._input_schema())
            except NotStrictError as error:
                strict = error
            self._strict = strict
        return strict

    def strict_parameters(self, strict: Strict) -> _JsonObject | None:
        """The strict schema to send for `strict`, or None to send `parameters`.

        `strict=True` raises NotStrictError when there is no strict form; `"auto"` sends it when
        there is one. A null the model sends for an optional property that cannot be null means
        "not sent" in every run, strict or not (see `arguments_from_model`).
        """
        if strict is False:
            return None
        form = self._strict_form()
        if isinstance(form, NotStrictError):
            if strict == "auto":
                return None
            raise NotStrictError(f"tool {self.name!r} cannot be strict: {form}")
        return copy_json(form)

    # ---- binding and calling

    @property
    def bound(self) -> bool:
        return self.client is not None

    def bind(
        self,
        client: ToolCaller | LoopRunner,
        *,
        timeout: float | None = None,
    ) -> AgentTool:
        """A copy of this tool bound to `client` (an async or a blocking client)."""
        sync_client: LoopRunner | None = None
        if isinstance(client, LoopRunner):
            sync_client = client
            async_client = client.async_client
        else:
            async_client = client
        return AgentTool(
            self.spec,
            name=self.name,
            client=async_client,
            timeout=timeout if timeout is not None else self.timeout,
            description=self._description,
            sync_client=sync_client,
        )

    def ensure_bound(self) -> ToolCaller:
        """The client this tool calls; RuntimeError saying how to bind it when there is none."""
        client = self.client
        if client is None:
            raise RuntimeError(
                f"agent tool {self.name!r} is not bound to a client: use client.tools() or tool.bind(client)"
            )
        return client

    def _request(
        self, arguments: Mapping[str, Any] | None, timeout: float | None
    ) -> tuple[
        ToolCaller, ToolSpec[Any, Any] | ExtraSpec, dict[str, Any], float | None
    ]:
        """The bound client, the spec, the arguments as a dict and the timeout of one call."""
        limit = timeout if timeout is not None else self.timeout
        return self.ensure_bound(), self.spec, dict(arguments or {}), limit

    async def _on_loop(self, call: Callable[[], Awaitable[T]]) -> T:
        sync_client = self.sync_client
        if sync_client is None:
            return await call()
        return await sync_client.run_on_loop(call)

    async def __call__(self, **arguments: Any) -> Any:
        """Call the tool with keyword arguments; returns what the typed method returns (raises on errors)."""
        return await self.call(arguments)

    async def call(
        self,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Call the tool (wire or Python field names); the typed result, like `client.call()`."""
        client, spec, values, limit = self._request(arguments, timeout)
        if isinstance(spec, ExtraSpec):
            typed, _ = await self._on_loop(lambda: spec.invoke(client, values, limit))
            return typed
        return await self._on_loop(
            lambda: client.call_spec(spec, values, timeout=limit)
        )

    def call_sync(
        self,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """`call()` for a tool of a blocking `Client`: runs on the client's event-loop thread."""
        sync_client = self._sync_client()
        client, spec, values, limit = self._request(arguments, timeout)
        if isinstance(spec, ExtraSpec):
            return sync_client.run_blocking(self.call, values, timeout=limit)
        return sync_client.run_blocking(client.call_spec, spec, values, timeout=limit)

    def _sync_client(self) -> LoopRunner:
        sync_client = self.sync_client
        if sync_client is None:
            raise RuntimeError(
                f"agent tool {self.name!r} belongs to an async client: await tool.call(...) / tool.run(...)"
            )
        return sync_client

    def arguments_from_model(
        self, arguments: Mapping[str, Any] | str | None, *, strict: bool | None = None
    ) -> dict[str, Any]:
        """A model's arguments (a dict or a JSON string) as sent to the server.

        A null for an optional property whose schema does not admit null means "not sent" (OpenAI's
        strict dialect) and is removed; the tool's own input schema decides, whichever definition
        the model was given. `strict=False` keeps every null as sent. Raises ValueError for JSON
        that is not an object.
        """
        if arguments is None or arguments == "":
            values: object = {}
        elif isinstance(arguments, str):
            try:
                values = json.loads(arguments)
            except ValueError as error:
                raise ValueError(
                    f"the arguments are not valid JSON ({error})"
                ) from None
        else:
            values = dict(arguments)
        if not isinstance(values, dict):
            raise ValueError("the arguments are not a JSON object")
        data = cast(_JsonObject, values)
        if strict is not False:
            return cast(_JsonObject, drop_optional_nulls(data, self._input_schema()))
        return data

    async def run(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        timeout: float | None = None,
        strict: bool | None = None,
        framework: str | None = None,
    ) -> ToolOutput:
        """Run the tool for a model: arguments as the model sent them (dict or JSON string).

        Never raises for a failure the model should see (`isError`, invalid arguments, a timeout):
        they come back as a `ToolOutput` with `is_error`. A lost connection raises
        ConnectionClosedError.
        """
        client = self.ensure_bound()
        limit = timeout if timeout is not None else self.timeout
        try:
            values = self.arguments_from_model(arguments, strict=strict)
        except ValueError as error:
            return ToolOutput.failure(f"invalid arguments for {self.name}: {error}")
        spec = self.spec
        if isinstance(spec, ExtraSpec):
            try:
                _, output = await self._on_loop(
                    lambda: spec.invoke(client, values, limit)
                )
            except ConnectionClosedError:
                raise
            except McpClientError as error:
                return failure_output(error, limit)
            except ValueError as error:
                return ToolOutput.failure(f"invalid arguments for {self.name}: {error}")
            return output
        try:
            result = await self._on_loop(
                lambda: client.call_spec_result(
                    spec,
                    values,
                    timeout=limit,
                    agent_name=self.name,
                    framework=framework,
                )
            )
        except ConnectionClosedError:
            raise
        except McpClientError as error:
            return failure_output(error, limit)
        return output_from_result(result, unwrap=spec.unwrap_result)

    def run_sync(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        timeout: float | None = None,
        strict: bool | None = None,
        framework: str | None = None,
    ) -> ToolOutput:
        """`run()` for a tool of a blocking `Client` (runs on the client's event-loop thread)."""
        sync_client = self._sync_client()
        return sync_client.run_blocking(
            self.run, arguments, timeout=timeout, strict=strict, framework=framework
        )

    # ---- definitions (each framework's module builds its own; see `agents`)

    def to_openai(self, *, strict: Strict = False) -> dict[str, Any]:
        """An OpenAI Chat Completions tool: `{"type": "function", "function": {...}}`.

        `strict=True` sends the strict form (NotStrictError when the tool has none, see
        `strict_error`); `"auto"` uses it when there is one; `False` (default) sends `parameters`.
        A null for an optional property that cannot be null means "not sent" when the call runs.
        """
        return agent_openai.chat_tool(self, strict=strict)

    def to_openai_responses(self, *, strict: Strict = False) -> dict[str, Any]:
        """An OpenAI Responses API function tool (`strict` as in `to_openai`, always stated: the API's default is true)."""
        return agent_openai.responses_tool(self, strict=strict)

    def to_anthropic(
        self, *, cache_control: agent_anthropic.CacheControl = None
    ) -> dict[str, Any]:
        """An Anthropic Messages API tool: `{"name", "description", "input_schema"}`.

        `cache_control=True` adds `{"type": "ephemeral"}` (a prompt-caching breakpoint), a dict
        is sent as given.
        """
        return agent_anthropic.tool_definition(self, cache_control=cache_control)

    def to_langchain(self) -> Any:
        """A LangChain `StructuredTool` (async, and sync for a blocking `Client`'s tools).

        Its schema is the server's JSON Schema; the result is the model-facing content with the
        `ToolOutput` as artifact; failures become a ToolMessage with `status="error"`.
        """
        return agent_langchain.structured_tool(self)

    def to_pydantic_ai(self) -> Any:
        """A pydantic-ai `Tool` with the server's schema; failures raise `ToolFailed` (the model sees them)."""
        return agent_pydantic_ai.function_tool(self)

    def to_openai_agents(self, *, strict: Strict = "auto") -> Any:
        """An OpenAI Agents SDK `FunctionTool` (strict when the schema allows it, by default)."""
        return agent_openai_agents.function_tool(self, strict=strict)

    def to_claude_agent_sdk(self) -> Any:
        """A Claude Agent SDK `SdkMcpTool` (for `create_sdk_mcp_server`; see `ToolSet.to_claude_agent_sdk`)."""
        return agent_claude.sdk_tool(self)

    def to_adk(self) -> Any:
        """A Google ADK `BaseTool` declaring the input (and output) schema; see `ToolSet.to_adk`."""
        return agent_adk.adk_tool(self)

    def to_smolagents(self) -> Any:
        """A smolagents `Tool` (a blocking `Client`'s tool: smolagents calls tools synchronously)."""
        return agent_smolagents.smolagents_tool(self)

    def to_llama_index(self) -> Any:
        """A LlamaIndex `FunctionTool` (async; sync too for a blocking `Client`'s tool)."""
        return agent_llama_index.function_tool(self)

    def __repr__(self) -> str:
        state = "bound" if self.client is not None else "unbound"
        wire = f", wire_name={self.wire_name!r}" if self.wire_name != self.name else ""
        return f"<AgentTool {self.name!r}{wire} {state}>"
