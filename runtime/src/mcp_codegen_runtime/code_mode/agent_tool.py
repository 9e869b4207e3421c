"""`run_python`: a tool set offered to a model as one tool that runs its Python against the code API.

`client.tools(code=True)` gives this one tool instead of one per server tool. Its description
carries the stubs of the set's tools (`code_api()` cut to them); past `STUBS_LIMIT` bytes only an
index (one line per function), and the sandbox module then also has `search_api(query, limit)`,
which returns the stubs of the best matches from the package's shipped search index. The code's
calls are limited to the set's tools. A failed run comes back as an error result whose text (the
type checker's diagnostics, the traceback, the limit) says what to fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from ..agents.extras import ExtraSpec
from ..agents.output import ContentPart, ToolOutput
from .errors import CodeRunError
from .sandbox import DEFAULT_MEMORY, DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from ..agents.toolset import ToolSet
    from .api import CodeApi

__all__ = ["STUBS_LIMIT", "code_toolset", "run_python_spec", "stub_search"]

#: The largest stub (bytes of UTF-8) the description carries whole; past it, an index and `search_api`.
STUBS_LIMIT = 20_000


def _description(api: CodeApi, names: list[str], searching: bool) -> str:
    module = api.module
    intro = (
        f"Run Python code against the `{module}` module: one async function per tool, typed as below. "
        f"Write `import {module}`, then `await {module}.<function>(...)` with keyword arguments; combine "
        "calls, loops and filtering in one program, and end with an expression: its value (JSON) is "
        "the result, with anything printed. Results are plain dicts and lists. A failed call raises "
        "(ValueError: arguments refused; RuntimeError: the tool failed; TimeoutError; ConnectionError), "
        "and you may catch it. The code is type-checked before it runs; there is no file, network or "
        "environment access, and only Python's own modules (json, re, math, asyncio, ...) besides "
        f"`{module}`."
    )
    if not searching:
        return f"{intro}\n\n```python\n{api.stubs(names)}```"
    return (
        f"{intro}\n\nThe functions, one per line (name: summary). `{module}.search_api(query)` returns the "
        "typed stubs of the functions matching a query; read them (print or return them) before "
        f"calling a function.\n\n{api.index(names)}"
    )


def stub_search(
    api: CodeApi,
    names: Collection[str],
    toolset: Callable[[], ToolSet],
    *,
    semantic: bool = False,
) -> Callable[[str, int], str]:
    """The sandbox module's `search_api(query, limit)`: the stubs of the best matches among the
    functions `names`, ranked by `toolset()`'s search (the package's shipped index; made on first use;
    `semantic`: fused with the semantic table, as `ToolSet.search(semantic=True)`).
    """
    made: list[ToolSet] = []

    def search_api(query: str, limit: int) -> str:
        if not made:
            made.append(toolset())
        found = made[0].search(
            query, limit=max(1, min(int(limit), 20)), semantic=semantic
        )
        matched = [tool.python_name for tool in found if tool.python_name in names]
        return (
            api.stubs(matched) if matched else "No function matches; try other words."
        )

    return search_api


class _RunPythonSpec(ExtraSpec):
    """`run_python`: its calls may change things (it runs any of the set's tools), unlike other extras."""

    __slots__ = ()

    @property
    def annotations(self) -> dict[str, Any]:
        return {"openWorldHint": True}


def code_toolset(toolset: ToolSet, api: CodeApi, *, semantic: bool = False) -> ToolSet:
    """`toolset` as the one `run_python` tool, bound as its tools are (what `client.tools(code=True)` returns;
    `semantic`: `search_api` ranks as `toolset.search(semantic=True)`)."""
    from ..agents.tool import AgentTool
    from ..agents.toolset import ToolSet

    first = next(iter(toolset.values()), None)
    tool = AgentTool(
        run_python_spec(toolset, api, semantic=semantic),
        client=first.client if first else None,
    )
    if first is not None and first.sync_client is not None:
        return ToolSet([tool]).bind(first.sync_client)
    return ToolSet([tool])


def run_python_spec(
    toolset: ToolSet,
    api: CodeApi,
    *,
    memory: int = DEFAULT_MEMORY,
    semantic: bool = False,
) -> ExtraSpec:
    """The `run_python` tool over `toolset`'s tools (its filters choose the functions the code may call)."""
    names = [
        tool.python_name
        for tool in toolset.values()
        if tool.python_name in api.functions
    ]
    searching = len(api.stubs(names).encode("utf-8")) > STUBS_LIMIT
    search_api = stub_search(api, frozenset(names), lambda: toolset, semantic=semantic)

    async def invoke(
        client: Any, arguments: Mapping[str, Any], timeout: float | None
    ) -> tuple[Any, ToolOutput]:
        code = arguments.get("code")
        if not isinstance(code, str) or not code.strip():
            raise ValueError(
                "run_python needs 'code' (Python source, a non-empty string)"
            )
        try:
            result = await client._run_code_with(  # noqa: SLF001 - the client's own code runner
                code,
                api,
                names,
                DEFAULT_TIMEOUT if timeout is None else timeout,
                memory,
                search_api if searching else False,
            )
        except CodeRunError as error:
            text = str(error)
            if error.stdout:
                text += f"\n\nPrinted before it failed:\n{error.stdout}"
            return error, ToolOutput.failure(text)
        shown: dict[str, Any] = {"value": result.value}
        if result.stdout:
            shown["stdout"] = result.stdout
        text = json.dumps(shown, ensure_ascii=False)
        return result, ToolOutput([ContentPart("text", text=text)], structured=shown)

    return _RunPythonSpec(
        name="run_python",
        description=_description(api, names, searching),
        input_schema={
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": f"Python source using `import {api.module}`; its last expression is the result.",
                }
            },
            "required": ["code"],
        },
        invoke=invoke,
    )
