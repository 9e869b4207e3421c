"""The pytest plugin (entry point `pytest11`): `@pytest.mark.mcp_recording` records a test's MCP sessions once
and replays them with no server.

Every client that connects inside a marked test (its fixtures included, async or blocking, any connector)
records to, or replays from, `recordings/<test module>/<test name>.ndjson` beside the test file;
`@pytest.mark.mcp_recording("name")` names the file instead. `--mcp-record-mode` (or the ini option
`mcp_record_mode`) is `none` (the default: replay only, and a missing recording fails the test naming the
file and the mode that records it), `once`, `new` or `all`, as pytest-recording's. The marker also takes
`redact=False` (record secrets as sent), `lenient=True` (replay in any order) and `ignore_arguments=[...]`.

Unmarked tests cost nothing: this module imports only pytest until a marked test runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .cassette import Cassette

__all__ = ["recording_path"]

_MODES = ("none", "once", "new", "all")
_MARKER = "mcp_recording"
_CASSETTE = pytest.StashKey["Cassette | None"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(
        "mcp-recording", "MCP session recordings (mcp-codegen-runtime)"
    )
    group.addoption(
        "--mcp-record-mode",
        choices=_MODES,
        default=None,
        help="none (default): replay recorded MCP sessions only; once: record the missing ones; "
        "new: also record connections beyond those recorded; all: record everything again.",
    )
    parser.addini(
        "mcp_record_mode", "The default --mcp-record-mode (none).", default="none"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(name=None, *, redact=True, lenient=False, ignore_arguments=()): record this test's"
        " MCP sessions, or replay them with no server (see --mcp-record-mode)",
    )


def recording_path(item: pytest.Item, name: str | None = None) -> Path:
    """`recordings/<test module>/<test name or name>.ndjson` beside the test's file."""
    test_file = Path(str(item.path))
    stem = name if name is not None else item.name
    safe = re.sub(r"[^A-Za-z0-9_.\-\[\]]", "_", stem)
    return test_file.parent / "recordings" / test_file.stem / f"{safe}.ndjson"


def _mode(config: pytest.Config) -> str:
    given = config.getoption("--mcp-record-mode")
    mode = (
        given if given is not None else str(config.getini("mcp_record_mode") or "none")
    )
    if mode not in _MODES:
        raise pytest.UsageError(
            f"mcp_record_mode must be one of {', '.join(_MODES)}, not {mode!r}"
        )
    return mode


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    marker = item.get_closest_marker(_MARKER)
    if marker is None:
        return
    from .cassette import Cassette
    from .envelope import RecordingFormatError
    from .plan import activate

    name = marker.args[0] if marker.args else marker.kwargs.get("name")
    try:
        cassette = Cassette(
            recording_path(item, name),
            _mode(item.config),
            redact=bool(marker.kwargs.get("redact", True)),
            lenient=bool(marker.kwargs.get("lenient", False)),
            ignore_arguments=tuple(marker.kwargs.get("ignore_arguments", ())),
        )
    except RecordingFormatError as error:
        pytest.fail(
            f"{error} (record it again with --mcp-record-mode=all)", pytrace=False
        )
    if cassette.missing:
        pytest.fail(
            f"no MCP recording {cassette.path}: record it against the real server with"
            " `pytest --mcp-record-mode=once` (the default mode, none, only replays)",
            pytrace=False,
        )
    item.stash[_CASSETTE] = cassette
    activate(cassette)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    cassette = item.stash.get(_CASSETTE, None)
    if cassette is None:
        return
    from .plan import deactivate

    item.stash[_CASSETTE] = None
    deactivate()
    problems = cassette.finish()
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)


@pytest.fixture
def mcp_recording(request: pytest.FixtureRequest) -> Cassette | None:
    """The marked test's recording (`.path`, `.mode`), or None in an unmarked test."""
    node: pytest.Item = request.node
    return node.stash.get(_CASSETTE, None)
