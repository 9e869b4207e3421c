"""The `mcp-codegen` command: parses options, runs the pipeline, reports. No logic of its own.

Every failure is one line on stderr and a documented exit code (see `errors.ExitCode`).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import anyio
import click

from mcp_codegen import __version__
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import CodegenError, ExitCode, OutputConflictError, StrictModeError, UsageError
from mcp_codegen.inputs.launch import ServerLaunch, Transport, parse_http, parse_stdio
from mcp_codegen.snapshot.model import Snapshot, read_snapshot

if TYPE_CHECKING:
    from mcp_codegen.inputs.config import ProjectConfig
    from mcp_codegen.inputs.options import GenerateOptions

#: The config file name (`mcp_codegen.inputs.config.CONFIG_FILE`; that module imports pydantic, so it is imported late).
CONFIG_FILE = "mcp-codegen.toml"

DEFAULT_TIMEOUT = 30.0


@dataclass
class Reporter:
    quiet: bool
    output_format: str = "text"

    def progress(self, message: str) -> None:
        if not self.quiet and self.output_format == "text":
            click.echo(f"mcp-codegen: {message}", err=True)

    def summary(self, snapshot: Snapshot, diagnostics: Diagnostics, done: str, extra: dict[str, Any]) -> None:
        if self.output_format == "json":
            report = {
                "server": {"name": snapshot.server_name, "version": snapshot.server_version},
                "tools": len(snapshot.tools),
                "resources": len(snapshot.resources),
                "resourceTemplates": len(snapshot.resource_templates),
                "prompts": len(snapshot.prompts),
                "diagnostics": [d.as_json() for d in diagnostics],
                **extra,
            }
            click.echo(json.dumps(report, indent=2, sort_keys=True))
            return
        for diagnostic in diagnostics.problems if self.quiet else diagnostics:  # -q: no info lines
            click.echo(f"mcp-codegen: {diagnostic}", err=True)
        if self.quiet:
            return
        counts = (
            f"{len(snapshot.tools)} tools, {len(snapshot.resources)} resources, "
            f"{len(snapshot.resource_templates)} resource templates, {len(snapshot.prompts)} prompts"
        )
        warnings = len(diagnostics.warnings)
        click.echo(f"mcp-codegen: {done}: {counts}, {warnings} warning{'s' if warnings != 1 else ''}", err=True)


def _fail(error: CodegenError) -> NoReturn:
    click.echo(f"mcp-codegen: error: {error}", err=True)
    sys.exit(int(error.exit_code))


def _run(action: Callable[[], None]) -> None:
    """Run one command, turning every failure into one line and its exit code."""
    try:
        action()
    except CodegenError as error:
        _fail(error)
    except KeyboardInterrupt:
        click.echo("mcp-codegen: interrupted; the previous output is unchanged", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    except Exception as error:  # a bug of ours: still one line, with a way to see the traceback
        if os.environ.get("MCP_CODEGEN_DEBUG"):
            raise
        click.echo(
            f"mcp-codegen: internal error: {error.__class__.__name__}: {str(error)[:200]} "
            "(set MCP_CODEGEN_DEBUG=1 for a traceback)",
            err=True,
        )
        sys.exit(70)


def server_options(function: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--url", help="Streamable HTTP (or legacy SSE) endpoint of the server."),
        click.option(
            "--transport",
            type=click.Choice(["auto", "http", "sse"]),
            default="auto",
            show_default=True,
            help="With --url: try streamable HTTP then SSE, or force one.",
        ),
        click.option(
            "-H", "--header", "headers", multiple=True, metavar="'NAME: VALUE'", help="HTTP header; ${VAR} expanded."
        ),
        click.option(
            "--stdio", metavar="'COMMAND ARGS...'", help="Start the server as a subprocess (split like a shell)."
        ),
        click.option(
            "-e", "--env", "env", multiple=True, metavar="KEY=VALUE", help="Environment for --stdio; ${VAR} expanded."
        ),
        click.option("--cwd", type=click.Path(file_okay=False), help="Working directory for --stdio."),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.1),
            default=DEFAULT_TIMEOUT,
            show_default=True,
            help="Seconds allowed for connecting and for each request.",
        ),
        click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _launch(
    url: str | None, transport: str, headers: tuple[str, ...], stdio: str | None, env: tuple[str, ...], cwd: str | None
) -> ServerLaunch | None:
    if url and stdio:
        raise UsageError("give either --url or --stdio, not both")
    if url:
        if env or cwd:
            raise UsageError("-e/--env and --cwd go with --stdio, not --url")
        chosen: Transport = "http" if transport == "http" else "sse" if transport == "sse" else "auto"
        return parse_http(url, headers, chosen)
    if stdio:
        if headers:
            raise UsageError("-H/--header goes with --url, not --stdio")
        return parse_stdio(stdio, env, cwd)
    return None


def _take_snapshot(launch: ServerLaunch, timeout: float, reporter: Reporter, diagnostics: Diagnostics) -> Snapshot:
    from mcp_codegen.snapshot.fetch import take_snapshot

    async def run() -> Snapshot:
        return await take_snapshot(launch, timeout=timeout, diagnostics=diagnostics, progress=reporter.progress)

    return anyio.run(run)


def main() -> None:
    """The console script: click's own usage errors also become one line and exit 2."""
    try:
        cli.main(prog_name="mcp-codegen", standalone_mode=False)
    except click.exceptions.UsageError as error:
        hint = f" (see 'mcp-codegen {error.ctx.info_name} --help')" if error.ctx and error.ctx.parent else ""
        click.echo(f"mcp-codegen: error: {error.format_message()}{hint}", err=True)
        sys.exit(int(ExitCode.USAGE))
    except click.exceptions.Abort:
        click.echo("mcp-codegen: interrupted", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    except click.exceptions.ClickException as error:
        click.echo(f"mcp-codegen: error: {error.format_message()}", err=True)
        sys.exit(error.exit_code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcp-codegen")
def cli() -> None:
    """Generate typed Python client packages from MCP servers.

    \b
    Exit codes:
      0  success
      1  --check found stale output, or --strict and warnings
      2  bad usage, unreadable snapshot or config
      3  the server could not be started, reached or listed
      4  the output directory was not generated by mcp-codegen (use --overwrite)
      5  several servers: some failed (the others were generated)
      130 interrupted (the previous output is unchanged)
    """


@cli.command()
@server_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Snapshot file to write ('-' for stdout).",
)
def snapshot(
    url: str | None,
    transport: str,
    headers: tuple[str, ...],
    stdio: str | None,
    env: tuple[str, ...],
    cwd: str | None,
    timeout: float,
    quiet: bool,
    output: Path,
) -> None:
    """Capture a server's tools, resources, templates and prompts as a canonical JSON file."""

    def action() -> None:
        reporter = Reporter(quiet)
        launch = _launch(url, transport, headers, stdio, env, cwd)
        if launch is None:
            raise UsageError("snapshot needs --url or --stdio")
        diagnostics = Diagnostics()
        taken = _take_snapshot(launch, timeout, reporter, diagnostics)
        text = taken.to_text()
        if str(output) == "-":
            click.echo(text, nl=False)
        else:
            _write_text_atomically(output, text)
        reporter.summary(taken, diagnostics, f"wrote {output}", {})

    _run(action)


@cli.command()
@server_options
@click.option(
    "--snapshot",
    "snapshot_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Generate offline from a snapshot file.",
)
@click.option(
    "--mcp-json",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Take the servers from a Claude Desktop, Cursor or VS Code MCP config file.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="mcp-codegen.toml or pyproject.toml to read (default: found from the current directory).",
)
@click.option(
    "--server",
    "server_names",
    multiple=True,
    metavar="NAME",
    help="With a config or --mcp-json: generate only this server (repeatable).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Package directory to write (with several servers: the umbrella package).",
)
@click.option("--package-name", help="Import name of the package (default: the output directory's name).")
@click.option("--overwrite", is_flag=True, help="Replace the output directory even if mcp-codegen did not generate it.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on any warning.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if the output directory is not what would be generated."
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Summary format.",
)
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Generate only tools whose wire name matches (repeatable)."
)
@click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out tools whose wire name matches (repeatable).")
@click.option("--tool-prefix", default=None, help="Prefix of the tool names agents see (letters, digits, _ and -).")
@click.option(
    "--descriptions",
    "descriptions_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML or JSON file mapping wire tool names to replacement descriptions.",
)
@click.pass_context
def generate(
    context: click.Context,
    url: str | None,
    transport: str,
    headers: tuple[str, ...],
    stdio: str | None,
    env: tuple[str, ...],
    cwd: str | None,
    timeout: float,
    quiet: bool,
    snapshot_file: Path | None,
    mcp_json: Path | None,
    config_file: Path | None,
    server_names: tuple[str, ...],
    output: Path | None,
    package_name: str | None,
    overwrite: bool,
    strict: bool,
    check: bool,
    output_format: str,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    tool_prefix: str | None,
    descriptions_file: Path | None,
) -> None:
    """Generate a typed client package from a live server, a snapshot file, or the servers of a config.

    \b
    One server:      generate --url URL | --stdio CMD | --snapshot FILE  -o DIR
    Config servers:  generate [--server NAME ...]        ([tool.mcp-codegen] or mcp-codegen.toml)
    An mcp.json:     generate --mcp-json FILE [--server NAME ...] -o DIR
    One server selected with -o writes a plain package; several write an umbrella package with a Toolkit.
    """

    def action() -> None:
        from mcp_codegen.inputs.options import GenerateOptions, Selection

        reporter = Reporter(quiet, output_format)
        launch = _launch(url, transport, headers, stdio, env, cwd)
        descriptions = _read_descriptions(descriptions_file) if descriptions_file is not None else {}
        single = launch is not None or snapshot_file is not None
        if launch is not None and snapshot_file is not None:
            raise UsageError("give one of --url, --stdio or --snapshot")
        if single and (mcp_json or config_file or server_names):
            raise UsageError(
                "--mcp-json, --config and --server take servers from a file: not with --url, --stdio or --snapshot"
            )
        if single:
            if output is None:
                raise UsageError("Missing option '-o' / '--output'")
            options = GenerateOptions(Selection(include, exclude, descriptions), tool_prefix or "")
            source = SingleSource(launch=launch, snapshot_file=snapshot_file, timeout=timeout)
            _generate_one(
                source, output, package_name, options, reporter, overwrite=overwrite, strict=strict, check=check
            )
            return
        from mcp_codegen.inputs.config import apply_overrides, resolve_server, select_servers

        explicit_timeout = context.get_parameter_source("timeout") is not click.core.ParameterSource.DEFAULT
        cfg = _project_config(mcp_json, config_file)
        overrides: dict[str, Any] = {}
        if include:
            overrides["include"] = list(include)
        if exclude:
            overrides["exclude"] = list(exclude)
        if tool_prefix is not None:
            overrides["tool_prefix"] = tool_prefix
        if descriptions:
            overrides["descriptions"] = descriptions
        names = select_servers(cfg, server_names)
        cfg = apply_overrides(
            cfg,
            output=output.resolve() if output is not None else None,
            timeout=timeout if explicit_timeout else None,
            server=overrides,
            names=names,
        )
        if output is not None and len(names) == 1:
            server_launch, options, _ = resolve_server(cfg, names[0])
            source = SingleSource(launch=server_launch, snapshot_file=None, timeout=cfg.timeout)
            _generate_one(
                source, output, package_name, options, reporter, overwrite=overwrite, strict=strict, check=check
            )
            return
        _generate_umbrella(cfg, names, package_name, reporter, overwrite=overwrite, strict=strict, check=check)

    _run(action)


@dataclass(frozen=True)
class SingleSource:
    launch: ServerLaunch | None
    snapshot_file: Path | None
    timeout: float


def _generate_one(
    source: SingleSource,
    output: Path,
    package_name: str | None,
    options: GenerateOptions,
    reporter: Reporter,
    *,
    overwrite: bool,
    strict: bool,
    check: bool,
) -> None:
    from mcp_codegen.inputs.options import input_hash, validate_package_name
    from mcp_codegen.output.write import check_ownership, differences, is_current, recorded_diagnostics, write_package

    name = validate_package_name(package_name or output.resolve().name)
    if not check:
        check_ownership(output, overwrite=overwrite)
    diagnostics = Diagnostics()
    started = time.perf_counter()
    if source.snapshot_file is not None:
        taken = read_snapshot(source.snapshot_file)
    else:
        assert source.launch is not None
        taken = _take_snapshot(source.launch, source.timeout, reporter, diagnostics)
    if not check and output.is_dir() and is_current(output, input_hash(taken, name, options)):
        for diagnostic in recorded_diagnostics(output):
            diagnostics.add(diagnostic)
        if strict and diagnostics.problems:
            reporter.summary(taken, diagnostics, "not written", {"written": False})
            raise StrictModeError(f"--strict: {len(diagnostics.problems)} warning(s)")
        reporter.summary(taken, diagnostics, f"{output} is up to date", {"written": False})
        return
    reporter.progress(f"generating {name} from {taken.server_name}")
    from mcp_codegen.generate.pipeline import generate_files

    files = generate_files(taken, package_name=name, diagnostics=diagnostics, options=options)
    if strict and diagnostics.problems:
        reporter.summary(taken, diagnostics, "not written", {"written": False})
        raise StrictModeError(f"--strict: {len(diagnostics.problems)} warning(s); nothing written")
    if check:
        changed = differences(output, files)
        for difference in changed:
            click.echo(f"mcp-codegen: {difference.change}: {output / difference.path}", err=True)
        reporter.summary(taken, diagnostics, "checked", {"stale": [d.path for d in changed]})
        if changed:
            raise StaleOutputError(f"{output} is out of date ({len(changed)} file(s) differ); regenerate it")
        return
    write_package(output, files, overwrite=overwrite)
    elapsed = time.perf_counter() - started
    left_out = sum(1 for tool in taken.tools if not options.selection.selects(str(tool.get("name"))))
    note = f" ({left_out} tools left out by --include/--exclude)" if left_out else ""
    reporter.summary(
        taken, diagnostics, f"wrote {output} in {elapsed:.1f} s{note}", {"written": True, "toolsLeftOut": left_out}
    )


def _project_config(mcp_json: Path | None, config_file: Path | None) -> ProjectConfig:
    from mcp_codegen.inputs.config import find_config, load_config

    if mcp_json is not None and config_file is not None:
        raise UsageError("give --mcp-json or --config, not both")
    if mcp_json is not None:
        from mcp_codegen.inputs.mcp_json import load_mcp_json

        return load_mcp_json(mcp_json)
    path = config_file or find_config(Path.cwd())
    if path is None:
        raise UsageError(
            "generate needs --url, --stdio, --snapshot, --mcp-json, or a config "
            f"({CONFIG_FILE} or [tool.mcp-codegen] in pyproject.toml)"
        )
    return load_config(path)


def _generate_umbrella(
    cfg: ProjectConfig,
    names: list[str],
    package_name: str | None,
    reporter: Reporter,
    *,
    overwrite: bool,
    strict: bool,
    check: bool,
) -> None:
    from mcp_codegen.multi import LiveProgress, generate_umbrella, summarize

    output = cfg.output_dir()
    started = time.perf_counter()
    show = not reporter.quiet and reporter.output_format == "text"
    with LiveProgress(names, stream=sys.stderr if show else io.StringIO()) as live:
        run = generate_umbrella(
            cfg,
            names,
            output=output,
            package_name=package_name or output.resolve().name,
            overwrite=overwrite,
            check=check,
            strict=strict,
            progress=live,
        )
    text, partial = summarize(run.results)
    stale = [f"{outcome.package}/{d.path}" for outcome in run.outcomes.values() for d in outcome.stale]
    stale += [d.path for d in run.stale]
    if reporter.output_format == "json":
        report = {
            "output": str(output),
            "package": run.package_name,
            "servers": {
                name: {
                    "package": outcome.package,
                    "state": outcome.state,
                    "error": None if isinstance(outcome.result, Snapshot) else str(outcome.result),
                    "diagnostics": [d.as_json() for d in outcome.diagnostics],
                }
                for name, outcome in run.outcomes.items()
            },
            "partial": partial,
            "removed": run.removed,
            "stale": stale,
        }
        click.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        for name, outcome in run.outcomes.items():
            for diagnostic in outcome.diagnostics.problems if reporter.quiet else outcome.diagnostics:
                click.echo(f"mcp-codegen: {name}: {diagnostic}", err=True)
        if check:
            for path in stale:
                click.echo(f"mcp-codegen: stale: {output / path}", err=True)
        for package in run.removed:
            click.echo(f"mcp-codegen: removed {output / package} (its server is no longer configured)", err=True)
        if not reporter.quiet or partial:
            click.echo(f"mcp-codegen: {text}", err=True)
        if not reporter.quiet:
            verb = "checked" if check else "wrote"
            click.echo(f"mcp-codegen: {verb} {output} in {time.perf_counter() - started:.1f} s", err=True)
    succeeded = any(isinstance(result, Snapshot) for result in run.results.values())
    if not succeeded:
        sys.exit(int(ExitCode.SERVER))
    if check and stale:
        sys.exit(int(ExitCode.FAILED_CHECK))
    if partial:
        sys.exit(int(ExitCode.PARTIAL))


@cli.command()
@click.option(
    "--from",
    "source",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Claude Desktop, Cursor or VS Code MCP config file to start from.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path(CONFIG_FILE),
    show_default=True,
    help="Config file to write.",
)
@click.option("--force", is_flag=True, help="Replace an existing config file.")
def init(source: Path, output: Path, force: bool) -> None:
    """Write a starter mcp-codegen.toml from an mcp.json (secret values become ${VAR} references)."""

    def action() -> None:
        from mcp_codegen.inputs.mcp_json import load_mcp_json, starter_config_toml

        if output.exists() and not force:
            raise OutputConflictError(f"{output} exists; use --force to replace it")
        cfg = load_mcp_json(source)
        _write_text_atomically(output, starter_config_toml(cfg))
        click.echo(
            f"mcp-codegen: wrote {output} with {len(cfg.servers)} server(s): {', '.join(cfg.servers)}; "
            "run `mcp-codegen generate`",
            err=True,
        )

    _run(action)


def _read_descriptions(path: Path) -> dict[str, str]:
    """`{"wire-name": "description"}` from a JSON file, or `wire-name = "description"` lines from TOML."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--descriptions: cannot read {path} ({error.__class__.__name__})") from None
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise UsageError(
            f"--descriptions: {path} is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {error}"
        ) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise UsageError(f"--descriptions: {path} must map tool names to description strings")
    return dict(data)


class StaleOutputError(CodegenError):
    exit_code = ExitCode.FAILED_CHECK


def _write_text_atomically(path: Path, text: str) -> None:
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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


def _report_drift(old: Snapshot, new: Snapshot, fail_on: str, output_format: str, allow_file: Path | None) -> None:
    from mcp_codegen.drift import apply_allowlist, diff_snapshots, exit_code, load_allowlist, render

    report = diff_snapshots(old, new)
    if allow_file is not None:
        report = apply_allowlist(report, load_allowlist(allow_file))
    click.echo(render(report, output_format), nl=False)
    code = exit_code(report, fail_on=fail_on)
    if code:
        sys.exit(code)


def _run_drift(action: Callable[[], None]) -> None:
    """Drift commands: 0 no drift at or above --fail-on, 1 drift, 2 the comparison could not be made."""
    try:
        action()
    except CodegenError as error:
        click.echo(f"mcp-codegen: error: {error}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("mcp-codegen: interrupted", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    except Exception as error:
        if os.environ.get("MCP_CODEGEN_DEBUG"):
            raise
        click.echo(f"mcp-codegen: internal error: {error.__class__.__name__}: {str(error)[:200]}", err=True)
        sys.exit(2)


@cli.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@_drift_options
def diff(old: Path, new: Path, fail_on: str, output_format: str, allow_file: Path | None) -> None:
    """Classify what changed between two snapshots (files or generated package directories).

    \b
    Exit codes: 0 no drift at or above --fail-on; 1 drift; 2 the comparison could not be made.
    """

    def action() -> None:
        from mcp_codegen.drift import load_side

        _report_drift(load_side(old), load_side(new), fail_on, output_format, allow_file)

    _run_drift(action)


@cli.command()
@server_options
@click.option(
    "--against",
    type=click.Path(path_type=Path),
    required=True,
    help="Generated package directory or snapshot file the client was made from.",
)
@_drift_options
def check(
    url: str | None,
    transport: str,
    headers: tuple[str, ...],
    stdio: str | None,
    env: tuple[str, ...],
    cwd: str | None,
    timeout: float,
    quiet: bool,
    against: Path,
    fail_on: str,
    output_format: str,
    allow_file: Path | None,
) -> None:
    """Snapshot the live server and classify its drift from what a client was generated from.

    \b
    Without --url/--stdio, the server recorded in the package's snapshot is used.
    Exit codes: 0 no drift at or above --fail-on; 1 drift; 2 the comparison could not be made.
    """

    def action() -> None:
        from mcp_codegen.drift import load_side

        reporter = Reporter(quiet or output_format != "text")
        old = load_side(against)
        launch = _launch(url, transport, headers, stdio, env, cwd) or _recorded_launch(old)
        new = _take_snapshot(launch, timeout, reporter, Diagnostics())
        _report_drift(old, new, fail_on, output_format, allow_file)

    _run_drift(action)


def _recorded_launch(snapshot: Snapshot) -> ServerLaunch:
    """The launch spec a snapshot recorded, with env and header values read from the environment."""
    from mcp_codegen.inputs.launch import HttpLaunch, StdioLaunch, expand_env

    record = snapshot.launch
    if record is None:
        raise UsageError("the snapshot records no launch spec: give --url or --stdio")
    if record.transport == "stdio":
        env = {name: os.environ[name] for name in record.env_names if name in os.environ}
        return StdioLaunch(command=record.command or "", args=record.args, env=env, cwd=record.cwd)
    headers = {
        header.name: expand_env(header.template, what=f"header {header.name}")
        for header in record.headers
        if header.template is not None
    }
    return HttpLaunch(url=record.url or "", headers=headers, transport=record.transport)
