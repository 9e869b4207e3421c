"""What a run is asked to generate, and the input hash that decides whether anything must be done.

Kept free of the heavy stages (datamodel-code-generator, jinja2, pydantic) so that the daily
"already up to date" run imports only this, the snapshot model and the writer.
"""

from __future__ import annotations

import hashlib
import json
import keyword
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codegen import __version__
from mcp_codegen.errors import UsageError

if TYPE_CHECKING:
    from mcp_codegen.snapshot.model import Snapshot


def validate_package_name(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name) or not name.isascii():
        raise UsageError(f"package name {name!r} is not a valid Python identifier (use --package-name)")
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
    #: A subpackage of an umbrella package: import the umbrella's `_runtime` instead of shipping one.
    shared_runtime: bool = False
    #: "pyproject": write a project (`pyproject.toml`, the package under `src/`) instead of a bare package.
    meta: str = "none"
    #: The project's version (`--package-version`); None: the server's version.
    package_version: str | None = None
    #: A typed server package (`generate --server`) instead of a client package.
    server: bool = False
    #: `generate --cli`: a command line (`__main__.py`) and an agent skill (`SKILL.md`) in the package.
    cli: bool = False
    #: A subpackage of an umbrella package: the umbrella's import name (the command line is `python -m PARENT.PKG`).
    parent_package: str = ""

    def with_shared_runtime(self, parent_package: str = "") -> GenerateOptions:
        return replace(self, shared_runtime=True, parent_package=parent_package)

    def key(self) -> str:
        key = self.selection.key() + "\0" + self.tool_prefix + ("\0shared" if self.shared_runtime else "")
        key += "\0server" if self.server else ""
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
            "cli": self.cli,
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
            cli=data.get("cli") is True,
        )


def input_hash(snapshot: Snapshot, package_name: str, options: GenerateOptions | None = None) -> str:
    """Everything the output depends on: same hash, same bytes."""
    options = options or GenerateOptions()
    key = "\0".join([generator_fingerprint(), package_name, options.key(), snapshot.digest_text()])
    return hashlib.sha256(key.encode()).hexdigest()


def templates_dir() -> Path:
    """The Jinja templates, shipped inside the package (`mcp_codegen/generate/templates`)."""
    return Path(__file__).resolve().parent.parent / "generate" / "templates"


@cache
def generator_fingerprint() -> str:
    """A hash of this generator's own code and templates.

    Part of the input hash, so the "already up to date" shortcut never survives a change of the
    generator (an upgrade, or an edit in a source checkout). The dependencies that shape the output
    are pinned to a minor range instead, so the hash is the same on every machine.
    """
    package = Path(str(resources.files("mcp_codegen")))
    digest = hashlib.sha256(__version__.encode())
    sources = sorted(package.rglob("*.py")) + sorted(templates_dir().rglob("*.jinja"))
    for path in sources:
        if "demo" not in path.parts:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
