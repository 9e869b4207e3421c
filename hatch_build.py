"""mcp-client-codegen's dependency on its runtime, at exactly its own version (a hatch metadata hook).

In a clone (`runtime/pyproject.toml` beside this file) the requirement is the clone's runtime by path, so
`pip install -e .` installs both distributions. A release is built with `MCP_CODEGEN_RELEASE=1` (and anywhere
without `runtime/`): then it is `mcp-codegen-runtime==<version>`, the runtime released with it. The sdist records
the requirement it was built with (PKG-INFO), so its wheel keeps it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

RUNTIME = "mcp-codegen-runtime"


class RuntimeDependencyHook(MetadataHookInterface):
    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        runtime = Path(self.root) / "runtime"
        if (runtime / "pyproject.toml").is_file() and os.environ.get("MCP_CODEGEN_RELEASE") != "1":
            requirement = f"{RUNTIME} @ {runtime.resolve().as_uri()}"
        else:
            requirement = f"{RUNTIME}=={metadata['version']}"
        metadata["dependencies"] = [*self.config["dependencies"], requirement]
