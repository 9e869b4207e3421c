"""`mcp-codegen serve`: a snapshot served over stdio and streamable HTTP reads back as the same snapshot.

Every listing of the 13 real servers in tests/corpus goes snapshot -> `mcp-codegen serve` (a real process)
-> `mcp-codegen snapshot` -> the same canonical snapshot, and `mcp-codegen check --against` finds no drift.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import prewarmed
import pytest
from helpers import corpus_names, corpus_snapshot, sigint_by_default

from mcp_codegen.snapshot.model import Snapshot, read_snapshot

SERVE = [sys.executable, "-m", "mcp_codegen", "serve"]


def _run(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *arguments]), capture_output=True, text=True, check=False, cwd=cwd
    )


def _without_launch(snapshot: Snapshot) -> str:
    data = json.loads(snapshot.to_text())
    data.pop("launch", None)
    return json.dumps(data, sort_keys=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_listing_round_trips_over_stdio(name: str, tmp_path: Path) -> None:
    original = tmp_path / "original.json"
    original.write_text(corpus_snapshot(name).to_text(), encoding="utf-8")
    again = tmp_path / "again.json"
    # The served listing starts prewarmed: the client side is what this checks, twice per listing.
    command = shlex.join(prewarmed.command(["-m", "mcp_codegen", "serve", "--snapshot", str(original)]))
    taken = _run("snapshot", "--stdio", command, "-o", str(again), "-q")
    assert taken.returncode == 0, taken.stderr
    assert _without_launch(read_snapshot(again)) == _without_launch(read_snapshot(original))
    checked = _run("check", "--against", str(original), "--stdio", command)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("name", ["github", "everything"])
def test_listings_round_trip_over_http_and_ctrl_c_stops_cleanly(name: str, tmp_path: Path) -> None:
    original = tmp_path / "original.json"
    original.write_text(corpus_snapshot(name).to_text(), encoding="utf-8")
    port = _free_port()
    server = subprocess.Popen(
        [*SERVE, "--snapshot", str(original), "--http", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_by_default,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for the listener (a bound on a hang, not a timing assertion)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.1)
        again = tmp_path / "again.json"
        url = f"http://127.0.0.1:{port}/mcp"
        taken = _run("snapshot", "--url", url, "-o", str(again), "-q")
        assert taken.returncode == 0, taken.stderr
        assert _without_launch(read_snapshot(again)) == _without_launch(read_snapshot(original))
        assert _run("check", "--against", str(original), "--url", url).returncode == 0
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "Traceback" not in err and out == ""


def test_handlers_answer_and_unhandled_tools_are_synthesised(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    original = tmp_path / "time.json"
    original.write_text(corpus_snapshot("time").to_text(), encoding="utf-8")
    (tmp_path / "my_fakes.py").write_text(
        "def setup(fake):\n"
        "    @fake.tools['get_current_time']\n"
        "    def now(arguments):\n"
        "        return {'timezone': arguments['timezone'], 'datetime': '2026-01-01T00:00:00',\n"
        "                'day_of_week': 'Thursday', 'is_dst': False}\n",
        encoding="utf-8",
    )
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_codegen", "serve", "--snapshot", str(original), "--handlers", "my_fakes:setup"],
        cwd=str(tmp_path),
        env={**os.environ},
    )

    async def main() -> None:
        async with Client(parameters, mode="legacy", cache=None, read_timeout_seconds=30) as client:
            handled = await client.call_tool("get_current_time", {"timezone": "Europe/Oslo"})
            assert handled.structured_content == {
                "timezone": "Europe/Oslo",
                "datetime": "2026-01-01T00:00:00",
                "day_of_week": "Thursday",
                "is_dst": False,
            }
            synthesised = await client.call_tool(
                "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Oslo"}
            )
            assert not synthesised.is_error
            refused = await client.call_tool("get_current_time", {})
            assert refused.is_error and "timezone" in str(refused.content[0])

    anyio.run(main)


def test_errors_are_one_line_with_documented_codes(tmp_path: Path) -> None:
    missing = _run("serve", "--snapshot", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such snapshot file" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert _run("serve", "--snapshot", str(broken)).returncode == 2
    good = tmp_path / "good.json"
    good.write_text(corpus_snapshot("time").to_text(), encoding="utf-8")
    bad_handlers = _run("serve", "--snapshot", str(good), "--handlers", "no_such_module_here:setup")
    assert bad_handlers.returncode == 2 and "cannot import no_such_module_here" in bad_handlers.stderr
    assert _run("serve", "--snapshot", str(good), "--handlers", "json").returncode == 2
    assert _run("serve", "--snapshot", str(good), "--http", "not-a-port").returncode == 2
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        in_use = _run("serve", "--snapshot", str(good), "--http", f"127.0.0.1:{port}")
    assert in_use.returncode == 3 and f"cannot serve at 127.0.0.1:{port}" in in_use.stderr
    for result in (missing, bad_handlers, in_use):
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
