"""Values a config or `mcp.json` refers to: `${VAR}`, `${env:VAR}`, `${input:ID}` and `${VAR:-default}`
references, their expansion from the environment and a `.env` file, and reading the user's files."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from mcp_codegen.casing import words
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.launch import (
    AUTH_SCHEME_ONLY,
    ENV_NAME,
    expand_env,
)

#: `${...}`: the text between the braces, without braces or newlines.
#: A `${...}` reference of any kind (`${VAR}`, `${env:VAR}`, `${input:ID}`, `${VAR:-default}`...).
REFERENCE = re.compile(r"\$\{([^{}\n]*)\}")
_DEFAULTED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):-(.*)", re.DOTALL)
#: `${NAME}`s the config expands itself, not from the environment.
_BUILTINS = ("workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator")
_KIND = re.compile(r"([A-Za-z][A-Za-z0-9]*):(.*)", re.DOTALL)
#: What may be left of a value once its references are removed for it to count as "only references":
#: nothing, or an auth scheme word such as "Bearer " (the rule `launch.HttpLaunch.record` applies too).
_ENV_FILE_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)")


def input_env_var(input_id: str) -> str:
    """The environment variable a `${input:ID}` reads: `MCP_INPUT_` + ID in UPPER_SNAKE_CASE."""
    return "MCP_INPUT_" + ("_".join(words(input_id)).upper() or "UNNAMED")


def references(text: str) -> list[str]:
    """The `${...}` references in `text` (their inner text)."""
    return REFERENCE.findall(text)


def is_reference_only(value: str) -> bool:
    """True when `value` holds at least one `${...}` reference and otherwise at most an auth scheme word."""
    return bool(references(value)) and bool(AUTH_SCHEME_ONLY.match(REFERENCE.sub("", value)))


def env_template(value: str) -> str:
    """`value` with `${env:X}` and `${input:ID}` rewritten as the plain `${VAR}` the generated client expands."""

    def rewrite(match: re.Match[str]) -> str:
        inner = match.group(1)
        kind = _KIND.fullmatch(inner)
        if kind and kind.group(1) == "env" and ENV_NAME.fullmatch(kind.group(2)):
            return "${" + kind.group(2) + "}"
        if kind and kind.group(1) == "input":
            return "${" + input_env_var(kind.group(2)) + "}"
        return match.group(0)

    return REFERENCE.sub(rewrite, value)


def env_arg_template(value: str) -> str | None:
    """`value` as the generated client's `${VAR}` template when every reference in it is to the environment
    (`${VAR}`, `${env:VAR}`, `${input:ID}`); None when it has none or others (a default, `${userHome}`...)."""
    found = references(value)
    if not found:
        return None
    for inner in found:
        kind = _KIND.fullmatch(inner)
        plain = ENV_NAME.fullmatch(inner) and inner not in _BUILTINS
        if not (
            plain or kind and (kind.group(1) == "input" or kind.group(1) == "env" and ENV_NAME.fullmatch(kind.group(2)))
        ):
            return None
    return env_template(value)


class Expander:
    """Expands the references documented in this module's docstring, in one pass (values are not rescanned)."""

    def __init__(
        self,
        base_dir: Path,
        input_descriptions: Mapping[str, str | None],
        *,
        environ: Mapping[str, str] | None = None,
        fallback: Mapping[str, str] | None = None,
    ) -> None:
        #: The config's directory (`${workspaceFolder}`) and its declared inputs' descriptions, by id.
        self._base_dir = base_dir
        self._input_descriptions = input_descriptions
        self._environ = os.environ if environ is None else environ
        #: Looked up when the environment lacks a variable (the `env_file` variables).
        self._fallback = fallback or {}

    def _lookup(self) -> dict[str, str]:
        return {**self._fallback, **self._environ}

    def expand(self, text: str, *, what: str) -> str:
        if "${" not in text:
            return text
        lookup = self._lookup()

        def substitute(match: re.Match[str]) -> str:
            inner = match.group(1)
            if ENV_NAME.fullmatch(inner):
                if inner in _BUILTINS:
                    return self._builtin(inner)
                return expand_env(match.group(0), what=what, environ=lookup)
            if inner == "/":
                return os.sep
            defaulted = _DEFAULTED.fullmatch(inner)
            if defaulted:
                return lookup.get(defaulted.group(1)) or defaulted.group(2)
            kind = _KIND.fullmatch(inner)
            if kind is None:
                return match.group(0)
            prefix, rest = kind.groups()
            if prefix == "env" and ENV_NAME.fullmatch(rest):
                return expand_env("${" + rest + "}", what=what, environ=lookup)
            if prefix == "input":
                return self._input(rest, what=what, lookup=lookup)
            raise UsageError(f"{what}: ${{{prefix}:...}} references are not supported (use ${{VAR}} or ${{input:ID}})")

        return REFERENCE.sub(substitute, text)

    def _builtin(self, name: str) -> str:
        if name == "workspaceFolder":
            return str(self._base_dir)
        if name == "workspaceFolderBasename":
            return self._base_dir.name
        if name == "userHome":
            return str(Path.home())
        return os.sep

    def _input(self, input_id: str, *, what: str, lookup: Mapping[str, str]) -> str:
        variable = input_env_var(input_id)
        if variable in lookup:
            return lookup[variable]
        description = self._input_descriptions.get(input_id)
        about = f" ({description})" if description else ""
        raise UsageError(
            f"{what} refers to ${{input:{input_id}}}{about}: mcp-codegen does not prompt; "
            f"set {variable} in the environment"
        )


def read_user_text(path: Path, *, what: str) -> str:
    """A UTF-8 file of the user's (a BOM allowed, as editors on Windows write one); a one-line UsageError."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise UsageError(f"{what}: cannot read {path} ({error.strerror or error.__class__.__name__})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{what}: {path} is not UTF-8 text") from None


def read_env_file(path: Path, *, what: str) -> dict[str, str]:
    """`KEY=VALUE` lines (see the module docstring). Errors name the line, never its value."""
    text = read_user_text(path, what=what)
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _ENV_FILE_LINE.fullmatch(line)
        if match is None:
            raise UsageError(f"{what}: {path}:{number} is not a KEY=VALUE line")
        key, value = match.group(1), match.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values
