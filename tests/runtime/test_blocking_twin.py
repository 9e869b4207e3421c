"""The blocking client is derived from the async one: same methods, same signatures, same docstrings."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from mcp_codegen_runtime import AsyncClientBase, SyncClientBase
from mcp_codegen_runtime.client.blocking import BlockingCore

ROOT = Path(__file__).resolve().parents[2]
#: Only meaningful on the event loop, or agent-tool plumbing (see scripts/gen_blocking.py).
LOOP_ONLY = {"aclose", "session", "toolset_for", "call_spec", "call_spec_result", "default_client_info"}


def _public(cls: type) -> dict[str, object]:
    return {
        name: member
        for klass in reversed(cls.__mro__)
        for name, member in vars(klass).items()
        if not name.startswith("_") and name not in ("__slots__",)
    }


def test_the_generated_file_is_current() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/gen_blocking.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_every_async_method_has_a_blocking_twin_with_its_signature_and_docstring() -> None:
    async_members = _public(AsyncClientBase)
    sync_members = _public(SyncClientBase)
    hand_written = set(vars(BlockingCore))
    missing = sorted(set(async_members) - set(sync_members) - LOOP_ONLY)
    assert missing == []
    assert {"stdio", "http", "connect", "in_process", "call", "read_resource", "ping", "reconnect"} <= set(sync_members)
    for name, member in async_members.items():
        if name in LOOP_ONLY or name in hand_written:
            continue
        twin = sync_members[name]
        if isinstance(member, property):
            assert isinstance(twin, property), name
            continue
        async_fn = getattr(AsyncClientBase, name)
        sync_fn = getattr(SyncClientBase, name)
        async_params = list(inspect.signature(async_fn).parameters.values())
        sync_params = list(inspect.signature(sync_fn).parameters.values())
        assert [(p.name, p.kind, p.default, p.annotation) for p in sync_params] == [
            (p.name, p.kind, p.default, p.annotation) for p in async_params
        ], name
        assert inspect.getdoc(sync_fn), f"{name} has no docstring"
        assert "await " not in (inspect.getdoc(sync_fn) or ""), name


def test_a_connector_returns_a_blocking_connection() -> None:
    connection = SyncClientBase.stdio(sys.executable, ["-c", "pass"])
    assert type(connection).__name__ == "SyncConnection"
    assert "with Client.stdio(" in (inspect.getdoc(SyncClientBase.stdio) or "")
