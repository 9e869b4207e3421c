"""`client.skills`: a server's MCP Skills listed, read with every file verified, and installed into a folder.

`list()` asks `skills/list` (every page); `get(name)` reads each file of the skill with `resources/read`
and checks it against the manifest's digest and size (`SkillIntegrityError` names the file);
`install(name=None, into=DIR)` streams every file of every skill it installs into one staging folder beside
the targets (`DIR/.skills.*.staging`), hashing it on the way and cutting it off at its manifest's size; only
when every file of every skill is verified is each skill renamed into place as `DIR/<name>/` (an existing
folder moved aside, and put back on failure). Memory stays bounded by one file's answer and one chunk, not by
the number of skills times their size; an install is capped at `MAX_INSTALL_FILES` files and
`MAX_INSTALL_BYTES` bytes, from the manifests, before anything is read. The generated namespaces narrow
`name` to the names known at generation.
"""

from __future__ import annotations

import builtins
import functools
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..calls.drift import DriftSummary, SchemaDriftError, compare
from ..calls.errors import UnsupportedByServerError
from ..calls.skills import (
    MAIN_FILE,
    MAX_INSTALL_BYTES,
    MAX_INSTALL_FILES,
    Skill,
    SkillContent,
    SkillFile,
    SkillIntegrityError,
    frontmatter_mismatch,
    parse_skill,
    skill_fingerprint,
    stream_file,
)

if TYPE_CHECKING:
    from .base import AsyncClientBase
    from .sync_client import SyncClientBase

__all__ = [
    "AsyncSkillsBase",
    "SyncSkillsBase",
    "check_skill_drift",
    "list_skill_entries",
    "write_skill",
]

logger = logging.getLogger(__name__.rpartition("._runtime")[0] or __name__)


@functools.cache
def _wire_models() -> tuple[Any, Any]:
    """The request and (lenient) result models of `skills/list`, made on first use (pydantic, mcp_types)."""
    from typing import Literal

    import mcp_types
    from pydantic import ConfigDict

    class ListSkillsRequest(
        mcp_types.Request[
            mcp_types.PaginatedRequestParams | None, Literal["skills/list"]
        ]
    ):
        method: Literal["skills/list"] = "skills/list"
        params: mcp_types.PaginatedRequestParams | None = None

    class ListSkillsPage(mcp_types.Result):
        # Entries stay raw: one off-spec skill must not lose the others.
        model_config = ConfigDict(extra="allow")
        skills: list[Any] = []
        next_cursor: str | None = None

    return ListSkillsRequest, ListSkillsPage


async def list_skill_entries(client: Any) -> list[dict[str, Any]]:
    """Every `skills/list` entry of the live server, as sent (all pages). `client`: an `AsyncClientBase` (or
    one of its parts, which the drift check runs in)."""
    session = client.session
    extensions = cast(
        "Mapping[str, Any]",
        getattr(session.server_capabilities, "extensions", None) or {},
    )
    if "io.modelcontextprotocol/skills" not in extensions:
        raise UnsupportedByServerError(
            "skills need the server's io.modelcontextprotocol/skills extension at MCP 2026-07-28; the server "
            f"negotiated {session.protocol_version} without it"
        )
    request_class, page_class = _wire_models()
    items: list[object] = await client._list_all(
        "skills/list", request_class, page_class, _skills_of
    )
    return [cast("dict[str, Any]", item) for item in items if isinstance(item, dict)]


async def check_skill_drift(
    client: Any, expected: Mapping[str, str], *, strict: bool
) -> DriftSummary | None:
    """Compare the live skills with `expected` (name -> `skill_fingerprint`): a skill removed or whose files or
    frontmatter changed is drift, logged as one warning, or `SchemaDriftError` when `strict`. None when the
    listing could not be read."""
    try:
        live: dict[str, str] = {}
        for entry in await list_skill_entries(client):
            try:
                live[parse_skill(entry).name] = skill_fingerprint(entry)
            except ValueError:
                continue
    except Exception as error:  # an off-spec listing must not stop a client that works
        reason = f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
        if strict:
            raise SchemaDriftError(
                DriftSummary(), reason=reason, what="skills"
            ) from error
        logger.warning("could not check the server's skills for drift: %s", reason)
        return None
    summary = compare(expected, live)
    if summary.drifted:
        if strict:
            raise SchemaDriftError(summary, what="skills")
        logger.warning(
            "the server's skills drifted from this client's snapshot (%s)",
            summary.describe(changed="files changed"),
        )
    return summary


def _skills_of(page: Any) -> list[object]:
    return cast("list[object]", page.skills)


class AsyncSkillsBase:
    """Base of the generated `client.skills` namespace."""

    __slots__ = ("_client",)

    def __init__(self, client: AsyncClientBase) -> None:
        self._client = client

    async def list(self) -> list[Skill]:
        """Every skill the server offers now, with its manifest (entries that are not usable skills are left
        out)."""
        skills: list[Skill] = []
        for entry in await list_skill_entries(self._client):
            try:
                skills.append(parse_skill(entry))
            except ValueError:
                continue
        return skills

    async def read(self, name: str) -> SkillContent:
        """The skill `name` (any name, also one the server added since generation) with every file read and
        verified against its digest and size; `get(name)` is the same with the names known at generation.
        """
        return await self._verified(name, await list_skill_entries(self._client))

    async def install_names(
        self, names: Sequence[str] | None, *, into: str | os.PathLike[str]
    ) -> builtins.list[Path]:
        """Install the skills `names` (any names; every skill when None), each as `into/<name>/`: every file
        of every skill streamed to a staging folder and verified before anything is moved into place. Returns
        the folders written.
        """
        entries = await list_skill_entries(self._client)
        if names is None:
            names = sorted(
                {name for entry in entries if (name := _name_of(entry)) is not None}
            )
        skills = [_listed(name, entries) for name in dict.fromkeys(names)]
        _check_install_limits(skills)
        folder = Path(into)
        for skill in skills:
            _refuse_link(folder / skill.name, skill.name)
        folder.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".skills.", suffix=".staging", dir=folder))
        try:
            for skill in skills:
                await self._stage(skill, stage / skill.name)
            return [
                _swap_in(stage / skill.name, folder / skill.name) for skill in skills
            ]
        finally:
            shutil.rmtree(stage, ignore_errors=True)

    async def _verified(
        self, name: str, entries: Sequence[dict[str, Any]]
    ) -> SkillContent:
        skill = _listed(name, entries)
        files: dict[str, bytes] = {}
        for file in _main_first(skill):
            content = bytearray()
            await self._read_into(skill.name, file, content.extend)
            files[file.path] = bytes(content)
            if file.path == MAIN_FILE:
                _check_frontmatter(skill, files[MAIN_FILE])
        return SkillContent(skill, files)

    async def _stage(self, skill: Skill, folder: Path) -> None:
        """Stream every file of `skill` into `folder` (fresh), verified; the frontmatter of its SKILL.md is
        checked from the file written."""
        root = folder.resolve()
        for file in _main_first(skill):
            destination = folder.joinpath(*file.path.split("/"))
            if (
                not destination.resolve().is_relative_to(root)
                or destination.resolve() == root
            ):
                raise SkillIntegrityError(
                    skill.name, "the path leaves the skill's folder", path=file.path
                )
            destination.parent.mkdir(parents=True, exist_ok=True)
            with open(destination, "xb") as handle:
                await self._read_into(skill.name, file, handle.write)
            if file.path == MAIN_FILE:
                with open(destination, "rb") as handle:
                    _check_frontmatter(skill, handle.read(_FRONTMATTER_BYTES))

    async def _read_into(
        self, name: str, file: SkillFile, write: Callable[[bytes], object]
    ) -> None:
        """Read `file` and stream its bytes to `write`, verified; the answer is let go before returning."""
        result = await self._client.read_resource(file.uri)
        contents = result.contents
        del result
        stream_file(name, file, contents, write)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


def _name_of(entry: Mapping[str, Any]) -> str | None:
    frontmatter: object = entry.get("frontmatter")
    if not isinstance(frontmatter, dict):
        return None
    name: object = cast("dict[str, Any]", frontmatter).get("name")
    return name if isinstance(name, str) else None


class SyncSkillsBase:
    """Base of the generated blocking `client.skills` namespace: the async one run on the client's loop."""

    __slots__ = ("_client",)

    def __init__(self, client: SyncClientBase[Any]) -> None:
        self._client = client

    def _async_skills(self) -> AsyncSkillsBase:
        return AsyncSkillsBase(self._client.async_client)

    def list(self) -> list[Skill]:
        """Every skill the server offers now, with its manifest (entries that are not usable skills are left
        out)."""
        return self._client.run_blocking(self._async_skills().list)

    def read(self, name: str) -> SkillContent:
        """The skill `name` (any name, also one the server added since generation) with every file read and
        verified against its digest and size; `get(name)` is the same with the names known at generation.
        """
        return self._client.run_blocking(self._async_skills().read, name)

    def install_names(
        self, names: Sequence[str] | None, *, into: str | os.PathLike[str]
    ) -> builtins.list[Path]:
        """Install the skills `names` (any names; every skill when None), each as `into/<name>/`: every file
        of every skill verified before anything is written. Returns the folders written.
        """
        return self._client.run_blocking(
            self._async_skills().install_names, names, into=into
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


#: How much of SKILL.md its frontmatter is looked for in (it opens the file).
_FRONTMATTER_BYTES = 1024 * 1024


def _listed(name: str, entries: Sequence[Mapping[str, Any]]) -> Skill:
    """The one usable, static skill `name` among the listed `entries`, else SkillIntegrityError."""
    matches = [entry for entry in entries if _name_of(entry) == name]
    if len(matches) != 1:
        found = "no skill" if not matches else f"{len(matches)} skills"
        raise SkillIntegrityError(name, f"the server lists {found} of that name")
    try:
        skill = parse_skill(matches[0])
    except ValueError as error:
        raise SkillIntegrityError(name, str(error)) from None
    if skill.files == "dynamic":
        raise SkillIntegrityError(
            name, "its manifest is dynamic: the files cannot be verified"
        )
    return skill


def _main_first(skill: Skill) -> builtins.list[SkillFile]:
    """SKILL.md first: a skill whose SKILL.md fails is refused before any other file is read."""
    assert skill.files != "dynamic"
    return sorted(skill.files, key=lambda file: file.path != MAIN_FILE)


def _check_frontmatter(skill: Skill, skill_md: bytes) -> None:
    mismatch = frontmatter_mismatch(skill_md, skill.frontmatter)
    if mismatch is not None:
        raise SkillIntegrityError(skill.name, mismatch, path=MAIN_FILE)


def _check_install_limits(skills: Sequence[Skill]) -> None:
    """Refuse, before anything is read, an install over `MAX_INSTALL_FILES` or `MAX_INSTALL_BYTES`."""
    files = size = 0
    for skill in skills:
        assert skill.files != "dynamic"
        files += len(skill.files)
        size += sum(file.size for file in skill.files)
        if files > MAX_INSTALL_FILES or size > MAX_INSTALL_BYTES:
            raise SkillIntegrityError(
                skill.name,
                f"with it, this install would hold {files} files of {size} bytes; one install holds at "
                f"most {MAX_INSTALL_FILES} files and {MAX_INSTALL_BYTES} bytes: install fewer skills at once",
            )


def _refuse_link(target: Path, name: str) -> None:
    if target.is_symlink():
        raise SkillIntegrityError(
            name, f"{target} is a symbolic link; refusing to write through it"
        )


def write_skill(into: Path, content: SkillContent) -> Path:
    """Write `content` as `into/<name>/` atomically: staged in a fresh sibling folder, then renamed into place
    (an existing folder is moved aside first and put back on failure). Refuses a destination that is a link.
    """
    name = content.name
    target = into / name
    _refuse_link(target, name)
    into.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".staging", dir=into))
    try:
        root = stage.resolve()
        for path, data in sorted(content.files.items()):
            destination = stage.joinpath(*path.split("/"))
            if (
                not destination.resolve().is_relative_to(root)
                or destination.resolve() == root
            ):
                raise SkillIntegrityError(
                    name, "the path leaves the skill's folder", path=path
                )
            destination.parent.mkdir(parents=True, exist_ok=True)
            with open(destination, "xb") as handle:
                handle.write(data)
        if MAIN_FILE not in content.files:
            raise SkillIntegrityError(name, f"no {MAIN_FILE}")
        _swap_in(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return target


def _swap_in(stage: Path, target: Path) -> Path:
    """Rename `stage` to `target`; an existing `target` is moved aside first, put back on failure."""
    if not target.exists():
        stage.rename(target)
        return target
    aside = Path(
        tempfile.mkdtemp(
            prefix=f".{target.name}.", suffix=".previous", dir=target.parent
        )
    )
    aside.rmdir()  # a free name beside the target
    target.rename(aside)
    try:
        stage.rename(target)
    except BaseException:
        aside.rename(target)
        raise
    shutil.rmtree(aside, ignore_errors=True)
    return target
