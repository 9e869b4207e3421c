"""When a failed request is sent again: what is safe to repeat, which faults qualify, and how long to wait.

A request that failed in transit is one of two kinds (`Fault.kind`):

- `"not_processed"`: it never reached a handler (the connection could not be opened or broke before
  the request was written; `408`, `429`, a `503` with `Retry-After`; a session the server says it
  no longer knows: `404` or `400` with the server's own JSON-RPC error about the session). Sent
  again for every request.
- `"maybe_processed"`: it was written and no answer came (a dropped connection, `502`/`504`, a bare
  `503` (a gateway whose upstream reset), a read that broke mid-answer, a server process that exited,
  a `404` not in the server's words: a gateway may answer it after forwarding). Sent again only when repeating it is safe:
  listings, reads, `prompts/get`, `ping`, completions, the task requests (`tasks/get`, `tasks/result`,
  `tasks/list`, `tasks/cancel`), and tools whose annotations say
  `readOnlyHint` or `idempotentHint` (or that `Retries.repeatable` names).

Everything else (JSON-RPC errors, `isError` results, other `4xx`, bad arguments) is never retried.
A request is as processed as its most processed attempt (`Fault.then`): once one attempt may have
run, no later fault (a refused retry, a failed renewal of the session) makes it "not processed".
Waits grow exponentially with jitter, never below a `Retry-After`, and never past the call's deadline.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

__all__ = [
    "DEFAULT_RETRIES",
    "Fault",
    "FaultKind",
    "Retries",
    "retries_setting",
    "retry_after_seconds",
]

FaultKind = Literal["not_processed", "maybe_processed"]

#: Requests that change nothing on the server: repeating one that may have run is harmless.
SAFE_METHODS = frozenset(
    {
        "ping",
        "initialize",
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        # MCP tasks (both generations): reading a task's state, result or list changes nothing;
        # cancelling twice is cancelling once (a task that already ended keeps its status).
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
    }
)


@dataclass(frozen=True, slots=True)
class Fault:
    """Why a request failed in transit, and whether it may have reached a handler."""

    kind: FaultKind
    #: One short phrase for logs and errors: "HTTP 503", "connection dropped", "server exited".
    cause: str
    #: The server's `Retry-After`, in seconds (the floor of the next wait), or None.
    retry_after: float | None = None
    #: The HTTP status that carried the fault, or None.
    status: int | None = None
    #: The session is gone (the server restarted or expired it, or the process exited): open a new one first.
    new_session: bool = False

    def then(self, later: Fault) -> Fault:
        """`later`, the fault of a later attempt of the same request, as it stands for the request: once
        an attempt may have reached a handler, the request may have run, whatever happens after.
        """
        if self.kind == "maybe_processed" and later.kind == "not_processed":
            return replace(later, kind="maybe_processed")
        return later

    def renewal_failed(self) -> Fault:
        """This fault once opening a new session for the request failed: the request is as processed as
        it was; it now waits for a session (and carries no status: the refusal was dealt with).
        """
        failed = ", then opening a new session failed"
        cause = self.cause if self.cause.endswith(failed) else self.cause + failed
        return replace(
            self, cause=cause, retry_after=None, status=None, new_session=True
        )


@dataclass(frozen=True, slots=True)
class Retries:
    """How a client retries requests that failed in transit (`retries=` on connectors and `with_options()`).

    - `max_retries`: attempts after the first (0 turns retrying off; so does `retries=0`).
    - `initial_delay`, `max_delay`, `multiplier`: the wait before retry n is
      `initial_delay * multiplier**(n-1)`, capped at `max_delay`, with jitter (half of it random),
      and never below the server's `Retry-After`. A retry that would end past the call's timeout is
      not made.
    - `repeatable`: tool name (wire or Python) -> whether a call that may have run is safe to send
      again; it overrides the tool's `readOnlyHint`/`idempotentHint` annotations.
    """

    max_retries: int = 5
    initial_delay: float = 0.25
    max_delay: float = 8.0
    multiplier: float = 2.0
    repeatable: Mapping[str, bool] = field(default_factory=dict[str, bool])

    def __post_init__(self) -> None:
        given = cast(
            object, self.max_retries
        )  # callers without a type checker may pass anything
        if isinstance(given, bool) or not isinstance(given, int):
            raise TypeError("max_retries must be an int")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {self.max_retries}")
        for name in ("initial_delay", "max_delay"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not value >= 0:
                raise ValueError(
                    f"{name} must be a number of seconds >= 0, not {value!r}"
                )
        if not self.multiplier >= 1:
            raise ValueError(f"multiplier must be >= 1, not {self.multiplier!r}")

    def delay(
        self, retry: int, floor: float | None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before retry number `retry` (1 for the first)."""
        ceiling = min(
            self.max_delay, self.initial_delay * self.multiplier ** (retry - 1)
        )
        draw = (rng or random).random()
        wait = ceiling / 2 + ceiling / 2 * draw
        return max(wait, floor) if floor is not None else wait

    def may_repeat(
        self,
        method: str,
        tool: str | None,
        annotations: Mapping[str, Any] | None,
        python_name: str | None = None,
    ) -> bool:
        """Whether a request that may already have run is safe to send again (`python_name`: the
        tool's method name in the generated client, which `repeatable` may use instead).
        """
        if method != "tools/call":
            return method in SAFE_METHODS
        for name in (tool, python_name):
            if name is not None and name in self.repeatable:
                return bool(self.repeatable[name])
        if not annotations:
            return False
        return (
            annotations.get("readOnlyHint") is True
            or annotations.get("idempotentHint") is True
        )


#: What a client retries with unless told otherwise.
DEFAULT_RETRIES = Retries()
#: `retries=0`.
NO_RETRIES = Retries(max_retries=0)


def retries_setting(value: int | Retries | None) -> Retries | None:
    """`retries=` as given to a connector or `with_options()`: an int is `max_retries`; None keeps the default."""
    if value is None or isinstance(value, Retries):
        return value
    given = cast(object, value)
    if isinstance(given, bool) or not isinstance(given, int):
        raise TypeError(
            f"retries must be an int or a Retries, not {type(given).__name__}"
        )
    if value == 0:
        return NO_RETRIES
    if value == DEFAULT_RETRIES.max_retries:
        return DEFAULT_RETRIES
    return Retries(max_retries=value)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    import time

    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
