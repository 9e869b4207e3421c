"""Where token records are kept: the `TokenBackend` protocol, the user-only file and OS keyring backends, the refresh lock.

A `TokenStore` (`store`) keeps one server's record (tokens, expiry, client registration, DPoP key) as one JSON
text in a `TokenBackend`, under a key (the normalised server URL). The two backends here keep it on this
machine: `FileBackend` in a 0600 file, `KeyringBackend` in the OS keyring. Both lock changes and refreshes
with `RefreshLock`, an OS file lock on a permanent `.lock` file beside the record, which orders the processes of
one machine.
A store shared across machines (Redis, a database) is a class of your own meeting `TokenBackend`. Nothing here
logs or formats a record: it holds secrets.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib
import logging
import os
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from ..calls.errors import ConnectError
from ..files import write_atomically

try:
    import fcntl
except ImportError:  # Windows: msvcrt.locking, see _try_lock_descriptor
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "FileBackend",
    "KeyringBackend",
    "RefreshLock",
    "TokenBackend",
    "keyring_module",
    "record_file",
]

logger = logging.getLogger(__name__)

_SERVICE = "mcp-codegen"
#: How long a waiter for `RefreshLock` pauses between tries: doubling from the first to the longest.
_FIRST_PAUSE = 0.01
_LONGEST_PAUSE = 0.25
_HELD_ERRNOS = frozenset(
    {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, getattr(errno, "EDEADLOCK", -1)}
)


@runtime_checkable
class TokenBackend(Protocol):
    """Where `TokenStore` keeps its records, and the lock that orders their refreshes.

    `key` is the server's normalised URL (no secrets). A record is a JSON text holding secrets (the tokens,
    a client secret, a DPoP private key): keep it where only its owner can read it, never log it.

    - `load(key)`: the text last saved under `key`, or None when nothing is.
    - `save(key, record)`: replace the record whole; a reader sees the old text or the new one, never a mix.
    - `delete(key)`: forget the record; True when one was stored.
    - `lock(key)`: an async context manager held while one process changes the record under `key` (a read,
      change and write) or refreshes its token. While it is held, no other holder of `lock(key)`, in this
      process or any other sharing the store, may enter it: they wait. It must be released when the holder
      leaves it and also when the holder dies (an OS file lock is; a lock with a lease must outlive a token
      request, a minute or so). A waiter may be cancelled. The store also locks `key + "#login"` (a key no
      URL has) through an interactive login, so a second process waits for the first one's token instead of
      opening a browser too (a lease shorter than the login lets it log in as well). `load`, `save` and
      `delete` are called on the event loop's thread: keep them short.
    """

    def load(self, key: str) -> str | None: ...

    def save(self, key: str, record: str) -> None: ...

    def delete(self, key: str) -> bool: ...

    def lock(self, key: str) -> AbstractAsyncContextManager[object]: ...


def record_file(directory: Path, key: str) -> Path:
    """The file of `key`'s record (or its keyring index entry) in `directory`: a hash of the key."""
    return directory / (hashlib.sha256(key.encode("utf-8")).hexdigest()[:32] + ".json")


def _try_lock_descriptor(descriptor: int) -> bool:
    """Take the OS lock on `descriptor` if no other holder has it; False at once otherwise."""
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            msvcrt: Any = importlib.import_module("msvcrt")
            os.lseek(descriptor, 0, os.SEEK_SET)
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
    except (
        OSError
    ) as error:  # EWOULDBLOCK / EAGAIN (POSIX), EACCES / EDEADLOCK (Windows)
        if error.errno in _HELD_ERRNOS:
            return False
        raise
    return True


def _unlock_descriptor(descriptor: int) -> None:
    if fcntl is not None:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return
    msvcrt: Any = importlib.import_module("msvcrt")
    os.lseek(descriptor, 0, os.SEEK_SET)
    msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)


class RefreshLock:
    """An exclusive lock between processes on a permanent sidecar file (0600), held while the record is changed.

    Refresh tokens may be valid once (rotation): two processes refreshing one stored token at once would
    both send it, and the server would refuse the second or revoke them both; two read-modify-writes of one
    record at once would lose one. `fcntl.flock` on POSIX, `msvcrt.locking` on Windows: the OS releases it
    when its process dies. The file is never removed (`FileBackend.delete` keeps it): a lock on a removed
    file would exclude no one who opens the path afresh. Each `RefreshLock` opens the file itself, so two
    in one process exclude each other too. `async with` tries the lock without blocking and, while another
    holder has it, tries again after a growing pause (no thread), so a waiter can be cancelled at once.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._descriptor: int | None = None

    def _open(self) -> int:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)

    def try_acquire(self) -> bool:
        """Take the lock if no other holder has it; False (at once) when one has."""
        if self._descriptor is not None:
            return True
        descriptor = self._open()
        try:
            taken = _try_lock_descriptor(descriptor)
        except BaseException:
            os.close(descriptor)
            raise
        if not taken:
            os.close(descriptor)
            return False
        self._descriptor = descriptor
        return True

    def release(self) -> None:
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            with contextlib.suppress(OSError):
                _unlock_descriptor(descriptor)
            os.close(descriptor)

    async def __aenter__(self) -> RefreshLock:
        import anyio

        pause = _FIRST_PAUSE
        while not self.try_acquire():
            if pause == _FIRST_PAUSE:
                logger.debug("waiting for %s, which another holder has", self.path.name)
            await anyio.sleep(pause)  # a cancellation ends the wait here
            pause = min(pause * 2, _LONGEST_PAUSE)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically and durably, readable by the user alone from the first byte."""
    directory = path.parent
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(directory, 0o700)
    write_atomically(path, text.encode("utf-8"), mode=0o600, durable=True)


class FileBackend:
    """Records in JSON files readable by the user alone (0600, in a 0700 `directory`), named by a hash of the key."""

    name = "file"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __repr__(self) -> str:
        return f"FileBackend({str(self.directory)!r})"

    def path(self, key: str) -> Path:
        return record_file(self.directory, key)

    def load(self, key: str) -> str | None:
        try:
            return self.path(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as error:
            logger.warning("cannot read the token file for %s: %s", key, error.strerror)
            return None

    def save(self, key: str, record: str) -> None:
        _write_private(self.path(key), record)

    def delete(self, key: str) -> bool:
        path = self.path(key)  # the lock file stays: another process may hold it
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    def lock(self, key: str) -> RefreshLock:
        return RefreshLock(self.path(key).with_suffix(".lock"))


def keyring_module() -> Any | None:
    """The `keyring` module when it is installed and has a backend that can store secrets."""
    try:  # imported by name: `keyring` is optional and mypy must not need its stubs
        keyring = importlib.import_module("keyring")
        fail = importlib.import_module("keyring.backends.fail")
    except Exception:  # not installed, or broken: the file backend is used
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring):
        return None
    if type(backend).__name__ == "ChainerBackend" and not getattr(
        backend, "backends", None
    ):
        return None
    return keyring


class KeyringBackend(FileBackend):
    """Records in the OS keyring (service `mcp-codegen`, user name = the key), with a non-secret index file per
    key in `directory` (the key only), so stored servers can be listed (a keyring cannot), and the lock file.
    """

    name = "keyring"

    def __repr__(self) -> str:
        return f"KeyringBackend({str(self.directory)!r})"

    def load(self, key: str) -> str | None:
        keyring = keyring_module()
        if keyring is None:
            return None
        try:
            return keyring.get_password(_SERVICE, key)  # type: ignore[no-any-return]
        except Exception as error:  # a locked or broken keyring reads as nothing stored
            logger.warning(
                "cannot read the keyring for %s: %s", key, type(error).__name__
            )
            return None

    def save(self, key: str, record: str) -> None:
        import json

        keyring = keyring_module()
        if keyring is None:
            raise ConnectError("the keyring is not usable any more")
        keyring.set_password(_SERVICE, key, record)
        index = {"format": 1, "url": key, "backend": "keyring"}
        _write_private(self.path(key), json.dumps(index, indent=2) + "\n")

    def delete(self, key: str) -> bool:
        found = False
        keyring = keyring_module()
        if keyring is not None:
            try:
                keyring.delete_password(_SERVICE, key)
                found = True
            except Exception:  # keyring.errors.PasswordDeleteError: nothing stored
                pass
        return super().delete(key) or found
