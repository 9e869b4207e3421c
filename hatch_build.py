"""mcp-client-codegen's dependency on its runtime, at exactly its own version (a hatch metadata hook).

In a clone (`runtime/pyproject.toml` beside this file) the requirement is the clone's runtime by path, so
`pip install -e .` installs both distributions; anywhere else (the sdist, and the wheel built from it) it is
`mcp-codegen-runtime==<version>`, the release made with this one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

RUNTIME = "mcp-codegen-runtime"


class RuntimeDependencyHook(MetadataHookInterface):
    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        runtime = Path(self.root) / "runtime"
        if (runtime / "pyproject.toml").is_file():
            requirement = f"{RUNTIME} @ {runtime.resolve().as_uri()}"
        else:
            requirement = f"{RUNTIME}=={metadata['version']}"
        metadata["dependencies"] = [*self.config["dependencies"], requirement]
