"""The blocking twin: a `SyncClientBase` drives an async client on its own event-loop thread.

Every sync client owns one background thread running an anyio blocking portal, so it works from a
plain script, from several threads at once, and from code that already runs an event loop (a
Jupyter cell, an `async def` calling a plain function): the caller's thread only waits.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Generator,
    Mapping,
    Sequence,
)
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    ExitStack,
    asynccontextmanager,
    contextmanager,
)
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, ParamSpec, TypeVar

from ..calls.errors import ConnectionClosedError, unwrap_exception_group
from .base import AsyncClientBase, ClientInfo, prompt_arguments, template_uri

if TYPE_CHECKING:
    from typing import Self

    import httpx2
    import mcp_types
    from anyio.from_thread import BlockingPortal
    from mcp import Client as McpClient
    from mcp import ClientSession
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    from ..agents.toolset import ToolSet
    from ..calls.drift import DriftSummary
    from ..calls.options import ProgressCallback
    from ..calls.results import PromptResult, ResourceResult, ToolResult
    from ..calls.specs import PromptSpec, ResourceSpec, TemplateSpec
    from ..calls.tracing import CallHook
    from ..connection.session import StderrTarget
    from ..server_requests import (
        ChangeHandler,
        ElicitationHandler,
        LogHandler,
        LogLevel,
        ResourceUpdatedHandler,
        RootLike,
        SamplingHandler,
        ServerRequests,
    )

__all__ = ["SyncClientBase", "SyncConnection", "SyncPromptsBase", "SyncResourcesBase"]

AsyncT = TypeVar("AsyncT", bound=AsyncClientBase)
SyncT = TypeVar("SyncT", bound="SyncClientBase[Any]")
P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def _portal_thread() -> Generator[BlockingPortal, None, None]:
    """An anyio blocking portal on a new daemon thread (anyio's own portal thread is not a daemon)."""
    from concurrent.futures import Future

    import anyio
    from anyio.from_thread import BlockingPortal

    started: Future[BlockingPortal] = Future()

    async def serve() -> None:
        async with BlockingPortal() as portal:
            started.set_result(portal)
            await portal.sleep_until_stopped()

    def run() -> None:
        try:
            anyio.run(serve)
        except BaseException as error:
            if not started.done():
                started.set_exception(error)

    thread = threading.Thread(target=run, name="mcp-client-loop", daemon=True)
    thread.start()
    portal = started.result()
    try:
        yield portal
    finally:
        try:
            portal.call(portal.stop, True)
        except RuntimeError:
            pass  # already stopped
        if thread is not threading.current_thread():
            thread.join(10)


class SyncConnection(AbstractContextManager[SyncT]):
    """`with connection as client:` connects (on a new event-loop thread); leaving closes everything.

    `open()` connects without `with`; then call `client.close()` when done.
    """

    def __init__(
        self,
        sync_class: type[SyncT],
        make_async: Callable[[], AbstractAsyncContextManager[Any]],
    ) -> None:
        self._sync_class = sync_class
        self._make_async = make_async
        self._stack: ExitStack | None = None
        self._lock = threading.Lock()
        self._used = False

    def open(self) -> SyncT:
        with self._lock:
            if self._used:
                raise RuntimeError(
                    "this connection was already used; call the connector again for a new one"
                )
            self._used = True
        stack = ExitStack()
        try:
            portal = stack.enter_context(_portal_thread())
            async_client = stack.enter_context(
                portal.wrap_async_context_manager(self._make_async())
            )
        except BaseException as error:
            root = unwrap_exception_group(error)
            try:
                stack.close()
            finally:
                if root is error:
                    raise
                raise root from None
        self._stack = stack
        # A client that is never closed still shuts its server down when the interpreter exits (its
        # event-loop thread is a daemon, so it never keeps the process alive).
        atexit.register(self.close)
        return self._sync_class(async_client, portal, self)

    def close(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        with self._lock:
            stack, self._stack = self._stack, None
        if stack is None:
            return
        atexit.unregister(self.close)
        try:
            stack.__exit__(exc_type, exc, traceback)
        except BaseException as error:
            root = unwrap_exception_group(error)
            if root is exc:
                return
            if root is error:
                raise
            raise root from None

    def __enter__(self) -> SyncT:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close(exc_type, exc, traceback)


class SyncClientBase(Generic[AsyncT]):
    """A blocking MCP client; the generated `Client` adds one method per tool that forwards to `_async`.

    Create one with `stdio()`, `http()` or `connect()` (context managers; `.open()` works without
    `with`, then `close()`). One client may be used from several threads at once.
    `with_options()` gives a view of the same client whose calls use per-call options.
    """

    # A `with_options()` view shares this client's `__dict__` and drives its own async view,
    # kept in this slot (None: drive `_async_client`).
    __slots__ = ("__dict__", "__weakref__", "_async_view")

    #: The generated AsyncClient class this client drives (the generated class sets it).
    _async_class: ClassVar[type[Any]] = AsyncClientBase

    def __init__(
        self,
        async_client: AsyncT,
        portal: BlockingPortal,
        connection: SyncConnection[Any] | None = None,
    ) -> None:
        self._async_view: AsyncT | None = None
        self._async_client = async_client
        self._portal = portal
        self._connection = connection
        self._closed = False

    # ------------------------------------------------------------------------------- construction

    @classmethod
    def from_async(
        cls, factory: Callable[[], AbstractAsyncContextManager[AsyncT]]
    ) -> SyncConnection[Self]:
        """Drive the async client that `factory()` (an async context manager) yields.

        `factory` is called, and its context manager entered and left, on the client's own
        event-loop thread, e.g. `Client.from_async(lambda: AsyncClient.http(url, headers=h))`:
        for connection settings the blocking connectors do not offer.
        """
        return SyncConnection(cls, factory)

    @classmethod
    def from_session(
        cls,
        session_factory: Callable[
            [], AbstractAsyncContextManager[McpClient | ClientSession]
        ],
        *,
        server_requests: ServerRequests | None = None,
    ) -> SyncConnection[Self]:
        """A blocking client over a session you set up: `with Client.from_session(lambda: mcp.Client(...)) as c:`.

        `session_factory()` returns an async context manager yielding an initialized session
        (an `mcp.Client`, or your own `ClientSession` setup); it is entered and left on the
        client's event-loop thread, since a session belongs to the loop it was opened on. The
        session is wrapped like `AsyncClient.from_session()`: no drift check is run (call
        `check_drift()`), and leaving the `with` block leaves your context manager.
        `server_requests`: see `AsyncClient.from_session`.
        """
        async_class = cls._async_class

        @asynccontextmanager
        async def wrapped() -> AsyncGenerator[AsyncT, None]:
            async with session_factory() as session:
                client: AsyncT = async_class.from_session(
                    session, server_requests=server_requests
                )
                yield client

        return SyncConnection(cls, wrapped)

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
    ) -> SyncConnection[Self]:
        """Start `command args...` and talk MCP over its stdin/stdout: `with Client.stdio(...) as client:`.

        `drift_check`, `strict`, `stderr` (where the server's stderr goes: None, `"discard"`, a
        `logging.Logger` or an open file) and `client_info`: see `AsyncClient.stdio`.
        """
        async_class = cls._async_class
        return SyncConnection(
            cls,
            lambda: async_class.stdio(
                command,
                args,
                env=env,
                cwd=cwd,
                timeout=timeout,
                drift_check=drift_check,
                strict=strict,
                stderr=stderr,
                client_info=client_info,
                elicitation=elicitation,
                sampling=sampling,
                roots=roots,
                on_log=on_log,
                on_change=on_change,
                on_resource_updated=on_resource_updated,
            ),
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
    ) -> SyncConnection[Self]:
        """Connect over streamable HTTP (`"http"`), legacy SSE (`"sse"`) or the first that works (`"auto"`)."""
        async_class = cls._async_class
        return SyncConnection(
            cls,
            lambda: async_class.http(
                url,
                headers=headers,
                timeout=timeout,
                transport=transport,
                auth=auth,
                drift_check=drift_check,
                strict=strict,
                client_info=client_info,
                elicitation=elicitation,
                sampling=sampling,
                roots=roots,
                on_log=on_log,
                on_change=on_change,
                on_resource_updated=on_resource_updated,
            ),
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
    ) -> SyncConnection[Self]:
        """Reach the server this client was generated from (see `AsyncClient.connect`)."""
        async_class = cls._async_class
        return SyncConnection(
            cls,
            lambda: async_class.connect(
                env=env,
                headers=headers,
                timeout=timeout,
                auth=auth,
                drift_check=drift_check,
                strict=strict,
                stderr=stderr,
                client_info=client_info,
                elicitation=elicitation,
                sampling=sampling,
                roots=roots,
                on_log=on_log,
                on_change=on_change,
                on_resource_updated=on_resource_updated,
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
    ) -> SyncConnection[Self]:
        """Talk to a server object in this process (served on the client's event-loop thread)."""
        async_class = cls._async_class
        return SyncConnection(
            cls,
            lambda: async_class.in_process(
                server,
                timeout=timeout,
                drift_check=drift_check,
                strict=strict,
                client_info=client_info,
                elicitation=elicitation,
                sampling=sampling,
                roots=roots,
                on_log=on_log,
                on_change=on_change,
                on_resource_updated=on_resource_updated,
            ),
        )

    # --------------------------------------------------------------------------------- plumbing

    @property
    def _async(self) -> AsyncT:
        """The async client this one drives (its methods run on the client's event-loop thread)."""
        view = self._async_view
        return self._async_client if view is None else view

    def with_options(
        self,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        reset_timeout_on_progress: bool | None = None,
        max_timeout: float | None = None,
    ) -> Self:
        """A view of this client whose calls use these options: `client.with_options(timeout=5).add(a=1, b=2)`.

        The same options as `AsyncClient.with_options` (see there); the view shares the
        connection. `on_progress` is called on the client's event-loop thread, not the caller's:
        keep it quick, and guard what it shares with the calling thread.
        """
        view = object.__new__(type(self))
        view.__dict__ = self.__dict__  # the same dict object: state stays shared
        view._async_view = self._async.with_options(
            timeout=timeout,
            on_progress=on_progress,
            reset_timeout_on_progress=reset_timeout_on_progress,
            max_timeout=max_timeout,
        )
        return view

    def _run(
        self, fn: Callable[P, Awaitable[R]], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        """Run `await fn(*args, **kwargs)` on the client's event-loop thread and wait for it."""
        if self._closed:
            raise ConnectionClosedError("the client was closed")

        async def invoke() -> R:
            return await fn(*args, **kwargs)

        try:
            future = self._portal.start_task_soon(invoke)
        except RuntimeError as error:
            if "event loop thread" in str(error):
                raise RuntimeError(
                    "a blocking client cannot be called from its own event loop thread; await the async client"
                ) from None
            raise ConnectionClosedError(
                "the client was closed"
            ) from None  # the portal stopped meanwhile
        try:
            return future.result()
        except BaseException:
            if not future.done():
                future.cancel()  # e.g. KeyboardInterrupt while waiting: cancel the request too
            raise

    async def _run_elsewhere(self, fn: Callable[[], Awaitable[R]]) -> R:
        """Await `fn()` on the client's event-loop thread from any event loop (directly when on it)."""
        portal = self._portal
        if getattr(portal, "_event_loop_thread_id", None) == threading.get_ident():
            return await fn()
        if self._closed:
            raise ConnectionClosedError("the client was closed")

        async def invoke() -> R:
            return await fn()

        try:
            future = portal.start_task_soon(invoke)
        except RuntimeError as error:
            if "event loop thread" in str(error):
                return await fn()
            raise ConnectionClosedError("the client was closed") from None
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another async library: wait in a worker thread
            import anyio.to_thread

            return await anyio.to_thread.run_sync(future.result)
        return await asyncio.wrap_future(future)

    # Internal, public for agent tools (`protocols.LoopRunner`): the same as the three above.

    @property
    def async_client(self) -> AsyncT:
        """Internal (`protocols.LoopRunner`): the async client this one drives."""
        return self._async

    def run_blocking(
        self, fn: Callable[P, Awaitable[R]], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        """Internal (`protocols.LoopRunner`): `_run`."""
        return self._run(fn, *args, **kwargs)

    async def run_on_loop(self, fn: Callable[[], Awaitable[R]]) -> R:
        """Internal (`protocols.LoopRunner`): `_run_elsewhere`."""
        return await self._run_elsewhere(fn)

    def close(self) -> None:
        """Close the connection and stop the event-loop thread (idempotent)."""
        self._closed = True
        connection = self._connection
        if connection is not None:
            connection.close()

    def reconnect(self) -> None:
        """Connect again the way this client connected (see `AsyncClient.reconnect`)."""
        self._run(self._async.reconnect)

    def subscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Ask for update notifications about `uri` (see `AsyncClient.subscribe_resource`)."""
        self._run(self._async.subscribe_resource, uri, timeout=timeout)

    def unsubscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Stop the updates `subscribe_resource(uri)` asked for."""
        self._run(self._async.unsubscribe_resource, uri, timeout=timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} driving {self._async_client!r}>"

    # ------------------------------------------------------------------------------------ requests

    @property
    def server_info(self) -> mcp_types.Implementation | None:
        return self._async.server_info

    @property
    def protocol_version(self) -> str | None:
        return self._async.protocol_version

    @property
    def instructions(self) -> str | None:
        return self._async.instructions

    @property
    def closed(self) -> bool:
        return self._closed or self._async.closed

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Call a tool by wire (or Python) name; see `AsyncClient.call`."""
        return self._run(self._async.call, name, arguments, timeout=timeout)

    def call_raw(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        return self._run(self._async.call_raw, name, arguments, timeout=timeout)

    def on_call(self, callback: CallHook) -> Callable[[], None]:
        """Observe every tool call (see `AsyncClient.on_call`); `callback` runs on the client's loop thread."""
        return self._async.on_call(callback)

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
        """This client's tools as agent tools (see `AsyncClient.tools`, also for `resources`
        and `prompts`).

        Their calls run on the client's event-loop thread: `tool.call_sync()`/`tool.run_sync()`
        block, `await tool.call()`/`await tool.run()` work from any other event loop, and
        `to_langchain()` gives tools with both a sync and an async function.
        """
        async_client: AsyncClientBase = self._async
        # The async client's set (with the same names and timeout) is what its handle_* resolve.
        async_tools = async_client.tools(
            include,
            exclude,
            prefix=prefix,
            namespace=namespace,
            timeout=timeout,
            descriptions=descriptions,
            resources=resources,
            prompts=prompts,
        )
        return async_tools.bind(self, timeout=timeout)

    def handle_openai_tool_calls(
        self, tool_calls: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run an OpenAI Chat Completions message's tool calls concurrently; the tool messages (see AsyncClient)."""
        return self._run(
            self._async.handle_openai_tool_calls, tool_calls, timeout=timeout
        )

    def handle_openai_responses_calls(
        self, output: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the `function_call` items of a Responses API output; the `function_call_output` items."""
        return self._run(
            self._async.handle_openai_responses_calls, output, timeout=timeout
        )

    def handle_anthropic_tool_use(
        self, content: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run an Anthropic message's `tool_use` blocks concurrently; the `tool_result` blocks."""
        return self._run(
            self._async.handle_anthropic_tool_use, content, timeout=timeout
        )

    def check_drift(self, *, strict: bool = False) -> DriftSummary | None:
        """See `AsyncClient.check_drift`."""
        return self._run(self._async.check_drift, strict=strict)

    def set_roots(self, roots: Sequence[RootLike]) -> None:
        """Replace the roots offered to the server and notify it (see `AsyncClient.set_roots`)."""
        self._run(self._async_client.set_roots, roots)

    @property
    def roots(self) -> tuple[str, ...] | None:
        """The URIs of the roots offered to the server, or None when roots are not offered."""
        return self._async_client.roots

    def set_log_level(self, level: LogLevel, *, timeout: float | None = None) -> None:
        """Ask the server for log messages at `level` and above (see `AsyncClient.set_log_level`)."""
        self._run(self._async_client.set_log_level, level, timeout=timeout)

    def list_tools(self) -> list[mcp_types.Tool]:
        return self._run(self._async.list_tools)

    def list_resources(self) -> list[mcp_types.Resource]:
        return self._run(self._async.list_resources)

    def list_resource_templates(self) -> list[mcp_types.ResourceTemplate]:
        return self._run(self._async.list_resource_templates)

    def list_prompts(self) -> list[mcp_types.Prompt]:
        return self._run(self._async.list_prompts)

    def read_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> ResourceResult:
        return self._run(self._async.read_resource, uri, timeout=timeout)

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        return self._run(self._async.get_prompt, name, arguments, timeout=timeout)


class SyncPromptsBase:
    """Base of the generated sync `client.prompts` namespace."""

    __slots__ = ("_client",)

    def __init__(self, client: SyncClientBase[Any]) -> None:
        self._client = client

    def _get(self, spec: PromptSpec, values: Mapping[str, object]) -> PromptResult:
        return self._client.get_prompt(spec.name, prompt_arguments(spec, values))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


class SyncResourcesBase:
    """Base of the generated sync `client.resources` namespace."""

    __slots__ = ("_client",)

    def __init__(self, client: SyncClientBase[Any]) -> None:
        self._client = client

    def _read(self, spec: ResourceSpec | str) -> ResourceResult:
        uri = spec if isinstance(spec, str) else spec.uri
        return self._client.read_resource(uri)

    def subscribe(self, uri: str) -> None:
        """Ask for update notifications about the resource at `uri` (see `on_resource_updated=`)."""
        self._client.subscribe_resource(uri)

    def unsubscribe(self, uri: str) -> None:
        """Stop update notifications about the resource at `uri`."""
        self._client.unsubscribe_resource(uri)

    def _read_template(
        self, spec: TemplateSpec, values: Mapping[str, object]
    ) -> ResourceResult:
        return self._client.read_resource(template_uri(spec, values))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"
