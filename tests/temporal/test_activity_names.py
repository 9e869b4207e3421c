"""Activity names come from the package's server key, not from the name the server reports: a server that
renames itself (`serverInfo.name`) renames no activity, and `server_key=` names them otherwise."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

from helpers import imported_package
from temporalio import activity

from mcp_codegen.cli import cli

SNAPSHOT = Path(__file__).resolve().parents[2] / "generated_examples" / "demo_client" / "snapshot.json"


def _temporal(package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{package.__name__}.temporal")


def _names(package: ModuleType, **named: str) -> list[str]:
    acts = _temporal(package).activities(**named)
    return sorted(activity._Definition.must_from_callable(act).name for act in acts)


def _generated(root: Path, server_name: str) -> Path:
    """The demo snapshot with serverInfo.name set to `server_name`, generated into `root/names_client`."""
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    data["serverInfo"]["name"] = server_name
    snapshot = root / "snapshot.json"
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    target = root / "names_client"
    arguments = ["generate", "--snapshot", str(snapshot), "-o", str(target), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    return target


def test_two_snapshots_differing_only_in_the_server_name_give_the_same_activity_names(tmp_path: Path) -> None:
    names = []
    for server_name in ("demo", "demo-renamed-itself"):
        root = tmp_path / server_name
        root.mkdir()
        with imported_package(_generated(root, server_name)) as package:
            assert package.SERVER_NAME == server_name
            assert _temporal(package).SERVER_KEY == "names_client"  # the package's own name
            names.append(_names(package))
    assert names[0] == names[1]
    assert "mcp:names_client:tool:get_weather" in names[0]
    assert "mcp:names_client:list:tools" in names[0]


def test_server_key_names_the_activities_otherwise(tmp_path: Path) -> None:
    with imported_package(_generated(tmp_path, "demo")) as package:
        names = _names(package, server_key="weather-prod")
    assert "mcp:weather-prod:tool:get_weather" in names
    assert all(name.startswith("mcp:weather-prod:") for name in names)
