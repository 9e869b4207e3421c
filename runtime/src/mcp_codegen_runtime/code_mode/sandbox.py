"""One run of code in the `pydantic-monty` sandbox: type-checked against the code API, each call a typed tool call.

The code runs in a worker subprocess of a pool made for the run (`AsyncMonty`, about 10 ms to start),
with no mounts and no OS handler: it cannot open files, reach the network, start processes or read
the environment, and only the API's modules (each with `search_api` when given) are importable
besides Monty's own standard modules. Before it runs, `ty` checks it against the API's stub (the
part of it the code names: `CodeApi.named_in`); a refused program never starts. The run is limited: wall-clock time over the whole run, the sandbox's
heap, its tool calls and suspensions, and what it prints (the `DEFAULT_*` values); at a limit the worker is
stopped and the pool discarded, so the client that made the calls is untouched.

Each function of a module is a host coroutine that takes exactly the keywords its stub declares,
calls the tool through `call` (the client's typed path: argument checks, retries by safety, hooks,
tracing) as a task of the run (`host.HostRun`: no call outlives the run) and hands the code a plain
value. A failed call reaches the code as a built-in exception it can catch (see `code_exception`).
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
from .errors import CodeError, CodeLimitError, CodeRunError, CodeTypeError
from .host import CANCELLED, CallRecord, CallStatus, HostRun, LimitName

if TYPE_CHECKING:
    from ..calls.specs import ToolSpec
    from .api import CodeApi

__all__ = [
    "DEFAULT_MAX_CALLS",
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_MEMORY",
    "DEFAULT_TIMEOUT",
    "CodeCall",
    "CodeResult",
    "SandboxModule",
    "code_exception",
    "plain_value",
    "run_in_sandbox",
]

#: Seconds a run may take, wall-clock: the type check, the code, its sleeps and the calls it awaits.
DEFAULT_TIMEOUT = 10.0
#: Bytes of heap the code may use.
DEFAULT_MEMORY = 128 * 1024 * 1024
#: Tool calls a run may make.
DEFAULT_MAX_CALLS = 1000
#: Bytes the code may print; its value, as JSON, has the same limit.
DEFAULT_MAX_OUTPUT = 1024 * 1024
#: The sandbox's suspensions (each tool call, sleep and wait on the host) beyond the call limit.
SUSPENSIONS_BEYOND_CALLS = 1000
#: The name tracebacks and type errors give the code.
SCRIPT_NAME = "code.py"
_LOCATION = re.compile(rf"{re.escape(SCRIPT_NAME)}:(\d+)")
_LIMIT_MESSAGE = re.compile(r"\blimit\b.*\bexceeded\b")
#: Calls the tool `spec` with the code's keyword arguments (Python names).
ToolCall = Callable[["ToolSpec[Any, Any]", Mapping[str, object]], Awaitable[Any]]


@dataclass(frozen=True)
class CodeCall:
    """One tool call the code made: the tool's wire name, the arguments as given (by wire name), the
    error it ended with (`"ToolError: ..."`; None only when it succeeded), the module it was called
    through (the server's, in an umbrella package's toolkit), and how it ended (`status`):

    * `"succeeded"`: the tool answered and its result reached the code;
    * `"failed"`: it raised in the code (a tool's error, refused arguments, a timeout, ...);
    * `"cancelled"`: the run ended (the code returned or raised, a limit, the caller cancelled)
      before its answer came; the server was told to cancel it, but it may have run.
    """

    tool: str
    arguments: dict[str, Any]
    error: str | None = None
    module: str = ""
    status: CallStatus = "succeeded"


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
    spec: ToolSpec[Any, Any],
    module: SandboxModule,
    run: HostRun,
) -> Callable[..., Awaitable[object]]:
    declared = module.api.parameters(spec.python_name)
    accepted: list[frozenset[str] | None] = []

    def check(keywords: Mapping[str, object]) -> None:
        # Only what the stub declares and the arguments model has: never `extra_arguments`, `_meta`, ...
        if not accepted:
            fields = spec.wire_names()
            accepted.append(
                None if declared is None else frozenset(declared & fields.keys())
            )
        allowed = accepted[0]
        for key in keywords:
            if allowed is not None and key not in allowed:
                raise TypeError(
                    f"{spec.python_name}() got an unexpected keyword argument {key!r}"
                )

    async def tool(*args: object, **kwargs: object) -> object:
        if args:
            raise TypeError(f"{spec.python_name}() takes keyword arguments only")
        check(kwargs)
        wire_names = spec.wire_names()
        arguments = {wire_names.get(key, key): value for key, value in kwargs.items()}
        try:
            result = await run.call(
                spec.name,
                arguments,
                module.api.module,
                lambda: module.call(spec, kwargs),
            )
        except (
            Exception
        ) as error:  # noqa: BLE001 - handed to the code, which may catch it
            raise code_exception(error) from None
        return plain_value(result)

    tool.__name__ = spec.python_name
    return tool


_settle_registered: list[bool] = []
#: How long a process that ran code lets pydantic-monty's threads run before it finalizes.
_SETTLE_SECONDS = 0.1


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
    if not _settle_registered:
        import atexit

        atexit.register(_settle_before_exit)
        _settle_registered.append(True)
    return pydantic_monty


def _settle_before_exit() -> None:
    """Let pydantic-monty 1.4's threads finish before the interpreter finalizes, so the process exits cleanly.

    Two of its habits abort a process at shutdown (SIGABRT, exit status 134), now and then, more often under
    load: its objects left in reference cycles are freed during finalization (collected here, before it); and
    its tokio threads wake the event loop (`call_soon_threadsafe`, a socket send without the GIL) after the
    run has had its answer, so a thread still inside that send when finalization starts cannot take the GIL
    back, exits through Rust frames and aborts (seen in a core dump). Letting the threads run for a moment
    first ended it: 0 aborts in 120 loaded runs, against 9 in 200 without.
    """
    import gc
    import time

    gc.collect()
    time.sleep(_SETTLE_SECONDS)


def _external_module(
    monty: Any, module: SandboxModule, run: HostRun, code: str
) -> tuple[str, Any]:
    from .api import SEARCH_API_STUB

    name = module.api.module
    attributes: dict[str, Any] = {
        python_name: _host_function(spec, module, run)
        for python_name, spec in module.specs.items()
    }
    extra = ""
    search = module.search_api
    if search is not None and "search_api" not in attributes:

        def search_api(query: str, limit: int = 5) -> str:
            return search(query, limit)

        attributes["search_api"] = search_api
        extra = SEARCH_API_STUB
    # Checked against the functions and classes the code names (each host function stays callable):
    # what it calls by name is checked as against the whole stub, at a fraction of the cost.
    functions, classes = module.api.named_in(code, module.specs)
    stubs = module.api.stubs(functions, extra=extra, classes=classes)
    return name, monty.ExternalModule(attributes, stubs=stubs)


async def run_in_sandbox(
    code: str,
    modules: Sequence[SandboxModule],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    memory: int = DEFAULT_MEMORY,
    max_calls: int = DEFAULT_MAX_CALLS,
    max_output: int = DEFAULT_MAX_OUTPUT,
) -> CodeResult:
    """Type-check `code` against the `modules`' stubs, then run it with their functions calling their
    tools, within the limits. Raises CodeTypeError, CodeError or CodeLimitError; returns or raises
    (or is cancelled) only once no call it started is still in flight."""
    monty = _monty()
    run = HostRun(max_calls=max_calls, max_output=max_output)
    external = dict(_external_module(monty, module, run, code) for module in modules)
    limits = {
        "max_feed_duration_secs": timeout,
        "max_total_sleep_secs": timeout,
        "max_memory": memory,
        "max_suspensions": max_calls + SUSPENSIONS_BEYOND_CALLS,
    }

    async def feed() -> tuple[bool, Any]:
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
                    return True, await session.feed_run(
                        code, print_callback=run.printed
                    )
        except (
            Exception
        ) as error:  # noqa: BLE001 - a MontyError, or the sandbox failing: a CodeRunError
            return False, error

    ended = await run.run(feed, timeout)
    calls = tuple(_code_call(record) for record in run.records)
    stdout = run.output
    if run.limit is not None:
        limit, message = run.limit
        raise CodeLimitError(message, limit=limit, stdout=stdout, calls=calls)
    assert ended is not None  # no limit: the feed ended
    finished, value = ended
    if not finished:
        raise _code_run_error(monty, value, stdout, calls) from None
    return CodeResult(_json_value(value, max_output, stdout, calls), stdout, calls)


def _code_call(record: CallRecord) -> CodeCall:
    if record.status == "running":  # its task never ran: ended with the run, unsent
        return CodeCall(
            record.tool, record.arguments, CANCELLED, record.module, "cancelled"
        )
    return CodeCall(
        record.tool, record.arguments, record.error, record.module, record.status
    )


def _json_value(
    value: object, max_output: int, stdout: str, calls: tuple[CodeCall, ...]
) -> object:
    """The code's value as JSON data; CodeError when it has no JSON form, CodeLimitError past `max_output`."""
    from pydantic_core import to_json, to_jsonable_python

    try:
        data = to_jsonable_python(value, fallback=repr)
        size = len(to_json(data))
    except (ValueError, TypeError, RecursionError) as error:
        raise CodeError(
            f"the code's value cannot be returned as JSON data ({type(error).__name__}: {error}); "
            "end the code with plain data: dicts, lists, strings, numbers (nested less deeply)",
            stdout=stdout,
            calls=calls,
        ) from None
    if size > max_output:
        raise CodeLimitError(
            f"the code's value is {size} bytes of JSON, more than {max_output} (the output limit); "
            "return less, or a summary",
            limit="output",
            stdout=stdout,
            calls=calls,
        )
    return data


def _code_run_error(
    monty: Any, error: Any, stdout: str, calls: tuple[CodeCall, ...]
) -> CodeRunError:
    """The CodeRunError for a failed feed (`error`: a `MontyError`, whose types are known only at run time)."""
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
            f"the code was stopped: {error}",
            limit="time" if error.timed_out else "worker",
            stdout=stdout,
            calls=calls,
        )
    if isinstance(error, monty.MontyRuntimeError):
        inner = error.exception()
        line = _line(error)
        limit = _limit_of(inner)
        if limit is not None:
            where = f" at line {line}" if line is not None else ""
            return CodeLimitError(
                f"the code was stopped{where}: {type(inner).__name__}: {inner}",
                limit=limit,
                line=line,
                stdout=stdout,
                calls=calls,
            )
        return CodeError(
            error.display("traceback").strip(), line=line, stdout=stdout, calls=calls
        )
    if isinstance(error, monty.MontyError):
        return CodeError(str(error), stdout=stdout, calls=calls)
    return CodeError(
        f"the sandbox failed: {type(error).__name__}: {error}",
        stdout=stdout,
        calls=calls,
    )


def _limit_of(inner: BaseException) -> LimitName | None:
    """The sandbox's own limit an exception of the code reports (uncatchable in the code), if any."""
    if not _LIMIT_MESSAGE.search(str(inner)):
        return None
    if isinstance(inner, TimeoutError):
        return "time"  # the interpreter's time, or the sleeps' total
    if isinstance(inner, MemoryError):
        return "memory"
    if isinstance(inner, RuntimeError) and "suspension limit" in str(inner):
        return "suspensions"
    return None


def _line(error: Any) -> int | None:
    """The line of the code's innermost frame (every frame of the traceback is the code's)."""
    frames = error.traceback()
    return frames[-1].line if frames else None
