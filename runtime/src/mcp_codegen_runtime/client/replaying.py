"""`replay()`: a connected client answered from a recorded session, with no server and no process."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..calls.errors import ConnectError
from .connectors import ClientInfo, Connectors, server_requests_of

if TYPE_CHECKING:
    from typing import Self

    from ..connection.session import AsyncConnection
    from ..recordings.envelope import RecordedSession
    from ..server_requests import (
        ChangeHandler,
        ElicitationHandler,
        LogHandler,
        ResourceUpdatedHandler,
        RootLike,
        SamplingHandler,
    )


class Replaying(Connectors):
    """`replay()`: a connected client answered from a recorded session, with no server and no process."""

    __slots__ = ()

    @classmethod
    def replay(
        cls,
        path: str | os.PathLike[str],
        *,
        server: str | None = None,
        lenient: bool = False,
        ignore_arguments: Sequence[str] = (),
        timeout: float = 60.0,
        drift_check: bool = False,
        strict: bool = False,
        client_info: ClientInfo | None = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
        on_change: ChangeHandler | None = None,
        on_resource_updated: ResourceUpdatedHandler | None = None,
    ) -> AsyncConnection[Self]:
        """Answer from a recording instead of a server: `async with AsyncClient.replay("session.ndjson") as client:`.

        The file is one a connector's `record=` wrote, the pytest plugin's, or mcporter's
        (`mcporter record`). The handshake and the listings are answered from it whatever this
        client sends; each other request (`tools/call`, `resources/read`, `prompts/get`, ...) must
        be the next recorded one, with the same method and deeply equal params (a tool's name and
        arguments), and gets its recorded answer. A request the recording does not have raises
        `ReplayMismatchError`, naming it and the request the recording expected next; leaving the
        `async with` with recorded requests never sent raises `ReplayMismatchError` too. What the
        server sent around an answer (progress, log messages, list changes, its own requests) is
        sent again at its place.

        `server`: which server's session to replay when the file holds several (by the recorded
        `_meta.server`; default: this package's, else the first). `lenient=True` matches requests
        in any order; `ignore_arguments` names argument keys left out of the comparison at any
        depth (timestamps, request ids). `drift_check` (off: a recording need not list the tools),
        `strict`, `client_info` and the server-request handlers: see `stdio()`.
        """
        from ..recordings.envelope import RecordingFormatError, read_recording
        from ..recordings.replay import Replayer

        try:
            sessions = read_recording(path)
        except RecordingFormatError as error:
            raise ConnectError(f"cannot replay: {error}") from None
        session = _chosen(sessions, server, cls._package(), os.fspath(path))
        replayer = Replayer(
            session,
            source=os.fspath(path),
            lenient=lenient,
            ignore_arguments=ignore_arguments,
        )
        return cls._connection_for(
            lambda: [],
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=server_requests_of(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
            cache=False,
            retries=0,
            replayer=replayer,
        )


def _chosen(
    sessions: list[RecordedSession], server: str | None, package: str, path: str
) -> RecordedSession:
    """The session to replay: `server`'s, else the package's, else the first."""
    if not sessions:
        raise ConnectError(f"cannot replay: {path} holds no recorded session")
    if server is None:
        return next((s for s in sessions if s.server == package), sessions[0])
    found = next((s for s in sessions if s.server == server), None)
    if found is None:
        names = ", ".join(sorted({repr(s.server) for s in sessions}))
        raise ConnectError(
            f"cannot replay: {path} has no session of server {server!r} (it has {names})"
        )
    return found
