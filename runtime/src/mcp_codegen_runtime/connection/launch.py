"""Reconnecting to the server recorded at generation time: its launch spec, headers and auth."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, cast

from ..calls.errors import ConnectError, MissingVariableError
from .attempt import Attempt
from .environment import expand_env_references
from .http import http_attempts
from .stdio import StderrTarget, stdio_attempt

__all__ = [
    "expand_argument",
    "expand_header_template",
    "launch_attempts",
    "launch_auth",
    "recorded_env",
]


def expand_header_template(name: str, template: str, environ: Mapping[str, str]) -> str:
    return expand_env_references(
        template,
        environ,
        lambda variable: MissingVariableError(
            variable, f"header {name!r}", "header", "pass headers= to connect()"
        ),
    )


def expand_argument(index: int, template: str, environ: Mapping[str, str]) -> str:
    """A recorded command argument with its `${VAR}`s read from the environment: the generator records a
    secret given on its command line as `${NAME}`, so it is never written into the package.
    """
    return expand_env_references(
        template,
        environ,
        lambda variable: MissingVariableError(
            variable,
            f"argument {index + 1} of the recorded command",
            "argument",
            "pass the command to AsyncClient.stdio()",
        ),
    )


def recorded_env(
    launch: Mapping[str, Any], environ: Mapping[str, str]
) -> dict[str, str]:
    """The environment a recorded stdio server is given: its settings as recorded (`"env"`; a variable set
    in `environ` wins, so a setting can be changed without regenerating), and its secrets (`"envNames"`,
    recorded by name only) read from `environ` when set."""
    settings = launch.get("env")
    found: dict[str, str] = {}
    if isinstance(settings, dict):
        for name, value in cast("dict[object, object]", settings).items():
            if isinstance(name, str) and isinstance(value, str):
                found[name] = environ.get(name, value)
    for name in _strings(launch.get("envNames")):
        if name in environ:
            found[name] = environ[name]
    return found


def _strings(value: object) -> list[str]:
    if isinstance(value, list):
        return [item for item in cast("list[object]", value) if isinstance(item, str)]
    return []


def launch_attempts(
    launch: Mapping[str, Any] | None,
    *,
    env: Mapping[str, str] | None,
    headers: Mapping[str, str] | None,
    timeout: float,
    stderr: StderrTarget = None,
    auth: Any = None,
    dpop: bool | None = None,
) -> list[Attempt]:
    """The attempts for the server recorded at generation time, with secrets read from the environment now.

    For HTTP, `auth` (an `httpx2.Auth`) wins; else the recorded `"auth"` entry decides (see
    `launch_auth`, with `dpop`); else a stored OAuth token is used once the server asks for one.
    """
    if launch is None:
        raise ConnectError(
            "this client was generated from a snapshot without a launch spec"
        )
    transport = launch.get("transport")
    environ = os.environ
    if transport == "stdio":
        command = launch.get("command")
        if not isinstance(command, str) or not command:
            raise ConnectError("the recorded launch spec has no command")
        child_env = recorded_env(launch, environ)
        child_env.update(env or {})
        cwd = launch.get("cwd")
        return [
            stdio_attempt(
                command,
                [
                    expand_argument(index, arg, environ)
                    for index, arg in enumerate(_strings(launch.get("args")))
                ],
                env=child_env,
                cwd=cwd if isinstance(cwd, str) else None,
                timeout=timeout,
                stderr=stderr,
            )
        ]
    if transport in ("http", "sse"):
        url = launch.get("url")
        if not isinstance(url, str) or not url:
            raise ConnectError("the recorded launch spec has no URL")
        explicit = {key.lower(): key for key in (headers or {})}
        resolved: dict[str, str] = {}
        recorded_names: list[str] = []
        records = launch.get("headers")
        for entry in cast("list[object]", records) if isinstance(records, list) else []:
            if not isinstance(entry, dict):
                continue
            record = cast("dict[str, object]", entry)
            name = record.get("name")
            if not isinstance(name, str):
                continue
            recorded_names.append(name)
            template = record.get("template")
            if name.lower() in explicit or not isinstance(template, str):
                continue
            resolved[name] = expand_header_template(name, template, environ)
        resolved.update(headers or {})
        if auth is None:
            auth = launch_auth(url, launch.get("auth"), environ, dpop=dpop)
        return http_attempts(
            url,
            headers=resolved,
            timeout=timeout,
            transport=transport,
            header_hint=recorded_names,
            auth=auth,
        )
    raise ConnectError(
        f"the recorded launch spec has an unsupported transport {transport!r}"
    )


def launch_auth(
    url: str, entry: object, environ: Mapping[str, str], *, dpop: bool | None = None
) -> Any:
    """The `httpx2.Auth` for a recorded `"auth"` entry (no secret values in it), for `url`.

    `{"kind": "oauth"}`: the token `mcp-codegen auth login` stored (refreshed, never a login).
    `{"kind": "client-credentials", "clientId": ..., "clientSecretEnv": NAME, "scopes": [...]}`
    (optional `"tokenEndpointAuthMethod"`: "client_secret_basic", the default, or
    "client_secret_post"): the client-credentials grant with the secret read from `$NAME`. No entry: the stored
    token, used only when the server answers 401 with a Bearer challenge.
    `{"kind": "workload", "workloadTokenFile": PATH}` (or `"workloadTokenEnv": NAME`, optional
    `"clientId"`): workload identity, the platform's token read from there at run time.
    DPoP (RFC 9449): `dpop` when given (True force, False refuse), else the entry's
    `"dpop"` (recorded from `--dpop/--no-dpop`), else as the server's metadata offers it.
    """
    from .. import auth

    if entry is None:
        return auth.when_challenged(url, dpop=dpop)
    if not isinstance(entry, dict):
        raise ConnectError("the recorded launch spec has an invalid auth entry")
    record = cast("dict[str, object]", entry)
    kind = record.get("kind")
    scopes = _strings(record.get("scopes")) or None
    recorded = record.get("dpop")
    if dpop is None and isinstance(recorded, bool):
        dpop = recorded
    if kind == "oauth":
        return auth.stored(url, dpop=dpop)
    if kind == "client-credentials":
        client_id = record.get("clientId")
        variable = record.get("clientSecretEnv")
        if not isinstance(client_id, str) or not client_id:
            raise ConnectError("the recorded client-credentials auth has no client id")
        if not isinstance(variable, str) or not variable:
            raise ConnectError(
                "the recorded client-credentials auth names no client-secret variable"
            )
        if variable not in environ:
            raise ConnectError(
                f"OAuth client credentials need the environment variable ${{{variable}}}, which is not set"
            )
        method = record.get("tokenEndpointAuthMethod", "client_secret_basic")
        if method not in ("client_secret_basic", "client_secret_post"):
            raise ConnectError(
                f"the recorded client-credentials auth has an unsupported token endpoint auth method {method!r}"
            )
        return auth.client_credentials(
            url,
            client_id=client_id,
            client_secret=environ[variable],
            scopes=scopes,
            token_endpoint_auth_method=method,
            dpop=dpop,
        )
    if kind == "workload":
        token_file = record.get("workloadTokenFile")
        token_env = record.get("workloadTokenEnv")
        if not isinstance(token_file, str) and not isinstance(token_env, str):
            raise ConnectError(
                "the recorded workload auth names no token file or variable"
            )
        client_id = record.get("clientId")
        return auth.workload(
            url,
            token_file=token_file if isinstance(token_file, str) else None,
            token_env=None if isinstance(token_file, str) else cast("str", token_env),
            client_id=client_id if isinstance(client_id, str) and client_id else None,
            scopes=scopes,
        )
    raise ConnectError(
        f"the recorded launch spec has an unsupported auth kind {kind!r}"
    )
