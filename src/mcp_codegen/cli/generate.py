"""`mcp-codegen generate`: parse the options, run the job (one server) or the umbrella run (several), report."""

from __future__ import annotations

import io
import json
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mcp_codegen.cli.common import (
    Reporter,
    ServerArguments,
    diagnostic_lines,
    run_command,
    server_options,
    take_snapshot,
)
from mcp_codegen.collector import collector_paused
from mcp_codegen.diagnostics import Diagnostics, unknown_codes
from mcp_codegen.errors import CodegenError, ExitCode, StrictModeError, UsageError
from mcp_codegen.inputs.launch import ServerLaunch
from mcp_codegen.snapshot.model import Snapshot, read_snapshot
from mcp_codegen.wording import plural

if TYPE_CHECKING:
    from mcp_codegen.inputs.config import ProjectConfig
    from mcp_codegen.inputs.options import GenerateOptions
    from mcp_codegen.output.job import JobResult

CONFIG_FILE = "mcp-codegen.toml"  # `inputs.config.CONFIG_FILE` (that module imports pydantic: imported late)


class StaleOutputError(CodegenError):
    exit_code = ExitCode.FAILED_CHECK


@click.command("generate")
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
@click.option(
    "--meta",
    type=click.Choice(["none", "pyproject"]),
    default="none",
    show_default=True,
    help="pyproject: write a project (pyproject.toml, the package under src/) that builds a wheel.",
)
@click.option("--package-version", help="With --meta pyproject: the project's version (default: the server's).")
@click.option(
    "--server-skeleton",
    "server_package",
    is_flag=True,
    help="Write a typed server package (handlers in handlers.py, never overwritten) instead of a client.",
)
@click.option(
    "--cli",
    "with_cli",
    is_flag=True,
    help="Also write a command line (`python -m PKG TOOL --param value`, `__main__.py`) and an agent skill "
    "describing it (`SKILL.md`).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Also replace generated files you changed since mcp-codegen wrote them (its manifest lists them). "
    "Nothing else is ever deleted: files you added are kept, and a folder holding them is refused unless "
    "--keep-other-files.",
)
@click.option(
    "--keep-other-files",
    "keep_others",
    is_flag=True,
    help="Generate into a folder that holds files mcp-codegen did not write (a .git, your own modules), or "
    "beside them with --overwrite, keeping every one as it is. A file of yours where a generated file goes is "
    "still refused.",
)
@click.option("--strict", is_flag=True, help="Fail (exit 1) on any warning not accepted with --allow-warning.")
@click.option(
    "--allow-warning",
    "allow_warnings",
    multiple=True,
    metavar="CODE",
    help="With --strict: accept warnings with this code (repeatable; docs: reference/warning-codes).",
)
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
    "--formatter",
    type=click.Choice(["ruff", "black", "none"]),
    default=None,
    help="Formatter of the generated code (default: ruff); ruff and black take their settings (line-length, ...) "
    "from your pyproject.toml. none: the code as rendered.",
)
@click.option(
    "--results-from",
    type=click.Path(file_okay=False, path_type=Path),
    help="A directory of recorded sessions (*.ndjson, `record=`): type the results of tools that declare no "
    "output schema from the JSON they answered.",
)
@click.option(
    "--descriptions",
    "descriptions_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML or JSON file mapping wire tool names to replacement descriptions.",
)
@click.pass_context
def generate_command(
    context: click.Context,
    server: ServerArguments,
    snapshot_file: Path | None,
    mcp_json: Path | None,
    config_file: Path | None,
    server_names: tuple[str, ...],
    output: Path | None,
    package_name: str | None,
    meta: str,
    package_version: str | None,
    server_package: bool,
    with_cli: bool,
    overwrite: bool,
    keep_others: bool,
    strict: bool,
    allow_warnings: tuple[str, ...],
    check: bool,
    output_format: str,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    tool_prefix: str | None,
    formatter: str | None,
    results_from: Path | None,
    descriptions_file: Path | None,
) -> None:
    """Generate a typed client package from a live server, a snapshot file, or the servers of a config.

    \b
    One server:      generate --url URL | --stdio CMD | --registry NAME[@VERSION] | --snapshot FILE  -o DIR
    Config servers:  generate [--server NAME ...]        ([tool.mcp-codegen] or mcp-codegen.toml)
    An mcp.json:     generate --mcp-json FILE [--server NAME ...] -o DIR
    One server selected with -o writes a plain package; several write an umbrella package with a Toolkit.

    \b
    Cache: generation results are kept in $MCP_CODEGEN_CACHE_DIR, else
    $XDG_CACHE_HOME/mcp-codegen, else ~/.cache/mcp-codegen (deleting it only
    costs time; MCP_CODEGEN_NO_CACHE=1 turns it off).
    """

    def action() -> None:
        from mcp_codegen.inputs.options import GenerateOptions, Selection

        reporter = Reporter(server.quiet, output_format, verbose=server.verbose)
        if unknown := unknown_codes(allow_warnings):
            what = "code" if len(unknown) == 1 else "codes"
            raise UsageError(
                f"--allow-warning: unknown {what} {', '.join(unknown)} (see the warning codes in docs/reference/warning-codes.md)"
            )
        if output is not None:
            from mcp_codegen.output.ownership import check_output_path

            check_output_path(output)  # as written: `-o ""` and links on the way, before anything resolves it
        flags = Flags(overwrite, keep_others, strict, check, frozenset(allow_warnings))
        if server.registry and (snapshot_file or mcp_json or config_file or server_names):
            raise UsageError("--registry names one server: not with --snapshot, --mcp-json, --config or --server")
        launch = server.launch()
        descriptions = _read_descriptions(descriptions_file) if descriptions_file is not None else {}
        if with_cli and server_package:
            raise UsageError("--cli writes a client's command line: not with --server-skeleton")
        single = launch is not None or snapshot_file is not None
        if launch is not None and snapshot_file is not None:
            raise UsageError("give one of --url, --stdio, --registry or --snapshot")
        if single and (mcp_json or config_file or server_names):
            raise UsageError(
                "--mcp-json, --config and --server take servers from a file: not with --url, --stdio or --snapshot"
            )
        if single:
            if output is None:
                raise UsageError("Missing option '-o' / '--output'")
            options = GenerateOptions(
                Selection(include, exclude, descriptions),
                tool_prefix or "",
                meta=meta,
                package_version=package_version,
                server=server_package,
                formatter=formatter or "ruff",
                cli=with_cli,
                skip=server.skipped,
                results_from=results_from,
            )
            source = SingleSource(launch=launch, snapshot_file=snapshot_file, timeout=server.timeout)
            _generate_one(source, output, package_name, options, reporter, flags)
            return
        from mcp_codegen.inputs.config import apply_overrides, resolve_server, select_servers

        if meta != "none" or package_version is not None or server_package:
            raise UsageError(
                "--meta, --package-version and --server-skeleton: for one server (--url, --stdio, --registry or --snapshot)"
            )

        explicit_timeout = context.get_parameter_source("timeout") is not click.core.ParameterSource.DEFAULT
        cfg = _project_config(mcp_json, config_file)
        flags = Flags(overwrite, keep_others, strict, check, flags.allowed | set(cfg.allow_warnings))
        overrides: dict[str, Any] = {}
        if include:
            overrides["include"] = list(include)
        if exclude:
            overrides["exclude"] = list(exclude)
        if tool_prefix is not None:
            overrides["tool_prefix"] = tool_prefix
        if descriptions:
            overrides["descriptions"] = descriptions
        if formatter is not None:
            overrides["formatter"] = formatter
        if with_cli:
            overrides["cli"] = True
        if server.skip:
            overrides["skip"] = sorted(set(server.skip))
        if results_from is not None:
            overrides["results_from"] = str(results_from.resolve())
        names = select_servers(cfg, server_names)
        cfg = apply_overrides(
            cfg,
            output=output.resolve() if output is not None else None,
            timeout=server.timeout if explicit_timeout else None,
            server=overrides,
            names=names,
        )
        if output is not None and len(names) == 1:
            server_launch, options, _ = resolve_server(cfg, names[0])
            source = SingleSource(launch=server_launch, snapshot_file=None, timeout=cfg.timeout)
            _generate_one(source, output, package_name, options, reporter, flags)
            return
        _generate_umbrella(cfg, names, package_name, reporter, flags)

    run_command(action)


@dataclass(frozen=True)
class Flags:
    overwrite: bool
    #: --keep-other-files: write beside entries mcp-codegen did not write (`output.ownership`).
    keep_others: bool
    strict: bool
    check: bool
    #: Warning codes --strict accepts (--allow-warning and the config's allow_warnings).
    allowed: frozenset[str]


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
    flags: Flags,
) -> None:
    from mcp_codegen.inputs.options import validate_top_level_name
    from mcp_codegen.output.job import model_workers, new_snapshot, preflight, run_job

    default_name = output.resolve().name
    if options.meta == "pyproject":  # a project folder may be named like its distribution: demo-client
        default_name = default_name.replace("-", "_")
    name = validate_top_level_name(package_name or default_name)
    consumed = _own_snapshot(source.snapshot_file, output)
    preflight(
        output,
        overwrite=flags.overwrite,
        check=flags.check,
        keep_others=flags.keep_others,
        consumed=consumed,
        server=options.server,
    )
    diagnostics = Diagnostics()
    started = time.perf_counter()
    try:
        with collector_paused(), ExitStack() as early:  # paused first: the early workers are forked without it
            if source.snapshot_file is not None and not flags.check:
                # A file other than the package's own snapshot (a regeneration after a change): the model
                # generator's slow start begins now (if `_console` has not begun it), while the snapshot is read
                # and planned. The package's own: probably up to date, nothing to make.
                if new_snapshot(source.snapshot_file, output):
                    early.enter_context(model_workers(output))
                else:
                    _stop_early_workers()
            if source.snapshot_file is not None:
                from mcp_codegen.generate.snapshot_text import item_texts  # a canonical file: read tool by tool

                taken = read_snapshot(source.snapshot_file, item_texts=item_texts)
            else:
                assert source.launch is not None
                taken = take_snapshot(source.launch, source.timeout, reporter, diagnostics, options.skip)
            reporter.progress(f"generating {name} from {taken.server_name}")
            result = run_job(
                taken,
                output,
                name,
                options,
                diagnostics,
                overwrite=flags.overwrite,
                strict=flags.strict,
                check=flags.check,
                allowed=flags.allowed,
                keep_others=flags.keep_others,
                consumed=consumed,
            )
            _stop_early_workers()  # the job is done: not left running while the run reports
    except StrictModeError:
        reporter.summary(taken, diagnostics, "not written", {"written": False}, tools=_selected(taken, options))
        raise
    _report_files(reporter, output, result)
    extra: dict[str, Any] = {"toolsLeftOut": result.left_out}
    if flags.check:
        for difference in result.stale:
            reporter.line(f"{difference.change}: {output / difference.path}")
        reporter.summary(
            taken, diagnostics, "checked", {**extra, "stale": [d.path for d in result.stale]}, tools=result.tools
        )
        if result.stale:
            count = plural(len(result.stale), "file") + (" differs" if len(result.stale) == 1 else " differ")
            raise StaleOutputError(f"{output} is out of date ({count}); regenerate it")
        return
    extra |= {"written": result.state == "written", "kept": result.kept}
    note = f" ({plural(result.left_out, 'tool')} left out by --include/--exclude)" if result.left_out else ""
    if result.state == "up to date":
        done = f"{output} is up to date{note}"
    else:
        done = f"wrote {output} in {time.perf_counter() - started:.1f} s{note}"
    reporter.summary(taken, diagnostics, done, extra, tools=result.tools)


def _own_snapshot(snapshot_file: Path | None, output: Path) -> tuple[str, ...]:
    """The package's own snapshot when `--snapshot` names it (its path in the package): a change there is this
    run's input, carried into what it writes."""
    if snapshot_file is None:
        return ()
    try:
        return (snapshot_file.resolve().relative_to(output.resolve()).as_posix(),)
    except ValueError:
        return ()


def _stop_early_workers() -> None:
    """Stop the model generator's workers `_console` started for this run, if it did (else their module, ~15 ms
    to import, is not even loaded)."""
    workers = sys.modules.get("mcp_codegen.generate.workers")
    if workers is not None:
        workers.stop_warm()


def _selected(snapshot: Snapshot, options: GenerateOptions) -> int:
    return sum(1 for tool in snapshot.tools if options.selection.selects(str(tool.get("name"))))


def _report_files(reporter: Reporter, output: Path, result: JobResult) -> None:
    if result.kept:
        reporter.progress(f"kept {plural(len(result.kept), 'file')} of yours in {output}: {', '.join(result.kept)}")


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
            "generate needs --url, --stdio, --registry, --snapshot, --mcp-json, or a config "
            f"({CONFIG_FILE} or [tool.mcp-codegen] in pyproject.toml)"
        )
    return load_config(path)


def _generate_umbrella(
    cfg: ProjectConfig, names: list[str], package_name: str | None, reporter: Reporter, flags: Flags
) -> None:
    from mcp_codegen.cli.progress import LiveProgress, summarize
    from mcp_codegen.output.umbrella_job import generate_umbrella

    output = cfg.output_dir()
    started = time.perf_counter()
    show = not reporter.quiet and reporter.output_format == "text"
    with LiveProgress(names, stream=sys.stderr if show else io.StringIO()) as live:
        run = generate_umbrella(
            cfg,
            names,
            output=output,
            package_name=package_name or output.resolve().name,
            overwrite=flags.overwrite,
            keep_others=flags.keep_others,
            check=flags.check,
            strict=flags.strict,
            allowed=flags.allowed,
            progress=live,
        )
    text, partial = summarize(run.results)
    stale = [f"{outcome.package}/{d.path}" for outcome in run.outcomes.values() for d in outcome.stale]
    stale += [d.path for d in run.stale]
    kept = [f"{outcome.package}/{path}" for outcome in run.outcomes.values() for path in outcome.kept] + run.kept
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
                    "kept": outcome.kept,
                }
                for name, outcome in run.outcomes.items()
            },
            "partial": partial,
            "removed": run.removed,
            "kept": kept,
            "stale": stale,
        }
        click.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        for name, outcome in run.outcomes.items():
            for line in diagnostic_lines(outcome.diagnostics, quiet=reporter.quiet, verbose=reporter.verbose):
                click.echo(f"mcp-codegen: {name}: {line}", err=True)
        if flags.check:
            for path in stale:
                reporter.line(f"stale: {output / path}")
        for package in run.removed:
            reporter.line(f"removed {output / package} (its server is no longer configured)")
        if kept:
            reporter.progress(f"kept {plural(len(kept), 'file')} of yours in {output}: {', '.join(kept)}")
        if not reporter.quiet or partial:
            click.echo(f"mcp-codegen: {text}", err=True)
        if not reporter.quiet:
            verb = "checked" if flags.check else "wrote"
            click.echo(f"mcp-codegen: {verb} {output} in {time.perf_counter() - started:.1f} s", err=True)
    succeeded = any(isinstance(result, Snapshot) for result in run.results.values())
    if not succeeded:
        sys.exit(int(ExitCode.SERVER))
    if flags.check and stale:
        sys.exit(int(ExitCode.FAILED_CHECK))
    if partial:
        sys.exit(int(ExitCode.PARTIAL))


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
