"""The connection state every part of the client shares: the session, closing, and sending requests."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    NoReturn,
    TypeVar,
    cast,
)

from ..calls.drift import list_session_tools
from ..calls.errors import (
    ConnectionClosedError,
    McpClientError,
    RequestTimeoutError,
    request_label,
    translate_error,
)
from ..calls.input_required import resolve_input_required, speaks_multi_round
from ..calls.options import (
    CacheMode,
    CallOptions,
    ProgressCallback,
    merge_options,
    send_with_options,
)
from ..calls.retries import DEFAULT_RETRIES, Retries
from ..calls.tasks import TASK_ANSWER, UnvalidatedSession
from ..calls.telemetry import Telemetry, traced
from ..calls.telemetry import active as telemetry_active
from ..connection.attempt import mcp_error_code
from ..connection.cache import LISTINGS, send_through
from ..connection.exchange import RequestFault
from ..connection.exchange import begin as begin_exchange
from ..connection.recovery import SessionRecovery
from ..connection.session import AsyncConnection, Lease

if TYPE_CHECKING:
    from typing import Self

    import mcp_types
    from mcp import Client, ClientSession
    from mcp.client.caching import ClientResponseCache
    from pydantic import BaseModel

    from ..agents.tool import AgentTool
    from ..calls.arguments import SchemaCheck
    from ..calls.specs import PromptSpec, TemplateSpec, ToolSpec
    from ..calls.tracing import CallHook
    from ..server_requests import (
        ServerRequests,
    )


R = TypeVar("R")
_log = logging.getLogger(__name__)
_PageT = TypeVar("_PageT", bound="BaseModel")
_ItemT = TypeVar("_ItemT")

_MAX_PAGES = 10_000

_mcp_types: ModuleType | None = None


def lazy_mcp_types() -> ModuleType:
    """`mcp_types`, imported on first use (importing it costs ~0.25 s)."""
    global _mcp_types
    module = _mcp_types
    if module is None:
        import mcp_types

        module = _mcp_types = mcp_types
    return module


def raise_translated(
    error: Exception,
    *,
    method: str,
    uri: str | None = None,
    prompt: str | None = None,
    subject: str | None = None,
    limit: float | None = None,
) -> NoReturn:
    translated = translate_error(
        error, method=method, uri=uri, prompt=prompt, subject=subject, limit=limit
    )
    if subject is not None and isinstance(translated, RequestTimeoutError):
        # A timeout of `with_options()` names the method only: add which tool it was.
        plain, named = request_label(method), request_label(method, subject)
        message = str(translated)
        if message.startswith(f"{plain} timed out"):
            translated = RequestTimeoutError(named + message[len(plain) :])
    if translated is error:
        raise error
    if isinstance(translated, McpClientError):
        raise translated from None
    raise translated


async def call_hook(hook: Callable[[Any], object], value: object) -> None:
    try:
        result = hook(value)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - a failing hook must not end the connection
        _log.exception("a notification handler failed")


def _param_headers_unknown(error: BaseException, session: ClientSession) -> bool:
    """Whether a 2026-07-28 server refused a request for missing or stale `Mcp-Param-*` headers."""
    from mcp_types import HEADER_MISMATCH
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return (
        mcp_error_code(error) == HEADER_MISMATCH
        and session.protocol_version in MODERN_PROTOCOL_VERSIONS
    )


class ClientCore(SessionRecovery):
    """An MCP client session with typed calls; the generated `AsyncClient` adds one method per tool.

    Create one with `stdio()`, `http()` or `connect()` (async context managers that own the
    connection) or wrap a session you manage with `from_session()`. Calls may run concurrently.
    `with_options()` gives a view of the same client whose calls use per-call options.
    """

    # `_call_options` lives outside `__dict__`: a `with_options()` view shares the client's
    # `__dict__` (session, closed state, hooks) and differs only in this slot.
    __slots__ = (
        "_call_options",
    )  # `__dict__` and `__weakref__` come from `SessionRecovery`

    #: Wire tool name -> spec (the generated class sets it).
    _tools: ClassVar[Mapping[str, ToolSpec[Any, Any]]] = {}
    #: The prompts and resource templates the package was generated for (agent tools use them).
    _prompts: ClassVar[Mapping[str, PromptSpec]] = {}
    _templates: ClassVar[Mapping[str, TemplateSpec]] = {}
    #: The launch recorded at generation time (secret-free JSON), or None.
    _launch: ClassVar[Mapping[str, Any] | None] = None
    #: The protocol version negotiated at generation: a 2026-07-28 (or newer) one makes connections start with
    #: `server/discover` (`mode="auto"`) rather than the legacy `initialize` handshake.
    _protocol_version: ClassVar[str | None] = None
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
    #: The response cache of the connection (the connector's `cache=`), or None when it is off.
    _response_cache: ClientResponseCache | None = None
    #: Tools whose input schema the server changed since generation -> the listed one, compiled on first use.
    _live_input_schemas: dict[str, SchemaCheck | dict[str, Any]] | None = None
    #: What the connection adds to its requests' OpenTelemetry spans (the connector's `trace_content=`).
    _telemetry: Telemetry = Telemetry({})
    #: How requests that failed in transit are retried (the connector's `retries=`).
    _retries: Retries = DEFAULT_RETRIES
    #: The session declares the 2026-07-28 tasks extension: the server may answer a tool call with a task.
    _declares_tasks: bool = False

    def __init__(self, session: Client | ClientSession) -> None:
        inner: Any = session
        if not hasattr(inner, "send_request"):
            inner = inner.session  # an entered mcp.Client
        self._session: ClientSession = inner
        self._call_options: CallOptions | None = None
        self._closed_reason: str | None = None
        self._connection: AsyncConnection[Any] | None = None
        #: The connection's current session, whose requests in flight it counts (None: `from_session()`).
        self._lease: Lease | None = None

    def _check_against_live_schemas(self, changed: dict[str, dict[str, Any]]) -> None:
        """Check later calls of these tools against the input schemas this session listed (drift check)."""
        self._live_input_schemas = dict(changed) or None

    def _arguments_check(self, spec: ToolSpec[Any, Any]) -> SchemaCheck:
        """What decides the arguments of `spec`: the schema listed in this session where it changed, else
        the snapshot's."""
        live = self._live_input_schemas
        if live is None or spec.name not in live:
            return spec.arguments_check()
        found = live[spec.name]
        if isinstance(found, dict):
            from ..calls.arguments import SchemaCheck

            live[spec.name] = found = SchemaCheck(found)
        return found

    def with_options(
        self,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        reset_timeout_on_progress: bool | None = None,
        max_timeout: float | None = None,
        cache_mode: CacheMode | None = None,
        retries: int | Retries | None = None,
        check_results: bool | None = None,
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
        - `cache_mode`: how listings and resource reads use the response cache (the connector's
          `cache=`): `"use"` (default) answers from an entry the server said is still fresh,
          `"refresh"` asks the server and stores its answer, `"bypass"` leaves the cache alone.
          A request that asks for progress always reaches the server.
        - `check_results`: also check each typed result (typed methods and `call()`) against the
          tool's output schema with `jsonschema`, in the schema's dialect: a result the schema
          refuses raises `ResultValidationError` even where the result model accepts it (the
          model may accept more than the schema, never less). Off by default: the model decides.
        - `retries`: how a request that failed in transit is sent again (overrides the connector's
          `retries=`): a number of retries (`0` turns retrying off) or a `Retries` (its
          `repeatable` names tools safe to repeat whatever their annotations say). See the
          "Failures and retries" page.

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
            cache_mode=cache_mode,
            retries=retries,
            check_results=check_results,
        )
        return view

    def _retry_policy(self) -> Retries:
        options = self._call_options
        if options is not None and options.retries is not None:
            return options.retries
        return self._retries

    @property
    def session(self) -> ClientSession:
        """The SDK's `ClientSession`, for anything this client does not wrap."""
        return self._session

    @property
    def server_info(self) -> mcp_types.Implementation | None:
        """The server's name and version from `initialize` (None before it is known)."""
        return self._session.server_info

    @property
    def protocol_version(self) -> str | None:
        """The MCP protocol version agreed with the server at `initialize`."""
        return self._session.protocol_version

    @property
    def instructions(self) -> str | None:
        """The server's `instructions` from `initialize`: hints for using it, meant for a model's prompt."""
        return self._session.instructions

    @property
    def closed(self) -> bool:
        """Whether the connection is closed (by `aclose()`, or because the server went away)."""
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

        Requests do this by themselves when their connection was lost (unless `retries=0`); call
        it to start afresh on purpose. Calls in flight on the old session keep it until they are
        answered (a stdio server that exited fails them: they are sent again where that is safe);
        later calls use the new session, as do `with_options()` views. The drift guard runs again. Raises `ConnectError`
        when the server cannot be reached (the client stays closed), and RuntimeError for a
        client made by `from_session()` (its session is yours).
        """
        if self._connection is None:
            raise RuntimeError(
                "a client made by from_session() cannot reconnect: open a new session"
            )
        async with self._renewal_lock():
            await self._reconnect_now()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        info = self._session.server_info if self._closed_reason is None else None
        server = f" server={info.name!r}" if info is not None else ""
        state = " closed" if self._closed_reason is not None else ""
        return f"<{type(self).__name__}{server}{state}>"

    async def _request(
        self,
        request: Any,
        result_type: type[_PageT],
        *,
        method: str,
        timeout: float | None = None,
        uri: str | None = None,
        prompt: str | None = None,
        subject: str | None = None,
        tool: str | None = None,
    ) -> _PageT:
        if self._closed_reason is not None:
            await self._reopen(timeout)
        try:
            return await self._send(request, result_type, timeout, method, tool)
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            self._after_failure(
                error,
                method=method,
                uri=uri,
                prompt=prompt,
                subject=subject,
                timeout=timeout,
            )

    async def _send(
        self,
        request: Any,
        result_type: type[_PageT],
        timeout: float | None,
        method: str,
        tool: str | None = None,
    ) -> _PageT:
        """Send a request: every request of the client goes through here, in its OpenTelemetry span when
        the application set a provider (`calls.telemetry`), else directly. `tool` names the tool of a
        `tools/call` (whether it is safe to repeat)."""
        if not telemetry_active():
            return await self._send_recovering(
                request, result_type, timeout, method, tool
            )
        return await traced(
            self._telemetry,
            request,
            method,
            self._session.protocol_version,
            lambda: self._send_recovering(request, result_type, timeout, method, tool),
        )

    async def _send_attempt(
        self,
        request: Any,
        result_type: type[_PageT],
        timeout: float | None,
        method: str,
    ) -> _PageT:
        """One attempt of a request with this view's options, answering a 2026-07-28 server's requests
        for input (and listing the tools once when it refused the call's `Mcp-Param-*` headers).
        """
        try:
            return await self._send_answered(request, result_type, timeout, method)
        except Exception as error:
            return await self._resend_listed(
                error, request, result_type, timeout, method
            )

    async def _resend_listed(
        self,
        error: Exception,
        request: Any,
        result_type: type[_PageT],
        timeout: float | None,
        method: str,
    ) -> _PageT:
        """Raise `error`, unless it is a 2026-07-28 server's refusal of a tool call for missing `Mcp-Param-*`
        headers: the spec's recovery is to list the tools (the tool was not listed on this session, or changed
        since) and send it once more."""
        if method == "tools/call" and _param_headers_unknown(error, self._session):
            await list_session_tools(self._session)
            return await self._send_answered(request, result_type, timeout, method)
        raise error

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
            if (
                self._declares_tasks
                and method == "tools/call"
                and result_type is lazy_mcp_types().CallToolResult
            ):  # (a task's own start asks for a task or a result: `ExtensionTasks`)
                called: _PageT = await self._call_through_task(request, timeout, send)
                return called
            return await resolve_input_required(session, request, result_type, send)
        sent: _PageT = await self._send_once(
            request, result_type, timeout=timeout, method=method
        )
        return sent

    async def _call_through_task(
        self, request: Any, timeout: float | None, send: Any
    ) -> Any:
        """A tool call the server may run as a task (the session declared the 2026-07-28 tasks
        extension): its result, following the task to its end. Each `tasks/get` is its own request,
        with this view's options and retries."""
        from ..calls.task_extension import call_tool_through_task

        async def send_tasks(task_request: Any, result_type: Any) -> Any:
            return await self._send_recovering(
                task_request, result_type, timeout, task_request.method, None
            )

        return await call_tool_through_task(
            self._session, request, send, send_tasks=send_tasks
        )

    async def _send_once(
        self, request: Any, result_type: Any, *, timeout: float | None, method: str
    ) -> Any:
        """One request and its answer, through the response cache for a listing or a read."""
        cache = self._response_cache
        if cache is None or not (method in LISTINGS or method == "resources/read"):
            return await self._send_wire(request, result_type, timeout, method)
        options = self._call_options
        mode: CacheMode = "use"
        if options is not None:
            # A request asking for progress must reach the server: it refreshes the entry.
            asks_progress = options.on_progress is not None
            mode = (
                "refresh"
                if asks_progress and options.cache_mode == "use"
                else options.cache_mode
            )
        return await send_through(
            cache,
            method,
            request,
            mode,
            lambda: self._send_wire(request, result_type, timeout, method),
        )

    async def _send_wire(
        self, request: Any, result_type: Any, timeout: float | None, method: str
    ) -> Any:
        """One request on the wire: the SDK's own timeout, or this view's `with_options()`. A transit
        fault the transport recorded for it is raised as `RequestFault` (`connection.exchange`).
        """
        options = self._call_options
        session = self._session
        lease = self._lease
        if result_type is TASK_ANSWER:  # a task-augmented tools/call (see calls.tasks)
            session = cast(
                "ClientSession", UnvalidatedSession(session, self._read_timeout())
            )
        exchange = begin_exchange()
        if lease is not None:
            lease.enter()
        try:
            if options is not None:
                return await send_with_options(
                    session,
                    request,
                    result_type,
                    options,
                    timeout,
                    what=f"{method} request",
                    read_timeout=self._read_timeout(),
                )
            return await session.send_request(
                request, result_type, request_read_timeout_seconds=timeout
            )
        except Exception as error:
            fault = exchange.fault
            if fault is None:
                raise
            raise RequestFault(fault, error) from None
        finally:
            if lease is not None:
                lease.leave()

    def _after_failure(
        self,
        error: Exception,
        *,
        method: str,
        uri: str | None = None,
        prompt: str | None = None,
        subject: str | None = None,
        timeout: float | None = None,
    ) -> NoReturn:
        if isinstance(error, ConnectionClosedError):
            raise error  # the retries' verdict: the connection's state is already recorded
        connection = self._connection
        if connection is not None:
            better = connection.explain(error, method)
            if better is not None:
                raise better from None
        try:
            raise_translated(
                error,
                method=method,
                uri=uri,
                prompt=prompt,
                subject=subject,
                limit=self._applied_timeout(timeout),
            )
        except ConnectionClosedError as closed:
            detail, self._closed_detail = self._closed_detail, None
            if detail is None:
                self._connection_lost(str(closed))
                raise
            self._connection_lost(detail)
            raise ConnectionClosedError(detail) from None

    async def _list_all(
        self,
        method: str,
        request_class: Any,
        result_class: type[_PageT],
        items: Callable[[_PageT], Sequence[_ItemT]],
    ) -> list[_ItemT]:
        types = lazy_mcp_types()
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
        types = lazy_mcp_types()
        await self._request(
            types.PingRequest(), types.EmptyResult, method="ping", timeout=timeout
        )

    def _translated(self, error: Exception, method: str | None) -> BaseException:
        """What a request's failure is raised as (see `_after_failure`), without raising it."""
        connection = self._connection
        better = connection.explain(error, method) if connection is not None else None
        return better if better is not None else translate_error(error, method=method)
