"""Multi-round requests (MCP 2026-07-28): answer a server's `InputRequiredResult` with the client's handlers.

A 2026-07-28 server may answer `tools/call`, `resources/read` or `prompts/get` with the input it
still needs (elicitation, sampling, roots) instead of the result. The SDK's driver fulfils those
requests through the session's callback table, the same one that answers server requests on older
protocol versions, so the `elicitation=` / `sampling=` / `roots=` handlers serve both, and retries the
request with the answers and the server's opaque state until the result arrives.

Only sessions on a modern protocol version take this path: older ones cannot send such a result,
and their calls keep the plain result type (no union to validate on the hot path).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp_types import InputRequest, InputResponses
    from pydantic import BaseModel, TypeAdapter

__all__ = ["answer_input_requests", "resolve_input_required", "speaks_multi_round"]

_ResultT = TypeVar("_ResultT", bound="BaseModel")

#: Sends one request with the given result type (the caller's options and timeout applied).
Send = Callable[[Any, Any], Awaitable[Any]]


def speaks_multi_round(session: ClientSession) -> bool:
    """Whether the negotiated protocol version lets the server answer with `InputRequiredResult`."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


@cache
def _or_input_required(result_type: type[BaseModel]) -> TypeAdapter[Any]:
    from mcp_types import InputRequiredResult
    from pydantic import TypeAdapter

    # A union built at run time has no static type form: type it as Any.
    union: Any = InputRequiredResult | result_type
    return TypeAdapter(union)


async def resolve_input_required(
    session: ClientSession, request: Any, result_type: type[_ResultT], send: Send
) -> _ResultT:
    """Send `request`; while the server asks for input, answer it with the session's handlers and retry."""
    from mcp.client._input_required import run_input_required_driver
    from mcp_types import InputRequiredResult

    adapter = _or_input_required(result_type)
    first = await send(request, adapter)
    if not isinstance(first, InputRequiredResult):
        return cast("_ResultT", first)

    async def retry(
        responses: InputResponses | None, state: str | None
    ) -> _ResultT | InputRequiredResult:
        params = request.params.model_copy(
            update={"input_responses": responses, "request_state": state}
        )
        answered = await send(request.model_copy(update={"params": params}), adapter)
        return cast("_ResultT | InputRequiredResult", answered)

    return await run_input_required_driver(
        first, dispatch=_dispatcher(session), retry=retry
    )


def _dispatcher(session: ClientSession) -> Callable[[str, Any], Awaitable[Any]]:
    """Answers one input request (by its key) with the session's elicitation/sampling/roots handlers."""
    from mcp.client.session import ClientRequestContext

    async def dispatch(key: str, asked: Any) -> Any:
        meta = asked.params.meta if asked.params is not None else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        return await session.dispatch_input_request(context, asked)

    return dispatch


async def answer_input_requests(
    session: ClientSession, requests: Mapping[str, InputRequest]
) -> InputResponses:
    """Answer input requests (key -> elicitation, sampling or roots request) with the session's handlers,
    concurrently, the way `resolve_input_required` answers them; a handler that declines raises `MCPError`.
    """
    from mcp.client._input_required import (
        _dispatch_all,  # pyright: ignore[reportPrivateUsage]
    )

    return await _dispatch_all(dict(requests), _dispatcher(session))
