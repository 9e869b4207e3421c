"""A stand-in for the MCP registry API on 127.0.0.1, serving real `server.json` documents.

    with serve_registry([document, ...], apis=("v0", "v0.1")) as registry:
        registry.url        # "http://127.0.0.1:PORT", for --registry-url
        registry.requests   # the raw paths asked for, in order

It answers as the official registry does (docs/reference/api/openapi.yaml of modelcontextprotocol/registry):
`GET /{api}/servers/{name}/versions/{version|latest}` with `{"server": ..., "_meta": ...}`,
`GET /{api}/servers/{name}/versions` with `{"servers": [...], "metadata": {"count": N}}`, and a JSON 404
for an unknown name or version. The server name must arrive URL-encoded in one path segment (`%2F`), as
the API requires; only the API versions in `apis` are served (an older registry knows only `v0`).
"""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from servers.helpers import serve_app

OFFICIAL = "io.modelcontextprotocol.registry/official"


@dataclass
class RegistryStandIn:
    documents: Sequence[dict[str, Any]]
    apis: tuple[str, ...]
    #: When set, every request is answered with this HTTP status (a registry in trouble).
    fail_with: int | None = None
    requests: list[str] = field(default_factory=list)
    url: str = ""

    def versions(self, name: str) -> list[dict[str, Any]]:
        return [doc for doc in self.documents if doc["name"] == name]

    def entry(self, document: dict[str, Any]) -> dict[str, Any]:
        latest = self.versions(document["name"])[-1] is document
        meta = {"status": "active", "publishedAt": "2025-11-20T09:00:00Z", "isLatest": latest}
        return {"server": document, "_meta": {OFFICIAL: meta}}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        raw = scope["raw_path"].decode("ascii")
        self.requests.append(raw)
        response = self.answer(raw) if self.fail_with is None else JSONResponse({}, status_code=self.fail_with)
        await response(scope, receive, send)

    def answer(self, raw_path: str) -> JSONResponse:
        segments = [urllib.parse.unquote(part) for part in raw_path.strip("/").split("/")]
        not_found = JSONResponse({"title": "Not Found", "status": 404, "detail": "Server not found"}, 404)
        if len(segments) < 4 or segments[0] not in self.apis or segments[1] != "servers" or segments[3] != "versions":
            return not_found
        found = self.versions(segments[2])
        if not found:
            return not_found
        if len(segments) == 4:
            entries = [self.entry(doc) for doc in found]
            return JSONResponse({"servers": entries, "metadata": {"count": len(entries)}})
        if len(segments) != 5:
            return not_found
        version = segments[4]
        chosen = found[-1] if version == "latest" else next((d for d in found if d["version"] == version), None)
        return JSONResponse(self.entry(chosen)) if chosen is not None else not_found


@contextlib.contextmanager
def serve_registry(
    documents: Sequence[dict[str, Any]], *, apis: tuple[str, ...] = ("v0", "v0.1")
) -> Iterator[RegistryStandIn]:
    """Serve `documents` (several versions of one name: oldest first, the last is "latest")."""
    registry = RegistryStandIn(documents, apis)
    with serve_app(registry) as base:
        registry.url = base
        yield registry
