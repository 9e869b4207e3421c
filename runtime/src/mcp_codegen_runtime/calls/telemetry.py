"""OpenTelemetry for every request a client sends: one CLIENT span and a duration by the MCP conventions.

The OpenTelemetry semantic conventions for MCP (semantic-conventions-genai, `gen-ai/mcp.md`,
Development status) name a request's span `{mcp.method.name} {target}` (`tools/call get_weather`),
put the tool, prompt or resource on it, set `error.type` (`tool_error` for a result with
`isError`, the JSON-RPC code of an error response, else the exception's class) and record the
histograms `mcp.client.operation.duration` and `mcp.client.session.duration` in seconds.

Nothing happens unless the application set an OpenTelemetry tracer or meter provider: `active()`
is one provider lookup, and `opentelemetry` (which `mcp` imports anyway) is only imported here
once a connection sends its first request. The SDK opens a span of its own for each request
(`MCP send ...`, `mcp.shared._otel`); under ours it is replaced by a non-recording span that
carries our span's context, so a trace has one span per request and the W3C `traceparent` the SDK
propagates in `params._meta` (SEP-414) names our span. The request's JSON-RPC id it reports is
copied onto ours. Arguments, results and prompt variables are recorded only when asked
(`trace_content=True` on the connector); no header value is ever recorded (nor `Mcp-Session-Id`,
which a server may treat as a credential).

Not to be confused with `tracing` (the `on_call` observers and the `TraceRecorder`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, Histogram
    from opentelemetry.trace import Span, Tracer

__all__ = [
    "Telemetry",
    "active",
    "http_peer",
    "record_retry",
    "record_session",
    "traced",
]

R = TypeVar("R")

#: The instrumentation scope our spans and metrics are reported under.
SCOPE = "mcp-codegen"
#: Bucket boundaries in seconds: the MCP conventions give none; these are the ones advised for the GenAI
#: conventions' `gen_ai.client.operation.duration` (doubling from 10 ms).
_DURATION_BUCKETS = tuple(0.01 * 2**step for step in range(14))
#: The attributes of a span that the duration metric carries too (low cardinality).
_METRIC_KEYS = (
    "mcp.method.name",
    "gen_ai.operation.name",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
    "server.address",
    "server.port",
)
#: Requests whose params name a resource.
_RESOURCE_METHODS = frozenset(
    {"resources/read", "resources/subscribe", "resources/unsubscribe"}
)

Peer = Mapping[str, str | int]

STDIO_PEER: Peer = {"network.transport": "pipe"}
IN_PROCESS_PEER: Peer = {"network.transport": "inproc"}


def http_peer(url: str) -> Peer:
    """The transport attributes of an HTTP server at `url`: host and port only, never credentials."""
    parts = urlsplit(url)
    peer: dict[str, str | int] = {
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    if parts.hostname:
        peer["server.address"] = parts.hostname
        try:
            port = parts.port
        except ValueError:
            port = None
        if port is None:
            port = 443 if parts.scheme == "https" else 80
        peer["server.port"] = port
    return peer


class _Api:
    """The `opentelemetry` API, imported on first use, and the instruments made from the current providers."""

    def __init__(self) -> None:
        from opentelemetry import context, metrics, trace
        from opentelemetry.metrics import _internal as metrics_internal

        self.context = context
        self.metrics = metrics
        self.trace = trace

        #: What `get_*_provider()` return before the application sets one (proxies).
        self.unset_tracer: type[object] = trace.ProxyTracerProvider
        # The API has no public way to ask whether a meter provider was set: its stand-in is private.
        self.unset_meter: object = vars(metrics_internal)["_PROXY_METER_PROVIDER"]
        self.ours_key = context.create_key("mcp-codegen-request-span")
        self._tracer: tuple[object, Tracer] | None = None
        self._histograms: tuple[object, Histogram, Histogram] | None = None
        self._retries: tuple[object, Counter] | None = None

    def tracer(self) -> Tracer:
        provider = self.trace.get_tracer_provider()
        cached = self._tracer
        if cached is None or cached[0] is not provider:
            # The first span (of a provider): from now on the SDK's request span stands in under ours.
            _quiet_the_sdk_span(self)
            cached = self._tracer = (provider, provider.get_tracer(SCOPE, _version()))
        return cached[1]

    def histograms(self) -> tuple[Histogram, Histogram]:
        """(`mcp.client.operation.duration`, `mcp.client.session.duration`) of the current meter provider."""
        provider = self.metrics.get_meter_provider()
        cached = self._histograms
        if cached is None or cached[0] is not provider:
            meter = provider.get_meter(SCOPE, _version())
            cached = self._histograms = (
                provider,
                meter.create_histogram(
                    "mcp.client.operation.duration",
                    unit="s",
                    description="The duration of an MCP request, from sending it to receiving its response.",
                    explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
                ),
                meter.create_histogram(
                    "mcp.client.session.duration",
                    unit="s",
                    description="The duration of an MCP session as observed on the client.",
                    explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
                ),
            )
        return cached[1], cached[2]

    def retries(self) -> Counter:
        """`mcp.client.retries` of the current meter provider."""
        provider = self.metrics.get_meter_provider()
        cached = self._retries
        if cached is None or cached[0] is not provider:
            counter = provider.get_meter(SCOPE, _version()).create_counter(
                "mcp.client.retries",
                unit="{retry}",
                description="Requests sent again after they failed in transit, by method and cause.",
            )
            cached = self._retries = (provider, counter)
        return cached[1]


_api: _Api | None = None


def _the_api() -> _Api:
    global _api
    api = _api
    if api is None:
        api = _api = _Api()
    return api


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp-client-codegen")
    except PackageNotFoundError:
        return "0"


def active() -> bool:
    """Whether the application set a tracer or a meter provider (else nothing is recorded)."""
    api = _the_api()
    return (
        not isinstance(api.trace.get_tracer_provider(), api.unset_tracer)
        or api.metrics.get_meter_provider() is not api.unset_meter
    )


class Telemetry:
    """What a connection adds to its requests' telemetry: the transport, and whether to record content."""

    __slots__ = ("content", "peer")

    def __init__(self, peer: Peer, *, content: bool = False) -> None:
        self.peer = peer
        #: Record arguments, results and prompt variables (opt-in: they may hold personal data).
        self.content = content


def _request_attributes(
    method: str, params: Mapping[str, Any], protocol: str | None
) -> tuple[str, dict[str, Any]]:
    attributes: dict[str, Any] = {"mcp.method.name": method}
    name = params.get("name")
    target = ""
    if method == "tools/call" and isinstance(name, str):
        attributes["gen_ai.tool.name"] = name
        attributes["gen_ai.operation.name"] = "execute_tool"
        target = name
    elif method == "prompts/get" and isinstance(name, str):
        attributes["gen_ai.prompt.name"] = name
        target = name
    elif method in _RESOURCE_METHODS and isinstance(params.get("uri"), str):
        attributes["mcp.resource.uri"] = params["uri"]
    if protocol:
        attributes["mcp.protocol.version"] = protocol
    return (f"{method} {target}" if target else method), attributes


def _content_attributes(method: str, params: Mapping[str, Any]) -> dict[str, str]:
    if method == "tools/call":
        return {
            "gen_ai.tool.call.arguments": json.dumps(
                params.get("arguments") or {}, default=str
            )
        }
    values = params.get("arguments")
    if method == "prompts/get" and isinstance(values, Mapping):
        given = cast("Mapping[str, object]", values)
        return {
            f"gen_ai.prompt.variable.{key}": str(value) for key, value in given.items()
        }
    return {}


def _tool_result_text(result: Any) -> str:
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return json.dumps(structured, default=str)
    blocks = [
        block.model_dump(mode="json", by_alias=True, exclude_none=True)
        for block in result.content
    ]
    return json.dumps(blocks, default=str)


def _error_attributes(error: BaseException) -> tuple[dict[str, str], str | None]:
    """`error.type` (and `rpc.response.status_code`) of a failed request, and the span status message."""
    code = getattr(error, "code", None)
    message = getattr(error, "message", None)
    if (
        isinstance(code, int)
        and not isinstance(code, bool)
        and isinstance(message, str)
    ):
        # A JSON-RPC error response (the SDK's MCPError): its code, and its message as the status.
        return {"error.type": str(code), "rpc.response.status_code": str(code)}, message
    kind = type(error)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    return {"error.type": name}, None


async def traced(
    telemetry: Telemetry,
    request: Any,
    method: str,
    protocol: str | None,
    send: Callable[[], Awaitable[R]],
) -> R:
    """`await send()` inside the request's CLIENT span, recording its duration; `active()` must be true."""
    api = _the_api()
    trace = api.trace
    params = _params(request)
    name, attributes = _request_attributes(method, params, protocol)
    attributes.update(telemetry.peer)
    if telemetry.content:
        attributes.update(_content_attributes(method, params))
    context = api.context
    span = api.tracer().start_span(
        name, kind=trace.SpanKind.CLIENT, attributes=attributes
    )
    # Current for the request, and marked as ours for the SDK span's stand-in: one attach.
    token = context.attach(
        context.set_value(api.ours_key, span, trace.set_span_in_context(span))
    )
    started = time.perf_counter()
    failure: dict[str, str] = {}
    try:
        result = await send()
    except BaseException as error:
        failure, message = _error_attributes(error)
        span.set_attributes(failure)
        span.set_status(trace.StatusCode.ERROR, message)
        raise
    else:
        if method == "tools/call":
            if telemetry.content:
                span.set_attribute("gen_ai.tool.call.result", _tool_result_text(result))
            if getattr(result, "is_error", False):
                failure = {"error.type": "tool_error"}
                span.set_attributes(failure)
                span.set_status(trace.StatusCode.ERROR)
        return result
    finally:
        elapsed = time.perf_counter() - started
        context.detach(token)
        span.end()
        metric = {key: attributes[key] for key in _METRIC_KEYS if key in attributes}
        metric.update(failure)
        api.histograms()[0].record(elapsed, metric)


def record_retry(method: str, retry: int, cause: str, wait: float) -> None:
    """Note a retry on the request's span (an event, and the count so far) and in `mcp.client.retries`
    (when `active()`). `cause` is the fault's short phrase ("HTTP 503", "connection dropped").
    """
    api = _the_api()
    kind = cause.lower().replace(" ", "_")
    span = api.trace.get_current_span()
    if span.is_recording():
        span.add_event(
            "mcp.client.retry",
            {
                "mcp.client.retry.attempt": retry,
                "error.type": kind,
                "mcp.client.retry.wait": wait,
            },
        )
        span.set_attribute("mcp.client.retry.count", retry)
    api.retries().add(1, {"mcp.method.name": method, "error.type": kind})


def record_session(
    seconds: float, peer: Peer, protocol: str | None, error: BaseException | None
) -> None:
    """Record `mcp.client.session.duration` for a session that lasted `seconds` (when `active()`)."""
    attributes: dict[str, Any] = {
        key: value
        for key, value in peer.items()
        if key in ("network.protocol.name", "server.address", "server.port")
    }
    if protocol:
        attributes["mcp.protocol.version"] = protocol
    if error is not None:
        attributes.update(_error_attributes(error)[0])
    _the_api().histograms()[1].record(seconds, attributes)


def _params(request: Any) -> Mapping[str, Any]:
    params = getattr(request, "params", None)
    if params is None:
        return {}
    found: dict[str, Any] = {}
    for key in ("name", "uri", "arguments"):
        value = getattr(params, key, None)
        if value is not None:
            found[key] = value
    return found


def _quiet_the_sdk_span(api: _Api) -> None:
    """Make the SDK's per-request span (`mcp.shared._otel`) a stand-in carrying our span under ours.

    The SDK opens it with the module's `_tracer` in `JSONRPCDispatcher.send_raw_request`, then
    injects the current context into `params._meta`. Outside our span (a request sent through the
    SDK directly, a server's span) its tracer works as before.
    """
    try:
        from mcp.shared import _otel
    except ImportError:  # an SDK without it: nothing to quiet
        return
    sdk_module = _otel.__dict__
    inner = sdk_module.get("_tracer")
    if inner is None or isinstance(inner, _StandInTracer):
        return
    sdk_module["_tracer"] = _StandInTracer(inner, api)


class _StandInTracer:
    """The SDK's tracer, except under our request span: there a non-recording span with our span's context."""

    def __init__(self, inner: Any, api: _Api) -> None:
        self._inner = inner
        self._api = api

    def start_as_current_span(
        self, name: str, context: Any = None, **options: Any
    ) -> Any:
        api = self._api
        ours = cast("Span | None", api.context.get_value(api.ours_key, context))
        if ours is None:
            return self._inner.start_as_current_span(name, context, **options)
        attributes = cast("Mapping[str, object] | None", options.get("attributes"))
        request_id = attributes.get("jsonrpc.request.id") if attributes else None
        if isinstance(request_id, str):
            ours.set_attribute("jsonrpc.request.id", request_id)
        # Our span stays the current one, so the trace context the SDK injects names it.
        return nullcontext(api.trace.NonRecordingSpan(ours.get_span_context()))

    def start_span(self, name: str, context: Any = None, **options: Any) -> Any:
        return self._inner.start_span(name, context, **options)
