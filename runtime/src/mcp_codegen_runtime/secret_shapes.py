"""What one token looks like: random (a secret's shape) or a public identifier; pure, for generator and runtime.

The generator's launch redaction (`mcp_codegen.inputs.credentials`) and the runtime's own redaction read the
same shapes, so the rules live here, in the runtime, which imports nothing of the generator.

`looks_random` is the length-aware rule for tokens no known format names: detect-secrets' entropy limits (4.5
bits for base64) cannot be reached by a token shorter than about 23 characters (a string of n characters
has at most log2(n) bits), so 20-character tokens were never caught. A token looks random when

* it is 16+ characters, of at least two of lowercase, uppercase and digits (not only hex digits: those are
  digests, SHAs and ids);
* its entropy is near the most its length allows: at least `min(4.5, log2(n) - 0.9)` bits, which 99% of
  random mixed-case tokens of any length reach;
* its character class (lower, upper, digit, symbol) changes at 30%+ of its positions (random mixed-case text
  changes at ~62%, CamelCase names at a word's start only), and at most 45% of it is word-like runs (a capital
  then 3+ lowercase letters with a vowel: `Production`, `Server`);
* it is not a name built of several short parts (`Meta-Llama-3.1-8B-Instruct-Q4_K_M`).

`public_identifier` names the shapes that are never secrets however random they look: hex digests (git SHAs,
`sha256:` image digests, 32-hex Notion page and trace ids, UUIDs), SSH public keys (`AAAA...` blobs that decode
to their key type) and Stripe object ids (`price_...`, `prod_...`; its secret keys `sk_`/`rk_` are formats).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

__all__ = ["aws_secret_shape", "azure_key_shape", "looks_random", "path_like", "public_identifier"]

_SHORTEST_RANDOM = 16
_ENTROPY_MARGIN = 0.9
_ENTROPY_CAP = 4.5  # detect-secrets' base64 limit
_LEAST_CHANGES = 0.3
_MOST_WORDS = 0.45
_WORD = re.compile(r"[A-Z]?[a-z]{3,}")
_VOWEL = re.compile(r"[aeiouy]")
_HEX = re.compile(r"(?:sha(?:1|256|384|512):)?[0-9a-fA-F-]+")
#: Stripe object ids (public): prices, products, customers, subscriptions, invoices, payment intents...
_STRIPE_PUBLIC = re.compile(
    r"(?:price|prod|cus|sub|in|pi|pm|ch|acct|evt|txn|seti|si|plan|cs|po|re|il|ii|prc|promo|coupon|src|ba|card)"
    r"_[A-Za-z0-9]{8,}"
)
_SSH_KEY_TYPES = (b"ssh-", b"ecdsa-", b"sk-ssh-", b"sk-ecdsa-")
#: An AWS secret access key: 40 base64 characters (no padding); an Azure storage key: 88 ending in `==`.
_AWS_SECRET = re.compile(r"[A-Za-z0-9/+]{40}")
_AZURE_KEY = re.compile(r"[A-Za-z0-9/+]{86}==")
_PATH = re.compile(r"(?:~|\.{1,2})?/|[A-Za-z]:[\\/]")


def _entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(count / len(token) * math.log2(count / len(token)) for count in counts.values())


def _kind(char: str) -> str:
    if char.islower():
        return "lower"
    if char.isupper():
        return "upper"
    return "digit" if char.isdigit() else "symbol"


def looks_random(token: str, shortest: int = _SHORTEST_RANDOM) -> bool:
    """Whether `token` has the shape of a random secret (see the module docstring)."""
    length = len(token)
    if length < shortest or _HEX.fullmatch(token) or public_identifier(token):
        return False
    kinds = {_kind(char) for char in token}
    if len(kinds & {"lower", "upper", "digit"}) < 2:
        return False
    parts = re.split(r"[-_.]", token)
    if len(parts) >= 3 and max(len(part) for part in parts) < 12:
        return False  # a name of several short parts: `gpt-4o-mini-2024-07-18`
    changes = sum(_kind(a) != _kind(b) for a, b in zip(token, token[1:], strict=False))
    wordy = sum(len(word) for word in _WORD.findall(token) if _VOWEL.search(word[1:]))
    return (
        _entropy(token) >= min(_ENTROPY_CAP, math.log2(length) - _ENTROPY_MARGIN)
        and changes >= _LEAST_CHANGES * (length - 1)
        and wordy <= _MOST_WORDS * length
    )


def public_identifier(token: str) -> bool:
    """Whether `token` is a public identifier however random it looks (see the module docstring)."""
    if _HEX.fullmatch(token) and re.search(r"[0-9a-fA-F]{7}", token):
        return True
    if _STRIPE_PUBLIC.fullmatch(token):
        return True
    return _ssh_public_key(token)


def _ssh_public_key(token: str) -> bool:
    if not token.startswith("AAAA") or len(token) < 40:
        return False
    try:
        blob = base64.b64decode(token[:64] + "=" * (-len(token[:64]) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    size = int.from_bytes(blob[:4], "big")
    return 4 < size < 64 and blob[4:].startswith(_SSH_KEY_TYPES)


def aws_secret_shape(token: str) -> bool:
    """40 base64 characters of mixed case with a digit, `/` or `+`: an AWS secret access key's shape."""
    return bool(
        _AWS_SECRET.fullmatch(token)
        and re.search(r"[a-z]", token)
        and re.search(r"[A-Z]", token)
        and re.search(r"[0-9/+]", token)
        and not path_like(token)
        and not public_identifier(token)
    )


def azure_key_shape(token: str) -> bool:
    """88 base64 characters ending in `==` (64 bytes): an Azure storage account key's shape."""
    return bool(_AZURE_KEY.fullmatch(token))


def path_like(text: str) -> bool:
    """Whether `text` reads as a file path (`/x`, `./x`, `~/x`, `C:\\x`): its parts are names, not tokens."""
    return bool(_PATH.match(text))
