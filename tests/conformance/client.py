"""The conformance client: does what each harness client scenario expects, through generated client packages only.

Run by the MCP conformance harness as ``python tests/conformance/client.py URL``: the harness appends its
scenario server's URL as the last argument and names the scenario in ``MCP_CONFORMANCE_SCENARIO`` (auth
scenarios add ``MCP_CONFORMANCE_CONTEXT``, JSON). The scenario name is the contract: it says what the harness
expects the client to do. This program imports nothing but the standard library and the packages
``mcp-codegen generate --snapshot tests/conformance/snapshots/<server>.json`` writes (``conformance_<server>``,
found on ``PYTHONPATH``), and uses only their public API: ``AsyncClient.http(url, ...)``, typed methods and the
vendored runtime's OAuth (``<package>._runtime.auth``).

Auth scenarios: the client configures OAuth from what the harness gives it, as a real client would from its
settings. The context's credentials say which method to use (a private key: client credentials with a signed
JWT; an identity provider's ID token: cross-app access; a client id and secret: a pre-registered client), and
with none, the authorization code flow with dynamic registration (or a client ID metadata document when the
server supports it). The context has no field naming the grant for a client id and secret, so there the
scenario's name chooses between the authorization code and the client-credentials grant (what a user would
configure); nothing else depends on it. The "browser" is headless: it follows the authorization URL over HTTP
(the harness's authorization server approves at once) to the runtime's own loopback redirect listener.
Tokens go to a temporary store that is removed at exit.

Exit codes: 0 the scenario's steps ran; 1 a step failed (one line on stderr); 2 bad usage or unknown scenario.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import sys
import tempfile
import threading
import urllib.request
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

#: Seconds for connecting and for each request (the harness itself stops the program after 30 s).
TIMEOUT = 20.0
#: This client's metadata document URL (SEP-991), used as its client id where the server supports that.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

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


def browse(authorization_url: str) -> None:
    """The headless browser: GET the authorization URL and follow its redirect to the loopback listener."""

    def run() -> None:
        try:
            with urllib.request.urlopen(authorization_url, timeout=TIMEOUT) as response:  # noqa: S310 (localhost)
                response.read()
        except OSError as error:  # the flow then fails on its own, with the runtime's message
            print(f"client.py: the authorization request failed: {error}", file=sys.stderr)

    threading.Thread(target=run, daemon=True).start()


def auth_method(scenario: str, context: dict[str, Any]) -> str:
    """Which OAuth method the harness's context asks for (see the module docstring)."""
    if context.get("kind"):
        return str(context["kind"])
    if context.get("private_key_pem"):
        return "private-key-jwt"
    if context.get("idp_id_token"):
        return "cross-app-access"
    if context.get("client_secret") and "client-credentials" in scenario:
        return "client-credentials"
    return "oauth"


def auth_for(package: ModuleType, scenario: str, url: str, store_directory: str) -> object:
    """The ``auth=`` for ``AsyncClient.http``: the generated runtime's OAuth, configured from the context."""
    auth = importlib.import_module(f"{package.__name__}._runtime.auth")
    context = _harness_context()
    store = auth.TokenStore.for_url(url, backend="file", directory=store_directory)
    method = auth_method(scenario, context)
    client_id = context.get("client_id")
    secret = context.get("client_secret")
    if method == "client-credentials":
        return auth.client_credentials(url, client_id=client_id, client_secret=secret, store=store)
    if method == "private-key-jwt":
        return auth.private_key_jwt(
            url,
            client_id=client_id,
            private_key=context["private_key_pem"],
            algorithm=context.get("signing_algorithm", "RS256"),
            store=store,
        )
    if method == "cross-app-access":
        return auth.cross_app_access(
            url,
            client_id=client_id,
            client_secret=secret,
            id_token=context["idp_id_token"],
            idp_token_endpoint=context["idp_token_endpoint"],
            idp_client_id=context.get("idp_client_id"),
            store=store,
        )
    return auth.oauth(
        url,
        client_id=client_id,
        client_secret=secret,
        client_name="mcp-codegen conformance client",
        client_metadata_url=None if client_id else CLIENT_METADATA_URL,
        store=store,
        open_browser=False,
        on_authorize_url=browse,
    )


def connect_options(package: ModuleType, scenario: str, url: str = "", store_directory: str = "") -> dict[str, Any]:
    """Keyword arguments for ``AsyncClient.http`` beyond the URL: the features the scenario needs, when the
    generated client has them (``auth=`` for the ``auth/`` scenarios; test_conformance.py fails as soon as
    ``AsyncClient.http`` gains a parameter this program does not know)."""
    accepted = inspect.signature(package.AsyncClient.http).parameters
    options: dict[str, Any] = {"timeout": TIMEOUT, "transport": "http", "strict": True}
    if scenario == "elicitation-sep1034-client-defaults" and "elicitation" in accepted:
        options["elicitation"] = accept_with_defaults
    if scenario.startswith("auth/") and "auth" in accepted:
        options["auth"] = auth_for(package, scenario, url, store_directory)
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
    with tempfile.TemporaryDirectory(prefix="conformance-tokens-") as store_directory:
        options = connect_options(package, scenario, url, store_directory)
        async with package.AsyncClient.http(url, **options) as client:
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
