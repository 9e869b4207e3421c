"""The MCP Skills checks on what a server sends: file paths stay in the skill's folder, entries are usable skills,
bytes match their digest and size, and an install writes atomically."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen_runtime.calls.skills import (
    SkillContent,
    SkillFile,
    SkillIntegrityError,
    frontmatter_mismatch,
    parse_skill,
    relative_path,
    verified_file,
)
from mcp_codegen_runtime.client.skills import write_skill

SKILL = "skill://review/SKILL.md"


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("skill://review/SKILL.md", "SKILL.md"),
        ("skill://review/reference/checklist.md", "reference/checklist.md"),
        ("skill://review/a%20b.md", "a b.md"),
    ],
)
def test_paths_inside_the_skill(uri: str, path: str) -> None:
    assert relative_path(SKILL, uri) == path


@pytest.mark.parametrize(
    "uri",
    [
        "skill://review/../outside.txt",
        "skill://review/%2e%2e/outside.txt",
        "skill://review/a/../../outside.txt",
        "skill://review/./SKILL.md",
        "skill://review//etc/passwd",
        "skill://review/a%2F..%2F..%2Fx",
        "skill://review/..%5Cx",
        "skill://review/C:/Windows/x",
        "skill://review/c%3A%5Cx",
        "skill://review/a\\b",
        "skill://other/SKILL.md",
        "file:///etc/passwd",
        "skill://review",
        "skill://review/x?y=1",
        "skill://review/nul%00.md",
    ],
)
def test_paths_leaving_the_skill_are_refused(uri: str) -> None:
    with pytest.raises(ValueError):
        relative_path(SKILL, uri)


def test_a_nested_skill_uri_keeps_its_folder() -> None:
    assert relative_path("skill://ops/deploy/SKILL.md", "skill://ops/deploy/run.sh") == "run.sh"
    with pytest.raises(ValueError):
        relative_path("skill://ops/deploy/SKILL.md", "skill://ops/other/run.sh")


def _file(uri: str, content: bytes) -> dict[str, Any]:
    return {"uri": uri, "digest": "sha256:" + hashlib.sha256(content).hexdigest(), "size": len(content)}


def _entry(**changes: Any) -> dict[str, Any]:
    entry = {
        "uri": SKILL,
        "frontmatter": {"name": "review", "description": "Review code.", "x-vendor": [1]},
        "resources": [_file(SKILL, b"# review\n")],
    }
    entry.update(changes)
    return entry


def test_an_entry_is_read_with_its_frontmatter_verbatim() -> None:
    skill = parse_skill(_entry())
    assert (skill.name, skill.description, skill.frontmatter["x-vendor"]) == ("review", "Review code.", [1])
    assert skill.files == (SkillFile("SKILL.md", SKILL, 9, _file(SKILL, b"# review\n")["digest"]),)
    assert parse_skill(_entry(resources="dynamic")).files == "dynamic"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"uri": "skill://review/README.md"}, "SKILL.md"),
        ({"frontmatter": {"name": "../x", "description": "d"}}, "not a skill name"),
        ({"frontmatter": {"name": "Review", "description": "d"}}, "not a skill name"),
        ({"frontmatter": {"name": "other", "description": "d"}}, "last folder"),
        ({"frontmatter": {"name": "review"}}, "no description"),
        ({"resources": [_file("skill://review/../x", b"")]}, "leaves the skill's folder"),
        ({"resources": [_file("skill://review/x.md", b"")]}, "does not list SKILL.md"),
        ({"resources": [{"uri": SKILL, "digest": "md5:0", "size": 1}]}, "sha256"),
        ({"resources": [{**_file(SKILL, b""), "size": -1}]}, "size"),
        ({"resources": [_file(SKILL, b""), _file(SKILL, b"")]}, "twice"),
        ({"resources": [_file(SKILL, b"")] + [_file(f"skill://review/{i}", b"") for i in range(512)]}, "512"),
        ({"resources": [{**_file(SKILL, b""), "size": 16 * 1024 * 1024 + 1}]}, "bytes"),
    ],
)
def test_unusable_entries_are_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_skill(_entry(**changes))


def test_bytes_must_match_digest_and_size() -> None:
    file = SkillFile("SKILL.md", SKILL, 3, "sha256:" + hashlib.sha256(b"abc").hexdigest())
    assert verified_file("review", file, b"abc") == b"abc"
    with pytest.raises(SkillIntegrityError, match="'review', file 'SKILL.md'.*digest"):
        verified_file("review", file, b"abd")
    with pytest.raises(SkillIntegrityError, match="4 bytes, its manifest promised 3"):
        verified_file("review", file, b"abcd")


def _content(files: dict[str, bytes]) -> SkillContent:
    return SkillContent(parse_skill(_entry()), files)


def test_write_replaces_an_existing_folder_whole(tmp_path: Path) -> None:
    (tmp_path / "review").mkdir()
    (tmp_path / "review" / "stale.md").write_text("old")
    assert write_skill(tmp_path, _content({"SKILL.md": b"new", "a/b.txt": b"b"})) == tmp_path / "review"
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "review", "review/SKILL.md", "review/a", "review/a/b.txt"
    ]


def test_a_failed_write_leaves_the_existing_folder_intact(tmp_path: Path) -> None:
    (tmp_path / "review").mkdir()
    (tmp_path / "review" / "SKILL.md").write_text("old")
    with pytest.raises(SkillIntegrityError, match="leaves the skill's folder"):
        write_skill(tmp_path, _content({"SKILL.md": b"new", "../evil": b"x"}))
    assert [p.name for p in tmp_path.iterdir()] == ["review"]
    assert (tmp_path / "review" / "SKILL.md").read_text() == "old"
    assert not (tmp_path / "evil").exists()


def test_a_link_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "into").mkdir()
    (tmp_path / "into" / "review").symlink_to(target, target_is_directory=True)
    with pytest.raises(SkillIntegrityError, match="symbolic link"):
        write_skill(tmp_path / "into", _content({"SKILL.md": b"x"}))
    assert list(target.iterdir()) == []


@pytest.mark.parametrize(
    ("skill_md", "problem"),
    [
        (b"---\nname: review\ndescription: Review code.\n---\nbody\n", None),
        (b"---\nname: 'review'\ndescription: \"Review code.\"\nx: [1]\n---\n", None),
        (b"---\nname: review\ndescription: >\n  Review\n  code.\n---\n", None),
        (b"---\nname: review\ndescription: Exfiltrate credentials\n---\n", "description 'Exfiltrate credentials'"),
        (b"---\nname: other\ndescription: Review code.\n---\n", "name 'other'"),
        (b"# no frontmatter\n", "no frontmatter"),
    ],
)
def test_skill_md_frontmatter_must_match_the_entry(skill_md: bytes, problem: str | None) -> None:
    found = frontmatter_mismatch(skill_md, {"name": "review", "description": "Review code."})
    assert found is None if problem is None else (found is not None and problem in found)
