"""Server-request handlers written the way users write them: type-checked strict with the runtime."""

from __future__ import annotations

from pathlib import Path

from mcp_codegen_runtime import (
    Accept,
    Cancel,
    Completion,
    Decline,
    ElicitationRequest,
    LogMessage,
    Root,
    SamplingRequest,
    SyncConnection,
    accept_defaults,
    ask_on_terminal,
)
from mcp_codegen_runtime.connection.session import AsyncConnection

from .client import AsyncClient, Client


def elicit(request: ElicitationRequest) -> Accept | Decline | Cancel:
    if request.mode == "url":
        return Decline()
    return Accept({"name": request.message}) if request.requested_schema else Cancel()


async def sample(request: SamplingRequest) -> Completion:
    return Completion(request.messages[-1].text, model="m")


def log(message: LogMessage) -> None:
    print(message.level, message.logger, message.data)


def connect_async() -> AsyncConnection[AsyncClient]:
    return AsyncClient.stdio(
        "server",
        elicitation=elicit,
        sampling=sample,
        roots=[Path("."), "file:///srv", Root("file:///data", "data")],
        on_log=log,
    )


def connect_sync() -> SyncConnection[Client]:
    return Client.http(
        "http://127.0.0.1:1/mcp",
        elicitation=ask_on_terminal,
        sampling=lambda request: "text",
        roots=[],
        on_log=lambda message: None,
    )


async def use(client: AsyncClient) -> tuple[str, ...] | None:
    await client.set_roots([Path("/tmp")])
    await client.set_log_level("warning")
    return client.roots


def use_sync(client: Client) -> None:
    client.set_roots(["file:///x"])
    client.set_log_level("debug")
    _ = accept_defaults
