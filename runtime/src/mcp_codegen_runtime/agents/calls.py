"""Runs one model turn's tool calls concurrently, whatever the framework (each framework's module reads and answers them).

A framework's `handle_*` function (in `agent_openai`, `agent_anthropic`, ...) passes `run_calls`
the calls of one model message, how to `read` a call's (name, arguments) and how to `answer` it
with a `ToolOutput`; names are resolved by a `Resolver` (a `ToolSet`'s, or a client's).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..calls.errors import unwrap_exception_group
from .output import ToolOutput

if TYPE_CHECKING:
    from .tool import AgentTool

__all__ = ["Resolver", "field", "run_calls"]

T = TypeVar("T")

#: The agent tool a model called by this name, or None.
Resolver = Callable[[str], "AgentTool | None"]


def field(item: Any, name: str) -> Any:
    """`item[name]` of a dict, else the attribute (SDK objects and plain dicts both work)."""
    if isinstance(item, Mapping):
        return cast(Mapping[str, Any], item).get(name)
    return getattr(item, name, None)


async def _gather(calls: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    """Run `calls` concurrently (one task each), results in order."""
    if len(calls) == 1:
        return [await calls[0]()]
    import anyio  # on first use: importing it is not free and one call needs no tasks

    results: list[T | None] = [None] * len(calls)

    async def one(index: int, call: Callable[[], Awaitable[T]]) -> None:
        results[index] = await call()

    try:
        async with anyio.create_task_group() as group:
            for index, call in enumerate(calls):
                group.start_soon(one, index, call)
    except BaseExceptionGroup as group_error:
        raise unwrap_exception_group(group_error) from None
    return cast(list[T], results)


async def _run_named(
    resolve: Resolver,
    name: object,
    arguments: object,
    timeout: float | None,
    framework: str,
) -> ToolOutput:
    if not isinstance(name, str):
        return ToolOutput.failure("the tool call has no tool name")
    tool = resolve(name)
    if tool is None:
        return ToolOutput.failure(f"unknown tool {name!r}")
    if arguments is not None and not isinstance(arguments, str | Mapping):
        return ToolOutput.failure(f"invalid arguments for {name}: not a JSON object")
    return await tool.run(
        cast("Mapping[str, Any] | str | None", arguments),
        timeout=timeout,
        framework=framework,
    )


async def run_calls(
    resolve: Resolver,
    calls: Sequence[Any],
    timeout: float | None,
    framework: str,
    read: Callable[[Any], tuple[object, object]],
    answer: Callable[[Any, ToolOutput], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Run one model turn's tool calls concurrently: `read` gives a call's (name, arguments),
    `answer` turns its output into the framework's message; answers in the calls' order.
    """

    def runner(call: Any) -> Callable[[], Awaitable[dict[str, Any]]]:
        async def run() -> dict[str, Any]:
            name, arguments = read(call)
            output = await _run_named(resolve, name, arguments, timeout, framework)
            return answer(call, output)

        return run

    return await _gather([runner(call) for call in calls])
