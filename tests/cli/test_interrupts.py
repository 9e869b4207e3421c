"""Ctrl-C during `mcp-codegen generate`, sent to a real subprocess: the exit code and message tell the truth.

Whatever moment SIGINT lands (sent to the process group, as a terminal does): exit 130 and "the previous
output is unchanged" with the old package intact, or exit 6 (or 0 when the run had finished) with the new
package in place; never a staging or `.old-*` directory left, never a traceback. The named points come from
`MCP_CODEGEN_TEST_PAUSE` (`mcp_codegen.interrupts`); a second test lands SIGINT at spread-out moments.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import sigint_by_default

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"
EDIT = "# edited by hand: only the previous output has this line\n"


def _generate(work: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        # --overwrite: the package's client.py is edited by hand (the fixture), to tell old output from new.
        [sys.executable, "-m", "mcp_codegen", "generate", "--snapshot", str(SNAPSHOT), "-o", "out", "--overwrite"],
        cwd=work,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: SIGINT goes to it (and its workers) as from a terminal
        preexec_fn=sigint_by_default,
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A directory holding `out`, a package generated before and edited by hand (so old and new differ)."""
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate", "-q", "--snapshot", str(SNAPSHOT), "-o", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with (tmp_path / "out" / "client.py").open("a", encoding="utf-8") as handle:
        handle.write(EDIT)
    return tmp_path


def _assert_truthful(work: Path, code: int, stderr: str, *, verify: bool = False) -> str:
    """The invariants; returns which output is in place ("old" or "new")."""
    assert "Traceback" not in stderr, stderr
    assert sorted(entry.name for entry in work.iterdir()) == ["out"], stderr  # no .out.new-* / .out.old-*
    state = "old" if EDIT in (work / "out" / "client.py").read_text(encoding="utf-8") else "new"
    if code in (130, -signal.SIGINT):
        # A shell reports a death by SIGINT as 130 too: the promise is the same (nothing was put in place). It
        # happens before Python installs its handler, and rarely as an interrupted run winds down.
        assert state == "old", stderr
        assert code == -signal.SIGINT or "interrupted; the previous output is unchanged" in stderr, stderr
    elif code == 6:
        assert state == "new" and "interrupted; the new output is in place: out" in stderr, stderr
    else:
        assert code == 0 and state == "new" and "wrote out" in stderr, (code, stderr)
    if state == "new" and verify:
        verified = subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "verify", "-q", "out"], cwd=work, capture_output=True, text=True
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
    return state


@pytest.mark.parametrize(
    ("point", "expected"),
    [("start", 130), ("staged", 130), ("swapping", 6), ("written", 6)],
)
def test_sigint_at_each_named_point(work: Path, point: str, expected: int) -> None:
    process = _generate(work, MCP_CODEGEN_TEST_PAUSE=point, MCP_CODEGEN_TEST_PAUSE_SECONDS="1")
    assert process.stderr is not None
    seen = ""
    while f"paused at {point}" not in seen:
        line = process.stderr.readline()
        assert line, f"never paused at {point}: {seen}"
        seen += line
    os.killpg(process.pid, signal.SIGINT)
    _, rest = process.communicate(timeout=60)
    assert process.returncode == expected, seen + rest
    _assert_truthful(work, process.returncode, seen + rest, verify=True)


@pytest.mark.slow(reason="a generation interrupted at many moments, each a fresh process")
def test_sigint_at_spread_out_moments(work: Path) -> None:
    started = time.monotonic()
    whole = _generate(work)
    whole.communicate(timeout=60)
    duration = time.monotonic() - started
    assert whole.returncode == 0
    states = []
    for step in range(6):
        with (work / "out" / "client.py").open("a", encoding="utf-8") as handle:
            handle.write(EDIT)
        process = _generate(work)
        time.sleep(duration * (0.2 + 0.17 * step))  # from start-up to just after the write
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        states.append(_assert_truthful(work, process.returncode, stderr))
    assert "old" in states  # the early interrupts did stop the run


def test_ctrl_c_that_python_reports_as_a_runtime_error_is_an_interrupt(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp_codegen import interrupts
    from mcp_codegen.cli.common import run_command

    monkeypatch.setattr(interrupts, "_written", [])  # this process wrote nothing (other tests in it may have)

    def action() -> None:
        # Ctrl-C while a module being imported makes a class: Python 3.11 reports a KeyboardInterrupt raised in
        # `__set_name__` as this RuntimeError caused by it (3.12 no longer wraps it), so the wrapped form is
        # raised here as such, on every version.
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise RuntimeError("Error calling __set_name__ on 'Interrupting' instance 'field' in 'Made'") from interrupt

    handler = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as exited:
            run_command(action)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert exited.value.code == 130
    assert capsys.readouterr().err == "mcp-codegen: interrupted; the previous output is unchanged\n"
