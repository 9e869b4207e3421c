"""The blocking client: written by scripts/gen_blocking.py from the async client's parts (do not edit).

Each method is the async client's method of the same name and signature, run on the client's own
event-loop thread (`BlockingCore`); the docstrings are the async ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from .blocking import AsyncT, BlockingCore, SyncConnection

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path
    from typing import Self

    import httpx2
    import mcp_types
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    from ..calls.drift import DriftSummary
    from ..calls.results import PromptResult, ResourceResult, ToolResult
    from ..calls.retries import Retries
    from ..calls.specs import ToolSpec
    from ..calls.tracing import CallHook
    from ..calls.ui import UIResource
    from ..code_mode.sandbox import CodeResult
    from ..connection.cache import CacheSetting
    from ..connection.stdio import StderrTarget
    from ..server_requests import (
        ChangeHandler,
        ElicitationHandler,
        LogHandler,
        LogLevel,
        ResourceUpdatedHandler,
        RootLike,
        SamplingHandler,
    )
    from .connectors import ClientInfo

__all__ = ["SyncClientBase"]


class SyncClientBase(BlockingCore[AsyncT]):
    """A blocking MCP client; the generated `Client` adds one method per tool that forwards to `_async`.

    Create one with `stdio()`, `http()` or `connect()` (context managers; `.open()` works without
    `with`, then `close()`). One client may be used from several threads at once.
    `with_options()` gives a view of the same client whose calls use per-call options.
    """

    __slots__ = ()

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
    ) -> SyncConnection[Self]:
        """Start `command args...` and talk MCP over its stdin/stdout: `with Client.stdio(...) as client:`.

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
                cache=cache,
                trace_content=trace_content,
                retries=retries,
                record=record,
                redact=redact,
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
        cache: CacheSetting = True,
        trace_content: bool = False,
        retries: int | Retries = 5,
        record: str | os.PathLike[str] | None = None,
        redact: bool = True,
    ) -> SyncConnection[Self]:
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
                cache=cache,
                trace_content=trace_content,
                retries=retries,
                record=record,
                redact=redact,
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
    ) -> SyncConnection[Self]:
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
        async_class = cls._async_class
        return SyncConnection(
            cls,
            lambda: async_class.connect(
                env=env,
                headers=headers,
                timeout=timeout,
                auth=auth,
                dpop=dpop,
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
                cache=cache,
                trace_content=trace_content,
                retries=retries,
                record=record,
                redact=redact,
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
    ) -> SyncConnection[Self]:
        """Talk to a server object in this process (tests, embedding): `with Client.in_process(srv)`.

        `drift_check`, `strict`, `client_info`, the server-request handlers, `cache`,
        `trace_content`, `retries`, `record` and `redact`: see `stdio()`.
        """
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
                cache=cache,
                trace_content=trace_content,
                retries=retries,
                record=record,
                redact=redact,
            ),
        )

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
    ) -> SyncConnection[Self]:
        """Answer from a recording instead of a server: `with Client.replay("session.ndjson") as client:`.

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
        async_class = cls._async_class
        return SyncConnection(
            cls,
            lambda: async_class.replay(
                path,
                server=server,
                lenient=lenient,
                ignore_arguments=ignore_arguments,
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

    @property
    def server_info(self) -> mcp_types.Implementation | None:
        """The server's name and version from `initialize` (None before it is known)."""
        return self._async.server_info

    @property
    def protocol_version(self) -> str | None:
        """The MCP protocol version agreed with the server at `initialize`."""
        return self._async.protocol_version

    @property
    def instructions(self) -> str | None:
        """The server's `instructions` from `initialize`: hints for using it, meant for a model's prompt."""
        return self._async.instructions

    def reconnect(self) -> None:
        """Connect again the way this client connected (a stdio server is started again; an HTTP
        server gets a new session), after the server exited, restarted or dropped the session.

        Requests do this by themselves when their connection was lost (unless `retries=0`); call
        it to start afresh on purpose. Calls in flight on the old session keep it until they are
        answered (a stdio server that exited fails them: they are sent again where that is safe);
        later calls use the new session, as do `with_options()` views. The drift guard runs again. Raises `ConnectError`
        when the server cannot be reached (the client stays closed), and RuntimeError for a
        client made by `from_session()` (its session is yours).
        """
        self._run(self._async.reconnect)

    def ping(self, *, timeout: float | None = None) -> None:
        """Check that the server answers (MCP `ping`); raises `RequestTimeoutError` after `timeout` s."""
        self._run(self._async.ping, timeout=timeout)

    def set_roots(self, roots: Sequence[RootLike]) -> None:
        """Replace the roots offered to the server and notify it (`notifications/roots/list_changed`).

        Paths become absolute `file://` URIs. Needs a client connected with `roots=` (an empty
        list offers roots without any yet); otherwise raises RuntimeError.
        """
        self._run(self._async.set_roots, roots)

    @property
    def roots(self) -> tuple[str, ...] | None:
        """The URIs of the roots offered to the server, or None when roots are not offered."""
        return self._async.roots

    def set_log_level(self, level: LogLevel, *, timeout: float | None = None) -> None:
        """Ask the server to send log messages at `level` and above (`logging/setLevel`).

        The messages reach the `on_log=` handler. Logging is deprecated in MCP 2026-07-28 but
        still what servers speaking 2025-11-25 and older use.
        """
        self._run(self._async.set_log_level, level, timeout=timeout)

    def check_drift(self, *, strict: bool = False) -> DriftSummary | None:
        """Compare the server's tools now with the snapshot this client was generated from: what connecting
        does unless `drift_check=False` (and what a `from_session` client never does by itself).

        Logs one warning naming what drifted, or raises `SchemaDriftError` when `strict`. None when the
        listing could not be read (or the package carries no hashes)."""
        return self._run(self._async.check_drift, strict=strict)

    def subscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Ask for `notifications/resources/updated` about `uri` (they reach `on_resource_updated=`).

        Raises `ServerRequestError` when the server does not offer subscriptions."""
        self._run(self._async.subscribe_resource, uri, timeout=timeout)

    def unsubscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Stop the updates `subscribe_resource(uri)` asked for."""
        self._run(self._async.unsubscribe_resource, uri, timeout=timeout)

    def list_tools(self) -> list[mcp_types.Tool]:
        """Every tool the server lists now (all pages)."""
        return self._run(self._async.list_tools)

    def list_resources(self) -> list[mcp_types.Resource]:
        """Every resource the server lists now (all pages of `resources/list`), as the SDK's models."""
        return self._run(self._async.list_resources)

    def list_resource_templates(self) -> list[mcp_types.ResourceTemplate]:
        """Every resource template the server lists now (all pages of `resources/templates/list`)."""
        return self._run(self._async.list_resource_templates)

    def list_prompts(self) -> list[mcp_types.Prompt]:
        """Every prompt the server lists now (all pages of `prompts/list`), as the SDK's models."""
        return self._run(self._async.list_prompts)

    def read_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> ResourceResult:
        """Read a resource by URI; a server error becomes a ResourceError."""
        return self._run(self._async.read_resource, uri, timeout=timeout)

    def read_ui(
        self, tool: str | ToolSpec[Any, Any], *, timeout: float | None = None
    ) -> UIResource:
        """Read a tool's MCP Apps UI resource (`_meta.ui.resourceUri`, a `ui://` resource).

        `tool` is a Python or wire name, or a spec (`TOOLS["display_pdf"]`). Returns its HTML, MIME
        type (`text/html;profile=mcp-app`) and the resource's `_meta.ui` typed: `csp`
        (`connect_domains`, `resource_domains`, ...), `permissions`, `prefers_border`, `domain`.
        Raises NoUIError when the tool has no UI, UnknownToolError for an unknown name and
        ResourceError when the server refuses the read.
        """
        return self._run(self._async.read_ui, tool, timeout=timeout)

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        """Render a prompt; a server error (unknown prompt, missing argument) becomes a PromptError."""
        return self._run(self._async.get_prompt, name, arguments, timeout=timeout)

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Call a tool by wire (or Python) name; `arguments` may use wire or Python field names.

        Returns what the typed method returns: the result model, the unwrapped value, or a ToolResult.
        """
        return self._run(self._async.call, name, arguments, timeout=timeout)

    def call_raw(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """Call any tool (even one this client was not generated with) without validation.

        The result is returned as is, also when `is_error` is set.
        """
        return self._run(self._async.call_raw, name, arguments, timeout=timeout)

    def on_call(self, callback: CallHook) -> Callable[[], None]:
        """Call `callback(ToolCall)` after every tool call (typed, `call()`, `call_raw()`, agent adapters).

        The `ToolCall` carries the wire name, the arguments, the result or the error and the
        duration. `callback` may be a coroutine function (it is awaited, on the client's loop);
        its exceptions are logged, never raised. Returns a function that removes the callback.
        `TraceRecorder().attach(client)` keeps every call and renders a transcript.
        """
        return self._async.on_call(callback)

    @property
    def tool_specs(self) -> Mapping[str, ToolSpec[Any, Any]]:
        """The specs of this client's tools by wire name (the generated package's `TOOLS`)."""
        return self._async.tool_specs

    def handle_openai_tool_calls(
        self, tool_calls: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the tool calls of one OpenAI Chat Completions message, concurrently.

        `tool_calls` is `message.tool_calls` (SDK objects or dicts). Returns one
        `{"role": "tool", "tool_call_id": ..., "content": ...}` message per call, in order, to
        append to the conversation. Failures (unknown tool, invalid arguments, `isError`, a
        timeout) become the content of their message, prefixed `Error:`; nothing is raised
        but a lost connection.
        """
        return self._run(
            self._async.handle_openai_tool_calls, tool_calls, timeout=timeout
        )

    def handle_openai_responses_calls(
        self, output: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run the `function_call` items of an OpenAI Responses API `response.output`, concurrently.

        Returns one `{"type": "function_call_output", "call_id": ..., "output": ...}` input
        item per call (other items are skipped); failures become their output, prefixed `Error:`.
        """
        return self._run(
            self._async.handle_openai_responses_calls, output, timeout=timeout
        )

    def handle_anthropic_tool_use(
        self, content: Sequence[Any] | None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run every `tool_use` block of an Anthropic Messages API `message.content`, concurrently.

        Returns the `tool_result` blocks (in order) for the next user message: text blocks,
        images as image blocks, failures with `is_error: true`.
        """
        return self._run(
            self._async.handle_anthropic_tool_use, content, timeout=timeout
        )

    def code_api(self) -> str:
        """The `.pyi` stub of the module code sees in `run_code()`: one typed `async def` per tool a model
        may call (app-only MCP Apps tools left out), named and typed as this client's methods, objects as
        `TypedDict`s, the tool's description as its docstring. Generated with the package (`code_api.pyi`).
        """
        return self._async.code_api()

    def run_code(
        self, code: str, *, timeout: float = 10.0, memory: int = 128 * 1024 * 1024
    ) -> CodeResult:
        """Run Python `code` against the code API (`code_api()`) in a sandbox; return its `CodeResult`.

        The code imports the package's module (`import demo_client`) and awaits its functions
        (`await demo_client.add(a=1, b=2)`); each is this client's typed call, and a failed one
        raises in the code as a built-in exception it may catch. `timeout` bounds the whole run,
        wall-clock; no call outlives the run. See `AsyncClient.run_code` for the limits.

        Raises:
            CodeTypeError: The code does not parse or type-check (its line named); nothing ran.
            CodeError: The code raised (its line named), or its value has no JSON form.
            CodeLimitError: The run hit a limit (`limit` names it); the client stays usable.
            ImportError: pydantic-monty is not installed (the `code` extra).
        """
        return self._run(self._async.run_code, code, timeout=timeout, memory=memory)
