"""The conformance client: does what each harness client scenario expects, through generated client packages only.

Run by the MCP conformance harness as ``python tests/conformance/client.py URL``: the harness appends its
scenario server's URL as the last argument and names the scenario in ``MCP_CONFORMANCE_SCENARIO`` (auth
scenarios add ``MCP_CONFORMANCE_CONTEXT``, JSON). The scenario name is the contract: it says what the harness
expects the client to do (for both pinned harness versions, 0.1.16 and 0.2.0-alpha: call a tool, list tools,
call every tool, send a tool's schema back, call the tools the context's ``toolCalls`` names with its
arguments): ``SCENARIOS`` maps it to those steps and the server's package, ``connect_options`` to the handlers
the scenario needs (elicitation, OAuth); beyond that only the auth method choice below reads it. This program imports nothing but the standard library and the packages
``mcp-codegen generate --snapshot tests/conformance/snapshots[-next]/<server>.json`` writes
(``conformance_<server>``, found on ``PYTHONPATH``), and uses only their public API: ``AsyncClient.http(url,
...)``, typed methods, ``call()``, ``tool_specs``, the listings, and the vendored runtime's OAuth
(``mcp_codegen_runtime.auth``).

Auth scenarios: the client configures OAuth from what the harness gives it, as a real client would from its
settings. The context's credentials say which method to use (a private key: client credentials with a signed
JWT; an identity provider's ID token: cross-app access; a platform-issued workload JWT: workload identity
federation, the jwt-bearer grant; a client id and secret: a pre-registered client), and
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
from collections.abc import Awaitable, Callable, Iterable
from types import ModuleType
from typing import Any

#: Seconds for connecting and for each request (the harness itself stops the program after 30 s).
TIMEOUT = 20.0
#: This client's metadata document URL (SEP-991), used as its client id where the server supports that.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

Step = Callable[[Any], Awaitable[object]]


class UnknownScenarioError(Exception):
    """The scenario is not one this program knows."""


class StepsFailedError(Exception):
    """Some of a scenario's steps failed (each was still tried: the harness checks every one)."""


async def _each(steps: Iterable[Awaitable[object]]) -> list[object]:
    """Await every step in order, going on after a failing one; raise the first failure at the end."""
    results: list[object] = []
    failures: list[Exception] = []
    for step in steps:
        try:
            results.append(await step)
        except Exception as error:  # the next step is still the scenario's to check
            failures.append(error)
    if failures:
        first = failures[0]
        raise StepsFailedError(
            f"{len(failures)} of {len(failures) + len(results)} steps failed; first: {type(first).__name__}: {first}"
        )
    return results


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


async def _listed(client: Any) -> object:
    """List the tools (the scenario checks the requests themselves: their metadata, headers, what is fetched)."""
    return [tool.name for tool in await client.list_tools()]


async def _every_tool_resource_and_prompt(client: Any) -> object:
    """One request of each kind that names something: every tool, resource and prompt, through the typed API."""
    results: list[object] = []
    for name in sorted(client.tool_specs):
        results.append(await client.call(name, {}))
    for resource in await client.list_resources():
        results.append(await client.read_resource(str(resource.uri)))
    for prompt in await client.list_prompts():
        results.append(await client.get_prompt(prompt.name))
    return len(results)


async def _context_tool_calls(client: Any) -> object:
    """Call the tools the harness's context lists, with its arguments, through `call_raw`: the values are the
    scenario's test data, which may break the tool's own schema (`null` for a boolean, to test header omission);
    a typed call refuses such arguments before sending, `call_raw` sends them as given."""
    calls = _harness_context().get("toolCalls", [])
    return await _each(client.call_raw(call["name"], call.get("arguments", {})) for call in calls)


async def _every_tool(client: Any) -> object:
    """Call every tool the generated client offers, without arguments (each tool's behaviour is the test)."""
    return await _each(client.call(name, {}) for name in sorted(client.tool_specs))


async def _every_tool_with_arguments(client: Any) -> object:
    """Call every tool the generated client offers, with arguments made to fit its input schema (the package's
    own fake-data synthesiser: required values included)."""
    data = importlib.import_module("mcp_codegen_runtime.serving.data")
    return await _each(
        client.call(name, data.synthesise(spec.input_schema)) for name, spec in sorted(client.tool_specs.items())
    )


async def _echo_schema(client: Any) -> object:
    """Send the schema the client holds for the focal tool back through the echo tool, verbatim."""
    focal = next(spec for name, spec in client.tool_specs.items() if name != "json_schema_echo")
    return await client.json_schema_echo(schema_=focal.input_schema)


#: Scenario (or ``auth/`` family) -> (server whose generated package it uses, the scenario's steps).
SCENARIOS: dict[str, tuple[str, Step]] = {
    "initialize": ("initialize", _connected),
    "tools_call": ("tools_call", _add_numbers),
    "sse-retry": ("sse_retry", _reconnection),
    "elicitation-sep1034-client-defaults": ("elicitation_defaults", _elicitation_defaults),
    "request-metadata": ("request_metadata", _listed),
    "sep-2322-client-request-state": ("sep_2322_client_request_state", _every_tool),
    "http-standard-headers": ("http_standard_headers", _every_tool_resource_and_prompt),
    "http-custom-headers": ("http_custom_headers", _context_tool_calls),
    "http-invalid-tool-headers": ("http_invalid_tool_headers", _every_tool_with_arguments),
    "json-schema-ref-no-deref": ("json_schema_ref_no_deref", _listed),
    "json-schema-2020-12-preservation": ("json_schema_2020_12_preservation", _echo_schema),
    **{
        f"sep-2640-client-{name}": (f"sep_2640_client_{name.replace('-', '_')}", _listed)
        for name in ("no-prefetch", "verify-digest", "verify-size", "verify-frontmatter")
    },
    "auth/": ("auth", _protected_tool),
}


#: The scenarios whose server asks the client for input (elicitation).
ANSWERS_ELICITATION = frozenset({"elicitation-sep1034-client-defaults", "sep-2322-client-request-state"})


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
    if context.get("valid_jwt"):
        return "workload"
    if context.get("client_secret") and "client-credentials" in scenario:
        return "client-credentials"
    return "oauth"


def auth_for(package: ModuleType, scenario: str, url: str, store_directory: str) -> object:
    """The ``auth=`` for ``AsyncClient.http``: the generated runtime's OAuth, configured from the context."""
    auth = importlib.import_module("mcp_codegen_runtime.auth")
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
    if method == "workload":
        # The platform's token, as a CI job or a pod holds it: a user-only file the runtime reads.
        token_file = os.path.join(store_directory, "workload-token")
        with open(os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
            handle.write(context["valid_jwt"])
        return auth.workload(url, token_file=token_file, client_id=client_id, store=store)
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
    if scenario in ANSWERS_ELICITATION and "elicitation" in accepted:
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
