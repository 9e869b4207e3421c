"""A program run through `prewarmed` sees and ends what it would under `python` itself (tests/prewarmed.py).

Each case runs the same program both ways and compares what a test can observe: standard streams, exit code or
signal, argv, `__name__`, `__file__`, `sys.path` from PYTHONPATH, environment and working directory. Signals sent
to the launcher reach the program; a launcher killed takes the program (and what it started) with it. The tests
run a server of their own: `PREWARMED=0`, which turns the shared one off, does not turn them into no-ops.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prewarmed import Prewarmed

# The only platform with no prewarmed server, where every program starts as `python` itself (`prewarmed.shared`).
pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="prewarmed servers need Linux's pidfd_open")


@pytest.fixture(scope="module")
def server() -> Iterator[Prewarmed]:
    started = Prewarmed.start()
    yield started
    started.stop()


#: Prints what a program can see of how it was started.
SEEN = """
import json, os, sys
print(json.dumps({
    "argv": sys.argv, "name": __name__, "file": globals().get("__file__"), "path0": sys.path[0],
    "extra": [p for p in sys.path if p.endswith("extra-path")], "cwd": os.getcwd(),
    "spec": __spec__.name if __spec__ else None,
    "env": os.environ.get("PREWARMED_PROBE"), "stdin": sys.stdin.read(),
}))
print("to stderr", file=sys.stderr)
"""

PROGRAMS = {
    "what it sees": SEEN,
    "exit code": "import sys; print('out'); sys.exit(3)",
    "exit message": "import sys; sys.exit('a message')",
    "exception": "raise ValueError('boom')",
    "killed by a signal": "import os, signal; os.kill(os.getpid(), signal.SIGTERM)",
    "os._exit after buffered output": "import os, sys; sys.stdout.write('kept?'); os._exit(4)",
    "asyncio": "import asyncio; print(asyncio.run(asyncio.sleep(0, result='slept')))",
}


def _both(
    server: Prewarmed, argv: list[str], cwd: Path
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PREWARMED_PROBE": "probe", "PYTHONPATH": str(cwd / "extra-path")}
    runs = []
    for command in ([sys.executable, *argv], server.command(argv)):
        runs.append(
            subprocess.run(command, cwd=cwd, env=env, input="from stdin", capture_output=True, text=True, timeout=60)
        )
    return runs[0], runs[1]


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("form", ["-c", "-m", "script"])
def test_a_program_ends_as_under_python(server: Prewarmed, tmp_path: Path, program: str, form: str) -> None:
    script = tmp_path / "program.py"
    script.write_text(PROGRAMS[program], encoding="utf-8")
    argv = {"-c": ["-c", PROGRAMS[program]], "-m": ["-m", "program"], "script": [str(script)]}[form] + ["one", "two"]
    direct, forked = _both(server, argv, tmp_path)
    assert (forked.returncode, forked.stdout) == (direct.returncode, direct.stdout)
    last_line = direct.stderr.strip().splitlines()[-1:]
    assert forked.stderr.strip().splitlines()[-1:] == last_line


def test_signals_sent_to_the_launcher_reach_the_program(server: Prewarmed) -> None:
    code = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\n"
        "print('waiting', flush=True)\n"
        "time.sleep(120)\n"
    )
    process = subprocess.Popen(server.command(["-c", code]), stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline() == "waiting\n"  # its handler is installed
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 7


def test_a_launcher_killed_takes_the_program_and_its_children(server: Prewarmed, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    code = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(120)\n"
    )
    process = subprocess.Popen(server.command(["-c", code]))
    deadline = time.monotonic() + 60
    while not pids.exists() or len(pids.read_text().split()) < 2:
        assert time.monotonic() < deadline, "the program never started"
        time.sleep(0.05)
    process.kill()
    process.wait()
    for pid in map(int, pids.read_text().split()):
        while _alive(pid):  # killed at once; the deadline is a hang guard
            assert time.monotonic() < deadline + 60, f"{pid} outlived its launcher"
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(") ")[-1].startswith("Z"))  # a zombie has ended


def test_sigint_ignored_by_the_launcher_is_ignored_by_the_program(server: Prewarmed) -> None:
    code = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"

    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    for preexec, expected in ((ignore_sigint, "True"), (lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), "False")):
        direct = subprocess.run([sys.executable, "-c", code], preexec_fn=preexec, capture_output=True, text=True)
        forked = subprocess.run(server.command(["-c", code]), preexec_fn=preexec, capture_output=True, text=True)
        assert direct.stdout.strip() == forked.stdout.strip() == expected
