"""Secrets in command arguments and URLs replaced by `${NAME}` placeholders, before anything is written.

One set of rules serves every place a launch is recorded (snapshots, generated packages, progress lines)
and the starter `mcp-codegen.toml` of `init --from`: the value after a secret-looking flag (`--api-key X`,
`--token=X`), a URL's password (`postgres://app:PASSWORD@db`), a URL query value under a secret-looking
key (the runtime's `SECRET_QUERY_KEY`, which also redacts URLs: `runtime/connection/urls.py`), and the
value of a secret-looking environment entry wherever it appears in an argument, then whatever
`inputs.credentials` finds in what is left (known credential formats, `ID:SECRET` composites, `key=value`
pairs, high-entropy tokens, values of the tool's environment). A value that is already only `${...}`
references is left alone, and so is a value the user keeps (`--no-redact`). The caller names each
placeholder from a hint (the flag, the query key, "password", "stripe access key", "secret 1", or `$NAME`
for a variable's own name) and learns where it went.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Collection, Mapping, Sequence

from mcp_codegen.inputs.credentials import GENERIC_HINT, find_credentials, secret_name, upper_snake
from mcp_codegen_runtime.connection.urls import SECRET_QUERY_KEY

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
) -> list[str]:
    """`args` with every secret replaced (see the module docstring): `--token X` and `--token=X` by
    `replace("--token", i)`, URLs by `placeholder_url`, each value of `secret_values` (variable -> value,
    from secret-looking environment entries) by `replace(variable, i)` wherever it appears, and what
    `inputs.credentials` finds in what is left (`environ`: the tool's environment, a value equal to one of
    its variables is replaced by `replace("$NAME", i)`). An argument or value in `keep` stays as it is.
    """
    values = sorted(
        ((name, value) for name, value in (secret_values or {}).items() if len(value) >= _SHORTEST_SECRET),
        key=lambda item: len(item[1]),
        reverse=True,
    )
    found_hint = _FoundHints()
    safe: list[str] = []
    secret_next: str | None = None
    for index, arg in enumerate(args):
        if arg in keep:
            safe.append(arg)
            secret_next = None
            continue
        for name, value in values:
            if value in arg:
                arg = arg.replace(value, replace(name, index))
        flag, equals, value = arg.partition("=")
        if secret_next is not None and not arg.startswith("-") and needs_replacing(arg):
            recorded = replace(secret_next, index)
        elif flag.startswith("-") and secret_name(flag) and equals and needs_replacing(value) and value not in keep:
            recorded = f"{flag}={replace(flag, index)}"
        else:

            def at_index(hint: str, index: int = index) -> str:
                return replace(hint, index)

            if flag.startswith("-") and equals:
                recorded = f"{flag}={placeholder_url(value, at_index, hint_prefix=flag + ' ', keep=keep)}"
            else:
                before = args[index - 1] if index and args[index - 1].startswith("-") else ""
                recorded = placeholder_url(arg, at_index, hint_prefix=f"{before} " if before else "", keep=keep)
        safe.append(_replace_found(recorded, index, replace, found_hint, environ or {}, keep))
        secret_next = flag if flag.startswith("-") and not equals and secret_name(flag) else None
    return safe


class _FoundHints:
    """The hint of each credential value found, one per value: a second value under a hint already taken
    gets a number (`twilio api key 2`), and every secret found by entropy alone is numbered (`secret 1`)."""

    def __init__(self) -> None:
        self._by_value: dict[str, str] = {}
        self._count: dict[str, int] = {}

    def __call__(self, hint: str, value: str) -> str:
        if value in self._by_value:
            return self._by_value[value]
        named = hint  # `$NAME`: the variable's own name, never numbered
        if not hint.startswith("$"):
            number = self._count[hint] = self._count.get(hint, 0) + 1
            named = f"{hint} {number}" if number > 1 or hint == GENERIC_HINT else hint
        self._by_value[value] = named
        return named


def _replace_found(
    arg: str, index: int, replace: Replace, hints: _FoundHints, environ: Mapping[str, str], keep: Collection[str]
) -> str:
    pieces: list[str] = []
    done = 0
    for span in find_credentials(arg, environ, keep):  # in order: names are given in order of appearance
        pieces += [arg[done : span.start], replace(hints(span.hint, arg[span.start : span.end]), index)]
        done = span.end
    return "".join(pieces) + arg[done:]
