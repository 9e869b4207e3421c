"""The generator keeps tool method names off every public member of the runtime's client bases."""

from __future__ import annotations

from mcp_codegen.generate.naming import RESERVED_CLIENT_MEMBERS
from mcp_codegen.runtime import AsyncClientBase, SyncClientBase


def test_every_public_client_member_is_reserved_from_tool_method_names() -> None:
    # A generated tool method named like a base member would shadow it (e.g. a tool `ping`
    # replacing the health check, or `call_spec` breaking every agent tool).
    for base in (AsyncClientBase, SyncClientBase):
        public = {name for name in dir(base) if not name.startswith("_")}
        assert public <= RESERVED_CLIENT_MEMBERS, (base.__name__, sorted(public - RESERVED_CLIENT_MEMBERS))
