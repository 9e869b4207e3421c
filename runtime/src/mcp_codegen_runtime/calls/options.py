"""Per-call options (`client.with_options(...)`): timeout, progress callback, timeout reset on progress, cache mode,
exact verdicts on results.

A client made by `with_options()` is a view of the same session; its requests go through
`send_with_options` instead of a plain `send_request`. Cancellation needs nothing here: the SDK
sends `notifications/cancelled` for a request whose awaiting task is cancelled or whose own
timeout fires, and this module's own deadline cancels the request the same way.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from .errors import RequestTimeoutError
from .retries import Retries, retries_setting

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.shared.dispatcher import ProgressFnT
    from pydantic import BaseModel

__all__ = [
    "CacheMode",
    "CallOptions",
    "ProgressCallback",
    "merge_options",
    "send_with_options",
]

#: `on_progress(progress, total, message)`: a plain function or a coroutine function.
#: `total` and `message` are None when the server leaves them out.
ProgressCallback = Callable[
    [float, "float | None", "str | None"], "Awaitable[None] | None"
]

#: How a request uses the response cache (`with_options(cache_mode=...)`): `"use"` answers from a
#: fresh entry and stores the server's answer, `"refresh"` asks the server and stores the answer,
#: `"bypass"` neither reads nor writes the cache.
CacheMode = Literal["use", "refresh", "bypass"]

_ResultT = TypeVar("_ResultT", bound="BaseModel")


@dataclass(frozen=True, slots=True)
class CallOptions:
    """The options of a `with_options()` view; None means "not set" (the client's default applies)."""

    timeout: float | None = None
    on_progress: ProgressCallback | None = None
    reset_timeout_on_progress: bool = False
    max_timeout: float | None = None
    cache_mode: CacheMode = "use"
    #: How requests that failed in transit are retried; None: the connector's `retries=`.
    retries: Retries | None = None
    #: Check each typed result against the tool's output schema with `jsonschema` too (docs: "How results
    #: are checked").
    check_results: bool = False


def _positive(name: str, value: float | None) -> float | None:
    given = cast(object, value)  # callers without a type checker may pass anything
    if given is None:
        return None
    if isinstance(given, bool) or not isinstance(given, int | float):
        raise TypeError(
            f"{name} must be a number of seconds, not {type(given).__name__}"
        )
    if not given > 0:  # also rejects NaN
        raise ValueError(f"{name} must be a positive number of seconds, not {given!r}")
    return float(given)


def merge_options(
    current: CallOptions | None,
    *,
    timeout: float | None,
    on_progress: ProgressCallback | None,
    reset_timeout_on_progress: bool | None,
    max_timeout: float | None,
    cache_mode: CacheMode | None = None,
    retries: int | Retries | None = None,
    check_results: bool | None = None,
) -> CallOptions:
    """`current` with the given (non-None) options replaced: what chained `with_options()` calls build."""
    base = current if current is not None else CallOptions()
    return CallOptions(
        timeout=base.timeout if timeout is None else _positive("timeout", timeout),
        on_progress=base.on_progress if on_progress is None else on_progress,
        reset_timeout_on_progress=(
            base.reset_timeout_on_progress
            if reset_timeout_on_progress is None
            else bool(reset_timeout_on_progress)
        ),
        max_timeout=(
            base.max_timeout
            if max_timeout is None
            else _positive("max_timeout", max_timeout)
        ),
        cache_mode=base.cache_mode if cache_mode is None else _cache_mode(cache_mode),
        retries=base.retries if retries is None else retries_setting(retries),
        check_results=(
            base.check_results if check_results is None else bool(check_results)
        ),
    )


def _cache_mode(value: CacheMode) -> CacheMode:
    if value not in ("use", "refresh", "bypass"):
        raise ValueError(
            f"cache_mode must be 'use', 'refresh' or 'bypass', not {value!r}"
        )
    return value


def _progress_relay(
    callback: ProgressCallback | None, on_any: Callable[[], None] | None
) -> ProgressFnT:
    """The SDK's (async) progress callback: move the deadline first, then call the user's callback."""

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        if on_any is not None:
            on_any()
        if callback is not None:
            outcome = callback(progress, total, message)
            if outcome is not None:
                await outcome

    return relay


def _seconds(value: float) -> str:
    return f"{value:g} s"


async def send_with_options(
    session: ClientSession,
    request: Any,
    result_type: type[_ResultT],
    options: CallOptions,
    timeout: float | None,
    *,
    what: str,
    read_timeout: float | None = None,
) -> _ResultT:
    """Send `request` with `options`; `timeout` (a method's own `timeout=` argument) wins over theirs.

    Without `reset_timeout_on_progress` the SDK enforces the timeout (capped by `max_timeout`).
    With it, a cancel scope's deadline is moved `timeout` seconds past each progress
    notification, never past `max_timeout` seconds after sending; when the deadline passes, the
    SDK sends `notifications/cancelled` for the request and `RequestTimeoutError` is raised.
    `read_timeout` (the client's own, the connector's `timeout=`) is the step when neither gives one.
    """
    idle = timeout if timeout is not None else options.timeout
    cap = options.max_timeout
    if not options.reset_timeout_on_progress:
        if cap is not None:
            idle = cap if idle is None else min(idle, cap)
        progress = (
            None
            if options.on_progress is None
            else _progress_relay(options.on_progress, None)
        )
        return await session.send_request(
            request,
            result_type,
            request_read_timeout_seconds=idle,
            progress_callback=progress,
        )
    if idle is None:  # reset the client's own read timeout (the connector's `timeout=`)
        idle = read_timeout

    import anyio

    start = anyio.current_time()
    limit = math.inf if cap is None else start + cap
    step = math.inf if idle is None else idle

    with anyio.CancelScope(deadline=min(start + step, limit)) as scope:

        def extend() -> None:
            scope.deadline = min(anyio.current_time() + step, limit)

        # math.inf: the SDK's own clock must not end the call before this scope does.
        return await session.send_request(
            request,
            result_type,
            request_read_timeout_seconds=math.inf,
            progress_callback=_progress_relay(options.on_progress, extend),
        )
    # Only reached when the deadline cancelled the request (the SDK has sent the cancel).
    if cap is not None and anyio.current_time() >= limit:
        reason = f"reached max_timeout {_seconds(cap)}"
    else:
        reason = f"no progress for {_seconds(step)}"
    raise RequestTimeoutError(f"{what} timed out ({reason})")
