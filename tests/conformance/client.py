"""The conformance client: does what each harness client scenario expects, through generated client packages only.

Run by the MCP conformance harness as ``python tests/conformance/client.py URL``: the harness appends its
scenario server's URL as the last argument and names the scenario in ``MCP_CONFORMANCE_SCENARIO`` (auth
scenarios add ``MCP_CONFORMANCE_CONTEXT``, JSON). The scenario name is the contract: it says what the harness
expects the client to do. This program imports nothing but the standard library and the packages
``mcp-codegen generate --snapshot tests/conformance/snapshots/<server>.json`` writes (``conformance_<server>``,
found on ``PYTHONPATH``), and uses only their public API: ``AsyncClient.http(url, ...)`` and typed methods.

Exit codes: 0 the scenario's steps ran; 1 a step failed (one line on stderr); 2 bad usage or unknown scenario.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import sys
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

#: Seconds for connecting and for each request (the harness itself stops the program after 30 s).
TIMEOUT = 20.0

Step = Callable[[Any], Awaitable[object]]


class UnknownScenarioError(Exception):
    """The scenario is not one this program knows."""


async def _connected(client: Any) -> object:
    """`initialize`: the handshake (and the drift check's tools/list) is the whole scenario."""
    return client.server_info


async def _add_numbers(client: Any) -> object:
    return await client.add_numbers(a=5, b=3)


async def _reconnection(client: Any) -> object:
    # The server closes the tool's SSE stream with a retry hint; the transport must reconnect and resume.
    return await client.test_reconnection()


async def _elicitation_defaults(client: Any) -> object:
    return await client.test_client_elicitation_defaults()


async def _protected_tool(client: Any) -> object:
    return await client.test_tool()


#: Scenario (or ``auth/`` family) -> (server whose generated package it uses, the scenario's steps).
SCENARIOS: dict[str, tuple[str, Step]] = {
    "initialize": ("initialize", _connected),
    "tools_call": ("tools_call", _add_numbers),
    "sse-retry": ("sse_retry", _reconnection),
    "elicitation-sep1034-client-defaults": ("elicitation_defaults", _elicitation_defaults),
    "auth/": ("auth", _protected_tool),
}


def accept_with_defaults(request: Any) -> dict[str, Any]:
    """The elicitation handler: accept, answering nothing, so every property is the schema's default.

    `request` is the generated runtime's `ElicitationRequest`; a plain dict answer means accept. The generated
    client fills the requested schema's defaults into accepted content (SEP-1034): the scenario checks that.
    """
    return {}


def _harness_context() -> dict[str, Any]:
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    return dict(json.loads(raw)) if raw else {}


def connect_options(package: ModuleType, scenario: str) -> dict[str, Any]:
    """Keyword arguments for ``AsyncClient.http`` beyond the URL: the features the scenario needs, when the
    generated client has them.

    Generated clients have no ``auth=`` yet (a later issue adds it); the shape used here (the harness's
    credentials) is a placeholder. test_conformance.py fails as soon as ``AsyncClient.http`` gains a parameter,
    so this gets wired for real.
    """
    accepted = inspect.signature(package.AsyncClient.http).parameters
    options: dict[str, Any] = {"timeout": TIMEOUT, "transport": "http", "strict": True}
    if scenario == "elicitation-sep1034-client-defaults" and "elicitation" in accepted:
        options["elicitation"] = accept_with_defaults
    if scenario.startswith("auth/") and "auth" in accepted:
        options["auth"] = _harness_context()
    return options


def _resolve(scenario: str) -> tuple[str, Step] | None:
    if scenario in SCENARIOS:
        return SCENARIOS[scenario]
    family = scenario.split("/", 1)[0] + "/"
    return SCENARIOS.get(family) if "/" in scenario else None


async def run(scenario: str, url: str) -> None:
    resolved = _resolve(scenario)
    if resolved is None:
        raise UnknownScenarioError(scenario)
    server, step = resolved
    package = importlib.import_module(f"conformance_{server}")
    async with package.AsyncClient.http(url, **connect_options(package, scenario)) as client:
        result = await step(client)
    print(f"{scenario}: {getattr(result, 'text', result)!r}")


def main(argv: list[str]) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(argv) < 2 or not scenario:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME client.py [ARGS...] SERVER_URL", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(scenario, argv[-1]))
    except UnknownScenarioError:
        print(f"client.py: error: unknown scenario {scenario!r}", file=sys.stderr)
        return 2
    except Exception as error:  # one line, never a traceback (the harness logs stderr)
        print(f"client.py: error: {scenario}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
