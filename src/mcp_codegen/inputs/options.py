"""What a run is asked to generate: the tool selection and the options a package is generated with.

Kept free of the heavy stages (datamodel-code-generator, jinja2, pydantic) so that the daily
"already up to date" run imports only this, the input hash (`generate/fingerprint.py`), the snapshot model
and the writer.
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path

from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.formatter import DEFAULT_FORMATTER, FORMATTERS, FormatterSettings, formatter_settings

#: `--skip` names (and a config's `skip`) -> the key of the optional listing they leave out of a snapshot.
SKIPPABLE = {"resources": "resources", "templates": "resourceTemplates", "prompts": "prompts"}


def validate_package_name(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name) or not name.isascii():
        raise UsageError(f"package name {name!r} is not a valid Python identifier (use --package-name)")
    return name


#: Top-level modules the runtime imports (its dependencies, optional ones included) and the runtime itself: a
#: generated package named like one would hide it. tests/unit/test_package_names.py derives them from the
#: runtime's source and checks that this set holds every one.
RUNTIME_MODULES = frozenset(
    {
        "mcp_codegen_runtime", "mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "httpx", "httpx2",
        "typing_extensions", "jsonschema", "referencing", "jwt", "cryptography", "opentelemetry", "uvicorn",
        "starlette", "temporalio", "keyring", "pydantic_monty", "openai", "anthropic", "langchain_core",
        "pydantic_ai", "agents", "claude_agent_sdk", "google", "smolagents", "PIL", "llama_index",
    }
)  # fmt: skip


def validate_top_level_name(name: str) -> str:
    """A package imported as a top-level module: a valid name that hides no module of the standard library or
    of the runtime's imports (`-o os` would make `import os` in its own modules, and mypy, read the package)."""
    import sys

    validate_package_name(name)
    if name in sys.stdlib_module_names or name in RUNTIME_MODULES:
        whose = "the standard library's" if name in sys.stdlib_module_names else "a module the runtime imports"
        raise UsageError(
            f"package name {name!r} is {whose} {name!r}, which the package would hide: "
            f"use --package-name {name}_client (or -o {name}_client)"
        )
    return name


@dataclass(frozen=True)
class Selection:
    """Which tools a package covers, and how agents see them (generation options)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: Wire name -> description replacing the server's (docstrings, README and agent definitions).
    descriptions: Mapping[str, str] = field(default_factory=dict)

    def selects(self, wire_name: str) -> bool:
        included = not self.include or any(fnmatchcase(wire_name, p) for p in self.include)
        return included and not any(fnmatchcase(wire_name, p) for p in self.exclude)

    def key(self) -> str:
        """Part of the input hash."""
        return json.dumps([self.include, self.exclude, sorted(self.descriptions.items())])


@dataclass(frozen=True)
class GenerateOptions:
    selection: Selection = field(default_factory=Selection)
    #: Prefix of the tool names agents see.
    tool_prefix: str = ""
    #: A subpackage of an umbrella package (its command line is `python -m UMBRELLA.PKG`).
    shared_runtime: bool = False
    #: "pyproject": write a project (`pyproject.toml`, the package under `src/`) instead of a bare package.
    meta: str = "none"
    #: The project's version (`--package-version`); None: the server's version.
    package_version: str | None = None
    #: A typed server package (`generate --server`) instead of a client package.
    server: bool = False
    #: "ruff", "black" or "none" (`--formatter`).
    formatter: str = DEFAULT_FORMATTER
    #: The formatter's settings for the output directory (`located`); None: its defaults.
    formatter_settings: FormatterSettings | None = None
    #: `generate --cli`: a command line (`__main__.py`) and an agent skill (`SKILL.md`) in the package.
    cli: bool = False
    #: A subpackage of an umbrella package: the umbrella's import name (the command line is `python -m PARENT.PKG`).
    parent_package: str = ""
    #: The optional listings not asked for (`--skip`, a config's `skip`), by snapshot key: what the snapshot is
    #: taken with, not generated from (the snapshot records them), so not part of the key.
    skip: frozenset[str] = frozenset()
    #: `--results-from`: a directory of recorded sessions whose JSON answers type the results of tools without an
    #: output schema. Not part of the key: what it finds goes into the snapshot, which the input hash covers.
    results_from: Path | None = None

    def with_shared_runtime(self, parent_package: str = "") -> GenerateOptions:
        return replace(self, shared_runtime=True, parent_package=parent_package)

    def located(self, output: Path) -> GenerateOptions:
        """These options for a package written to `output`: the formatter's settings read from the user's
        pyproject.toml (`inputs.formatter`)."""
        return replace(self, formatter_settings=formatter_settings(self.formatter, output))

    def formatting(self) -> FormatterSettings:
        """The formatter and the settings it runs with."""
        return self.formatter_settings or FormatterSettings(self.formatter)

    def key(self) -> str:
        key = self.selection.key() + "\0" + self.tool_prefix + ("\0shared" if self.shared_runtime else "")
        key += "\0server" if self.server else ""
        if self.formatting() != FormatterSettings():
            key += "\0formatter=" + self.formatting().key()
        key += "\0cli" if self.cli else ""
        key += f"\0parent={self.parent_package}" if self.parent_package else ""
        return key if self.meta == "none" else f"{key}\0meta={self.meta}\0{self.package_version or ''}"

    def as_json(self) -> dict[str, object]:
        """What the manifest records, so the package alone says how to regenerate it (`mcp-codegen verify`)."""
        return {
            "include": list(self.selection.include),
            "exclude": list(self.selection.exclude),
            "descriptions": dict(sorted(self.selection.descriptions.items())),
            "toolPrefix": self.tool_prefix,
            "sharedRuntime": self.shared_runtime,
            "meta": self.meta,
            "packageVersion": self.package_version,
            "server": self.server,
            "formatter": self.formatter,
            "cli": self.cli,
            # A subpackage of an umbrella package: the umbrella's name (its generated command line imports it).
            **({"parentPackage": self.parent_package} if self.parent_package else {}),
        }

    @classmethod
    def from_json(cls, data: object) -> GenerateOptions:
        """The options a manifest recorded (missing or malformed: the defaults, as before they were recorded)."""
        if not isinstance(data, dict):
            return cls()

        def strings(key: str) -> tuple[str, ...]:
            value = data.get(key)
            return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

        descriptions = data.get("descriptions")
        prefix = data.get("toolPrefix")
        meta = data.get("meta")
        version = data.get("packageVersion")
        formatter = data.get("formatter")
        return cls(
            Selection(
                include=strings("include"),
                exclude=strings("exclude"),
                descriptions={k: v for k, v in descriptions.items() if isinstance(k, str) and isinstance(v, str)}
                if isinstance(descriptions, dict)
                else {},
            ),
            tool_prefix=prefix if isinstance(prefix, str) else "",
            shared_runtime=data.get("sharedRuntime") is True,
            meta=meta if meta in ("none", "pyproject") else "none",
            package_version=version if isinstance(version, str) else None,
            server=data.get("server") is True,
            formatter=formatter if formatter in FORMATTERS else DEFAULT_FORMATTER,
            cli=data.get("cli") is True,
            parent_package=parent if isinstance(parent := data.get("parentPackage"), str) else "",
        )
