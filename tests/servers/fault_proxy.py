"""A fault-injecting HTTP/1.1 reverse proxy for tests: production gateway failures, on 127.0.0.1 only.

    from servers.fault_proxy import FaultProxy, status, drop_after

    with serve_http(build_server()) as url, FaultProxy(url) as proxy:
        proxy.plan(status(503, retry_after=0), drop_after(), tool="add")
        ...  # the client talks to proxy.endpoint ("http://127.0.0.1:PROXYPORT/mcp")
        assert proxy.reached("tools/call", "add") == 1     # the 503 never reached the server
        assert [entry.fault for entry in proxy.log] == ["status(503)", "drop_after", None]

Faults (module-level factories, each returns a `Fault`):

* ``status(code, retry_after=None, body=None)``: answer with that status; the upstream never sees the request.
* ``status_after(code, ...)``: forward, wait for the upstream's whole answer (the tool ran), answer `code` instead.
* ``drop_before()``: read the request, close the connection without forwarding (FIN, no response).
* ``reset()``: read the request, then reset the connection (RST, SO_LINGER 0); never forwarded. To reset a
  connection before anything is read, use ``proxy.reset_connections(n)`` (it hits the next n TCP connections,
  whatever they carry, since nothing can be matched before reading).
* ``drop_after()``: forward, read the upstream's whole answer (the tool ran), close without sending any of it.
* ``drop_mid()``: forward, send the response head and part of the body (every SSE event before the one carrying
  the JSON-RPC response, then half of that one; half the bytes of any other body), then close.
* ``delay(seconds)``: hold the request that long, then forward it (even if the client gave up meanwhile: the
  request was already in flight).
* ``hold()``: forward, read the upstream's whole answer (the request ran), then send nothing until the client
  hangs up: a request that gets no answer until the client's own timeout ends it (no sleep in the proxy).
* ``passthrough()``: forward unchanged (a placeholder in a plan: ``plan(passthrough(), status(503))``).

A gateway in front of every session: `gateway(fault, method=None)` gives `fault` (e.g. ``status(404)``: answer
404 without forwarding; ``status_after(404)``: forward, let the tool run, answer 404) to every POST that carries
an ``Mcp-Session-Id`` (of JSON-RPC `method`, if given) and has no planned fault; `initialize` (which carries none)
and GET streams go through, so clients connect and renew as usual. ``gateway(None)`` ends it.

Short streams: `cut_streams(True)` forwards every GET, passes the upstream's response head on and closes the
connection at once: a server (or gateway) that ends the standing SSE stream right after opening it.

Selection: `plan()` queues faults for the next POSTs whose JSON-RPC body matches ``method`` (default
"tools/call") and, if given, ``tool`` (``params.name``); each matching POST takes the first queued fault whose
predicate it matches. With no planned fault left, `chaos()` (if set) picks a fault with probability `rate` from a
seeded ``random.Random``. Everything else (initialize, notifications, the standing GET SSE stream, DELETE, other
methods) is forwarded unchanged. `log` gets one `LogEntry(method, tool, fault)` per POST that matched a queued
fault's or chaos's predicate or is a ``tools/call`` (``fault`` None when it went through unharmed); `trace` gets
one per POST, whatever it carried, in the order they came (`clear(counters=True)` empties both). `sessions`
lists every ``Mcp-Session-Id`` a request carried.

Forwarding: one upstream connection per request (``Connection: close`` upstream and to the client, so httpx
opens a new connection per request); response bytes are piped through as they arrive (long-lived SSE streams
too) until either side closes. If the upstream is down, the client gets 502 (what a gateway answers).

Server down: `pause()` closes the listening socket (clients get ECONNREFUSED, i.e. ``httpx.ConnectError``) and
aborts the open connections; `resume()` listens again on the same port. To restart the MCP server itself
(losing its sessions), stop a ``serve_app(app, port=fixed)`` and serve again on the same port: the proxy
answers 502 while it is down.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import email.utils
import json
import random
import threading
from collections import Counter
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from servers.proxy_wire import (
    _abort_with_rst,
    _client_head,
    _header,
    _pipe_until_either_closes,
    _read_head,
    _read_request,
    _Request,
    _serialize_request,
    _truncated_body,
)

__all__ = [
    "HOST",
    "Fault",
    "FaultProxy",
    "LogEntry",
    "delay",
    "drop_after",
    "drop_before",
    "drop_mid",
    "hold",
    "passthrough",
    "reset",
    "status",
    "status_after",
]

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 10.0

RetryAfter = int | float | str | datetime.datetime | None


@dataclasses.dataclass(frozen=True)
class Fault:
    """One fault to inject; build it with the module-level factories (`status`, `drop_after`, ...)."""

    kind: str
    code: int | None = None
    retry_after: RetryAfter = None
    body: bytes | None = None
    content_type: str = "text/plain; charset=utf-8"
    seconds: float = 0.0

    @property
    def name(self) -> str:
        """What `log` records: ``"status(503)"``, ``"status_after(504)"``, ``"delay(0.5)"``, ``"drop_after"``..."""
        if self.kind in ("status", "status_after"):
            return f"{self.kind}({self.code})"
        if self.kind == "delay":
            return f"delay({self.seconds:g})"
        return self.kind


class LogEntry(NamedTuple):
    method: str
    tool: str | None
    fault: str | None  # Fault.name, or None when the request went through unharmed


def _as_bytes(body: bytes | str | None) -> bytes | None:
    return body.encode() if isinstance(body, str) else body


def status(
    code: int, retry_after: RetryAfter = None, body: bytes | str | None = None, content_type: str | None = None
) -> Fault:
    """Answer `code` (with ``Retry-After`` if given: seconds, or a datetime sent as an HTTP date) without forwarding."""
    return Fault("status", code, retry_after, _as_bytes(body), content_type or Fault.content_type)


def status_after(
    code: int, retry_after: RetryAfter = None, body: bytes | str | None = None, content_type: str | None = None
) -> Fault:
    """Forward, wait for the upstream's whole answer (so the tool ran), then answer `code` instead."""
    return Fault("status_after", code, retry_after, _as_bytes(body), content_type or Fault.content_type)


def drop_before() -> Fault:
    """Read the request, then close the connection without forwarding it or answering."""
    return Fault("drop_before")


def reset() -> Fault:
    """Read the request, then reset the connection (RST) without forwarding it."""
    return Fault("reset")


def drop_after() -> Fault:
    """Forward, read the upstream's whole answer, then close the client's connection without sending any of it."""
    return Fault("drop_after")


def drop_mid() -> Fault:
    """Forward, send the response head and part of the body (not the JSON-RPC response), then close."""
    return Fault("drop_mid")


def delay(seconds: float) -> Fault:
    """Hold the request `seconds` before forwarding it."""
    return Fault("delay", seconds=seconds)


def hold() -> Fault:
    """Forward, read the upstream's whole answer, then answer nothing until the client hangs up."""
    return Fault("hold")


def passthrough() -> Fault:
    """Forward unchanged (to let a matching request through at a given place in a plan)."""
    return Fault("passthrough")


@dataclasses.dataclass
class _Planned:
    fault: Fault
    method: str
    tool: str | None


@dataclasses.dataclass
class _Chaos:
    rate: float
    faults: tuple[Fault, ...]
    rng: random.Random
    method: str
    tool: str | None


def _rpc_key(body: bytes) -> tuple[str, str | None]:
    """(JSON-RPC method, tool name) of a POST body; the first message of a batch; "<response>" for a reply."""
    try:
        message: Any = json.loads(body)
    except ValueError:
        return "<invalid>", None
    if isinstance(message, list) and message:
        message = message[0]
    if not isinstance(message, dict):
        return "<invalid>", None
    method = message.get("method")
    if not isinstance(method, str):
        return "<response>", None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return method, name if isinstance(name, str) else None


def _matches(method: str, tool: str | None, want_method: str, want_tool: str | None) -> bool:
    return method == want_method and (want_tool is None or tool == want_tool)


def _retry_after_value(value: RetryAfter) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.UTC)
        return email.utils.format_datetime(value.astimezone(datetime.UTC), usegmt=True)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _status_response(code: int, retry_after: RetryAfter, body: bytes | None, content_type: str) -> bytes:
    try:
        reason = HTTPStatus(code).phrase
    except ValueError:
        reason = "Error"
    payload = body if body is not None else f"{code} {reason}\n".encode()
    lines = [f"HTTP/1.1 {code} {reason}", f"Content-Type: {content_type}", f"Content-Length: {len(payload)}"]
    if (value := _retry_after_value(retry_after)) is not None:
        lines.append(f"Retry-After: {value}")
    lines += ["Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1") + payload


class FaultProxy:
    """The proxy, as a context manager usable from sync (or async) test code; see the module docstring.

    `upstream` is the server's base URL, or an endpoint URL whose path `endpoint` then keeps
    (``FaultProxy("http://127.0.0.1:8000/mcp").endpoint == "http://127.0.0.1:PROXYPORT/mcp"``).
    """

    def __init__(self, upstream: str, *, port: int = 0) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname or not parts.port:
            raise ValueError(f"upstream must be http://HOST:PORT[/path], got {upstream!r}")
        self.upstream_host: str = parts.hostname
        self.upstream_port: int = parts.port
        self._path = parts.path.rstrip("/")
        self._port = port
        self._lock = threading.Lock()
        self._plan: list[_Planned] = []
        self._chaos: _Chaos | None = None
        self._gateway: _Planned | None = None
        self._cut_streams = False
        self._reset_connections = 0
        self._sessions: set[str] = set()  # every Mcp-Session-Id a request carried
        self._expired: dict[str, Fault] = {}  # session id -> the answer it gets from now on
        self._reached: Counter[tuple[str, str | None]] = Counter()
        self._log: list[LogEntry] = []
        self._trace: list[LogEntry] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._clients: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # -- lifecycle ---------------------------------------------------------------------------------------

    def __enter__(self) -> FaultProxy:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name=f"fault-proxy-{id(self):x}", daemon=True)
        self._thread.start()
        self._call(self._listen())

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(Exception):
            self._call(self._shutdown())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(START_TIMEOUT_SECONDS)
        if not thread.is_alive():
            loop.close()
        self._loop = self._thread = None

    def pause(self) -> None:
        """Stop listening (new connections are refused) and abort the open ones: the server looks down."""
        self._call(self._close_listener(abort_open=True))

    def resume(self) -> None:
        """Listen again, on the same port."""
        self._call(self._listen())

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{HOST}:{self._port}"

    @property
    def endpoint(self) -> str:
        """`url` plus the path of the upstream URL given (e.g. ``/mcp``)."""
        return self.url + self._path

    # -- fault selection and counters --------------------------------------------------------------------

    def plan(self, *faults: Fault, method: str = "tools/call", tool: str | None = None) -> None:
        """Queue `faults` for the next POSTs of JSON-RPC `method` (and tool `tool`, if given), one each, in order."""
        with self._lock:
            self._plan.extend(_Planned(fault, method, tool) for fault in faults)

    def chaos(
        self,
        rate: float,
        faults: Sequence[Fault],
        seed: int = 0,
        *,
        method: str = "tools/call",
        tool: str | None = None,
    ) -> None:
        """Each matching POST with no planned fault left gets one of `faults` with probability `rate` (seeded)."""
        if not faults:
            raise ValueError("chaos needs at least one fault")
        with self._lock:
            self._chaos = _Chaos(rate, tuple(faults), random.Random(seed), method, tool)

    def gateway(self, fault: Fault | None, *, method: str | None = None) -> None:
        """From now on, every POST carrying a session id (of `method`, if given) with no planned fault gets `fault`
        (None: forwarded again); see the module docstring."""
        with self._lock:
            self._gateway = None if fault is None else _Planned(fault, method or "", None)

    def cut_streams(self, on: bool = True) -> None:
        """Close every GET stream right after its response head (see the module docstring)."""
        with self._lock:
            self._cut_streams = on

    def expire_sessions(self, answer: Fault) -> None:
        """From now on, every request carrying a session id seen so far gets `answer` (a `status(...)`) without
        being forwarded: the server forgot those sessions. Requests already forwarded keep their answers;
        a new session (one `initialize` opens) is forwarded as usual. Logged as ``expired(CODE)``."""
        with self._lock:
            self._expired.update(dict.fromkeys(self._sessions, answer))

    def reset_connections(self, count: int = 1) -> None:
        """Reset (RST) the next `count` TCP connections at once, before reading anything from them."""
        with self._lock:
            self._reset_connections += count

    def clear(self, *, counters: bool = False) -> None:
        """Forget planned faults, chaos, the gateway and pending connection resets (and counters and log if `counters`)."""
        with self._lock:
            self._plan.clear()
            self._chaos = None
            self._gateway = None
            self._reset_connections = 0
            if counters:
                self._reached.clear()
                self._log.clear()
                self._trace.clear()

    @property
    def pending(self) -> int:
        """How many planned faults have not been applied yet."""
        with self._lock:
            return len(self._plan)

    def reached(self, method: str, tool: str | None = None) -> int:
        """How many requests of JSON-RPC `method` (and `tool`, if given) were forwarded to the upstream.

        Non-POST requests count under their HTTP method ("GET", "DELETE"); JSON-RPC responses that the client
        posts (e.g. to an elicitation) under "<response>"."""
        with self._lock:
            return sum(n for (m, t), n in self._reached.items() if _matches(m, t, method, tool))

    @property
    def log(self) -> list[LogEntry]:
        """A copy of the log: one entry per request matched by a fault predicate, or per tools/call."""
        with self._lock:
            return list(self._log)

    @property
    def trace(self) -> list[LogEntry]:
        """A copy of the trace: one entry per POST (notifications and answers included), in arrival order."""
        with self._lock:
            return list(self._trace)

    @property
    def sessions(self) -> set[str]:
        """Every ``Mcp-Session-Id`` a request carried so far."""
        with self._lock:
            return set(self._sessions)

    def _select(self, method: str, tool: str | None, has_session: bool = False) -> Fault | None:
        with self._lock:
            fault: Fault | None = None
            logged = method == "tools/call"
            for index, planned in enumerate(self._plan):
                if _matches(method, tool, planned.method, planned.tool):
                    fault = planned.fault
                    del self._plan[index]
                    logged = True
                    break
            else:
                chaos, gateway = self._chaos, self._gateway
                if gateway is not None and has_session and gateway.method in ("", method):
                    fault = gateway.fault
                    logged = True
                elif chaos is not None and _matches(method, tool, chaos.method, chaos.tool):
                    logged = True
                    if chaos.rng.random() < chaos.rate:
                        fault = chaos.rng.choice(chaos.faults)
            if fault is not None and fault.kind == "passthrough":
                fault = None
            entry = LogEntry(method, tool, fault.name if fault else None)
            self._trace.append(entry)
            if logged:
                self._log.append(entry)
            return fault

    def _expiry(self, request: _Request) -> Fault | None:
        session = _header(request.headers, "mcp-session-id")
        if session is None:
            return None
        with self._lock:
            answer = self._expired.get(session)
            if answer is None:
                self._sessions.add(session)
            elif request.method == "POST":
                method, tool = _rpc_key(request.body)
                entry = LogEntry(method, tool, f"expired({answer.code})")
                self._trace.append(entry)
                if method == "tools/call":
                    self._log.append(entry)
            return answer

    def _count(self, key: tuple[str, str | None]) -> None:
        with self._lock:
            self._reached[key] += 1

    # -- the event loop side -----------------------------------------------------------------------------

    def _call(self, coro: Any) -> Any:
        assert self._loop is not None, "the proxy is not running"
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(START_TIMEOUT_SECONDS)

    async def _listen(self) -> None:
        if self._server is not None:
            return
        self._server = await asyncio.start_server(self._serve, HOST, self._port, reuse_address=True)
        self._port = self._server.sockets[0].getsockname()[1]

    async def _close_listener(self, *, abort_open: bool) -> None:
        if self._server is not None:
            self._server.close()  # not wait_closed(): on newer Pythons it waits for every connection to end
            self._server = None
        if abort_open:
            for writer in list(self._clients):
                writer.transport.abort()

    async def _shutdown(self) -> None:
        await self._close_listener(abort_open=True)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._clients.add(writer)
        try:
            await self._handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass  # a client that went away or spoke garbage: nothing to answer
        finally:
            self._clients.discard(writer)
            self._tasks.discard(task)
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            reset_now = self._reset_connections > 0
            self._reset_connections -= reset_now
        if reset_now:
            _abort_with_rst(writer)
            return
        request = await _read_request(reader)
        if request is None:
            return
        if (expired := self._expiry(request)) is not None:
            writer.write(_status_response(expired.code or 404, None, expired.body, expired.content_type))
            await writer.drain()
            return
        key: tuple[str, str | None] = (request.method, None)
        fault: Fault | None = None
        if request.method == "POST":
            key = _rpc_key(request.body)
            fault = self._select(*key, _header(request.headers, "mcp-session-id") is not None)
        kind = fault.kind if fault else "passthrough"
        if fault is not None and kind == "status":
            assert fault.code is not None
            writer.write(_status_response(fault.code, fault.retry_after, fault.body, fault.content_type))
            await writer.drain()
            return
        if kind == "drop_before":
            return
        if kind == "reset":
            _abort_with_rst(writer)
            return
        if fault is not None and kind == "delay":
            await asyncio.sleep(fault.seconds)
        try:
            up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        except OSError:
            writer.write(_status_response(502, None, b"upstream unavailable\n", Fault.content_type))
            await writer.drain()
            return
        try:
            up_writer.write(_serialize_request(request))
            await up_writer.drain()
            self._count(key)
            head = await _read_head(up_reader)
            if head is None:
                return  # the upstream closed without answering: so does the proxy
            with self._lock:
                cut = self._cut_streams and request.method == "GET"
            if cut:
                writer.write(_client_head(head))
                await writer.drain()
                return
            if kind in ("drop_after", "status_after", "drop_mid", "hold"):
                rest = await up_reader.read()  # `Connection: close` upstream: the answer ends at EOF
                if kind == "hold":
                    while await reader.read(65536):  # no answer until the client hangs up
                        pass
                    return
                if fault is not None and kind == "status_after":
                    assert fault.code is not None
                    writer.write(_status_response(fault.code, fault.retry_after, fault.body, fault.content_type))
                elif kind == "drop_mid":
                    writer.write(_client_head(head) + _truncated_body(head, rest))
                await writer.drain()
                return
            writer.write(_client_head(head))
            await writer.drain()
            await _pipe_until_either_closes(up_reader, reader, writer)
        finally:
            up_writer.transport.abort()
