"""The typed fake server serves skills: listed from the snapshot, files given by the test, verified by the client."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import read_snapshot

SNAPSHOT = Path(__file__).with_name("skills_snapshot.json")  # a FastMCP 4.2.3 server's, launch left out


@pytest.fixture(scope="module")
def skills_pkg(fake_packages_dir: Path) -> ModuleType:
    files = generate_files(read_snapshot(SNAPSHOT), package_name="fake_skills_client", diagnostics=Diagnostics())
    write_package(fake_packages_dir / "fake_skills_client", files, overwrite=True)
    if str(fake_packages_dir) not in sys.path:
        sys.path.insert(0, str(fake_packages_dir))
    package = importlib.import_module("fake_skills_client")
    importlib.import_module("fake_skills_client.testing")
    return package


REVIEW = {"SKILL.md": "---\nname: code-review\ndescription: Review.\n---\n# Review\n", "notes/x.bin": b"\x00\xff"}


@pytest.mark.anyio
async def test_the_fake_lists_and_serves_the_files_a_test_gives(skills_pkg: ModuleType, tmp_path: Path) -> None:
    fake = skills_pkg.testing.FakeServer()
    fake.skills.set("code-review", REVIEW)
    async with skills_pkg.AsyncClient.in_process(fake, drift_check=False) as client:
        listed = await client.skills.list()
        assert [s.name for s in listed] == ["code-review", "release-notes"]  # release-notes: as recorded
        assert [f.path for f in listed[0].files] == ["SKILL.md", "notes/x.bin"]
        content = await client.skills.get("code-review")
        assert content.files == {"SKILL.md": REVIEW["SKILL.md"].encode(), "notes/x.bin": b"\x00\xff"}
        assert await client.skills.install("code-review", into=tmp_path) == [tmp_path / "code-review"]
    assert (tmp_path / "code-review" / "notes" / "x.bin").read_bytes() == b"\x00\xff"


@pytest.mark.anyio
async def test_a_tampered_fake_skill_is_refused_and_nothing_written(skills_pkg: ModuleType, tmp_path: Path) -> None:
    fake = skills_pkg.testing.FakeServer()
    fake.skills.set("code-review", REVIEW)
    fake.skills.set("release-notes", {"SKILL.md": "# notes\n"}, tamper=True)
    async with skills_pkg.AsyncClient.in_process(fake, drift_check=False) as client:
        with pytest.raises(skills_pkg.SkillIntegrityError, match="'release-notes', file 'SKILL.md'") as raised:
            await client.skills.install(into=tmp_path)
    assert raised.value.path == "SKILL.md"
    assert list(tmp_path.iterdir()) == []  # code-review was verified too, but nothing is written


@pytest.mark.anyio
async def test_the_connect_time_check_compares_the_fake_skills(skills_pkg: ModuleType) -> None:
    fake = skills_pkg.testing.FakeServer()
    fake.skills.remove("release-notes")
    with pytest.raises(skills_pkg.SchemaDriftError, match="skills drifted .*removed: release-notes"):
        async with skills_pkg.AsyncClient.in_process(fake, strict=True):
            pass
