"""MCP Skills (SEP-2640) on the wire: reading `skills/list` entries leniently, checking file paths, verifying bytes.

A server advertises `io.modelcontextprotocol/skills` and, at protocol 2026-07-28, answers `skills/list`
with entries `{uri: "skill://NAME/SKILL.md", frontmatter: {name, description, ...}, resources: [{uri,
digest: "sha256:<hex>", size}] | "dynamic"}`; each file is read with `resources/read`. Nothing a server
sends is trusted: a file's path must stay inside its skill's folder (no `.` or `..` segment, no absolute
or drive path, no backslash), a name must be one folder name, and every file must match its digest and
size before anyone sees it. The generator (snapshot, drift) and the client both read entries through here.

A file's answer is decoded, hashed and handed on one chunk at a time (`stream_file`), and cut off at the size
its manifest promised: an install never holds more than one file's answer and one chunk of its bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast
from urllib.parse import unquote, urlsplit

from .errors import McpClientError

__all__ = [
    "MAX_INSTALL_BYTES",
    "MAX_INSTALL_FILES",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "SKILLS_EXTENSION",
    "Skill",
    "SkillContent",
    "SkillFile",
    "SkillIntegrityError",
    "file_bytes",
    "frontmatter_field",
    "frontmatter_mismatch",
    "parse_skill",
    "skill_fingerprint",
    "stream_file",
    "verified_file",
]

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
#: The extension's limits per skill (the Python SDK's PR and FastMCP agree): files, and bytes in all.
MAX_SKILL_FILES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024
#: One `install()` at most: files and bytes over every skill it installs, from their manifests, checked before
#: anything is read (a server listing thousands of skills cannot fill the disk).
MAX_INSTALL_FILES = 10_000
MAX_INSTALL_BYTES = 1024 * 1024 * 1024
MAIN_FILE = "SKILL.md"
#: Bytes of a file decoded, hashed and written at a time.
CHUNK = 1024 * 1024

#: Agent Skills names: lowercase letters, digits and single hyphens, at most 64 characters.
_NAME = re.compile(r"^(?!-)(?!.*--)[a-z0-9-]{1,64}(?<!-)$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_DRIVE = re.compile(r"^[A-Za-z]:")


class SkillIntegrityError(McpClientError):
    """A skill the server sent cannot be trusted: a file whose bytes differ from its digest or size, a path
    that leaves the skill's folder, a manifest over the limits, or a name that is no folder name.

    `skill` is the skill's name; `path` the file's path in the skill (None when the whole skill is at fault).
    """

    def __init__(self, skill: str, message: str, *, path: str | None = None) -> None:
        where = f"skill {skill!r}" + (f", file {path!r}" if path is not None else "")
        super().__init__(f"{where}: {message}")
        self.skill = skill
        self.path = path


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill's manifest: its path relative to the skill's folder (`SKILL.md` included)."""

    path: str
    uri: str
    size: int
    #: `sha256:<64 hex digits>`.
    digest: str


@dataclass(frozen=True)
class Skill:
    """A skill as `skills/list` describes it: `files` is its manifest, or "dynamic" when the server lists none."""

    name: str
    description: str
    uri: str
    #: The SKILL.md frontmatter as sent (name, description and the rest, verbatim).
    frontmatter: Mapping[str, Any]
    files: tuple[SkillFile, ...] | Literal["dynamic"]
    #: The entry as the server sent it.
    raw: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class SkillContent:
    """A skill with every file read and verified: `files` maps each relative path (`SKILL.md` included) to its
    bytes."""

    skill: Skill
    files: Mapping[str, bytes]

    @property
    def name(self) -> str:
        return self.skill.name

    @property
    def text(self) -> str:
        """The skill's `SKILL.md` as text."""
        return self.files[MAIN_FILE].decode("utf-8", errors="replace")


def parse_skill(entry: object) -> Skill:
    """A `skills/list` entry read and checked; raises ValueError (one line) when it is not a usable skill.

    Checked: a `skill://…/SKILL.md` URI, a name that is one folder name and the last folder of the URI, a
    description, and for a static manifest every file's path (inside the skill's folder), digest and size,
    no path twice, `SKILL.md` present, and the extension's limits.
    """
    if not isinstance(entry, Mapping):
        raise ValueError("not an object")
    data = cast("Mapping[str, Any]", entry)
    uri = data.get("uri")
    frontmatter = data.get("frontmatter")
    if not isinstance(uri, str) or not uri.endswith("/" + MAIN_FILE):
        raise ValueError(f"uri must name a {MAIN_FILE} resource")
    if not isinstance(frontmatter, Mapping):
        raise ValueError("frontmatter is not an object")
    name = cast("Mapping[str, Any]", frontmatter).get("name")
    description = cast("Mapping[str, Any]", frontmatter).get("description")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"name {name!r} is not a skill name (lowercase letters, digits and hyphens)"
        )
    if not isinstance(description, str):
        raise ValueError("frontmatter has no description")
    folder = _segments(urlsplit(uri).path)[:-1]
    last = folder[-1] if folder else unquote(urlsplit(uri).netloc)
    if last != name:
        raise ValueError(f"the name {name!r} is not the last folder of its uri {uri!r}")
    resources = data.get("resources")
    files: tuple[SkillFile, ...] | Literal["dynamic"]
    if resources == "dynamic":
        files = "dynamic"
    elif isinstance(resources, list):
        files = _manifest(uri, cast("list[object]", resources))
    else:
        raise ValueError('resources is neither a list nor "dynamic"')
    return Skill(
        name,
        description,
        uri,
        dict(cast("Mapping[str, Any]", frontmatter)),
        files,
        data,
    )


def _manifest(skill_uri: str, resources: list[object]) -> tuple[SkillFile, ...]:
    if len(resources) > MAX_SKILL_FILES:
        raise ValueError(
            f"lists {len(resources)} files; a skill may have at most {MAX_SKILL_FILES}"
        )
    files: dict[str, SkillFile] = {}
    for resource in resources:
        if not isinstance(resource, Mapping):
            raise ValueError("a resource is not an object")
        item = cast("Mapping[str, Any]", resource)
        uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
        if not isinstance(uri, str):
            raise ValueError("a resource has no uri")
        path = relative_path(skill_uri, uri)
        if not isinstance(digest, str) or not _DIGEST.match(digest):
            raise ValueError(f"file {path!r} has no sha256 digest")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"file {path!r} has no valid size")
        if path in files:
            raise ValueError(f"file {path!r} is listed twice")
        files[path] = SkillFile(path, uri, size, digest)
    if MAIN_FILE not in files:
        raise ValueError(f"the manifest does not list {MAIN_FILE}")
    total = sum(file.size for file in files.values())
    if total > MAX_SKILL_BYTES:
        raise ValueError(
            f"its files add up to {total} bytes; a skill may have at most {MAX_SKILL_BYTES}"
        )
    return tuple(sorted(files.values(), key=lambda file: file.path))


def _segments(path: str) -> list[str]:
    return path.split("/")[1:] if path.startswith("/") else path.split("/")


def relative_path(skill_uri: str, file_uri: str) -> str:
    """The path of `file_uri` inside the folder of the skill at `skill_uri`; ValueError for any file outside it.

    Refused before anything is read or written: another scheme or authority, a query or fragment, a path
    not under the skill's folder, and any segment (raw or percent-decoded) that is empty, `.` or `..`, holds
    a slash, a backslash or a NUL, or starts like a Windows drive (`C:`)."""
    skill, file = urlsplit(skill_uri), urlsplit(file_uri)
    if (
        (file.scheme.lower(), file.netloc) != (skill.scheme.lower(), skill.netloc)
        or file.query
        or file.fragment
    ):
        raise ValueError(f"file {file_uri!r} is not inside the skill's folder")
    folder = _segments(skill.path)[:-1]
    parts = _segments(file.path)
    if parts[: len(folder)] != folder or len(parts) == len(folder):
        raise ValueError(f"file {file_uri!r} is not inside the skill's folder")
    decoded: list[str] = []
    for raw in parts[len(folder) :]:
        segment = unquote(raw)
        for candidate in (raw, segment):
            if (
                candidate in ("", ".", "..")
                or any(c in candidate for c in "/\\\0")
                or _DRIVE.match(candidate)
            ):
                raise ValueError(
                    f"file {file_uri!r} has a path that leaves the skill's folder"
                )
        decoded.append(segment)
    return "/".join(decoded)


def file_bytes(contents: list[Any]) -> bytes:
    """The bytes of a `resources/read` answer holding one file (text as UTF-8, a blob base64-decoded)."""
    if len(contents) != 1:
        raise ValueError(f"the read answered {len(contents)} contents, not one file")
    item = contents[0]
    text = getattr(item, "text", None)
    if isinstance(text, str):
        return text.encode("utf-8")
    blob = getattr(item, "blob", None)
    if isinstance(blob, str):
        return base64.b64decode(blob, validate=True)
    raise ValueError("the read answered neither text nor a blob")


def verified_file(skill: str, file: SkillFile, content: bytes) -> bytes:
    """`content` when it has the size and digest the manifest promised for `file`, else SkillIntegrityError."""
    if len(content) != file.size:
        raise SkillIntegrityError(
            skill,
            f"the server sent {len(content)} bytes, its manifest promised {file.size}",
            path=file.path,
        )
    _check_digest(skill, file, hashlib.sha256(content))
    return content


def _check_digest(skill: str, file: SkillFile, sha: Any) -> None:
    if "sha256:" + sha.hexdigest() != file.digest:
        raise SkillIntegrityError(
            skill,
            "the bytes the server sent do not match the manifest's digest",
            path=file.path,
        )


def stream_file(
    skill: str, file: SkillFile, contents: list[Any], write: Callable[[bytes], object]
) -> None:
    """Hand the bytes of a `resources/read` answer for `file` to `write`, one chunk at a time, hashing them;
    SkillIntegrityError (after the chunks written so far) for an answer that is not one file, more bytes than
    the manifest's size (cut off there, judged before decoding where the answer's length tells), fewer, or
    other bytes than its digest."""
    if len(contents) != 1:
        raise SkillIntegrityError(
            skill,
            f"the read answered {len(contents)} contents, not one file",
            path=file.path,
        )
    sha = hashlib.sha256()
    sent = 0
    try:
        for piece in _pieces(contents[0], file.size):
            sent += len(piece)
            if sent > file.size:
                raise OverflowError
            sha.update(piece)
            write(piece)
    except OverflowError:
        raise SkillIntegrityError(
            skill,
            f"the server sent more than the {file.size} bytes its manifest promised",
            path=file.path,
        ) from None
    except (ValueError, binascii.Error) as error:  # UnicodeEncodeError included
        raise SkillIntegrityError(skill, str(error), path=file.path) from None
    if sent != file.size:
        raise SkillIntegrityError(
            skill,
            f"the server sent {sent} bytes, its manifest promised {file.size}",
            path=file.path,
        )
    _check_digest(skill, file, sha)


def _pieces(item: Any, size: int) -> Iterator[bytes]:
    """The bytes of one content item in chunks: text as UTF-8, a blob base64-decoded. OverflowError when its
    length alone shows more than `size` bytes (a character is at least one byte; 4 base64 characters are 3).
    """
    text = getattr(item, "text", None)
    if isinstance(text, str):
        if len(text) > size:
            raise OverflowError
        for start in range(0, len(text), CHUNK):
            yield text[start : start + CHUNK].encode("utf-8")
        return
    blob = getattr(item, "blob", None)
    if not isinstance(blob, str):
        raise ValueError("the read answered neither text nor a blob")
    if len(blob) % 4:
        raise ValueError("the blob is not base64 (its length is not a multiple of 4)")
    if len(blob) // 4 * 3 - len(blob[-2:]) + len(blob[-2:].rstrip("=")) > size:
        raise OverflowError
    step = CHUNK // 3 * 4  # whole groups of 4 characters: each chunk decodes alone
    for start in range(0, len(blob), step):
        yield base64.b64decode(blob[start : start + step], validate=True)


def frontmatter_mismatch(skill_md: bytes, frontmatter: Mapping[str, Any]) -> str | None:
    """Why `SKILL.md`'s own frontmatter disagrees with the entry's `frontmatter` (its `name` or `description`),
    or None when they agree."""
    for key in ("name", "description"):
        found = frontmatter_field(skill_md, key)
        if found is None and frontmatter_field(skill_md, "name") is None:
            return "SKILL.md has no frontmatter"
        if found != frontmatter.get(key):
            return f"SKILL.md's {key} {found!r} is not the entry's {frontmatter.get(key)!r}"
    return None


def frontmatter_field(skill_md: bytes | str, key: str) -> str | None:
    """A top-level scalar of `SKILL.md`'s frontmatter (`name`, `description`), read without a YAML library:
    plain, quoted, or a `>`/`|` block; None when there is no frontmatter or no such key.
    """
    text = (
        skill_md if isinstance(skill_md, str) else skill_md.decode("utf-8", "replace")
    )
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n") or "\n---" not in text[3:]:
        return None
    return _top_level_scalar(text[4 : text.index("\n---", 3)].split("\n"), key)


def _top_level_scalar(lines: list[str], key: str) -> str | None:
    for index, line in enumerate(lines):
        if not line.startswith(f"{key}:"):
            continue
        value = line[len(key) + 1 :].strip()
        if value[:1] in (">", "|"):  # a block scalar: the indented lines below
            body: list[str] = []
            for following in lines[index + 1 :]:
                if following and not following[:1].isspace():
                    break
                body.append(following.strip())
            joiner = " " if value.startswith(">") else "\n"
            return joiner.join(body).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            inner = value[1:-1]
            return (
                inner.replace("''", "'")
                if value[0] == "'"
                else inner.replace('\\"', '"')
            )
        return value.split(" #", 1)[0].strip()
    return None


def skill_fingerprint(entry: Mapping[str, Any]) -> str:
    """A short, stable hash of what a skill is (frontmatter and manifest: paths, sizes, digests), the same at
    generation (`specs.SKILLS`) and on connect (the drift check)."""
    resources: object = entry.get("resources")
    manifest: object = resources
    if isinstance(resources, list):
        rows: list[list[object]] = []
        for item in cast("list[object]", resources):
            if isinstance(item, Mapping):
                resource = cast("Mapping[str, object]", item)
                rows.append(
                    [resource.get("uri"), resource.get("digest"), resource.get("size")]
                )
        manifest = sorted(rows, key=lambda row: str(row[0]))
    canonical = json.dumps(
        [entry.get("frontmatter"), manifest],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
