"""The plain `mcp` SDK client under the conformance harness: the yardstick for the strict xfails of test_conformance.

A maintainer tool, not run by the tests: ``python tests/conformance/sdk_client.py URL`` is run by the harness
like client.py (scenario in ``MCP_CONFORMANCE_SCENARIO``, context in ``MCP_CONFORMANCE_CONTEXT``). It does each
scenario's steps with nothing but the SDK (`mcp.Client`, its streamable HTTP transport, its OAuth providers), so
a scenario it fails too is a harness or SDK issue, not the generator's. Example, for one scenario:
``node dist/index.js client --command "python tests/conformance/sdk_client.py" --scenario request-metadata``
with the Node and harness of tests/conformance/node-next (see harness.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import Client, types
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

TIMEOUT = 20.0
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://localhost:3000/callback"


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class HeadlessBrowser:
    """GET the authorization URL without following the redirect; read `code`, `state`, `iss` from Location."""

    def __init__(self) -> None:
        self.result: AuthorizationCodeResult | None = None

    async def redirect(self, url: str) -> None:
        async with httpx2.AsyncClient() as http:
            response = await http.get(url, follow_redirects=False)
        query = parse_qs(urlparse(response.headers["location"]).query)
        self.result = AuthorizationCodeResult(
            code=query["code"][0], state=(query.get("state") or [None])[0], iss=(query.get("iss") or [None])[0]
        )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


def _context() -> dict[str, Any]:
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    return dict(json.loads(raw)) if raw else {}


async def _authorization_server(url: str) -> str:
    """The MCP server's authorization server (its protected resource metadata), which the SDK's identity
    assertion provider takes as configuration: what a user would look up once."""
    parts = urlparse(url)
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        response = await http.get(f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}")
    return str(response.json()["authorization_servers"][0])


def _id_jag_exchange(context: dict[str, Any]) -> Any:
    """RFC 8693 at the identity provider: the context's ID token for an ID-JAG (SEP-990)."""

    async def exchange(audience: str, resource: str) -> str:
        form = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": context["idp_id_token"],
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "audience": audience,
            "resource": resource,
        }
        if context.get("idp_client_id"):
            form["client_id"] = context["idp_client_id"]
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            response = await http.post(context["idp_token_endpoint"], data=form)
        return str(response.json()["access_token"])

    return exchange


async def _auth(scenario: str, url: str) -> httpx2.Auth:
    context = _context()
    storage = MemoryStorage()
    client_id, secret = context.get("client_id"), context.get("client_secret")
    if context.get("idp_id_token"):
        issuer = await _authorization_server(url)
        # client_secret_basic: the method the harness's authorization server metadata lists.
        exchange = _id_jag_exchange(context)
        return IdentityAssertionOAuthProvider(
            url, storage, client_id, secret, issuer, exchange, token_endpoint_auth_method="client_secret_basic"
        )
    if context.get("private_key_pem"):
        jwt = SignedJWTParameters(
            issuer=client_id,
            subject=client_id,
            signing_algorithm=context.get("signing_algorithm", "ES256"),
            signing_key=context["private_key_pem"],
        )
        return PrivateKeyJWTOAuthProvider(url, storage, client_id, jwt.create_assertion_provider())
    if secret and "client-credentials" in scenario:
        return ClientCredentialsOAuthProvider(url, storage, client_id, secret)
    if client_id:
        storage.client_info = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=secret,
            redirect_uris=[REDIRECT_URI],
            token_endpoint_auth_method="client_secret_basic" if secret else "none",
        )
    browser = HeadlessBrowser()
    return OAuthClientProvider(
        url,
        OAuthClientMetadata(
            client_name="sdk conformance client",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
        client_metadata_url=None if client_id else CLIENT_METADATA_URL,
    )


async def _accept_defaults(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
    schema = getattr(params, "requested_schema", {}) or {}
    content = {k: v["default"] for k, v in schema.get("properties", {}).items() if "default" in v}
    return types.ElicitResult(action="accept", content=content)


async def _steps(client: Client, scenario: str) -> None:
    """The same steps client.py takes for the scenario, through the SDK's own API."""
    tools = (await client.list_tools()).tools
    if scenario == "json-schema-2020-12-preservation":
        focal = next(tool for tool in tools if tool.name != "json_schema_echo")
        await client.call_tool("json_schema_echo", {"schema": focal.input_schema})
        return
    if scenario == "http-custom-headers":
        for call in _context().get("toolCalls", []):
            await client.call_tool(call["name"], call.get("arguments", {}))
        return
    if scenario in ("request-metadata", "json-schema-ref-no-deref", "initialize") or scenario.startswith("sep-2640"):
        return
    if scenario == "tools_call":
        await client.call_tool("add_numbers", {"a": 5, "b": 3})
        return
    for tool in tools:  # every tool once (auth scenarios: the protected test tool)
        await client.call_tool(tool.name, {})
    if scenario == "http-standard-headers":
        for resource in (await client.list_resources()).resources:
            await client.read_resource(str(resource.uri))
        for prompt in (await client.list_prompts()).prompts:
            await client.get_prompt(prompt.name)


async def run(scenario: str, url: str) -> None:
    auth = await _auth(scenario, url) if scenario.startswith("auth/") else None
    async with httpx2.AsyncClient(auth=auth, timeout=TIMEOUT) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, read_timeout_seconds=TIMEOUT, elicitation_callback=_accept_defaults) as client:
            await _steps(client, scenario)


def main() -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        asyncio.run(run(scenario, sys.argv[-1]))
    except BaseException as error:  # noqa: BLE001 (one line for the harness log)
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        print(f"sdk_client.py: error: {scenario}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
