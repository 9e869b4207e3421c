"""The async client base the generated `AsyncClient` extends with one typed method per tool."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType, TracebackType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Literal,
    NoReturn,
    TypeVar,
    Union,
    cast,
)

from pydantic import ValidationError

from ..calls.errors import (
    ArgumentsValidationError,
    ConnectionClosedError,
    McpClientError,
    ResultValidationError,
    ServerRequestError,
    ToolError,
    UnknownToolError,
    translate_error,
    unwrap_exception_group,
)
from ..calls.input_required import resolve_input_required, speaks_multi_round
from ..calls.options import (
    CallOptions,
    ProgressCallback,
    merge_options,
    send_with_options,
)
from ..calls.results import PromptResult, ResourceResult, ToolResult
from ..calls.sentinel import NOT_SENT
from ..calls.uri import expand_uri_template
from ..connection.session import (
    AsyncConnection,
    StderrTarget,
    http_attempts,
    in_process_attempt,
    launch_attempts,
    stdio_attempt,
)
from ..server_requests import ListChanged, list_changed_kind, updated_resource

if TYPE_CHECKING:
    from typing import Self

    import httpx2
    import mcp_types
    from mcp import Client, ClientSession
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

    from ..agents.protocols import ToolCaller
    from ..agents.tool import AgentTool
    from ..agents.toolset import ToolSet
    from ..calls.drift import DriftSummary
    from ..calls.specs import PromptSpec, ResourceSpec, TemplateSpec, ToolSpec
    from ..calls.tracing import CallHook
    from ..server_requests import (
        ChangeHandler,
        ChangeKind,
        ElicitationHandler,
        LogHandler,
        LogLevel,
        ResourceUpdatedHandler,
        RootLike,
        SamplingHandler,
        ServerRequests,
    )

__all__ = [
    "AsyncClientBase",
    "AsyncPromptsBase",
    "AsyncResourcesBase",
    "prompt_arguments",
    "template_uri",
]

R = TypeVar("R")
_log = logging.getLogger(__name__)
_PageT = TypeVar("_PageT", bound="BaseModel")
_ItemT = TypeVar("_ItemT")

_MAX_PAGES = 10_000

_mcp_types: ModuleType | None = None


def _types() -> ModuleType:
    """`mcp_types`, imported on first use (importing it costs ~0.25 s)."""
    global _mcp_types
    module = _mcp_types
    if module is None:
        import mcp_types

        module = _mcp_types = mcp_types
    return module


#: What `client_info=` takes: `(name, version)` or the SDK's `mcp_types.Implementation`.
ClientInfo = Union[tuple[str, str], "mcp_types.Implementation"]


@functools.cache
def _installed_version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except (PackageNotFoundError, ValueError):
        return "0.0.0"


def _raise(
    error: Exception, *, method: str, uri: str | None = None, prompt: str | None = None
) -> NoReturn:
    context: dict[str, str] = {"method": method}
    if uri is not None:
        context["uri"] = uri
    if prompt is not None:
        context["prompt"] = prompt
    translated = translate_error(error, **context)
    if translated is error:
        raise error
    if isinstance(translated, McpClientError):
        raise translated from None
    raise translated


def _error(kind: str, location: str, message: str, value: object) -> ErrorDetails:
    return {"type": kind, "loc": (location,), "msg": message, "input": value}


def _structured_from_text(raw: mcp_types.CallToolResult, unwrap: bool) -> object:
    """Structured content for a result without `structuredContent`: the first text block parsed as JSON."""
    import json

    text = next((block.text for block in raw.content if block.type == "text"), None)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return {"result": text} if unwrap else None
    parsed = cast(object, value)
    if unwrap and not _has_result_key(parsed):
        return {"result": parsed}
    return parsed


def _server_requests(
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


async def _call_hook(hook: Callable[[Any], object], value: object) -> None:
    try:
        result = hook(value)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - a failing hook must not end the connection
        _log.exception("a notification handler failed")


def _session_gone(explained: BaseException | None) -> bool:
    """Whether an HTTP server answered 404 for the session: it expired, or the server restarted."""
    return getattr(explained, "status", None) == 404


def _closed_under_us(error: BaseException) -> bool:
    """Whether a request failed because the connection closed (the SDK's CONNECTION_CLOSED error)."""
    return getattr(unwrap_exception_group(error), "code", None) == -32000


def _has_result_key(value: object) -> bool:
    return isinstance(value, dict) and "result" in value


class AsyncClientBase:
    """An MCP client session with typed calls; the generated `AsyncClient` adds one method per tool.

    Create one with `stdio()`, `http()` or `connect()` (async context managers that own the
    connection) or wrap a session you manage with `from_session()`. Calls may run concurrently.
    `with_options()` gives a view of the same client whose calls use per-call options.
    """

    # `_call_options` lives outside `__dict__`: a `with_options()` view shares the client's
    # `__dict__` (session, closed state, hooks) and differs only in this slot.
    __slots__ = ("__dict__", "__weakref__", "_call_options")

    #: Wire tool name -> spec (the generated class sets it).
    _tools: ClassVar[Mapping[str, ToolSpec[Any, Any]]] = {}
    #: The prompts and resource templates the package was generated for (agent tools use them).
    _prompts: ClassVar[Mapping[str, PromptSpec]] = {}
    _templates: ClassVar[Mapping[str, TemplateSpec]] = {}
    #: The launch recorded at generation time (secret-free JSON), or None.
    _launch: ClassVar[Mapping[str, Any] | None] = None
    #: Wire tool name -> hash of its schemas at generation (`specs.TOOL_HASHES`), for the drift guard.
    _tool_hashes: ClassVar[Mapping[str, str] | None] = None
    #: Prefix of the tool names agents see (`--tool-prefix`; the generated class may set it).
    _tool_prefix: ClassVar[str] = ""
    #: `on_call` observers; empty (the class default) until one is added, so plain calls pay one check.
    _call_hooks: tuple[CallHook, ...] = ()
    #: Agent tools handed out by `tools()`, by the name the model sees (for the `handle_*` methods).
    _agent_tools: dict[str, AgentTool] | None = None
    #: The handlers of server requests given at connect (`elicitation=`, `roots=`, ...), or None.
    _server_requests: ServerRequests | None = None
    #: Why the connection closed under the last failed request (e.g. the server's exit code), or None.
    _closed_detail: str | None = None

    def __init__(self, session: Client | ClientSession) -> None:
        inner: Any = session
        if not hasattr(inner, "send_request"):
            inner = inner.session  # an entered mcp.Client
        self._session: ClientSession = inner
        self._call_options: CallOptions | None = None
        self._closed_reason: str | None = None
        self._connection: AsyncConnection[Any] | None = None

    # ------------------------------------------------------------------------------- construction

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
        `server_requests` (so `set_roots()` and `roots` work).
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
    ) -> AsyncConnection[Self]:
        made: list[Self] = []

        def make_client(session: Any, connection: AsyncConnection[Self]) -> Self:
            client = cls(session)
            client._connection = connection
            client._server_requests = server_requests
            connection.on_close = client._mark_closed
            made.append(client)
            return client

        options: dict[str, Any] = {}
        if on_change is not None or on_resource_updated is not None:

            async def on_message(message: object) -> None:
                connection = made[0]._connection if made else None
                if connection is None:
                    return
                # Work a notification starts runs beside the session's receive loop, never in it.
                kind = list_changed_kind(message)
                if kind is not None and on_change is not None:
                    connection.spawn(made[0]._relist, kind, on_change)
                uri = updated_resource(message)
                if uri is not None and on_resource_updated is not None:
                    connection.spawn(_call_hook, on_resource_updated, uri)

            options["message_handler"] = on_message

        async def guard(client: Self) -> object:
            return await client.check_drift(strict=strict)

        return AsyncConnection(
            make_client,
            attempts,
            timeout=timeout,
            after_connect=(
                guard if drift_check and cls._tool_hashes is not None else None
            ),
            client_options={
                "client_info": cls._implementation(client_info),
                **(server_requests.sdk_options() if server_requests else {}),
                **options,
            },
        )

    @classmethod
    def default_client_info(cls) -> tuple[str, str]:
        """The `(name, version)` sent as `clientInfo` at initialize unless `client_info=` is given.

        The generated package's name, and the version of the installed distribution of that
        name ("0.0.0" when the package is not installed as a distribution).
        """
        package = __name__.rpartition("._runtime")[0]  # <package>._runtime.client
        if (
            not package
        ):  # the runtime used in place (mcp_codegen.runtime): the class's package
            package = cls.__module__.rpartition(".")[0] or cls.__module__
        return package, _installed_version(package)

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
    ) -> AsyncConnection[Self]:
        """Start `command args...` and talk MCP over its stdin/stdout: `async with AsyncClient.stdio(...) as client:`.

        The child sees only a minimal environment (PATH, HOME, ...) plus `env`. `timeout` bounds the
        connect and is the default timeout of every request.

        On connect the live tools are compared with the snapshot this package was generated from: a
        removed tool or a changed schema logs one warning, or raises `SchemaDriftError` with
        `strict=True`; `drift_check=False` skips the comparison (and its `tools/list` request).

        `stderr` says where the server's stderr goes: None (default) to this process's stderr,
        `"discard"`, a `logging.Logger` (one INFO record per line) or an open text or binary file.
        Its last lines appear in connect errors either way.

        `client_info` is the `(name, version)` (or an `mcp_types.Implementation`) sent at
        initialize; default: `default_client_info()`, this package's name.

        Server requests (see `callbacks`): `elicitation` answers `elicitation/create` (the
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
        """
        args = tuple(args)
        return cls._connection_for(
            lambda: [
                stdio_attempt(
                    command, args, env=env, cwd=cwd, timeout=timeout, stderr=stderr
                )
            ],
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=_server_requests(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
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
    ) -> AsyncConnection[Self]:
        """Connect over streamable HTTP (`"http"`), legacy SSE (`"sse"`) or the first that works (`"auto"`).

        `auth` is any `httpx2.Auth` applied to every request: `auth.oauth(url)` (log in when
        needed), `auth.stored(url)` (the token `mcp-codegen auth login` stored),
        `auth.client_credentials(url, client_id=..., client_secret=...)`, or the SDK's providers.
        A request the server refuses after connecting (say, expired credentials) raises
        `HttpStatusError` with the HTTP status and the names of the headers sent.
        `drift_check`, `strict`, `client_info` and the server-request handlers
        (`elicitation`, `sampling`, `roots`, `on_log`): see `stdio()`.
        """
        return cls._connection_for(
            lambda: http_attempts(
                url, headers=headers, timeout=timeout, transport=transport, auth=auth
            ),
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=_server_requests(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
        )

    @classmethod
    def connect(
        cls,
        *,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        auth: httpx2.Auth | None = None,
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
    ) -> AsyncConnection[Self]:
        """Reach the server this client was generated from, reading recorded secrets from the environment.

        Environment variables named at generation are passed to a stdio server when set; header
        templates such as `Bearer ${TOKEN}` are expanded from `os.environ` (a missing variable is a
        `ConnectError`). `env=` and `headers=` add to or override what was recorded.
        An HTTP server generated with `--auth` uses the token `mcp-codegen auth login` stored
        (or client credentials, the secret read from the recorded environment variable); one
        that answers 401 with a Bearer challenge uses the stored token for its URL. Without
        one, `AuthRequiredError` names the login command. `auth=` overrides all of this.
        `drift_check`, `strict`, `stderr` (a stdio server's), `client_info` and the
        server-request handlers (`elicitation`, `sampling`, `roots`, `on_log`): see `stdio()`.
        """
        launch = cls._launch
        return cls._connection_for(
            lambda: launch_attempts(
                launch,
                env=env,
                headers=headers,
                timeout=timeout,
                stderr=stderr,
                auth=auth,
            ),
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=_server_requests(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
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
    ) -> AsyncConnection[Self]:
        """Talk to a server object in this process (tests, embedding): `async with AsyncClient.in_process(srv)`.

        `drift_check`, `strict`, `client_info` and the server-request handlers: see `stdio()`.
        """
        return cls._connection_for(
            lambda: [in_process_attempt(server, timeout=timeout)],
            timeout,
            drift_check=drift_check,
            strict=strict,
            client_info=client_info,
            server_requests=_server_requests(elicitation, sampling, roots, on_log),
            on_change=on_change,
            on_resource_updated=on_resource_updated,
        )

    # ------------------------------------------------------------------------------ per-call options

    def with_options(
        self,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        reset_timeout_on_progress: bool | None = None,
        max_timeout: float | None = None,
    ) -> Self:
        """A view of this client whose requests use these options: `await client.with_options(timeout=5).add(a=1, b=2)`.

        The view shares the session, the closed state and the `on_call` observers; it is cheap
        to make per call. Options left out (None) keep the value of the client it is made from,
        so views chain. They apply to every request of the view: typed tool methods, `call()`,
        `call_raw()`, `prompts`, `resources`, `read_resource()`, `get_prompt()`, listings and
        agent tools from `view.tools()`.

        - `timeout`: seconds to wait for each response; overrides the connector's `timeout=`.
          A method's own `timeout=` argument overrides it in turn.
        - `on_progress(progress, total, message)`: called for each progress notification the
          server sends for the request (a function or a coroutine function; it runs on the
          client's event loop, so it should not block). Setting it asks the server for progress.
        - `reset_timeout_on_progress`: restart the `timeout` at each progress notification, so
          a long operation that keeps reporting progress is not cut off.
        - `max_timeout`: an absolute limit in seconds from sending the request, progress or not.

        When a timeout passes, the server is sent `notifications/cancelled` for the request and
        `RequestTimeoutError` is raised; cancelling the awaiting task sends the same notification.
        """
        view = object.__new__(type(self))
        view.__dict__ = self.__dict__  # the same dict object: state stays shared
        view._call_options = merge_options(
            self._call_options,
            timeout=timeout,
            on_progress=on_progress,
            reset_timeout_on_progress=reset_timeout_on_progress,
            max_timeout=max_timeout,
        )
        return view

    # --------------------------------------------------------------------------------- lifecycle

    def _mark_closed(self, reason: str) -> None:
        if self._closed_reason is None:
            self._closed_reason = reason

    def _closed_error(self) -> ConnectionClosedError:
        return ConnectionClosedError(self._closed_reason or "the connection is closed")

    @property
    def session(self) -> ClientSession:
        """The SDK's `ClientSession`, for anything this client does not wrap."""
        return self._session

    @property
    def server_info(self) -> mcp_types.Implementation | None:
        return self._session.server_info

    @property
    def protocol_version(self) -> str | None:
        return self._session.protocol_version

    @property
    def instructions(self) -> str | None:
        return self._session.instructions

    @property
    def closed(self) -> bool:
        return self._closed_reason is not None

    async def aclose(self) -> None:
        """Close a connection opened by `stdio()`/`http()`/`connect()`; later calls raise ConnectionClosedError.

        A client made by `from_session()` is only marked closed: the session is yours to close.
        """
        self._mark_closed("the client was closed")
        connection = self._connection
        if connection is not None:
            await connection.aclose()

    async def close(self) -> None:
        """Same as `aclose()`."""
        await self.aclose()

    async def reconnect(self) -> None:
        """Connect again the way this client connected (a stdio server is started again; an HTTP
        server gets a new session), after the server exited, restarted or dropped the session.

        Calls in flight on the old session fail with `ConnectionClosedError` (never replayed); later
        calls use the new session, as do `with_options()` views. The drift guard runs again.
        Raises `ConnectError` when the server cannot be reached (the client stays closed), and
        RuntimeError for a client made by `from_session()` (its session is yours).
        """
        connection = self._connection
        if connection is None:
            raise RuntimeError(
                "a client made by from_session() cannot reconnect: open a new session"
            )
        self._mark_closed("the client is reconnecting")
        self._session = await connection.reconnect()
        self._closed_reason = None
        guard = connection.after_connect
        if guard is not None:
            await guard(self)

    # ------------------------------------------------------------------------ server requests

    async def set_roots(self, roots: Sequence[RootLike]) -> None:
        """Replace the roots offered to the server and notify it (`notifications/roots/list_changed`).

        Paths become absolute `file://` URIs. Needs a client connected with `roots=` (an empty
        list offers roots without any yet); otherwise raises RuntimeError.
        """
        requests = self._server_requests
        if requests is None:
            raise RuntimeError(
                "this client does not offer roots; connect with roots=[...] (may be empty)"
            )
        if self._closed_reason is not None:
            raise self._closed_error()
        try:
            await requests.set_roots(self._session, roots)
        except RuntimeError:
            raise
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            self._after_failure(error, method="notifications/roots/list_changed")

    @property
    def roots(self) -> tuple[str, ...] | None:
        """The URIs of the roots offered to the server, or None when roots are not offered."""
        requests = self._server_requests
        offered = requests.roots if requests is not None else None
        return None if offered is None else tuple(root.uri for root in offered)

    async def set_log_level(
        self, level: LogLevel, *, timeout: float | None = None
    ) -> None:
        """Ask the server to send log messages at `level` and above (`logging/setLevel`).

        The messages reach the `on_log=` handler. Logging is deprecated in MCP 2026-07-28 but
        still what servers speaking 2025-11-25 and older use.
        """
        types = _types()
        request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
        await self._request(
            request, types.EmptyResult, method="logging/setLevel", timeout=timeout
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        info = self._session.server_info if self._closed_reason is None else None
        server = f" server={info.name!r}" if info is not None else ""
        state = " closed" if self._closed_reason is not None else ""
        return f"<{type(self).__name__}{server}{state}>"

    # ------------------------------------------------------------------------------------ requests

    async def _request(
        self,
        request: Any,
        result_type: type[_PageT],
        *,
        method: str,
        timeout: float | None = None,
        uri: str | None = None,
        prompt: str | None = None,
    ) -> _PageT:
        if self._closed_reason is not None:
            raise self._closed_error()
        try:
            return await self._send(request, result_type, timeout, method)
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            self._after_failure(error, method=method, uri=uri, prompt=prompt)

    async def _send(
        self,
        request: Any,
        result_type: type[_PageT],
        timeout: float | None,
        method: str,
    ) -> _PageT:
        """Send a request with this view's options, answering a 2026-07-28 server's requests for input."""
        try:
            return await self._send_answered(request, result_type, timeout, method)
        except Exception as error:
            connection = self._connection
            if connection is None:
                raise
            if _closed_under_us(error):
                self._closed_detail = await connection.closed_detail()
                raise
            if not _session_gone(connection.explain(error, method)):
                raise
        # The HTTP server no longer knows the session (it expired, or the server restarted): the
        # request never reached a handler, so it is sent once more, on a new session.
        await self.reconnect()
        return await self._send_answered(request, result_type, timeout, method)

    async def _send_answered(
        self,
        request: Any,
        result_type: type[_PageT],
        timeout: float | None,
        method: str,
    ) -> _PageT:
        session = self._session
        if speaks_multi_round(session):
            send = functools.partial(self._send_once, timeout=timeout, method=method)
            return await resolve_input_required(session, request, result_type, send)
        sent: _PageT = await self._send_once(
            request, result_type, timeout=timeout, method=method
        )
        return sent

    async def _send_once(
        self, request: Any, result_type: Any, *, timeout: float | None, method: str
    ) -> Any:
        """One request and its answer: the SDK's own timeout, or this view's `with_options()`."""
        options = self._call_options
        if options is not None:
            return await send_with_options(
                self._session,
                request,
                result_type,
                options,
                timeout,
                what=f"{method} request",
            )
        return await self._session.send_request(
            request, result_type, request_read_timeout_seconds=timeout
        )

    def _after_failure(
        self,
        error: Exception,
        *,
        method: str,
        uri: str | None = None,
        prompt: str | None = None,
    ) -> NoReturn:
        connection = self._connection
        if connection is not None:
            better = connection.explain(error, method)
            if better is not None:
                raise better from None
        try:
            _raise(error, method=method, uri=uri, prompt=prompt)
        except ConnectionClosedError as closed:
            detail, self._closed_detail = self._closed_detail, None
            if detail is None:
                self._mark_closed(str(closed))
                raise
            self._mark_closed(detail)
            raise ConnectionClosedError(detail) from None

    async def _call_tool(
        self,
        spec: ToolSpec[Any, R],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> R:
        """Validate `arguments` (Python field names; NOT_SENT values left out), call the tool, type the result."""
        if self._call_hooks:
            return await self._observed(
                spec.name,
                arguments,
                lambda: self._call_tool_now(spec, arguments, timeout=timeout),
            )
        return await self._call_tool_now(spec, arguments, timeout=timeout)

    async def _call_tool_now(
        self,
        spec: ToolSpec[Any, R],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> R:
        raw = await self._send_tool_call(spec, arguments, timeout)
        return cast(R, self._tool_outcome(spec, raw))

    async def _send_tool_call(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        timeout: float | None,
    ) -> mcp_types.CallToolResult:
        """Validate `arguments` with the tool's model (NOT_SENT values left out) and send `tools/call`."""
        if self._closed_reason is not None:
            raise self._closed_error()
        values = {
            key: value for key, value in arguments.items() if value is not NOT_SENT
        }
        try:
            model = spec.arguments_model.model_validate(values)
        except ValidationError as error:
            raise ArgumentsValidationError(
                error.errors(include_url=False), tool=spec.name
            ) from error
        payload = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
        types = _types()
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=spec.name, arguments=payload)
        )
        try:
            return await self._send(
                request, types.CallToolResult, timeout, "tools/call"
            )
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            self._after_failure(error, method="tools/call")

    def _tool_outcome(
        self, spec: ToolSpec[Any, Any], raw: mcp_types.CallToolResult
    ) -> object:
        if raw.is_error:
            raise ToolError(ToolResult(raw), tool=spec.name)
        result_model = spec.result_model
        if result_model is None:
            return ToolResult(raw)
        structured: object = raw.structured_content
        if structured is None:
            structured = _structured_from_text(raw, spec.unwrap_result)
            if structured is None:
                raise ResultValidationError(
                    [],
                    tool=spec.name,
                    result=ToolResult(raw),
                    reason="the result has no structured content",
                )
        try:
            validated: BaseModel = result_model.model_validate(structured)
        except ValidationError as error:
            raise ResultValidationError(
                error.errors(include_url=False), tool=spec.name, result=ToolResult(raw)
            ) from None
        if spec.unwrap_result:
            field = spec.result_field
            if field is not None:
                return getattr(validated, field)
        return validated

    def _tool_spec(self, name: str) -> ToolSpec[Any, Any]:
        tools = self._tools
        spec = tools.get(name)
        if spec is not None:
            return spec
        for candidate in tools.values():
            if candidate.python_name == name:
                return candidate
        import difflib

        choices = [*tools, *(candidate.python_name for candidate in tools.values())]
        raise UnknownToolError(
            name, list(dict.fromkeys(difflib.get_close_matches(name, choices, n=3)))
        )

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Call a tool by wire (or Python) name; `arguments` may use wire or Python field names.

        Returns what the typed method returns: the result model, the unwrapped value, or a ToolResult.
        """
        return await self._call_tool(
            self._tool_spec(name), arguments or {}, timeout=timeout
        )

    async def call_raw(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """Call any tool (even one this client was not generated with) without validation.

        The result is returned as is, also when `is_error` is set.
        """
        values = {
            key: value
            for key, value in (arguments or {}).items()
            if value is not NOT_SENT
        }
        if self._call_hooks:
            return await self._observed(
                name,
                values,
                lambda: self._call_raw_now(name, values, timeout),
                source="raw",
            )
        return await self._call_raw_now(name, values, timeout)

    async def _call_raw_now(
        self, name: str, values: dict[str, Any], timeout: float | None
    ) -> ToolResult:
        types = _types()
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=name, arguments=values)
        )
        raw = await self._request(
            request, types.CallToolResult, method="tools/call", timeout=timeout
        )
        return ToolResult(raw)

    # ------------------------------------------------------------------------------ observing calls

    def on_call(self, callback: CallHook) -> Callable[[], None]:
        """Call `callback(ToolCall)` after every tool call (typed, `call()`, `call_raw()`, agent adapters).

        The `ToolCall` carries the wire name, the arguments, the result or the error and the
        duration. `callback` may be a coroutine function (it is awaited, on the client's loop);
        its exceptions are logged, never raised. Returns a function that removes the callback.
        `TraceRecorder().attach(client)` keeps every call and renders a transcript.
        """
        self._call_hooks = (*self._call_hooks, callback)

        def remove() -> None:
            self._call_hooks = tuple(
                hook for hook in self._call_hooks if hook is not callback
            )

        return remove

    async def _observed(
        self,
        tool: str,
        arguments: Mapping[str, object],
        call: Callable[[], Awaitable[R]],
        *,
        source: str = "client",
        agent_name: str | None = None,
        framework: str | None = None,
    ) -> R:
        from ..calls.tracing import observed

        values = {
            key: value for key, value in arguments.items() if value is not NOT_SENT
        }
        return await observed(
            self._call_hooks,
            tool,
            values,
            call,
            source=source,
            agent_name=agent_name,
            framework=framework,
        )

    # --------------------------------------------------------------------------------- agent tools

    async def call_spec(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> Any:
        """Internal (`protocols.ToolCaller`, for agent tools): the typed call of `spec`."""
        return await self._call_tool(spec, arguments, timeout=timeout)

    async def call_spec_result(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
        agent_name: str | None = None,
        framework: str | None = None,
    ) -> ToolResult:
        """Internal (`protocols.ToolCaller`): validate `arguments` like `_call_tool`, call the tool
        and return the whole `ToolResult`.

        What agent tool adapters use: the model gets every content block and the structured
        content as sent. Raises ToolError for a result with `isError`.
        """
        if self._call_hooks:
            return await self._observed(
                spec.name,
                arguments,
                lambda: self._call_tool_result_now(spec, arguments, timeout),
                source="agent",
                agent_name=agent_name,
                framework=framework,
            )
        return await self._call_tool_result_now(spec, arguments, timeout)

    async def _call_tool_result_now(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        timeout: float | None,
    ) -> ToolResult:
        raw = await self._send_tool_call(spec, arguments, timeout)
        if raw.is_error:
            raise ToolError(ToolResult(raw), tool=spec.name)
        return ToolResult(raw)

    def tools(
        self,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        *,
        prefix: str | None = None,
        namespace: str | bool | None = None,
        timeout: float | None = None,
        descriptions: Mapping[str, str] | None = None,
        resources: bool = False,
        prompts: bool = False,
    ) -> ToolSet:
        """This client's tools as framework-neutral agent tools, bound to this client.

        `resources=True` adds `list_resources`, `read_resource` and one `read_<template>` tool
        per resource template; `prompts=True` one `prompt_<prompt>` tool per prompt (see
        `agent_extras`); `include`/`exclude` select server tools only.

        `include`/`exclude`: glob patterns (`fnmatch`, e.g. `"get_*"`) on wire or Python names.
        `prefix` is prepended to every name the model sees (default: the `--tool-prefix` chosen at
        generation); `namespace=True` names them `mcp__<server>__<tool>` (the server's name), a
        string uses that string as `<server>`. Names are valid for OpenAI and Anthropic (at most
        64 characters of `[a-zA-Z0-9_-]`) and distinct. `timeout` bounds every call (seconds);
        `descriptions` replaces descriptions by wire name. See `agent_toolset.ToolSet`.
        """
        toolset = type(self).toolset_for(
            self,
            include,
            exclude,
            prefix=prefix,
            namespace=self._namespace(namespace),
            timeout=timeout,
            descriptions=descriptions,
            resources=resources,
            prompts=prompts,
        )
        self._register_agent_tools(toolset.values())
        return toolset

    @classmethod
    def toolset_for(
        cls,
        caller: ToolCaller,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        *,
        prefix: str | None = None,
        namespace: str | None = None,
        timeout: float | None = None,
        descriptions: Mapping[str, str] | None = None,
        resources: bool = False,
        prompts: bool = False,
    ) -> ToolSet:
        """`tools()` of this client class, bound to `caller` (a client, or a stand-in that connects
        on first use: a lazy `Toolkit`); built from the package's specs, no connection needed.
        """
        # Imported on first use: plain calls do not need the agent modules.
        from ..agents.extras import extra_specs
        from ..agents.toolset import make_toolset

        extras = extra_specs(
            templates=cls._templates.values(),
            prompts=cls._prompts.values(),
            resources=resources,
            with_prompts=prompts,
        )
        return make_toolset(
            cls._tools.values(),
            client=caller,
            include=include,
            exclude=exclude,
            prefix=cls._tool_prefix if prefix is None else prefix,
            namespace=namespace,
            timeout=timeout,
            descriptions=descriptions,
            extras=extras,
        )

    @property
    def tool_specs(self) -> Mapping[str, ToolSpec[Any, Any]]:
        """The specs of this client's tools by wire name (the generated package's `TOOLS`)."""
        return self._tools

    def _register_agent_tools(self, tools: Iterable[AgentTool]) -> None:
        registry = self._agent_tools
        if registry is None:
            registry = self._agent_tools = {}
        for tool in tools:
            registry[tool.name] = tool

    def _namespace(self, namespace: str | bool | None) -> str | None:
        if namespace is None or namespace is False:
            return None
        if isinstance(namespace, str):
            return namespace
        for spec in self._tools.values():
            name = spec.snapshot.server_info.get("name")
            if isinstance(name, str) and name:
                return name
            break
        info = self._session.server_info
        return info.name if info is not None else "server"

    def _agent_tool(self, name: str) -> AgentTool | None:
        """The agent tool a model called `name`: from `tools()`, else by wire or Python name."""
        registry = self._agent_tools
        if registry is not None:
            tool = registry.get(name)
            if tool is not None:
                return tool
        spec = self._tools.get(name)
        if spec is None:
            spec = next(
                (s for s in self._tools.values() if s.python_name == name), None
            )
        if spec is None:
            return None
        from ..agents.tool import AgentTool

        return AgentTool(spec, client=self)

    async def handle_openai_tool_calls(
        self, tool_calls: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the tool calls of one OpenAI Chat Completions message, concurrently.

        `tool_calls` is `message.tool_calls` (SDK objects or dicts). Returns one
        `{"role": "tool", "tool_call_id": ..., "content": ...}` message per call, in order, to
        append to the conversation. Failures (unknown tool, invalid arguments, `isError`, a
        timeout) become the content of their message, prefixed `Error:`; nothing is raised
        but a lost connection.
        """
        from ..agents.frameworks.openai import handle_openai_tool_calls

        return await handle_openai_tool_calls(self._agent_tool, tool_calls, timeout)

    async def handle_openai_responses_calls(
        self, output: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the `function_call` items of an OpenAI Responses API `response.output`, concurrently.

        Returns one `{"type": "function_call_output", "call_id": ..., "output": ...}` input
        item per call (other items are skipped); failures become their output, prefixed `Error:`.
        """
        from ..agents.frameworks.openai import handle_openai_responses_calls

        return await handle_openai_responses_calls(self._agent_tool, output, timeout)

    async def handle_anthropic_tool_use(
        self, content: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run every `tool_use` block of an Anthropic Messages API `message.content`, concurrently.

        Returns the `tool_result` blocks (in order) for the next user message: text blocks,
        images as image blocks, failures with `is_error: true`.
        """
        from ..agents.frameworks.anthropic import handle_anthropic_tool_use

        return await handle_anthropic_tool_use(self._agent_tool, content, timeout)

    # -------------------------------------------------------------------------------------- listings

    async def _list_all(
        self,
        method: str,
        request_class: Any,
        result_class: type[_PageT],
        items: Callable[[_PageT], Sequence[_ItemT]],
    ) -> list[_ItemT]:
        types = _types()
        found: list[_ItemT] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            params = (
                types.PaginatedRequestParams(cursor=cursor)
                if cursor is not None
                else None
            )
            page = await self._request(
                request_class(params=params), result_class, method=method
            )
            found.extend(items(page))
            cursor = getattr(page, "next_cursor", None)
            if not cursor or cursor in seen:
                break
            seen.add(cursor)
        return found

    async def ping(self, *, timeout: float | None = None) -> None:
        """Check that the server answers (MCP `ping`); raises `RequestTimeoutError` after `timeout` s."""
        types = _types()
        await self._request(
            types.PingRequest(), types.EmptyResult, method="ping", timeout=timeout
        )

    async def check_drift(self, *, strict: bool = False) -> DriftSummary | None:
        """Compare the server's tools now with the snapshot this client was generated from: what connecting
        does unless `drift_check=False` (and what a `from_session` client never does by itself).

        Logs one warning naming what drifted, or raises `SchemaDriftError` when `strict`. None when the
        listing could not be read (or the package carries no hashes)."""
        expected = type(self)._tool_hashes
        if expected is None:
            return None
        from ..calls.drift import check_drift

        return await check_drift(
            self._session, expected, strict=strict, explain=self._translated
        )

    async def subscribe_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> None:
        """Ask for `notifications/resources/updated` about `uri` (they reach `on_resource_updated=`).

        Raises `ServerRequestError` when the server does not offer subscriptions."""
        self._require_subscriptions()
        types = _types()
        request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        await self._request(
            request,
            types.EmptyResult,
            method="resources/subscribe",
            timeout=timeout,
            uri=uri,
        )

    async def unsubscribe_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> None:
        """Stop the updates `subscribe_resource(uri)` asked for."""
        self._require_subscriptions()
        types = _types()
        request = types.UnsubscribeRequest(
            params=types.UnsubscribeRequestParams(uri=uri)
        )
        await self._request(
            request,
            types.EmptyResult,
            method="resources/unsubscribe",
            timeout=timeout,
            uri=uri,
        )

    def _require_subscriptions(self) -> None:
        capabilities = self._session.server_capabilities
        resources = capabilities.resources if capabilities is not None else None
        if resources is None or not resources.subscribe:
            raise ServerRequestError(
                -32601,
                "the server does not offer resource subscriptions (capabilities.resources.subscribe)",
                None,
                method="resources/subscribe",
            )

    async def _relist(self, kind: ChangeKind, hook: ChangeHandler) -> None:
        """After `notifications/<kind>/list_changed`: list again, check tools for drift, call `hook`."""
        drift: DriftSummary | None = None
        try:
            items: tuple[Any, ...]
            if kind == "tools":
                items = tuple(await self.list_tools())
                drift = await self.check_drift(strict=False)
            elif kind == "resources":
                items = (
                    *await self.list_resources(),
                    *await self.list_resource_templates(),
                )
            else:
                items = tuple(await self.list_prompts())
            result = hook(ListChanged(kind, items, drift))
            if inspect.isawaitable(result):
                await result
        except Exception:  # noqa: BLE001 - a failing hook must not end the connection
            _log.exception("the on_change handler failed after %s/list_changed", kind)

    def _translated(self, error: Exception, method: str | None) -> BaseException:
        """What a request's failure is raised as (see `_after_failure`), without raising it."""
        connection = self._connection
        better = connection.explain(error, method) if connection is not None else None
        return better if better is not None else translate_error(error, method=method)

    async def list_tools(self) -> list[mcp_types.Tool]:
        """Every tool the server lists now (all pages)."""
        types = _types()
        return await self._list_all(
            "tools/list",
            types.ListToolsRequest,
            types.ListToolsResult,
            lambda page: page.tools,
        )

    async def list_resources(self) -> list[mcp_types.Resource]:
        types = _types()
        return await self._list_all(
            "resources/list",
            types.ListResourcesRequest,
            types.ListResourcesResult,
            lambda page: page.resources,
        )

    async def list_resource_templates(self) -> list[mcp_types.ResourceTemplate]:
        types = _types()
        return await self._list_all(
            "resources/templates/list",
            types.ListResourceTemplatesRequest,
            types.ListResourceTemplatesResult,
            lambda page: page.resource_templates,
        )

    async def list_prompts(self) -> list[mcp_types.Prompt]:
        types = _types()
        return await self._list_all(
            "prompts/list",
            types.ListPromptsRequest,
            types.ListPromptsResult,
            lambda page: page.prompts,
        )

    # ------------------------------------------------------------------------- resources and prompts

    async def read_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> ResourceResult:
        """Read a resource by URI; a server error becomes a ResourceError."""
        types = _types()
        request = types.ReadResourceRequest(
            params=types.ReadResourceRequestParams(uri=uri)
        )
        raw = await self._request(
            request,
            types.ReadResourceResult,
            method="resources/read",
            timeout=timeout,
            uri=uri,
        )
        return ResourceResult(raw)

    async def _read_template(
        self,
        spec: TemplateSpec,
        values: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> ResourceResult:
        """Expand the template with `values` (Python or wire variable names) and read the resource."""
        return await self.read_resource(template_uri(spec, values), timeout=timeout)

    async def _read(
        self, spec: ResourceSpec, *, timeout: float | None = None
    ) -> ResourceResult:
        return await self.read_resource(spec.uri, timeout=timeout)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        """Render a prompt; a server error (unknown prompt, missing argument) becomes a PromptError."""
        types = _types()
        request = types.GetPromptRequest(
            params=types.GetPromptRequestParams(
                name=name, arguments=dict(arguments) if arguments else None
            )
        )
        raw = await self._request(
            request,
            types.GetPromptResult,
            method="prompts/get",
            timeout=timeout,
            prompt=name,
        )
        return PromptResult(raw)

    async def _get_prompt(
        self,
        spec: PromptSpec,
        values: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        """Render `spec` with `values` keyed by Python (or wire) argument names; NOT_SENT values are left out."""
        return await self.get_prompt(
            spec.name, prompt_arguments(spec, values), timeout=timeout
        )


def template_uri(spec: TemplateSpec, values: Mapping[str, object]) -> str:
    """The URI of `spec` expanded with `values` (Python or wire variable names; NOT_SENT/None left out)."""
    variables: dict[str, str | Sequence[str]] = {}
    errors: list[ErrorDetails] = []
    known: set[str] = set()
    for wire, python in spec.variables:
        known.update((wire, python))
        value = values.get(python, NOT_SENT)
        if value is NOT_SENT:
            value = values.get(wire, NOT_SENT)
        if value is NOT_SENT or value is None:
            continue
        converted = _template_value(value)
        if converted is None:
            errors.append(
                _error("string_type", python, "Input should be a valid string", value)
            )
        else:
            variables[wire] = converted
    for key, value in values.items():
        if key not in known and value is not NOT_SENT and value is not None:
            converted = _template_value(value)
            if converted is not None:
                variables[key] = converted
    if errors:
        raise ArgumentsValidationError(errors, tool=spec.name, what="resource template")
    return expand_uri_template(spec.uri_template, variables)


def prompt_arguments(spec: PromptSpec, values: Mapping[str, object]) -> dict[str, str]:
    """The wire arguments of `spec` from `values` keyed by Python (or wire) names; NOT_SENT left out."""
    arguments: dict[str, str] = {}
    errors: list[ErrorDetails] = []
    known: set[str] = set()
    for wire, python, required in spec.arguments:
        known.update((wire, python))
        value = values.get(python, NOT_SENT)
        if value is NOT_SENT:
            value = values.get(wire, NOT_SENT)
        if value is NOT_SENT or value is None:
            if required:
                errors.append(_error("missing", python, "Field required", None))
            continue
        if not isinstance(value, str):
            errors.append(
                _error("string_type", python, "Input should be a valid string", value)
            )
            continue
        arguments[wire] = value
    for key, value in values.items():
        if key not in known and isinstance(value, str):
            arguments[key] = value
    if errors:
        raise ArgumentsValidationError(errors, tool=spec.name, what="prompt")
    return arguments


def _template_value(value: object) -> str | Sequence[str] | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        items: list[str] = []
        for item in cast(Sequence[object], value):
            if not isinstance(item, str | int | float) or isinstance(item, bool):
                return None
            items.append(str(item))
        return items
    return None


class AsyncPromptsBase:
    """Base of the generated `client.prompts` namespace: one method per prompt."""

    __slots__ = ("_client",)

    def __init__(self, client: AsyncClientBase) -> None:
        self._client = client

    async def _get(
        self, spec: PromptSpec, values: Mapping[str, object]
    ) -> PromptResult:
        return await self._client.get_prompt(spec.name, prompt_arguments(spec, values))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


class AsyncResourcesBase:
    """Base of the generated `client.resources` namespace: one method per resource and template."""

    __slots__ = ("_client",)

    def __init__(self, client: AsyncClientBase) -> None:
        self._client = client

    async def _read(self, spec: ResourceSpec | str) -> ResourceResult:
        uri = spec if isinstance(spec, str) else spec.uri
        return await self._client.read_resource(uri)

    async def subscribe(self, uri: str) -> None:
        """Ask for update notifications about the resource at `uri` (see `on_resource_updated=`)."""
        await self._client.subscribe_resource(uri)

    async def unsubscribe(self, uri: str) -> None:
        """Stop update notifications about the resource at `uri`."""
        await self._client.unsubscribe_resource(uri)

    async def _read_template(
        self, spec: TemplateSpec, values: Mapping[str, object]
    ) -> ResourceResult:
        return await self._client.read_resource(template_uri(spec, values))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"
