"""One run of code in the `pydantic-monty` sandbox: type-checked against the code API, each call a typed tool call.

The code runs in a worker subprocess of a pool made for the run (`AsyncMonty`, about 10 ms to start),
with no mounts and no OS handler: it cannot open files, reach the network, start processes or read
the environment, and only the API's module (plus `search_api` when given) is importable besides
Monty's own standard modules. Before it runs, `ty` checks it against the API's stub; a refused
program never starts. Its time (counted only while the code itself runs, not while a tool call is
awaited) and its heap are limited; at a limit the worker is stopped and the pool discarded, so the
client that made the calls is untouched.

Each function of the module is a host coroutine that calls the tool through `call` (the client's
typed path: argument checks, retries by safety, hooks, tracing) and hands the code a plain value.
A failed call reaches the code as a built-in exception it can catch (see `code_exception`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..calls.errors import (
    ArgumentsValidationError,
    ConnectionClosedError,
    RequestTimeoutError,
)
from ..calls.results import ToolResult
from .errors import CodeError, CodeLimitError, CodeTypeError

if TYPE_CHECKING:
    from ..calls.specs import ToolSpec
    from .api import CodeApi

__all__ = [
    "DEFAULT_MEMORY",
    "DEFAULT_TIMEOUT",
    "CodeCall",
    "CodeResult",
    "SandboxModule",
    "code_exception",
    "plain_value",
    "run_in_sandbox",
]

#: Seconds the code itself may run (time awaiting tool calls is not counted).
DEFAULT_TIMEOUT = 10.0
#: Bytes of heap the code may use.
DEFAULT_MEMORY = 128 * 1024 * 1024
#: The name tracebacks and type errors give the code.
SCRIPT_NAME = "code.py"
_LOCATION = re.compile(rf"{re.escape(SCRIPT_NAME)}:(\d+)")
_LIMIT_MESSAGE = re.compile(r"\blimit exceeded\b")
#: Calls the tool `spec` with the code's keyword arguments (Python or wire names) and extra (wire) ones.
ToolCall = Callable[
    ["ToolSpec[Any, Any]", Mapping[str, object], "Mapping[str, object] | None"],
    Awaitable[Any],
]


@dataclass(frozen=True)
class CodeCall:
    """One tool call the code made: the tool's wire name, the arguments as given (by wire name), the
    error it ended with (`"ToolError: ..."`) or None when it succeeded, and the module it was called
    through (the server's, in an umbrella package's toolkit)."""

    tool: str
    arguments: dict[str, Any]
    error: str | None = None
    module: str = ""


@dataclass(frozen=True)
class SandboxModule:
    """One module the code may import: a code API, the tools its functions call (by Python name), how
    they are called, and `search_api` (query, limit -> stubs) when the module offers it.
    """

    api: CodeApi
    specs: Mapping[str, ToolSpec[Any, Any]]
    call: ToolCall
    search_api: Callable[[str, int], str] | None = None


@dataclass(frozen=True)
class CodeResult:
    """What `run_code()` returns: the value of the code's last expression (JSON-able; None when the
    code ends with a statement), what it printed, and its tool calls in the order they were made.
    """

    value: Any
    stdout: str
    calls: tuple[CodeCall, ...]


def code_exception(error: Exception) -> Exception:
    """The built-in exception the code sees for a failed call, its message naming the client's error.

    ValueError: the arguments were refused (nothing was sent); TimeoutError: no answer in time;
    ConnectionError: the connection failed (`OutcomeUnknownError`: the call may have run);
    RuntimeError: anything else, a tool's `isError` result (`ToolError`) first of all.
    """
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, ArgumentsValidationError):
        return ValueError(text)
    if isinstance(error, RequestTimeoutError):
        return TimeoutError(text)
    if isinstance(error, ConnectionClosedError):
        return ConnectionError(text)
    return RuntimeError(text)


def plain_value(value: object) -> object:
    """A typed result as the sandbox holds it: models as the dicts the server sent (wire names, only the
    fields it sent), a result without structured output as its text."""
    from pydantic import BaseModel
    from pydantic_core import to_jsonable_python

    if isinstance(value, ToolResult):
        return value.text
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list | tuple):
        return [plain_value(item) for item in cast("Sequence[object]", value)]
    if isinstance(value, dict):
        items = cast("dict[object, object]", value).items()
        return {str(key): plain_value(item) for key, item in items}
    return to_jsonable_python(value, by_alias=True)


def _host_function(
    spec: ToolSpec[Any, Any], call: ToolCall, calls: list[CodeCall], module: str
) -> Callable[..., Awaitable[object]]:
    async def tool(*args: object, **kwargs: object) -> object:
        if args:
            raise TypeError(f"{spec.python_name}() takes keyword arguments only")
        given = kwargs.pop("extra_arguments", None)
        extra = (
            {
                str(key): value
                for key, value in cast("Mapping[object, object]", given).items()
            }
            if isinstance(given, Mapping)
            else None
        )
        wire_names = spec.wire_names()
        arguments = {wire_names.get(key, key): value for key, value in kwargs.items()}
        arguments.update(extra or {})
        position = len(calls)
        calls.append(CodeCall(spec.name, arguments, module=module))
        try:
            result = await call(spec, kwargs, extra)
        except (
            Exception
        ) as error:  # noqa: BLE001 - handed to the code, which may catch it
            calls[position] = CodeCall(
                spec.name, arguments, f"{type(error).__name__}: {error}"
            )
            raise code_exception(error) from None
        return plain_value(result)

    tool.__name__ = spec.python_name
    return tool


_collect_at_exit: list[bool] = []


def _monty() -> Any:
    """The `pydantic_monty` module, imported by name: an optional extra, so a type checker of a package
    installed without it has nothing to look for."""
    import importlib

    try:
        pydantic_monty = importlib.import_module("pydantic_monty")
    except ImportError as error:
        raise ImportError(
            "code mode needs pydantic-monty, which is not installed: "
            "pip install 'mcp-codegen-runtime[code]' (or pip install 'pydantic-monty>=1.4,<1.5')"
        ) from error
    if not _collect_at_exit:
        # pydantic-monty 1.4 objects left in reference cycles abort the interpreter now and then when they are
        # freed during its shutdown (SIGABRT, exit status 134): freed before it, a process that ran code exits.
        import atexit
        import gc

        atexit.register(gc.collect)
        _collect_at_exit.append(True)
    return pydantic_monty


def _external_module(
    monty: Any, module: SandboxModule, calls: list[CodeCall]
) -> tuple[str, Any]:
    from .api import SEARCH_API_STUB

    name = module.api.module
    attributes: dict[str, Any] = {
        python_name: _host_function(spec, module.call, calls, name)
        for python_name, spec in module.specs.items()
    }
    extra = ""
    search = module.search_api
    if search is not None:

        def search_api(query: str, limit: int = 5) -> str:
            return search(query, limit)

        attributes["search_api"] = search_api
        extra = SEARCH_API_STUB
    stubs = module.api.stubs(module.specs, extra=extra)
    return name, monty.ExternalModule(attributes, stubs=stubs)


async def run_in_sandbox(
    code: str,
    modules: Sequence[SandboxModule],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    memory: int = DEFAULT_MEMORY,
) -> CodeResult:
    """Type-check `code` against the `modules`' stubs, then run it with their functions calling their
    tools. Raises CodeTypeError, CodeError or CodeLimitError."""
    monty = _monty()
    calls: list[CodeCall] = []
    external = dict(_external_module(monty, module, calls) for module in modules)
    output = monty.CollectString()
    limits = {"max_feed_duration_secs": timeout, "max_memory": memory}
    try:
        async with monty.AsyncMonty(min_processes=1, max_processes=1) as pool:
            session = pool.checkout(
                script_name=SCRIPT_NAME,
                limits=limits,
                type_check=True,
                type_check_format="concise",
                external_modules=external,
            )
            async with session:
                value = await session.feed_run(code, print_callback=output)
    except monty.MontyError as error:
        raise _code_run_error(monty, error, output.output, tuple(calls)) from None
    from pydantic_core import to_jsonable_python

    return CodeResult(
        to_jsonable_python(value, fallback=repr), output.output, tuple(calls)
    )


def _code_run_error(
    monty: Any, error: Any, stdout: str, calls: tuple[CodeCall, ...]
) -> Exception:
    """The CodeRunError for a `MontyError` (`error`: the sandbox's types are known only at run time)."""
    if isinstance(error, monty.MontyTypingError | monty.MontySyntaxError):
        text = (
            error.display()
            if isinstance(error, monty.MontyTypingError)
            else error.display("traceback")
        )
        found = _LOCATION.search(text)
        return CodeTypeError(
            "the code was refused before it ran (no tool was called); fix it and run it again:\n"
            + text.strip(),
            line=int(found.group(1)) if found else None,
            stdout=stdout,
            calls=calls,
        )
    if isinstance(error, monty.MontyCrashedError):
        return CodeLimitError(
            f"the code was stopped: {error}", stdout=stdout, calls=calls
        )
    if isinstance(error, monty.MontyRuntimeError):
        inner = error.exception()
        line = _line(error)
        if isinstance(inner, TimeoutError | MemoryError) and _LIMIT_MESSAGE.search(
            str(inner)
        ):
            return CodeLimitError(
                f"the code was stopped at line {line}: {type(inner).__name__}: {inner}",
                line=line,
                stdout=stdout,
                calls=calls,
            )
        return CodeError(
            error.display("traceback").strip(), line=line, stdout=stdout, calls=calls
        )
    return CodeError(str(error), stdout=stdout, calls=calls)


def _line(error: Any) -> int | None:
    """The line of the code's innermost frame (every frame of the traceback is the code's)."""
    frames = error.traceback()
    return frames[-1].line if frames else None
