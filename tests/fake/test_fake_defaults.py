"""A fake-server handler sees each schema default the way a real server applies it: `[]` for `"default": []`."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pydantic
import pytest
from helpers import generate_into, imported_package, mypy_strict, snapshot_of

pytestmark = pytest.mark.anyio

FILE = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
TOOL = {
    "name": "stage",
    "inputSchema": {
        "type": "object",
        "$defs": {
            "Options": {
                "type": "object",
                "properties": {
                    "depth": {"type": "integer"},
                    "sort": {"type": "object", "properties": {"key": {"type": "string"}}, "default": {"key": "name"}},
                },
            }
        },
        "properties": {
            "files": {"type": "array", "items": FILE, "default": []},
            "names": {"type": "array", "items": {"type": "string"}, "default": ["a", "b"]},
            "options": {"$ref": "#/$defs/Options", "default": {"depth": 2}},
            "pins": {"type": "array", "items": FILE, "default": [{"path": "x"}]},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}, "default": {}},
            "mode": {"type": "string", "default": "fast"},
            "ratio": {"type": "number", "default": 0.5},
            "since": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "note": {"type": "string"},
        },
    },
}


async def test_a_handler_receives_every_default_as_the_server_applies_it(tmp_path: Path) -> None:
    diagnostics = generate_into(tmp_path, snapshot_of([TOOL]), "defaults_client")
    assert not diagnostics.problems, [str(d) for d in diagnostics.problems]
    received: list[Any] = []
    with imported_package(tmp_path / "defaults_client") as package:
        testing = importlib.import_module("defaults_client.testing")
        fake = testing.FakeServer(unhandled="error")

        @fake.tools.stage
        def stage(args: Any) -> str:
            received.append(args)
            return "ok"

        async with package.AsyncClient.in_process(fake) as client:
            await client.stage()
        [args] = received
        assert args.files == [] and args.names == ["a", "b"] and args.labels == {}
        assert args.options.depth == 2 and [pin.path for pin in args.pins] == ["x"]
        assert (args.mode, args.ratio, args.since, args.note) == ("fast", 0.5, None, None)
        assert fake.calls[0].arguments == {}  # defaults are the server's to apply: nothing was sent
        arguments_model = package.specs.TOOLS["stage"].arguments_model
        with pytest.raises(pydantic.ValidationError):
            arguments_model.model_validate({"files": None})  # the schema refuses null
        assert arguments_model().files is not arguments_model().files  # one list per instance
    # The package README lists a nested model's object default as its JSON, not as the factory that holds it.
    readme = (tmp_path / "defaults_client" / "README.md").read_text(encoding="utf-8")
    assert "`sort: StageOptionsSort = {'key': 'name'}`" in readme, readme
    result = mypy_strict(tmp_path, "defaults_client")
    assert result.returncode == 0, result.stdout[-3000:]
