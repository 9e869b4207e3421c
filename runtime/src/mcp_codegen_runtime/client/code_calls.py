"""Code mode on the client: the package's code API (`code_api()`) and running code against it (`run_code()`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .tool_calls import ToolCalls

if TYPE_CHECKING:
    from ..calls.specs import ToolSpec
    from ..code_mode.api import CodeApi
    from ..code_mode.sandbox import CodeResult, SandboxModule
    from .agent_tools import AgentTools


def package_code_api(client_class: type) -> CodeApi:
    """The code API shipped in the package of the generated client class `client_class` (`code_api.pyi`
    beside its module), its module named after the package; RuntimeError when the package has none.
    """
    from ..code_mode.api import CODE_API_FILE, load_code_api

    module = sys.modules.get(client_class.__module__)
    path = getattr(module, "__file__", None)
    api = None
    if path is not None:
        folder = Path(path).parent
        api = load_code_api(str(folder), folder.name)
    if api is None:
        raise RuntimeError(
            f"{client_class.__name__} has no code API: mcp-codegen writes {CODE_API_FILE} into the "
            "packages it generates (regenerate the package with this version)"
        )
    return api


class CodeCalls(ToolCalls):
    """Code mode on the client: the package's code API (`code_api()`) and running code against it (`run_code()`)."""

    __slots__ = ()

    def code_api(self) -> str:
        """The `.pyi` stub of the module code sees in `run_code()`: one typed `async def` per tool a model
        may call (app-only MCP Apps tools left out), named and typed as this client's methods, objects as
        `TypedDict`s, the tool's description as its docstring. Generated with the package (`code_api.pyi`).
        """
        return self._code_api_of().text

    def _code_api_of(self) -> CodeApi:
        return package_code_api(type(self))

    async def run_code(
        self,
        code: str,
        *,
        timeout: float = 10.0,
        memory: int = 128 * 1024 * 1024,
    ) -> CodeResult:
        """Run Python `code` against the code API (`code_api()`) in a sandbox; return its `CodeResult`.

        The code imports the package's module (`import demo_client`) and awaits its functions
        (`await demo_client.add(a=1, b=2)`); each is this client's typed call (argument checks,
        retries by safety, `on_call` hooks, tracing), and a failed one raises in the code as a
        built-in exception it may catch (ValueError, RuntimeError, TimeoutError, ConnectionError).
        The module also has `search_api(query, limit=5)`: the stubs of the functions best matching
        `query`. The result's `value` is the code's last expression, `stdout` what it printed,
        `calls` its tool calls in order, each with how it ended (`status`). The code is
        type-checked first and has no file, network, subprocess or environment access.

        No call outlives the run: when the code returns, raises, hits a limit or this call is
        cancelled, the calls still in flight are cancelled (the server is told) and awaited first.

        `timeout`: seconds the whole run may take, wall-clock (the code, its sleeps and the calls
        it awaits; default 10, `code_mode.DEFAULT_TIMEOUT`); `memory`: bytes of heap (default
        128 MiB, `DEFAULT_MEMORY`). A run also stops past 1000 tool calls (`DEFAULT_MAX_CALLS`)
        and past 1 MiB printed (`DEFAULT_MAX_OUTPUT`, which also bounds the value's JSON).

        Raises:
            CodeTypeError: The code does not parse or type-check (its line named); nothing ran.
            CodeError: The code raised (its line named), e.g. a tool call's error it did not
                catch, or its value has no JSON form.
            CodeLimitError: The run hit a limit (`limit` names it); the client stays usable.
            ImportError: pydantic-monty is not installed (the `code` extra).
        """
        return await self._run_code_with(
            code, self._code_api_of(), None, timeout, memory
        )

    async def _run_code_with(
        self,
        code: str,
        api: CodeApi,
        names: Collection[str] | None,
        timeout: float,
        memory: int,
        search_api: Callable[[str, int], str] | bool = True,
    ) -> CodeResult:
        """Run `code` with the functions of `api` (only those in `names`, when given)."""
        from ..code_mode.sandbox import run_in_sandbox

        module = self._sandbox_module(api, names, search_api)
        return await run_in_sandbox(code, [module], timeout=timeout, memory=memory)

    def _sandbox_module(
        self,
        api: CodeApi | None = None,
        names: Collection[str] | None = None,
        search_api: Callable[[str, int], str] | bool = True,
    ) -> SandboxModule:
        """Internal: this client's module for the sandbox (the package's code API by default), with
        `search_api` (True: over the module's functions, by this client's search; False: none).
        """
        from ..code_mode.sandbox import SandboxModule

        api = self._code_api_of() if api is None else api
        by_python = {
            spec.python_name: spec
            for spec in self._tools.values()
            if spec.model_visible
        }
        specs: dict[str, ToolSpec[Any, Any]] = {
            name: by_python[name]
            for name in api.functions
            if name in by_python and (names is None or name in names)
        }

        async def call(
            spec: ToolSpec[Any, Any], arguments: Mapping[str, object]
        ) -> Any:
            return await self._call_tool(spec, arguments)

        if search_api is True:
            from ..code_mode.agent_tool import stub_search

            client = cast("AgentTools", self)
            search: Callable[[str, int], str] | None = stub_search(
                api, frozenset(specs), lambda: type(client).toolset_for(client)
            )
        else:
            search = search_api if callable(search_api) else None
        return SandboxModule(api, specs, call, search)
