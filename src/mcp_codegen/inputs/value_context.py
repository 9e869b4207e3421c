"""What a value's place in a launch says about it, read before its shape: secret, public, or the shape decides.

The context of a value is the name it is given under: a flag (`--api-key X`, `--token=X`), a `KEY=` (in an
argument, or an environment variable `-e KEY=X`), a header (`X-API-Key: X`), or its place after a known command
(the package after `npx -y`, the image after `docker run`, the password after mysql's attached `-p`). What a
name says, strongest first:

* a vendor key (`dop_v1_...`, `shpat_...`, `pplx-...`: `secret_shapes.vendor_key`) is secret wherever it stands,
  and a public key or content hash by its format (`pk_live_...`, an IPFS CID: `secret_shapes.public_key`) is
  public (a hex digest or UUID is public only where no name says otherwise: after `--api-key` it is the key);
* a name that holds a secret (`secret_name`: `--api-key`, `TOKEN`, `Authorization`) makes its value secret,
  unless the value is a file path (`--ssh-key ~/.ssh/id_ed25519`: the key is in the file), an SSH public key,
  a word that picks a kind of authentication (`--auth oauth`, `--auth github`: for the weak words `auth` and
  `signature`, any plain word), or, for `-p`, a port or version;
* a name that says what or where a secret is (`--token-file`, `--auth-mode`, `--signature-algorithm`), names a
  key of a database or store (`--sort-key`, `--primary-key`, `--s3-key`), or is public (`--public-key`,
  `NEXT_PUBLIC_...`) holds no secret by name: its value is judged by its shape;
* a name that identifies something (`id_name`: `--sheet-id`, `page_id`) holds a public value, however random.
"""

from __future__ import annotations

import re
from enum import Enum

from mcp_codegen.casing import words
from mcp_codegen_runtime.secret_shapes import (
    aws_secret_shape,
    looks_random,
    path_like,
    public_identifier,
    public_key,
    vendor_key,
)

__all__ = [
    "LaunchPositions",
    "Verdict",
    "file_path",
    "id_name",
    "mysql_command",
    "named_verdict",
    "password_command",
    "secret_name",
]


class Verdict(Enum):
    """What a value's context says: hide it, keep it, or let its shape decide."""

    SECRET = "secret"
    PUBLIC = "public"
    SHAPE = "shape"


#: Words of a name that holds a secret. The weak ones (`auth`, `signature`) may also hold a plain setting.
_STRONG_WORDS = frozenset(
    {
        "token", "key", "apikey", "secret", "password", "passwd", "pass", "pw", "pwd", "passphrase", "pat",
        "credential", "credentials", "cookie", "bearer", "accesstoken", "authtoken", "privatekey",
    }
)  # fmt: skip
_WEAK_WORDS = frozenset({"auth", "authorization", "authentication", "sig", "signature"})
#: Words of a name that says where a secret is, or what kind or how much of it: its value is no secret.
_NOT_SECRET_WORDS = frozenset(
    {
        "file", "path", "dir", "url", "id", "ids", "name", "env", "header", "type", "length", "limit", "limits",
        "mode", "max", "min", "count", "size", "ttl", "timeout", "budget", "expiry", "expires", "scope", "scopes",
        "method", "provider", "scheme", "kind", "format", "strategy", "endpoint", "issuer", "audience", "store",
        "algorithm", "alg", "algo", "algorithms", "cipher", "curve", "encoding", "version", "level", "rotation",
        "policy", "backend", "helper", "command", "cmd", "prompt", "var", "variable", "field", "column", "prefix",
        "suffix", "param", "parameter", "enabled", "disabled", "required", "location", "source", "manager", "usage",
        "bits", "pattern", "regex", "template", "style", "charset", "fingerprint", "hint", "refresh", "interval",
        "retries", "retry", "delay", "threshold", "width", "height",
    }
)  # fmt: skip
#: With `key`, these words name a key of a table or store (`--sort-key createdAt`), not a credential.
_KEY_NAME_WORDS = frozenset(
    {
        "sort", "primary", "partition", "hash", "range", "foreign", "unique", "composite", "index", "shard",
        "routing", "cache", "lookup", "group", "dedup", "dedupe", "deduplication", "idempotency", "row", "object",
        "s3", "map", "join", "natural", "surrogate", "clustering", "distribution", "dist", "order", "candidate",
        "compound", "redis", "storage", "metadata", "label", "annotation", "attribute", "json", "yaml", "config",
        "dict", "event", "message", "record", "entity", "item", "document", "bucket", "blob",
    }
)  # fmt: skip
#: Words of a name whose value is public by design (`--public-key`, `NEXT_PUBLIC_...`, Supabase's anon key).
_PUBLIC_WORDS = frozenset({"public", "publishable", "pub", "anon"})
#: The last word of a name whose value identifies something (public, however random it looks).
_ID_WORDS = frozenset(
    {
        "id", "ids", "uuid", "guid", "sha", "revision", "rev", "commit", "digest", "ref", "page", "sheet",
        "spreadsheet", "document", "doc", "price", "product", "trace", "span", "project", "workspace", "org",
        "organization", "tenant", "account", "region", "model", "profile", "image", "tag", "version", "channel",
        "team", "user", "username", "repo", "repository", "branch", "bucket", "table", "collection", "namespace",
        "cluster", "zone", "database", "folder", "site", "app", "domain", "host", "cid",
    }
)  # fmt: skip
#: Values of secret-named flags that choose a kind of authentication rather than hold one.
_ENUM_VALUES = frozenset(
    {"oauth", "oauth2", "bearer", "basic", "none", "env", "keyring", "header", "query", "auto", "true", "false",
     "on", "off", "yes", "no", "required", "optional", "enabled", "disabled", "pkce", "apikey", "api-key", "token",
     "static", "jwt", "oidc", "saml", "mtls", "ntlm", "kerberos", "digest", "hmac", "stdin", "prompt", "-"}
)  # fmt: skip
#: A plain word (`github`, `client-credentials`): a setting where a weak word (`--auth`) names the flag.
_PLAIN_WORD = re.compile(r"[a-z]{2,}(?:[-_][a-z]{2,})*|[A-Z][a-z]+(?:[A-Z][a-z]+)*")
#: A port, a port mapping or a version after `-p` (`-p 8080`, `-p 8080:80`, uv's `-p 3.12`).
_PORT = re.compile(r"[0-9.:\[\]]+(?:/(?:tcp|udp))?")
#: A name made of words after `-p` (`-p local-mcp`): a preset or profile, not a password.
_WORDS_NAME = re.compile(r"[a-z]{2,}(?:-[a-z0-9]{2,})+")
_SSH_PUBLIC_KEY = re.compile(r"(?:ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-[a-z0-9@.-]+)[ \t]+(AAAA[A-Za-z0-9+/=]+)")
#: A file name by its extension (`key.pem`, `service-account.json`).
_FILE_NAME = re.compile(
    r"[\w.@+-]*\.(?:pem|key|crt|cer|der|p8|p12|pfx|jks|json|txt|pub|gpg|asc|env|ya?ml|toml|conf|cfg|ini|kdbx|db)",
    re.IGNORECASE,
)
_PATH_SEGMENT = re.compile(r"[\w.@~+$%{}-]+")
#: A path segment that reads as a name (`secrets`, `.ssh`, `id_ed25519`, `Desktop`, `key.pem`), not a token.
_NAME_SEGMENT = re.compile(r"~|\.{1,2}|\.?[a-z]{3,}(?:[_-][a-z0-9]+)*|[A-Z][a-z]{3,}|[\w-]+\.[a-z][a-z0-9]{0,4}")
#: Commands whose `-p` takes a password attached (`-pSECRET`) and, apart, a database (`-p DB`: prompt).
_MYSQL = frozenset({"mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlsh", "mysqlimport", "mysqlcheck"})
#: Commands whose `-p VALUE` is a password, spaced.
_PASSWORD_COMMANDS = frozenset({"sshpass"})


def secret_name(name: str) -> bool:
    """True for a flag, key, header or variable name that looks like it holds a secret (`--api-key`, `TOKEN`,
    `Authorization`), but not one that names where a secret is or what kind (`--token-file`, `--auth-mode`), a
    key of a table (`--sort-key`) or a public key (`--public-key`)."""
    parts = set(words(name))
    found = parts & (_STRONG_WORDS | _WEAK_WORDS)
    if not found or parts & (_NOT_SECRET_WORDS | _PUBLIC_WORDS):
        return False
    return not (found <= {"key", "keys"} and parts & _KEY_NAME_WORDS)


def weak_secret_name(name: str) -> bool:
    """A secret name only by a weak word (`--auth`, `--signature`): its value may be a plain setting."""
    parts = set(words(name))
    return secret_name(name) and not parts & _STRONG_WORDS


def id_name(name: str) -> bool:
    """True for a flag or key whose value identifies something (`--sheet-id`, `--revision`, `page_id`)."""
    parts = words(name)
    return bool(parts) and parts[-1] in _ID_WORDS and not secret_name(name)


def file_path(value: str) -> bool:
    """`value` names a file: a path (`~/.ssh/id_ed25519`, `./certs/key.pem`, `path/to/key`, `C:\\keys\\a.pem`)
    or a file name by its extension (`key.pem`), none of its parts random or a vendor key."""
    if not value or re.search(r"\s", value) or aws_secret_shape(value) or vendor_key(value):
        return False
    if _FILE_NAME.fullmatch(value):
        return True
    parts = re.split(r"[/\\]", re.sub(r"^[A-Za-z]:(?=[/\\])", "", value))
    if len(parts) == 1:
        return False  # no separator: a word, not a path
    segments = [part for part in parts if part]
    if not segments or not all(_PATH_SEGMENT.fullmatch(part) for part in segments):
        return False
    if any(looks_random(part) or vendor_key(part) for part in segments):
        return False
    # A path from the root or home needs one name in it, a relative one names every part (`path/to/key`,
    # `certs/key.pem`): a random `Xq7+Lm2/Tz9Rb4K` is neither.
    if path_like(value):
        return any(_NAME_SEGMENT.fullmatch(part) for part in segments)
    return all(_NAME_SEGMENT.fullmatch(part) or re.fullmatch(r"[a-z]{2}", part) for part in segments)


def mysql_command(word: str) -> bool:
    """`word` (a command or an argument naming one, `docker exec db mysql`) is mysql's client family."""
    return _basename(word) in _MYSQL


def password_command(word: str) -> bool:
    """`word` is a command whose spaced `-p VALUE` is a password (`sshpass -p PASSWORD ssh ...`)."""
    return _basename(word) in _PASSWORD_COMMANDS


def _basename(word: str) -> str:
    name = re.split(r"[/\\]", word)[-1].lower()
    return name.removesuffix(".exe")


def named_verdict(name: str, value: str, *, short_p: bool = False) -> Verdict:
    """What `name` (a flag, key, header or variable name) says of `value` (see the module docstring).
    `short_p`: the name is a bare `-p` (a password unless the value is a port, a version or a name)."""
    if vendor_key(value):  # hidden wherever it stands: named after a secret name, else after its vendor
        return Verdict.SECRET if secret_name(name) or short_p else Verdict.SHAPE
    if public_key(value):
        return Verdict.PUBLIC
    if short_p:
        if _PORT.fullmatch(value) or _WORDS_NAME.fullmatch(value) or file_path(value):
            return Verdict.PUBLIC
        return Verdict.SECRET
    if secret_name(name):
        if file_path(value) or value.lower() in _ENUM_VALUES:
            return Verdict.PUBLIC
        ssh_key = _SSH_PUBLIC_KEY.match(value)
        if ssh_key is not None and public_identifier(ssh_key.group(1)):
            return Verdict.PUBLIC
        if weak_secret_name(name) and _PLAIN_WORD.fullmatch(value) and len(value) <= 32:
            return Verdict.PUBLIC
        return Verdict.SECRET
    if id_name(name) or set(words(name)) & _PUBLIC_WORDS:
        return Verdict.PUBLIC
    return Verdict.SHAPE


#: Launchers that run a package or image named by their first positional argument, and their flags that take
#: a value (so the word after one is that value, not the package).
_LAUNCHER_FLAGS: dict[str, frozenset[str]] = {
    "npx": frozenset({"-p", "--package", "-c", "--call", "--registry", "--cache", "--userconfig", "--prefix"}),
    "uvx": frozenset(
        {"--from", "--with", "-p", "--python", "--index", "--index-url", "--extra-index-url", "--with-requirements",
         "--with-editable", "-c", "--constraints", "--directory", "--project", "--env-file", "--default-index"}
    ),
    "docker": frozenset(
        {"-e", "--env", "-v", "--volume", "-p", "--publish", "--name", "--network", "--net", "--env-file", "-w",
         "--workdir", "-u", "--user", "--entrypoint", "--platform", "--mount", "-l", "--label", "--add-host",
         "--cap-add", "--cap-drop", "--device", "--dns", "-h", "--hostname", "-m", "--memory", "--cpus",
         "--restart", "--pull", "--log-driver", "--log-opt", "--security-opt", "--ulimit", "--gpus", "--ipc",
         "--pid", "--runtime", "--shm-size", "--tmpfs", "--stop-signal", "--group-add", "--label-file"}
    ),
}  # fmt: skip
_LAUNCHER_ALIASES = {"bunx": "npx", "pnpx": "npx", "podman": "docker", "pipx": "uvx"}
#: A launcher whose package comes after a subcommand (`docker run IMAGE`, `pipx run PACKAGE`).
_SUBCOMMANDS = {"docker": frozenset({"run", "create"}), "uvx": frozenset({"run"})}


class LaunchPositions:
    """Where each argument of a launch stands: the package or image a launcher (`npx`, `uvx`, `docker run`)
    runs, a launcher's own flags before it, and whether a mysql client or `sshpass` was named so far.

    Call `package()`/`launcher_flag()` for an argument, then `advance()` past it."""

    def __init__(self, command: str | None) -> None:
        name = _basename(command or "")
        kind = _LAUNCHER_ALIASES.get(name, name)
        self._kind = kind if kind in _LAUNCHER_FLAGS else ""
        self._waiting_subcommand = name in ("docker", "podman", "pipx")
        self._before_package = bool(self._kind)
        self.mysql = mysql_command(command or "")
        self.sshpass = password_command(command or "")

    def launcher_flag(self, flag: str) -> bool:
        """`flag` is the launcher's own, before its package (npx's `-p PACKAGE`, docker's `-p 8080:80`)."""
        return self._before_package and flag in _LAUNCHER_FLAGS.get(self._kind, frozenset())

    def package(self, arg: str, before: str) -> bool:
        """`arg` is the package or image the launcher runs (public, as a package name is)."""
        return (
            self._before_package
            and not self._waiting_subcommand
            and not arg.startswith("-")
            and not (before and before in _LAUNCHER_FLAGS.get(self._kind, frozenset()))
        )

    def advance(self, arg: str, before: str) -> None:
        if arg.startswith("-") or (before and self.launcher_flag(before)):
            return
        if self._waiting_subcommand:  # `docker run` finds an image next; `docker exec` no package
            self._waiting_subcommand = False
            self._before_package = arg in _SUBCOMMANDS.get(self._kind, frozenset())
        elif self._before_package:
            self._before_package = False
        self.mysql = self.mysql or mysql_command(arg)
        self.sshpass = self.sshpass or password_command(arg)
