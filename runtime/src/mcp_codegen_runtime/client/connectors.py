"""Making a client: `stdio()`, `http()`, `connect()`, `in_process()` and `from_session()`."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Union,
    cast,
)

from ..calls.retries import DEFAULT_RETRIES, Retries, retries_setting
from ..calls.telemetry import Telemetry
from ..connection.attempt import in_process_attempt
from ..connection.cache import CacheSetting, evict_for_message, open_cache
from ..connection.http import http_attempts
from ..connection.launch import launch_attempts
from ..connection.session import AsyncConnection
from ..connection.stdio import StderrTarget, stdio_attempt
from ..recordings.plan import (
    TRANSPORT_TAP,
    RecordSettings,
    launch_secrets,
    plan_connection,
)
from ..server_requests import list_changed_kind, updated_resource
from .core import call_hook
from .server_features import ServerFeatures

if TYPE_CHECKING:
    from typing import Self

    import httpx2
    import mcp_types
    from mcp import Client, ClientSession
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    from ..recordings.replay import Replayer
    from ..server_requests import (
        ChangeHandler,
        ElicitationHandler,
        LogHandler,
        ResourceUpdatedHandler,
        RootLike,
        SamplingHandler,
        ServerRequests,
    )


#: What `client_info=` takes: `(name, version)` or the SDK's `mcp_types.Implementation`.
ClientInfo = Union[tuple[str, str], "mcp_types.Implementation"]


@functools.cache
def _installed_version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except (PackageNotFoundError, ValueError):
        return "0.0.0"


def server_requests_of(
    elicitation: ElicitationHandler | None,
    sampling: SamplingHandler | None,
    roots: Sequence[RootLike] | None,
    on_log: LogHandler | None,
) -> ServerRequests | None:
    if elicitation is None and sampling is None and roots is None and on_log is None:
        return None
    from ..server_requests import ServerRequests

    return ServerRequests(
        elicitation=elicitation, sampling=sampling, roots=roots, on_log=on_log
    )


def _recorded_url(launch: Mapping[str, Any] | None) -> str | None:
    """The URL of a recorded HTTP launch (the server's identity in a shared cache), or None."""
    url = launch.get("url") if launch is not None else None
    return url if isinstance(url, str) else None


class Connectors(ServerFeatures):
    """Making a client: `stdio()`, `http()`, `connect()`, `in_process()` and `from_session()`."""

    __slots__ = ()

    @classmethod
    def from_session(
        cls,
        session: Client | ClientSession,
        *,
        server_requests: ServerRequests | None = None,
    ) -> Self:
        """Wrap an initialized session (an entered `mcp.Client` or `ClientSession`); you keep its lifetime.

        To answer server requests, build the session with a `callbacks.ServerRequests`'s
        `sdk_options()` (`mcp.Client(server, **requests.sdk_options())`) and pass it here as
        `server_requests` (so `set_roots()` and `roots` work). Its requests go through the session
        without a response cache (the connectors' `cache=`): the notifications that would evict
        entries reach the session's own message handler, not this client.
        """
        client = cls(session)
        client._server_requests = server_requests
        return client

    @classmethod
    def _connection_for(
        cls,
        attempts: Callable[[], Sequence[Any]],
        timeout: float,
        *,
        drift_check: bool = True,
        strict: bool = False,
        client_info: ClientInfo | None = None,
        server_requests: ServerRequests | None = None,
        on_change: ChangeHandler | None = None,
        on_resource_updated: ResourceUpdatedHandler | None = None,
        cache: CacheSetting = True,
        cache_target: str | None = None,
        trace_content: bool = False,
        retries: int | Retries = 5,
        recording: RecordSettings | None = None,
        replayer: Replayer | None = None,
    ) -> AsyncConnection[Self]:
        made: list[Self] = []
        policy = retries_setting(retries) or DEFAULT_RETRIES
        response_cache = open_cache(
            cache,
            target=cache_target,
            negotiated_version=lambda: (
                made[0]._session.protocol_version if made else None
            ),
        )

        handshake = cls._handshake_options()

        def make_client(session: Any, connection: AsyncConnection[Self]) -> Self:
            client = cls(session)
            client._declares_tasks = "extensions" in handshake
            client._connection = connection
            client._lease = connection.lease
            client._server_requests = server_requests
            client._response_cache = response_cache
            client._telemetry = Telemetry(connection.peer, content=trace_content)
            client._retries = policy
            connection.on_close = client._connection_ended
            made.append(client)
            return client

        options: dict[str, Any] = {}
        if (
            on_change is not None
            or on_resource_updated is not None
            or response_cache is not None
        ):

            async def on_message(message: object) -> None:
                if response_cache is not None:  # evicted first: `on_change` lists again
                    await evict_for_message(response_cache, message)
                connection = made[0]._connection if made else None
                if connection is None:
                    return
                # Work a notification starts runs beside the session's receive loop, never in it.
                kind = list_changed_kind(message)
                if kind is not None and on_change is not None:
                    connection.spawn(made[0]._relist, kind, on_change)
                uri = updated_resource(message)
                if uri is not None and on_resource_updated is not None:
                    connection.spawn(call_hook, on_resource_updated, uri)

            options["message_handler"] = on_message

        async def guard(client: Self) -> object:
            return await client.check_drift(strict=strict)

        if replayer is None:  # `record=`, or the pytest plugin's recording of this test
            plan = plan_connection(cls._package(), recording)
            replayer = plan.replayer
            if plan.tap is not None:
                options[TRANSPORT_TAP] = plan.tap
            if plan.failure is not None:
                attempts = plan.failing_attempts
        connection_class: type[AsyncConnection[Self]] = AsyncConnection
        if replayer is not None:
            from ..recordings.replay import replaying

            attempts, connection_class = replaying(replayer, timeout)
        connection = connection_class(
            make_client,
            attempts,
            timeout=timeout,
            retries=policy,
            after_connect=(
                guard if drift_check and cls._tool_hashes is not None else None
            ),
            client_options={
                "client_info": cls._implementation(client_info),
                **(server_requests.sdk_options() if server_requests else {}),
                **options,
                **handshake,
            },
        )
        if replayer is not None:
            connection.replayer = replayer  # type: ignore[attr-defined]
        return connection

    @classmethod
    def _handshake_options(cls) -> dict[str, Any]:
        """Start with `server/discover` for a server that spoke 2026-07-28 (or newer) at generation: such a
        server may accept the legacy handshake too, and then gets neither per-request `_meta` nor the
        MCP-Protocol-Version header it expects. Others get the legacy handshake first (no 10 s probe).

        A package with tools the server runs as tasks of the 2026-07-28 extension, or of a 2026-07-28
        server that lists the extension among its capabilities, declares it (`TasksExtension`), and starts
        with `server/discover` when a tool runs only as a task although the snapshot was taken over the
        legacy handshake (see `_extension_tasks`).
        """
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        recorded = cls._protocol_version
        modern = recorded is not None and recorded in MODERN_PROTOCOL_VERSIONS
        task_tools = cls._extension_tasks(modern)
        options: dict[str, Any] = {}
        if task_tools or (modern and cls._lists_the_tasks_extension()):
            from ..calls.task_extension import TasksExtension

            options["extensions"] = [TasksExtension()]
        if (
            modern
        ):  # `skills/*` need the declaration; harmless to a server without skills
            from mcp.client.extension import advertise

            from ..calls.skills import SKILLS_EXTENSION

            options["extensions"] = [
                *options.get("extensions", ()),
                advertise(SKILLS_EXTENSION),
            ]
        if modern or "required" in task_tools.values():
            options["mode"] = "auto"
        return options

    @classmethod
    def _server_capabilities(cls) -> dict[str, Any]:
        """The server's capabilities as the snapshot recorded them ({} without tools or a record)."""
        spec = next(iter(cls._tools.values()), None)
        capabilities: object = spec.snapshot.data.get("capabilities") if spec else None
        return (
            cast("dict[str, Any]", capabilities)
            if isinstance(capabilities, dict)
            else {}
        )

    @classmethod
    def _lists_the_tasks_extension(cls) -> bool:
        """Whether the snapshot's server capabilities name the tasks extension (at 2026-07-28 a server need
        not list `taskSupport`: it decides per call which calls become tasks)."""
        from ..calls.task_extension import TASKS_EXTENSION

        extensions: object = cls._server_capabilities().get("extensions")
        return isinstance(extensions, dict) and TASKS_EXTENSION in extensions

    @classmethod
    def _extension_tasks(cls, modern: bool) -> dict[str, str]:
        """Tool name -> its `task_support` ("optional" or "required"), for the tools that run as tasks of the
        2026-07-28 extension: all of them in a 2026-07-28 snapshot; in a legacy one, only when the server
        declared no 2025-11-25 `tasks` capability, without which `taskSupport` means the extension (FastMCP
        with fastmcp-tasks lists such tools over both handshakes, and refuses a required one unless the
        request declares the extension)."""
        found: dict[str, str] = {
            spec.name: spec.task_support
            for spec in cls._tools.values()
            if spec.task_support != "forbidden"
        }
        if not found or modern:
            return found
        return {} if "tasks" in cls._server_capabilities() else found

    @classmethod
    def default_client_info(cls) -> tuple[str, str]:
        """The `(name, version)` sent as `clientInfo` at initialize unless `client_info=` is given.

        The generated package's name, and the version of the installed distribution of that
        name ("0.0.0" when the package is not installed as a distribution).
        """
        package = cls._package()
        return package, _installed_version(package)

    @classmethod
    def _package(cls) -> str:
        """The generated package the client class belongs to (`demo_client` for `demo_client.client`)."""
        return cls.__module__.rpartition(".")[0] or cls.__module__

    @classmethod
    def _stderr_target(cls, stderr: StderrTarget) -> StderrTarget:
        """`stderr`, or by default the logger `<package>.server` (one INFO record per line)."""
        return (
            logging.getLogger(f"{cls._package()}.server") if stderr is None else stderr
        )

    @classmethod
    def _implementation(
        cls, client_info: ClientInfo | None
    ) -> mcp_types.Implementation:
        import mcp_types

        if isinstance(client_info, mcp_types.Implementation):
            return client_info
        name, version = (
            cls.default_client_info() if client_info is None else client_info
        )
        return mcp_types.Implementation(name=name, version=version)

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        timeout: float = 60.0,
        drift_check: bool = True,
        strict: bool = False,
        stderr: StderrTarget = None,
        client_info: ClientInfo | None = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
        on_change: ChangeHandler | None = None,
        on_resource_updated: ResourceUpdatedHandler | None = None,
        cache: CacheSetting = True,
        trace_content: bool = False,
        retries: int | Retries = 5,
        record: str | os.PathLike[str] | None = None,
        redact: bool = True,
    ) -> AsyncConnection[Self]:
        """Start `command args...` and talk MCP over its stdin/stdout: `async with AsyncClient.stdio(...) as client:`.

        The child sees only a minimal environment (PATH, HOME, ...) plus `env`. `timeout` bounds the
        connect and is the default timeout of every request.

        On connect the live tools are compared with the snapshot this package was generated from: a
        removed tool or a changed schema logs one warning, or raises `SchemaDriftError` with
        `strict=True`; `drift_check=False` skips the comparison (and its `tools/list` request).

        `stderr` says where the server's stderr goes: None (default) to the logger
        `<package>.server`, one INFO record per line (silent unless logging shows INFO);
        `"inherit"` to this process's stderr; `"discard"`; a `logging.Logger`; or an open text
        or binary file. Its last lines appear in connect errors either way.

        `client_info` is the `(name, version)` (or an `mcp_types.Implementation`) sent at
        initialize; default: `default_client_info()`, this package's name.

        Server requests (see `server_requests`): `elicitation` answers `elicitation/create` (the
        handler gets an `ElicitationRequest`, returns `Accept(content)`, `Decline()` or
        `Cancel()`; accepted content is checked against the requested schema and its defaults
        are filled in), `sampling` answers `sampling/createMessage` (gets a `SamplingRequest`,
        returns text or a `Completion`), `roots` are the paths or `file://` URIs answered to
        `roots/list` (change them with `set_roots()`), `on_log` receives each `LogMessage`.
        `on_change` is called with a `ListChanged` after the server says its tools, resources or
        prompts changed (`notifications/*/list_changed`): the client has listed them again and,
        for tools, run the drift check on the new listing (a warning names what drifted).
        `on_resource_updated` receives the URI of each `notifications/resources/updated` (for the
        resources subscribed to with `client.resources.subscribe(uri)`).
        Only the capabilities given are advertised. Handlers may be plain functions (run on
        the event loop thread: keep them quick) or `async def`.

        `cache`: a 2026-07-28 server may say how long a listing or a resource read stays fresh
        (`ttlMs`); until then the answer is served from the response cache, and a
        `list_changed` or `resources/updated` notification (or `listen()` event) evicts it.
        True (default) keeps entries in memory for this connection; False turns the cache off;
        the SDK's `mcp.client.caching.CacheConfig` sets a store shared between clients
        (`partition`, and `target_id` for a server without a URL) or a `default_ttl_ms` for
        answers without a hint. `with_options(cache_mode="refresh" | "bypass")` skips it per
        call; the drift check always asks the server.

        Every request is traced when the application set an OpenTelemetry provider (a CLIENT
        span by the MCP conventions, nested under the current span, and the
        `mcp.client.operation.duration` metric; see the observability how-to). `trace_content=True`
        also records tool arguments and results and prompt variables on the spans (they may hold
        personal data, so they are left out by default).

        `retries`: a request that failed in transit (a dropped connection, HTTP 429/503, a server
        process that exited) is sent again with backoff, within its timeout, when it is safe: always
        if the server cannot have processed it, else only for reads, listings and tools marked
        `readOnlyHint` or `idempotentHint`. A number of retries (default 5; 0 turns retrying and
        reconnecting off) or a `Retries` (delays, and tools known to be safe or unsafe to repeat).
        A lost connection is opened again for the next request. See the "Failures and retries" page.

        `record`: a file the session is written to as it happens, one JSON-RPC message a line (mcporter's
        format; `replay()` answers from it). Secrets are replaced by named placeholders as it is
        written: header values and cookies, the values of the variables given to the server, and
        token-shaped strings anywhere; `redact=False` writes everything as sent.
        """
        args = tuple(args)
        return cls._connection_for(
            lambda: [
                stdio_attempt(
                    command,
                    args,
                    env=env,
                    cwd=cwd,
                    timeout=timeout,
                    stderr=cls._stderr_target(stderr),
                )
            ],
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=server_requests_of(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
            cache=cache,
            trace_content=trace_content,
            retries=retries,
            recording=RecordSettings(record, redact, lambda: (env or {}, {})),
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        transport: Literal["auto", "http", "sse"] = "auto",
        auth: httpx2.Auth | None = None,
        drift_check: bool = True,
        strict: bool = False,
        client_info: ClientInfo | None = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
        on_change: ChangeHandler | None = None,
        on_resource_updated: ResourceUpdatedHandler | None = None,
        cache: CacheSetting = True,
        trace_content: bool = False,
        retries: int | Retries = 5,
        record: str | os.PathLike[str] | None = None,
        redact: bool = True,
    ) -> AsyncConnection[Self]:
        """Connect over streamable HTTP (`"http"`), legacy SSE (`"sse"`) or the first that works (`"auto"`).

        `auth` is any `httpx2.Auth` applied to every request: `auth.oauth(url)` (log in when
        needed), `auth.stored(url)` (the token `mcp-codegen auth login` stored),
        `auth.client_credentials(url, client_id=..., client_secret=...)`, or the SDK's providers.
        A request the server refuses after connecting (say, expired credentials) raises
        `HttpStatusError` with the HTTP status and the names of the headers sent.
        `drift_check`, `strict`, `client_info`, the server-request handlers
        (`elicitation`, `sampling`, `roots`, `on_log`), `cache`, `trace_content`, `retries`,
        `record` and `redact`: see `stdio()`.
        """
        return cls._connection_for(
            lambda: http_attempts(
                url, headers=headers, timeout=timeout, transport=transport, auth=auth
            ),
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=server_requests_of(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
            cache=cache,
            cache_target=url,
            trace_content=trace_content,
            retries=retries,
            recording=RecordSettings(record, redact, lambda: ({}, headers or {})),
        )

    @classmethod
    def connect(
        cls,
        *,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        auth: httpx2.Auth | None = None,
        dpop: bool | None = None,
        drift_check: bool = True,
        strict: bool = False,
        stderr: StderrTarget = None,
        client_info: ClientInfo | None = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
        on_change: ChangeHandler | None = None,
        on_resource_updated: ResourceUpdatedHandler | None = None,
        cache: CacheSetting = True,
        trace_content: bool = False,
        retries: int | Retries = 5,
        record: str | os.PathLike[str] | None = None,
        redact: bool = True,
    ) -> AsyncConnection[Self]:
        """Reach the server this client was generated from, reading recorded secrets from the environment.

        Environment variables named at generation are passed to a stdio server when set; header
        templates such as `Bearer ${TOKEN}` are expanded from `os.environ` (a missing variable is a
        `ConnectError`). `env=` and `headers=` add to or override what was recorded.
        An HTTP server generated with `--auth` uses the token `mcp-codegen auth login` stored
        (or client credentials, the secret read from the recorded environment variable); one
        that answers 401 with a Bearer challenge uses the stored token for its URL. Without
        one, `AuthRequiredError` names the login command. `auth=` overrides all of this.
        `dpop`: DPoP-bound tokens (RFC 9449) for that auth: True always, False never, None
        (default) as recorded with `--dpop/--no-dpop`, else when the authorization server
        offers it (`auth=` builders take their own `dpop=`).
        `drift_check`, `strict`, `stderr` (a stdio server's), `client_info`, the
        server-request handlers (`elicitation`, `sampling`, `roots`, `on_log`), `cache`,
        `trace_content`, `retries`, `record` and `redact`: see `stdio()`.
        """
        launch = cls._launch
        return cls._connection_for(
            lambda: launch_attempts(
                launch,
                env=env,
                headers=headers,
                timeout=timeout,
                stderr=cls._stderr_target(stderr),
                auth=auth,
                dpop=dpop,
            ),
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=server_requests_of(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
            cache=cache,
            cache_target=_recorded_url(launch),
            trace_content=trace_content,
            retries=retries,
            recording=RecordSettings(
                record, redact, lambda: launch_secrets(launch, env, headers)
            ),
        )

    @classmethod
    def in_process(
        cls,
        server: Server[Any] | MCPServer,
        *,
        timeout: float = 60.0,
        drift_check: bool = True,
        strict: bool = False,
        client_info: ClientInfo | None = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
        on_change: ChangeHandler | None = None,
        on_resource_updated: ResourceUpdatedHandler | None = None,
        cache: CacheSetting = True,
        trace_content: bool = False,
        retries: int | Retries = 5,
        record: str | os.PathLike[str] | None = None,
        redact: bool = True,
    ) -> AsyncConnection[Self]:
        """Talk to a server object in this process (tests, embedding): `async with AsyncClient.in_process(srv)`.

        `drift_check`, `strict`, `client_info`, the server-request handlers, `cache`,
        `trace_content`, `retries`, `record` and `redact`: see `stdio()`.
        """
        return cls._connection_for(
            lambda: [in_process_attempt(server, timeout=timeout)],
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=server_requests_of(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
            cache=cache,
            trace_content=trace_content,
            retries=retries,
            recording=RecordSettings(record, redact),
        )
