"""`generate --meta pyproject`: the package as a project that `pip install .` and `python -m build` turn into a wheel.

The package moves under `src/<package>/`; beside it go a `pyproject.toml` (PEP 621: a distribution name from
the package name, a PEP 440 version from `--package-version` (config: `package_version`), else `0.1.0` (never the
server's reported version: FastMCP servers report FastMCP's own there), with a comment saying which, the runtime
`mcp-codegen-runtime>=X.Y,<X+1` (X.Y: this generator's version) and the `mcp` and `pydantic` ranges mcp-codegen
itself requires, which the generated models import) and a short README. The manifest
stays at the project's root, so `--check`, the up-to-date shortcut, `verify` and `check --against` see the
project as one generated unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from mcp_codegen import __version__
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.render import render_project
from mcp_codegen.snapshot.model import Snapshot

#: The distributions a generated package imports at run time.
RUNTIME_DEPENDENCIES = ("mcp", "pydantic")
_DISTRIBUTION = "mcp-client-codegen"


#: The extras of a generated project: the runtime's extra of the same name.
PROJECT_EXTRAS = ("temporal", "code")
#: The distribution every generated package imports (`mcp_codegen_runtime`).
RUNTIME_DISTRIBUTION = "mcp-codegen-runtime"


@cache
def _declared() -> tuple[list[str], dict[str, list[str]]]:
    """mcp-codegen's own requirements: (dependencies, extra -> requirements), read from its metadata."""
    from importlib.metadata import PackageNotFoundError, requires  # slow to import: only for --meta pyproject

    from packaging.requirements import Requirement

    try:
        lines = requires(_DISTRIBUTION) or []
    except PackageNotFoundError:  # a source tree that was never installed: read its pyproject.toml
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
        config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        dependencies = config["tool"]["hatch"]["metadata"]["hooks"]["custom"]["dependencies"]  # hatch_build.py
        optional = config["project"]["optional-dependencies"]
        return list(dependencies), {k: list(v) for k, v in optional.items()}
    plain: list[str] = []
    extras: dict[str, list[str]] = {}
    for line in lines:
        requirement = Requirement(line)
        if requirement.marker is None:
            plain.append(line)
            continue
        for extra in PROJECT_EXTRAS:
            if requirement.marker.evaluate({"extra": extra}):
                extras.setdefault(extra, []).append(f"{requirement.name}{requirement.specifier}")
    return plain, extras


def _ranges(lines: list[str], names: tuple[str, ...]) -> tuple[str, ...]:
    from packaging.requirements import Requirement

    found = {}
    for line in lines:
        requirement = Requirement(line)
        if requirement.name in names and requirement.marker is None:
            found[requirement.name] = f"{requirement.name}{requirement.specifier}"
    return tuple(found[name] for name in names if name in found)


def runtime_requirement(extra: str = "") -> str:
    """The runtime within the window of a package generated now: `mcp-codegen-runtime>=X.Y,<X+1`."""
    from mcp_codegen_runtime import runtime_window

    return f"{RUNTIME_DISTRIBUTION}{f'[{extra}]' if extra else ''}{runtime_window(__version__)}"


@cache
def runtime_requirements() -> tuple[str, ...]:
    """A generated project's dependencies: the runtime in its window, and mcp-codegen's own ranges of `mcp` and
    `pydantic` (one source of truth), which the package's models and client import directly."""
    return (runtime_requirement(), *_ranges(_declared()[0], RUNTIME_DEPENDENCIES))


def extra_requirements() -> dict[str, tuple[str, ...]]:
    """A generated project's extras (`temporal`: `mcp-codegen-runtime[temporal]>=X.Y,<X+1`): the runtime's."""
    return {extra: (runtime_requirement(extra),) for extra in PROJECT_EXTRAS}


#: A project's version when none is given: the server's `serverInfo.version` is not one (FastMCP servers report
#: FastMCP's version there: wikipedia-mcp 2.0.1 reports 4.2.3).
DEFAULT_PROJECT_VERSION = "0.1.0"
#: Where a project's version came from, as its pyproject.toml and README say.
_GIVEN = "the version given to mcp-codegen (--package-version, or package_version in its config)"
_DEFAULTED = (
    "mcp-codegen's default: set yours with --package-version (or package_version in the config); the server's"
    " reported version is not used, as frameworks such as FastMCP report their own there"
)


def project_version(snapshot: Snapshot, explicit: str | None, diagnostics: Diagnostics) -> tuple[str, str]:
    """The project's normalised PEP 440 version and where it came from: `explicit` (`--package-version` or the
    config's `package_version`), else `DEFAULT_PROJECT_VERSION` with a note."""
    from packaging.version import InvalidVersion, Version

    from mcp_codegen_runtime.text import one_line

    if explicit is None:
        reported = snapshot.server_version
        diagnostics.info(
            "project.version",
            f"the project is version {DEFAULT_PROJECT_VERSION}; set yours with --package-version (config:"
            " package_version)"
            + (f"; the server's reported version {one_line(reported, 40)!r} is not used" if reported else ""),
            code="package-version-defaulted",
        )
        return DEFAULT_PROJECT_VERSION, _DEFAULTED
    try:
        return str(Version(explicit)), _GIVEN
    except InvalidVersion:
        from mcp_codegen.errors import UsageError

        raise UsageError(f"--package-version {explicit!r} is not a PEP 440 version") from None


def project_files(
    files: Mapping[str, bytes], snapshot: Snapshot, package_name: str, version: tuple[str, str]
) -> dict[str, bytes]:
    """`files` (a package's, by relative path) moved under `src/<package_name>/`, with the project's own files;
    `version`: the project's version and where it came from (`project_version`)."""
    distribution = package_name.replace("_", "-")
    description = f"Typed client for the {snapshot.server_name} MCP server, generated by mcp-codegen."
    context = {
        "distribution": distribution,
        "package_name": package_name,
        "version": version[0],
        "version_source": version[1],
        "description": description,
        "dependencies": runtime_requirements(),
        "extras": extra_requirements(),
        "header": "# @generated by mcp-codegen. Do not edit.",
    }
    project = {f"src/{package_name}/{path}": data for path, data in files.items()}
    project.update({path: text.encode("utf-8") for path, text in render_project(context).items()})
    return project
