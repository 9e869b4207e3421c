"""A listing that fails is a warning (issue 57): resources, templates and prompts may fail or be skipped, tools may not.

The server is real: `tests/servers/first_hour_server.py`, a low-level SDK `Server` whose list handlers raise (or
never answer), in-process and over stdio through the `mcp-codegen` command. For every optional listing and every
way it can be missing (an error, a timeout, `--skip`), the snapshot holds the others, names the missing one in
`notListed`, and drift never reads the gap as "everything removed".
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import prewarmed
import pytest
from helpers import codegen as run
from servers.first_hour_server import OAUTH_ERROR, build_server

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.drift import diff_snapshots
from mcp_codegen.errors import ServerError
from mcp_codegen.snapshot.fetch import snapshot_server
from mcp_codegen.snapshot.model import Snapshot, read_snapshot

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "servers" / "first_hour_server.py"
#: `--skip`/`--fail` name -> snapshot key.
LISTINGS = {"resources": "resources", "templates": "resourceTemplates", "prompts": "prompts"}
ITEMS = {"resources": "resources", "resourceTemplates": "resource_templates", "prompts": "prompts"}


def command(*options: str) -> str:
    """The server's stdio command line, started prewarmed (most of these tests run it several times)."""
    return shlex.join(prewarmed.command([str(SERVER), *options]))


def held_items(snapshot: Snapshot) -> dict[str, int]:
    return {key: len(getattr(snapshot, attribute)) for key, attribute in ITEMS.items()}


pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("name", list(LISTINGS))
@pytest.mark.parametrize("how", ["fail", "hang", "skip"])
async def test_each_optional_listing_may_be_missing_and_says_why(name: str, how: str) -> None:
    key = LISTINGS[name]
    server = build_server(fail=[name] if how in ("fail", "skip") else [], hang=[name] if how == "hang" else [])
    diagnostics = Diagnostics()
    snapshot = await snapshot_server(
        server, timeout=3 if how == "hang" else 30, diagnostics=diagnostics, skip=[key] if how == "skip" else []
    )
    assert [t["name"] for t in snapshot.tools] == ["add_asset", "delete_everything", "list_contexts"]
    assert held_items(snapshot) == {k: 0 if k == key else 1 for k in ITEMS}
    reason = {"fail": "failed", "hang": "timed-out", "skip": "skipped"}[how]
    assert snapshot.not_listed == {key: reason}
    warnings = [(d.code, d.location) for d in diagnostics.warnings]
    assert warnings == ([] if how == "skip" else [("listing-failed", key)])
    if how == "fail":
        assert OAUTH_ERROR in diagnostics.warnings[0].message  # the server's own words
        assert f"--skip {name}" in diagnostics.warnings[0].message
    # The record survives the file, and only a file with a gap changes format version.
    text = snapshot.to_text()
    assert json.loads(text)["formatVersion"] == 3 and json.loads(text)["notListed"] == {key: reason}
    assert Snapshot.from_text(text).not_listed == {key: reason}


async def test_every_listing_failing_at_once_still_gives_the_tools() -> None:
    diagnostics = Diagnostics()
    snapshot = await snapshot_server(build_server(fail=list(LISTINGS)), diagnostics=diagnostics)
    assert len(snapshot.tools) == 3
    assert snapshot.not_listed == {key: "failed" for key in LISTINGS.values()}
    assert sorted(d.location for d in diagnostics.warnings) == sorted(LISTINGS.values())


async def test_a_complete_snapshot_keeps_format_version_2() -> None:
    snapshot = await snapshot_server(build_server(), diagnostics=Diagnostics())
    assert snapshot.not_listed == {}
    data = json.loads(snapshot.to_text())
    assert data["formatVersion"] == 2 and "notListed" not in data


async def test_tools_remain_required() -> None:
    with pytest.raises(ServerError, match=r"during tools/list: Google OAuth keys are missing"):
        await snapshot_server(build_server(fail=["tools"]), diagnostics=Diagnostics())
    with pytest.raises(ServerError, match=r"timed out after 2 s waiting for tools/list"):
        await snapshot_server(build_server(hang=["tools"]), timeout=2, diagnostics=Diagnostics())


def test_a_malformed_not_listed_is_refused() -> None:
    from mcp_codegen.errors import SnapshotFormatError

    base = {"formatVersion": 3, "serverInfo": {"name": "x"}, "tools": []}
    for bad in ({"tools": "failed"}, {"resources": "gone"}, ["resources"]):
        with pytest.raises(SnapshotFormatError, match="notListed must map"):
            Snapshot.from_json({**base, "notListed": bad})


@pytest.mark.parametrize("old_reason", [None, "failed", "timed-out", "skipped"])
@pytest.mark.parametrize("new_reason", [None, "failed", "timed-out", "skipped"])
@pytest.mark.parametrize("key", list(LISTINGS.values()))
async def test_drift_never_reads_a_missing_listing_as_removed_or_added(
    key: str, old_reason: str | None, new_reason: str | None, complete: Snapshot
) -> None:
    """Every pair of states of one listing (listed, failed, timed out, skipped) on the two sides."""

    def side(reason: str | None) -> Snapshot:
        if reason is None:
            return complete
        return Snapshot.from_json({**complete.as_json(), **{key: []}, "notListed": {key: reason}})

    report = diff_snapshots(side(old_reason), side(new_reason))
    found = [(f.rule, f.location) for f in report.findings]
    if (old_reason is None and new_reason is None) or old_reason == new_reason == "skipped":
        assert found == []
    else:
        assert found == [("listing-not-compared", key)]
        assert report.findings[0].level == "dangerous"


@pytest.fixture
async def complete() -> Snapshot:
    return await snapshot_server(build_server(), diagnostics=Diagnostics())


# ---- the command, over stdio ----------------------------------------------------------------------------------------


def test_generate_warns_writes_the_package_and_check_stays_honest(tmp_path: Path) -> None:
    healthy, failing = tmp_path / "healthy", tmp_path / "failing"
    result = run("generate", "--stdio", command(), "-o", str(healthy), "-q")
    assert result.returncode == 0, result.stderr
    result = run("generate", "--stdio", command("--fail", "resources"), "-o", str(failing))
    assert result.returncode == 0, result.stderr
    assert "warning[listing-failed]: resources: the server answered resources/list with an error" in result.stderr
    assert OAUTH_ERROR in result.stderr and "Traceback" not in result.stderr
    snapshot = read_snapshot(failing / "snapshot.json")
    assert snapshot.not_listed == {"resources": "failed"} and len(snapshot.resource_templates) == 1
    readme = (failing / "README.md").read_text()
    assert "## Resources" not in readme and "`resources/list` answered with an error at generation" in readme

    # --strict fails on the warning (nothing written), unless the code is allowed.
    strict = tmp_path / "strict"
    result = run("generate", "--stdio", command("--fail", "resources"), "-o", str(strict), "--strict")
    assert result.returncode == 1 and not strict.exists()
    allowed = ("--strict", "--allow-warning", "listing-failed")
    assert run("generate", "--stdio", command("--fail", "resources"), "-o", str(strict), *allowed).returncode == 0

    # The live server's resources/list now fails: not compared, not "resource removed"; honest at both thresholds.
    live = ("--stdio", command("--fail", "resources"), "--against", str(healthy))
    result = run("check", *live)
    assert result.returncode == 0, result.stderr
    assert "listing-not-compared" in result.stdout and "resource-removed" not in result.stdout
    assert run("check", *live, "--fail-on", "dangerous").returncode == 1
    # Against the package made while it failed, a healthy server's resources are not "added" either.
    result = run("check", "--stdio", command(), "--against", str(failing), "--format", "json")
    rules = [finding["rule"] for finding in json.loads(result.stdout)["findings"]]
    assert rules == ["listing-not-compared"]


def test_skip_asks_for_nothing_and_check_skips_it_again(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    result = run(
        "generate", "--stdio", command("--fail", "prompts"), "--skip", "prompts", "-o", str(package), "--strict"
    )
    assert result.returncode == 0, result.stderr
    assert "warning[" not in result.stderr and ", 0 warnings" in result.stderr
    assert read_snapshot(package / "snapshot.json").not_listed == {"prompts": "skipped"}
    # check reads the recorded skip: the failing listing is not asked for, nothing to report.
    result = run("check", "--stdio", command("--fail", "prompts"), "--against", str(package), "--fail-on", "any")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_config_key_skips_a_listing(tmp_path: Path) -> None:
    (tmp_path / "mcp-codegen.toml").write_text(
        "[servers.drive]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}, '--fail', 'templates']\n"
        'skip = ["templates"]\n'
    )
    result = run("generate", "--server", "drive", "-o", str(tmp_path / "drive"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert read_snapshot(tmp_path / "drive" / "snapshot.json").not_listed == {"resourceTemplates": "skipped"}
    (tmp_path / "mcp-codegen.toml").write_text(
        (tmp_path / "mcp-codegen.toml").read_text().replace('skip = ["templates"]', 'skip = ["tools"]')
    )
    result = run("generate", "--server", "drive", "-o", str(tmp_path / "drive"), cwd=tmp_path)
    assert result.returncode == 2 and "skip" in result.stderr
