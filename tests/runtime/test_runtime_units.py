"""Small pieces of the runtime: sentinel, errors, URI templates, specs, results, import cost."""

from __future__ import annotations

import base64
import copy
import json
import os
import pickle
import ssl
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from rt_helpers import HERE

from mcp_codegen_runtime import (
    NOT_SENT,
    ArgumentsValidationError,
    ConnectionClosedError,
    NotSent,
    PromptSpec,
    ProtocolError,
    RequestTimeoutError,
    ResourceResult,
    ResourceSpec,
    ServerRequestError,
    SnapshotData,
    SnapshotError,
    ToolError,
    ToolResult,
    ToolSpec,
)
from mcp_codegen_runtime.calls.errors import translate_error, unwrap_exception_group
from mcp_codegen_runtime.calls.uri import (  # pyright: ignore[reportPrivateUsage]
    _expand_locally,  # pyright: ignore[reportPrivateUsage]
    expand_uri_template,
    match_uri_template,
    uri_template_expressions,
    uri_template_variables,
)
from mcp_codegen_runtime.text import one_line, printable

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_not_sent_sentinel() -> None:
    assert NOT_SENT is NotSent.NOT_SENT
    assert not NOT_SENT
    assert repr(NOT_SENT) == "NOT_SENT" == str(NOT_SENT)
    assert copy.deepcopy(NOT_SENT) is NOT_SENT
    assert pickle.loads(pickle.dumps(NOT_SENT)) is NOT_SENT


def test_translate_maps_sdk_errors() -> None:
    from mcp.shared.exceptions import MCPError

    closed = translate_error(MCPError(-32000, "Connection closed"))
    timeout = translate_error(MCPError(-32001, "Request timed out"), method="tools/call")
    other = translate_error(MCPError(-32602, "Invalid params", {"x": 1}), method="tools/call")
    assert type(closed) is ConnectionClosedError
    assert type(timeout) is RequestTimeoutError and isinstance(timeout, TimeoutError)
    assert type(other) is ServerRequestError
    assert (other.code, other.message, other.data, other.method) == (-32602, "Invalid params", {"x": 1}, "tools/call")
    assert type(translate_error(TimeoutError())) is RequestTimeoutError

    import anyio

    for error in (anyio.ClosedResourceError(), anyio.BrokenResourceError(), anyio.EndOfStream()):
        assert type(translate_error(error)) is ConnectionClosedError
    from pydantic import BaseModel, ValidationError

    class Strict(BaseModel):
        x: int

    with pytest.raises(ValidationError) as invalid:
        Strict.model_validate({"x": "no"})
    assert type(translate_error(invalid.value)) is ProtocolError
    unknown = KeyError("bug")
    assert translate_error(unknown) is unknown


def test_exception_groups_are_unwrapped() -> None:
    import asyncio

    inner = ValueError("root cause")
    group = ExceptionGroup("outer", [ExceptionGroup("inner", [inner])])
    assert unwrap_exception_group(group) is inner
    mixed = BaseExceptionGroup("mixed", [asyncio.CancelledError(), inner])
    assert unwrap_exception_group(mixed) is inner
    cancelled = asyncio.CancelledError()
    assert unwrap_exception_group(BaseExceptionGroup("c", [cancelled])) is cancelled
    from mcp.shared.exceptions import MCPError

    wrapped = ExceptionGroup("g", [ExceptionGroup("g", [MCPError(-32000, "Connection closed")])])
    assert type(translate_error(wrapped)) is ConnectionClosedError


def test_errors_pickle_and_keep_their_fields() -> None:
    result = ToolResult(types.CallToolResult(content=[types.TextContent(type="text", text="boom")], is_error=True))
    error = ToolError(result, tool="t")
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is ToolError and restored.tool == "t" and str(restored) == "boom"
    assert restored.result == result
    server = pickle.loads(pickle.dumps(ServerRequestError(-1, "m", {"d": 1}, method="x")))
    assert (server.code, server.message, server.data, server.method) == (-1, "m", {"d": 1}, "x")
    arguments = ArgumentsValidationError(
        [{"type": "missing", "loc": ("a",), "msg": "Field required", "input": {}}], tool="t"
    )
    assert "a: Field required" in str(arguments)
    assert pickle.loads(pickle.dumps(arguments)).errors == arguments.errors


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        ("file://docs/{name}", {"name": "hello world.txt"}, "file://docs/hello%20world.txt"),
        ("file://docs/{name}", {"name": "a/b"}, "file://docs/a%2Fb"),
        ("file://docs/{+path}", {"path": "src/main.py"}, "file://docs/src/main.py"),
        ("/search{?q,lang}", {"q": "mcp", "lang": "en"}, "/search?q=mcp&lang=en"),
        ("/search{?q,lang}", {"q": "a&b"}, "/search?q=a%26b"),
        ("/files{/path*}", {"path": ["a", "b"]}, "/files/a/b"),
        ("x://{a}{b}", {"a": "1", "b": "2"}, "x://12"),  # rejected by the SDK's parser: expanded locally
        ("x://{id:3}", {"id": "abcdef"}, "x://abc"),
        ("x://{list}", {"list": ["a", "b c"]}, "x://a,b%20c"),
        ("x://{#frag}", {"frag": "a/b c"}, "x://#a/b%20c"),
        ("x://{.ext}", {"ext": "json"}, "x://.json"),
        ("x://{;p}", {"p": ""}, "x://;p"),
        ("x://{missing}/y", {}, "x:///y"),
    ],
)
def test_uri_template_expansion(template: str, values: dict[str, str | list[str]], expected: str) -> None:
    assert expand_uri_template(template, values) == expected


def test_local_expander_agrees_with_the_sdk() -> None:
    cases: list[tuple[str, dict[str, str | list[str]]]] = [
        ("users://{user_id}/profile", {"user_id": "a b/c?"}),
        ("r://{+path}{?q}", {"path": "a/b", "q": "x y"}),
        ("r://x{/segments*}{?page,size}", {"segments": ["p", "q r"], "page": "2"}),
        ("r://{a,b}", {"a": "1", "b": "ü"}),
    ]
    for template, values in cases:
        assert _expand_locally(template, values) == expand_uri_template(template, values), template


def test_one_template_parser_for_variables_matching_and_the_sdk() -> None:
    template = "r://{+path}/x{/seg*}{?q,page:2}{&q}"
    assert uri_template_variables(template) == ["path", "seg", "q", "page"]
    operators = [(e.operator, [v.name for v in e.variables]) for e in uri_template_expressions(template)]
    assert operators == [("+", ["path"]), ("/", ["seg"]), ("?", ["q", "page"]), ("&", ["q"])]
    # The SDK's parser agrees on the variables of every template it accepts.
    from mcp.shared.uri_template import UriTemplate

    for accepted in ("users://{user_id}/profile", "r://{+path}{?q}", "r://x{/segments*}{?page,size}"):
        assert uri_template_variables(accepted) == list(UriTemplate.parse(accepted).variable_names), accepted
    assert match_uri_template("notes://{id}/body", "notes://a%20b/body") == {"id": "a b"}
    assert match_uri_template("notes://{id}/body", "notes://a/b/body") is None
    assert match_uri_template("files://{+path}{?rev}", "files://a/b.txt?rev=2") == {"path": "a/b.txt"}


def test_one_line_removes_escape_sequences_and_control_characters() -> None:
    assert one_line("\x1b[31mred\x1b[0m\nnext\tline\x07") == "red next line"
    assert one_line(ValueError()) == "ValueError"
    assert one_line("a" * 50, 10) == "aaaaaaaaa…"
    assert one_line("  a \r\n b  ", None) == "a b"
    # What str.isprintable refuses beyond C0/C1: a bidirectional override, a line separator.
    assert one_line("evil\u202egnp.exe\u2028next") == "evil gnp.exe next"
    assert one_line("word " * 3, 8, "...") == "word..."  # cut, trailing space dropped, ASCII marker
    assert printable("a\tb\x1b[2Jc", keep="\t") == "a\tbc"


def test_a_shortened_line_is_cut_between_words_never_inside_a_word_or_url() -> None:
    url = "https://errors.pydantic.dev/2.14/v/missing"
    message = f"tools.0.inputSchema.type Field required For further information visit {url} tools.1.inputSchema"
    for limit in range(len("tools.0.inputSchema.type") + 2, len(message)):
        cut = one_line(message, limit)
        assert len(cut) <= limit and cut.endswith("…")
        kept = cut.removesuffix("…")
        assert message.startswith(kept) and message[len(kept)] == " ", (limit, cut)  # a whole word ends it
    assert one_line(f"see {url}", 30) == "see…"  # the URL is left out whole, not cut
    assert one_line(url, 20) == url[:19] + "…"  # one word longer than the limit: cut inside, as it must


def test_snapshot_data_and_lazy_models(tmp_path: Path) -> None:
    snapshot = SnapshotData(HERE / "fakepkg")
    assert snapshot.tool("add") is not None and snapshot.tool("nope") is None
    assert snapshot.server_info["name"] == "rt-demo"
    assert SnapshotData(HERE / "fakepkg" / "client.py").path == snapshot.path
    spec: ToolSpec[types.Tool, int] = ToolSpec(  # type: ignore[type-var]
        name="lazy",
        python_name="lazy",
        models_module="fakepkg.models.lazy_probe",
        arguments_class="LazyProbeArguments",
        result_class=None,
        unwrap_result=False,
        snapshot=snapshot,
    )
    assert "fakepkg.models.lazy_probe" not in sys.modules  # constructing a spec imports nothing
    assert spec.arguments_model.__name__ == "LazyProbeArguments"
    assert spec.result_model is None
    assert "fakepkg.models.lazy_probe" in sys.modules
    with pytest.raises(SnapshotError):
        _ = spec.input_schema  # not in the snapshot
    missing = SnapshotData(tmp_path)
    with pytest.raises(SnapshotError, match="missing"):
        missing.tool("x")
    (tmp_path / "snapshot.json").write_text("[]")
    with pytest.raises(SnapshotError, match="not a snapshot"):
        SnapshotData(tmp_path).tool("x")


def test_specs_type_the_listed_icons(tmp_path: Path) -> None:
    icon = {"src": "https://example.com/a.png", "mimeType": "image/png", "sizes": ["48x48"]}
    listing = {
        "tools": [
            {"name": "drawn", "inputSchema": {"type": "object"}, "icons": [icon, {"sizes": "not an icon"}]},
            {"name": "plain", "inputSchema": {"type": "object"}, "icons": "nonsense"},
        ],
        "prompts": [{"name": "greet", "icons": [{"src": "data:image/svg+xml;base64,PHN2Zy8+", "theme": "dark"}]}],
        "resources": [{"uri": "memo://a", "name": "a", "icons": [icon]}],
    }
    (tmp_path / "snapshot.json").write_text(json.dumps(listing))
    snapshot = SnapshotData(tmp_path)

    def tool(name: str) -> ToolSpec[types.Tool, None]:
        return ToolSpec(  # type: ignore[type-var]
            name=name,
            python_name=name,
            models_module="unused",
            arguments_class="Unused",
            result_class=None,
            unwrap_result=False,
            snapshot=snapshot,
        )

    (drawn,) = tool("drawn").icons  # the entry that is not an icon is left out
    assert (drawn.src, drawn.mime_type, drawn.sizes) == (icon["src"], "image/png", ["48x48"])
    assert tool("plain").icons == ()
    (prompt_icon,) = PromptSpec(name="greet", python_name="greet", snapshot=snapshot).icons
    assert prompt_icon.theme == "dark"
    resource = ResourceSpec(uri="memo://a", name="a", python_name="a", snapshot=snapshot)
    assert [i.src for i in resource.icons] == [icon["src"]]


def test_result_views() -> None:
    png = base64.b64encode(b"\x89PNG").decode()
    tool = ToolResult(
        types.CallToolResult(
            content=[
                types.TextContent(type="text", text="one"),
                types.ImageContent(type="image", data=png, mime_type="image/png"),
                types.TextContent(type="text", text="two"),
            ],
            structured_content={"k": 1},
            _meta={"m": True},
        )
    )
    assert tool.text == "one\ntwo"
    assert tool.structured == {"k": 1} and tool.meta == {"m": True} and not tool.is_error
    assert len(tool.images) == 1 and tool.image_bytes() == [(b"\x89PNG", "image/png")]
    assert "other_content=['image']" in repr(tool)
    assert pickle.loads(pickle.dumps(tool)) == tool
    blob = base64.b64encode(b"\x00\x01").decode()
    resource = ResourceResult(
        types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri="r://a", text="hello", mime_type="text/plain"),
                types.BlobResourceContents(uri="r://b", blob=blob),
            ]
        )
    )
    assert resource.text == "hello" and resource.blobs == [b"\x00\x01"]
    assert resource.mime_types == ["text/plain", None]


def test_importing_the_runtime_and_a_package_stays_light() -> None:
    code = (
        "import sys, json; import fakepkg; import fakepkg.client; import mcp_codegen_runtime; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'jsonschema', 'httpx2', 'anyio', 'starlette', 'uvicorn'))))"
    )
    env_path = f"{SRC}:{HERE}"
    output = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
        cwd=HERE,
    ).stdout
    assert json.loads(output) == []


@pytest.mark.parametrize(
    ("url", "shown", "recorded"),
    [
        ("http://[::1]:8000/mcp", "http://[::1]:8000/mcp", "http://[::1]:8000/mcp"),
        ("https://[2001:db8::1]/mcp?x=1", "https://[2001:db8::1]/mcp", "https://[2001:db8::1]/mcp?x=1"),
        (
            "https://user:pw@host.example:8443/p?token=abc&page=2#frag",
            "https://host.example:8443/p",
            "https://host.example:8443/p?token=REDACTED&page=2",
        ),
        ("http://[::1/mcp", "<invalid URL>", "<invalid URL>"),
    ],
)
def test_one_url_redactor_for_messages_and_records(url: str, shown: str, recorded: str) -> None:
    from mcp_codegen.inputs.launch import redact_url as recorded_url
    from mcp_codegen_runtime.connection.urls import redact_url, safe_url

    assert safe_url(url) == shown
    assert redact_url(url) == recorded
    assert recorded_url(url) == recorded  # the generator records URLs through the runtime's redactor


def test_one_env_expander_for_generator_and_runtime() -> None:
    from mcp_codegen.errors import UsageError
    from mcp_codegen.inputs.launch import expand_env
    from mcp_codegen_runtime import ConnectError
    from mcp_codegen_runtime.connection.launch import expand_header_template

    environ = {"TOKEN": "t0k", "USER_ID": "7"}
    assert expand_env("Bearer ${TOKEN}/${USER_ID}", what="x", environ=environ) == "Bearer t0k/7"
    assert expand_header_template("Authorization", "Bearer ${TOKEN}", environ) == "Bearer t0k"
    with pytest.raises(UsageError, match=r"header A refers to \$\{NOPE\}"):
        expand_env("${NOPE}", what="header A", environ=environ)
    with pytest.raises(ConnectError, match=r"header 'A' needs the environment variable \$\{NOPE\}"):
        expand_header_template("A", "${NOPE}", environ)


def test_drift_messages_cap_long_name_lists() -> None:
    from mcp_codegen_runtime import DriftSummary, SchemaDriftError

    summary = DriftSummary(removed=("gone",), added=tuple(f"tool_{i:03}" for i in range(171)))
    text = summary.describe()
    assert text == "removed: gone; new on the server: " + ", ".join(f"tool_{i:03}" for i in range(8)) + " and 163 more"
    assert len(summary.added) == 171  # the summary itself keeps every name
    assert "and 163 more" in str(SchemaDriftError(summary))


def test_http_clients_share_one_tls_context_per_ca_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading the CA bundle is the costliest part of opening a session: done once per CA setting."""
    import httpx2

    from mcp_codegen_runtime.connection import http

    made: list[str | None] = []

    def counted() -> ssl.SSLContext:
        made.append(os.environ.get("SSL_CERT_FILE"))
        return ssl.create_default_context()

    monkeypatch.setattr(httpx2, "create_ssl_context", counted)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    http._tls_context.cache_clear()  # pyright: ignore[reportPrivateUsage]
    for _ in range(3):
        http._http_client({}, 5.0, http.HttpWatch())  # pyright: ignore[reportPrivateUsage]
    assert made == [None]
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    http._http_client({}, 5.0, http.HttpWatch())  # pyright: ignore[reportPrivateUsage]
    assert made == [None, str(tmp_path / "ca.pem")]  # a changed setting takes effect
    http._tls_context.cache_clear()  # pyright: ignore[reportPrivateUsage]
