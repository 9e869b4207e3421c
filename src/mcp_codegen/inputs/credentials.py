"""Credential literals inside one command argument, found by detect-secrets' rules, token shapes and the environment.

`find_credentials(arg, environ)` returns the spans of `arg` to hide and a hint naming each (`inputs.redaction`
turns them into `${NAME}` placeholders). `environ` is only what the server is given (`-e`, a config's `env`),
never the generator's own environment: the same command records the same arguments on every machine. What
counts, strongest first:

* the value of a variable given to the server (8+ characters, not a path, not a number): the whole argument,
  the value of `key=value`, or a piece between `/ : , ; @ = &` equal to it; the variable's own name is kept
  (the hint is `$NAME`);
* a known credential format: the regular expressions of detect-secrets' plugins (Stripe `sk_live_`, Slack
  `xoxb-`, GitHub `ghp_`, Twilio `AC`/`SK`, AWS `AKIA`, Azure `AccountKey=`, JWT, OpenAI, ...), each match
  widened to its whole token; the name comes from the plugin (`Stripe Access Key` -> `STRIPE_ACCESS_KEY`,
  `AWS_ACCESS_KEY_ID`, `AZURE_STORAGE_KEY`), Twilio's SIDs by their prefix;
* the secret of a composite `ID:SECRET` (`ACxxxx/SKxxxx:secret`, `AKIA...:wJal.../K7...`): what follows a found
  credential after `:` (`/`, `+` and `=` included), named after it (`AWS_SECRET_ACCESS_KEY`);
* a vendor key with a random body (`dop_v1_...`, `shpat_...`, `pplx-...`: `secret_shapes.vendor_keys_in`),
  named after its vendor, wherever it stands (an id-like place too);
* the value of a `key=value` pair whose key says so (`api_key=...`, `AccountKey=...`; `value_context.named_verdict`:
  not `public_key=...` or `sort_key=...`), named after the key;
* an AWS secret access key or Azure storage key by its shape (40 base64 characters; 88 ending in `==`), whole
  though it holds `/` and `+`;
* a random-looking token (`mcp_codegen_runtime.secret_shapes.looks_random`, the length-aware rule, or 20+ characters over
  detect-secrets' base64 entropy limit), named after the flag it follows (`context`), else `SECRET`.

Public identifiers are never hidden by shape (`mcp_codegen_runtime.secret_shapes.public_identifier`: SHAs and digests, SSH public
keys, Stripe object ids), nor values in an id-like place (`public_context`: after `--sheet-id`, `page_id=`,
a URL's `/d/` segment). Text inside `${...}` references and values listed in `keep` (`--no-redact`) are never
touched.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from mcp_codegen.casing import words
from mcp_codegen.inputs.value_context import Verdict, id_name, named_verdict, secret_name
from mcp_codegen_runtime.secret_shapes import (
    aws_secret_shape,
    azure_key_shape,
    looks_random,
    path_like,
    public_identifier,
    vendor_keys_in,
)

__all__ = ["GENERIC_HINT", "Found", "find_credentials", "id_name", "secret_name", "secret_of", "upper_snake"]

#: The hint of a random token with nothing to name it after: `inputs.redaction` numbers a second (`SECRET_2`).
GENERIC_HINT = "secret"
#: detect-secrets plugins left out: an IPv4 address is no credential, URL passwords and private-key banners
#: are handled whole elsewhere (`placeholder_url`; a key's body is high-entropy text).
_SKIPPED_PLUGINS = frozenset({"IPPublicDetector", "BasicAuthDetector", "PrivateKeyDetector"})
#: Twilio's plugin finds both its identifiers; its own comments name them by prefix.
_NAMES_BY_PREFIX = {("Twilio API Key", "AC"): "twilio account sid", ("Twilio API Key", "SK"): "twilio api key"}
#: Plugins whose type names the credential less plainly than its documented variable does.
_NAMES_BY_TYPE = {
    "AWS Access Key": "aws access key id",
    "Azure Storage Account access key": "azure storage key",
}
#: The secret paired with an identifier, by the identifier's hint (else `secret_of` derives it).
_PAIRED_SECRETS = {"aws access key id": "aws secret access key"}
#: A credential's token runs over these characters (a plugin's match may stop early: Slack's is lowercase only).
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-+.~]")
_REFERENCE = re.compile(r"\$\{[^{}\n]*\}")
_PIECE = re.compile(r"[^/:,;@=&\s]+")
#: A base64 token with its `/`, `+` and `=` (an AWS secret key, an Azure key): judged whole, not by pieces.
_WIDE_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_KEY_VALUE = re.compile(r"(?:^|(?<=[,;&\s]))([A-Za-z_][A-Za-z0-9_.-]*)=([^,;&\s]+)")
_AFTER_COLON = re.compile(r":([^:,;@&\s]+)")
#: A plugin's match that starts with its key (`AccountKey=...`): only the value is hidden.
_KEYED_MATCH = re.compile(r"[A-Za-z]+=")
#: A URL path segment naming what the next one identifies (`/d/<sheet id>`, `/commit/<sha>`).
_ID_SEGMENT = re.compile(
    r"/(?:d|file|design|document|spreadsheets|presentation|folders|commit|commits|blob|tree|page|pages|p)/$"
)
_SHORTEST_ENV_VALUE = 8
_SHORTEST_TOKEN = 20
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+.=~/:]{11,}")


def upper_snake(text: str) -> str:
    """`--api-key` -> `API_KEY`: a variable name made of `text`'s words."""
    return "_".join(words(text)).upper() or "VALUE"


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
def _base64_rule() -> tuple[str, float, object]:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    plugin = Base64HighEntropyString()
    return plugin.charset, plugin.entropy_limit, plugin


def _high_entropy(token: str) -> bool:
    """Over detect-secrets' base64 limit (hex is left out: hex strings are digests and ids)."""
    if len(token) < _SHORTEST_TOKEN or not re.search(r"[A-Za-z]", token) or public_identifier(token):
        return False
    charset, limit, plugin = _base64_rule()
    return set(token) <= set(charset) and plugin.calculate_shannon_entropy(token) > limit  # type: ignore[attr-defined]


def _may_hold_a_token(arg: str) -> bool:
    """Whether detect-secrets' rules could find anything in `arg` (importing them costs ~0.15 s): a run of 11+
    token characters with a letter and a digit or capital (no format, and no random token, is made of
    lowercase letters alone), in an argument that does not read as a file path."""
    runs = _TOKEN_RUN.findall(arg)
    if not any(re.search(r"[A-Za-z]", run) and re.search(r"[A-Z0-9]", run) for run in runs):
        return False
    return not (path_like(arg) and not re.search(r"\s", arg))


def _worth_matching(value: str) -> bool:
    """A variable's value that may be a secret: long enough, not a number, not a path."""
    return len(value) >= _SHORTEST_ENV_VALUE and not value.isdigit() and "\n" not in value and not path_like(value)


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
    if name in _PAIRED_SECRETS:
        return _PAIRED_SECRETS[name]
    stem = re.sub(r"_(?:KEY|SID|ID|TOKEN)$", "", upper_snake(name.lstrip("$")))
    return f"{stem.replace('_', ' ')} secret".lower()


def _widen(arg: str, start: int, end: int) -> tuple[int, int]:
    keyed = _KEYED_MATCH.match(arg, start)
    if keyed is not None and keyed.end() < end:
        return keyed.end(), end  # `AccountKey=<key>`: the key stays, its `/+=` run is the match's own
    while start > 0 and _TOKEN_CHAR.match(arg[start - 1]):
        start -= 1
    while end < len(arg) and _TOKEN_CHAR.match(arg[end]):
        end += 1
    return start, end


def find_credentials(
    arg: str,
    environ: Mapping[str, str],
    keep: Collection[str] = (),
    *,
    context: str | None = None,
    public_context: bool = False,
) -> list[Found]:
    """The spans of `arg` to hide (see the module docstring), in order and not overlapping. `context` names a
    random token found (the flag `arg` follows); `public_context` says `arg` is an id (no shape rule applies)."""
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
        for start, end, name in vendor_keys_in(arg):
            take(start, end, name)
        return sorted(found, key=lambda span: span.start)
    for secret_type, pattern in _format_rules():
        for match in pattern.finditer(arg):
            start, end = _widen(arg, match.start(), match.end())
            prefixed = _NAMES_BY_PREFIX.get((secret_type, arg[start : start + 2]))
            hint = prefixed or _NAMES_BY_TYPE.get(secret_type, secret_type.lower())
            span = take(start, end, hint)
            after = _AFTER_COLON.match(arg, end)
            if span is not None and after is not None:
                take(after.start(1), after.end(1), secret_of(hint))
    for start, end, name in vendor_keys_in(arg):
        take(start, end, name)

    public: list[tuple[int, int]] = []
    for match in _KEY_VALUE.finditer(arg):
        verdict = named_verdict(match.group(1), match.group(2))
        if verdict is Verdict.SECRET:
            take(match.start(2), match.end(2), match.group(1))
        elif verdict is Verdict.PUBLIC:
            public.append((match.start(2), match.end(2)))
    if public_context:
        return sorted(found, key=lambda span: span.start)
    for match in _WIDE_TOKEN.finditer(arg):
        token = match.group()
        if any(start <= match.start() and match.end() <= end for start, end in public):
            continue
        if azure_key_shape(token):
            take(match.start(), match.end(), "azure storage key")
        elif _path_or_url(arg, match.start(), token):
            continue
        elif aws_secret_shape(token):
            take(match.start(), match.end(), "aws secret access key")
        elif re.search(r"[+/=]", token) and _random_token(token):
            take(match.start(), match.end(), context or GENERIC_HINT)
    for match in _PIECE.finditer(arg):
        inside_public = any(start <= match.start() and match.end() <= end for start, end in public)
        if not inside_public and not _ID_SEGMENT.search(arg, 0, match.start()) and _random_token(match.group()):
            take(match.start(), match.end(), context or GENERIC_HINT)
    return sorted(found, key=lambda span: span.start)


def _path_or_url(arg: str, start: int, token: str) -> bool:
    """A run of `/`-separated names (a path, a URL's host and path), not one token: it starts a path or follows
    a `.` (`docs.google.com/...`), or one of its parts is a lowercase word (`spreadsheets`, `edit`)."""
    if path_like(token) or (start and arg[start - 1] == "."):
        return True
    return "/" in token and any(re.fullmatch(r"[a-z]{3,}", part) for part in token.split("/"))


def _random_token(token: str) -> bool:
    return not public_identifier(token) and (looks_random(token) or _high_entropy(token))
