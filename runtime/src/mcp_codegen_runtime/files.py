"""Writing a file atomically: the one writer of the runtime (tokens) and of the generator (packages, caches).

The data is staged under a unique sibling name (`.NAME.XXXXXXXX.tmp`, created 0600 by `mkstemp`), given
its mode, and renamed into place, so readers see the old file or the new one, never half of one, and any
number of writers may stage beside each other.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(
    path: Path,
    data: bytes,
    *,
    mode: int = 0o644,
    keep_existing: bool = False,
    durable: bool = False,
) -> bool:
    """Write `data` to `path` through a uniquely named staged sibling; whether `path` was written.

    `keep_existing`: never replace a file that is there (the staged file is linked into place, which
    fails when another writer got there first). `durable`: the data reaches the disk (fsync) before the
    rename. The staged file is removed whatever happens; an `OSError` reaches the caller.
    """
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        if not keep_existing:
            os.replace(temporary, path)
            return True
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        return True
    finally:
        Path(temporary).unlink(missing_ok=True)
