"""What every command shares: the server options, the reporter (progress, summary), and one-line failures."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any, NoReturn, TypeVar

import anyio
import click

from mcp_codegen.diagnostics import Diagnostic, Diagnostics, Level
from mcp_codegen.errors import CodegenError, ExitCode, UsageError
from mcp_codegen.inputs.launch import (
    AuthSpec,
    ServerLaunch,
    StdioLaunch,
    Transport,
    auth_spec,
    choose_env,
    no_login_reason,
    parse_http,
    parse_stdio,
)
from mcp_codegen.inputs.options import SKIPPABLE
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen.wording import counts, plural
from mcp_codegen_runtime.text import one_line

DEFAULT_TIMEOUT = 30.0
#: Seconds a browser login may take (`--login-timeout`).
LOGIN_TIMEOUT = 300.0


#: How a kind of note reads when summarized (`{count}` filled in); other kinds read "N notes [code]".
NOTE_SUMMARIES: dict[str, tuple[str, str]] = {
    "renamed": ("name spelt differently in Python", "names spelt differently in Python"),
}


def diagnostic_lines(diagnostics: Iterable[Diagnostic], *, quiet: bool, verbose: bool) -> list[str]:
    """What the text output says: each warning and error on its own line; notes one line per kind
    with a count (each on its own line with `verbose`; none with `quiet`)."""
    lines: list[str] = []
    notes: Counter[str] = Counter()
    for diagnostic in diagnostics:
        if diagnostic.level is not Level.INFO or verbose and not quiet:
            lines.append(str(diagnostic))
        elif not quiet:
            notes[diagnostic.code] += 1
    for code, count in sorted(notes.items()):
        one, many = NOTE_SUMMARIES.get(code, ("note", "notes"))
        lines.append(f"info[{code}]: {count} {one if count == 1 else many}; --verbose lists them")
    return lines


@dataclass
class Reporter:
    quiet: bool
    output_format: str = "text"
    #: Every note on its own line, instead of one line per kind.
    verbose: bool = False

    def progress(self, message: str) -> None:
        if not self.quiet and self.output_format == "text":
            click.echo(f"mcp-codegen: {message}", err=True)

    def line(self, message: str) -> None:
        """A line shown even with --quiet (what was removed or kept), in text format only."""
        if self.output_format == "text":
            click.echo(f"mcp-codegen: {message}", err=True)

    def summary(
        self,
        snapshot: Snapshot,
        diagnostics: Diagnostics,
        done: str,
        extra: dict[str, Any],
        *,
        tools: int | None = None,
    ) -> None:
        """The run's summary; `tools` is the number generated (default: every tool of the snapshot)."""
        if self.output_format == "json":
            report = {
                "server": {"name": snapshot.server_name, "version": snapshot.server_version},
                "tools": len(snapshot.tools) if tools is None else tools,
                "resources": len(snapshot.resources),
                "resourceTemplates": len(snapshot.resource_templates),
                "prompts": len(snapshot.prompts),
                "diagnostics": [d.as_json() for d in diagnostics],
                **extra,
            }
            click.echo(json.dumps(report, indent=2, sort_keys=True))
            return
        for line in diagnostic_lines(diagnostics, quiet=self.quiet, verbose=self.verbose):
            click.echo(f"mcp-codegen: {line}", err=True)
        if self.quiet:
            return
        warnings = plural(len(diagnostics.warnings), "warning")
        click.echo(f"mcp-codegen: {done}: {counts(snapshot, tools=tools)}, {warnings}", err=True)


def fail(error: CodegenError) -> NoReturn:
    click.echo(f"mcp-codegen: error: {error}", err=True)
    sys.exit(int(error.exit_code))


def interrupted() -> NoReturn:
    """Ctrl-C: say what state the output is in (`interrupts.written`) and exit 130 (nothing written) or 6
    (the new output in place). Further Ctrl-C are ignored: the outcome is decided."""
    import signal

    from mcp_codegen.interrupts import written

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    done = written()
    if not done:
        click.echo("mcp-codegen: interrupted; the previous output is unchanged", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    click.echo(f"mcp-codegen: interrupted; the new output is in place: {', '.join(map(str, done))}", err=True)
    sys.exit(int(ExitCode.INTERRUPTED_AFTER_WRITE))


def run_command(action: Callable[[], None], *, error_code: int | None = None) -> None:
    """Run one command, turning every failure into one line and its exit code (`error_code`, when
    given, replaces every failure's code: the drift commands exit 2 for any failure)."""
    try:
        action()
    except CodegenError as error:
        click.echo(f"mcp-codegen: error: {error}", err=True)
        sys.exit(error_code if error_code is not None else int(error.exit_code))
    except KeyboardInterrupt:
        interrupted()
    except Exception as error:  # a bug of ours: still one line, with a way to see the traceback
        from mcp_codegen.interrupts import caused_by_interrupt

        if caused_by_interrupt(error):
            interrupted()
        if os.environ.get("MCP_CODEGEN_DEBUG"):
            raise
        click.echo(
            f"mcp-codegen: internal error: {error.__class__.__name__}: {one_line(str(error), 200)} "
            "(set MCP_CODEGEN_DEBUG=1 for a traceback)",
            err=True,
        )
        sys.exit(error_code if error_code is not None else int(ExitCode.INTERNAL))


#: The OAuth options of every command that reaches a server by --url (and of `auth login`).
AUTH_OPTIONS = [
    click.option(
        "--auth",
        "kind",
        type=click.Choice(["oauth", "client-credentials", "workload", "none"]),
        help=(
            "With --url: authorize by OAuth (stored tokens, else a browser login), client credentials (CI) or"
            " workload identity (the platform's token, e.g. GitHub Actions OIDC, as a jwt-bearer grant);"
            " none: not even a stored token (without --auth, one stored by `auth login` is used when asked for)."
        ),
    ),
    click.option(
        "--workload-token-file",
        metavar="PATH",
        help="With --auth workload: the file holding the platform's token, read at each token request"
        " (recorded by path, never by content).",
    ),
    click.option(
        "--workload-token-env",
        metavar="VAR",
        help="With --auth workload: the environment variable holding the platform's token (recorded by name).",
    ),
    click.option("--client-id", metavar="ID", help="Pre-registered OAuth client id (default: dynamic registration)."),
    click.option(
        "--client-secret-env",
        metavar="VAR",
        help="Environment variable holding the client secret (recorded by name, never by value).",
    ),
    click.option(
        "--client-secret",
        metavar="SECRET",
        help="The client secret itself (prefer --client-secret-env: command lines are visible to other users).",
    ),
    click.option("--scope", "scopes", multiple=True, metavar="SCOPE", help="OAuth scope to ask for (repeatable)."),
    click.option(
        "--no-browser",
        is_flag=True,
        help="auth login: print the login URL instead of opening a browser; other commands: never log in.",
    ),
    click.option(
        "--login-timeout",
        type=click.FloatRange(min=1),
        default=LOGIN_TIMEOUT,
        show_default=True,
        metavar="SECONDS",
        help="How long a browser login may take.",
    ),
    click.option(
        "--dpop/--no-dpop",
        default=None,
        help="DPoP-bound tokens (RFC 9449): force or refuse them (default: when the authorization server offers).",
    ),
]


@dataclass(frozen=True)
class AuthOptions:
    """The --auth options as given on the command line."""

    kind: str | None = None
    client_id: str | None = None
    client_secret_env: str | None = None
    client_secret: str | None = None
    scopes: tuple[str, ...] = ()
    no_browser: bool = False
    login_timeout: float = LOGIN_TIMEOUT
    workload_token_file: str | None = None
    workload_token_env: str | None = None
    dpop: bool | None = None

    @property
    def given(self) -> bool:
        return self.kind is not None

    def spec(self, *, store: str = "auto", login: bool = False) -> AuthSpec | None:
        """The checked auth spec (the secret read from its variable), or None without --auth (or --auth none).

        `login`: a browser login may always be waited for (`auth login`); otherwise only when a person is
        there (`no_login_reason`)."""
        if self.kind is None or self.kind == "none":
            if (
                self.client_id
                or self.client_secret_env
                or self.client_secret
                or self.scopes
                or self.workload_token_file
                or self.workload_token_env
                or self.dpop is not None
            ):
                raise UsageError(
                    "--client-id, --client-secret-env, --client-secret, --scope, --workload-token-* and --dpop/--no-dpop"
                    " go with --auth oauth, --auth client-credentials or --auth workload"
                )
            return None
        return auth_spec(
            self.kind,
            client_id=self.client_id,
            client_secret_env=self.client_secret_env,
            client_secret=self.client_secret,
            scopes=self.scopes,
            open_browser=not self.no_browser,
            store=store,
            login_timeout=self.login_timeout,
            no_login=None if login else no_login_reason(self.no_browser),
            workload_token_file=self.workload_token_file,
            workload_token_env=self.workload_token_env,
            dpop=self.dpop,
        )


#: Where the server is, how long to wait, how much to print: the options of every command that reaches one.
SERVER_OPTIONS = [
    click.option("--url", metavar="URL", help="Streamable HTTP (or legacy SSE) endpoint of the server."),
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
        "--stdio",
        metavar="'COMMAND ARGS...'",
        help=(
            "Start the server as a subprocess (split like a shell). ${VAR} in ARGS is expanded and recorded by name:"
            " pass secrets that way, single-quoted (a literal one is recorded as a ${NAME} placeholder)."
        ),
    ),
    click.option(
        "-e",
        "--env",
        "env",
        multiple=True,
        metavar="KEY=VALUE",
        help=(
            "Environment for --stdio; ${VAR} expanded. A setting (-e MODE=paper) is recorded as written; a secret"
            " (judged by its name, then its shape: -e API_KEY=...) or a ${VAR} value by name only, read from the"
            " environment when the generated client connects."
        ),
    ),
    click.option(
        "--secret-env",
        "secret_env",
        multiple=True,
        metavar="NAME",
        help="Record this -e variable by name only, though its value looks like a setting (repeatable).",
    ),
    click.option(
        "--keep-env",
        "keep_env",
        multiple=True,
        metavar="NAME",
        help="Record this -e variable's value as written, though it looks secret (repeatable).",
    ),
    click.option("--cwd", type=click.Path(file_okay=False), metavar="DIR", help="Working directory for --stdio."),
    click.option(
        "--no-redact",
        "no_redact",
        multiple=True,
        metavar="VALUE",
        help="Record this --stdio argument (or part of one) or -H value as given, though it looks secret (repeatable).",
    ),
    click.option(
        "--registry",
        metavar="NAME[@VERSION]",
        help="A server of the MCP registry (default: latest version): its remote, or its npm/PyPI/OCI package.",
    ),
    click.option(
        "--registry-url",
        metavar="URL",
        help="With --registry: the registry to read (default: https://registry.modelcontextprotocol.io).",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        metavar="SECONDS",
        help="Seconds allowed for connecting and for each request (a line says what is awaited after 5 s).",
    ),
    click.option(
        "--skip",
        multiple=True,
        type=click.Choice(list(SKIPPABLE)),
        help="Do not ask the server for this listing (repeatable): the package has none of them, and the snapshot"
        " says so. A resources, templates or prompts listing that fails is left out with a warning anyway.",
    ),
    click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors."),
    click.option(
        "-v",
        "--verbose",
        is_flag=True,
        help="List every note (renamed names...), not a count per kind; show a stdio server's stderr as it comes.",
    ),
]


@dataclass(frozen=True)
class ServerArguments:
    """The server options as given on the command line (`server_options` packs them into one value)."""

    url: str | None
    transport: str
    headers: tuple[str, ...]
    stdio: str | None
    env: tuple[str, ...]
    secret_env: tuple[str, ...]
    keep_env: tuple[str, ...]
    cwd: str | None
    no_redact: tuple[str, ...]
    registry: str | None
    registry_url: str | None
    timeout: float
    skip: tuple[str, ...]
    quiet: bool
    verbose: bool
    auth: AuthOptions

    @property
    def skipped(self) -> frozenset[str]:
        """The listings `--skip` names, by their key in the snapshot."""
        return skip_keys(self.skip)

    def launch(self) -> ServerLaunch | None:
        """The server these options name (checked), or None when none is named."""
        launch = launch_from_options(
            self.url,
            self.transport,
            self.headers,
            self.stdio,
            self.env,
            self.cwd,
            self.auth,
            registry=self.registry,
            registry_url=self.registry_url,
            timeout=self.timeout,
        )
        if self.no_redact:
            if launch is None:
                raise UsageError("--no-redact goes with --stdio or -H")
            launch = dataclasses.replace(launch, keep=frozenset(self.no_redact))
        if self.secret_env or self.keep_env:
            if not isinstance(launch, StdioLaunch):
                raise UsageError("--secret-env and --keep-env go with --stdio and -e")
            launch = choose_env(launch, self.secret_env, self.keep_env, what="--secret-env/--keep-env")
        return launch


_Packed = TypeVar("_Packed")


def _pop_into(into: type[_Packed], values: dict[str, Any], **given: Any) -> _Packed:
    """An `into` dataclass made of the click values named like its fields (taken out of `values`)."""
    taken = {field.name: values.pop(field.name) for field in fields(into) if field.name not in given}  # type: ignore[arg-type]
    return into(**taken, **given)


def _with_options(function: Callable[..., Any], options: list[Callable[..., Any]]) -> Callable[..., Any]:
    for option in reversed(options):
        function = option(function)
    return function


def server_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The server and --auth options, passed to the command as one `server: ServerArguments`."""

    @functools.wraps(function)
    def command(*args: Any, **values: Any) -> Any:
        server = _pop_into(ServerArguments, values, auth=_pop_into(AuthOptions, values))
        return function(*args, server=server, **values)

    return _with_options(command, [*SERVER_OPTIONS, *AUTH_OPTIONS])


def auth_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The --auth options, passed to the command as one `auth: AuthOptions`."""

    @functools.wraps(function)
    def command(*args: Any, **values: Any) -> Any:
        return function(*args, auth=_pop_into(AuthOptions, values), **values)

    return _with_options(command, AUTH_OPTIONS)


def launch_from_options(
    url: str | None,
    transport: str,
    headers: tuple[str, ...],
    stdio: str | None,
    env: tuple[str, ...],
    cwd: str | None,
    auth: AuthOptions | None = None,
    *,
    registry: str | None = None,
    registry_url: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ServerLaunch | None:
    auth = auth or AuthOptions()
    if registry_url and not registry:
        raise UsageError("--registry-url goes with --registry")
    if registry:
        if url or stdio:
            raise UsageError("give one of --url, --stdio or --registry")
        if headers or env or cwd or auth.given or transport != "auto":
            raise UsageError(
                "-H, -e, --cwd, --auth and --transport do not go with --registry: the entry says how to reach the"
                " server, and its values are read from the environment"
            )
        from mcp_codegen.inputs.registry import resolve_registry

        return resolve_registry(registry, registry_url, timeout=timeout)
    if url and stdio:
        raise UsageError("give either --url or --stdio, not both")
    if url:
        if env or cwd:
            raise UsageError("-e/--env and --cwd go with --stdio, not --url")
        chosen: Transport = "http" if transport == "http" else "sse" if transport == "sse" else "auto"
        return parse_http(url, headers, chosen, auth.spec(), stored_token=auth.kind != "none")
    if auth.given:
        raise UsageError("--auth goes with --url")
    auth.spec()  # the other auth options without --auth: a usage error
    if stdio:
        if headers:
            raise UsageError("-H/--header goes with --url, not --stdio")
        return parse_stdio(stdio, env, cwd)
    return None


def skip_keys(names: Iterable[str]) -> frozenset[str]:
    """`--skip` names (`resources`, `templates`, `prompts`) as the snapshot's listing keys."""
    return frozenset(SKIPPABLE[name] for name in names)


def take_snapshot(
    launch: ServerLaunch,
    timeout: float,
    reporter: Reporter,
    diagnostics: Diagnostics,
    skip: frozenset[str] = frozenset(),
) -> Snapshot:
    """The server's snapshot (`skip`: listing keys not to ask for)."""
    from mcp_codegen.snapshot.fetch import take_snapshot as fetch

    async def run() -> Snapshot:
        return await fetch(
            launch,
            timeout=timeout,
            diagnostics=diagnostics,
            progress=reporter.progress,
            show_stderr=reporter.verbose,
            skip=skip,
        )

    return anyio.run(run)


def connect_once(launch: ServerLaunch, timeout: float, reporter: Reporter) -> None:
    """Connect and initialize, nothing more: what `auth login` needs to authorize and store tokens."""
    from mcp_codegen.snapshot.connect import connect

    async def run() -> None:
        async with connect(launch, timeout=timeout, progress=reporter.progress):
            pass

    anyio.run(run)
