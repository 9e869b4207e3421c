"""A result without `resultType` reaches the SDK as "complete" (SEP-2322); other messages pass unchanged."""

from __future__ import annotations

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCNotification, JSONRPCResponse

from mcp_codegen_runtime.connection.results import complete_results


async def _through(*messages: SessionMessage) -> list[SessionMessage]:
    send, receive = anyio.create_memory_object_stream[SessionMessage](10)
    read, _write = complete_results((receive, None))
    async with send:
        for message in messages:
            await send.send(message)
    async with read:
        return [item async for item in read]


def test_missing_result_type_is_complete_and_given_ones_are_kept() -> None:
    bare = SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": []}))
    asked = SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=2, result={"resultType": "input_required"}))
    note = SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={}))
    first, second, third = anyio.run(_through, bare, asked, note)
    assert isinstance(first.message, JSONRPCResponse) and first.message.result == {
        "content": [],
        "resultType": "complete",
    }
    assert isinstance(second.message, JSONRPCResponse) and second.message.result == {"resultType": "input_required"}
    assert third.message == note.message
