"""`generate --meta pyproject`: the package as a project that `pip install .` and `python -m build` turn into a wheel.

The package moves under `src/<package>/`; beside it go a `pyproject.toml` (PEP 621: a distribution name from
the package name, a PEP 440 version from the server's version or `--package-version`, the runtime
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


def project_version(snapshot: Snapshot, explicit: str | None, diagnostics: Diagnostics) -> str:
    """`explicit`, else the server's version, as a normalised PEP 440 version; `0.0.0` when it is not one."""
    from packaging.version import InvalidVersion, Version

    raw = explicit if explicit is not None else snapshot.server_version
    try:
        return str(Version(raw)) if raw else "0.0.0"
    except InvalidVersion:
        if explicit is not None:
            from mcp_codegen.errors import UsageError

            raise UsageError(f"--package-version {explicit!r} is not a PEP 440 version") from None
        diagnostics.warn(
            "serverInfo.version",
            f"{raw!r} is not a PEP 440 version; the project is version 0.0.0 (set one with --package-version)",
            code="package-version-defaulted",
        )
        return "0.0.0"


def project_files(files: Mapping[str, bytes], snapshot: Snapshot, package_name: str, version: str) -> dict[str, bytes]:
    """`files` (a package's, by relative path) moved under `src/<package_name>/`, with the project's own files."""
    distribution = package_name.replace("_", "-")
    description = f"Typed client for the {snapshot.server_name} MCP server, generated by mcp-codegen."
    context = {
        "distribution": distribution,
        "package_name": package_name,
        "version": version,
        "description": description,
        "dependencies": runtime_requirements(),
        "extras": extra_requirements(),
        "header": "# @generated by mcp-codegen. Do not edit.",
    }
    project = {f"src/{package_name}/{path}": data for path, data in files.items()}
    project.update({path: text.encode("utf-8") for path, text in render_project(context).items()})
    return project
