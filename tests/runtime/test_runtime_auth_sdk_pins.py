"""The private parts of the SDK's OAuth the runtime's providers build on, pinned: an mcp upgrade that moves one fails here.

`runtime/auth/providers.py` (and `workload_identity.py`) subclasses the SDK's `OAuthClientProvider` and its client-credentials
providers and overrides private methods (the SDK has no public hook for loading a stored
expiry, locking a refresh between processes or refusing a login), reads private attributes
(`_initialized`, `_fixed_client_info`) and uses `mcp.client.auth.utils` (not exported by
`mcp.client.auth`). Each of those is checked here by name, kind and signature, and each
override is checked to still be called by the SDK's flow.
"""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import OAuthClientMetadata

from mcp_codegen_runtime.auth import TokenStore, providers

ROOT = Path(__file__).resolve().parents[2]

COROUTINE, ASYNC_GENERATOR = "coroutine", "async generator"

#: The SDK's private methods the providers override: (class, name) -> (kind, signature).
PINNED_METHODS: dict[tuple[type[Any], str], tuple[str, str]] = {
    (OAuthClientProvider, "_initialize"): (COROUTINE, "(self) -> None"),
    (OAuthClientProvider, "_perform_authorization"): (COROUTINE, "(self) -> httpx2.Request"),
    (OAuthClientProvider, "_auth_flow"): (
        ASYNC_GENERATOR,
        "(self, request: httpx2.Request) -> collections.abc.AsyncGenerator[httpx2.Request, httpx2.Response]",
    ),
    (OAuthClientProvider, "_refresh_token"): (COROUTINE, "(self) -> httpx2.Request"),
    (OAuthClientProvider, "_add_auth_header"): ("function", "(self, request: httpx2.Request) -> None"),
    (OAuthClientProvider, "_handle_token_response"): (COROUTINE, "(self, response: httpx2.Response) -> None"),
    (OAuthClientProvider, "_handle_refresh_response"): (COROUTINE, "(self, response: httpx2.Response) -> bool"),
    (ClientCredentialsOAuthProvider, "_initialize"): (COROUTINE, "(self) -> None"),
    (ClientCredentialsOAuthProvider, "_perform_authorization"): (COROUTINE, "(self) -> httpx2.Request"),
    (PrivateKeyJWTOAuthProvider, "_initialize"): (COROUTINE, "(self) -> None"),
}

#: Which private methods each provider overrides; a new override must be pinned above.
OVERRIDES: dict[type[Any], set[str]] = {
    providers.RefreshLocking: set(),
    providers.Interactive: {"_initialize", "_perform_authorization", "_auth_flow"},
    providers.Stored: {"_initialize", "_perform_authorization", "_auth_flow", "_handle_token_response"},
    providers.Credentials: {"_initialize", "_perform_authorization"},
    providers.KeyCredentials: {"_initialize"},
}

#: The providers' own private helpers: names the SDK must not take.
OWN_HELPERS = {
    "_required",
    "_refuse_registration",
    "_hold_lock",
    "_lock_if_refresh_due",
    "_lock_after_refusal",
    "_reread_after_refusal",
    "_refresh_locked",
}

#: `mcp.client.auth.utils` functions `CrossAppAccess` discovers the authorization server with.
PINNED_UTILS = {
    "build_oauth_authorization_server_metadata_discovery_urls": "(auth_server_url: str | None, server_url: str) -> list[str]",
    "build_protected_resource_metadata_discovery_urls": "(www_auth_url: str | None, server_url: str) -> list[str]",
    "create_oauth_metadata_request": "(url: str) -> httpx2.Request",
    "extract_resource_metadata_from_www_auth": "(response: httpx2.Response) -> str | None",
    "handle_auth_metadata_response": "(response: httpx2.Response) -> tuple[bool, mcp.shared.auth.OAuthMetadata | None]",
    "handle_protected_resource_response": "(response: httpx2.Response) -> mcp.shared.auth.ProtectedResourceMetadata | None",
    "issuers_match": "(a: str, b: str) -> bool",
}

#: The `OAuthContext` fields the providers read or write.
CONTEXT_FIELDS = {
    "server_url",
    "client_metadata",
    "storage",
    "redirect_handler",
    "callback_handler",
    "oauth_metadata",
    "client_info",
    "current_tokens",
    "token_expiry_time",
}


def kind_of(function: Callable[..., Any]) -> str:
    if inspect.isasyncgenfunction(function):
        return ASYNC_GENERATOR
    return COROUTINE if inspect.iscoroutinefunction(function) else "function"


def parameters(function: Callable[..., Any]) -> list[tuple[str, Any]]:
    return [(parameter.name, parameter.kind) for parameter in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize(("owner", "name"), list(PINNED_METHODS), ids=lambda x: getattr(x, "__name__", x))
def test_the_overridden_sdk_methods_keep_their_kind_and_signature(owner: type[Any], name: str) -> None:
    kind, signature = PINNED_METHODS[owner, name]
    method = owner.__dict__.get(name)
    assert method is not None, f"{owner.__name__}.{name} is gone from the SDK"
    assert kind_of(method) == kind, f"{owner.__name__}.{name} is no longer a {kind}"
    assert str(inspect.signature(method)) == signature


@pytest.mark.parametrize("provider", list(OVERRIDES), ids=lambda cls: cls.__name__)
def test_every_override_is_pinned_and_matches_the_sdk(provider: type[Any]) -> None:
    own = {
        name
        for name, value in vars(provider).items()
        if name.startswith("_") and not name.startswith("__") and callable(value)
    }
    assert own - OWN_HELPERS == OVERRIDES[provider]
    for name in OVERRIDES[provider]:
        base = next((cls for cls in provider.__mro__[1:] if name in cls.__dict__), None)
        assert base is not None, f"{provider.__name__}.{name} overrides nothing in the SDK any more"
        assert (base, name) in PINNED_METHODS, (
            f"{provider.__name__}.{name} overrides an unpinned {base.__name__}.{name}"
        )
        ours, theirs = provider.__dict__[name], base.__dict__[name]
        # An async generator may be overridden by a function returning one (the flow wrappers).
        assert kind_of(ours) in {kind_of(theirs), "function" if kind_of(theirs) == ASYNC_GENERATOR else ""}, name
        assert parameters(ours) == parameters(theirs), name


def test_the_providers_own_helpers_do_not_shadow_the_sdk() -> None:
    for sdk_class in (OAuthClientProvider, ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider):
        assert not OWN_HELPERS & set(dir(sdk_class)), sdk_class.__name__
    assert OWN_HELPERS == {
        name
        for provider in OVERRIDES
        for name, value in vars(provider).items()
        if name.startswith("_") and not name.startswith("__") and callable(value) and name not in OVERRIDES[provider]
    }


def test_the_sdk_flow_still_calls_the_overridden_steps() -> None:
    # The overrides only work while the SDK's flow goes through them by these names.
    called = set(OAuthClientProvider._auth_flow.__code__.co_names)
    assert {
        "_initialize",
        "_initialized",
        "_refresh_token",
        "_handle_refresh_response",
        "_perform_authorization",
        "_handle_token_response",
        "is_token_valid",
    } <= called
    assert "_auth_flow" in OAuthClientProvider.async_auth_flow.__code__.co_names


def test_the_private_attributes_read_are_still_set(tmp_path: Path) -> None:
    store = TokenStore.for_url("http://127.0.0.1:9/mcp", backend="file", directory=tmp_path)
    interactive = OAuthClientProvider("http://127.0.0.1:9/mcp", OAuthClientMetadata(redirect_uris=None), store)
    assert interactive._initialized is False
    assert isinstance(interactive.context, OAuthContext)
    assert callable(interactive.context.is_token_valid)
    assert CONTEXT_FIELDS <= {field.name for field in dataclasses.fields(OAuthContext)}
    credentials = ClientCredentialsOAuthProvider(
        "http://127.0.0.1:9/mcp", store, "ci", "secret", issuer="http://127.0.0.1:9"
    )
    assert credentials._fixed_client_info.client_id == "ci"
    signature = inspect.signature(IdentityAssertionOAuthProvider.__init__)
    assert list(signature.parameters)[1:7] == [
        "server_url",
        "storage",
        "client_id",
        "client_secret",
        "issuer",
        "assertion_provider",
    ]
    assert {"scope", "token_endpoint_auth_method"} <= set(signature.parameters)


def test_the_discovery_helpers_keep_their_signatures() -> None:
    import mcp.client.auth.utils as utils

    for name, signature in PINNED_UTILS.items():
        assert str(inspect.signature(getattr(utils, name))) == signature, name


def test_importing_auth_does_not_load_the_sdk_oauth() -> None:
    # The providers module (and with it `mcp.client.auth`) loads on the first builder call only;
    # `when_challenged()` (every plain HTTP connect) does not need it.
    code = (
        "import sys\n"
        "from mcp_codegen_runtime import auth\n"
        "auth.when_challenged('http://127.0.0.1:9/mcp')\n"
        "print('mcp.client.auth' in sys.modules, 'mcp_codegen_runtime.auth.providers' in sys.modules)\n"
        "auth.stored('http://127.0.0.1:9/mcp', store=object())\n"
        "print('mcp.client.auth' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60
    )
    assert done.stdout.split() == ["False", "False", "True"]


def test_the_jwt_bearer_provider_parts_the_workload_flow_replaces(tmp_path: Path) -> None:
    # workload_identity._PublicJwtBearer overrides `_build_token_request` and reads `_token_endpoint`,
    # `_resource` and `_client`; the SDK's flow must still build its token request through it.
    signature = inspect.signature(IdentityAssertionOAuthProvider._build_token_request)
    assert str(signature) == "(self, scope: str | None, assertion: str) -> httpx2.Request"
    assert "self._build_token_request(" in inspect.getsource(IdentityAssertionOAuthProvider._auth_flow)
    store = TokenStore.for_url("http://127.0.0.1:9/mcp", backend="file", directory=tmp_path)

    async def assertion(_audience: str, _resource: str) -> str:
        return "a"

    provider = IdentityAssertionOAuthProvider(
        "http://127.0.0.1:9/mcp", store, "id", "secret", "http://127.0.0.1:9", assertion
    )
    assert provider._token_endpoint is None and provider._resource and provider._client.client_id == "id"
