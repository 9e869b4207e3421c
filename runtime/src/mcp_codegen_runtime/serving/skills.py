"""The fake server's MCP Skills: `skills/list` from the snapshot, and skill files a test gives served by `resources/read`.

A snapshot records each skill's manifest (digests and sizes), not its bytes. `fake.set_skill(name, files)`
gives a skill's files: the fake then lists it with a manifest computed from those bytes (so a client verifies
them) and serves each at `skill://<name>/<path>`; `tamper=True` serves bytes that differ from the listed
digest, for tests of a client's refusal. A recorded skill without files is listed as recorded; reading one of
its files answers "resource not found".
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any, cast

from ..calls.skills import frontmatter_field

__all__ = ["FakeSkills"]

_JsonObject = dict[str, Any]


class FakeSkills:
    """The skills a fake lists (by name, in the snapshot's order) and the file bytes it serves (by URI)."""

    def __init__(self, recorded: object) -> None:
        self.entries: dict[str, _JsonObject] = {}
        for item in (
            cast("list[object]", recorded) if isinstance(recorded, list) else []
        ):
            entry = cast("_JsonObject", item) if isinstance(item, dict) else {}
            frontmatter: object = entry.get("frontmatter")
            if isinstance(frontmatter, dict):
                name = cast("_JsonObject", frontmatter).get("name")
                if isinstance(name, str):
                    self.entries[name] = entry
        self.files: dict[str, bytes] = {}

    def set(
        self,
        name: str,
        files: Mapping[str, bytes | str],
        *,
        description: str | None = None,
        tamper: bool = False,
    ) -> None:
        """List the skill `name` with `files` (relative path -> content, `SKILL.md` included) and serve them."""
        if "SKILL.md" not in files:
            raise ValueError("a skill's files include SKILL.md")
        recorded = self.entries.get(name, {})
        frontmatter = dict(
            cast("_JsonObject", recorded.get("frontmatter") or {"name": name})
        )
        written = frontmatter_field(files["SKILL.md"], "description")
        frontmatter["description"] = (
            description
            or written
            or frontmatter.get("description")
            or f"the {name} skill"
        )
        resources: list[_JsonObject] = []
        for path in sorted(files):
            content = files[path]
            data = content.encode("utf-8") if isinstance(content, str) else content
            uri = f"skill://{name}/{path}"
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            resources.append({"uri": uri, "digest": digest, "size": len(data)})
            self.files[uri] = data + b"\n(tampered)" if tamper else data
        self.entries[name] = {
            "uri": f"skill://{name}/SKILL.md",
            "frontmatter": frontmatter,
            "resources": resources,
        }

    def remove(self, name: str) -> None:
        """Stop listing the skill `name` and serving its files."""
        self.entries.pop(name, None)
        prefix = f"skill://{name}/"
        for uri in [uri for uri in self.files if uri.startswith(prefix)]:
            del self.files[uri]

    def page(self) -> _JsonObject:
        """The `skills/list` result (one page)."""
        return {
            "skills": [self.entries[name] for name in self.entries],
            "resultType": "complete",
        }

    def read(self, uri: str) -> _JsonObject | None:
        """The `resources/read` result for a skill file the fake was given, or None."""
        data = self.files.get(uri)
        if data is None:
            return None
        try:
            item: _JsonObject = {
                "uri": uri,
                "mimeType": "text/markdown",
                "text": data.decode("utf-8"),
            }
        except UnicodeDecodeError:
            item = {"uri": uri, "blob": base64.b64encode(data).decode("ascii")}
        return {"contents": [item], "resultType": "complete"}
