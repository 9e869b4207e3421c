"""Credential literals inside one command argument, found by detect-secrets' rules, entropy and the environment.

`find_credentials(arg, environ)` returns the spans of `arg` to hide and a hint naming each (`inputs.redaction`
turns them into `${NAME}` placeholders). What counts, strongest first:

* the value of a variable of the tool's environment (8+ characters, not an existing path, not a number): the
  whole argument, the value of `key=value`, or a piece between `/ : , ; @ = &` equal to it; the variable's
  own name is kept (the hint is `$NAME`);
* a known credential format: the regular expressions of detect-secrets' plugins (Stripe `sk_live_`, Slack
  `xoxb-`, GitHub `ghp_`, Twilio `AC`/`SK`, AWS, JWT, OpenAI, ...), each match widened to its whole token;
  the name comes from the plugin (`Stripe Access Key` -> `STRIPE_ACCESS_KEY`), Twilio's SIDs by their prefix;
* the secret of a composite `ID:SECRET` (`ACxxxx/SKxxxx:secret`): what follows a found credential after `:`,
  named after it (`TWILIO_API_KEY` -> `TWILIO_API_SECRET`);
* the value of a `key=value` pair whose key looks secret (`api_key=...`), named after the key;
* a high-entropy token (20+ characters over detect-secrets' entropy limits: base64 4.5, hex 3.0), named
  `SECRET_1`, `SECRET_2`, ... in order of appearance.

Text inside `${...}` references and values listed in `keep` (`--no-redact`) are never touched.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from mcp_codegen.casing import words

__all__ = ["GENERIC_HINT", "Found", "find_credentials", "secret_name", "secret_of", "upper_snake"]

#: The hint of a secret found by entropy alone: `inputs.redaction` numbers it (`SECRET_1`, `SECRET_2`).
GENERIC_HINT = "secret"
#: detect-secrets plugins left out: an IPv4 address is no credential, URL passwords and private-key banners
#: are handled whole elsewhere (`placeholder_url`; a key's body is high-entropy text).
_SKIPPED_PLUGINS = frozenset({"IPPublicDetector", "BasicAuthDetector", "PrivateKeyDetector"})
#: Twilio's plugin finds both its identifiers; its own comments name them by prefix.
_NAMES_BY_PREFIX = {("Twilio API Key", "AC"): "twilio account sid", ("Twilio API Key", "SK"): "twilio api key"}
#: A credential's token runs over these characters (a plugin's match may stop early: Slack's is lowercase only).
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-+.~]")
_REFERENCE = re.compile(r"\$\{[^{}\n]*\}")
_PIECE = re.compile(r"[^/:,;@=&\s]+")
_KEY_VALUE = re.compile(r"(?:^|(?<=[,;&\s]))([A-Za-z_][A-Za-z0-9_.-]*)=([^,;&\s]+)")
_AFTER_COLON = re.compile(r":([^/:,;@&\s]+)")
_SHORTEST_ENV_VALUE = 8
_SHORTEST_TOKEN = 20
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+.=~/:]{11,}")
_SECRET_WORDS = frozenset(
    {"token", "key", "apikey", "secret", "password", "passwd", "pass", "pat", "auth", "credential", "credentials"}
)
_NOT_SECRET_WORDS = frozenset({"file", "path", "dir", "url", "id", "name", "env", "header", "type", "length"})


def upper_snake(text: str) -> str:
    """`--api-key` -> `API_KEY`: a variable name made of `text`'s words."""
    return "_".join(words(text)).upper() or "VALUE"


def secret_name(name: str) -> bool:
    """True for a flag, key or variable name that looks like it holds a secret (`--api-key`, `TOKEN`),
    but not one that names where a secret is (`--token-file`, `API_KEY_PATH`)."""
    parts = set(words(name))
    return bool(parts & _SECRET_WORDS) and not parts & _NOT_SECRET_WORDS


@dataclass(frozen=True)
class Found:
    """A span of the argument to hide, and what to call it (`$NAME`: that exact variable name)."""

    start: int
    end: int
    hint: str

    @property
    def length(self) -> int:
        return self.end - self.start


@functools.cache
def _format_rules() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(secret type, pattern) for every regex plugin of detect-secrets, in a fixed order."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    rules: list[tuple[str, re.Pattern[str]]] = []
    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    for secret_type, plugin in sorted(plugins.items()):
        if issubclass(plugin, RegexBasedDetector) and plugin.__name__ not in _SKIPPED_PLUGINS:
            denylist: Iterable[re.Pattern[str]] = getattr(plugin, "denylist", ())  # a class attribute of each plugin
            rules.extend((secret_type, pattern) for pattern in denylist)
    return tuple(rules)


@functools.cache
def _entropy_rules() -> tuple[tuple[str, float, object], ...]:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString

    return tuple(
        (plugin.charset, plugin.entropy_limit, plugin) for plugin in (HexHighEntropyString(), Base64HighEntropyString())
    )


def _high_entropy(token: str) -> bool:
    if len(token) < _SHORTEST_TOKEN or token.isdigit() or not re.search(r"[A-Za-z]", token):
        return False
    for charset, limit, plugin in _entropy_rules():
        if set(token) <= set(charset) and plugin.calculate_shannon_entropy(token) > limit:  # type: ignore[attr-defined]
            return True
    return False


def _may_hold_a_token(arg: str) -> bool:
    """Whether detect-secrets' rules could find anything in `arg` (importing them costs ~0.15 s): a run of 11+
    token characters with a letter and a digit or capital (no format, and no entropy over its limits, is made of
    lowercase letters alone), in an argument that is not a path on this machine."""
    runs = _TOKEN_RUN.findall(arg)
    if not any(re.search(r"[A-Za-z]", run) and re.search(r"[A-Z0-9]", run) for run in runs):
        return False
    try:
        return not os.path.exists(arg)
    except (OSError, ValueError):
        return True


def _worth_matching(value: str) -> bool:
    """An environment value that may be a secret: long enough, not a number, not a path on this machine."""
    if len(value) < _SHORTEST_ENV_VALUE or value.isdigit() or "\n" in value:
        return False
    try:
        return not os.path.exists(value)
    except (OSError, ValueError):
        return True


def _env_names(environ: Mapping[str, str]) -> dict[str, str]:
    """value -> the variable holding it (a secret-looking name first, then alphabetical)."""
    chosen: dict[str, str] = {}
    for name in sorted(environ, key=lambda name: (not secret_name(name), name)):
        value = environ[name]
        if _worth_matching(value):
            chosen.setdefault(value, name)
    return chosen


def secret_of(name: str) -> str:
    """The hint for the secret paired with a found identifier: `TWILIO_API_KEY` -> `twilio api secret`."""
    stem = re.sub(r"_(?:KEY|SID|ID|TOKEN)$", "", upper_snake(name.lstrip("$")))
    return f"{stem.replace('_', ' ')} secret".lower()


def _widen(arg: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and _TOKEN_CHAR.match(arg[start - 1]):
        start -= 1
    while end < len(arg) and _TOKEN_CHAR.match(arg[end]):
        end += 1
    return start, end


def find_credentials(arg: str, environ: Mapping[str, str], keep: Collection[str] = ()) -> list[Found]:
    """The spans of `arg` to hide (see the module docstring), in order and not overlapping."""
    if arg in keep or not arg:
        return []
    blocked = [(match.start(), match.end()) for match in _REFERENCE.finditer(arg)]
    found: list[Found] = []

    def take(start: int, end: int, hint: str) -> Found | None:
        value = arg[start:end]
        if start >= end or value in keep or _REFERENCE.fullmatch(value):
            return None
        if any(start < b_end and b_start < end for b_start, b_end in blocked):
            return None
        span = Found(start, end, hint)
        blocked.append((start, end))
        found.append(span)
        return span

    values = _env_names(environ)
    if arg in values:
        take(0, len(arg), "$" + values[arg])
    for match in (*_KEY_VALUE.finditer(arg), *_PIECE.finditer(arg)):
        group = 2 if match.re is _KEY_VALUE else 0
        if match.group(group) in values:
            take(match.start(group), match.end(group), "$" + values[match.group(group)])
    if "=" in arg and arg.partition("=")[2] in values:
        take(arg.index("=") + 1, len(arg), "$" + values[arg.partition("=")[2]])

    if not _may_hold_a_token(arg):
        return sorted(found, key=lambda span: span.start)
    for secret_type, pattern in _format_rules():
        for match in pattern.finditer(arg):
            start, end = _widen(arg, match.start(), match.end())
            hint = _NAMES_BY_PREFIX.get((secret_type, arg[start : start + 2]), secret_type.lower())
            span = take(start, end, hint)
            after = _AFTER_COLON.match(arg, end)
            if span is not None and after is not None:
                take(after.start(1), after.end(1), secret_of(hint))

    for match in _KEY_VALUE.finditer(arg):
        if secret_name(match.group(1)):
            take(match.start(2), match.end(2), match.group(1))
    for match in _PIECE.finditer(arg):
        if _high_entropy(match.group()):
            take(match.start(), match.end(), GENERIC_HINT)
    return sorted(found, key=lambda span: span.start)
