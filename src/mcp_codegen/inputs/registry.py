"""Servers found in an MCP registry: read a `server.json` from the registry API and turn it into a launch spec.

`--registry NAME[@VERSION]` reads `GET {url}/v0.1/servers/{NAME}/versions/{VERSION|latest}` (falling back
to the `v0` paths) and chooses how to reach the server, first usable wins:

1. a remote of type `streamable-http`, then one of type `sse`;
2. a package with a `stdio` transport: `npm` run by `npx -y IDENTIFIER@VERSION`, `pypi` by
   `uvx IDENTIFIER@VERSION`, `oci` by `docker run -i --rm [-e NAME ...] IMAGE`, each with the entry's runtime
   and package arguments.

Values come from the environment, never from the command line or a file: an environment variable of a
package by its own name, a header by its name in UPPER_SNAKE_CASE (`X-API-Key` -> `X_API_KEY`), a `{name}`
placeholder in a value by `name` in UPPER_SNAKE_CASE. A candidate that needs a required value that is not
set is passed over; when none is usable the error names the variables to set. Only variable *names* reach the
snapshot; header values are recorded as `${VAR}` templates, expanded again at run time.

Everything in a `server.json` is untrusted: only the launchers above are run (a `runtimeHint` naming
anything else is ignored), arguments are passed as a list (never through a shell), and names that are not
valid environment variable or header names make a candidate unusable.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp_codegen.errors import ServerError, UsageError
from mcp_codegen.inputs.launch import HttpLaunch, RegistryRecord, ServerLaunch, StdioLaunch, redact_url
from mcp_codegen_runtime.text import one_line, shortened

DEFAULT_REGISTRY_URL = "https://registry.modelcontextprotocol.io"
#: API versions tried in order: `v0.1` is the stable one, `v0` the original (older registries serve only it).
API_VERSIONS = ("v0.1", "v0")

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,100}")
#: The launcher each package registry type may be run with (`runtimeHint` picks one of these, or the first).
_LAUNCHERS: dict[str, tuple[str, ...]] = {"npm": ("npx", "bunx"), "pypi": ("uvx",), "oci": ("docker", "podman")}
_REMOTE_TRANSPORTS = {"streamable-http": "http", "sse": "sse"}


class RegistryLookupError(UsageError):
    """The registry answered, but has no such server or version (exit 2)."""


class RegistryUnavailableError(ServerError):
    """The registry did not answer, or not with a server.json (exit 3)."""


@dataclass(frozen=True)
class RegistryReference:
    name: str
    #: None: the latest version.
    version: str | None = None

    def describe(self) -> str:
        return f"{self.name}@{self.version}" if self.version else self.name


def parse_reference(text: str) -> RegistryReference:
    """`NAME` or `NAME@VERSION` (registry names hold no `@`; a version has no `/`)."""
    name, sep, version = text.strip().rpartition("@")
    if not sep:
        name, version = text.strip(), ""
    if not name or "/" not in name or any(c.isspace() for c in name) or "@" in name:
        raise UsageError(
            f"--registry takes NAME[@VERSION] (e.g. io.github.owner/server@1.0.0), got {shortened(text, 80)!r}"
        )
    if sep and not _VERSION.fullmatch(version):
        raise UsageError(f"--registry {name}: {shortened(version, 40)!r} is not a version")
    return RegistryReference(name, version or None)


def registry_base_url(url: str | None) -> str:
    base = (url or DEFAULT_REGISTRY_URL).rstrip("/")
    parts = urllib.parse.urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise UsageError(f"--registry-url must be an http(s) URL, got {redact_url(base)!r}")
    return base


# --------------------------------------------------------------------------------------------------
# Reading the registry
# --------------------------------------------------------------------------------------------------


def fetch_server_json(reference: RegistryReference, base_url: str, *, timeout: float) -> dict[str, Any]:
    """The `server.json` of `reference` (the latest version when none is given).

    Unknown name or version: `RegistryLookupError` (exit 2). No answer, an HTTP error other than 404,
    or a body that is not a server entry: `RegistryUnavailableError` (exit 3).
    """
    import httpx

    quoted = urllib.parse.quote(reference.name, safe="")
    version = urllib.parse.quote(reference.version or "latest", safe="")
    where = redact_url(base_url)
    with httpx.Client(timeout=timeout, follow_redirects=True, headers={"Accept": "application/json"}) as client:

        def get(path: str) -> httpx.Response | None:
            """The response, or None for a 404 (the caller tries the next path)."""
            try:
                response = client.get(f"{base_url}/{path}")
            except httpx.HTTPError as error:
                raise RegistryUnavailableError(
                    f"registry {where} did not answer ({error.__class__.__name__}); check --registry-url"
                ) from None
            if response.status_code == 404:
                return None
            if response.status_code != 200:
                raise RegistryUnavailableError(f"registry {where} answered HTTP {response.status_code} for {path}")
            return response

        for api in API_VERSIONS:
            response = get(f"{api}/servers/{quoted}/versions/{version}")
            if response is not None:
                return _server_detail(response, reference, where)
        # Neither API knows this version: tell an unknown version from an unknown name.
        for api in API_VERSIONS:
            response = get(f"{api}/servers/{quoted}/versions")
            if response is not None:
                known = _listed_versions(response)
                shown = ", ".join(known[-8:]) if known else "none listed"
                raise RegistryLookupError(
                    f"registry {where}: {reference.name} has no version {reference.version or 'latest'}"
                    f" (versions: {shown})"
                )
    raise RegistryLookupError(f"registry {where} has no server named {reference.name}")


def _json(response: Any, where: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise RegistryUnavailableError(f"registry {where} did not answer with JSON") from None


def _server_detail(response: Any, reference: RegistryReference, where: str) -> dict[str, Any]:
    data = _json(response, where)
    # The API wraps the server.json as {"server": {...}, "_meta": {...}}; older registries sent it bare.
    server = data.get("server") if isinstance(data, dict) and isinstance(data.get("server"), dict) else data
    if not isinstance(server, dict) or not isinstance(server.get("name"), str):
        raise RegistryUnavailableError(f"registry {where}: the entry of {reference.name} is not a server.json")
    if server["name"] != reference.name:
        raise RegistryUnavailableError(f"registry {where} answered for another server than {reference.name}")
    if not isinstance(server.get("version"), str) or not _VERSION.fullmatch(server["version"]):
        raise RegistryUnavailableError(f"registry {where}: the entry of {reference.name} has no valid version")
    return server


def _listed_versions(response: Any) -> list[str]:
    try:
        data = response.json()
    except ValueError:
        return []
    entries = data.get("servers") if isinstance(data, dict) else None
    versions = []
    for entry in entries if isinstance(entries, list) else []:
        server = entry.get("server", entry) if isinstance(entry, dict) else None
        version = server.get("version") if isinstance(server, dict) else None
        if isinstance(version, str) and _VERSION.fullmatch(version):
            versions.append(version)
    return versions


# --------------------------------------------------------------------------------------------------
# Choosing a launch
# --------------------------------------------------------------------------------------------------


class _Unusable(Exception):
    """This candidate cannot be used; the message says why (names only, never values)."""

    def __init__(self, reason: str, missing: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.missing = missing


def env_name_for(name: str) -> str:
    """The environment variable a header or `{placeholder}` is read from: its name in UPPER_SNAKE_CASE."""
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").upper()


@dataclass
class _Values:
    environ: Mapping[str, str]
    missing: list[str] = field(default_factory=list)

    def fill(self, text: str, variables: Any, *, secret_allowed: bool) -> str:
        """`text` with each `{name}` placeholder replaced from the environment (or the variable's default)."""

        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            spec = variables.get(name) if isinstance(variables, dict) else None
            spec = spec if isinstance(spec, dict) else {}
            variable = env_name_for(name)
            value = self.environ.get(variable) or _text(spec.get("value")) or _text(spec.get("default"))
            if spec.get("isSecret") is True and not secret_allowed:
                raise _Unusable(f"passes the secret {variable} on a command line or URL")
            if value is None:
                self.missing.append(variable)
                return ""
            return value

        return _PLACEHOLDER.sub(substitute, text)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _items(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def launch_from_server_json(server: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ServerLaunch:
    """The first usable way to reach `server` (see the module docstring); `UsageError` when none is."""
    environ = os.environ if environ is None else environ
    reasons: list[str] = []
    missing: list[str] = []
    preference = list(_REMOTE_TRANSPORTS)  # streamable HTTP first; unsupported types last (to say why)
    candidates = sorted(
        _items(server.get("remotes")),
        key=lambda remote: preference.index(remote["type"]) if remote.get("type") in preference else len(preference),
    )
    for remote in candidates:
        try:
            return _remote_launch(remote, environ)
        except _Unusable as why:
            reasons.append(f"remote: {why}")
            missing.extend(why.missing)
    for package in _items(server.get("packages")):
        try:
            return _package_launch(package, environ)
        except _Unusable as why:
            kind = package.get("registryType")
            reasons.append(f"{kind if isinstance(kind, str) and kind in _LAUNCHERS else 'package'}: {why}")
            missing.extend(why.missing)
    name = server.get("name")
    if missing:
        needed = " ".join(dict.fromkeys(missing))
        raise UsageError(f"registry server {name} needs values not set in the environment: set {needed}")
    if not reasons:
        raise UsageError(f"registry server {name} lists no remotes and no packages")
    raise UsageError(f"registry server {name} cannot be launched ({one_line('; '.join(reasons), 200)})")


def _remote_launch(remote: Mapping[str, Any], environ: Mapping[str, str]) -> HttpLaunch:
    kind = remote.get("type")
    if kind not in _REMOTE_TRANSPORTS:
        raise _Unusable(f"transport {shortened(str(kind), 30)!r} is not supported")
    values = _Values(environ)
    url_template = _text(remote.get("url"))
    if url_template is None:
        raise _Unusable("no url")
    url = values.fill(url_template, remote.get("variables"), secret_allowed=False)
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Unusable("the url is not an http(s) URL")
    headers: dict[str, str] = {}
    templates: dict[str, str] = {}
    for header in _items(remote.get("headers")):
        name = header.get("name")
        if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
            raise _Unusable("a header has no valid name")
        value, template, unset = _header_value(name, header, environ)
        if unset:
            if header.get("isRequired") is True:
                values.missing.extend(unset)
            continue
        headers[name] = value
        templates[name] = template
    if values.missing:
        raise _Unusable("values not set", tuple(values.missing))
    return HttpLaunch(
        url=url, headers=headers, transport="sse" if kind == "sse" else "http", header_templates=templates
    )


def _header_value(name: str, header: Mapping[str, Any], environ: Mapping[str, str]) -> tuple[str, str, list[str]]:
    """A remote's header: its value, the template the snapshot may keep, and the variables it needs that are unset.

    Each `{placeholder}` (a header without a value: the header itself) is read from the environment and kept in
    the template as `${VAR}`, which the generated client expands at run time; one filled from its default keeps
    the default. Literal text is the registry's own, so it is no secret."""
    given = _text(header.get("value"))
    variables = header.get("variables")
    specs: Mapping[str, Any] = variables if isinstance(variables, dict) else {}
    if given is None:
        given, specs = "{" + name + "}", {name: header}
    value: list[str] = []
    template: list[str] = []
    unset: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(given):
        value.append(given[position : match.start()])
        template.append(given[position : match.start()])
        position = match.end()
        variable = env_name_for(match.group(1))
        spec = specs.get(match.group(1))
        default = _text(spec.get("default")) if isinstance(spec, dict) else None
        if environ.get(variable):
            value.append(environ[variable])
            template.append("${" + variable + "}")
        elif default is not None:
            value.append(default)
            template.append(default)
        else:
            unset.append(variable)
    value.append(given[position:])
    template.append(given[position:])
    return "".join(value), "".join(template), unset


def _package_launch(package: Mapping[str, Any], environ: Mapping[str, str]) -> StdioLaunch:
    kind = package.get("registryType")
    if kind not in _LAUNCHERS:
        raise _Unusable(f"registry type {shortened(str(kind), 30)!r} is not supported")
    transport = package.get("transport")
    transport_type = transport.get("type") if isinstance(transport, dict) else "stdio"
    if transport_type != "stdio":
        raise _Unusable(f"the package serves {shortened(str(transport_type), 30)!r}, not stdio")
    identifier = _text(package.get("identifier"))
    if identifier is None or identifier.startswith("-") or any(c.isspace() for c in identifier):
        raise _Unusable("no valid identifier")
    version = _text(package.get("version"))
    if version is not None and not _VERSION.fullmatch(version):
        raise _Unusable("no valid version")
    hint = package.get("runtimeHint")
    launcher = hint if hint in _LAUNCHERS[kind] else _LAUNCHERS[kind][0]
    values = _Values(environ)
    env: dict[str, str] = {}
    for variable in _items(package.get("environmentVariables")):
        name = variable.get("name")
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            raise _Unusable("an environment variable has no valid name")
        value = environ.get(name) or None  # set but empty counts as not set
        if value is None and variable.get("isSecret") is not True:
            default = _text(variable.get("value")) or _text(variable.get("default"))
            value = values.fill(default, variable.get("variables"), secret_allowed=True) if default else None
        if value is None:
            if variable.get("isRequired") is True:
                values.missing.append(name)
            continue
        env[name] = value
    runtime_args = _arguments(package.get("runtimeArguments"), values)
    package_args = _arguments(package.get("packageArguments"), values)
    if values.missing:
        raise _Unusable("values not set", tuple(values.missing))
    if kind == "oci":
        image = identifier if version is None or ":" in identifier.rsplit("/", 1)[-1] else f"{identifier}:{version}"
        passed = [arg for name in sorted(env) for arg in ("-e", name)]
        args = ["run", "-i", "--rm", *passed, *runtime_args, image, *package_args]
    else:
        spec = f"{identifier}@{version}" if version else identifier
        args = [*(runtime_args or (["-y"] if launcher == "npx" else [])), spec, *package_args]
    # Read from the environment (or the registry's defaults) each time the entry is resolved: recorded by name.
    return StdioLaunch(command=launcher, args=tuple(args), env=env, env_choice=dict.fromkeys(env, True))


def _arguments(value: Any, values: _Values) -> list[str]:
    """The command-line words of a `runtimeArguments` / `packageArguments` list."""
    words: list[str] = []
    for argument in _items(value):
        given = _text(argument.get("value")) or _text(argument.get("default"))
        if given is not None:
            given = values.fill(given, argument.get("variables"), secret_allowed=False)
        if argument.get("isSecret") is True:
            raise _Unusable("passes a secret on the command line")
        kind = argument.get("type")
        if kind == "named":
            name = _text(argument.get("name"))
            if name is None or not name.startswith("-"):
                raise _Unusable("a named argument has no valid name")
            if given is None and argument.get("isRequired") is True:
                raise _Unusable(f"the argument {shortened(name, 40)} needs a value")
            words.extend([name] if given is None else [name, given])
        elif kind == "positional":
            if given is None:
                if argument.get("isRequired") is True:
                    hint = _text(argument.get("valueHint")) or "value"
                    raise _Unusable(f"a positional argument ({shortened(hint, 40)}) needs a value")
                continue
            words.append(given)
        else:
            raise _Unusable(f"argument type {shortened(str(kind), 30)!r} is not supported")
    return words


def resolve_registry(
    reference: str,
    registry_url: str | None,
    *,
    timeout: float,
    environ: Mapping[str, str] | None = None,
) -> ServerLaunch:
    """Read `reference` (`NAME[@VERSION]`) from the registry and choose its launch; the launch carries the
    registry record (the exact version read) that the snapshot keeps."""
    from dataclasses import replace

    parsed = parse_reference(reference)
    base = registry_base_url(registry_url)
    server = fetch_server_json(parsed, base, timeout=timeout)
    launch = launch_from_server_json(server, environ)
    record = RegistryRecord(name=parsed.name, version=str(server["version"]), url=base)
    return replace(launch, registry=record)


__all__ = [
    "API_VERSIONS",
    "DEFAULT_REGISTRY_URL",
    "RegistryLookupError",
    "RegistryReference",
    "RegistryUnavailableError",
    "env_name_for",
    "fetch_server_json",
    "launch_from_server_json",
    "parse_reference",
    "registry_base_url",
    "resolve_registry",
]
