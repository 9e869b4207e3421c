"""Several servers as one toolkit: concurrent connections, per-server status, agent tools across servers.

The umbrella package generated for several servers subclasses `ToolkitBase` with its servers'
client classes:

    async with Toolkit() as kit:              # connects to every server at once
        print(kit.status())                    # {"github": ServerStatus(state="connected", ...), ...}
        weather = await kit["demo"].get_weather(city="Paris")   # one server's typed client
        tools = kit.tools()                    # every connected server's tools, named mcp__<server>__<tool>
        await kit.reconnect("github")
        await kit.disable("slow")              # closed, and left out of tools() until enable()
        report = await kit.health(timeout=2)   # pings every connected server

Tools that run as MCP tasks need nothing of their own: a server's typed methods and its agent tools
wait for the task (an agent sees a failed or cancelled task as an error output), and
`kit[name].tasks` is that server's task handles (`start`, `resume`, `list`; in a lazy toolkit, before
the server's first use, `(await kit.connected(name)).tasks.resume(task_id)`).

`Toolkit(lazy=True)` connects nothing at start: each server connects on its first use (a typed
call through `kit[name]`, `await kit.connected(name)`, a call of one of its agent tools, `health`),
and `kit.tools()` is built from the package's snapshots without connecting; `status()` says
"not connected yet" for a server not used so far.

A server that cannot be reached does not stop the others: its status says `failed` with the
one-line reason, and `kit[name]` raises `ServerUnavailableError` with that reason.

Each connection lives in a task of its own inside the toolkit's task group, so any one of them can be
closed or reopened without disturbing the others (anyio requires a connection to be left by the
task that entered it).
"""

from __future__ import annotations

import functools
import inspect
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from ..calls.errors import ConnectError, McpClientError
from ..text import one_line
from .toolkit_servers import (
    Connector,
    ServerSlot,
    ServerState,
    ServerStatus,
    ServerUnavailableError,
    recording_name,
)

if TYPE_CHECKING:
    from typing import Self

    import anyio.abc

    from ..agents.protocols import ToolCaller
    from ..agents.tool import AgentTool
    from ..agents.toolset import ToolSet
    from ..calls.retries import Retries
    from ..code_mode.sandbox import CodeResult, SandboxModule
    from ..connection.stdio import StderrTarget
    from ..server_requests import (
        ElicitationHandler,
        LogHandler,
        RootLike,
        SamplingHandler,
    )
    from .base import AsyncClientBase

__all__ = ["ServerState", "ServerStatus", "ServerUnavailableError", "ToolkitBase"]


class ToolkitBase:
    """Clients of several MCP servers, connected concurrently; see the module docstring."""

    #: Server name -> generated `AsyncClient` class (the umbrella package's `Toolkit` sets it).
    CLIENTS: ClassVar[Mapping[str, type[AsyncClientBase]]] = {}

    def __init__(
        self,
        *,
        connectors: Mapping[str, Connector] | None = None,
        disabled: Iterable[str] = (),
        timeout: float = 60.0,
        env: Mapping[str, Mapping[str, str]] | None = None,
        headers: Mapping[str, Mapping[str, str]] | None = None,
        stderr: StderrTarget = None,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
        lazy: bool = False,
        retries: int | Retries = 5,
        record: str | os.PathLike[str] | None = None,
        redact: bool = True,
    ) -> None:
        """`connectors` replaces how some servers are reached (default: each client's `connect()`, the
        launch recorded at generation, with `env`/`headers` per server name added); `disabled` servers
        stay closed until `enable()`; `timeout` bounds each connection attempt (seconds).
        `stderr` is where the stdio servers' stderr goes: None (the logger `<package>.server`,
        one INFO record per line), `"inherit"` (this process's stderr), `"discard"`, a
        `logging.Logger` or an open file.
        `elicitation`, `sampling`, `roots` and `on_log` answer server requests for every server
        reached through its recorded launch (see `AsyncClient.stdio`); each server gets its
        own roots (so `set_roots()` is per client: `kit.clients()[name].set_roots(...)`).
        `lazy=True`: a server connects on its first use, not when the toolkit opens.
        `retries`: how each server's requests that failed in transit are sent again (see
        `AsyncClient.stdio`; 0 turns it off).
        `record`: a folder; each server reached through its recorded launch writes its session to
        `<folder>/<server name>.ndjson` (`recording_name`; its last connection's), secrets redacted unless
        `redact=False` (see `AsyncClient.stdio`); `Toolkit.replay(folder)` answers from them.
        """
        known = set(self.CLIENTS) | set(connectors or {})
        for name in [*disabled, *(env or {}), *(headers or {})]:
            if name not in known:
                raise KeyError(
                    f"no server named {name!r} (servers: {', '.join(sorted(known)) or 'none'})"
                )
        off = set(disabled)
        self._lazy = lazy
        self._record = None if record is None else Path(record)
        self._redact = redact
        if self._record is not None:
            files = [recording_name(name) for name in self.CLIENTS]
            shared = sorted({file for file in files if files.count(file) > 1})
            if shared:
                raise ValueError(
                    f"servers would share a recording ({', '.join(shared)}): "
                    "record them with connectors= of their own"
                )
            self._record.mkdir(parents=True, exist_ok=True)
        self._timeout = timeout
        self._retries = retries
        self._stderr: StderrTarget = stderr
        self._handlers: dict[str, Any] = {
            "elicitation": elicitation,
            "sampling": sampling,
            "roots": roots,
            "on_log": on_log,
        }
        self._slots: dict[str, ServerSlot] = {}
        for name in [
            *self.CLIENTS,
            *(n for n in connectors or {} if n not in self.CLIENTS),
        ]:
            connector = (connectors or {}).get(name)
            if connector is None:
                connector = self._recorded_connector(
                    name,
                    self.CLIENTS[name],
                    (env or {}).get(name),
                    (headers or {}).get(name),
                )
            self._slots[name] = ServerSlot(name, connector, enabled=name not in off)
        self._group: anyio.abc.TaskGroup | None = None

    def _recorded_connector(
        self,
        name: str,
        client_class: type[AsyncClientBase],
        env: Mapping[str, str] | None,
        headers: Mapping[str, str] | None,
    ) -> Connector:
        record = None if self._record is None else self._record / recording_name(name)
        return lambda: client_class.connect(
            env=env,
            headers=headers,
            timeout=self._timeout,
            stderr=self._stderr,
            retries=self._retries,
            record=record,
            redact=self._redact,
            **self._handlers,
        )

    @classmethod
    def replay(
        cls,
        folder: str | os.PathLike[str],
        *,
        lenient: bool = False,
        lazy: bool = False,
    ) -> Self:
        """A toolkit answering from the recordings `Toolkit(record=folder)` wrote, one a server, with no
        server and no process (see `AsyncClient.replay`; `lenient` as there). A server without its
        `<name>.ndjson` raises FileNotFoundError naming it."""
        where = Path(folder)
        missing = [
            name for name in cls.CLIENTS if not (where / f"{name}.ndjson").is_file()
        ]
        if missing:
            raise FileNotFoundError(
                f"no recording of {', '.join(map(repr, missing))} in {where}: "
                "record one with Toolkit(record=FOLDER)"
            )
        connectors: dict[str, Connector] = {
            name: functools.partial(
                client_class.replay, where / recording_name(name), lenient=lenient
            )
            for name, client_class in cls.CLIENTS.items()
        }
        return cls(connectors=connectors, lazy=lazy)

    # ---------------------------------------------------------------------------------- lifecycle

    async def __aenter__(self) -> ToolkitBase:
        import anyio

        if self._group is not None:
            raise RuntimeError("this toolkit is already open")
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        enabled = [slot for slot in self._slots.values() if slot.enabled]
        if self._lazy:
            for slot in enabled:
                slot.state = "not connected yet"
            return self
        try:
            await self._connect_all(enabled)
        except BaseException:
            group.cancel_scope.cancel()
            await self._leave_group()
            raise
        return self

    async def __aexit__(self, *_exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every connection (idempotent)."""
        for slot in self._slots.values():
            await self._disconnect(slot)
        await self._leave_group()

    async def _leave_group(self) -> None:
        group, self._group = self._group, None
        if group is not None:
            await group.__aexit__(None, None, None)

    async def _connect_all(self, slots: Sequence[ServerSlot]) -> None:
        import anyio

        async with anyio.create_task_group() as starting:
            for slot in slots:
                starting.start_soon(self._connect, slot)

    async def _connect(self, slot: ServerSlot) -> None:
        """Open `slot`'s connection in a task of the toolkit's group; returns once it is up or failed."""
        import anyio

        group = self._group
        if group is None:
            raise ServerUnavailableError(
                "the toolkit is not open: use `async with Toolkit() as kit`"
            )
        await self._disconnect(slot)
        slot.state, slot.error, slot.client = "connecting", None, None
        slot.stop, slot.done = anyio.Event(), anyio.Event()
        ready = anyio.Event()
        started = time.perf_counter()

        async def hold(stop: anyio.Event, done: anyio.Event) -> None:
            try:
                async with slot.connector() as client:
                    slot.client, slot.state = client, "connected"
                    slot.latency = time.perf_counter() - started
                    ready.set()
                    await stop.wait()
            except (
                Exception
            ) as error:  # noqa: BLE001 - kept as the server's status, never raised
                slot.error = _one_line(error)
                slot.state = "failed"
                slot.latency = time.perf_counter() - started
            finally:
                slot.client = None if slot.state != "connected" else slot.client
                ready.set()
                done.set()

        group.start_soon(hold, slot.stop, slot.done)
        await ready.wait()

    async def connected(self, name: str) -> Any:
        """Server `name`'s client, connecting it first if it was not used yet (a lazy toolkit).

        Concurrent first uses share one connection attempt; a server that failed raises
        `ServerUnavailableError` with its reason until `reconnect(name)`.
        """
        import anyio

        slot = self._slot(name)
        if slot.state == "not connected yet":
            if slot.first_use is None:
                slot.first_use = anyio.Lock()
            async with slot.first_use:
                if slot.state == "not connected yet":
                    await self._connect(slot)
        return self[name]

    async def call_on_first_use(
        self, name: str, path: tuple[str, ...], args: Any, kwargs: Any
    ) -> Any:
        """Internal (a lazy server's stand-in): connect `name`, then call `client.<path>(*args, **kwargs)`."""
        target: Any = await self.connected(name)
        for attribute in path:
            target = getattr(target, attribute)
        result = target(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result

    async def _disconnect(self, slot: ServerSlot) -> None:
        stop, done = slot.stop, slot.done
        slot.stop = slot.done = None
        if stop is not None and done is not None:
            stop.set()
            await done.wait()
        if slot.state in ("connected", "connecting", "not connected yet"):
            slot.state = "closed"
        slot.client = None

    async def reconnect(self, name: str) -> ServerStatus:
        """Close server `name`'s connection (if any) and open a new one; enables it if it was disabled."""
        slot = self._slot(name)
        slot.enabled = True
        await self._connect(slot)
        return slot.status()

    async def enable(self, name: str) -> ServerStatus:
        """Switch server `name` back on and connect it (a no-op when it is already connected)."""
        slot = self._slot(name)
        slot.enabled = True
        if slot.status().state != "connected":
            await self._connect(slot)
        return slot.status()

    async def disable(self, name: str) -> ServerStatus:
        """Close server `name` and leave it out of `tools()` until `enable(name)`."""
        slot = self._slot(name)
        slot.enabled = False
        await self._disconnect(slot)
        slot.state, slot.error = "disabled", None
        return slot.status()

    # ----------------------------------------------------------------------------------- queries

    @property
    def names(self) -> list[str]:
        """Every server of this toolkit, connected or not."""
        return list(self._slots)

    def status(self) -> dict[str, ServerStatus]:
        """Each server's state: connected, failed (with its error), disabled, connecting or closed."""
        return {name: slot.status() for name, slot in self._slots.items()}

    def clients(self) -> dict[str, AsyncClientBase]:
        """The connected servers' clients, by server name."""
        return {
            name: slot.client
            for name, slot in self._slots.items()
            if slot.client is not None and slot.status().state == "connected"
        }

    def __getitem__(self, name: str) -> Any:
        """Server `name`'s typed client (the umbrella's `Toolkit` narrows the type per server).

        In a lazy toolkit, a server not used yet gives a stand-in whose awaited methods connect
        first (`await kit["demo"].get_weather(city="Oslo")`).
        """
        status = self._slot(name).status()
        if status.state == "not connected yet":
            return _OnFirstUse(self, name)
        client = self._slots[name].client
        if status.state != "connected" or client is None:
            reason = f": {status.error}" if status.error else ""
            raise ServerUnavailableError(f"server {name!r} is {status.state}{reason}")
        return client

    def __contains__(self, name: object) -> bool:
        return name in self._slots

    async def health(self, *, timeout: float = 5.0) -> dict[str, ServerStatus]:
        """Ping every connected server at once; one that does not answer within `timeout` is marked failed."""
        import anyio

        async def probe(slot: ServerSlot) -> None:
            client = slot.client
            if client is None:
                return
            started = time.perf_counter()
            try:
                with anyio.fail_after(timeout):
                    await client.ping(timeout=timeout)
            except (McpClientError, TimeoutError) as error:
                slot.state = "failed"
                slot.error = f"health probe: {_one_line(error) if str(error) else f'no answer in {timeout:g} s'}"
            slot.latency = time.perf_counter() - started

        async def first_use(name: str) -> None:
            try:
                await self.connected(name)
            except ServerUnavailableError:
                pass  # its status says why

        pending = [
            s.name for s in self._slots.values() if s.state == "not connected yet"
        ]
        async with anyio.create_task_group() as group:
            for name in pending:
                group.start_soon(first_use, name)
        async with anyio.create_task_group() as group:
            for slot in self._slots.values():
                if slot.status().state == "connected":
                    group.start_soon(probe, slot)
        return self.status()

    def tools(
        self,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        *,
        servers: Iterable[str] | None = None,
        prefix: str | None = None,
        timeout: float | None = None,
        resources: bool = False,
        prompts: bool = False,
        search: bool = False,
        semantic: bool = False,
    ) -> ToolSet:
        """Agent tools of every connected server (or of `servers`), named `mcp__<server>__<prefix><tool>`.

        `prefix` defaults to each server's own `tool_prefix` (from the config, as `kit[name].tools()`
        uses it); a string given here replaces it for every server.

        `include`/`exclude` are glob patterns on wire or Python tool names, applied to every server;
        `resources`/`prompts` add each server's resource and prompt tools (see `AsyncClient.tools`).
        Disabled and failed servers are left out; the names stay distinct across servers. In a
        lazy toolkit a server not used yet contributes the tools of its snapshot, which connect it
        on their first call. `search=True` offers them all through `search_tools` and
        `call_tool` (see `AsyncClient.tools`), ranked over one index of all their tools;
        `semantic=True` fuses that ranking with the static embedding model (the `semantic` extra).
        """
        # Imported on first use: a toolkit that makes plain calls does not need it.
        from ..agents.toolset import ToolSet

        chosen = list(self._slots) if servers is None else list(servers)
        collected: list[AgentTool] = []
        for name in chosen:
            slot = self._slot(name)
            client_class = self.CLIENTS.get(name)
            if slot.state == "not connected yet" and client_class is not None:
                stand_in = cast("ToolCaller", _OnFirstUse(self, name))
                toolset = client_class.toolset_for(
                    stand_in,
                    include,
                    exclude,
                    prefix=prefix,
                    namespace=name,
                    timeout=timeout,
                    resources=resources,
                    prompts=prompts,
                )
                collected.extend(toolset.values())
                continue
            client = slot.client
            if client is None or slot.status().state != "connected":
                continue
            collected.extend(
                client.tools(
                    include,
                    exclude,
                    prefix=prefix,
                    namespace=name,
                    timeout=timeout,
                    resources=resources,
                    prompts=prompts,
                ).values()
            )
        toolset = ToolSet(collected)
        if semantic and not search:
            raise ValueError(
                "semantic=True ranks search_tools' matches: give it with search=True "
                "(or call tools().search(query, semantic=True))"
            )
        return toolset.searching(semantic=semantic) if search else toolset

    # ---------------------------------------------------------------------------------- code mode

    def code_api(self) -> dict[str, str]:
        """Each server's code API by module name (its subpackage's name): what `run_code()` imports."""
        from .code_calls import package_code_api

        apis = (package_code_api(cls) for cls in self.CLIENTS.values())
        return {api.module: api.text for api in apis}

    async def run_code(
        self,
        code: str,
        *,
        timeout: float = 10.0,
        memory: int = 128 * 1024 * 1024,
    ) -> CodeResult:
        """Run `code` with one module per server (`import github, jira`), so one program can join
        results across servers; see `AsyncClient.run_code`. A lazy server connects first; a
        disabled or failed one has no module (importing it is a type error).
        """
        from ..code_mode.sandbox import run_in_sandbox

        modules: list[SandboxModule] = []
        for name in self._slots:
            try:
                client = await self.connected(name)
            except ServerUnavailableError:
                continue
            module: SandboxModule = client._sandbox_module()  # noqa: SLF001 - its own
            modules.append(module)
        return await run_in_sandbox(code, modules, timeout=timeout, memory=memory)

    def _slot(self, name: str) -> ServerSlot:
        slot = self._slots.get(name)
        if slot is None:
            raise KeyError(
                f"no server named {name!r} (servers: {', '.join(self._slots) or 'none'})"
            )
        return slot

    def __repr__(self) -> str:
        states = ", ".join(f"{s.name}={s.state}" for s in self.status().values())
        return f"<{type(self).__name__} {states}>"


class _OnFirstUse:
    """A lazy toolkit's server before its first use: any method, awaited, connects it and runs.

    `kit["demo"].get_weather(city="Oslo")`, `kit["demo"].prompts.plan_trip(...)` and the agent
    tools' `call_spec(...)` all go through here; only the blocking client's members are refused,
    so agent tools see an async client.
    """

    _REFUSED = frozenset({"async_client", "run_blocking", "run_on_loop"})

    def __init__(self, kit: ToolkitBase, name: str, path: tuple[str, ...] = ()) -> None:
        self._kit = kit
        self._name = name
        self._path = path

    def __getattr__(self, attribute: str) -> _OnFirstUse:
        if attribute.startswith("__") or attribute in self._REFUSED:
            raise AttributeError(attribute)
        return _OnFirstUse(self._kit, self._name, (*self._path, attribute))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._path == ("tasks", "resume"):
            # `resume` returns a handle at once, not an awaitable: it needs the client itself.
            raise TypeError(
                f"server {self._name!r} is not connected yet: resume a task with "
                f"`(await kit.connected({self._name!r})).tasks.resume(task_id)`"
            )
        return self._kit.call_on_first_use(self._name, self._path, args, kwargs)

    def __repr__(self) -> str:
        where = ".".join((self._name, *self._path))
        return f"<{where} (not connected yet)>"


def _one_line(error: BaseException) -> str:
    """A failure as one line: our own errors by their message, others prefixed by their class name."""
    if isinstance(error, ConnectError | McpClientError):
        return one_line(error)
    return one_line(f"{type(error).__name__}: {error}")
