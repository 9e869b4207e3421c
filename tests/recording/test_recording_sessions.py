"""Recording real sessions (`record=` on every connector) and replaying them with no server (`replay()`).

Against npm server-everything over stdio (its `get-env` answers the server's whole environment, so a secret
given to it comes back in a result), a header-echoing SDK server over streamable HTTP, and an SDK server in
process. The invariant: no secret given to the server, whichever way it was given, is anywhere in the file;
and the file replays through the same typed client with no server and no process.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from recording_files import FIXTURES

from mcp_codegen.demo.server import build_server
from mcp_codegen_runtime import Accept, ConnectError, ElicitationRequest, ListChanged, ReplayMismatchError

pytestmark = pytest.mark.anyio

#: Secrets given to the server as environment variables: each comes back in `get-env`'s answer.
ENV_SECRETS = {
    "SERVICE_API_KEY": "sk-live-Zx81Qp0Lm3Nv7Rt2Wq9Y",  # token-shaped
    "DB_PASSWORD": "correct horse battery staple",  # a plain phrase: only its being given makes it secret
    "SHORTISH": "pw42",  # the shortest value looked for (4 characters)
}
#: A token given nowhere as a secret: caught by its shape, in the arguments and in the echoed result.
TOKEN = "ghp_a8Kd93LmQp02XzRt7Yv1Nb4Hs6Jc5Wf0Ue3"


def _stdio(package: ModuleType, command: list[str], **options: Any) -> Any:
    return package.AsyncClient.stdio(command[0], command[1:], stderr="discard", timeout=60, **options)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def _record_everything(package: ModuleType, command: list[str], path: Path) -> dict[str, str]:
    async with _stdio(package, command, env=ENV_SECRETS, record=path) as client:
        answers = {
            "sum": (await client.get_sum(a=2, b=3)).text,
            "env": (await client.get_env()).text,
            "echo": (await client.echo(message=f"token {TOKEN} here")).text,
        }
    return answers


async def test_a_recorded_session_holds_no_secret(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "session.ndjson"
    answers = await _record_everything(everything, everything_command, path)
    assert all(value in answers["env"] for value in ENV_SECRETS.values())  # the server did echo them
    text = path.read_text(encoding="utf-8")
    for name, value in ENV_SECRETS.items():
        assert value not in text, name
        assert f"<redacted:env:{name}>" in text
    assert TOKEN not in text and "<redacted:token-1>" in text
    lines = _lines(path)
    assert [line["_meta"]["dir"] for line in lines[:2]] == ["lifecycle", "send"]
    assert lines[0]["method"] == "$transport/start" and lines[-1]["method"] == "$transport/close"
    assert {line["_meta"]["server"] for line in lines} == {"everything_now"}
    assert all(line["_meta"]["ts"].endswith("Z") for line in lines)


async def test_recording_keeps_secrets_only_when_told(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "raw.ndjson"
    async with _stdio(everything, everything_command, env=ENV_SECRETS, record=path, redact=False) as client:
        await client.get_env()
    text = path.read_text(encoding="utf-8")
    assert all(value in text for value in ENV_SECRETS.values())
    assert "<redacted:" not in text


async def test_headers_and_cookies_never_reach_the_file(
    everything: ModuleType, header_echo_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "http.ndjson"
    headers = {
        "Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.Qm9vdHN0cmFw",
        "X-Api-Key": "plain-but-given",
        "Cookie": "session=cookie-value-1; theme=dark-mode",
    }
    async with everything.AsyncClient.http(header_echo_url, headers=headers, drift_check=False, record=path) as client:
        echoed = json.loads((await client.call_raw("headers")).text)
    assert echoed["x-api-key"] == "plain-but-given"  # the server saw them all
    text = path.read_text(encoding="utf-8")
    for secret in ("eyJhbGciOiJIUzI1NiJ9", "plain-but-given", "cookie-value-1", "dark-mode"):
        assert secret not in text, secret
    assert "<redacted:header:X-Api-Key>" in text and "<redacted:header:Cookie>" in text


async def test_a_recording_replays_with_no_server(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "session.ndjson"
    live = await _record_everything(everything, everything_command, path)
    async with everything.AsyncClient.replay(path) as client:
        assert (await client.get_sum(a=2, b=3)).text == live["sum"]
        assert "<redacted:env:SERVICE_API_KEY>" in (await client.get_env()).text
        # A recorded placeholder matches any value: the test may send the real token.
        assert (await client.echo(message=f"token {TOKEN} here")).text == "Echo: token <redacted:token-1> here"


async def test_a_call_the_recording_lacks_raises_and_names_both(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "session.ndjson"
    await _record_everything(everything, everything_command, path)
    async with everything.AsyncClient.replay(path) as client:
        with pytest.raises(ReplayMismatchError) as raised:
            await client.get_sum(a=2, b=4)
        assert raised.value.request == 'tools/call \'get-sum\' {"a": 2, "b": 4}'
        assert raised.value.expected == 'tools/call \'get-sum\' {"a": 2, "b": 3}'
        assert "expected next" in str(raised.value)
        with pytest.raises(ReplayMismatchError):  # out of order: strict replay wants get-sum first
            await client.get_env()
        await client.get_sum(a=2, b=3)
        await client.get_env()
        await client.echo(message="token x here")


async def test_closing_with_recorded_requests_unused_raises(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "session.ndjson"
    await _record_everything(everything, everything_command, path)
    with pytest.raises(ReplayMismatchError, match=r"2 recorded request\(s\) never sent: tools/call 'get-env'"):
        async with everything.AsyncClient.replay(path) as client:
            await client.get_sum(a=2, b=3)
    with pytest.raises(ReplayMismatchError, match="3 recorded request"):
        with everything.Client.replay(path):
            pass
    # An error of the body's own passes unchanged: the unused requests are not what went wrong.
    with pytest.raises(KeyError):
        async with everything.AsyncClient.replay(path):
            raise KeyError("mine")


async def test_lenient_order_and_ignored_arguments(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "session.ndjson"
    await _record_everything(everything, everything_command, path)
    async with everything.AsyncClient.replay(path, lenient=True) as client:
        await client.echo(message="token anything here")
        await client.get_env()
        await client.get_sum(a=2, b=3)
    async with everything.AsyncClient.replay(path, ignore_arguments=["b"]) as client:
        assert (await client.get_sum(a=2, b=99)).text == "The sum of 2 and 3 is 5."
        with pytest.raises(ReplayMismatchError):
            await client.echo(message="different")
        await client.get_env()
        await client.echo(message="token x here")


def test_the_blocking_twin_records_and_replays(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "blocking.ndjson"
    command = everything_command
    with everything.Client.stdio(command[0], command[1:], stderr="discard", record=path) as client:
        live = client.get_sum(a=20, b=22).text
    with everything.Client.replay(path) as client:
        assert client.get_sum(a=20, b=22).text == live
        with pytest.raises(ReplayMismatchError):
            client.get_sum(a=1, b=1)


async def test_server_notifications_replay_at_their_places(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "progress.ndjson"
    seen: list[tuple[str, float]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(("progress", progress))

    async with _stdio(everything, everything_command, record=path) as client:
        await client.with_options(on_progress=on_progress).trigger_long_running_operation(duration=0.3, steps=3)
        seen.append(("result", 0))
    live, seen[:] = list(seen), []
    assert [kind for kind, _ in live] == ["progress"] * 3 + ["result"]
    async with everything.AsyncClient.replay(path) as client:
        await client.with_options(on_progress=on_progress).trigger_long_running_operation(duration=0.3, steps=3)
        seen.append(("result", 0))
    assert seen == live  # each progress before the answer, the live request's token carried
    async with everything.AsyncClient.replay(path) as client:  # no progress asked for: none sent
        await client.trigger_long_running_operation(duration=0.3, steps=3)


async def test_a_server_request_replays_to_the_clients_handler(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    """The server's elicitation request inside a call is sent again on replay, and the call's answer waits for
    the handler's reply."""
    path = tmp_path / "elicitation.ndjson"
    asked: list[str] = []

    def answer(request: ElicitationRequest) -> Accept:
        asked.append(request.message)
        return Accept({"name": "Ann", "check": True})

    async with _stdio(everything, everything_command, elicitation=answer, record=path) as client:
        live = await client.call_raw("trigger-elicitation-request", {})
    async with everything.AsyncClient.replay(path, elicitation=answer) as client:
        assert await client.call_raw("trigger-elicitation-request", {}) == live
    assert len(asked) == 2 and asked[0] == asked[1]


async def test_an_in_process_session_records_and_replays(everything: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "in_process.ndjson"
    async with everything.AsyncClient.in_process(build_server(), drift_check=False, record=path) as client:
        weather = await client.call_raw("get_weather", {"city": "Oslo"})
    assert weather.structured["city"] == "Oslo"
    async with everything.AsyncClient.replay(path) as client:
        assert await client.call_raw("get_weather", {"city": "Oslo"}) == weather


async def test_mcporters_recording_replays_through_a_generated_client(everything: ModuleType) -> None:
    """mcporter 0.12.3 recorded `mcporter call --stdio "node .../server-everything stdio" get-sum a=2 b=3`: its own
    initialize (protocol 2025-11-25, its clientInfo), a tools/list, one call."""
    recording = FIXTURES / "mcporter-0.12.3-everything-get-sum.ndjson"
    changed = anyio.Event()

    def on_change(change: ListChanged) -> None:
        assert change.kind == "tools"
        changed.set()

    # The server's tools/list_changed, recorded before the listing's answer, comes again with it.
    async with everything.AsyncClient.replay(recording, drift_check=True, on_change=on_change) as client:
        assert client.server_info.name == "mcp-servers/everything"
        assert (await client.get_sum(a=2, b=3)).text == "The sum of 2 and 3 is 5."
        await changed.wait()
    with pytest.raises(ReplayMismatchError, match=r"tools/call 'get-sum' \{\"a\": 2, \"b\": 3\}"):
        async with everything.AsyncClient.replay(recording) as client:
            await client.get_sum(a=3, b=2)


async def test_replaying_a_file_that_is_not_a_recording_is_one_line(everything: ModuleType, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"jsonrpc": "2.0", "method": "ping"}\n', encoding="utf-8")
    with pytest.raises(ConnectError, match=r"bad.ndjson:1: no `_meta` envelope"):
        everything.AsyncClient.replay(bad)
    with pytest.raises(ConnectError, match="cannot replay"):
        everything.AsyncClient.replay(tmp_path / "missing.ndjson")
    await anyio.sleep(0)
