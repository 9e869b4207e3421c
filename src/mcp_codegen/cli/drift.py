"""`mcp-codegen diff` and `mcp-codegen check`: classify schema drift between snapshots, or of a live server.

Exit codes: 0 no drift at or above --fail-on, 1 drift, 2 the comparison could not be made.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mcp_codegen.cli.common import (
    AuthOptions,
    Reporter,
    ServerArguments,
    run_command,
    server_options,
    take_snapshot,
)
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.launch import ServerLaunch
from mcp_codegen.snapshot.model import Snapshot

if TYPE_CHECKING:
    from mcp_codegen.drift import DriftReport

#: Any failure of a drift command (a bad file, an unreachable server): the comparison could not be made.
COMPARISON_FAILED = 2


def _drift_options(function: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--fail-on",
            type=click.Choice(["breaking", "dangerous", "any"]),
            default="breaking",
            show_default=True,
            help="Exit 1 when drift at or above this level is found.",
        ),
        click.option(
            "--format",
            "output_format",
            type=click.Choice(["text", "json", "markdown", "github"]),
            default="text",
            show_default=True,
            help="Report format (github: workflow annotations).",
        ),
        click.option(
            "--allow",
            "allow_file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Allow-list file of accepted changes (rule, location, reason).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _report_drift(
    old: Snapshot,
    new: Snapshot | None,
    fail_on: str,
    output_format: str,
    allow_file: Path | None,
    results: DriftReport | None = None,
) -> None:
    from mcp_codegen.drift import DriftReport, apply_allowlist, diff_snapshots, exit_code, load_allowlist, render

    report = diff_snapshots(old, new) if new is not None else DriftReport()
    if results is not None:  # the listing's findings, then the results' (each in the report's order)
        report = DriftReport(findings=(*report.findings, *results.findings))
    if allow_file is not None:
        report = apply_allowlist(report, load_allowlist(allow_file))
    click.echo(render(report, output_format), nl=False)
    code = exit_code(report, fail_on=fail_on)
    if code:
        sys.exit(code)


@click.command("diff")
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@_drift_options
def diff_command(old: Path, new: Path, fail_on: str, output_format: str, allow_file: Path | None) -> None:
    """Classify what changed between two snapshots (files or generated package directories).

    \b
    Exit codes: 0 no drift at or above --fail-on; 1 drift; 2 the comparison could not be made.
    """

    def action() -> None:
        from mcp_codegen.drift import load_side

        _report_drift(load_side(old), load_side(new), fail_on, output_format, allow_file)

    run_command(action, error_code=COMPARISON_FAILED)


@click.command("check")
@server_options
@click.option(
    "--against",
    type=click.Path(path_type=Path),
    required=True,
    help="Generated package directory or snapshot file the client was made from.",
)
@click.option(
    "--results-from",
    type=click.Path(file_okay=False, path_type=Path),
    help="A directory of new recordings (*.ndjson): compare their results with the result types the client "
    "observed (generate --results-from), offline unless --url/--stdio/--registry is given too.",
)
@_drift_options
def check_command(
    server: ServerArguments,
    against: Path,
    results_from: Path | None,
    fail_on: str,
    output_format: str,
    allow_file: Path | None,
) -> None:
    """Snapshot the live server and classify its drift from what a client was generated from.

    \b
    Without --url/--stdio/--registry, the server recorded in the package's snapshot is used (a registry
    entry recorded there is read again, at the recorded version). With --results-from only, no server is
    reached: the recordings' results are compared with the observed result types.
    Exit codes: 0 no drift at or above --fail-on; 1 drift; 2 the comparison could not be made.
    """

    def action() -> None:
        from mcp_codegen.drift import load_side

        reporter = Reporter(server.quiet or output_format != "text", verbose=server.verbose)
        old = load_side(against)
        results = None
        if results_from is not None:
            from mcp_codegen.drift.results import diff_results
            from mcp_codegen.snapshot.observed import recorded_answers

            results = diff_results(old, recorded_answers(results_from))
        new = None
        launch = server.launch()
        if launch is not None or results_from is None:
            launch = launch or _recorded_launch(old, server.timeout, server.auth)
            # A listing the package was generated without on purpose is not asked for again.
            skipped = server.skipped | {key for key, reason in old.not_listed.items() if reason == "skipped"}
            new = take_snapshot(launch, server.timeout, reporter, Diagnostics(), skipped)
        _report_drift(old, new, fail_on, output_format, allow_file, results)

    run_command(action, error_code=COMPARISON_FAILED)


def _recorded_launch(snapshot: Snapshot, timeout: float, given: AuthOptions) -> ServerLaunch:
    """The launch spec a snapshot recorded, with env and header values read from the environment (and the
    login options given: --no-browser, --login-timeout)."""
    from mcp_codegen.inputs.launch import HttpLaunch, auth_spec, expand_env, no_login_reason, stdio_launch

    if snapshot.registry is not None:  # read the same registry entry again (its exact version)
        from mcp_codegen.inputs.registry import resolve_registry

        entry = snapshot.registry
        return resolve_registry(f"{entry.name}@{entry.version}", entry.url, timeout=timeout)
    record = snapshot.launch
    if record is None:
        raise UsageError("the snapshot records no launch spec: give --url, --stdio or --registry")
    if record.transport == "stdio":
        from mcp_codegen_runtime.connection.launch import recorded_env

        env = recorded_env(record.as_json(), os.environ)  # the settings as recorded, the secrets when set
        kept = dict.fromkeys((name for name, _value in record.env), False)
        return stdio_launch(
            record.command or "", record.args, env, record.cwd, what="the recorded command", env_choice=kept
        )
    headers = {
        header.name: expand_env(header.template, what=f"header {header.name}")
        for header in record.headers
        if header.template is not None
    }
    auth = None
    if record.auth is not None:  # OAuth as recorded: stored tokens, the client secret from its variable
        auth = auth_spec(
            record.auth.kind,
            client_id=record.auth.client_id,
            client_secret_env=record.auth.client_secret_env,
            workload_token_file=record.auth.workload_token_file,
            workload_token_env=record.auth.workload_token_env,
            scopes=record.auth.scopes,
            what="the recorded auth",
            open_browser=not given.no_browser,
            login_timeout=given.login_timeout,
            no_login=no_login_reason(given.no_browser),
            dpop=record.auth.dpop,
        )
    return HttpLaunch(url=record.url or "", headers=headers, transport=record.transport, auth=auth)
