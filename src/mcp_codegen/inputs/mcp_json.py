"""MCP client config files as they are in the wild (Claude Desktop, Cursor, VS Code, ...) as a `ProjectConfig`.

Accepted shapes (JSON; `//` and `/* */` comments and trailing commas are allowed, as VS Code does):

* Claude Desktop, Cursor, Claude Code (`.mcp.json`), Windsurf, Cline: `{"mcpServers": {NAME: ENTRY}}`;
* VS Code `.vscode/mcp.json`: `{"servers": {NAME: ENTRY}, "inputs": [INPUT, ...]}`, and the same under
  `"mcp"` in a VS Code `settings.json`.

An ENTRY is either stdio (`command`, `args`, `env`, `envFile`, `cwd`) or remote (`url`, or Windsurf's
`serverUrl`, Gemini's `httpUrl`; `headers`). `type` (or Cline's `transportType`) says which: `stdio`,
`sse`, or `http` / `streamable-http` / `streamableHttp`. VS Code's `http` tries streamable HTTP and
falls back to SSE, so from a `"servers"` file it becomes transport "auto"; elsewhere `http` is
streamable HTTP only. Without `type`, `command` means stdio and `url` means "auto". `"disabled": true`
(or `"enabled": false`) entries are kept with `enabled = false`. Keys other apps use (`autoApprove`,
`alwaysAllow`, `timeout`, `description`, `gallery`, ...) are ignored; env/header values that are
numbers or booleans become strings.

References stay as written and are expanded when a server is resolved (see `mcp_codegen.inputs.config`):
`${VAR}`, `${env:VAR}`, `${VAR:-default}`, `${userHome}`, and `${input:ID}`, which reads the environment
variable `MCP_INPUT_<ID>` (ID in UPPER_SNAKE_CASE: `${input:api-key}` -> `MCP_INPUT_API_KEY`): mcp-codegen
never prompts. `${workspaceFolder}` is the folder the file configures: the parent of its directory when
it sits in `.vscode/` or `.cursor/` (`proj/.vscode/mcp.json` -> `proj`), otherwise the current directory.
Relative `cwd` and `envFile` paths are relative to that folder too.

`starter_config_toml()` turns the result into a `mcp-codegen.toml` for `mcp-codegen init --from`, never
with a secret value in it (see its docstring).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import (
    InputConfig,
    ProjectConfig,
    ServerConfig,
    validate_config,
)
from mcp_codegen.inputs.redaction import (
    placeholder_args,
    placeholder_url,
    secret_setting,
    upper_snake,
)
from mcp_codegen.inputs.validation_errors import describe_validation_error, dotted_location
from mcp_codegen.inputs.variables import input_env_var, read_user_text, references

_WORKSPACE_DIRS = (".vscode", ".cursor")
_TYPES = {
    "stdio": "stdio",
    "sse": "sse",
    "http": "http",
    "streamablehttp": "http",
    "streamable": "http",
}
_AUTH_SCHEME = re.compile(r"^(Bearer|Basic|Token|Bot|ApiKey|Api-Key)\s+(\S.*)$", re.IGNORECASE)
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


# --------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------


def load_mcp_json(path: Path, *, cwd: Path | None = None) -> ProjectConfig:
    """Read an MCP client config file (see the module docstring) as a `ProjectConfig`."""
    return parse_mcp_json(read_user_text(path, what="--mcp-json"), source=path, cwd=cwd)


def workspace_folder(path: Path, *, cwd: Path | None = None) -> Path:
    """What `${workspaceFolder}` means for the file at `path` (see the module docstring)."""
    resolved = path.resolve()
    if resolved.parent.name in _WORKSPACE_DIRS:
        return resolved.parent.parent
    return (cwd or Path.cwd()).resolve()


def parse_mcp_json(text: str, *, source: Path, cwd: Path | None = None) -> ProjectConfig:
    """The text of an MCP client config file as a `ProjectConfig`; `source` names it in messages."""
    try:
        data = json.loads(strip_jsonc(text.removeprefix("\ufeff")))
    except json.JSONDecodeError as error:
        raise UsageError(
            f"{source} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{source}: expected a JSON object at the top level")
    root: Mapping[str, Any] = data
    if "mcpServers" not in data and "servers" not in data and isinstance(data.get("mcp"), dict):
        root = data["mcp"]  # VS Code settings.json
    if isinstance(root.get("mcpServers"), dict):
        key, vscode = "mcpServers", False
    elif isinstance(root.get("servers"), dict):
        key, vscode = "servers", True
    else:
        raise UsageError(f'{source}: no "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code) object')

    servers: dict[str, ServerConfig] = {}
    for name, entry in root[key].items():
        where = f"{source}: {key}.{dotted_location([name])}"
        servers[name] = _server(entry, where=where, vscode=vscode)
    inputs = _inputs(root.get("inputs"), source)
    base = workspace_folder(source, cwd=cwd)
    # Names (snake_case forms, collisions) are checked by the whole config's validation.
    cfg = validate_config(
        {
            "servers": {n: s.model_dump() for n, s in servers.items()},
            "inputs": {k: v.model_dump() for k, v in inputs.items()},
        },
        where=str(source),
    )
    return cfg.located(source=source, base_dir=base)


def _server(entry: object, *, where: str, vscode: bool) -> ServerConfig:
    if not isinstance(entry, dict):
        raise UsageError(f"{where}: expected an object")
    raw_type = entry.get("type", entry.get("transportType", entry.get("transport")))
    kind: str | None = None
    if raw_type is not None:
        if not isinstance(raw_type, str) or re.sub(r"[-_\s]", "", raw_type.lower()) not in _TYPES:
            shown = raw_type if isinstance(raw_type, str) else type(raw_type).__name__
            raise UsageError(f"{where}: unknown type {shown!r} (expected stdio, http or sse)")
        kind = _TYPES[re.sub(r"[-_\s]", "", raw_type.lower())]
    url = next((entry[k] for k in ("url", "serverUrl", "httpUrl") if entry.get(k) is not None), None)
    command = entry.get("command")
    if kind is None:
        kind = "stdio" if command is not None else "auto" if url is not None else None
    elif kind == "http" and vscode:
        kind = "auto"
    if "httpUrl" in entry and raw_type is None:
        kind = "http"

    data: dict[str, Any] = {}
    if kind == "stdio" or (kind is None and command is not None):
        data["command"] = command
        if entry.get("args") is not None:
            data["args"] = _strings(entry["args"], f"{where}.args")
        if entry.get("env") is not None:
            data["env"] = _string_map(entry["env"], f"{where}.env")
        if entry.get("cwd") is not None:
            data["cwd"] = entry["cwd"]
    else:
        data["url"] = url
        if kind != "auto":
            data["transport"] = kind
        if entry.get("headers") is not None:
            data["headers"] = _string_map(entry["headers"], f"{where}.headers")
    if entry.get("envFile") is not None:
        data["env_file"] = entry["envFile"]
    if entry.get("disabled") is True or entry.get("enabled") is False:
        data["enabled"] = False
    try:
        return ServerConfig.model_validate(data)
    except ValidationError as error:
        raise UsageError(f"{where}: {describe_validation_error(error, ServerConfig)}") from None


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list):
        raise UsageError(f"{where}: expected a list of strings")
    return [_scalar(item, f"{where}[{i}]") for i, item in enumerate(value)]


def _string_map(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise UsageError(f"{where}: expected an object of strings")
    return {str(k): _scalar(v, f"{where}.{dotted_location([str(k)])}") for k, v in value.items() if v is not None}


def _scalar(value: object, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise UsageError(f"{where}: expected a string")


def _inputs(value: object, source: Path) -> dict[str, InputConfig]:
    if value is None:
        return {}
    if not isinstance(value, list):
        raise UsageError(f'{source}: "inputs" must be a list')
    inputs: dict[str, InputConfig] = {}
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            raise UsageError(f'{source}: inputs[{index}] needs an "id"')
        description = item.get("description")
        inputs[item["id"]] = InputConfig(
            description=description if isinstance(description, str) else "", password=item.get("password") is True
        )
    return inputs


# A JSON string (an unterminated one runs to the end), matched first so that nothing inside one is touched.
_STRING = r'"(?:\\[\s\S]|[^"\\])*(?:"|\\?\Z)'
_STRING_OR_COMMENT = re.compile(_STRING + r"|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)")
_STRING_OR_TRAILING_COMMA = re.compile(_STRING + r"|,(?=[ \t\r\n]*[\]}])")


def strip_jsonc(text: str) -> str:
    """JSON with comments (`//`, `/* */`) and trailing commas, as plain JSON.

    Only text outside strings is touched; comments and trailing commas become spaces (newlines kept,
    so error positions still match the file).
    """

    def blank(match: re.Match[str]) -> str:
        found = match.group()
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    return _STRING_OR_TRAILING_COMMA.sub(blank, _STRING_OR_COMMENT.sub(blank, text))


# --------------------------------------------------------------------------------------------------
# Writing a starter mcp-codegen.toml
# --------------------------------------------------------------------------------------------------


def starter_config_toml(cfg: ProjectConfig) -> str:
    """A `mcp-codegen.toml` for `cfg`, without secret values.

    References (`${VAR}`, `${input:ID}`, ...) are kept as written, and so are settings (`MODE = "paper"`).
    Every secret value of `env` and `headers` (judged by its name, then its shape: `redaction.secret_setting`)
    is replaced by a `${NAME}` reference (an auth scheme word such as "Bearer " is kept), and so
    are the value after a secret-looking flag in `args` (`--api-key X`, `--token=X`), URL passwords and
    secret-looking URL query values; a value mixing a reference with a long literal run (16+ letters or
    digits) is replaced as well. NAME is the env key (prefixed with the server's name when servers
    disagree on its value) or `<SERVER>_<HEADER>`; a comment at the top and one on each replaced line
    tell the user what to export.
    """
    literal_values: dict[str, set[str]] = {}
    for server in cfg.servers.values():
        for key, value in server.env.items():
            if secret_setting(key, value):
                literal_values.setdefault(key, set()).add(value)

    exports: dict[str, list[str]] = {}  # variable -> where it is used
    body: list[str] = []
    for name, server in cfg.servers.items():
        prefix = upper_snake(name)
        table = f"servers.{_key(name)}"
        scalars: list[str] = []
        tables: list[str] = []

        def replace(variable: str, where: str) -> str:
            exports.setdefault(variable, []).append(where)
            return "${" + variable + "}"

        if server.command is not None:
            scalars.append(f"command = {_string(server.command)}")
            if server.args:
                scalars.append(f"args = {_array(_safe_args(server.args, prefix, table, replace))}")
        if server.url is not None:
            scalars.append(f"url = {_string(_safe_url(server.url, prefix, table, replace))}")
        if server.registry is not None:
            scalars.append(f"registry = {_string(server.registry)}")
        if server.registry_url is not None:
            scalars.append(f"registry_url = {_string(server.registry_url)}")
        if server.transport is not None and server.transport != ("stdio" if server.command else "auto"):
            scalars.append(f"transport = {_string(server.transport)}")
        if server.env_file is not None:
            scalars.append(f"env_file = {_string(server.env_file)}")
        if server.cwd is not None:
            scalars.append(f"cwd = {_string(server.cwd)}")
        if server.include:
            scalars.append(f"include = {_array(server.include)}")
        if server.exclude:
            scalars.append(f"exclude = {_array(server.exclude)}")
        if server.tool_prefix:
            scalars.append(f"tool_prefix = {_string(server.tool_prefix)}")
        if server.package_name is not None:
            scalars.append(f"package_name = {_string(server.package_name)}")
        if not server.enabled:
            scalars.append("enabled = false  # disabled in the source file")
        if server.env:
            tables.append(f"\n[{table}.env]")
            for key, value in server.env.items():
                if not secret_setting(key, value):  # a setting (or a reference): as written
                    tables.append(f"{_key(key)} = {_string(value)}")
                    continue
                variable = _env_name(key) if len(literal_values.get(key, ())) <= 1 else f"{prefix}_{_env_name(key)}"
                reference = replace(variable, f"{table}.env.{_key(key)}")
                tables.append(f"{_key(key)} = {_string(reference)}  # was a literal value: export {variable}")
        if server.headers:
            tables.append(f"\n[{table}.headers]")
            for key, value in server.headers.items():
                if not secret_setting(key, value):
                    tables.append(f"{_key(key)} = {_string(value)}")
                    continue
                variable = f"{prefix}_{upper_snake(key)}"
                scheme = _AUTH_SCHEME.match(value)
                reference = replace(variable, f"{table}.headers.{_key(key)}")
                written = f"{scheme.group(1)} {reference}" if scheme else reference
                tables.append(f"{_key(key)} = {_string(written)}  # was a literal value: export {variable}")
        if server.descriptions:
            tables.append(f"\n[{table}.descriptions]")
            tables.extend(f"{_key(k)} = {_string(v)}" for k, v in server.descriptions.items())
        body.append(f"\n[{table}]")
        body.extend(scalars)
        body.extend(tables)

    source = cfg.source.name if cfg.source is not None else "an MCP client config"
    lines = [
        f"# mcp-codegen configuration, started from {source} by `mcp-codegen init --from`.",
        "# `mcp-codegen generate` generates every enabled server; `--server NAME` picks some.",
    ]
    references_used = sorted(
        {
            ref
            for server in cfg.servers.values()
            for value in [*server.env.values(), *server.headers.values(), *server.args, server.url or ""]
            for ref in references(value)
        }
    )
    inputs = [ref.partition(":")[2] for ref in references_used if ref.startswith("input:")]
    if exports or inputs:
        lines.append("# Secrets are not written here; set these environment variables before generating:")
        width = max(len(v) for v in [*exports, *(input_env_var(i) for i in inputs)])
        for variable, wheres in exports.items():
            lines.append(f"#   export {variable.ljust(width)}  # {', '.join(wheres)} (was a literal value in {source})")
        for input_id in inputs:
            declared = cfg.inputs.get(input_id)
            about = f": {declared.description}" if declared is not None and declared.description else ""
            lines.append(f"#   export {input_env_var(input_id).ljust(width)}  # ${{input:{input_id}}}{about}")
    lines += [
        "",
        f"output = {_string(cfg.output)}  # the umbrella package directory, one subpackage per server",
        f"timeout = {cfg.timeout:g}",
    ]
    for input_id, declared in cfg.inputs.items():
        lines.append(f"\n[inputs.{_key(input_id)}]  # read from {input_env_var(input_id)}")
        lines.append(f"description = {_string(declared.description)}")
        if declared.password:
            lines.append("password = true")
    lines.extend(body)
    return "\n".join(lines) + "\n"


def _safe_args(args: list[str], prefix: str, table: str, replace: Callable[[str, str], str]) -> list[str]:
    return placeholder_args(
        args, lambda hint, index: replace(f"{prefix}_{upper_snake(hint)}", f"{table}.args[{index}]")
    )


def _safe_url(url: str, prefix: str, table: str, replace: Callable[[str, str], str]) -> str:
    return placeholder_url(url, lambda hint: replace(f"{prefix}_{upper_snake(hint)}", f"{table}.url"))


def _env_name(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else upper_snake(key)


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(value: str) -> str:
    """A TOML basic string."""
    out = ['"']
    for char in value:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F or 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\u{ord(char):04X}" if ord(char) < 0xD800 else "\\uFFFD")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _array(values: list[str]) -> str:
    return "[" + ", ".join(_string(v) for v in values) + "]"


__all__ = ["load_mcp_json", "parse_mcp_json", "starter_config_toml", "strip_jsonc", "workspace_folder"]
