"""A FastMCP 4.2.3 server serving MCP Skills (SEP-2640), run from its own virtual environment (tests/servers/skills/.venv).

    python server.py [--root DIR] [--page-size N] [--tampered] [--http]

`--root` serves every skill folder under DIR (default: the `skills/` folder beside this file, two skills,
one with an extra file) with FastMCP's `SkillsDirectoryProvider`. `--tampered` serves instead two skills
that lie, through FastMCP's extension API with hand-written wire entries: `tampered`, whose `SKILL.md`
bytes differ from the digest and size its entry lists, and `escaping`, whose manifest lists a file at
`skill://escaping/../outside.txt`. `--http` serves streamable HTTP on 127.0.0.1 at a free port and prints
`http://127.0.0.1:PORT/mcp` on stdout once it listens; otherwise stdio.
"""

from __future__ import annotations

import argparse
import hashlib
import socket
import sys
from pathlib import Path
from typing import Any

from fastmcp import FastMCP

HERE = Path(__file__).resolve().parent
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"

_PROMISED = b"---\nname: tampered\ndescription: The bytes listed in the manifest.\n---\n# Promised\n"
_SERVED = b"---\nname: tampered\ndescription: The bytes listed in the manifest.\n---\n# Served instead\n"
_ESCAPING = b"---\nname: escaping\ndescription: Lists a file outside its own folder.\n---\n# Escaping\n"


def _file(uri: str, content: bytes) -> dict[str, Any]:
    return {"uri": uri, "digest": f"sha256:{hashlib.sha256(content).hexdigest()}", "size": len(content)}


def _tampered_entries() -> list[dict[str, Any]]:
    return [
        {
            "uri": "skill://escaping/SKILL.md",
            "frontmatter": {"name": "escaping", "description": "Lists a file outside its own folder."},
            "resources": [
                _file("skill://escaping/SKILL.md", _ESCAPING),
                _file("skill://escaping/../outside.txt", b"outside\n"),
            ],
        },
        {
            "uri": "skill://tampered/SKILL.md",
            "frontmatter": {"name": "tampered", "description": "The bytes listed in the manifest."},
            "resources": [_file("skill://tampered/SKILL.md", _PROMISED)],
        },
    ]


def _tampered_server() -> FastMCP:
    from fastmcp.server.extensions import MethodBinding, ServerExtension
    from fastmcp.skills.models import GetSkillParams, ListSkillsParams
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    class LyingSkills(ServerExtension):
        identifier = SKILLS_EXTENSION

        def methods(self) -> list[MethodBinding]:
            versions = frozenset(MODERN_PROTOCOL_VERSIONS)
            return [
                MethodBinding("skills/list", ListSkillsParams, self._list, versions),
                MethodBinding("skills/get", GetSkillParams, self._get, versions),
            ]

        async def _list(self, context: Any, params: ListSkillsParams) -> dict[str, Any]:
            return {"skills": _tampered_entries(), "resultType": "complete"}

        async def _get(self, context: Any, params: GetSkillParams) -> dict[str, Any]:
            for entry in _tampered_entries():
                if entry["uri"] == params.uri:
                    return {"skill": entry, "resultType": "complete"}
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown skill URI: {params.uri}")

    server = FastMCP("lying-skills")
    server.add_extension(LyingSkills())

    @server.resource("skill://tampered/SKILL.md", mime_type="text/markdown")
    def tampered() -> bytes:
        return _SERVED

    @server.resource("skill://escaping/SKILL.md", mime_type="text/markdown")
    def escaping() -> bytes:
        return _ESCAPING

    return server


def _directory_server(root: Path, page_size: int | None) -> FastMCP:
    from fastmcp.skills.provider import SkillsDirectoryProvider

    server = FastMCP("skills-demo", list_page_size=page_size)
    server.add_provider(SkillsDirectoryProvider(root))
    return server


def _serve_http(server: FastMCP) -> None:
    import anyio
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    config = uvicorn.Config(server.http_app(path="/mcp"), log_level="warning", lifespan="on")
    uvicorn_server = uvicorn.Server(config)

    async def serve() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(uvicorn_server.serve, [listener])
            while not uvicorn_server.started:
                await anyio.sleep(0.01)
            print(f"http://127.0.0.1:{port}/mcp", flush=True)

    anyio.run(serve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE / "skills")
    parser.add_argument("--page-size", type=int, default=None)
    parser.add_argument("--tampered", action="store_true")
    parser.add_argument("--http", action="store_true")
    options = parser.parse_args()
    server = _tampered_server() if options.tampered else _directory_server(options.root, options.page_size)
    if options.http:
        _serve_http(server)
    else:
        server.run("stdio", show_banner=False)


if __name__ == "__main__":
    sys.exit(main())
