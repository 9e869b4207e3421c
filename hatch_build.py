"""mcp-client-codegen's dependency on its runtime, at exactly its own version (a hatch metadata hook).

Every build, wherever it runs (a wheel or sdist built in a clone, `pip install -e .`, a release), requires
`mcp-codegen-runtime==<version>`: by version, never by the builder's path, so a wheel built on one machine
installs on any other that can reach the runtime of that version. In a clone, both install in one step, the
runtime first: `pip install -e ./runtime -e .` (pip takes the clone's runtime for the requirement; README,
scripts/test.sh and scripts/demo.sh). Elsewhere, the runtime's wheel comes from an index or a folder
(`pip install --find-links dist mcp-client-codegen`: docs/how-to/shipping.md).
"""

from __future__ import annotations

from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

RUNTIME = "mcp-codegen-runtime"


class RuntimeDependencyHook(MetadataHookInterface):
    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        metadata["dependencies"] = [*self.config["dependencies"], f"{RUNTIME}=={metadata['version']}"]
