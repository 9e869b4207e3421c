"""The console script's early glance at its arguments: which runs start the model generator's worker first."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._console import _regeneration_output
from mcp_codegen.generate.manifest import MANIFEST


@pytest.fixture
def package(tmp_path: Path) -> Path:
    directory = tmp_path / "pkg"
    directory.mkdir()
    (directory / MANIFEST).write_text("{}", encoding="utf-8")
    (directory / "snapshot.json").write_text('{"old": true}\n', encoding="utf-8")
    (tmp_path / "s.json").write_text('{"new": true}\n', encoding="utf-8")
    return directory


def test_a_regeneration_from_a_file_into_a_package_is_recognised(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(package.parent)
    for arguments in (
        ["generate", "--snapshot", "s.json", "-o", str(package)],
        ["generate", "--snapshot=s.json", "--output", str(package), "--overwrite"],
        ["generate", "-o", "elsewhere", "--snapshot", "s.json", f"--output={package}"],  # the last one counts
        ["generate", f"-o{package}", "--snapshot", "s.json"],
    ):
        assert _regeneration_output(arguments) == package, arguments


def test_other_runs_start_nothing(package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for arguments in (
        [],
        ["generate", "--snapshot", "s.json", "-o", str(package), "--check"],  # writes nothing, makes no models
        ["generate", "--snapshot", "missing.json", "-o", str(package)],  # the command says it is missing
        ["generate", "--stdio", "server", "-o", str(package)],  # a live snapshot: the server comes first
        ["generate", "--snapshot", "s.json", "-o", str(tmp_path / "new")],  # not a package yet: a cold run
        ["generate", "--snapshot", "s.json", "-o", str(tmp_path)],  # a directory without a manifest
        ["generate", "--snapshot", "s.json"],  # no output named
        ["verify", "--snapshot", "s.json", "-o", str(package)],
        ["generate", "--snapshot", str(package / "snapshot.json"), "-o", str(package)],  # the package's own
    ):
        assert _regeneration_output(arguments) is None, arguments
