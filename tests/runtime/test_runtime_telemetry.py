"""OpenTelemetry (`runtime/calls/telemetry.py`): one CLIENT span per request by the MCP conventions, its duration
metric, and the W3C trace context the server receives in `params._meta`.

Real servers: `otel_server.py` (the runtime tests' server plus `echo_meta`, which answers the `_meta` it received)
over stdio and over streamable HTTP on 127.0.0.1, a client package generated from it with `--cli`, and the
OpenTelemetry SDK with its in-memory span exporter and metric reader set as the global providers for one test.
"""

from __future__ import annotations

import runpy
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from opentelemetry import metrics, trace
from opentelemetry.metrics import _internal as metrics_internal
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from opentelemetry.util._once import Once
from otel_server import build_server
from servers.helpers import serve_http

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.fetch import snapshot_server

SERVER_SCRIPT = str(Path(__file__).resolve().parent / "otel_server.py")
PACKAGE = "otel_client"
SCOPE = "mcp-codegen"


class Recorded:
    """The spans and metric points the SDK's in-memory exporter and reader collected."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def ours(self) -> list[ReadableSpan]:
        """Our request spans (the SDK's server spans of an in-process server are reported too)."""
        return [
            s for s in self.spans() if s.instrumentation_scope is not None and s.instrumentation_scope.name == SCOPE
        ]

    def one(self, name: str) -> ReadableSpan:
        found = [s for s in self.ours() if s.name == name]
        assert len(found) == 1, [s.name for s in self.ours()]
        return found[0]

    def points(self, metric: str) -> list[dict[str, Any]]:
        """Each data point of `metric` as its attributes plus `count`."""
        data = self.reader.get_metrics_data()
        found: list[dict[str, Any]] = []
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                for item in scope.metrics:
                    if item.name == metric:
                        assert item.unit == "s"
                        found += [{**p.attributes, "count": p.count} for p in item.data.data_points]  # type: ignore[union-attr]
        return found


def _reset_providers() -> None:
    """No provider set, as in a fresh process (the public API sets one only once per process)."""
    from mcp.shared import _otel

    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    metrics_internal._METER_PROVIDER = None
    metrics_internal._METER_PROVIDER_SET_ONCE = Once()
    sdk_tracer = _otel.__dict__["_tracer"]  # the SDK's ProxyTracer (in the runtime's stand-in once that is made)
    getattr(sdk_tracer, "_inner", sdk_tracer)._real_tracer = None  # it caches the first provider's tracer


@pytest.fixture
def otel() -> Iterator[Recorded]:
    """The OpenTelemetry SDK as the global tracer and meter provider, for this test only."""
    recorded = Recorded()
    _reset_providers()
    trace.set_tracer_provider(recorded.tracer_provider)
    metrics.set_meter_provider(recorded.meter_provider)
    try:
        yield recorded
    finally:
        _reset_providers()
        recorded.tracer_provider.shutdown()
        recorded.meter_provider.shutdown()


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """A client package (with its command line) generated from `otel_server`, imported."""
    directory = tmp_path_factory.mktemp("otel")
    snapshot = anyio.run(lambda: snapshot_server(build_server(), diagnostics=Diagnostics()))
    files = generate_files(snapshot, package_name=PACKAGE, diagnostics=Diagnostics(), options=GenerateOptions(cli=True))
    write_package(directory / PACKAGE, files, overwrite=True)
    sys.path.insert(0, str(directory))
    try:
        import importlib

        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(directory))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _hex(number: int, width: int) -> str:
    return format(number, f"0{width}x")


def _received(echoed: Any) -> dict[str, Any]:
    """The `_meta` the server echoed (`echo_meta`'s typed result, or a dict)."""
    return dict(echoed) if isinstance(echoed, dict) else dict(echoed.model_dump())


def _traceparent_names(span: ReadableSpan, echoed: Any) -> None:
    """The server received a `traceparent` naming `span` (its trace and its own span id)."""
    meta = _received(echoed)
    context = span.get_span_context()
    version, trace_id, span_id, _flags = str(meta["traceparent"]).split("-")
    assert (version, trace_id, span_id) == ("00", _hex(context.trace_id, 32), _hex(context.span_id, 16))


def _no_sdk_request_spans(recorded: Recorded) -> None:
    """The SDK's own `MCP send ...` span appears only for what the client does not send itself: initialize, once
    per session (every other request, tools/list included, is the client's own span, never doubled by the SDK's)."""
    sdk = [s.name for s in recorded.spans() if s.name.startswith("MCP send ")]
    assert sdk == ["MCP send initialize"], sdk  # one session per test


# --------------------------------------------------------------------------------------------------
# stdio and streamable HTTP: span names, attributes, tool errors, the metric and the trace context
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_stdio_requests_are_client_spans_under_the_callers_span(otel: Recorded, package: ModuleType) -> None:
    tracer = trace.get_tracer("the-application")
    async with package.AsyncClient.stdio(sys.executable, [SERVER_SCRIPT], drift_check=False) as client:
        with tracer.start_as_current_span("agent step") as caller:
            assert await client.add(a=2, b=3) == 5
            echoed = await client.echo_meta()
            with pytest.raises(package.ToolError):
                await client.fail(message="no")
            await client.ping()
            await client.prompts.review(code="x = 1")
            await client.resources.app_config()
            await client.list_tools()

    add = otel.one("tools/call add")
    assert add.kind is SpanKind.CLIENT
    assert add.parent is not None and add.parent.span_id == caller.get_span_context().span_id
    assert add.context.trace_id == caller.get_span_context().trace_id
    attributes = dict(add.attributes or {})
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["gen_ai.tool.name"] == "add"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["network.transport"] == "pipe"
    assert attributes["mcp.protocol.version"] == client.protocol_version
    assert attributes["jsonrpc.request.id"].isdigit()
    assert "error.type" not in attributes and add.status.status_code is StatusCode.UNSET
    # Content is opt-in.
    assert not any(key.startswith("gen_ai.tool.call.") for key in attributes)

    _traceparent_names(otel.one("tools/call echo_meta"), echoed)

    failed = otel.one("tools/call fail")
    assert failed.attributes is not None and failed.attributes["error.type"] == "tool_error"
    assert failed.status.status_code is StatusCode.ERROR

    assert "gen_ai.tool.name" not in (otel.one("ping").attributes or {})
    review = otel.one("prompts/get review")
    assert review.attributes is not None and review.attributes["gen_ai.prompt.name"] == "review"
    assert not any(key.startswith("gen_ai.prompt.variable") for key in review.attributes)
    read = otel.one("resources/read")
    assert read.attributes is not None and read.attributes["mcp.resource.uri"] == "config://app"
    assert otel.one("tools/list").attributes is not None
    _no_sdk_request_spans(otel)

    points = otel.points("mcp.client.operation.duration")
    methods = {(p["mcp.method.name"], p.get("gen_ai.tool.name"), p.get("error.type")) for p in points}
    assert {("tools/call", "add", None), ("tools/call", "fail", "tool_error"), ("ping", None, None)} <= methods
    assert all("mcp.resource.uri" not in p for p in points)  # opt-in on metrics
    sessions = otel.points("mcp.client.session.duration")
    assert [p["count"] for p in sessions] == [1]
    assert sessions[0]["mcp.protocol.version"] == client.protocol_version


@pytest.mark.anyio
async def test_http_spans_carry_the_server_address_and_the_server_continues_the_trace(
    otel: Recorded, package: ModuleType
) -> None:
    with serve_http(build_server()) as url:
        port = int(url.split(":")[2].split("/")[0])
        secret = {"Authorization": "Bearer s3cret-token"}
        async with package.AsyncClient.http(
            url, headers=secret, transport="http", drift_check=False, trace_content=True
        ) as client:
            echoed = await client.echo_meta()
            with pytest.raises(package.McpClientError):
                await client.read_resource("missing://nothing")

    echo = otel.one("tools/call echo_meta")
    attributes = dict(echo.attributes or {})
    assert attributes["network.transport"] == "tcp"
    assert attributes["network.protocol.name"] == "http"
    assert (attributes["server.address"], attributes["server.port"]) == ("127.0.0.1", port)
    assert echo.parent is None  # no caller span: a root span
    _traceparent_names(echo, echoed)
    # The in-process server's own span (the SDK's server instrumentation) continues our trace.
    served = [s for s in otel.spans() if s.kind is SpanKind.SERVER and s.context.trace_id == echo.context.trace_id]
    assert served and all(s.parent is not None and s.parent.span_id == echo.context.span_id for s in served)

    missing = otel.one("resources/read")
    assert missing.status.status_code is StatusCode.ERROR
    code = dict(missing.attributes or {})["error.type"]
    assert code.lstrip("-").isdigit()  # a JSON-RPC error: its code
    assert dict(missing.attributes or {})["rpc.response.status_code"] == code
    _no_sdk_request_spans(otel)
    points = otel.points("mcp.client.operation.duration")
    assert any(p["mcp.method.name"] == "tools/call" and p["server.port"] == port for p in points)
    # No header value is recorded, content recording or not.
    recorded = [str(value) for span in otel.spans() for value in dict(span.attributes or {}).values()]
    recorded += [str(value) for point in points for value in point.values()]
    assert not any("s3cret" in value for value in recorded)


@pytest.mark.anyio
async def test_content_is_recorded_only_when_asked(otel: Recorded, package: ModuleType) -> None:
    server = build_server()
    async with package.AsyncClient.in_process(server, drift_check=False, trace_content=True) as client:
        await client.add(a=2, b=3)
        await client.prompts.review(code="x = 1")
    attributes = dict(otel.one("tools/call add").attributes or {})
    assert attributes["gen_ai.tool.call.arguments"] == '{"a": 2, "b": 3}'
    assert attributes["gen_ai.tool.call.result"] == '{"result": 5}'
    assert attributes["network.transport"] == "inproc"
    review = dict(otel.one("prompts/get review").attributes or {})
    assert review["gen_ai.prompt.variable.code"] == "x = 1"


# --------------------------------------------------------------------------------------------------
# The blocking twin, agent tools and the generated command line nest under the caller's span
# --------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_sdks_own_span_stays_for_requests_sent_past_the_client(otel: Recorded, package: ModuleType) -> None:
    async with package.AsyncClient.in_process(build_server(), drift_check=False) as client:
        await client.ping()
        await client.session.send_ping()  # straight through the SDK: its span, as without this client
    assert [s.name for s in otel.ours()] == ["ping"]
    assert [s.name for s in otel.spans() if s.kind is SpanKind.CLIENT and s.name.endswith("ping")] == [
        "ping",
        "MCP send ping",
    ]


def test_the_blocking_client_nests_under_the_calling_threads_span(otel: Recorded, package: ModuleType) -> None:
    tracer = trace.get_tracer("the-application")
    with package.Client.stdio(sys.executable, [SERVER_SCRIPT], drift_check=False) as client:
        with tracer.start_as_current_span("script") as caller:
            echoed = client.echo_meta()
            client.resources.app_config()
    echo = otel.one("tools/call echo_meta")
    assert echo.parent is not None and echo.parent.span_id == caller.get_span_context().span_id
    _traceparent_names(echo, echoed)
    assert otel.one("resources/read").parent is not None


@pytest.mark.anyio
async def test_agent_tool_calls_nest_under_the_agents_span(otel: Recorded, package: ModuleType) -> None:
    tracer = trace.get_tracer("the-agent")
    async with package.AsyncClient.in_process(build_server(), drift_check=False) as client:
        tools = client.tools(include=["add", "fail"])
        with tracer.start_as_current_span("execute_tool add") as caller:
            assert await tools["add"].call({"a": 1, "b": 1}) == 2
        replies = await tools.handle_openai_tool_calls(
            [{"id": "c1", "type": "function", "function": {"name": "fail", "arguments": '{"message": "m"}'}}]
        )
    assert replies and replies[0]["tool_call_id"] == "c1"
    add = otel.one("tools/call add")
    assert add.parent is not None and add.parent.span_id == caller.get_span_context().span_id
    assert dict(otel.one("tools/call fail").attributes or {})["error.type"] == "tool_error"


def test_the_generated_command_line_traces_its_call(
    otel: Recorded, package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    tracer = trace.get_tracer("the-shell")
    command = shlex.join([sys.executable, SERVER_SCRIPT])
    monkeypatch.setattr(sys, "argv", [PACKAGE, "--stdio", command, "add", "--a", "4", "--b", "5"])
    with tracer.start_as_current_span("job") as caller, pytest.raises(SystemExit) as exited:
        runpy.run_module(PACKAGE, run_name="__main__")
    assert exited.value.code == 0
    add = otel.one("tools/call add")
    assert add.parent is not None and add.parent.span_id == caller.get_span_context().span_id


# --------------------------------------------------------------------------------------------------
# Without a provider: nothing is recorded, nothing is propagated
# --------------------------------------------------------------------------------------------------


_WITHOUT_PROVIDER = """
import json, sys, anyio
from otel_server import build_server
from otel_client import AsyncClient
from mcp_codegen_runtime.calls import telemetry

async def main():
    async with AsyncClient.in_process(build_server(), drift_check=False) as client:
        echoed = await client.echo_meta()
    from mcp.shared import _otel

    sdk_tracer = type(_otel.__dict__["_tracer"]).__name__  # left as the SDK made it
    print(json.dumps({"active": telemetry.active(), "meta": echoed.model_dump(), "sdk": sdk_tracer}))

anyio.run(main)
"""


def test_without_a_provider_nothing_is_recorded_or_propagated(package: ModuleType) -> None:
    """A fresh interpreter without a provider (the SDK's tracer caches the first provider it saw)."""
    import json
    import os
    import subprocess

    paths = [str(Path(package.__file__).parents[1]), str(Path(SERVER_SCRIPT).parent), *sys.path]
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PROVIDER],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == {"active": False, "meta": {}, "sdk": "ProxyTracer"}


def test_the_sdk_span_this_module_stands_in_for_is_where_it_was() -> None:
    """`mcp.shared._otel._tracer` opens the SDK's per-request span (a moved one would double our spans)."""
    import inspect

    from mcp.shared import _otel, jsonrpc_dispatcher

    assert hasattr(_otel, "_tracer")
    assert "_tracer.start_as_current_span(" in inspect.getsource(_otel.otel_span)
    assert jsonrpc_dispatcher.otel_span is _otel.otel_span
    assert "inject_trace_context(out_meta)" in inspect.getsource(jsonrpc_dispatcher.JSONRPCDispatcher.send_raw_request)


@pytest.mark.anyio
async def test_retries_show_on_the_span_and_are_counted_by_cause(otel: Recorded, package: ModuleType) -> None:
    from servers.fault_proxy import FaultProxy, status

    fast = package.Retries(initial_delay=0.01, max_delay=0.02)
    with serve_http(build_server()) as url, FaultProxy(url) as proxy:
        async with package.AsyncClient.http(
            proxy.endpoint, transport="http", drift_check=False, retries=fast
        ) as client:
            proxy.plan(status(503, retry_after=0), status(429, retry_after=0), tool="add")
            assert await client.add(a=1, b=2) == 3
            assert await client.add(a=2, b=2) == 4  # no fault: no retry on its span

    first, second = [s for s in otel.ours() if s.name == "tools/call add"]
    events = [event for event in first.events if event.name == "mcp.client.retry"]
    assert [dict(event.attributes or {})["error.type"] for event in events] == ["http_503", "http_429"]
    assert [dict(event.attributes or {})["mcp.client.retry.attempt"] for event in events] == [1, 2]
    assert dict(first.attributes or {})["mcp.client.retry.count"] == 2
    assert first.status.status_code is not StatusCode.ERROR
    assert not second.events and "mcp.client.retry.count" not in dict(second.attributes or {})
    data = otel.reader.get_metrics_data()
    counted: dict[tuple[str, str], int] = {}
    for resource in data.resource_metrics if data is not None else []:
        for scope in resource.scope_metrics:
            for item in scope.metrics:
                if item.name == "mcp.client.retries":
                    for point in item.data.data_points:  # type: ignore[union-attr]
                        attributes = dict(point.attributes or {})
                        key = (str(attributes["mcp.method.name"]), str(attributes["error.type"]))
                        counted[key] = counted.get(key, 0) + int(point.value)  # type: ignore[union-attr]
    assert counted == {("tools/call", "http_503"): 1, ("tools/call", "http_429"): 1}
