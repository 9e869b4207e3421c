"""Python programs run in a process forked from one that has imported `mcp` already: ~0.05 s to start, not ~0.7 s.

A test that runs a program the way a user would (`python script.py`, `python -c CODE`, `python -m mcp_codegen`)
pays for the interpreter's start and for importing `mcp` (its types build their pydantic models at import) every
time: the docs examples, the conformance client, the generator's and the generated command lines, hundreds of
programs a run. Here one server process per test process imports
`PRELOADED` once; each program is a fork of it, set up as a fresh `python` would be (argv, working directory,
environment, `sys.path` from `PYTHONPATH`, standard streams, signal handlers, `__main__`), and the command a test
runs is a small launcher that stands in for that program:

* its standard streams are the program's (passed over a Unix socket), so pipes, `capture_output` and timeouts work;
* SIGINT, SIGTERM and SIGHUP sent to the launcher reach the program, and the launcher ends as the program did
  (its exit code, or killed by the same signal);
* when the launcher dies (a test's timeout kills it), the program's process group is killed.

Only modules that read nothing of the program's settings at import are preloaded (third-party libraries, not the
generator or its runtime). This module imports the standard library only: the launcher starts in milliseconds.

    python prewarmed.py serve SOCKET              # the server (`Prewarmed.start()` runs it)
    python prewarmed.py run SOCKET -- ARGV...     # the launcher: ARGV as `python ARGV...`: `-c CODE`, `-m MODULE`
                                                  # or `SCRIPT`, then the arguments
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

#: What every forked program finds imported: the SDK (and through it pydantic, anyio, httpx and starlette).
PRELOADED = ("mcp", "mcp.client.stdio", "mcp.client.streamable_http", "mcp.server.mcpserver")
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_THIS = Path(__file__).resolve()


class Prewarmed:
    """A running server; `command(argv)` is what to run instead of `[sys.executable, *argv]`."""

    def __init__(self, process: subprocess.Popen[bytes], path: Path) -> None:
        self.process, self.path = process, path

    @classmethod
    def start(cls) -> Prewarmed:
        folder = Path(tempfile.mkdtemp(prefix="prewarmed-"))
        path = folder / "socket"
        process = subprocess.Popen(
            [sys.executable, str(_THIS), "serve", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C of the test run is not the programs' to see
        )
        assert process.stdout is not None
        ready = process.stdout.readline()  # written once the modules are imported and the socket listens
        assert ready == b"ready\n", f"the prewarmed server did not start: {ready!r}"
        return cls(process, path)

    def command(self, argv: list[str]) -> list[str]:
        return [sys.executable, "-S", "-I", str(_THIS), "run", str(self.path), "--", *argv]

    def stop(self) -> None:
        """Stop the server and the handlers of programs still running (the programs die with their launchers)."""
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()
        self.path.unlink(missing_ok=True)
        self.path.parent.rmdir()


@functools.cache
def shared() -> Prewarmed | None:
    """This process's prewarmed server (started on first use, stopped at exit); None where there can be none (no
    `os.pidfd_open`: not Linux) or `PREWARMED=0` says not to (to tell whether a test behaves otherwise in a fresh
    interpreter)."""
    if not (hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")) or os.environ.get("PREWARMED") == "0":
        return None
    server = Prewarmed.start()
    atexit.register(server.stop)
    return server


def command(argv: list[str]) -> list[str]:
    """What to run for `python ARGV...` (`-c CODE`, `-m MODULE` or `SCRIPT`, then arguments): through `shared()`'s
    server, or `python` itself where there is none."""
    server = shared()
    return server.command(argv) if server is not None else [sys.executable, *argv]


# --------------------------------------------------------------------------------------------------
# The launcher
# --------------------------------------------------------------------------------------------------


def launch(path: str, argv: list[str]) -> None:
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # so a shell's background job: the program too
    forwarded = [number for number in _FORWARDED if not (number == signal.SIGINT and ignored)]
    # Held back until the program's pid is known, then forwarded: the program may be running (and a test may signal
    # this launcher) before the pid arrives here.
    signal.pthread_sigmask(signal.SIG_BLOCK, forwarded)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "sigint_ignored": ignored}
    body = json.dumps(request).encode()
    socket.send_fds(connection, [len(body).to_bytes(8, "big") + body], [0, 1, 2])
    reader = connection.makefile("rb")
    pid = int(reader.readline())
    for number in forwarded:
        signal.signal(number, lambda received, _frame: os.kill(pid, received))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)
    ended = reader.readline().split()
    if not ended:
        sys.exit(1)  # the server went away
    kind, value = ended[0], int(ended[1])
    if kind == b"signal":
        signal.signal(value, signal.SIG_DFL)
        os.kill(os.getpid(), value)
    sys.exit(value)


# --------------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------------


def serve(path: str) -> None:
    for name in PRELOADED:
        __import__(name)
    gc.freeze()  # what was imported is never scanned again: not by a program's collections, not at its exit
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the handlers of finished programs are reaped by the kernel
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    base_path = list(sys.path[1:])  # without this file's folder
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and entry in base_path:
            base_path.remove(entry)
    while True:
        connection, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            _handle(connection, base_path)  # returns in the program's process only
            return
        connection.close()


def _handle(connection: socket.socket, base_path: list[str]) -> None:
    """In a fork per launcher: fork the program, tell the launcher its pid and how it ended. Returns in the
    program's process (set up to run), never in the handler's."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    header, fds, _flags, _address = socket.recv_fds(connection, 8, 3)
    size = int.from_bytes(header, "big")
    body = b""
    while len(body) < size:
        body += connection.recv(size - len(body))
    request = json.loads(body)
    pid = os.fork()
    if pid == 0:
        connection.close()
        _become_program(request, fds, base_path)
        return
    with contextlib.suppress(OSError):  # as the program does too: its group is in place whichever runs first
        os.setpgid(pid, pid)
    for fd in fds:
        os.close(fd)
    ended = ""
    try:
        connection.sendall(f"{pid}\n".encode())
        program = os.pidfd_open(pid)
        while not ended:
            readable, _, _ = select.select([connection.fileno(), program], [], [])
            if program in readable:
                ended = _how_it_ended(os.waitpid(pid, 0)[1])
            elif not connection.recv(1):  # the launcher is gone: so is the program, with what it started
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os._exit(0)
        connection.sendall(ended.encode())
    finally:
        os._exit(0)


def _how_it_ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}\n"
    return f"exit {os.waitstatus_to_exitcode(status)}\n"


#: What a program's environment may set apart from the server's among the variables Python reads as it starts:
#: these are applied to the program; any other difference is refused (`_startup_differences`).
_APPLIED = frozenset({"PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"})


def _become_program(request: dict[str, Any], fds: list[int], base_path: list[str]) -> None:
    environment: dict[str, str] = request["env"]
    if differences := _startup_differences(environment):
        os.write(fds[2], f"prewarmed: cannot start a program with {', '.join(differences)} set apart\n".encode())
        os._exit(2)
    os.setpgid(0, 0)  # its own group, so a launcher's death takes whatever the program started too
    signal.signal(signal.SIGINT, signal.SIG_IGN if request["sigint_ignored"] else signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(request["cwd"])
    unbuffered = bool(environment.get("PYTHONUNBUFFERED"))
    sys.dont_write_bytecode = bool(environment.get("PYTHONDONTWRITEBYTECODE"))
    sys.stdin = _stream(0, "r", unbuffered=False)
    sys.stdout = _stream(1, "w", unbuffered=unbuffered)
    sys.stderr = _stream(2, "w", unbuffered=unbuffered, errors="backslashreplace", line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc,assignment]
    argv: list[str] = request["argv"]
    first = {"-c": "", "-m": os.getcwd()}.get(argv[0], os.path.dirname(os.path.abspath(argv[0])))
    extra = [entry for entry in environment.get("PYTHONPATH", "").split(os.pathsep) if entry]
    sys.path[:] = [first, *extra, *base_path]
    sys.argv = list(argv)


def _startup_differences(environment: dict[str, str]) -> list[str]:
    names = {name for name in [*environment, *os.environ] if name.startswith("PYTHON") and name not in _APPLIED}
    return sorted(name for name in names if environment.get(name) != os.environ.get(name))


def _stream(fd: int, mode: str, *, unbuffered: bool, errors: str = "strict", line_buffering: bool = False) -> TextIO:
    """A standard stream as Python makes it at start (`-u`/PYTHONUNBUFFERED: written through)."""
    raw = io.FileIO(fd, mode, closefd=False)
    if unbuffered and mode == "w":
        return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, write_through=True)
    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding="utf-8", errors=errors, line_buffering=line_buffering or os.isatty(fd))


def run_program() -> None:
    """In the program's process: run `sys.argv` as `python` would (`-c CODE`, `-m MODULE` or `SCRIPT`, then the
    arguments); an exception or `sys.exit` ends the process as it would end `python`'s."""
    import runpy
    import types

    if sys.argv[0] == "-m":
        module = sys.argv.pop(1)
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    elif sys.argv[0] == "-c":
        code = sys.argv.pop(1)
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = main
        exec(compile(code, "<string>", "exec"), main.__dict__)
    else:
        runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        launch(sys.argv[2], sys.argv[4:])
    else:
        serve(sys.argv[2])  # returns in a program's process only
        run_program()
