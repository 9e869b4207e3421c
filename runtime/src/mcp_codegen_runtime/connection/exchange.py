"""How a request's transit fault reaches the retry policy: a typed value beside its answer, never inside it.

The client opens an `Exchange` (a context variable) before it sends each request. The SDK runs the
request's HTTP exchange in a task made in the sender's context, so the transport finds the same
`Exchange` and records there what it learnt (`report`): the request was refused for a session the
server no longer knows, answered `429`, cut in transit... The request itself is still resolved with
the answer the SDK makes (or the server's own error), so code that sends through the session
directly sees the SDK's behaviour; the client reads `Exchange.fault` first. A server cannot forge a
fault: nothing it sends becomes one.
"""

from __future__ import annotations

import contextvars

from ..calls.retries import Fault

__all__ = ["Exchange", "RequestFault", "begin", "report"]


class Exchange:
    """What the transport learnt about one attempt of one request: its fault, or None."""

    __slots__ = ("fault",)

    def __init__(self) -> None:
        self.fault: Fault | None = None


_current: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "mcp_codegen_exchange", default=None
)


def begin() -> Exchange:
    """A new `Exchange` for the request this task sends next."""
    exchange = Exchange()
    _current.set(exchange)
    return exchange


def report(fault: Fault) -> None:
    """Record `fault` for the request whose exchange this task runs (the first one counts)."""
    exchange = _current.get()
    if exchange is not None and exchange.fault is None:
        exchange.fault = fault


class RequestFault(Exception):
    """A request failed in transit: `fault` says how; `answer` is the error the SDK resolved it with
    (the server's own, where it sent one)."""

    def __init__(self, fault: Fault, answer: BaseException) -> None:
        super().__init__(fault.cause)
        self.fault = fault
        self.answer = answer
