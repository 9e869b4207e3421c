"""`mcp-codegen auth login|status|logout`: OAuth tokens stored per server URL, shown without secrets.

`login` authorizes once (a browser login, or client credentials) and stores the tokens and the client
registration, so `snapshot`, `generate`, `check --auth oauth` and generated clients' `connect()` need no
browser later. `status` shows what is stored (server, client id, scopes, expiry, where), never a token;
`logout` forgets a server's tokens and registration. Failures are one line: exit 2 for bad usage, 3 when
the server or its authorization server cannot be reached or refuses.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Literal

import click

from mcp_codegen.cli.common import DEFAULT_TIMEOUT, AuthOptions, Reporter, auth_options, connect_once, run_command
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.launch import parse_http, redact_url

_STORES = click.Choice(["auto", "file", "keyring"])


@click.group("auth")
def auth_group() -> None:
    """Log in to OAuth-protected servers and manage the stored tokens.

    \b
    Tokens and client registrations are kept per server URL: in the OS keyring when `keyring` is
    installed and usable, else in a file only you can read under the user config directory
    ($MCP_CODEGEN_CONFIG_DIR overrides it). No command prints a token or a secret.
    Exit codes: 0 done; 2 bad usage; 3 the server or its authorization server failed or refused.
    """


@auth_group.command("login")
@click.argument("url")
@auth_options
@click.option("--store", type=_STORES, default="auto", show_default=True, help="Where to keep the tokens.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds for each request to the server (the login itself may take longer).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only errors (and the login URL).")
def login_command(
    url: str,
    auth: AuthOptions,
    store: str,
    timeout: float,
    quiet: bool,
) -> None:
    """Authorize with the server at URL and store its tokens (--auth oauth, the default, opens a browser)."""

    def action() -> None:
        if auth.kind == "none":
            raise UsageError("auth login: --auth none stores nothing (use --auth oauth or client-credentials)")
        options = auth if auth.kind else dataclasses.replace(auth, kind="oauth")
        launch = parse_http(url, (), "auto", options.spec(store=store, login=True))
        reporter = Reporter(quiet)
        connect_once(launch, timeout, reporter)
        status = _status_of(url, store)
        if not status["hasToken"]:
            reporter.line(f"{redact_url(url)} did not ask for authorization: nothing was stored")
            return
        described = _describe(status)
        reporter.line(f"logged in to {redact_url(url)}{f' ({described})' if described else ''}")

    run_command(action)


@auth_group.command("status")
@click.argument("url", required=False)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def status_command(url: str | None, output_format: str) -> None:
    """What is stored for URL (or for every server): client id, scopes, expiry, where; never a token.

    \b
    Exit codes: 0 something is stored (with URL: for that server); 1 nothing is stored; 2 bad usage.
    """

    def action() -> None:
        from mcp_codegen_runtime import auth

        if url is not None:
            parse_http(url, (), "auto")  # the same URL checks as --url
            entries = [entry for entry in [_status_of(url, "auto")] if entry["stored"]]
        else:
            entries = [_as_json(status) for status in auth.TokenStore.stored_servers()]
        if output_format == "json":
            click.echo(json.dumps(entries, indent=2, sort_keys=True))
        elif not entries:
            click.echo(f"no tokens stored{f' for {redact_url(url)}' if url else ''}")
        else:
            for entry in entries:
                click.echo(f"{entry['server']}: {_describe(entry)}")
        if not entries:
            raise SystemExit(1)

    run_command(action)


@auth_group.command("logout")
@click.argument("url")
@click.option("--store", type=_STORES, default="auto", show_default=True, help="Which store to clear.")
def logout_command(url: str, store: str) -> None:
    """Forget the tokens and the client registration stored for URL."""

    def action() -> None:
        from mcp_codegen_runtime import auth

        parse_http(url, (), "auto")
        had = auth.TokenStore.for_url(url, backend=_store(store)).clear()
        what = "removed the stored tokens and client registration" if had else "nothing was stored"
        click.echo(f"mcp-codegen: {what} for {redact_url(url)}", err=True)

    run_command(action)


def _status_of(url: str, store: str) -> dict[str, Any]:
    from mcp_codegen_runtime import auth

    return _as_json(auth.TokenStore.for_url(url, backend=_store(store)).describe())


def _store(name: str) -> Literal["auto", "file", "keyring"]:
    return "file" if name == "file" else "keyring" if name == "keyring" else "auto"


def _as_json(status: Any) -> dict[str, Any]:
    """A `TokenStatus` as `status --format json` shows it (no token, no secret)."""
    return {
        "server": status.url,
        "backend": status.backend,
        "stored": bool(status.has_tokens or status.client_id or status.path is not None),
        "hasToken": status.has_tokens,
        "refreshable": status.has_refresh_token,
        "expiresAt": status.expires_at,
        "scopes": list(status.scopes),
        "clientId": status.client_id,
        "path": str(status.path) if status.backend == "file" and status.path is not None else None,
        "dpopBound": status.dpop_bound,
    }


def _describe(entry: dict[str, Any]) -> str:
    """`client id X, scopes a b, expires in 59 min, refreshable, in the keyring` (or `in the file PATH`): from a
    status, no secrets."""
    parts = []
    if entry["clientId"]:
        parts.append(f"client id {entry['clientId']}")
    if entry.get("scopes"):
        parts.append(f"scopes {' '.join(entry['scopes'])}")
    expires = entry.get("expiresAt")
    if isinstance(expires, (int, float)):
        left = expires - time.time()
        parts.append(f"expires in {_duration(left)}" if left > 0 else "expired")
    if entry.get("refreshable"):
        parts.append("refreshable")
    if entry.get("dpopBound"):
        parts.append("DPoP-bound")
    if entry.get("path"):
        parts.append(f"in the file {entry['path']}")
    elif entry.get("backend"):
        parts.append(f"in the {entry['backend']}")
    if not entry.get("hasToken", True):
        parts.append("no token yet")
    return ", ".join(parts)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{int(seconds)} s"
    if seconds < 7200:
        return f"{int(seconds // 60)} min"
    return f"{int(seconds // 3600)} h"
