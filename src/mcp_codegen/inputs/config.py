"""Project configuration: the servers to generate clients for, read from TOML and validated.

Where it lives (`find_config` walks up from the current directory, stopping after the directory that
holds `.git`): `mcp-codegen.toml` (the whole file is the config) is taken first; otherwise a
`pyproject.toml` with a `[tool.mcp-codegen]` table. Relative paths (`output`, `cwd`, `env_file`) are
relative to the directory of that file.

```toml
# mcp-codegen.toml (or the same keys under [tool.mcp-codegen] in pyproject.toml)
output = "mcp_clients"      # the umbrella package directory (its name is the import name)
timeout = 30                # seconds for connecting and for each request
allow_warnings = ["input-schema-empty"]  # warning codes --strict accepts (docs: reference/warning-codes.md)

[servers.github]            # the name: its snake_case form names the subpackage (`github`)
command = "npx"             # stdio: `command` (+ `args`) ...
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${GITHUB_TOKEN}", GITHUB_TOOLSETS = "repos,issues" }
env_file = ".env"           # KEY=VALUE lines, passed to the process (`env` wins)
secret_env = []             # variables recorded by name though their value looks like a setting
keep_env = []               # variables recorded as written though their value looks secret
cwd = "."
include = ["get_*", "search_*"]          # fnmatch globs over wire tool names
exclude = ["*_delete"]
tool_prefix = "gh"
descriptions = { search_code = "Search code in all repositories." }
package_name = "github_client"           # default: the server name in snake_case
formatter = "black"                      # "ruff" (default), "black" or "none"
cli = true                  # also a command line (`python -m github_client`) and an agent skill (SKILL.md)
results_from = "tests/recordings"   # recorded sessions typing results the server declares no schema for

[servers.remote]            # ... or `url`, over streamable HTTP / legacy SSE
url = "https://mcp.example.com/mcp"
transport = "auto"          # "http", "sse" or "auto" (default: http, falling back to sse)
headers = { Authorization = "Bearer ${REMOTE_TOKEN}" }

[servers.protected]         # a server behind OAuth (instead of an Authorization header)
url = "https://mcp.example.com/protected/mcp"
auth = { kind = "oauth", client_id = "my-app", scopes = ["read"] }   # "oauth", "client-credentials", "workload"
# auth = { kind = "client-credentials", client_id = "ci", client_secret_env = "MCP_CLIENT_SECRET" }
# auth = { kind = "workload", workload_token_file = "/var/run/secrets/tokens/mcp-token" }

[servers.weather]           # ... or a server of the MCP registry (its remote, or its npm/PyPI/OCI package)
registry = "io.github.example/weather@1.2.0"   # NAME[@VERSION]; default: the latest version
registry_url = "https://registry.modelcontextprotocol.io"   # optional; this is the default
env_file = ".env"           # values the entry needs are read from the environment (then this file)

[servers.old]
command = "python"
args = ["-m", "old_server"]
enabled = false             # left out of `mcp-codegen generate` unless named with --server

[inputs.api-key]            # optional: documents a `${input:api-key}` (VS Code inputs)
description = "Example API key"
password = true
```

Every table rejects keys it does not know, naming the key with its location and the closest valid
one (`unknown key servers.github.comand (did you mean 'command'?)`). A server has exactly one of
`command` (stdio; `transport` may only be "stdio"), `url` (`transport` "http", "sse" or "auto") and
`registry` (with `env_file` and `registry_url` only: see `inputs.registry`);
`env`, `cwd`, `secret_env`, `keep_env` go with `command`, `headers` and `auth` with `url`; `env_file` with
either.
A variable of `env` (or `env_file`) whose value is a `${...}` reference, or a secret by its name or shape, is
recorded by name only (read from the environment when the generated client connects); a setting is recorded as
written; `secret_env` and `keep_env` decide for the variables they name. Server names must
contain a letter or digit, their snake_case form must not be a Python keyword, and no two may share it.

References, expanded when a server is resolved (`resolve_server`), in `command`, `args`, `url`, `cwd`,
`env_file`, and the values of `env` and `headers` (never in what generated code records):

* `${VAR}`, `${env:VAR}`: the environment variable VAR (then the `env_file` variables); unset is an error.
* `${VAR:-default}`: VAR, or `default` when VAR is unset or empty.
* `${input:ID}` (VS Code inputs): the environment variable `MCP_INPUT_<ID>`, ID in UPPER_SNAKE_CASE
  (`${input:api-key}` -> `MCP_INPUT_API_KEY`, `${input:githubPat}` -> `MCP_INPUT_GITHUB_PAT`); see `variables.input_env_var`.
* `${workspaceFolder}`: the config's base directory (the directory holding the TOML file; for an
  mcp.json, see `mcp_json`), `${workspaceFolderBasename}` its name, `${userHome}` the home directory,
  `${pathSeparator}` and `${/}` the path separator.
* Other `${kind:...}` forms (`${command:...}`, `${config:...}`) are rejected; any other `${...}` text is kept.

`env_file` is read as `KEY=VALUE` lines: blank lines and `#` comments are skipped, `export ` is allowed,
and one pair of matching quotes around the value is removed; nothing else is interpreted.
"""

from __future__ import annotations

import difflib
import keyword
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from mcp_codegen.casing import snake_case, words
from mcp_codegen.diagnostics import unknown_codes
from mcp_codegen.errors import CodegenError, UsageError
from mcp_codegen.inputs.launch import (
    ENV_NAME,
    AuthKind,
    HttpLaunch,
    ServerLaunch,
    StdioLaunch,
    auth_spec,
    choose_env,
    no_login_reason,
    redact_url,
)
from mcp_codegen.inputs.validation_errors import describe_validation_error, dotted_location
from mcp_codegen.inputs.variables import Expander, env_arg_template, env_template, read_env_file, references

if TYPE_CHECKING:  # the pipeline is imported only when a server is resolved (it is slow to import)
    from mcp_codegen.inputs.options import GenerateOptions

CONFIG_FILE = "mcp-codegen.toml"
PYPROJECT = "pyproject.toml"
TOOL_TABLE = "mcp-codegen"

TransportName = Literal["stdio", "http", "sse", "auto"]

_TOOL_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,40}")


# --------------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------------


class AuthConfig(BaseModel):
    """A server's `auth` table: OAuth instead of a static Authorization header (no secret values: the
    client secret is named by `client_secret_env`, the environment variable that holds it)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: AuthKind
    client_id: str | None = None
    client_secret_env: str | None = None
    scopes: list[str] | None = None
    #: kind "workload": where the platform's token is (a file path or a variable name, never the token).
    workload_token_file: str | None = None
    workload_token_env: str | None = None

    @field_validator("client_secret_env")
    @classmethod
    def _variable_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME.fullmatch(value):
            raise ValueError("'client_secret_env' must be an environment variable name")
        return value

    @model_validator(mode="after")
    def _credentials(self) -> AuthConfig:
        if self.kind == "client-credentials" and (self.client_id is None or self.client_secret_env is None):
            raise ValueError("kind 'client-credentials' needs 'client_id' and 'client_secret_env'")
        if self.client_secret_env is not None and self.client_id is None:
            raise ValueError("'client_secret_env' needs 'client_id'")
        return self


class ServerConfig(BaseModel):
    """One `[servers.<name>]` table."""

    model_config = ConfigDict(extra="forbid", strict=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    url: str | None = None
    #: `NAME[@VERSION]` of a server in an MCP registry (instead of `command` or `url`).
    registry: str | None = None
    #: The registry to read `registry` from (default: the official one).
    registry_url: str | None = None
    #: Default: "stdio" with `command`, "auto" with `url`.
    transport: TransportName | None = None
    env: dict[str, str] = Field(default_factory=dict)
    env_file: str | None = None
    #: Variables recorded by name only / as written, whatever their value looks like (see `env`).
    secret_env: list[str] = Field(default_factory=list)
    keep_env: list[str] = Field(default_factory=list)
    cwd: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    auth: AuthConfig | None = None
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    tool_prefix: str = ""
    descriptions: dict[str, str] = Field(default_factory=dict)
    package_name: str | None = None
    #: "pyproject": generate a project that builds a wheel (one server written with -o; see `generate --meta`).
    meta: Literal["none", "pyproject"] = "none"
    package_version: str | None = None
    #: The formatter of the generated code (see `generate --formatter`); its settings come from pyproject.toml.
    formatter: Literal["ruff", "black", "none"] = "ruff"
    #: A command line (`python -m PKG`) and an agent skill (`SKILL.md`) in the package (see `generate --cli`).
    cli: bool = False
    #: Listings not to ask the server for (see `generate --skip`).
    skip: list[Literal["resources", "templates", "prompts"]] = Field(default_factory=list)
    #: A directory of recorded sessions typing the results of tools without an output schema (`--results-from`).
    results_from: str | None = None
    enabled: bool = True

    @field_validator("command")
    @classmethod
    def _command_not_empty(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("'command' is empty")
        return value

    @field_validator("tool_prefix")
    @classmethod
    def _valid_prefix(cls, value: str) -> str:
        if value and not _TOOL_PREFIX.fullmatch(value):
            raise ValueError("'tool_prefix' may only hold letters, digits, '_' and '-' (at most 40)")
        return value

    @field_validator("package_name")
    @classmethod
    def _valid_package(cls, value: str | None) -> str | None:
        if value is not None:
            _check_identifier(value, "'package_name'")
        return value

    @field_validator("env", "headers")
    @classmethod
    def _valid_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not name or "=" in name or "\0" in name or name != name.strip():
                raise ValueError(f"{name!r} is not a valid name")
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if self.registry is not None or self.registry_url is not None:
            if self.registry is None:
                raise ValueError("'registry_url' goes with 'registry'")
            given = [key for key in ("command", "url", "transport", "cwd", "auth") if getattr(self, key) is not None]
            listed = ("args", "env", "headers", "secret_env", "keep_env")
            given += [key for key in listed if getattr(self, key)]
            if given:
                raise ValueError(
                    f"{', '.join(repr(k) for k in given)} do not go with 'registry' (its values come from the environment)"
                )
            return self
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of 'command' (stdio), 'url' (http/sse) or 'registry'")
        if self.command is not None:
            if self.transport not in (None, "stdio"):
                raise ValueError(f"transport {self.transport!r} goes with 'url'; with 'command' it is 'stdio'")
            if self.headers:
                raise ValueError("'headers' go with 'url', not 'command'")
            if self.auth is not None:
                raise ValueError("'auth' goes with 'url', not 'command'")
        else:
            if self.transport == "stdio":
                raise ValueError("transport 'stdio' needs 'command', not 'url'")
            if self.env or self.cwd is not None or self.args or self.secret_env or self.keep_env:
                values: dict[str, object] = {"args": self.args, "env": self.env, "cwd": self.cwd}
                values |= {"secret_env": self.secret_env, "keep_env": self.keep_env}
                used = [k for k, v in values.items() if v]
                raise ValueError(f"{', '.join(repr(k) for k in used)} go with 'command', not 'url'")
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "sse", "auto"]:
        if self.command is not None:
            return "stdio"
        return self.transport if self.transport in ("http", "sse", "auto") else "auto"


class InputConfig(BaseModel):
    """One `[inputs.<id>]` table: documents a `${input:<id>}` reference (from VS Code's `inputs`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    description: str = ""
    password: bool = False


class ProjectConfig(BaseModel):
    """The whole configuration: `mcp-codegen.toml`, `[tool.mcp-codegen]`, or an mcp.json converted."""

    model_config = ConfigDict(extra="forbid", strict=True)

    output: str = "mcp_clients"
    timeout: float = Field(default=30.0, gt=0)
    servers: dict[str, ServerConfig] = Field(default_factory=dict)
    inputs: dict[str, InputConfig] = Field(default_factory=dict)
    allow_warnings: list[str] = Field(default_factory=list)

    _source: Path | None = PrivateAttr(default=None)
    _base_dir: Path | None = PrivateAttr(default=None)

    @field_validator("servers")
    @classmethod
    def _valid_server_names(cls, servers: dict[str, ServerConfig]) -> dict[str, ServerConfig]:
        seen: dict[str, str] = {}
        for name, server in servers.items():
            python = subpackage_name(name)
            package = server.package_name or python
            if package in seen:
                raise ValueError(f"servers {seen[package]!r} and {name!r} would both be package {package!r}")
            seen[package] = name
        return servers

    @field_validator("allow_warnings")
    @classmethod
    def _known_codes(cls, codes: list[str]) -> list[str]:
        if unknown := unknown_codes(codes):
            raise ValueError(
                f"unknown warning {'code' if len(unknown) == 1 else 'codes'} {', '.join(map(repr, unknown))} "
                "(see the warning codes in docs/reference/warning-codes.md)"
            )
        return codes

    @property
    def source(self) -> Path | None:
        """The file this configuration was read from (None when built in memory)."""
        return self._source

    @property
    def base_dir(self) -> Path:
        """Where relative paths and `${workspaceFolder}` point: the config file's directory (else the cwd)."""
        return self._base_dir if self._base_dir is not None else Path.cwd()

    def located(self, *, source: Path | None, base_dir: Path | None) -> ProjectConfig:
        """This configuration, remembering the file it came from and its base directory."""
        self._source = source
        self._base_dir = base_dir
        return self

    def output_dir(self) -> Path:
        """The umbrella package directory (`output`, relative to the base directory)."""
        output = Path(self.output).expanduser()
        return output if output.is_absolute() else self.base_dir / output


def subpackage_name(server_name: str) -> str:
    """The subpackage (and default package) name of a server: its name in snake_case.

    Raises ValueError for a name without a letter or digit, or whose snake_case form is a keyword.
    A leading digit gets a `server_` prefix (`1password` -> `server_1password`).
    """
    if not words(server_name):
        raise ValueError(f"server name {server_name!r} needs at least one ASCII letter or digit")
    python = snake_case(server_name, fallback="server")
    if keyword.iskeyword(python) or keyword.issoftkeyword(python):
        raise ValueError(f"server name {server_name!r} is the Python keyword {python!r} (rename the server)")
    return python


def _check_identifier(value: str, what: str) -> None:
    if not value.isidentifier() or not value.isascii() or keyword.iskeyword(value):
        raise ValueError(f"{what} must be a Python identifier, got {value!r}")


# --------------------------------------------------------------------------------------------------
# Finding and loading
# --------------------------------------------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """The config file for a run started in `start`: walking up, `mcp-codegen.toml` first, else a
    `pyproject.toml` with `[tool.mcp-codegen]`. The walk stops after the directory holding `.git`."""
    directory = start.resolve()
    while True:
        candidate = directory / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file():
            tool = _read_toml(pyproject).get("tool")
            if isinstance(tool, dict) and TOOL_TABLE in tool:
                return pyproject
        if (directory / ".git").exists() or directory.parent == directory:
            return None
        directory = directory.parent


def load_config(path: Path) -> ProjectConfig:
    """Read and validate a config file (`pyproject.toml`: its `[tool.mcp-codegen]` table)."""
    data = _read_toml(path)
    where = f"{path}"
    if path.name == PYPROJECT:
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or TOOL_TABLE not in tool:
            raise UsageError(f"{path} has no [tool.{TOOL_TABLE}] table")
        data = tool[TOOL_TABLE]
        where = f"{path} [tool.{TOOL_TABLE}]"
        if not isinstance(data, dict):
            raise UsageError(f"{where} must be a table")
    return validate_config(data, where=where).located(source=path, base_dir=path.resolve().parent)


def validate_config(data: Mapping[str, Any], *, where: str) -> ProjectConfig:
    """`ProjectConfig` from plain data; every problem becomes one `UsageError` line starting with `where`."""
    try:
        return ProjectConfig.model_validate(dict(data))
    except ValidationError as error:
        raise UsageError(f"{where}: {describe_validation_error(error, ProjectConfig)}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise UsageError(f"cannot read {path} ({error.strerror or error.__class__.__name__})") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path} is not valid TOML: {error}") from None


# --------------------------------------------------------------------------------------------------
# Selecting, overriding and resolving servers
# --------------------------------------------------------------------------------------------------


def select_servers(cfg: ProjectConfig, names: Sequence[str] = ()) -> list[str]:
    """The servers a run covers: the `names` asked for (disabled ones included, they were asked for), or
    every enabled server. An unknown name is a `UsageError` with the closest configured one."""
    if not names:
        chosen = [name for name, server in cfg.servers.items() if server.enabled]
        if not chosen:
            where = f" in {cfg.source}" if cfg.source else ""
            raise UsageError(f"no enabled servers{where}" if cfg.servers else f"no servers configured{where}")
        return chosen
    chosen = []
    for name in names:
        if name not in cfg.servers:
            raise UsageError(f"--server {name!r}: {_unknown_server(cfg, name)}")
        if name not in chosen:
            chosen.append(name)
    return chosen


def _unknown_server(cfg: ProjectConfig, name: str) -> str:
    where = f" in {cfg.source}" if cfg.source else ""
    known = list(cfg.servers)
    suggestion = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if suggestion:
        return f"no such server{where} (did you mean {suggestion[0]!r}?)"
    return f"no such server{where} (configured: {', '.join(known) or 'none'})"


def apply_overrides(
    cfg: ProjectConfig,
    *,
    output: str | Path | None = None,
    timeout: float | None = None,
    server: Mapping[str, Any] | None = None,
    names: Sequence[str] | None = None,
) -> ProjectConfig:
    """A copy with command-line flags applied (flags win over the config); revalidated.

    `server` holds `ServerConfig` keys (`include`, `exclude`, `tool_prefix`, `descriptions`,
    `package_name`, `transport`, `env`, `headers`, `cwd`, ...) applied to the servers in `names`
    (default: all). `output` given as a relative path stays relative to the config's base directory:
    pass an absolute path for one relative to the current directory.
    """
    data = cfg.model_dump()
    if output is not None:
        data["output"] = str(output)
    if timeout is not None:
        data["timeout"] = float(timeout)
    if server:
        for name in names if names is not None else list(cfg.servers):
            if name not in cfg.servers:
                raise UsageError(f"--server {name!r}: {_unknown_server(cfg, name)}")
            data["servers"][name].update(server)
    return validate_config(data, where="command line").located(source=cfg.source, base_dir=cfg._base_dir)


def package_name_for(cfg: ProjectConfig, name: str) -> str:
    """The package (umbrella subpackage) name of server `name`: `package_name`, else its snake_case name."""
    server = _server(cfg, name)
    return server.package_name or subpackage_name(name)


def resolve_server(cfg: ProjectConfig, name: str) -> tuple[ServerLaunch, GenerateOptions, str]:
    """The live launch spec (references expanded, `env_file` read), generation options and package name.

    Raises `UsageError` for an unknown server, an unset variable or an unreadable `env_file`.
    """
    from mcp_codegen.inputs.options import SKIPPABLE, GenerateOptions, Selection

    server = _server(cfg, name)
    where = f"servers.{dotted_location([name])}"
    inputs = {key: declared.description for key, declared in cfg.inputs.items()}
    expander = Expander(cfg.base_dir, inputs)
    file_vars: dict[str, str] = {}
    if server.env_file is not None:
        env_path = _path(cfg, expander.expand(server.env_file, what=f"{where}.env_file"))
        file_vars = read_env_file(env_path, what=f"{where}.env_file")
        expander = Expander(cfg.base_dir, inputs, fallback=file_vars)
    options = GenerateOptions(
        selection=Selection(
            include=tuple(server.include), exclude=tuple(server.exclude), descriptions=dict(server.descriptions)
        ),
        tool_prefix=server.tool_prefix,
        meta=server.meta,
        package_version=server.package_version,
        formatter=server.formatter,
        cli=server.cli,
        skip=frozenset(SKIPPABLE[name] for name in server.skip),
        results_from=_path(cfg, server.results_from) if server.results_from is not None else None,
    )
    package = server.package_name or subpackage_name(name)
    if server.registry is not None:
        from mcp_codegen.inputs.registry import resolve_registry

        try:
            return (
                resolve_registry(
                    server.registry, server.registry_url, timeout=cfg.timeout, environ={**file_vars, **os.environ}
                ),
                options,
                package,
            )
        except CodegenError as error:  # the same kind (and exit code), the line naming the server
            raise type(error)(f"{where}: {error}") from None
    if server.command is not None:
        env = dict(file_vars)
        for key, value in server.env.items():
            env[key] = expander.expand(value, what=f"{where}.env.{dotted_location([key])}")
        cwd = None
        if server.cwd is not None:
            cwd = str(_path(cfg, expander.expand(server.cwd, what=f"{where}.cwd")))
        args = tuple(expander.expand(arg, what=f"{where}.args[{i}]") for i, arg in enumerate(server.args))
        # An argument made of environment references is recorded as `${VAR}`s (expanded by the generated client).
        templates = tuple(env_arg_template(raw) or arg for raw, arg in zip(server.args, args, strict=True))
        stdio = StdioLaunch(
            command=expander.expand(server.command, what=f"{where}.command"),
            args=args,
            env=env,
            cwd=cwd,
            arg_templates=templates if templates != args else None,
            env_choice={key: True for key, value in server.env.items() if references(value)},
        )
        launch: ServerLaunch = choose_env(
            stdio, tuple(server.secret_env), tuple(server.keep_env), what=f"{where}.secret_env/keep_env"
        )
        return launch, options, package
    assert server.url is not None
    url = expander.expand(server.url, what=f"{where}.url")
    if not re.match(r"https?://[^/?#]", url):
        raise UsageError(f"{where}.url must be an http(s) URL, got {redact_url(url)!r}")
    headers = {
        key: expander.expand(value, what=f"{where}.headers.{dotted_location([key])}")
        for key, value in server.headers.items()
    }
    transport = server.kind
    assert transport != "stdio"
    auth = None
    if server.auth is not None:
        if any(key.lower() == "authorization" for key in headers):
            raise UsageError(f"{where}: 'auth' and an Authorization header both authorize: give one")
        auth = auth_spec(
            server.auth.kind,
            client_id=server.auth.client_id,
            client_secret_env=server.auth.client_secret_env,
            scopes=server.auth.scopes,
            workload_token_file=server.auth.workload_token_file,
            workload_token_env=server.auth.workload_token_env,
            environ={**file_vars, **os.environ},
            what=f"{where}.auth",
            no_login=no_login_reason(False),
        )
    launch = HttpLaunch(
        url=url,
        headers=headers,
        transport=transport,
        header_templates={key: env_template(value) for key, value in server.headers.items()},
        auth=auth,
    )
    return launch, options, package


def _server(cfg: ProjectConfig, name: str) -> ServerConfig:
    server = cfg.servers.get(name)
    if server is None:
        raise UsageError(f"server {name!r}: {_unknown_server(cfg, name)}")
    return server


def _path(cfg: ProjectConfig, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else cfg.base_dir / path


__all__ = [
    "CONFIG_FILE",
    "AuthConfig",
    "Expander",
    "InputConfig",
    "ProjectConfig",
    "ServerConfig",
    "apply_overrides",
    "find_config",
    "load_config",
    "package_name_for",
    "resolve_server",
    "select_servers",
    "subpackage_name",
    "validate_config",
]
