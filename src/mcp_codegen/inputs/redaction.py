"""Secrets in command arguments and URLs replaced by `${NAME}` placeholders, before anything is written.

One set of rules serves every place a launch is recorded (snapshots, generated packages, progress lines)
and the starter `mcp-codegen.toml` of `init --from`: the value after a secret-looking flag (`--api-key X`,
`--token=X`, `-p X`, `--pw X`, `--bearer=X`; not an enum-like word such as `--auth oauth`, a port after `-p`, or
npx's `-p PACKAGE`), the secret of a header-shaped argument with a secret-looking name (mcp-remote's
`--header "Authorization: Bearer X"`, `X-API-Key: X`; the scheme word kept), a URL's password
(`postgres://app:PASSWORD@db`), a URL query value under a secret-looking key (the runtime's `SECRET_QUERY_KEY`,
which also redacts URLs: `runtime/connection/urls.py`), and the value of a secret-looking variable given to the
server wherever it appears in an argument, then whatever `inputs.credentials` finds in what is left (known
credential formats, `ID:SECRET` composites, `key=value` pairs, AWS and Azure keys by shape, random-looking
tokens, values of the server's variables; nothing by shape after an id-like flag such as `--sheet-id`). A value
that is already only `${...}` references is left alone, and so is a value the user keeps (`--no-redact`). The
caller names each placeholder from a hint (the flag, "password", the header, the query key, "stripe access
key", "secret", or `$NAME` for a variable's own name; a second value under one hint gets a number: "password 2")
and learns where it went.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Collection, Mapping, Sequence

from mcp_codegen.inputs.credentials import find_credentials, id_name, secret_name, upper_snake
from mcp_codegen_runtime.connection.urls import SECRET_QUERY_KEY
from mcp_codegen_runtime.secret_shapes import public_identifier

__all__ = [
    "Replace",
    "needs_replacing",
    "placeholder_args",
    "placeholder_url",
    "secret_name",
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
_NPX = re.compile(r"(?:^|[/\\])(?:npx|bunx|pnpx)(?:\.cmd|\.exe)?$")
#: npx's flags that take no value (what follows `-y` is its package, not the flag's value).
_NPX_SWITCHES = frozenset({"-y", "--yes", "-q", "--quiet", "--no", "--no-install", "--ignore-existing"})
_PORT = re.compile(r"[0-9.:\[\]]+(?:/(?:tcp|udp))?")
#: Values of secret-named flags that choose a kind of authentication rather than hold one.
_ENUM_VALUES = frozenset(
    {"oauth", "oauth2", "bearer", "basic", "none", "env", "keyring", "header", "query", "auto", "true", "false",
     "on", "off", "yes", "no", "required", "optional", "enabled", "disabled", "pkce", "apikey", "api-key", "token"}
)  # fmt: skip
_SSH_PUBLIC_KEY = re.compile(r"(?:ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-[a-z0-9@.-]+)[ \t]+(AAAA[A-Za-z0-9+/=]+)")
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
    `secret_values` (variable -> value, from secret-looking variables given to the server) by
    `replace(variable, i)` wherever it appears, and what `inputs.credentials` finds in what is left (`environ`:
    the variables given to the server, a value equal to one of them is replaced by `replace("$NAME", i)`). An
    argument or value in `keep` stays as it is. `command` tells `npx -p PACKAGE` from `-p PASSWORD`.
    """
    values = sorted(
        ((name, value) for name, value in (secret_values or {}).items() if len(value) >= _SHORTEST_SECRET),
        key=lambda item: len(item[1]),
        reverse=True,
    )
    found_hint = _FoundHints()
    safe: list[str] = []
    secret_next: str | None = None
    before = ""  # the flag this argument may be the value of
    positional_seen = False
    for index, arg in enumerate(args):
        if arg in keep:
            safe.append(arg)
            secret_next, before = None, ""
            continue
        for name, value in values:
            if value in arg:
                arg = arg.replace(value, replace(name, index))
        flag, equals, value = arg.partition("=")
        is_flag = _FLAG.match(arg) is not None
        if secret_next is not None and not is_flag and needs_replacing(arg) and not _public_value(before, arg):
            recorded = replace(found_hint(secret_next, arg), index)
        elif is_flag and equals and _secret_flag(flag) and needs_replacing(value) and not _public_value(flag, value):
            recorded = f"{flag}={replace(found_hint(_flag_hint(flag), value), index)}" if value not in keep else arg
        elif (
            header := _secret_header(value if is_flag and equals else arg, index, replace, found_hint, keep)
        ) is not None:
            recorded = f"{flag}={header}" if is_flag and equals else header
        else:

            def at_index(hint: str, index: int = index) -> str:
                return replace(hint, index)

            if is_flag and equals:
                recorded = f"{flag}={placeholder_url(value, at_index, hint_prefix=flag + ' ', keep=keep)}"
            else:
                prefix = f"{before} " if before else ""
                recorded = placeholder_url(arg, at_index, hint_prefix=prefix, keep=keep)
        context = flag if is_flag and equals else before
        public = bool(context) and id_name(context)
        safe.append(_replace_found(recorded, index, replace, found_hint, environ or {}, keep, context, public))
        npx_package = flag == "-p" and _NPX.search(command or "") is not None and not positional_seen
        positional_seen = positional_seen or not is_flag and (not before or before in _NPX_SWITCHES)
        secret_next = None
        if is_flag and not equals and _secret_flag(flag) and not npx_package:
            secret_next = _flag_hint(flag)
        before = flag if is_flag and not equals else ""
    return safe


def _secret_flag(flag: str) -> bool:
    return secret_name(flag) or flag in _SECRET_SHORT_FLAGS


def _flag_hint(flag: str) -> str:
    """The name a flag's secret is recorded under: `-p`, `--pw` -> "password", `--bearer` -> "bearer token"."""
    return _FLAG_ALIASES.get(flag.lstrip("-").lower(), flag)


def _public_value(flag: str, value: str) -> bool:
    """A value after a secret-named flag that is no secret: an enum-like word (`--auth oauth`), an SSH public
    key (`--authorized-key "ssh-ed25519 AAAA..."`), a port after `-p` (`-p 8080`, `-p 8080:80`)."""
    if value.lower() in _ENUM_VALUES:
        return True
    ssh_key = _SSH_PUBLIC_KEY.match(value)
    if ssh_key is not None and public_identifier(ssh_key.group(1)):
        return True
    return flag in _SECRET_SHORT_FLAGS and _PORT.fullmatch(value) is not None


def _secret_header(arg: str, index: int, replace: Replace, hints: _FoundHints, keep: Collection[str]) -> str | None:
    """`Authorization: Bearer X` as `Authorization: Bearer ${AUTHORIZATION}` (the scheme word kept), and
    `X-API-Key: X` as `X-API-Key: ${X_API_KEY}`; None when `arg` is no header with a secret-looking name."""
    match = _HEADER.fullmatch(arg)
    if match is None or not secret_name(match.group("name")):
        return None
    secret = match.group("secret")
    if not needs_replacing(secret) or secret in keep or arg in keep:
        return None
    return arg[: match.start("secret")] + replace(hints(match.group("name"), secret), index)


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
