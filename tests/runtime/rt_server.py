"""The MCP server the runtime tests talk to: in memory (`build_server()`) or over stdio (`python rt_server.py`)."""

from __future__ import annotations

import os
from typing import Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel


class Weather(BaseModel):
    city: str
    temperature: float
    units: Literal["c", "f"]
    days: int | None = None


def build_server() -> MCPServer:
    server = MCPServer("rt-demo", version="1.2.3", instructions="Runtime test server.")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def get_weather(city: str, units: Literal["c", "f"] = "c", days: int | None = None) -> Weather:
        """Current weather for a city."""
        return Weather(city=city, temperature=21.5 if units == "c" else 70.7, units=units, days=days)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def describe(b: int | None = 7) -> str:
        """Echo how `b` arrived: the server default 7 when it was not sent."""
        return repr(b)

    @server.tool()
    def search(query: str, maxResults: int = 3) -> list[str]:
        """Fake search results."""
        return [f"{query}-{index}" for index in range(maxResults)]

    @server.tool(structured_output=False)
    def greet_plain(name: str) -> str:
        """A tool without an output schema."""
        return f"Hello, {name}!"

    @server.tool()
    def fail(message: str) -> str:
        """Always fails with `message`."""
        raise ToolError(message)

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleeps, then answers."""
        await anyio.sleep(seconds)
        return "done"

    @server.tool()
    def env_value(name: str) -> str | None:
        """The server process's environment variable `name`."""
        return os.environ.get(name)

    @server.tool()
    def crash() -> str:
        """Kills the server process mid-call."""
        os._exit(1)

    @server.resource("config://app", mime_type="application/json")
    def app_config() -> str:
        """The app configuration."""
        return '{"debug": true}'

    @server.resource("users://{user_id}/profile")
    def user_profile(user_id: str) -> str:
        """A user's profile."""
        return f"profile of {user_id}"

    @server.prompt()
    def review(code: str, style: str = "short") -> str:
        """Review some code."""
        return f"Review this code ({style}):\n{code}"

    return server


if __name__ == "__main__":
    build_server().run()
