"""MCP Skills end to end against a real FastMCP 4.2.3 server (tests/servers/skills), over stdio and streamable HTTP.

The server runs from its own virtual environment (tests/servers/install.py makes it): generation records both
skills with their digests, `client.skills` lists, gets and installs them (async and blocking), a file whose
bytes differ from its digest raises `SkillIntegrityError` with nothing written, a manifest path with `../` and
a destination that is a link are refused, and `mcp-codegen check` names a skill whose text changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from servers import install

from .conftest import unique_name

SKILLS = install.SKILLS_DIR / "skills"


def _server(*args: str) -> list[str]:
    try:
        return install.skills_server_command(*args)
    except install.InstallError as exc:
        pytest.fail(f"cannot provide the FastMCP skills server: {exc}", pytrace=False)


@pytest.fixture(scope="module")
def skills_package(tmp_path_factory: pytest.TempPathFactory, generate_package: Callable[..., Path]) -> Path:
    directory = tmp_path_factory.mktemp("skills") / unique_name("skills_client")
    return generate_package(directory, "--stdio", shlex.join(_server()))


@pytest.fixture(scope="module")
def skills_client(skills_package: Path, import_package: Callable[[Path], ModuleType]) -> ModuleType:
    return import_package(skills_package)


@contextlib.contextmanager
def _served_over_http(*args: str) -> Iterator[str]:
    """The FastMCP skills server over streamable HTTP on 127.0.0.1 (it prints its URL once it listens)."""
    process = subprocess.Popen(
        _server("--http", *args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), f"the skills server did not start (exit code {process.poll()})"
        yield url
    finally:
        process.terminate()
        process.wait()


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with _served_over_http() as url:
        yield url


def _digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_snapshot_records_both_skills_with_their_digests(skills_package: Path) -> None:
    snapshot = json.loads((skills_package / "snapshot.json").read_text(encoding="utf-8"))
    assert snapshot["protocolVersion"] == "2026-07-28"
    skills = {entry["frontmatter"]["name"]: entry for entry in snapshot["skills"]}
    assert sorted(skills) == ["code-review", "release-notes"]
    review = skills["code-review"]
    assert review["uri"] == "skill://code-review/SKILL.md"
    assert review["frontmatter"]["metadata"] == {"owner": "platform-team"}  # the rest of the frontmatter, verbatim
    assert review["resources"] == [
        {"digest": _digest(SKILLS / "code-review" / "SKILL.md"), "size": 220, "uri": "skill://code-review/SKILL.md"},
        {
            "digest": _digest(SKILLS / "code-review" / "reference" / "checklist.md"),
            "size": (SKILLS / "code-review" / "reference" / "checklist.md").stat().st_size,
            "uri": "skill://code-review/reference/checklist.md",
        },
    ]
    assert skills["release-notes"]["frontmatter"]["license"] == "MIT"
    specs = (skills_package / "specs.py").read_text(encoding="utf-8")
    client = (skills_package / "client.py").read_text(encoding="utf-8")
    assert "SKILLS: Final[Mapping[str, str]] = {" in specs
    assert 'SkillName = Literal["code-review", "release-notes"]' in client


def _installed(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_async_list_get_install(
    skills_client: ModuleType, transport: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    command = _server()
    connect: Any = (
        skills_client.AsyncClient.stdio(command[0], command[1:])
        if transport == "stdio"
        else skills_client.AsyncClient.http(request.getfixturevalue("http_url"))
    )
    async with connect as client:
        listed = await client.skills.list()
        assert [(s.name, s.description) for s in listed] == [
            ("code-review", "Review a change for correctness, tests and style before it is merged."),
            ("release-notes", "Write release notes from a list of merged changes."),
        ]
        assert [f.path for f in listed[0].files] == ["SKILL.md", "reference/checklist.md"]
        assert listed[0].frontmatter["metadata"] == {"owner": "platform-team"}
        content = await client.skills.get("code-review")
        assert dict(content.files) == _installed(SKILLS / "code-review")
        folders = await client.skills.install(into=tmp_path / "skills")
    assert folders == [tmp_path / "skills" / "code-review", tmp_path / "skills" / "release-notes"]
    for name in ("code-review", "release-notes"):
        assert _installed(tmp_path / "skills" / name) == _installed(SKILLS / name)
    assert sorted(p.name for p in (tmp_path / "skills").iterdir()) == ["code-review", "release-notes"]  # no staging


def test_blocking_list_get_install_replaces_an_existing_folder(skills_client: ModuleType, tmp_path: Path) -> None:
    stale = tmp_path / "release-notes"
    stale.mkdir()
    (stale / "old.md").write_text("from an older install")
    command = _server()
    with skills_client.Client.stdio(command[0], command[1:]) as client:
        assert [s.name for s in client.skills.list()] == ["code-review", "release-notes"]
        assert client.skills.get("release-notes").files["SKILL.md"] == (SKILLS / "release-notes" / "SKILL.md").read_bytes()
        assert client.skills.install("release-notes", into=tmp_path) == [stale]
    assert _installed(stale) == _installed(SKILLS / "release-notes")


@pytest.fixture(scope="module")
def lying_client(
    tmp_path_factory: pytest.TempPathFactory, generate_package: Callable[..., Path], import_package: Callable[[Path], ModuleType]
) -> ModuleType:
    """A package generated from the server in `--tampered` mode: its `escaping` skill is left out (a warning)."""
    directory = tmp_path_factory.mktemp("lying") / unique_name("lying_client")
    return import_package(generate_package(directory, "--stdio", shlex.join(_server("--tampered"))))


@pytest.mark.anyio
async def test_a_tampered_file_raises_and_nothing_is_written(lying_client: ModuleType, tmp_path: Path) -> None:
    existing = tmp_path / "tampered"
    existing.mkdir()
    (existing / "SKILL.md").write_bytes(b"the copy installed before")
    command = _server("--tampered")
    async with lying_client.AsyncClient.stdio(command[0], command[1:], drift_check=False) as client:
        with pytest.raises(lying_client.SkillIntegrityError, match=r"skill 'tampered', file 'SKILL.md'.*digest|bytes"):
            await client.skills.get("tampered")
        with pytest.raises(lying_client.SkillIntegrityError) as raised:
            await client.skills.install(into=tmp_path)
        assert raised.value.skill in ("escaping", "tampered")
    # Nothing written: the existing folder is intact and no other folder (staging or skill) appeared.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tampered"]
    assert (existing / "SKILL.md").read_bytes() == b"the copy installed before"


@pytest.mark.anyio
async def test_a_manifest_path_leaving_the_skill_is_refused(lying_client: ModuleType, tmp_path: Path) -> None:
    command = _server("--tampered")
    async with lying_client.AsyncClient.stdio(command[0], command[1:], drift_check=False) as client:
        with pytest.raises(lying_client.SkillIntegrityError, match=r"leaves the skill's folder"):
            await client.skills.install("escaping", into=tmp_path)
        assert [s.name for s in await client.skills.list()] == ["tampered"]  # the escaping entry is not a skill
    assert list(tmp_path.iterdir()) == []
    assert not (tmp_path.parent / "outside.txt").exists()


def test_the_snapshot_leaves_out_the_escaping_skill_with_a_warning(
    codegen: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    result = codegen("snapshot", "--stdio", shlex.join(_server("--tampered")), "-o", str(tmp_path / "s.json"))
    assert result.returncode == 0, result.stderr
    assert "[skill-invalid]" in result.stderr and "skills[0]" in result.stderr
    snapshot = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert [entry["frontmatter"]["name"] for entry in snapshot["skills"]] == ["tampered"]


def test_install_refuses_a_destination_that_is_a_link(skills_client: ModuleType, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    into = tmp_path / "skills"
    into.mkdir()
    (into / "code-review").symlink_to(elsewhere, target_is_directory=True)
    command = _server()
    with skills_client.Client.stdio(command[0], command[1:]) as client:
        with pytest.raises(skills_client.SkillIntegrityError, match="symbolic link"):
            client.skills.install("code-review", into=into)
    assert list(elsewhere.iterdir()) == []
    assert (into / "code-review").is_symlink()


def test_check_names_a_skill_whose_text_changed(
    codegen: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    shutil.copytree(SKILLS, root)
    server = shlex.join(_server("--root", str(root)))
    snapshot = tmp_path / "snapshot.json"
    assert codegen("snapshot", "--stdio", server, "-o", str(snapshot)).returncode == 0
    clean = codegen("check", "--against", str(snapshot), "--stdio", server, "--fail-on", "dangerous")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    skill_md = root / "code-review" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nAlso run the tests.\n", encoding="utf-8")
    shutil.rmtree(root / "release-notes")
    drifted = codegen("check", "--against", str(snapshot), "--stdio", server, "--fail-on", "dangerous")
    output = drifted.stdout + drifted.stderr
    assert drifted.returncode != 0, output
    assert "skill-files-changed" in output and "code-review" in output
    assert "skill-removed" in output and "release-notes" in output


@pytest.mark.anyio
async def test_the_drift_check_at_connect_names_a_changed_skill(
    skills_client: ModuleType, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    shutil.copytree(SKILLS, root)
    skill_md = root / "release-notes" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nMention contributors.\n", encoding="utf-8")
    command = _server("--root", str(root))
    with pytest.raises(skills_client.SchemaDriftError, match=r"skills drifted .*files changed: release-notes"):
        async with skills_client.AsyncClient.stdio(command[0], command[1:], strict=True):
            pass


def test_a_misspelt_skill_name_is_a_type_error(skills_package: Path) -> None:
    from helpers import mypy_strict

    name = skills_package.name
    (skills_package.parent / "use_skills.py").write_text(
        f"from {name} import Client\n\n\n"
        "def use(client: Client) -> None:\n"
        '    client.skills.get("code-review")\n'
        '    client.skills.install("release-notes", into="skills")\n'
        '    client.skills.read("added-since")  # any str\n'
        '    client.skills.get("code-reveiw")\n',
        encoding="utf-8",
    )
    result = mypy_strict(skills_package.parent, "use_skills.py")
    assert result.returncode == 1, result.stdout
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "use_skills.py:8:" in errors[0] and "code-reveiw" in errors[0], result.stdout


def test_a_snapshot_and_a_client_over_http_page_through_the_skills(
    codegen: Callable[..., subprocess.CompletedProcess[str]], skills_client: ModuleType, tmp_path: Path
) -> None:
    with _served_over_http("--page-size", "1") as url:
        result = codegen("snapshot", "--url", url, "-o", str(tmp_path / "s.json"))
        with skills_client.Client.http(url) as client:
            assert [skill.name for skill in client.skills.list()] == ["code-review", "release-notes"]
    assert result.returncode == 0, result.stderr
    assert "listing skills (page 2)" in result.stderr
    snapshot = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert snapshot["protocolVersion"] == "2026-07-28"
    assert [entry["uri"] for entry in snapshot["skills"]] == ["skill://code-review/SKILL.md", "skill://release-notes/SKILL.md"]
