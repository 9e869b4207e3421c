"""How to reach a server: the launch spec given on the command line, and its secret-free record.

The live spec (`StdioLaunch`, `HttpLaunch`) holds resolved values, secrets included, and never
leaves memory. `LaunchRecord` is what snapshots and generated packages keep: the command or URL,
only the *names* of environment variables and headers, and how the server authorizes (`AuthRecord`:
the OAuth kind, client id and scopes, and the *name* of the variable holding a client secret).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_codegen.errors import UsageError
from mcp_codegen_runtime.text import shortened

# The `${VAR}` expander and the URL redactor are the runtime's (`runtime/connection/`), imported where they are
# used: importing the runtime package costs ~0.15 s (pydantic, the client bases), which the offline up-to-date
# path (`generate --snapshot`, nothing to do) never needs.

# A header template is recorded only when what is left after removing its `${VAR}`s is an auth scheme
# word such as "Bearer ": anything else might be a literal secret.
AUTH_SCHEME_ONLY = re.compile(r"^(?:[A-Za-z][A-Za-z-]{0,20} )?$")
#: The auth scheme word a literal header secret keeps before its placeholder (`Bearer ${AUTHORIZATION}`).
_SCHEME = re.compile(r"(?:Bearer|Basic|Token|Bot|Digest|ApiKey|DPoP)[ \t]+", re.IGNORECASE)

Transport = Literal["auto", "http", "sse"]
AuthKind = Literal["oauth", "client-credentials", "workload"]
AUTH_KINDS: tuple[AuthKind, ...] = ("oauth", "client-credentials", "workload")
#: A valid environment variable name.
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def expand_env(text: str, *, what: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace every `${VAR}` in `text` from the environment; a missing variable is a usage error."""
    from mcp_codegen_runtime.connection.environment import expand_env_references

    return expand_env_references(
        text,
        os.environ if environ is None else environ,
        lambda name: UsageError(f"{what} refers to ${{{name}}}, which is not set in the environment"),
    )


def env_references(text: str) -> list[str]:
    from mcp_codegen_runtime.connection.environment import ENV_REFERENCE

    return ENV_REFERENCE.findall(text)


def without_env_references(text: str) -> str:
    from mcp_codegen_runtime.connection.environment import ENV_REFERENCE

    return ENV_REFERENCE.sub("", text)


def redact_url(url: str) -> str:
    """The URL without userinfo and token-like query values (the runtime's one URL redactor)."""
    from mcp_codegen_runtime.connection.urls import redact_url as runtime_redact_url

    return runtime_redact_url(url)


@dataclass(frozen=True)
class HeaderRecord:
    name: str
    #: The header's value as a `${VAR}` template, kept only when it holds nothing but variable references
    #: and an auth scheme word; `AsyncClient.connect()` expands it from the environment at run time.
    template: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name} | ({"template": self.template} if self.template is not None else {})


@dataclass(frozen=True)
class AuthRecord:
    """How a server authorizes, as recorded: never a token or a secret value (the secret by variable name)."""

    kind: AuthKind
    client_id: str | None = None
    #: The scopes asked for; None lets the server's metadata decide.
    scopes: tuple[str, ...] | None = None
    #: The environment variable the client secret is read from at run time.
    client_secret_env: str | None = None
    #: Workload identity: the file holding the platform's token (read at run time; never its content).
    workload_token_file: str | None = None
    #: Workload identity: the environment variable holding the platform's token.
    workload_token_env: str | None = None
    #: DPoP-bound tokens (RFC 9449) forced (True) or refused (False); None: as the server offers.
    dpop: bool | None = None

    def as_json(self) -> dict[str, Any]:
        """The `"auth"` entry of a launch spec (the generated client's `connect()` reads it)."""
        entry: dict[str, Any] = {
            "kind": self.kind,
            "clientId": self.client_id,
            "scopes": list(self.scopes) if self.scopes is not None else None,
            "clientSecretEnv": self.client_secret_env,
        }
        if self.workload_token_file is not None:
            entry["workloadTokenFile"] = self.workload_token_file
        if self.workload_token_env is not None:
            entry["workloadTokenEnv"] = self.workload_token_env
        if self.dpop is not None:  # only when chosen: records made before DPoP stay byte-identical
            entry["dpop"] = self.dpop
        return entry

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AuthRecord:
        kind = data.get("kind")
        if kind not in AUTH_KINDS:
            raise UsageError(f"unknown auth kind {kind!r} (expected 'oauth', 'client-credentials' or 'workload')")
        scopes = data.get("scopes")
        client_id = data.get("clientId")
        secret_env = data.get("clientSecretEnv")
        dpop = data.get("dpop")
        return cls(
            kind=kind,
            client_id=str(client_id) if client_id is not None else None,
            scopes=tuple(str(scope) for scope in scopes) if scopes is not None else None,
            client_secret_env=str(secret_env) if secret_env is not None else None,
            workload_token_file=_optional_text(data.get("workloadTokenFile")),
            workload_token_env=_optional_text(data.get("workloadTokenEnv")),
            dpop=dpop if isinstance(dpop, bool) else None,
        )


def _optional_text(value: object) -> str | None:
    return str(value) if value is not None else None


@dataclass(frozen=True)
class AuthSpec:
    """How to authorize with a server for this run: the record plus what never leaves memory."""

    kind: AuthKind
    client_id: str | None = None
    scopes: tuple[str, ...] | None = None
    client_secret_env: str | None = None
    #: Workload identity: where the platform's token is (a file or a variable), read when a token is needed.
    workload_token_file: str | None = None
    workload_token_env: str | None = None
    #: The resolved client secret (from `client_secret_env` or `--client-secret`): never written or printed.
    client_secret: str | None = field(default=None, repr=False)
    #: Open the browser for an interactive login (else only print the URL).
    open_browser: bool = True
    #: Where tokens are kept: "auto" (the keyring when usable, else a file), "file" or "keyring".
    store: Literal["auto", "file", "keyring"] = "auto"
    #: Seconds an interactive login may take (the browser coming back).
    login_timeout: float = 300.0
    #: Why this run must not start a browser login ("stdin is not a terminal", "--no-browser", "CI is set"):
    #: stored tokens are still used and refreshed, and without one the run fails at once. None: it may.
    no_login: str | None = None
    #: DPoP (RFC 9449): True force, False refuse, None as the authorization server offers it.
    dpop: bool | None = None

    def record(self) -> AuthRecord:
        return AuthRecord(
            self.kind,
            self.client_id,
            self.scopes,
            self.client_secret_env,
            self.workload_token_file,
            self.workload_token_env,
            self.dpop,
        )


def no_login_reason(no_browser: bool) -> str | None:
    """Why a command (other than `auth login`) must not start a browser login (None: it may): a person must be
    there to finish it, so --no-browser, the environment variable CI, or stdin not a terminal rule it out."""
    from mcp_codegen_runtime.auth.loopback import ci_is_set, stdin_is_terminal

    if no_browser:
        return "--no-browser"
    if ci_is_set():
        return "CI is set"
    return None if stdin_is_terminal() else "stdin is not a terminal"


def auth_spec(
    kind: str,
    *,
    client_id: str | None = None,
    client_secret_env: str | None = None,
    client_secret: str | None = None,
    scopes: tuple[str, ...] | list[str] | None = None,
    open_browser: bool = True,
    store: str = "auto",
    environ: Mapping[str, str] | None = None,
    what: str = "--auth",
    login_timeout: float = 300.0,
    no_login: str | None = None,
    workload_token_file: str | None = None,
    workload_token_env: str | None = None,
    dpop: bool | None = None,
) -> AuthSpec:
    """Check the auth options and read the client secret from its variable; every problem is a `UsageError`
    that names the option or variable, never a value."""
    if kind not in AUTH_KINDS:
        raise UsageError(f"{what}: unknown kind {kind!r} (expected 'oauth', 'client-credentials' or 'workload')")
    if store not in ("auto", "file", "keyring"):
        raise UsageError(f"{what}: unknown token store {store!r} (expected 'file' or 'keyring')")
    if client_secret_env is not None and client_secret is not None:
        raise UsageError(f"{what}: give the client secret by --client-secret-env or --client-secret, not both")
    secret = client_secret
    if client_secret_env is not None:
        if not ENV_NAME.fullmatch(client_secret_env):
            raise UsageError(f"{what}: the client secret variable must be a variable name, got {client_secret_env!r}")
        values = os.environ if environ is None else environ
        if not values.get(client_secret_env):
            raise UsageError(f"{what}: the client secret variable {client_secret_env} is not set in the environment")
        secret = values[client_secret_env]
    if kind == "client-credentials" and (client_id is None or secret is None):
        raise UsageError(f"{what} client-credentials needs --client-id and --client-secret-env")
    if secret is not None and client_id is None:
        raise UsageError(f"{what}: a client secret needs --client-id")
    _check_workload(kind, workload_token_file, workload_token_env, secret, what)
    chosen_scopes = tuple(dict.fromkeys(scopes)) if scopes else None
    return AuthSpec(
        kind=kind,
        client_id=client_id or None,
        scopes=chosen_scopes,
        client_secret_env=client_secret_env,
        client_secret=secret,
        open_browser=open_browser,
        store=store,  # type: ignore[arg-type]
        login_timeout=login_timeout,
        no_login=no_login,
        workload_token_file=workload_token_file,
        workload_token_env=workload_token_env,
        dpop=dpop,
    )


def _check_workload(kind: str, token_file: str | None, token_env: str | None, secret: str | None, what: str) -> None:
    """Workload identity names where the platform's token is (a file or a variable, exactly one) and has no
    client secret; the token itself is read only when a token request needs it."""
    if kind != "workload":
        if token_file is not None or token_env is not None:
            raise UsageError(f"{what}: --workload-token-file and --workload-token-env go with --auth workload")
        return
    if (token_file is None) == (token_env is None):
        raise UsageError(f"{what} workload needs one of --workload-token-file and --workload-token-env")
    if token_env is not None and not ENV_NAME.fullmatch(token_env):
        raise UsageError(f"{what}: the workload token variable must be a variable name, got {token_env!r}")
    if secret is not None:
        raise UsageError(f"{what} workload takes no client secret (the platform's token is the credential)")


@dataclass(frozen=True)
class RegistryRecord:
    """Which MCP registry entry a server was found by: kept in the snapshot so `check` and regeneration
    read the same entry (the exact version, never "latest") and launch the same server."""

    name: str
    version: str
    #: The registry's base URL (`--registry-url`; the official registry by default).
    url: str

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version, "url": self.url}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RegistryRecord:
        return cls(name=str(data["name"]), version=str(data["version"]), url=str(data["url"]))

    def describe(self) -> str:
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class LaunchRecord:
    """The secret-free description of a server, kept in snapshots and generated packages."""

    transport: Literal["stdio", "http", "sse"]
    command: str | None = None
    args: tuple[str, ...] = ()
    #: The variables given to the server that hold secrets: recorded by name, read from the environment.
    env_names: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[HeaderRecord, ...] = ()
    auth: AuthRecord | None = None
    #: The variables given to the server that are settings, not secrets: recorded as written.
    env: tuple[tuple[str, str], ...] = ()

    def as_json(self) -> dict[str, Any]:
        if self.transport == "stdio":
            data: dict[str, Any] = {"transport": "stdio", "command": self.command, "args": list(self.args)}
            if self.env:
                data["env"] = dict(self.env)
            if self.env_names:
                data["envNames"] = list(self.env_names)
            if self.cwd is not None:
                data["cwd"] = self.cwd
            return data
        data = {"transport": self.transport, "url": self.url}
        if self.headers:
            data["headers"] = [header.as_json() for header in self.headers]
        if self.auth is not None:
            data["auth"] = self.auth.as_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LaunchRecord:
        transport = data.get("transport")
        if transport == "stdio":
            settings = data.get("env")
            return cls(
                transport="stdio",
                command=str(data["command"]),
                args=tuple(str(a) for a in data.get("args", ())),
                env_names=tuple(str(n) for n in data.get("envNames", ())),
                cwd=data.get("cwd"),
                env=tuple((str(k), str(v)) for k, v in settings.items()) if isinstance(settings, Mapping) else (),
            )
        if transport in ("http", "sse"):
            return cls(
                transport=transport,
                url=str(data["url"]),
                headers=tuple(HeaderRecord(str(h["name"]), h.get("template")) for h in data.get("headers", ())),
                auth=AuthRecord.from_json(data["auth"]) if isinstance(data.get("auth"), Mapping) else None,
            )
        raise UsageError(f"unknown launch transport {transport!r}")

    def describe(self) -> str:
        """A short, secret-free label for progress lines and error messages."""
        if self.transport == "stdio":
            return shlex.join([self.command or "", *self.args])
        return self.url or ""


@dataclass(frozen=True)
class StdioLaunch:
    command: str
    #: The arguments the server is started with (`${VAR}`s expanded: secrets may be in here).
    args: tuple[str, ...] = field(default=(), repr=False)
    #: Resolved values: secrets live here, so this object is never written or printed.
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    #: The registry entry this launch was read from (`--registry`), recorded in the snapshot.
    registry: RegistryRecord | None = None
    #: The arguments as given, before `${VAR}` expansion (None: as `args`): what the record starts from.
    arg_templates: tuple[str, ...] | None = field(default=None, repr=False)
    #: Values kept as they are although they look secret (`--no-redact`).
    keep: frozenset[str] = field(default=frozenset(), repr=False)
    #: Variables of `env` whose kind was chosen, not judged: True records it by name (`--secret-env`, or a
    #: value given as `${VAR}`), False keeps its value as written (`--keep-env`).
    env_choice: Mapping[str, bool] = field(default_factory=dict)

    def secret_env(self) -> dict[str, str]:
        """The variables of `env` that hold secrets (recorded by name only): chosen, or judged by name and
        shape as an argument's value is (`inputs.redaction.secret_setting`); the rest are settings, kept."""
        from mcp_codegen.inputs.redaction import secret_setting

        def secret(name: str, value: str) -> bool:
            chosen = self.env_choice.get(name)
            return secret_setting(name, value, keep=self.keep) if chosen is None else chosen

        return {name: value for name, value in self.env.items() if secret(name, value)}

    def recorded_args(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The arguments as recorded, each secret replaced by a `${NAME}` the generated client expands at run
        time (`inputs.redaction`), and the NAMEs introduced that way (each needs setting when connecting)."""
        from mcp_codegen.inputs.redaction import placeholder_args, upper_snake

        templates = self.args if self.arg_templates is None else self.arg_templates
        taken: dict[str, str] = {}  # placeholder name -> the hint it was made for

        def replace(hint: str, _index: int | None) -> str:
            name = hint.removeprefix("$") if hint in self.env or hint.startswith("$") else upper_snake(hint)
            base, number = name, 1
            while taken.get(name, hint) != hint:
                number += 1
                name = f"{base}_{number}"
            taken[name] = hint
            return "${" + name + "}"

        secrets = self.secret_env()
        # Only the secrets given to the server: the generator's own environment differs between machines, and a
        # kept setting needs no hiding (`${NAME}` in an argument is read from the environment when connecting).
        args = tuple(
            placeholder_args(
                templates, replace, secret_values=secrets, environ=secrets, keep=self.keep, command=self.command
            )
        )
        return args, tuple(name for name in taken if name not in self.env)

    def hidden_values(self) -> list[str]:
        """The values behind the record's `${NAME}`s (secrets and expanded variables), to scrub from messages."""
        found: list[str] = []
        for value, recorded in zip(self.args, self.recorded_args()[0], strict=True):
            if value != recorded:
                pieces = re.split(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}", recorded)
                pattern = "(.+?)".join(re.escape(piece) for piece in pieces)
                match = re.fullmatch(pattern, value, re.DOTALL)
                found.extend(match.groups() if match else [value])
        return found

    def record(self) -> LaunchRecord:
        secrets = self.secret_env()
        return LaunchRecord(
            transport="stdio",
            command=self.command,
            args=self.recorded_args()[0],
            env_names=tuple(sorted(secrets)),
            cwd=self.cwd,
            env=tuple(sorted((name, value) for name, value in self.env.items() if name not in secrets)),
        )

    def describe(self) -> str:
        return self.record().describe()


@dataclass(frozen=True)
class HttpLaunch:
    url: str
    #: Resolved header values (secrets): never written or printed.
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    transport: Transport = "auto"
    #: The header values as given, before `${VAR}` expansion, to record harmless templates.
    header_templates: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: OAuth for this server (`--auth`): the record keeps its secret-free part.
    auth: AuthSpec | None = field(default=None, repr=False)
    #: The registry entry this launch was read from (`--registry`), recorded in the snapshot.
    registry: RegistryRecord | None = None
    #: Without `auth`: use a token `mcp-codegen auth login` stored for the URL once the server asks for one
    #: (as the generated client does); False for `--auth none`.
    stored_token: bool = True

    #: Header values kept as they are although they look secret (`--no-redact`).
    keep: frozenset[str] = field(default=frozenset(), repr=False)

    def recorded_headers(self) -> tuple[tuple[HeaderRecord, ...], tuple[str, ...]]:
        """The headers as recorded, and the NAMEs introduced for literal secrets (each needs setting when
        connecting). A value given as `${VAR}`s (and a scheme word) is recorded as written; a literal secret,
        judged as a launch argument is (`redaction.secret_setting`: `Authorization: Bearer X`, `X-API-Key: X`),
        as a `${NAME}` placeholder named after the header (`Bearer ${AUTHORIZATION}`, the scheme word kept); a
        setting (`Notion-Version: 2022-06-28`) as written."""
        from mcp_codegen.inputs.redaction import secret_setting, upper_snake

        headers: list[HeaderRecord] = []
        introduced: list[str] = []
        for name in sorted(self.headers, key=str.lower):
            template = self.header_templates.get(name)
            value = self.headers[name]
            if template is not None and env_references(template):
                literal = without_env_references(template)
                headers.append(HeaderRecord(name, template if AUTH_SCHEME_ONLY.match(literal) else None))
            elif secret_setting(name, value, keep=self.keep):
                variable = upper_snake(name)
                while variable in introduced:
                    variable += "_2"
                introduced.append(variable)
                scheme = _SCHEME.match(value)
                headers.append(HeaderRecord(name, (scheme.group(0) if scheme else "") + "${" + variable + "}"))
            else:
                headers.append(HeaderRecord(name, None if "${" in value else value))  # a setting, as written
        return tuple(headers), tuple(introduced)

    def record(self, transport: Literal["http", "sse"] | None = None) -> LaunchRecord:
        chosen = transport or ("sse" if self.transport == "sse" else "http")
        auth = self.auth.record() if self.auth is not None else None
        headers = self.recorded_headers()[0]
        return LaunchRecord(transport=chosen, url=redact_url(self.url), headers=headers, auth=auth)

    def describe(self) -> str:
        return redact_url(self.url)


ServerLaunch = StdioLaunch | HttpLaunch


def stdio_launch(
    command: str,
    arg_templates: tuple[str, ...],
    env: Mapping[str, str],
    cwd: str | None,
    *,
    what: str = "--stdio",
    environ: Mapping[str, str] | None = None,
    env_choice: Mapping[str, bool] | None = None,
) -> StdioLaunch:
    """A stdio launch whose arguments' `${VAR}`s are expanded from the environment (a missing one is a usage
    error) and recorded as written, so a secret passed as `${VAR}` never reaches a snapshot."""
    args = tuple(expand_env(arg, what=what, environ=environ) for arg in arg_templates)
    templates = arg_templates if args != arg_templates else None
    return StdioLaunch(
        command=command, args=args, env=env, cwd=cwd, arg_templates=templates, env_choice=dict(env_choice or {})
    )


def parse_stdio(command_line: str, env_pairs: tuple[str, ...], cwd: str | None) -> StdioLaunch:
    """`--stdio 'cmd args'` (arguments' `${VAR}`s expanded) plus `-e KEY=VALUE` (values `${VAR}`-expanded)."""
    try:
        words = shlex.split(command_line)
    except ValueError as error:
        raise UsageError(f"--stdio: cannot split the command line: {error}") from None
    if not words:
        raise UsageError("--stdio needs a command")
    env: dict[str, str] = {}
    given_by_reference: dict[str, bool] = {}
    for pair in env_pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"-e/--env takes KEY=VALUE, got {key or pair!r}" if not sep else "-e/--env: empty name")
        env[key] = expand_env(value, what=f"-e {key}")
        if env_references(value):  # `-e TOKEN='${MY_TOKEN}'`: read from the environment, never recorded
            given_by_reference[key] = True
    return stdio_launch(words[0], tuple(words[1:]), env, cwd, env_choice=given_by_reference)


def choose_env(launch: StdioLaunch, secret: tuple[str, ...], kept: tuple[str, ...], *, what: str) -> StdioLaunch:
    """`launch` with the kind of some variables chosen: `secret` names are recorded by name only, `kept` ones
    as written (`--secret-env`, `--keep-env`, or the config's `secret_env`/`keep_env`)."""
    for name in (*secret, *kept):
        if name not in launch.env:
            raise UsageError(f"{what}: {name} is not a variable given to the server (add it with -e {name}=VALUE)")
    both = sorted(set(secret) & set(kept))
    if both:
        raise UsageError(f"{what}: {both[0]} is both a secret and a kept setting: choose one")
    choice = {**launch.env_choice, **dict.fromkeys(kept, False), **dict.fromkeys(secret, True)}
    return dataclasses.replace(launch, env_choice=choice)


def parse_http(
    url: str,
    header_lines: tuple[str, ...],
    transport: Transport,
    auth: AuthSpec | None = None,
    *,
    stored_token: bool = True,
) -> HttpLaunch:
    """`--url` plus `-H 'Name: value'` (values `${VAR}`-expanded) into a launch spec."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        raise UsageError(f"--url is not a valid URL: {redact_url(url)!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--url must be an http(s) URL, got {redact_url(url)!r}")
    headers: dict[str, str] = {}
    templates: dict[str, str] = {}
    for line in header_lines:
        name, sep, value = line.partition(":")
        name = name.strip()
        if not sep or not name or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
            raise UsageError(f"-H/--header takes 'Name: value', got a header named {shortened(name, 40)!r}")
        templates[name] = value.strip()
        headers[name] = expand_env(value.strip(), what=f"header {name}")
    if auth is not None and any(name.lower() == "authorization" for name in headers):
        raise UsageError("--auth and an Authorization header (-H) both authorize: give one")
    return HttpLaunch(
        url=url,
        headers=headers,
        transport=transport,
        header_templates=templates,
        auth=auth,
        stored_token=stored_token,
    )
