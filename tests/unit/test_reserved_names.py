"""The names a tool, prompt or resource method may not take are read from the classes it would sit in, so no public
runtime name can ever be shadowed, and a name the runtime gains later is reserved with no edit."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import ROOT, imported_package

import mcp_codegen_runtime
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import class_members as members_module
from mcp_codegen.generate.class_members import ClassMembers, class_members, read_class_members
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import Snapshot

EVERYTHING = ROOT / "generated_examples" / "everything_client" / "snapshot.json"


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """server-everything's package (prompts, resources, templates, task tools), with skills: every generated class."""
    data = json.loads(EVERYTHING.read_text(encoding="utf-8"))
    data["skills"] = []
    directory = tmp_path_factory.mktemp("reserved")
    files = generate_files(Snapshot.from_json(data), package_name="reserved_client", diagnostics=Diagnostics())
    write_package(directory / "reserved_client", files, overwrite=True)
    with imported_package(directory / "reserved_client") as imported:
        yield imported


def test_every_public_name_of_every_generated_class_is_reserved_for_its_methods(package: Any) -> None:
    """Whatever the client template or the runtime declares, a server's item could not take its name."""
    members = read_class_members()
    client, testing = package.client, __import__(f"{package.__name__}.testing", fromlist=["FakeTools"])
    tools = {spec.python_name for spec in package.TOOLS.values()}
    prompts = {spec.python_name for spec in package.PROMPTS.values()}
    resources = {spec.python_name for spec in [*package.RESOURCES.values(), *package.TEMPLATES.values()]}
    tasks = {name for name in _public(client.AsyncTasks)} - _public(mcp_codegen_runtime.AsyncTasksBase)
    assert tasks and prompts and resources and "skills" in _public(client.AsyncClient)
    for cls in (client.AsyncClient, client.Client):
        assert _public(cls) - tools <= members.client, cls
    for cls in (client.AsyncPrompts, client.Prompts, client.AsyncResources, client.Resources):
        assert _public(cls) - prompts - resources <= members.namespaces, cls
    for cls in (client.AsyncTasks, client.Tasks):
        assert _public(cls) - tasks <= members.tasks, cls
    for cls in (testing.FakeTools, testing.FakePrompts, testing.FakeResources):
        assert _public(cls) - tools - prompts - resources <= members.hooks, cls
    assert members == class_members()  # what the generator read (its cache) is what the classes say now


def test_a_connected_clients_instance_attributes_are_reserved_too(package: Any) -> None:
    testing = __import__(f"{package.__name__}.testing", fromlist=["FakeServer"])

    async def attributes() -> set[str]:
        async with package.AsyncClient.in_process(testing.FakeServer(), cache=False) as client:
            return {name for name in vars(client) if not name.startswith("_")}

    assert anyio.run(attributes) <= read_class_members().client


def test_a_name_the_runtime_gains_later_is_reserved_with_no_edit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def replay(self: object) -> None:
        """A public method a later runtime adds."""

    monkeypatch.setattr(mcp_codegen_runtime.AsyncClientBase, "replay", replay, raising=False)
    monkeypatch.setattr(mcp_codegen_runtime.SyncClientBase, "record", replay, raising=False)
    monkeypatch.setattr(mcp_codegen_runtime.AsyncTasksBase, "watch", replay, raising=False)
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")  # nothing made before the runtime changed is reused
    monkeypatch.setattr(members_module, "class_members", _fresh(read_class_members()))
    read = members_module.class_members()
    assert {"replay", "record"} <= read.client and "watch" in read.tasks
    monkeypatch.setattr("mcp_codegen.generate.build_ir.class_members", members_module.class_members)
    monkeypatch.setattr("mcp_codegen.generate.naming.class_members", members_module.class_members)
    tools = [
        {"name": name, "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
        for name in ("replay", "record", "watch")
    ]
    data = {"formatVersion": 1, "serverInfo": {"name": "later", "version": "1"}, "capabilities": {"tools": {}}}
    files = generate_files(
        Snapshot.from_json({**data, "tools": tools}), package_name="later", diagnostics=Diagnostics()
    )
    write_package(tmp_path / "later", files, overwrite=True)
    with imported_package(tmp_path / "later") as later:
        methods = {spec.name: spec.python_name for spec in later.TOOLS.values()}
        assert methods == {"replay": "replay_", "record": "record_", "watch": "watch"}
        assert inspect.getattr_static(later.AsyncClient, "replay") is replay
        assert inspect.getattr_static(later.Client, "record") is replay
        assert "watch" not in vars(later.client.AsyncTasks)  # its task method is named apart: `watch_`
        assert "watch_" in vars(later.client.AsyncTasks)


def _fresh(members: ClassMembers) -> Any:
    def class_members() -> ClassMembers:
        return members

    return class_members
