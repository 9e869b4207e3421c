"""Waits that say what to do (issue 57): "still waiting" lines while a server is silent, and timeouts that name
`--timeout` with the time a first download would need.

The waiting server is tests/servers/first_hour_server.py with `--hold FILE`: it answers nothing (initialize, or one
listing with `--hold-at`) until FILE exists, and the test creates FILE only when it sees the line it waits for, so
no test depends on how fast the machine is. The timeouts use stand-ins named like the launchers (`npx`, `uvx`,
`docker`, `pipx`) that never answer: the hint is chosen by the command's name and arguments.
"""

from __future__ import annotations

import shlex
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from mcp_codegen.cli.common import Reporter
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import ServerError
from mcp_codegen.inputs.launch import HttpLaunch, StdioLaunch
from mcp_codegen.snapshot.fetch import take_snapshot
from mcp_codegen.snapshot.waits import timeout_hint

ROOT = Path(__file__).resolve().parents[2]
SERVER = str(ROOT / "tests" / "servers" / "first_hour_server.py")

pytestmark = pytest.mark.anyio


class Releaser:
    """A progress callback that keeps every line and creates `release` once a line contains `wanted`."""

    def __init__(self, release: Path, wanted: str) -> None:
        self.release = release
        self.wanted = wanted
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if self.wanted in line:
            self.release.touch()


@pytest.mark.parametrize("hold_at", ["initialize", "prompts"])
async def test_a_silent_server_gets_a_line_saying_what_is_awaited(tmp_path: Path, hold_at: str) -> None:
    release = tmp_path / "release"
    wanted = "the server to answer initialize" if hold_at == "initialize" else "the answer to prompts/list"
    progress = Releaser(release, f"still waiting for {wanted}")
    launch = StdioLaunch(sys.executable, (SERVER, "--hold", str(release), "--hold-at", hold_at))
    with anyio.fail_after(240):  # a guard against a hang only: the release comes from the line itself
        snapshot = await take_snapshot(launch, timeout=200, diagnostics=Diagnostics(), progress=progress, patience=1)
    assert len(snapshot.prompts) == 1 and snapshot.not_listed == {}
    waiting = [line for line in progress.lines if line.startswith(f"still waiting for {wanted}: ")]
    assert waiting, progress.lines
    assert "of --timeout 200 s" in waiting[0]
    what = "start" if hold_at == "initialize" else "list"
    assert waiting[0].endswith(f"; a server slow to {what} needs a longer --timeout, e.g. --timeout 600")


async def test_the_lines_go_through_progress_so_quiet_silences_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = tmp_path / "release"
    quiet = Reporter(quiet=True)
    seen = Releaser(release, "still waiting for the server to answer initialize")

    def progress(line: str) -> None:
        quiet.progress(line)
        seen(line)

    launch = StdioLaunch(sys.executable, (SERVER, "--hold", str(release)))
    with anyio.fail_after(240):
        await take_snapshot(launch, timeout=200, diagnostics=Diagnostics(), progress=progress, patience=1)
    assert any(line.startswith("still waiting") for line in seen.lines)
    assert capsys.readouterr().err == ""


def test_the_command_prints_the_wait_on_stderr(tmp_path: Path) -> None:
    """`mcp-codegen snapshot` as users run it, with the default patience: the line is read as it comes."""
    release = tmp_path / "release"
    command = shlex.join([sys.executable, SERVER, "--hold", str(release)])
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_codegen", "snapshot", "--stdio", command, "-o", str(tmp_path / "s.json")],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "still waiting" in line:
            release.touch()
    assert process.wait(timeout=120) == 0, lines
    waiting = next(line for line in lines if "still waiting" in line)
    assert waiting.startswith("mcp-codegen: still waiting for the server to answer initialize: ")
    assert "--timeout 30 s; a server slow to start needs a longer --timeout, e.g. --timeout 60" in waiting


def stand_in(tmp_path: Path, name: str) -> str:
    """An executable called `name` that never answers (it sleeps until killed)."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(600)\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize(
    ("name", "args", "hint"),
    [
        ("npx", ("-y", "@acme/mcp"), "a first `npx -y` download can take a minute: --timeout 120"),
        ("uvx", ("acme-mcp",), "a first `uvx` run downloads and installs the server, which can take a minute: --timeout 120"),
        ("docker", ("run", "-i", "acme/mcp"), "a first `docker run` pulls the image, which can take minutes: --timeout 300"),
        ("pipx", ("run", "acme-mcp"), "a first `pipx run` installs the server, which can take a minute: --timeout 120"),
        ("server", (), "a server slow to start needs a longer --timeout, e.g. --timeout 60"),
    ],
)  # fmt: skip
async def test_a_timeout_names_the_flag_and_the_time_a_first_run_needs(
    tmp_path: Path, name: str, args: tuple[str, ...], hint: str
) -> None:
    launch = StdioLaunch(stand_in(tmp_path, name), args)
    with pytest.raises(ServerError) as caught:
        await take_snapshot(launch, timeout=1, diagnostics=Diagnostics())
    assert str(caught.value) == f"timed out after 1 s while initializing; {hint}"


@pytest.mark.parametrize(
    ("command", "args", "timeout", "suggested"),
    [
        ("npm", ("exec", "x"), 30, "a first `npx -y` download can take a minute: --timeout 120"),
        ("pnpm", ("dlx", "x"), 30, "npx -y"),
        ("bunx", ("x",), 30, "npx -y"),
        ("C:/node/npx.cmd", ("x",), 30, "npx -y"),
        ("uv", ("tool", "run", "x"), 30, "uvx"),
        ("podman", ("run", "x"), 30, "docker run"),
        ("npx", ("-y", "x"), 120, "--timeout 300"),  # never less than twice what did not suffice
        ("npm", ("run", "start"), 30, "a server slow to start needs a longer --timeout, e.g. --timeout 60"),
        ("docker", ("ps",), 30, "a server slow to start"),
    ],
)
def test_the_hint_follows_the_launcher(command: str, args: tuple[str, ...], timeout: float, suggested: str) -> None:
    assert suggested in timeout_hint(StdioLaunch(command, args), timeout, initializing=True)
    # a listing is never a download
    assert "slow to list" in timeout_hint(StdioLaunch(command, args), timeout, initializing=False)
    assert "slow to start" in timeout_hint(HttpLaunch(url="http://127.0.0.1:1/mcp"), timeout, initializing=True)


async def test_cancelling_while_the_line_is_shown_propagates_as_a_cancellation(tmp_path: Path) -> None:
    """The watcher runs in a task group beside the connection: a cancellation still leaves as itself, and an error
    as its one-line `ServerError`, never wrapped in an exception group."""
    with anyio.CancelScope() as scope:

        def progress(line: str) -> None:
            if line.startswith("still waiting"):
                scope.cancel()

        launch = StdioLaunch(sys.executable, (SERVER, "--hold", str(tmp_path / "never")))
        await take_snapshot(launch, timeout=200, diagnostics=Diagnostics(), progress=progress, patience=1)
    assert scope.cancelled_caught
    with pytest.raises(ServerError, match=r"^timed out after 2 s while initializing; a server slow to start"):
        await take_snapshot(launch, timeout=2, diagnostics=Diagnostics(), progress=lambda line: None, patience=1)
