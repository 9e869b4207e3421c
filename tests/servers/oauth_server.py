"""An OAuth-protected MCP test server: the SDK's server-side auth over streamable HTTP on 127.0.0.1.

Its authorization server lives in the same app (`mcp.server.auth`): dynamic client registration,
pre-registered clients, authorization code + PKCE with an authorize endpoint that approves at
once (redirects straight back with a code, so a test can follow it headlessly), rotating refresh
tokens (each valid once; one presented again revokes its whole family, every access and refresh
token descended from the same login, as OAuth 2.1 advises), and access tokens that expire after
`access_ttl` seconds. The SDK's token endpoint has no
client-credentials grant, so a small ASGI wrapper answers `grant_type=client_credentials` for
pre-registered confidential clients, and `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`
(workload identity) for assertions signed by `workload_key` (an ES256 public key, PEM) with this
server as audience. Every grant type asked at /token is kept in `provider.grants`. With
`state_file`, clients and tokens survive a restart.

    with serve_oauth(access_ttl=60) as server:      # in-process, uvicorn in a thread
        server.url                                    # "http://127.0.0.1:PORT/mcp"

    python oauth_server.py --port N [--state FILE] [--access-ttl S] [--client-id ID --client-secret S]
    (prints "READY http://127.0.0.1:N/mcp" once it listens; a subprocess to test restarts)
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import secrets
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

HOST = "127.0.0.1"
SCOPES = ["mcp", "extra"]


class MemoryAuthServer:
    """An `OAuthAuthorizationServerProvider` that approves every login, optionally persisted."""

    def __init__(self, *, access_ttl: int = 3600, state_file: Path | None = None) -> None:
        self.access_ttl = access_ttl
        self.state_file = state_file
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        #: The ES256 public key (PEM) workload assertions must be signed with (jwt-bearer), if any.
        self.workload_key: str | None = None
        #: The `client_id` a jwt-bearer request must carry in its form (None: it must carry none).
        self.workload_client_id: str | None = None
        #: Every grant_type asked for at /token, in order.
        self.grants: list[str] = []
        #: How many tokens each grant issued (tests read it to see a refresh happen).
        self.issued: dict[str, int] = {
            "authorization_code": 0,
            "refresh_token": 0,
            "client_credentials": 0,
            "jwt_bearer": 0,
        }
        #: Every access and refresh token value ever issued (for the secret-leak tests).
        self.values: list[str] = []
        #: The family (the login it descends from) of every live token, and of every spent refresh token.
        self.family: dict[str, str] = {}
        self.spent: dict[str, str] = {}
        #: How many times a spent refresh token came back (each revoked its family).
        self.reuses = 0
        #: A refresh also revokes the access tokens it supersedes (the family's older ones).
        self.revoke_superseded = False
        self._load()

    # -- persistence (so a restarted server still knows its clients and tokens)

    def _load(self) -> None:
        if self.state_file is None or not self.state_file.exists():
            return
        data = json.loads(self.state_file.read_text())
        self.clients = {k: OAuthClientInformationFull.model_validate(v) for k, v in data["clients"].items()}
        self.access = {k: AccessToken.model_validate(v) for k, v in data["access"].items()}
        self.refresh = {k: RefreshToken.model_validate(v) for k, v in data["refresh"].items()}
        self.issued = data["issued"]
        self.family, self.spent = data.get("family", {}), data.get("spent", {})

    def _save(self) -> None:
        if self.state_file is None:
            return
        data = {
            "clients": {k: v.model_dump(mode="json") for k, v in self.clients.items()},
            "access": {k: v.model_dump(mode="json") for k, v in self.access.items()},
            "refresh": {k: v.model_dump(mode="json") for k, v in self.refresh.items()},
            "issued": self.issued,
            "family": self.family,
            "spent": self.spent,
        }
        self.state_file.write_text(json.dumps(data))

    # -- clients

    def add_client(
        self,
        client_id: str,
        client_secret: str | None,
        redirect_uris: list[str] | None = None,
        method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",
    ) -> None:
        """A pre-registered client (the SDK's authorize endpoint wants the exact redirect URI)."""
        self.clients[client_id] = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=redirect_uris or ["http://127.0.0.1/callback"],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token", "client_credentials"],
            token_endpoint_auth_method=method if client_secret else "none",
            scope=" ".join(SCOPES),
        )
        self._save()

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        # Registered for every scope the server has (RFC 7591 lets it replace the request), so a
        # later scope step-up can be granted.
        client_info.scope = " ".join(SCOPES)
        self.clients[client_info.client_id] = client_info  # type: ignore[index]
        self._save()

    # -- authorization code

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.issued["authorization_code"] += 1
        return self.issue(client.client_id or "", authorization_code.scopes, authorization_code.resource)

    # -- tokens

    def issue(
        self, client_id: str, scopes: list[str], resource: str | None, *, refresh: bool = True, family: str = ""
    ) -> OAuthToken:
        family = family or secrets.token_urlsafe(8)
        access = "at-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.access_ttl,
            resource=resource,
        )
        refresh_token = None
        if refresh:
            refresh_token = "rt-" + secrets.token_urlsafe(24)
            self.refresh[refresh_token] = RefreshToken(
                token=refresh_token, client_id=client_id, scopes=scopes, resource=resource
            )
        self.values += [access] + ([refresh_token] if refresh_token else [])
        self.family.update(dict.fromkeys([access] + ([refresh_token] if refresh_token else []), family))
        self._save()
        return OAuthToken(
            access_token=access,
            expires_in=self.access_ttl,
            scope=" ".join(scopes),
            refresh_token=refresh_token,
        )

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        if refresh_token in self.spent:  # reused: stolen, or two clients racing; either way the family goes
            self.reuses += 1
            family = self.spent[refresh_token]
            for live in [token for token, of in self.family.items() if of == family]:
                self.access.pop(live, None)
                self.refresh.pop(live, None)
                self.family.pop(live, None)
            self._save()
            return None
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotated: valid once
        family = self.family.pop(refresh_token.token, "")
        self.spent[refresh_token.token] = family
        if self.revoke_superseded:
            for older in [token for token in self.access if self.family.get(token) == family]:
                self.access.pop(older)
        self.issued["refresh_token"] += 1
        return self.issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource, family=family)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at <= time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)
        self._save()

    def revoke_all_access(self) -> None:
        """Forget every access token (refresh tokens stay): the next request must refresh."""
        self.access.clear()
        self._save()

    # -- client credentials (not in the SDK's token endpoint)

    def client_credentials(self, form: dict[str, str], authorization: str | None) -> tuple[int, dict[str, Any]]:
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        method = "client_secret_post"
        if authorization and authorization.lower().startswith("basic "):
            decoded = base64.b64decode(authorization[6:]).decode()
            user, _, password = decoded.partition(":")
            client_id, client_secret = unquote(user), unquote(password)
            method = "client_secret_basic"
        client = self.clients.get(client_id or "")
        if client is None or not client.client_secret or client.client_secret != client_secret:
            return 401, {"error": "invalid_client"}
        if client.token_endpoint_auth_method != method:  # as the SDK's authenticator insists
            return 401, {"error": "invalid_client", "error_description": f"use {client.token_endpoint_auth_method}"}
        scopes = (form.get("scope") or "mcp").split()
        self.issued["client_credentials"] += 1
        token = self.issue(client.client_id or "", scopes, form.get("resource"), refresh=False)
        return 200, token.model_dump(mode="json", exclude_none=True)

    def jwt_bearer(self, form: dict[str, str], issuer: str) -> tuple[int, dict[str, Any]]:
        """RFC 7523: a workload's platform token for an access token (public client, no secret)."""
        import jwt

        if self.workload_key is None:
            return 400, {"error": "unsupported_grant_type"}
        if form.get("client_id") != self.workload_client_id:
            return 400, {"error": "invalid_client", "error_description": "client_id is not the expected one"}
        try:
            claims = jwt.decode(form.get("assertion", ""), self.workload_key, algorithms=["ES256"], audience=issuer)
        except jwt.PyJWTError as error:
            return 400, {"error": "invalid_grant", "error_description": type(error).__name__}
        scopes = (form.get("scope") or "mcp").split()
        self.issued["jwt_bearer"] += 1
        token = self.issue(str(claims["sub"]), scopes, form.get("resource"), refresh=False)
        return 200, token.model_dump(mode="json", exclude_none=True)


def build_server(provider: MemoryAuthServer, base_url: str) -> MCPServer:
    server = MCPServer(
        "oauth-test",
        version="1.0.0",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base_url,  # type: ignore[arg-type]
            resource_server_url=f"{base_url}/mcp",  # type: ignore[arg-type]
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=SCOPES, default_scopes=["mcp"]
            ),
            required_scopes=["mcp"],
        ),
    )

    @server.tool()
    def whoami() -> str:
        """The OAuth client id the request was authorized for."""
        token = get_access_token()
        return token.client_id if token is not None else "anonymous"

    @server.tool()
    def admin() -> str:
        """Needs the "extra" scope (checked by the app wrapper, which answers 403 insufficient_scope)."""
        token = get_access_token()
        return " ".join(sorted(token.scopes)) if token is not None else ""

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    return server


async def buffered(receive: Any) -> tuple[bytes, Callable[[], Awaitable[Any]]]:
    """An ASGI request's whole body, and a `receive` that hands it on to the app behind."""
    body, more = b"", True
    while more:
        message = await receive()
        body, more = body + message.get("body", b""), message.get("more_body", False)
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def build_app(provider: MemoryAuthServer, base_url: str) -> Any:
    """The MCP app plus two things the SDK's server lacks: the client-credentials grant at
    /token, and a per-tool scope (`admin` needs "extra": 403 `insufficient_scope` otherwise)."""
    app = build_server(provider, base_url).streamable_http_app(host=HOST)
    challenge = (
        f'Bearer error="insufficient_scope", scope="mcp extra",'
        f' resource_metadata="{base_url}/.well-known/oauth-protected-resource/mcp"'
    )

    async def respond(send: Any, status: int, payload: dict[str, Any], *extra: tuple[bytes, bytes]) -> None:
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store"), *extra]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": json.dumps(payload).encode()})

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in ("/token", "/mcp"):
            await app(scope, receive, send)
            return
        body, replay = await buffered(receive)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["path"] == "/token":
            form = dict(parse_qsl(body.decode()))
            provider.grants.append(form.get("grant_type", ""))
            if form.get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer":
                await respond(send, *provider.jwt_bearer(form, base_url))
                return
            if form.get("grant_type") == "client_credentials":
                await respond(send, *provider.client_credentials(form, headers.get("authorization")))
                return
        else:
            with contextlib.suppress(ValueError, AttributeError):
                call = json.loads(body)
                if call.get("method") == "tools/call" and call["params"]["name"] == "admin":
                    bearer = headers.get("authorization", "")[len("Bearer ") :]
                    token = provider.access.get(bearer)
                    if token is not None and "extra" not in token.scopes:
                        await respond(
                            send, 403, {"error": "insufficient_scope"}, (b"www-authenticate", challenge.encode())
                        )
                        return
        await app(scope, replay, send)

    return wrapped


def _bound_socket(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    return sock


class RunningServer:
    def __init__(self, provider: MemoryAuthServer, port: int) -> None:
        self.provider = provider
        self.port = port
        self.base_url = f"http://{HOST}:{port}"
        self.url = f"{self.base_url}/mcp"


@contextlib.contextmanager
def serve_oauth(
    *,
    access_ttl: int = 3600,
    state_file: Path | None = None,
    clients: dict[str, tuple[Any, ...]] | None = None,
    workload_key: str | None = None,
    wrap: Callable[[Any, RunningServer], Any] | None = None,
) -> Iterator[RunningServer]:
    """The OAuth test server in this process (uvicorn in a daemon thread) on a free port.

    `clients`: pre-registered clients, id -> (secret or None, redirect URIs or None[, token
    endpoint auth method, default "client_secret_basic"]). `wrap(app, running)`: an ASGI app
    in front of the server's (e.g. the DPoP gate of tests/servers/dpop_gate.py).
    """
    provider = MemoryAuthServer(access_ttl=access_ttl, state_file=state_file)
    provider.workload_key = workload_key
    for client_id, (secret, redirect_uris, *method) in (clients or {}).items():
        provider.add_client(client_id, secret, redirect_uris, *method)
    sock = _bound_socket(0)
    port = sock.getsockname()[1]
    running = RunningServer(provider, port)
    app = build_app(provider, running.base_url)
    config = uvicorn.Config(
        wrap(app, running) if wrap is not None else app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the OAuth test server did not start")
        time.sleep(0.01)
    try:
        yield running
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state", type=Path)
    parser.add_argument("--access-ttl", type=int, default=3600)
    parser.add_argument("--client-id")
    parser.add_argument("--client-secret")
    parser.add_argument("--redirect-uri", action="append")
    options = parser.parse_args()
    provider = MemoryAuthServer(access_ttl=options.access_ttl, state_file=options.state)
    if options.client_id:
        provider.add_client(options.client_id, options.client_secret, options.redirect_uri)
    sock = _bound_socket(options.port)
    base_url = f"http://{HOST}:{options.port}"
    config = uvicorn.Config(build_app(provider, base_url), log_level="warning", access_log=False)
    server = uvicorn.Server(config)

    async def announce() -> None:
        import anyio

        while not server.started:
            await anyio.sleep(0.01)
        print(f"READY {base_url}/mcp", flush=True)

    import anyio

    async def run() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await server.serve(sockets=[sock])

    anyio.run(run)
    sys.exit(0)


if __name__ == "__main__":
    main()
