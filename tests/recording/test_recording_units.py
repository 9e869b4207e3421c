"""The parts of recording on their own: the redactor, the secrets `connect()` knows, the file format, matching."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from recording_files import ROOT

from mcp_codegen_runtime.recordings.envelope import RecordingFormatError, read_recording
from mcp_codegen_runtime.recordings.plan import launch_secrets
from mcp_codegen_runtime.recordings.redact import Redactor
from mcp_codegen_runtime.recordings.replay import same

pytestmark = pytest.mark.anyio


def _call(text: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {"q": text}}}


def test_every_kind_of_secret_becomes_its_named_placeholder() -> None:
    redactor = Redactor(
        env={"API_KEY": "value-of-the-key", "SHORT": "abc", "EMPTY": ""},
        headers={
            "Authorization": "Bearer tok_live_123456",
            "Cookie": "session=s3ss10n-v4lue; theme=dark",
            "X-Tenant": "acme-tenant",
        },
    )
    cases = {
        "value-of-the-key": "<redacted:env:API_KEY>",
        "Bearer tok_live_123456": "<redacted:header:Authorization>",
        "tok_live_123456": "<redacted:header:Authorization>",  # the token alone, echoed without its scheme
        "session=s3ss10n-v4lue; theme=dark": "<redacted:header:Cookie>",
        "s3ss10n-v4lue": "<redacted:cookie:session>",
        "acme-tenant": "<redacted:header:X-Tenant>",
        "key=sk_Qw8Lm2Zr5Tx9Vb4Nc7Hd": "key=<redacted:token-1>",  # by shape
        "again sk_Qw8Lm2Zr5Tx9Vb4Nc7Hd": "again <redacted:token-1>",  # the same token, the same number
        "other Zq3Wn8Kp1Rt6Ym4Xc9Ls": "other <redacted:token-2>",
        "abc stays": "abc stays",  # too short to look for
        "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0": "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0",  # a digest
        "/usr/local/lib/python3.11/site-packages": "/usr/local/lib/python3.11/site-packages",
    }
    for given, written in cases.items():
        assert redactor.message(_call(given))["params"] == {"name": "t", "arguments": {"q": written}}, given


def test_the_envelope_and_binary_data_are_kept() -> None:
    redactor = Redactor()
    blob = "Zq3Wn8Kp1Rt6Ym4Xc9LsQw8Lm2Zr5Tx9Vb4Nc7Hd=="  # random-looking base64, as image data is
    result = {
        "jsonrpc": "2.0",
        "id": "Zq3Wn8Kp1Rt6Ym4Xc9Ls",
        "result": {
            "content": [
                {"type": "image", "data": blob, "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "x://y", "blob": blob}},
                {"type": "text", "text": blob},
            ]
        },
    }
    written = redactor.message(result)
    assert written["id"] == "Zq3Wn8Kp1Rt6Ym4Xc9Ls"
    content = written["result"]["content"]
    assert content[0]["data"] == blob and content[1]["resource"]["blob"] == blob
    assert content[2]["text"] != blob  # text is text: a token-shaped run in it is redacted


def test_connect_knows_the_recorded_variables_and_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LISTED", "listed-value")
    monkeypatch.setenv("IN_ARGS", "args-value")
    monkeypatch.setenv("IN_HEADER", "header-value")
    launch = {
        "envNames": ["LISTED", "UNSET_ONE"],
        "args": ["--token=${IN_ARGS}", "plain"],
        "headers": [{"name": "Authorization", "template": "Bearer ${IN_HEADER}"}, {"name": "X-Plain"}],
    }
    variables, headers = launch_secrets(launch, {"GIVEN": "given-value"}, {"X-Extra": "extra-value"})
    assert variables == {
        "LISTED": "listed-value",
        "IN_ARGS": "args-value",
        "IN_HEADER": "header-value",
        "GIVEN": "given-value",
    }
    assert headers == {"Authorization": "Bearer header-value", "X-Extra": "extra-value"}


async def test_connect_records_without_the_secrets_it_passes(
    everything: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the recorded launch names the server relative to the repository
    path = tmp_path / "connect.ndjson"
    secret = "connect-secret-value"
    async with everything.AsyncClient.connect(env={"PASSED": secret}, stderr="discard", record=path) as client:
        assert secret in (await client.get_env()).text
    text = path.read_text(encoding="utf-8")
    assert secret not in text and "<redacted:env:PASSED>" in text


def test_a_bad_recording_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "r.ndjson"
    start = {"jsonrpc": "2.0", "method": "$transport/start", "_meta": {"dir": "lifecycle", "server": "s", "ts": ""}}
    for body, expected in [
        ("not json", r"r.ndjson:2: not JSON"),
        ("[1]", r"r.ndjson:2: a line must be a JSON object"),
        ('{"id": 1}', r"r.ndjson:2: no `_meta` envelope"),
        ('{"id": 1, "_meta": {"dir": "up"}}', r"r.ndjson:2: `_meta.dir` must be send, recv or lifecycle"),
    ]:
        path.write_text(json.dumps(start) + "\n" + body + "\n", encoding="utf-8")
        with pytest.raises(RecordingFormatError, match=expected):
            read_recording(path)


def test_sessions_are_told_apart_by_their_start_and_server(tmp_path: Path) -> None:
    def line(server: str, direction: str, **message: object) -> str:
        return json.dumps({**message, "_meta": {"dir": direction, "server": server, "ts": ""}})

    lines = [
        line("a", "lifecycle", method="$transport/start"),
        line("b", "lifecycle", method="$transport/start"),
        line("a", "send", id=1, method="ping"),
        line("b", "send", id=1, method="tools/list"),
        line("a", "lifecycle", method="$transport/close"),
        line("a", "lifecycle", method="$transport/start"),
        line("a", "send", id=1, method="initialize"),
    ]
    path = tmp_path / "several.ndjson"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sessions = read_recording(path)
    assert [(s.server, [line.method for line in s.lines]) for s in sessions] == [
        ("a", ["ping"]),
        ("b", ["tools/list"]),
        ("a", ["initialize"]),
    ]


def test_matching() -> None:
    assert same({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1.0})
    assert not same({"a": 1}, {"a": True}) and not same({"a": True}, {"a": 1})
    assert not same({"a": 1}, {"a": 1, "b": 2})
    assert same({"a": 1, "ts": "x"}, {"a": 1, "ts": "y"}, ignored={"ts"})
    assert same({"n": {"id": 1, "v": 2}}, {"n": {"id": 9, "v": 2}}, ignored={"id"})  # at any depth
    assert same({"q": "key=<redacted:env:K> and <redacted:token-1>"}, {"q": "key=abcd and Zq3Wn8Kp"})
    assert not same({"q": "key=<redacted:env:K>"}, {"q": "other=abcd"})
    assert not same({"q": "<redacted:env:K>"}, {"q": ""})  # a placeholder stands for some text
