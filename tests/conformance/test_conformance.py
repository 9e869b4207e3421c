"""Generated clients under the official MCP conformance harness: every client scenario of both pinned versions.

Each scenario runs the harness once (its own results dir) with tests/conformance/client.py as the client,
which uses packages generated at test time from the committed snapshots of the harness's scenario servers.
A scenario passes when the harness says ``OVERALL: PASSED`` (exit code 0). The strict xfails are scenarios
the plain SDK client (tests/conformance/sdk_client.py) fails too; strict, so they flip when the SDK or the harness
fixes them.
"""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
from pathlib import Path

import prewarmed
import pytest
from servers import install

from conformance import client as conformance_client
from conformance.harness import (
    CLIENT_PROGRAM,
    HARNESSES,
    NEXT,
    RELEASED,
    Harness,
    harness_command,
    harness_env,
    list_command,
    package_name,
)
from mcp_codegen.cli import cli

#: Scenarios expected to fail, per harness version, and why: each one the plain `mcp` SDK client fails too.
EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    RELEASED.version: {
        "auth/2025-03-26-oauth-metadata-backcompat": (
            "the pinned harness (0.1.16) serves authorization server metadata with issuer <origin>/oauth at the "
            "root well-known URL, which the SDK's OAuth client rejects per RFC 8414 section 3.3 (SEP-2468: "
            "'Authorization server metadata issuer mismatch'), as the plain SDK Client does; the harness mock is "
            "fixed by modelcontextprotocol/conformance#359"
        ),
    },
    # Every 0.2.0-alpha.12 client scenario passes.
    NEXT.version: {},
}
#: The keyword parameters of the generated `AsyncClient.http` that client.py knows about.
_KNOWN_HTTP_PARAMETERS = {
    "on_change",
    "on_resource_updated",
    "url",
    "headers",
    "timeout",
    "transport",
    "auth",
    "drift_check",
    "strict",
    "client_info",
    "elicitation",
    "sampling",
    "roots",
    "on_log",
    # The response cache stays at its default (on, following the server's hints): no scenario is about caching.
    "cache",
    # OpenTelemetry's opt-in content stays off (its default): no scenario is about tracing.
    "trace_content",
    # Retries stay at their default (on): every scenario passes with them, as a user's client runs.
    "retries",
    # Recording stays off (its default): a scenario records nothing, and its redaction has nothing to act on.
    "record",
    "redact",
}
#: Seconds a whole harness run may take (the harness stops the client after 30 s itself).
_HARNESS_TIMEOUT = 120


_BY_VERSION = {harness.version: harness for harness in HARNESSES}
_VERSIONS = pytest.mark.parametrize("version", list(_BY_VERSION))


def _installed(version: str) -> tuple[Path, Path]:
    """Node 22 and the harness `version` (installed if missing); fails, never skips, when they cannot be."""
    try:
        return _BY_VERSION[version].ensure()
    except install.InstallError as exc:
        pytest.fail(f"cannot provide the MCP conformance harness {version}: {exc}", pytrace=False)


class _PackagesByVersion(dict[str, Path]):
    """Harness version -> a directory holding ``conformance_<server>`` generated from each of its committed
    snapshots (``generate --snapshot``), generated on first use."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self._factory = factory

    def __missing__(self, version: str) -> Path:
        harness = _BY_VERSION[version]
        root = self._factory.mktemp(f"conformance_packages_{version}")
        for server in harness.servers:
            snapshot = harness.snapshots / f"{server}.json"
            arguments = ["generate", "--snapshot", str(snapshot), "-o", str(root / package_name(server)), "-q"]
            assert cli.main(args=arguments, standalone_mode=False) in (None, 0), (version, server)
        self[version] = root
        return root


@pytest.fixture(scope="session")
def generated_packages(tmp_path_factory: pytest.TempPathFactory) -> _PackagesByVersion:
    return _PackagesByVersion(tmp_path_factory)


def test_the_two_harness_versions_are_pinned_apart() -> None:
    assert RELEASED.version == "0.1.16"
    assert NEXT.version.startswith("0.2.0-alpha.")
    assert RELEASED.folder != NEXT.folder and RELEASED.snapshots != NEXT.snapshots


@_VERSIONS
def test_install_provides_node_22_and_the_pinned_harness(version: str) -> None:
    node, entry = _installed(version)
    node_version = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=60, check=True)
    assert int(node_version.stdout.strip().lstrip("v").split(".")[0]) >= install.HARNESS_NODE_MAJOR
    harness_version = subprocess.run(
        [str(node), str(entry), "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert harness_version.stdout.strip() == version


@_VERSIONS
def test_install_skips_npm_when_the_pinned_versions_are_installed(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = _installed(version)

    def no_npm(*args: object, **kwargs: object) -> None:
        raise AssertionError("npm ran although the pinned versions are installed")

    monkeypatch.setattr(install, "_npm_ci", no_npm)
    assert _BY_VERSION[version].ensure() == installed


@_VERSIONS
def test_recorded_scenarios_are_the_harness_scenarios(version: str) -> None:
    harness = _BY_VERSION[version]
    _installed(version)
    completed = subprocess.run(
        list_command(harness),
        env=harness_env(harness),
        capture_output=True,
        text=True,
        timeout=_HARNESS_TIMEOUT,
        check=True,
    )
    listing = completed.stdout.split("Client scenarios", 1)[1].split("\n\n", 1)[0]
    listed = {line.split()[1] for line in listing.splitlines() if line.strip().startswith("- ")}
    assert listed == set(harness.client_scenarios)


@_VERSIONS
def test_every_server_has_a_snapshot(version: str) -> None:
    harness = _BY_VERSION[version]
    assert sorted(path.stem for path in harness.snapshots.glob("*.json")) == sorted(harness.servers)


@_VERSIONS
def test_client_program_has_steps_for_every_scenario(version: str) -> None:
    for scenario, server in _BY_VERSION[version].client_scenarios.items():
        resolved = conformance_client._resolve(scenario)
        assert resolved is not None and resolved[0] == server, scenario


@_VERSIONS
def test_every_expected_failure_is_a_scenario_with_a_reason(version: str) -> None:
    for scenario, reason in EXPECTED_FAILURES[version].items():
        assert scenario in _BY_VERSION[version].client_scenarios and len(reason) > 40


def test_client_program_imports_only_the_standard_library() -> None:
    tree = ast.parse(CLIENT_PROGRAM.read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    } | {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported - {"__future__"} <= sys.stdlib_module_names


def test_client_program_knows_every_parameter_of_the_generated_http(generated_packages: dict[str, Path]) -> None:
    """When generated clients gain auth= (or anything else), client.py must be taught to use it."""
    from helpers import imported_package

    with imported_package(generated_packages[RELEASED.version] / package_name("auth")) as package:
        parameters = set(inspect.signature(package.AsyncClient.http).parameters)
    assert parameters - {"cls"} == _KNOWN_HTTP_PARAMETERS, (
        "AsyncClient.http changed: wire the new parameters into tests/conformance/client.py connect_options(), "
        "then update _KNOWN_HTTP_PARAMETERS and EXPECTED_FAILURES"
    )


def test_client_program_answers_elicitation_only_where_the_scenario_needs_it(
    generated_packages: dict[str, Path],
) -> None:
    from helpers import imported_package

    with imported_package(generated_packages[RELEASED.version] / package_name("elicitation_defaults")) as package:
        options = conformance_client.connect_options(package, "elicitation-sep1034-client-defaults")
        assert options["elicitation"] is conformance_client.accept_with_defaults
        assert "elicitation" not in conformance_client.connect_options(package, "tools_call")


def _failed_checks(results: Path) -> list[str]:
    lines = []
    for checks in sorted(results.rglob("checks.json")):
        for check in json.loads(checks.read_text(encoding="utf-8")):
            if check.get("status") in ("FAILURE", "WARNING"):
                lines.append(
                    f"{check['status']} {check.get('name')}: {check.get('errorMessage') or check.get('description')}"
                )
    return lines


def _scenario_params() -> list[object]:
    params: list[object] = []
    for harness in HARNESSES:
        expected = EXPECTED_FAILURES[harness.version]
        for name in harness.client_scenarios:
            marks = [pytest.mark.xfail(strict=True, reason=expected[name])] if name in expected else []
            params.append(pytest.param(harness.version, name, marks=marks, id=f"{harness.version}:{name}"))
    return params


@pytest.mark.slow(reason="the official harness, a node process per scenario")
@pytest.mark.parametrize(("version", "scenario"), _scenario_params())
def test_client_scenario(version: str, scenario: str, generated_packages: dict[str, Path], tmp_path: Path) -> None:
    harness: Harness = _BY_VERSION[version]
    _installed(version)
    results = tmp_path / "results"
    completed = subprocess.run(
        # The client as `python client.py`, forked from a process that has imported `mcp` (tests/prewarmed.py).
        harness_command(harness, prewarmed.command([str(CLIENT_PROGRAM)]), scenario, results),
        env=harness_env(harness, [generated_packages[version]]),
        capture_output=True,
        text=True,
        timeout=_HARNESS_TIMEOUT,
        check=False,
    )
    log = completed.stdout + completed.stderr
    detail = "\n".join([*_failed_checks(results), *log.splitlines()[-15:]])
    assert completed.returncode == 0 and "OVERALL: PASSED" in log, f"{scenario} failed:\n{detail}"
    if scenario.startswith("sep-2640-"):  # the skills checks ran (SKIPPED when the client never listed skills)
        statuses = {
            check["id"]: check["status"]
            for checks in results.rglob("checks.json")
            for check in json.loads(checks.read_text(encoding="utf-8"))
            if check["id"].startswith("sep-2640-")
        }
        assert statuses and set(statuses.values()) == {"SUCCESS"}, statuses


@pytest.mark.parametrize(
    ("context", "method"),
    [
        ({}, "oauth"),
        ({"client_id": "c", "client_secret": "s"}, "oauth"),
        ({"client_id": "c", "private_key_pem": "k", "signing_algorithm": "ES256"}, "private-key-jwt"),
        ({"client_id": "c", "client_secret": "s", "idp_id_token": "t", "idp_token_endpoint": "u"}, "cross-app-access"),
        ({"kind": "client-credentials", "client_id": "c", "client_secret": "s"}, "client-credentials"),
    ],
)
def test_client_program_takes_the_auth_method_from_the_context(context: dict[str, str], method: str) -> None:
    assert conformance_client.auth_method("auth/any", context) == method


def test_only_a_client_id_and_secret_leave_the_grant_to_the_scenario_name() -> None:
    pair = {"client_id": "c", "client_secret": "s"}
    assert conformance_client.auth_method("auth/client-credentials-basic", pair) == "client-credentials"
    assert conformance_client.auth_method("auth/client-credentials-basic", {}) == "oauth"
