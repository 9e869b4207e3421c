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
    Iterator,
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
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, ParamSpec, TypeVar

from ..calls.errors import ConnectionClosedError, unwrap_exception_group
from .base import AsyncClientBase, prompt_arguments, template_uri

if TYPE_CHECKING:
    from typing import Self

    from anyio.from_thread import BlockingPortal
    from mcp import Client as McpClient
    from mcp import ClientSession
    from mcp.shared.subscriptions import ServerEvent

    from ..agents.toolset import ToolSet
    from ..calls.options import CacheMode, ProgressCallback
    from ..calls.results import PromptResult, ResourceResult
    from ..calls.retries import Retries
    from ..calls.specs import PromptSpec, ResourceSpec, TemplateSpec
    from ..server_requests import (
        ServerRequests,
    )
    from .sync_client import SyncClientBase
    from .sync_tasks import SyncTasksBase

__all__ = [
    "BlockingCore",
    "SyncConnection",
    "SyncPromptsBase",
    "SyncResourcesBase",
]

AsyncT = TypeVar("AsyncT", bound=AsyncClientBase)
SyncT = TypeVar("SyncT", bound="BlockingCore[Any]")
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


class BlockingCore(Generic[AsyncT]):
    """The plumbing of the blocking client: its own event-loop thread, and what is not a plain twin.

    `SyncClientBase` (generated from the async client's parts) adds the twin of every async method.
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
        cache_mode: CacheMode | None = None,
        retries: int | Retries | None = None,
        check_results: bool | None = None,
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
            cache_mode=cache_mode,
            retries=retries,
            check_results=check_results,
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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} driving {self._async_client!r}>"

    # ------------------------------------------------------------------------------------ requests

    @property
    def closed(self) -> bool:
        return self._closed or self._async.closed

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
        search: bool = False,
        code: bool = False,
        semantic: bool = False,
    ) -> ToolSet:
        """This client's tools as agent tools (see `AsyncClient.tools`, also for `resources`,
        `prompts`, `search`, `code` and `semantic`).

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
            search=search,
            code=code,
            semantic=semantic,
        )
        return async_tools.bind(self, timeout=timeout)

    @property
    def tasks(self) -> SyncTasksBase:
        """Tool calls as MCP tasks: `task = client.tasks.start("tool", {...})`, then `task.result()`,
        `task.status()`, `task.cancel()`; `client.tasks.resume(id)` for a task started before;
        `client.tasks.list()`. A tool that requires a task needs none of this: its typed method runs
        it as one and returns its result."""
        from .sync_tasks import SyncTasksBase

        return SyncTasksBase(self)

    @contextmanager
    def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        resource_uris: Sequence[str] = (),
    ) -> Generator[Iterator[ServerEvent], None, None]:
        """A change stream (MCP 2026-07-28 `subscriptions/listen`): `with client.listen(tools=True) as
        events: for event in events: ...`.

        Each event is one of the SDK's `ToolsListChanged`, `PromptsListChanged`, `ResourcesListChanged` or
        `ResourceUpdated(uri)` (`mcp.shared.subscriptions`), for what was asked: `tools`, `prompts` and
        `resources` list changes, and updates of the resources at `resource_uris`. Entering waits for the
        server's acknowledgment; leaving ends the stream; a stream the server ends gracefully ends the loop.
        The stream runs on the client's event-loop thread; iterating blocks until the next event.
        There is no replay: after `SubscriptionLostError` (the stream dropped), listen again and list again.
        Needs a 2026-07-28 connection, otherwise `UnsupportedByServerError`.
        """
        if self._closed:
            raise ConnectionClosedError("the client was closed")
        stream = self._async.listen(
            tools=tools,
            prompts=prompts,
            resources=resources,
            resource_uris=resource_uris,
        )
        with self._portal.wrap_async_context_manager(stream) as events:

            def blocking_events() -> Iterator[ServerEvent]:
                while True:
                    try:
                        yield self._portal.call(events.__anext__)
                    except StopAsyncIteration:
                        return

            yield blocking_events()


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
