"""The `mcp-codegen` command as users run it: a subprocess, its exit code, its stdout/stderr, its files.

Every failure must be one line on stderr with the documented exit code and never a traceback
(0 ok, 1 --check stale or --strict warnings, 2 usage/bad snapshot, 3 server failure, 4 output
conflict, 130 interrupted). Servers are real: the demo server over stdio and HTTP, and small Python
scripts that misbehave. Secrets: test_cli_secrets.py.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import prewarmed
import pytest
from helpers import sigint_by_default
from servers.helpers import serve_sse

from mcp_codegen.demo.server import build_server
from mcp_codegen.snapshot.model import Snapshot

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
DEMO_STDIO = shlex.join([PYTHON, "-m", "mcp_codegen.demo"])

TINY_SNAPSHOT: dict[str, Any] = {
    "formatVersion": 1,
    "serverInfo": {"name": "tiny", "version": "1.0.0"},
    "capabilities": {"tools": {}},
    "tools": [
        {
            "name": "echo",  # not a client member (`ping` is: it would be renamed, with a warning)
            "description": "Answer back.",
            "inputSchema": {"type": "object", "properties": {"times": {"type": "integer"}}, "required": ["times"]},
        }
    ],
}
#: A tool whose inputSchema is `{}`: generated with a permissive model and a warning.
LOOSE_SNAPSHOT: dict[str, Any] = {
    "formatVersion": 1,
    "serverInfo": {"name": "loose", "version": "1.0.0"},
    "capabilities": {"tools": {}},
    "tools": [{"name": "anything", "description": "Takes anything.", "inputSchema": {}}],
}

# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------


def run(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *args]),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def assert_fails(result: subprocess.CompletedProcess[str], code: int, *fragments: str) -> str:
    """Exit `code`, nothing on stdout, exactly one stderr line (the error), no traceback; returns the line."""
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    [line] = lines
    assert line.startswith("mcp-codegen: error: "), line
    for fragment in fragments:
        assert fragment in line
    return line


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def state(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file (and directory) under `directory`: content and mtime, to prove nothing was touched."""
    found: dict[str, tuple[bytes, int]] = {".": (b"", directory.stat().st_mtime_ns)}
    for path in sorted(directory.rglob("*")):
        key = path.relative_to(directory).as_posix()
        found[key] = (path.read_bytes() if path.is_file() else b"", path.stat().st_mtime_ns)
    return found


def files(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_json(tmp_path / "tiny.json", TINY_SNAPSHOT)


@pytest.fixture
def loose(tmp_path: Path) -> Path:
    return write_json(tmp_path / "loose.json", LOOSE_SNAPSHOT)


@pytest.fixture(scope="module")
def tiny_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package generated once from TINY_SNAPSHOT; tests copy it (`package_copy`)."""
    root = tmp_path_factory.mktemp("tiny")
    snapshot = write_json(root / "tiny.json", TINY_SNAPSHOT)
    result = run("generate", "-q", "--snapshot", str(snapshot), "-o", str(root / "tiny_pkg"))
    assert result.returncode == 0, result.stderr
    return root / "tiny_pkg"


@pytest.fixture
def package_copy(tiny_package: Path, tmp_path: Path) -> Path:
    target = tmp_path / "out" / "tiny_pkg"
    shutil.copytree(tiny_package, target)
    return target


# --------------------------------------------------------------------------------------------------
# Usage errors (exit 2)
# --------------------------------------------------------------------------------------------------


def test_no_server_option(tmp_path: Path) -> None:
    assert_fails(run("generate", "-o", str(tmp_path / "out")), 2, "--url", "--stdio", "--snapshot")
    assert_fails(run("snapshot", "-o", str(tmp_path / "s.json")), 2, "--url, --stdio or --registry")
    assert not (tmp_path / "out").exists() and not (tmp_path / "s.json").exists()


def test_both_url_and_stdio(tmp_path: Path) -> None:
    result = run("generate", "--url", "http://127.0.0.1:9/mcp", "--stdio", DEMO_STDIO, "-o", str(tmp_path / "out"))
    assert_fails(result, 2, "either --url or --stdio")
    result = run("snapshot", "--url", "http://127.0.0.1:9/mcp", "--stdio", DEMO_STDIO, "-o", str(tmp_path / "s.json"))
    assert_fails(result, 2, "either --url or --stdio")


@pytest.mark.parametrize(("pair", "fragment"), [("NOEQUALS", "KEY=VALUE"), ("=value", "empty name")])
def test_bad_env_pair(tmp_path: Path, pair: str, fragment: str) -> None:
    result = run("generate", "--stdio", DEMO_STDIO, "-e", pair, "-o", str(tmp_path / "out"))
    assert_fails(result, 2, "-e/--env", fragment)
    assert not (tmp_path / "out").exists()


def test_env_reference_to_an_unset_variable(tmp_path: Path) -> None:
    result = run("snapshot", "--url", "http://127.0.0.1:9/mcp", "-H", "X-Key: ${MCP_CODEGEN_TEST_UNSET}", "-o", "-")
    assert_fails(result, 2, "${MCP_CODEGEN_TEST_UNSET}", "not set")


def test_unknown_snapshot_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    assert_fails(run("generate", "--snapshot", str(missing), "-o", str(tmp_path / "out")), 2, str(missing), "no such")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a snapshot"),
        ("", "not valid JSON"),
    ],
)
def test_malformed_snapshot(tmp_path: Path, text: str, fragment: str) -> None:
    snapshot = tmp_path / "bad.json"
    snapshot.write_text(text, encoding="utf-8")
    assert_fails(run("generate", "--snapshot", str(snapshot), "-o", str(tmp_path / "out")), 2, "bad.json", fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("version", [0, 4, 99, "1"])
def test_wrong_format_version(tmp_path: Path, version: object) -> None:
    snapshot = write_json(tmp_path / "v.json", {**TINY_SNAPSHOT, "formatVersion": version})
    assert_fails(run("generate", "--snapshot", str(snapshot), "-o", str(tmp_path / "out")), 2, "formatVersion")
    assert not (tmp_path / "out").exists()


def test_invalid_package_name(tiny: Path, tmp_path: Path) -> None:
    result = run("generate", "--snapshot", str(tiny), "-o", str(tmp_path / "out"), "--package-name", "class")
    assert_fails(result, 2, "'class'", "--package-name")


def test_click_usage_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    for arguments in (
        ["generate", "--snapshot", "x.json"],
        ["generate", "--nope", "-o", "x"],
        ["snapshot", "--stdio", "x"],
    ):
        result = run(*arguments, cwd=tmp_path)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr and result.stdout == ""
        assert result.stderr.startswith("mcp-codegen: error: ")


def test_click_usage_errors_are_one_line(tmp_path: Path) -> None:
    assert_fails(run("generate", "--snapshot", "x.json", cwd=tmp_path), 2, "-o")


def test_output_path_that_is_a_file_is_an_output_conflict(tiny: Path, tmp_path: Path) -> None:
    target = tmp_path / "tiny_pkg"
    target.write_text("not a directory\n")
    for flags in ([], ["--overwrite"], ["--keep-other-files"]):
        assert_fails(run("generate", "--snapshot", str(tiny), "-o", str(target), *flags), 4, "is a file, not a folder")
    assert target.read_text() == "not a directory\n"


# --------------------------------------------------------------------------------------------------
# Server failures (exit 3)
# --------------------------------------------------------------------------------------------------


def test_command_not_found(tmp_path: Path) -> None:
    result = run("generate", "-q", "--stdio", "mcp-codegen-no-such-command-xyz --flag", "-o", str(tmp_path / "out"))
    assert_fails(result, 3, "command not found", "mcp-codegen-no-such-command-xyz")
    result = run("snapshot", "-q", "--stdio", "mcp-codegen-no-such-command-xyz", "-o", str(tmp_path / "s.json"))
    assert_fails(result, 3, "command not found")
    assert not (tmp_path / "out").exists() and not (tmp_path / "s.json").exists()


def test_server_exits_immediately_with_stderr(tmp_path: Path) -> None:
    script = tmp_path / "exits.py"
    script.write_text("import sys\nsys.stderr.write('boom: the config file is missing\\n')\nsys.exit(7)\n")
    result = run("generate", "-q", "--stdio", shlex.join([PYTHON, str(script)]), "-o", str(tmp_path / "out"))
    assert_fails(result, 3, "code 7", "boom: the config file is missing")
    assert not (tmp_path / "out").exists()


def test_never_answering_server_times_out(tmp_path: Path) -> None:
    script = tmp_path / "silent.py"
    script.write_text("import sys\nfor _line in sys.stdin:\n    pass\n")
    started = time.monotonic()
    result = run(
        "generate", "-q", "--stdio", shlex.join([PYTHON, str(script)]), "--timeout", "2", "-o", str(tmp_path / "out")
    )
    elapsed = time.monotonic() - started
    assert_fails(result, 3, "timed out")
    assert elapsed < 10, f"took {elapsed:.1f} s"
    assert not (tmp_path / "out").exists()


def test_server_that_ignores_stdin_close_times_out_and_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = tmp_path / "stubborn.py"
    script.write_text(
        "import os, signal, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "while True:\n    time.sleep(1)\n"
    )
    started = time.monotonic()
    result = run("snapshot", "-q", "--stdio", shlex.join([PYTHON, str(script)]), "--timeout", "2", "-o", "-")
    assert_fails(result, 3, "timed out")
    assert time.monotonic() - started < 15
    assert not _alive(int(pid_file.read_text()))


def _alive(pid: int, wait: float = 3.0) -> bool:
    """Whether `pid` still runs after `wait` seconds (a zombie waiting to be reaped counts as gone)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            status = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return False
        if status.rpartition(")")[2].split()[0] == "Z":
            return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.1)


def test_connection_refused(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/mcp"
    result = run("generate", "-q", "--url", url, "-o", str(tmp_path / "out"))
    assert_fails(result, 3, url, "connection refused")
    result = run("snapshot", "-q", "--url", url, "--transport", "sse", "-o", str(tmp_path / "s.json"))
    assert_fails(result, 3, "connection refused")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------------
# The output directory (exit 4, atomic replacement)
# --------------------------------------------------------------------------------------------------


def test_foreign_output_directory_is_refused_then_written_beside_with_keep_other_files(
    tiny: Path, tmp_path: Path
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my own notes\n")
    (out / "sub").mkdir()
    (out / "sub" / "data.py").write_text("x = 1\n")
    before = state(out)

    for flags in ([], ["--overwrite"]):
        result = run("generate", "-q", "--snapshot", str(tiny), "-o", str(out), "--package-name", "tiny_pkg", *flags)
        assert_fails(result, 4, str(out), "notes.txt, sub/", "--keep-other-files")
        assert state(out) == before

    result = run(
        "generate", "-q", "--snapshot", str(tiny), "-o", str(out), "--package-name", "tiny_pkg", "--keep-other-files"
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    written = files(out)
    assert written["notes.txt"] == b"my own notes\n" and written["sub/data.py"] == b"x = 1\n"
    assert {"__init__.py", "client.py", "specs.py", "snapshot.json", ".mcp-codegen.json"} <= set(written)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "tiny.json"]  # no staging/backup left over


def test_regenerating_over_own_output_needs_no_overwrite(tmp_path: Path) -> None:
    """A file the previous run generated and this one does not is removed (the user's files are kept:
    see test_write_path.py)."""
    two_tools = {**TINY_SNAPSHOT, "tools": [*TINY_SNAPSHOT["tools"], {**TINY_SNAPSHOT["tools"][0], "name": "pong"}]}
    snapshot = write_json(tmp_path / "two.json", two_tools)
    out = tmp_path / "tiny_pkg"
    assert run("generate", "-q", "--snapshot", str(snapshot), "-o", str(out)).returncode == 0
    assert (out / "models" / "pong.py").is_file()
    result = run("generate", "-q", "--snapshot", str(snapshot), "-o", str(out), "--exclude", "pong")
    assert result.returncode == 0, result.stderr
    assert not (out / "models" / "pong.py").exists()


@pytest.mark.parametrize(
    "server_args",
    [
        ["--stdio", "mcp-codegen-no-such-command-xyz"],
        ["--url", "http://127.0.0.1:{port}/mcp"],
        ["--snapshot", "{bad}"],
    ],
    ids=["command-not-found", "connection-refused", "bad-snapshot"],
)
def test_failed_run_leaves_the_previous_package_untouched(
    package_copy: Path, tmp_path: Path, server_args: list[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    arguments = [arg.format(port=closed_port(), bad=bad) for arg in server_args]
    parent_before = sorted(p.name for p in package_copy.parent.iterdir())
    before = state(package_copy)
    result = run("generate", "-q", *arguments, "-o", str(package_copy))
    assert result.returncode in (2, 3)
    assert_fails(result, result.returncode)
    assert state(package_copy) == before
    assert sorted(p.name for p in package_copy.parent.iterdir()) == parent_before


def test_interrupted_run_exits_130_and_leaves_the_previous_package(package_copy: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = tmp_path / "slow.py"
    script.write_text(f"import os, sys, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    before = state(package_copy)
    process = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "mcp_codegen",
            "generate",
            "--stdio",
            shlex.join([PYTHON, str(script)]),
            "--timeout",
            "30",
            "-o",
            str(package_copy),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_by_default,
    )
    try:
        deadline = time.monotonic() + 20
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the server never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in stderr
    assert process.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "mcp-codegen: interrupted; the previous output is unchanged"
    assert state(package_copy) == before
    assert not _alive(int(pid_file.read_text()))


# --------------------------------------------------------------------------------------------------
# --check, --strict, --format json, --quiet, up to date
# --------------------------------------------------------------------------------------------------


def test_check_passes_on_fresh_output_and_fails_after_an_edit(package_copy: Path, tiny: Path) -> None:
    result = run("generate", "--check", "--snapshot", str(tiny), "-o", str(package_copy))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr

    with (package_copy / "client.py").open("a", encoding="utf-8") as handle:
        handle.write("# a local edit\n")
    before = state(package_copy)
    result = run("generate", "--check", "--snapshot", str(tiny), "-o", str(package_copy))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "changed: " in result.stderr and "client.py" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("mcp-codegen: error: ")
    assert "out of date" in result.stderr
    assert state(package_copy) == before  # --check writes nothing

    missing = package_copy.parent / "never_generated"
    result = run("generate", "--check", "-q", "--snapshot", str(tiny), "-o", str(missing))
    assert result.returncode == 1
    assert not missing.exists()


def test_check_json_lists_the_stale_files(package_copy: Path, tiny: Path) -> None:
    (package_copy / "py.typed").unlink()
    result = run("generate", "--check", "--format", "json", "--snapshot", str(tiny), "-o", str(package_copy))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["stale"] == ["py.typed"]
    assert not (package_copy / "py.typed").exists()


def test_strict_fails_on_warnings_and_writes_nothing(loose: Path, tmp_path: Path) -> None:
    out = tmp_path / "loose_pkg"
    result = run("generate", "--strict", "--snapshot", str(loose), "-o", str(out))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "tools.anything.inputSchema" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("mcp-codegen: error: --strict")
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loose.json"]

    result = run("generate", "--snapshot", str(loose), "-o", str(out))
    assert result.returncode == 0, result.stderr
    warnings = [
        line for line in result.stderr.splitlines() if line.startswith("mcp-codegen: warning[input-schema-empty]: ")
    ]
    assert len(warnings) == 1 and "tools.anything.inputSchema" in warnings[0]
    assert "1 warning" in result.stderr.splitlines()[-1]
    assert (out / "models" / "anything.py").is_file()


def test_strict_passes_without_warnings(tiny: Path, tmp_path: Path) -> None:
    result = run("generate", "--strict", "-q", "--snapshot", str(tiny), "-o", str(tmp_path / "tiny_pkg"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tiny_pkg" / "client.py").is_file()


def test_strict_fails_even_when_the_output_is_up_to_date(loose: Path, tmp_path: Path) -> None:
    out = tmp_path / "loose_pkg"
    assert run("generate", "-q", "--snapshot", str(loose), "-o", str(out)).returncode == 0
    result = run("generate", "--strict", "--snapshot", str(loose), "-o", str(out))
    assert result.returncode == 1, result.stderr


def test_up_to_date_report_still_lists_the_warnings(loose: Path, tmp_path: Path) -> None:
    out = tmp_path / "loose_pkg"
    assert run("generate", "-q", "--snapshot", str(loose), "-o", str(out)).returncode == 0
    result = run("generate", "--format", "json", "--snapshot", str(loose), "-o", str(out))
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert report["written"] is False
    assert [d["location"] for d in report["diagnostics"]] == ["tools.anything.inputSchema"]


def test_format_json_prints_parseable_json_with_diagnostics(loose: Path, tmp_path: Path) -> None:
    result = run("generate", "--format", "json", "--snapshot", str(loose), "-o", str(tmp_path / "loose_pkg"))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert report["server"] == {"name": "loose", "version": "1.0.0"}
    assert report["tools"] == 1 and report["prompts"] == 0 and report["resources"] == 0
    assert report["written"] is True
    [diagnostic] = report["diagnostics"]
    assert diagnostic["level"] == "warning"
    assert diagnostic["location"] == "tools.anything.inputSchema"
    assert "empty schema" in diagnostic["message"]

    # --strict with --format json: the report, then the one-line error.
    result = run("generate", "--strict", "--format", "json", "--snapshot", str(loose), "-o", str(tmp_path / "other"))
    assert result.returncode == 1
    assert json.loads(result.stdout)["written"] is False
    assert result.stderr.splitlines() == [result.stderr.splitlines()[-1]]
    assert not (tmp_path / "other").exists()


def test_quiet_prints_nothing_on_success(tiny: Path, tmp_path: Path, demo_http_url: str) -> None:
    result = run("generate", "-q", "--snapshot", str(tiny), "-o", str(tmp_path / "tiny_pkg"))
    assert result.returncode == 0
    assert (result.stdout, result.stderr) == ("", "")
    result = run("snapshot", "-q", "--url", demo_http_url, "-o", str(tmp_path / "demo.json"))
    assert result.returncode == 0
    assert (result.stdout, result.stderr) == ("", "")
    assert json.loads((tmp_path / "demo.json").read_text())["serverInfo"]["name"] == "demo"


def test_generate_twice_is_up_to_date_and_rewrites_nothing(tmp_path: Path, demo_http_url: str) -> None:
    out = tmp_path / "demo_pkg"
    first = run("generate", "--url", demo_http_url, "-o", str(out))
    assert first.returncode == 0, first.stderr
    assert "wrote" in first.stderr.splitlines()[-1]
    before = state(out)
    time.sleep(0.05)  # so that a rewrite would show in the mtimes
    second = run("generate", "--url", demo_http_url, "-o", str(out))
    assert second.returncode == 0, second.stderr
    assert "up to date" in second.stderr.splitlines()[-1]
    assert state(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo_pkg"]


def test_snapshot_is_canonical_and_stable(tmp_path: Path, demo_http_url: str) -> None:
    texts = []
    for name in ("a.json", "b.json"):
        result = run("snapshot", "--url", demo_http_url, "-o", str(tmp_path / name))
        assert result.returncode == 0, result.stderr
        texts.append((tmp_path / name).read_text(encoding="utf-8"))
    assert texts[0] == texts[1]
    data = json.loads(texts[0])
    assert texts[0] == Snapshot.from_text(texts[0]).to_text()  # canonical: sorted keys, `properties` as listed
    assert data["formatVersion"] == 2
    assert data["launch"] == {"transport": "http", "url": demo_http_url}
    assert [tool["name"] for tool in data["tools"]] == sorted(tool["name"] for tool in data["tools"])
    assert len(data["tools"]) == 7

    to_stdout = run("snapshot", "-q", "--url", demo_http_url, "-o", "-")
    assert to_stdout.returncode == 0
    assert to_stdout.stdout == texts[0]


def test_snapshot_over_legacy_sse_matches_streamable_http(tmp_path: Path, demo_http_url: str) -> None:
    with serve_sse(build_server()) as sse_url:
        auto = run("snapshot", "-q", "--url", sse_url, "-o", "-")  # streamable HTTP refused: falls back to SSE
        forced = run("snapshot", "-q", "--url", sse_url, "--transport", "sse", "-o", "-")
    http = run("snapshot", "-q", "--url", demo_http_url, "-o", "-")
    for result in (auto, forced, http):
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
    assert auto.stdout == forced.stdout
    over_sse, over_http = json.loads(auto.stdout), json.loads(http.stdout)
    assert over_sse.pop("launch") == {"transport": "sse", "url": sse_url}
    assert over_http.pop("launch") == {"transport": "http", "url": demo_http_url}
    assert over_sse == over_http


def test_version_names_the_generator_and_what_its_output_depends_on() -> None:
    import importlib.metadata

    from mcp_codegen import __version__

    result = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"mcp-codegen {__version__}"
    for name in ("mcp", "pydantic", "datamodel-code-generator", "black", "ruff"):
        assert f"{name} {importlib.metadata.version(name)}" in lines[1]
