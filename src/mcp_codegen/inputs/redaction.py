"""Secrets in command arguments and URLs replaced by `${NAME}` placeholders, before anything is written.

One set of rules serves every place a launch is recorded (snapshots, generated packages, progress lines)
and the starter `mcp-codegen.toml` of `init --from`. Each value is read from its context first
(`inputs.value_context`): the flag it follows or carries (`--api-key X`, `--token=X`, `-p X`, `--pw X`), a
header's name (mcp-remote's `--header "Authorization: Bearer X"`, `X-API-Key: X`; the scheme word kept), a
`KEY=` (`api_key=X`), its place in the launch (the package after `npx -y`, the image after `docker run`,
mysql's attached `-pPASSWORD`; sshpass's `-p`). A context that says "secret" hides the value, one that says
"public" keeps it (a path after `--ssh-key`, `--auth github`, a value after `--sheet-id`, a publishable key);
otherwise, and inside what is kept, the shape decides: a URL's password (`postgres://app:PASSWORD@db`), a URL
query value under a secret-looking key (the runtime's `SECRET_QUERY_KEY`, which also redacts URLs:
`runtime/connection/urls.py`), the value of a secret variable given to the server wherever it appears, then
whatever `inputs.credentials` finds (vendor keys such as `dop_v1_...` wherever they stand, known credential
formats, `ID:SECRET` composites, `key=value` pairs, AWS and Azure keys by shape, random-looking tokens, values of
the server's variables). A value that is already only `${...}` references is left alone, and so is a value the
user keeps (`--no-redact`). The caller names each placeholder from a hint (the flag, "password", the header, the
query key, "stripe access key", "secret", or `$NAME` for a variable's own name; a second value under one hint
gets a number: "password 2") and learns where it went.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Collection, Mapping, Sequence

from mcp_codegen.inputs.credentials import find_credentials, id_name, secret_name, upper_snake
from mcp_codegen.inputs.value_context import LaunchPositions, Verdict, named_verdict
from mcp_codegen_runtime.connection.urls import SECRET_QUERY_KEY

__all__ = [
    "Replace",
    "needs_replacing",
    "placeholder_args",
    "placeholder_url",
    "secret_name",
    "secret_setting",
    "upper_snake",
]

#: Called for each secret found: (a hint naming it, such as "--api-key", "password" or a query key; the index
#: of the argument, or None for a URL of its own) -> the text written in its place (a `${NAME}` reference).
Replace = Callable[[str, int | None], str]

#: Any `${...}` reference (the config's kinds too: `${input:ID}`, `${env:X}`, `${VAR:-default}`).
_REFERENCE = re.compile(r"\$\{([^{}\n]*)\}")
#: What may be left of a value once its references are removed for it to count as "only references".
_SCHEME_ONLY = re.compile(r"^(?:[A-Za-z][A-Za-z-]{0,20} )?$")
#: A literal run this long next to a reference may be a secret.
_LONG_RUN = re.compile(r"[A-Za-z0-9]{16,}")
#: An environment value shorter than this is not looked for inside arguments (it would match by chance).
_SHORTEST_SECRET = 4
#: A flag (`-p`, `--token`), not a negative number.
_FLAG = re.compile(r"-{1,2}[A-Za-z]")
#: Short flags that take a password (mysql's `-p`); npx's `-p PACKAGE` before its package is told apart.
_SECRET_SHORT_FLAGS = frozenset({"-p"})
_FLAG_ALIASES = {"p": "password", "pw": "password", "pwd": "password", "pass": "password", "bearer": "bearer token"}
#: mysql's `-pPASSWORD`, attached (apart, `-p DB` prompts for the password and names a database).
_ATTACHED_P = re.compile(r"-p([^-\s].*)", re.DOTALL)
#: A port or version attached to `-p` (`-p8080`, uv's `-p3.12`).
_PORT = re.compile(r"[0-9.:\[\]]+(?:/(?:tcp|udp))?")
#: A header-shaped argument (`Authorization: Bearer X`, mcp-remote's `--header` value): an auth scheme word kept.
_HEADER = re.compile(
    r"(?P<name>[A-Za-z][A-Za-z0-9_-]*)[ \t]*:[ \t]*(?:(?:Bearer|Basic|Token|Bot|Digest|ApiKey)[ \t]+)?(?P<secret>\S.*)",
    re.IGNORECASE | re.DOTALL,
)


def needs_replacing(value: str) -> bool:
    """A literal value to hide: not empty, and not already only references (a reference next to a long
    literal run counts as literal: the run may be a secret)."""
    found = _REFERENCE.findall(value)
    if not found:
        return bool(value)
    if _SCHEME_ONLY.match(_REFERENCE.sub("", value)):
        return False
    return _LONG_RUN.search(_REFERENCE.sub(" ", value)) is not None


def placeholder_url(
    url: str, replace: Callable[[str], str], *, hint_prefix: str = "", keep: Collection[str] = ()
) -> str:
    """`url` with its password and secret-looking query values replaced by `replace(hint)`; unchanged
    (the same string) when it holds none. `hint_prefix` starts each hint ("--dsn " -> "--dsn password");
    a value in `keep` stays."""
    if "://" not in url:
        return url
    try:
        parts = urllib.parse.urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    netloc = parts.netloc
    if password and needs_replacing(password) and password not in keep:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{replace(hint_prefix + 'password')}@{host}"
    query = []
    changed = False
    for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if SECRET_QUERY_KEY.search(key) and needs_replacing(value) and value not in keep:
            value = replace(hint_prefix + key)
            changed = True
        query.append((key, value))
    new_query = urllib.parse.urlencode(query, safe="${}:") if changed else parts.query
    if netloc == parts.netloc and not changed:
        return url
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, new_query, parts.fragment))


def placeholder_args(
    args: Sequence[str],
    replace: Replace,
    *,
    secret_values: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    keep: Collection[str] = (),
    command: str | None = None,
) -> list[str]:
    """`args` with every secret replaced (see the module docstring): `--token X` and `--token=X` by
    `replace("--token", i)` (`-p`, `--pw`: `replace("password", i)`), a header-shaped `Authorization: Bearer X`
    by `Authorization: Bearer ` + `replace("Authorization", i)`, URLs by `placeholder_url`, each value of
    `secret_values` (variable -> value, from secret variables given to the server) by `replace(variable, i)`
    wherever it appears, and what `inputs.credentials` finds in what is left (`environ`: the variables given to
    the server, a value equal to one of them is replaced by `replace("$NAME", i)`). An argument or value in
    `keep` stays as it is. `command` places each argument (`npx -p PACKAGE`, `mysql -pPASSWORD DB`).
    """
    values = sorted(
        ((name, value) for name, value in (secret_values or {}).items() if len(value) >= _SHORTEST_SECRET),
        key=lambda item: len(item[1]),
        reverse=True,
    )
    hints = _FoundHints()
    positions = LaunchPositions(command)
    safe: list[str] = []
    before = ""  # the flag this argument may be the value of
    for index, arg in enumerate(args):
        if arg in keep:
            safe.append(arg)
        else:
            for name, value in values:
                if value in arg:
                    arg = arg.replace(value, replace(name, index))
            safe.append(_recorded_arg(arg, index, before, positions, replace, hints, environ or {}, keep))
        positions.advance(arg, before)
        is_flag = _FLAG.match(arg) is not None and arg not in keep
        before = arg if is_flag and "=" not in arg and not _ATTACHED_P.fullmatch(arg) else ""
    return safe


def secret_setting(name: str, value: str, *, keep: Collection[str] = ()) -> bool:
    """Whether the variable `name=value` given to a server holds a secret (recorded by name, read from the
    environment when connecting) rather than a setting (kept as written): judged as the value of a flag
    `--name` would be, by the name first, then by the shape (`-e API_KEY=...` is secret, `-e PAPER_TRADE=True`
    and `-e DOMAIN=acme.backlog.com` are settings, `-e CONFIG={"token": "ghp_..."}` is secret)."""
    if value in keep or not needs_replacing(value):
        return False

    def replace(_hint: str, _index: int | None) -> str:
        return "${SECRET}"

    recorded = _recorded_arg(value, 0, name, LaunchPositions(None), replace, _FoundHints(), {}, keep)
    return recorded != value


def _recorded_arg(
    arg: str,
    index: int,
    before: str,
    positions: LaunchPositions,
    replace: Replace,
    hints: _FoundHints,
    environ: Mapping[str, str],
    keep: Collection[str],
) -> str:
    """One argument as recorded: judged by its context first (the flag it follows or carries, a header's name,
    its place in the launch), by its shape after that."""

    def hidden(hint: str, value: str) -> str:
        return replace(hints(hint, value), index)

    def shaped(text: str, context: str, public: bool) -> str:
        return _replace_found(text, index, replace, hints, environ, keep, context, public)

    is_flag = _FLAG.match(arg) is not None
    flag, equals, value = arg.partition("=")
    if before and not is_flag:  # the value of `before`
        verdict = _flag_verdict(before, arg, positions)
        if verdict is Verdict.SECRET and needs_replacing(arg):
            return hidden(_flag_hint(before), arg)
        if verdict is Verdict.SHAPE and (header := _secret_header(arg, hidden, keep)) is not None:
            return header
        public = verdict is Verdict.PUBLIC or id_name(before)
        return shaped(_urls_replaced(arg, index, replace, before, keep), before, public)
    if positions.package(arg, before):
        return shaped(arg, "", True)  # the package or image a launcher runs: a name, public
    attached = _ATTACHED_P.fullmatch(arg)
    if attached is not None and not positions.launcher_flag("-p"):
        password = attached.group(1)
        if not _PORT.fullmatch(password) and needs_replacing(password) and password not in keep:
            return "-p" + hidden("password", password)  # mysql's `-pPASSWORD`
        return arg
    if is_flag and equals:
        verdict = _flag_verdict(flag, value, positions)
        if verdict is Verdict.SECRET and needs_replacing(value):
            return arg if value in keep else f"{flag}={hidden(_flag_hint(flag), value)}"
        if verdict is Verdict.SHAPE and (header := _secret_header(value, hidden, keep)) is not None:
            return f"{flag}={header}"
        public = verdict is Verdict.PUBLIC or id_name(flag)
        return f"{flag}={shaped(_urls_replaced(value, index, replace, flag, keep), flag, public)}"
    header = _secret_header(arg, hidden, keep)
    if header is not None:
        return header
    return shaped(_urls_replaced(arg, index, replace, "", keep), "", False)


def _flag_verdict(flag: str, value: str, positions: LaunchPositions) -> Verdict:
    """What `flag` says of its value: `-p` by the command (mysql's spaced `-p DB` names a database, sshpass's
    `-p` is a password, a launcher's `-p` its package), other flags by their name (`named_verdict`)."""
    if positions.launcher_flag(flag):
        return named_verdict("", value)
    if flag in _SECRET_SHORT_FLAGS:
        if positions.sshpass:
            return Verdict.SECRET
        if positions.mysql:
            return named_verdict("", value)
        return named_verdict(flag, value, short_p=True)
    return named_verdict(flag, value)


def _urls_replaced(text: str, index: int, replace: Replace, context: str, keep: Collection[str]) -> str:
    def at_index(hint: str) -> str:
        return replace(hint, index)

    return placeholder_url(text, at_index, hint_prefix=f"{context} " if context else "", keep=keep)


def _flag_hint(flag: str) -> str:
    """The name a flag's secret is recorded under: `-p`, `--pw` -> "password", `--bearer` -> "bearer token"."""
    return _FLAG_ALIASES.get(flag.lstrip("-").lower(), flag)


def _secret_header(arg: str, hidden: Callable[[str, str], str], keep: Collection[str]) -> str | None:
    """`Authorization: Bearer X` as `Authorization: Bearer ${AUTHORIZATION}` (the scheme word kept), and
    `X-API-Key: X` as `X-API-Key: ${X_API_KEY}`; None when `arg` is no header whose name holds a secret."""
    match = _HEADER.fullmatch(arg)
    if match is None or not secret_name(match.group("name")):
        return None
    secret = match.group("secret")
    if named_verdict(match.group("name"), secret) is not Verdict.SECRET:
        return None
    if not needs_replacing(secret) or secret in keep or arg in keep:
        return None
    return arg[: match.start("secret")] + hidden(match.group("name"), secret)


class _FoundHints:
    """The hint of each credential value found, one per value: a second value under a hint already taken
    gets a number (`twilio api key 2`, `secret 2`)."""

    def __init__(self) -> None:
        self._by_value: dict[str, str] = {}
        self._count: dict[str, int] = {}

    def __call__(self, hint: str, value: str) -> str:
        if value in self._by_value:
            return self._by_value[value]
        named = hint  # `$NAME`: the variable's own name, never numbered
        if not hint.startswith("$"):
            number = self._count[hint] = self._count.get(hint, 0) + 1
            named = f"{hint} {number}" if number > 1 else hint
        self._by_value[value] = named
        return named


def _replace_found(
    arg: str,
    index: int,
    replace: Replace,
    hints: _FoundHints,
    environ: Mapping[str, str],
    keep: Collection[str],
    context: str,
    public: bool,
) -> str:
    pieces: list[str] = []
    done = 0
    found = find_credentials(
        arg, environ, keep, context=_flag_hint(context) if context else None, public_context=public
    )
    for span in found:  # in order: names are given in order of appearance
        pieces += [arg[done : span.start], replace(hints(span.hint, arg[span.start : span.end]), index)]
        done = span.end
    return "".join(pieces) + arg[done:]
