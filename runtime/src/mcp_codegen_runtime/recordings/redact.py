"""Secrets taken out of a recording as it is written: each becomes a named placeholder, `<redacted:KIND:NAME>`.

What is known to be secret is replaced wherever it appears, longest first: the value of every header given
to an HTTP server (`<redacted:header:Authorization>`; a `Bearer X` token alone too), every cookie's value
(`<redacted:cookie:session>`), and the value of every variable given to the server
(`<redacted:env:API_KEY>`; values shorter than 4 characters are left, as they would match by chance). Then
every run of token characters in what is left that has a secret's shape (`secret_shaped`: the runtime's
`secret_shapes` rules) becomes `<redacted:token-N>`, the same token the same N throughout a recording, so a
cursor or an id the client sends back still matches on replay.

Everything a message carries is looked at (arguments, results, notifications, the handshake), except the
JSON-RPC envelope (`jsonrpc`, `id`, `method`) and binary payloads (the base64 `data` of image and audio
blocks, resources' `blob`s), which are data, not text. Replay reads a placeholder as "any value".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from ..secret_shapes import aws_secret_shape, azure_key_shape, looks_random

__all__ = [
    "PLACEHOLDER",
    "Redactor",
    "secret_shaped",
]

#: Any placeholder this module writes.
PLACEHOLDER = re.compile(r"<redacted:[A-Za-z0-9_.:\-]{1,120}>")
#: A value shorter than this is not looked for inside text (it would match by chance).
_SHORTEST_SECRET = 4
#: A run of characters a token is made of, base64 padding included (dots split a JWT into its parts, checked each;
#: `=` splits `key=value`).
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+/~]{16,}={0,2}")
_SCHEME = re.compile(
    r"^(?:Bearer|Basic|Token|Bot|Digest|ApiKey|DPoP)[ \t]+(\S+)$", re.IGNORECASE
)
_BINARY_BLOCKS = frozenset({"image", "audio"})


def secret_shaped(token: str) -> bool:
    """Whether one token has a secret's shape: the single predicate the redaction asks (new formats go here)."""
    return looks_random(token) or aws_secret_shape(token) or azure_key_shape(token)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)[:60] or "value"


class Redactor:
    """Redacts the JSON-RPC messages of one recording (see the module docstring)."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        shapes: bool = True,
    ) -> None:
        known: dict[str, str] = {}
        for name, value in (env or {}).items():
            if len(value) >= _SHORTEST_SECRET:
                known.setdefault(value, f"<redacted:env:{_safe_name(name)}>")
        for name, value in (headers or {}).items():
            if name.lower() == "cookie":
                for part in value.split(";"):
                    cookie, _, cookie_value = part.strip().partition("=")
                    if len(cookie_value) >= _SHORTEST_SECRET:
                        known.setdefault(
                            cookie_value, f"<redacted:cookie:{_safe_name(cookie)}>"
                        )
            placeholder = f"<redacted:header:{_safe_name(name)}>"
            scheme = _SCHEME.match(value.strip())
            if scheme is not None and len(scheme.group(1)) >= _SHORTEST_SECRET:
                known.setdefault(scheme.group(1), placeholder)
            if len(value) >= _SHORTEST_SECRET:
                known.setdefault(value, placeholder)
        #: Known secrets, longest first (a value inside another is replaced after it).
        self._known = sorted(known.items(), key=lambda item: -len(item[0]))
        self._shapes = shapes
        self._tokens: dict[str, str] = {}

    def message(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of `message` with every secret replaced (the envelope's own keys untouched)."""
        return {
            key: value if key in ("jsonrpc", "id", "method") else self._value(value)
            for key, value in message.items()
        }

    def text(self, text: str) -> str:
        """`text` with every known secret, then every secret-shaped token, replaced."""
        for secret, placeholder in self._known:
            if secret in text:
                text = text.replace(secret, placeholder)
        if not self._shapes or len(text) < 16:
            return text
        return _TOKEN_RUN.sub(self._token, text)

    def _token(self, match: re.Match[str]) -> str:
        run = match.group(0)
        # Padding and separators at either end are not part of the token.
        token = run.strip("=-_~+/")
        if not token or not secret_shaped(token):
            return run
        placeholder = self._tokens.get(token)
        if placeholder is None:
            placeholder = self._tokens[token] = (
                f"<redacted:token-{len(self._tokens) + 1}>"
            )
        return run.replace(token, placeholder)

    def _value(self, value: object) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self._value(item) for item in cast("list[object]", value)]
        if isinstance(value, dict):
            item = cast("dict[str, object]", value)
            binary = item.get("type") in _BINARY_BLOCKS
            return {
                key: (
                    inner
                    if (key == "data" and binary) or key == "blob"
                    else self._value(inner)
                )
                for key, inner in item.items()
            }
        return value
