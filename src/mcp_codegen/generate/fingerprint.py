"""The input hash, which decides whether a run has anything to do: generator code, options, snapshot.

Kept free of the heavy stages (datamodel-code-generator, jinja2, pydantic), like `inputs/options.py`: the daily
"already up to date" run imports it.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codegen import __version__
from mcp_codegen.inputs.options import GenerateOptions

if TYPE_CHECKING:
    from mcp_codegen.snapshot.model import Snapshot


def input_hash(snapshot: Snapshot, package_name: str, options: GenerateOptions | None = None) -> str:
    """Everything the output depends on: same hash, same bytes. Remembered on the snapshot: a generation asks
    twice (is the output current? then the manifest), and hashing ms-365's 2.2 MB again cost 7 ms."""
    options = options or GenerateOptions()
    facts = (generator_fingerprint(), package_name, options.key())
    known: dict[tuple[str, str, str], str] = snapshot.__dict__.setdefault("_input_hashes", {})
    if facts not in known:
        key = "\0".join([*facts, snapshot.content_digest()])
        known[facts] = hashlib.sha256(key.encode()).hexdigest()
    return known[facts]


def templates_dir() -> Path:
    """The Jinja templates, shipped inside the package (`mcp_codegen/generate/templates`)."""
    return Path(__file__).resolve().parent / "templates"


@cache
def generator_fingerprint() -> str:
    """A hash of this generator's own code and templates, and of the runtime's (whose tables the generator
    reads: the names a package re-exports, the search index, the command-line table).

    Part of the input hash (recorded in the manifest only), so the "already up to date" shortcut never
    survives a change of the generator (an upgrade, or an edit in a source checkout). The dependencies that
    shape the output are pinned to a minor range instead, so the hash is the same on every machine.
    """
    packages = [Path(str(resources.files(name))) for name in ("mcp_codegen", "mcp_codegen_runtime")]
    digest = hashlib.sha256(__version__.encode())
    sources = [path for package in packages for path in sorted(package.rglob("*.py"))]
    sources += sorted(templates_dir().rglob("*.jinja"))
    for path in sources:
        if "demo" not in path.parts:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
