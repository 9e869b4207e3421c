"""Snapshot several servers at once: every `take_snapshot` in one task group, a failure kept as that server's result.

```python
results = await snapshot_many(launches, timeout=30, progress=live, diagnostics=per_server)
```

A failure never cancels the others: it is caught and kept as the server's result (a `CodegenError`,
normally the one-line `ServerError`; anything unexpected is wrapped in a `ServerError` naming its
type). Cancellation and Ctrl-C still stop everything (each stdio server is shut down by `connect`).

Progress messages, per server, are the single-server ones (`starting ...`, `connecting to ...`,
`connected to ...`, `listing tools`, `listing tools (page 2)`, ...), framed by `waiting` (queued
behind `limit`), `done in 1.2 s: 12 tools, 3 resources, 1 resource template, 2 prompts`, and
`failed: <the one-line reason>`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping

import anyio

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import CodegenError, ServerError, one_line
from mcp_codegen.inputs.launch import ServerLaunch
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen.wording import counts
from mcp_codegen_runtime.text import one_line as shortened_line

#: Per-server progress: (server name, message).
MultiProgress = Callable[[str, str], None]

WAITING = "waiting"
DONE = "done"
FAILED = "failed"
#: Servers snapshotted at the same time by default (each stdio server is a process; 2 cores are common).
DEFAULT_LIMIT = 8


async def snapshot_many(
    launches: Mapping[str, ServerLaunch],
    *,
    timeout: float = 30.0,
    progress: MultiProgress | None = None,
    diagnostics: dict[str, Diagnostics] | None = None,
    limit: int = DEFAULT_LIMIT,
    skip: Mapping[str, Collection[str]] | None = None,
) -> dict[str, Snapshot | Exception]:
    """Snapshot every server concurrently (at most `limit` at a time); results in the order of `launches`.

    `timeout` applies to each server as in `take_snapshot` (it starts when the server's turn comes).
    `diagnostics`, when given, receives each server's `Diagnostics` under its name (created if missing).
    `skip`: per server, the optional listings not to ask for (`take_snapshot`).
    """
    from mcp_codegen.snapshot.connect import _quiet_unconfigured_sdk_logging
    from mcp_codegen.snapshot.fetch import take_snapshot

    results: dict[str, Snapshot | Exception] = {}
    limiter = anyio.CapacityLimiter(max(1, limit))

    def say(name: str, message: str) -> None:
        if progress is not None:
            try:
                progress(name, message)
            except OSError:  # a closed stderr must not fail the snapshot
                pass

    async def one(name: str, launch: ServerLaunch) -> None:
        found = diagnostics.setdefault(name, Diagnostics()) if diagnostics is not None else Diagnostics()
        async with limiter:
            started = time.perf_counter()
            try:
                snapshot = await take_snapshot(
                    launch,
                    timeout=timeout,
                    diagnostics=found,
                    progress=lambda message: say(name, message),
                    skip=(skip or {}).get(name, ()),
                )
            except CodegenError as error:
                failure: Exception = error
            except Exception as error:  # a bug of ours or an unexpected SDK failure: still one line
                failure = ServerError(f"unexpected {error.__class__.__name__}: {shortened_line(str(error), 200)}")
                failure.__cause__ = error
            else:
                results[name] = snapshot
                say(name, f"{DONE} in {time.perf_counter() - started:.1f} s: {counts(snapshot)}")
                return
        results[name] = failure
        say(name, f"{FAILED}: {one_line(failure)}")

    for name in launches:
        say(name, WAITING)
    # The SDK loggers are muted once around all connections: `connect` mutes and restores them per
    # connection, which, nested concurrently, could restore a muted level for good.
    with _quiet_unconfigured_sdk_logging():
        async with anyio.create_task_group() as group:
            for name, launch in launches.items():
                group.start_soon(one, name, launch)
    return {name: results[name] for name in launches}


__all__ = ["DEFAULT_LIMIT", "DONE", "FAILED", "WAITING", "MultiProgress", "snapshot_many"]
