"""Agent tool adapters: building every framework's tool list for 300 tools, and the per-call cost of calling through them.

The adapters are the runtime's `mcp_codegen_runtime.agents`, which packages import, reached the way users reach
them: `client.tools()` (a `ToolSet` bound to the client), then a converter.

Build. A 300-tool package is generated from make_tools.py's tools (in process, into a temporary directory) and its
`AsyncClient` wraps an in-memory session (a low-level server listing those tools). Each repetition times, for every
adapter kind, `client.tools().to_<kind>()` from scratch (a fresh `ToolSet`, so no per-tool cache is warm):
OpenAI Chat Completions (`to_openai()`, and `to_openai(strict="auto")`, which converts every schema to OpenAI's
strict form where it has one), OpenAI Responses (`to_openai_responses()`), Anthropic (`to_anthropic()`), LangChain
(`to_langchain()`, 300 `StructuredTool`s), pydantic-ai (`to_pydantic_ai()`, a `FunctionToolset`) and the OpenAI
Agents SDK (`to_openai_agents()`, strict "auto" by default). The kinds' order rotates every repetition; every
framework is imported, and the package's snapshot read, by one untimed warm-up build (the first, cold build is
shown for context). The process's CPU time per build is shown next to the wall time (a budget has no baseline to
cancel out a busy machine; the CPU time is less sensitive to it). Target: the median <= 50 ms per kind (an absolute budget, shown as the "baseline" column with a
ratio target of 1.0).

Invoke. The demo server (`mcp_codegen.demo.server.build_server`) is snapshotted in process and its client generated
(as bench_call.py does); then, on ONE in-memory session, `get_weather(city="Paris")` (a structured result) is called

* directly, the baseline: `await client.get_weather(city="Paris")` (a typed `Weather`);
* through `AgentTool.run({"city": "Paris"})` (the path every adapter shares: the model's arguments in, the text the
  model reads out, as a `ToolOutput`);
* through `client.handle_openai_tool_calls([...])` (one Chat Completions tool call, arguments as a JSON string);
* through `client.handle_anthropic_tool_use([...])` (one `tool_use` block);
* through LangChain: `structured_tool.ainvoke(tool_call)` (a `ToolMessage` back, as an agent calls it), and, to tell
  LangChain's own cost from the adapter's, a hand-written `StructuredTool` around the typed method, invoked alike;
* through pydantic-ai: the adapter's tool function (`tool.function(city="Paris")`; pydantic-ai's own dispatch
  needs a running agent and is left out);
* through the OpenAI Agents SDK: `function_tool.on_invoke_tool(None, '{"city": "Paris"}')` (the adapter does not
  read the tool context).

After a warm-up, `--calls` calls of each are timed in blocks of `--block`, the blocks of all paths interleaved
(the order rotates every round); the per-call time of a block is its time over its size, and each path's number
is the median over its blocks. Target: path / direct <= 1.10 (and LangChain adapter / hand-written LangChain tool
<= 1.10).

    python benchmarks/bench_adapters.py [--tools 300] [--reps 15] [--calls 1000] [--block 50] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, emit, fmt_seconds, generate_package, median, spread  # noqa: E402
from make_tools import make_tools, snapshot_dict  # noqa: E402

BUILD_BUDGET_MS = 50.0
INVOKE_TARGET = 1.10
BUILD_PACKAGE = "adapters_bench_client"
DEMO_PACKAGE = "adapters_demo_client"

Call = Callable[[], Awaitable[Any]]


# ------------------------------------------------------------------------------------------------ build


def _adk_build(client: Any) -> Any:
    """ADK's toolset with every tool's declaration made (ADK asks for them on each model request)."""
    toolset = client.tools().to_adk()
    for tool in toolset.tools:
        tool._get_declaration()
    return toolset


def build_kinds(client: Any, sync_client: Any) -> dict[str, Callable[[], Any]]:
    """Adapter kind -> a build of every tool, from a fresh `client.tools()` (smolagents: the blocking client's)."""
    return {
        "Claude Agent SDK": lambda: client.tools().to_claude_agent_sdk("bench"),
        "Google ADK (with declarations)": lambda: _adk_build(client),
        "smolagents": lambda: sync_client.tools().to_smolagents(),
        "LlamaIndex": lambda: client.tools().to_llama_index(),
        "OpenAI Chat Completions": lambda: client.tools().to_openai(),
        "OpenAI Chat Completions, strict='auto'": lambda: client.tools().to_openai(strict="auto"),
        "OpenAI Responses": lambda: client.tools().to_openai_responses(),
        "Anthropic": lambda: client.tools().to_anthropic(),
        "LangChain": lambda: client.tools().to_langchain(),
        "pydantic-ai": lambda: client.tools().to_pydantic_ai(),
        "OpenAI Agents SDK": lambda: client.tools().to_openai_agents(),
    }


def built_count(built: Any, expected: int) -> int:
    """How many tools a build made (a list, pydantic-ai's `FunctionToolset`, ADK's toolset).

    The Claude Agent SDK's server config hides its tools in the server's handlers (the tests list
    them through an MCP client); it counts as complete when it is an SDK config.
    """
    if isinstance(built, dict):
        return expected if built.get("type") == "sdk" else -1
    return len(built.tools) if hasattr(built, "tools") else len(built)


@contextlib.asynccontextmanager
async def _blocking_client(module: ModuleType, server: Any) -> AsyncIterator[Any]:
    """The package's blocking `Client` on `server` (its own loop thread): smolagents calls tools synchronously."""
    with module.Client.in_process(server) as client:
        yield client


async def bench_build(module: ModuleType, tools: list[dict[str, Any]], reps: int) -> list[Row]:
    import mcp
    import mcp_types
    from mcp.server import Server

    listing = mcp_types.ListToolsResult.model_validate({"tools": tools})

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listing

    server = Server("adapters-bench", on_list_tools=list_tools)
    blocking = _blocking_client(module, server)
    async with mcp.Client(server, mode="legacy", cache=None) as session, blocking as sync_client:
        client = module.AsyncClient.from_session(session)
        kinds = build_kinds(client, sync_client)
        started = time.perf_counter()
        client.tools().to_openai()
        cold = time.perf_counter() - started
        for name, build in kinds.items():  # warm-up: framework imports
            count = built_count(build(), len(tools))
            if count != len(tools):
                raise RuntimeError(f"{name}: built {count} tools, expected {len(tools)}")
        timings: dict[str, list[float]] = {name: [] for name in kinds}
        cpu_times: dict[str, list[float]] = {name: [] for name in kinds}
        toolsets: list[float] = []
        items = list(kinds.items())
        gc.collect()
        for rep in range(reps):
            shift = rep % len(items)
            for name, build in items[shift:] + items[:shift]:
                began, cpu_began = time.perf_counter(), time.process_time()
                build()
                timings[name].append(time.perf_counter() - began)
                cpu_times[name].append(time.process_time() - cpu_began)
            began = time.perf_counter()
            client.tools()
            toolsets.append(time.perf_counter() - began)
            print(
                f"  build rep {rep + 1}/{reps}: " + ", ".join(f"{n} {fmt_seconds(t[-1])}" for n, t in timings.items()),
                flush=True,
            )
        no_strict = sum(1 for tool in client.tools().values() if tool.strict_error is not None)

    print(
        f"\nbuilding adapters for {len(tools)} tools, median (min–max) of {reps}; CPU time of this process alongside:"
    )
    for name, values in timings.items():
        print(f"  {name:40} wall {spread(values):32} cpu {fmt_seconds(median(cpu_times[name]))}")
    print(f"  {'client.tools() alone':40} {spread(toolsets)}")
    print(f"  first build in the process (reads the package's snapshot.json), to_openai(): {fmt_seconds(cold)}")
    print(f"  {no_strict} of {len(tools)} tools have no OpenAI strict form (sent as listed under strict='auto')")
    return [
        Row(
            f"build adapters: {name}, {len(tools)} tools",
            median(values) * 1e3,
            BUILD_BUDGET_MS,
            "ms",
            1.0,
            baseline_label="budget",
        )  # fmt: skip
        for name, values in timings.items()
    ]


# ----------------------------------------------------------------------------------------------- invoke


async def _snapshot_text() -> str:
    from mcp_codegen.demo.server import build_server
    from mcp_codegen.diagnostics import Diagnostics
    from mcp_codegen.snapshot.fetch import snapshot_server

    snapshot = await snapshot_server(build_server(), diagnostics=Diagnostics())
    return snapshot.to_text()


async def _block(call: Call, size: int) -> float:
    started = time.perf_counter()
    for _ in range(size):
        await call()
    return (time.perf_counter() - started) / size


def handwritten_langchain_tool(client: Any) -> Any:
    """What one would write by hand for LangChain: a `StructuredTool` around the typed method."""
    from langchain_core.tools import StructuredTool

    async def get_weather(city: str) -> str:
        """Current weather for a city."""
        weather = await client.get_weather(city=city)
        return str(weather.model_dump_json())

    return StructuredTool.from_function(coroutine=get_weather, name="get_weather")


def handwritten_llama_index_tool(client: Any) -> Any:
    """What one would write by hand for LlamaIndex: a `FunctionTool` around the typed method."""
    from llama_index.core.tools import FunctionTool

    async def get_weather(city: str) -> str:
        """Current weather for a city."""
        weather = await client.get_weather(city=city)
        return str(weather.model_dump_json())

    return FunctionTool.from_defaults(async_fn=get_weather, name="get_weather")


async def bench_invoke(module: ModuleType, calls: int, block: int, warmup: int) -> list[Row]:
    import mcp

    from mcp_codegen.demo.server import build_server

    arguments = {"city": "Paris"}
    as_json = json.dumps(arguments)
    async with mcp.Client(build_server(), mode="legacy", cache=None) as session:
        client = module.AsyncClient.from_session(session)
        tool = client.tools()["get_weather"]
        langchain_tool = tool.to_langchain()
        handwritten = handwritten_langchain_tool(client)
        pydantic_ai_tool = tool.to_pydantic_ai()
        agents_tool = tool.to_openai_agents()
        claude_tool = tool.to_claude_agent_sdk()
        adk_tool = tool.to_adk()
        llama_tool = tool.to_llama_index()
        llama_handwritten = handwritten_llama_index_tool(client)
        openai_calls = [{"id": "call_1", "type": "function", "function": {"name": tool.name, "arguments": as_json}}]
        anthropic_blocks = [{"type": "tool_use", "id": "toolu_1", "name": tool.name, "input": arguments}]

        def tool_call(name: str) -> dict[str, Any]:
            return {"name": name, "args": dict(arguments), "id": "call_1", "type": "tool_call"}

        paths: dict[str, Call] = {
            "direct": lambda: client.get_weather(city="Paris"),
            "AgentTool.run": lambda: tool.run(arguments),
            "OpenAI handle_openai_tool_calls": lambda: client.handle_openai_tool_calls(openai_calls),
            "Anthropic handle_anthropic_tool_use": lambda: client.handle_anthropic_tool_use(anthropic_blocks),
            "LangChain ainvoke": lambda: langchain_tool.ainvoke(tool_call(langchain_tool.name)),
            "LangChain hand-written ainvoke": lambda: handwritten.ainvoke(tool_call(handwritten.name)),
            "pydantic-ai tool function": lambda: pydantic_ai_tool.function(**arguments),
            "OpenAI Agents on_invoke_tool": lambda: agents_tool.on_invoke_tool(None, as_json),
            "Claude Agent SDK handler": lambda: claude_tool.handler(dict(arguments)),
            "Google ADK run_async": lambda: adk_tool.run_async(args=dict(arguments), tool_context=None),
            "LlamaIndex acall": lambda: llama_tool.acall(**arguments),
            "LlamaIndex hand-written acall": lambda: llama_handwritten.acall(**arguments),
        }

        # Every path gets the same answer (checked once), so they do comparable work.
        weather = await client.get_weather(city="Paris")
        assert weather.city == "Paris", weather
        for name, path in paths.items():
            answer = await path()
            if "Paris" not in repr(answer):
                raise RuntimeError(f"{name} did not return the weather in Paris: {answer!r}")
            if "error" in repr(answer).lower().replace("'is_error': false", "").replace("is_error=false", ""):
                raise RuntimeError(f"{name} failed: {answer!r}")

        for _ in range(warmup):
            for path in paths.values():
                await path()
        blocks: dict[str, list[float]] = {name: [] for name in paths}
        items = list(paths.items())
        gc.collect()
        rounds = max(1, calls // block)
        for index in range(rounds):
            shift = index % len(items)
            for name, path in items[shift:] + items[:shift]:
                blocks[name].append(await _block(path, block))

    direct = median(blocks["direct"])
    print(f"\ncalling get_weather in memory: {rounds} blocks of {block} calls per path; per call, median (min–max):")
    for name, values in blocks.items():
        print(f"  {name:36} {spread(values):32} x{median(values) / direct:.2f}")
    rows = [
        Row(
            f"adapter call: {name} (per call)",
            median(values) * 1e6,
            direct * 1e6,
            "µs",
            INVOKE_TARGET,
            baseline_label="typed `client.get_weather`",
        )  # fmt: skip
        for name, values in blocks.items()
        if name not in ("direct", "LangChain hand-written ainvoke", "LlamaIndex hand-written acall")
    ]
    rows.append(
        Row(
            "adapter call: LangChain ainvoke vs a hand-written tool (per call)",
            median(blocks["LangChain ainvoke"]) * 1e6,
            median(blocks["LangChain hand-written ainvoke"]) * 1e6,
            "µs",
            INVOKE_TARGET,
            baseline_label="hand-written `StructuredTool`",
        )  # fmt: skip
    )
    rows.append(
        Row(
            "adapter call: LlamaIndex acall vs a hand-written tool (per call)",
            median(blocks["LlamaIndex acall"]) * 1e6,
            median(blocks["LlamaIndex hand-written acall"]) * 1e6,
            "µs",
            INVOKE_TARGET,
            baseline_label="hand-written `FunctionTool`",
        )  # fmt: skip
    )
    return rows


def bench_invoke_blocking(module: ModuleType, calls: int, block: int, warmup: int) -> list[Row]:
    """smolagents calls tools synchronously: its `Tool` against the blocking client's typed method."""
    from mcp_codegen.demo.server import build_server

    with module.Client.in_process(build_server()) as client:
        (smol_tool,) = client.tools(include="get_weather").to_smolagents()
        paths: dict[str, Callable[[], Any]] = {
            "direct": lambda: client.get_weather(city="Paris"),
            "smolagents Tool": lambda: smol_tool(city="Paris"),
        }
        for name, path in paths.items():
            if "Paris" not in repr(path()):
                raise RuntimeError(f"{name} did not return the weather in Paris")
        for _ in range(warmup):
            for path in paths.values():
                path()
        blocks: dict[str, list[float]] = {name: [] for name in paths}
        items = list(paths.items())
        gc.collect()
        rounds = max(1, calls // block)
        for index in range(rounds):
            shift = index % len(items)
            for name, path in items[shift:] + items[:shift]:
                started = time.perf_counter()
                for _ in range(block):
                    path()
                blocks[name].append((time.perf_counter() - started) / block)
    direct = median(blocks["direct"])
    print(f"\ncalling get_weather through a blocking client: {rounds} blocks of {block} calls per path:")
    for name, values in blocks.items():
        print(f"  {name:36} {spread(values):32} x{median(values) / direct:.2f}")
    return [
        Row(
            "adapter call: smolagents Tool (blocking client, per call)",
            median(blocks["smolagents Tool"]) * 1e6,
            direct * 1e6,
            "µs",
            INVOKE_TARGET,
            baseline_label="typed blocking `client.get_weather`",
        )  # fmt: skip
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=300, help="tools in the package the adapters are built for")
    parser.add_argument("--reps", type=int, default=15, help="timed builds per adapter kind")
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per invoke path")
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    import anyio

    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-adapters-"))
    try:
        print(f"bench_adapters: generating a {arguments.tools}-tool package and the demo client ...", flush=True)
        tools = make_tools(arguments.tools)
        big = generate_package(snapshot_dict(tools), work, BUILD_PACKAGE)
        demo = generate_package(json.loads(anyio.run(_snapshot_text)), work, DEMO_PACKAGE)
        rows = anyio.run(bench_build, big, tools, arguments.reps)
        rows += anyio.run(bench_invoke, demo, arguments.calls, arguments.block, arguments.warmup)
        rows += bench_invoke_blocking(demo, arguments.calls, arguments.block, arguments.warmup)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(rows, arguments.json)


if __name__ == "__main__":
    main()
