"""The user's cache of generation results: marshal entries by content hash, bounded; any failure only costs time.

It lives in `$MCP_CODEGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/mcp-codegen`, else `~/.cache/mcp-codegen`, with
one folder per kind of result (`models/`, `model-keys/`, `prepared/`, `tool-ir/`, `formatted/`,
`formatted-pieces-*/`, `snapshot-items/`, `snapshot-texts/`, `default-fits/`) holding a folder per fingerprint of what makes the results (the generator's
code, the formatter's version): a result of another fingerprint never matches again, so those folders are
removed. Results made per tool are kept as one entry per server (`ServerResults`): creating a file costs about
what making one of them does; a run that made only a few adds them to the server's small entry of recent results
instead of writing the whole one again. Each kind keeps at most `MAX_ENTRIES` entries, the least recently used removed
first. `MCP_CODEGEN_NO_CACHE=1` turns the cache off. An unreadable, corrupt or unwritable cache is a miss,
never an error.

An entry (dicts, lists, strings, numbers, booleans, None) is a `marshal` file, `<key>` and `SUFFIX`
(`.cpython-311.marshal`). A regeneration of ms-365 (344 tools) after two tools changed reads 15 MB of entries in
~24 ms (read, decoded, checked), where their 17 MB of JSON took ~62 ms; a cold run writes them all in ~45 ms
instead of ~115 ms (encoding ~12 ms instead of ~90 ms). Marshal runs no code on load (unlike pickle), and the
cache is the user's own directory, written atomically. Its format is the interpreter's own, hence the cache tag in
the name: two Pythons sharing the directory never read (nor prune) each other's entries. A file that is not an
entry (garbage, truncated, another shape) is a miss.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: At most this many results of one kind are kept (a few KB each).
MAX_ENTRIES = 20_000
#: The interpreter's tag (`cpython-311`): marshal's format is its own (one without a tag names its version).
_TAG = sys.implementation.cache_tag or f"{sys.implementation.name}-{sys.version_info[0]}{sys.version_info[1]}"
#: The suffix of an entry's file, `<key>.cpython-311.marshal`: another Python's entries are neither read nor pruned.
SUFFIX = f".{_TAG}.marshal"


def encode_entry(entry: Any) -> bytes:
    """An entry file's bytes (raises ValueError for what marshal cannot encode, or nests too deeply)."""
    return marshal.dumps(entry)


def read_entry(path: Path) -> Any:
    """The value of the entry file at `path`; ValueError when its bytes are no marshal data (garbage, truncated),
    OSError when it cannot be read. Which value it holds is for the caller to check."""
    try:
        return marshal.loads(path.read_bytes())
    except (EOFError, TypeError) as error:  # what marshal also raises on bad data
        raise ValueError(f"{path}: not a cache entry ({error})") from error


def value_digest(value: Any) -> str:
    """A digest of plain data (dicts, lists, strings, numbers, booleans, None) by value and dict order, for keys.

    Marshal's version 0 writes every value whole (no references to objects met before, no interned strings), so
    equal data gives equal bytes whatever objects it shares, at a quarter of compact JSON's cost (ms-365's 2 MB of
    schemas: ~10 ms against ~40 ms); data marshal cannot write (or nested too deeply) is encoded as JSON."""
    try:
        data = marshal.dumps(value, 0)
    except ValueError:
        import json

        data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()


def cache_root() -> Path:
    """The user's cache directory for mcp-codegen."""
    explicit = os.environ.get("MCP_CODEGEN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcp-codegen"


def has_results(kind: str, fingerprint: str) -> bool:
    """Whether the cache holds `kind` results made under `fingerprint` by this Python (cheap: one directory looked
    at)."""
    if os.environ.get("MCP_CODEGEN_NO_CACHE"):
        return False
    try:
        return any(path.name.endswith(SUFFIX) for path in (cache_root() / kind / fingerprint[:20]).iterdir())
    except (OSError, RuntimeError):
        return False


class ResultCache:
    """The results of one kind made under one fingerprint; `valid` tells an entry this version wrote."""

    def __init__(self, directory: Path, valid: Callable[[dict[str, Any]], bool]) -> None:
        self.directory = directory
        self.valid = valid
        self.written = 0

    @classmethod
    def open(cls, kind: str, fingerprint: str, valid: Callable[[dict[str, Any]], bool]) -> ResultCache | None:
        """The cache of `kind` results for `fingerprint`, or None when it is off or cannot be used."""
        if os.environ.get("MCP_CODEGEN_NO_CACHE"):
            return None
        try:
            base = cache_root() / kind
            directory = base / fingerprint[:20]
            directory.mkdir(parents=True, exist_ok=True)
            for other in base.iterdir():  # results of another fingerprint never match again
                if other != directory and other.is_dir():
                    shutil.rmtree(other, ignore_errors=True)
        except (OSError, RuntimeError):  # RuntimeError: no home directory
            return None
        return cls(directory, valid) if os.access(directory, os.W_OK) else None

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}{SUFFIX}"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            entry = read_entry(path)
            os.utime(path)  # recently used: kept longest
        except (OSError, ValueError):
            return None
        try:
            return entry if isinstance(entry, dict) and self.valid(entry) else None
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        from mcp_codegen_runtime.files import write_atomically  # light: the runtime package imports its names on use

        try:
            write_atomically(self._path(key), encode_entry(entry))
            self.written += 1
        except (OSError, ValueError):  # ValueError: not marshallable (never made here); not kept, as unwritable
            pass

    def remove(self, key: str) -> None:
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError:
            pass

    def prune(self) -> None:
        """Keep the `MAX_ENTRIES` most recently used results (only after this run wrote some)."""
        if not self.written:
            return
        try:
            entries = list(self.directory.glob(f"*{SUFFIX}"))
            if len(entries) <= MAX_ENTRIES:
                return
            entries.sort(key=lambda path: path.stat().st_mtime)
            for path in entries[: len(entries) - MAX_ENTRIES]:
                path.unlink(missing_ok=True)
        except OSError:
            return


#: A server's whole entry is written again once one of this many of its results is new; until then the new ones
#: go to its small `recent` entry (rewriting the whole, ~3 ms for ms-365's 3 MB of models and ~6 ms for its 5 MB of
#: IR, 15-50 ms when entries were JSON, costs what making several of them again does).
REWRITE_SHARE = 16
#: The name of a server's entry of recent results is the whole entry's with this suffix.
RECENT = "-recent"


class ServerResults:
    """Per-tool results of one kind for one server, kept as a single entry of a `ResultCache` (one file to read),
    and the results made since it was last written in a second, small one (`RECENT`): a run writes the few it
    made, never the whole entry again for them, until they are one in `rewrite_share`. Creating a file costs
    0.1-0.6 ms (0.3-0.6 ms on the development machine's disk), about what making one of these results does: a
    file per tool cost a cold run of 171 tools ~0.3 s."""

    #: Bumped when the entry's layout changes.
    FORMAT = 1

    def __init__(
        self, cache: ResultCache, name: str, valid: Callable[[dict[str, Any]], bool], rewrite_share: int
    ) -> None:
        self.cache = cache
        self.name = name
        self.valid = valid
        self.rewrite_share = rewrite_share
        entry = cache.get(name)
        recent = cache.get(name + RECENT)
        #: The results of the recent entry (a corrupt one is no results: a miss, never an error).
        self.recent: dict[str, Any] = recent["results"] if recent is not None else {}
        self.known: dict[str, Any] = {**(entry["results"] if entry is not None else {}), **self.recent}
        #: The results this run used or made: what is written back (so the entry holds the server's tools only).
        self.used: dict[str, Any] = {}
        #: The keys of the results this run made.
        self.fresh: set[str] = set()

    @property
    def made(self) -> int:
        return len(self.fresh)

    @classmethod
    def open(
        cls,
        kind: str,
        fingerprint: str,
        server_name: str,
        valid: Callable[[dict[str, Any]], bool],
        *,
        rewrite_share: int = REWRITE_SHARE,
    ) -> ServerResults | None:
        """The `kind` results of `server_name`'s tools (None when the cache is off or cannot be used); `valid`
        tells one tool's result this version wrote (it may also raise: a miss). The whole entry is written again
        once one result in `rewrite_share` is new (`close`)."""
        cache = ResultCache.open(kind, fingerprint, _valid_server_entry)
        if cache is None:
            return None
        return cls(cache, hashlib.sha256(server_name.encode()).hexdigest(), valid, rewrite_share)

    def get(self, key: str) -> dict[str, Any] | None:
        result = self.known.get(key)
        try:
            return result if isinstance(result, dict) and self.valid(result) else None
        except (KeyError, TypeError, ValueError, AttributeError):  # a corrupt result is a miss
            return None

    def use(self, key: str, result: dict[str, Any], *, made: bool) -> None:
        self.used[key] = result
        if made:
            self.fresh.add(key)

    def close(self) -> None:
        """Keep what this run made: with the recent results still used, in the recent entry (small); once those
        are one in `rewrite_share` of the results used, the whole entry is written again and the recent one
        removed."""
        if not self.fresh:
            return
        recent = {key: result for key, result in self.used.items() if key in self.fresh or key in self.recent}
        if len(recent) * self.rewrite_share >= len(self.used):
            self.cache.put(self.name, {"format": self.FORMAT, "results": self.used})
            self.cache.remove(self.name + RECENT)
        else:
            self.cache.put(self.name + RECENT, {"format": self.FORMAT, "results": recent})
        self.cache.prune()


def _valid_server_entry(entry: dict[str, Any]) -> bool:
    """A server's entry this version wrote (its results are checked one by one, as they are used)."""
    return entry.get("format") == ServerResults.FORMAT and isinstance(entry["results"], dict)
