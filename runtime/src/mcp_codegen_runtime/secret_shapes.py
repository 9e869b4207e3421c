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
to their key type), Stripe object ids (`price_...`, `prod_...`; its secret keys `sk_`/`rk_` are formats),
content hashes (IPFS CIDs `Qm...` and `bafy...`, subresource-integrity `sha384-...`), and public or
publishable keys by their vendor's prefix (Stripe and Clerk `pk_live_`/`pk_test_`, Mapbox `pk.eyJ...`,
PostHog `phc_`, Langfuse `pk-lf-`, age `age1...`, Nostr `npub1...`).

`vendor_key` names a vendor's secret key by its prefix and a random body (DigitalOcean `dop_v1_`, Shopify
`shpat_`, Perplexity `pplx-`, Firecrawl `fc-`, Mailgun `key-`, Slack `xapp-`, ...): such a token is secret
wherever it stands; `vendor_keys_in` finds them inside a longer text. A body that is not random (`fc-YOUR_KEY`,
`key-management`) is no key.

The public API (`looks_random`, `public_identifier`, `vendor_key`, `vendor_keys_in`, and the shape helpers
below) is stable: the generator's redaction and the runtime's recorder both read it; rules are only added.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

__all__ = [
    "aws_secret_shape",
    "azure_key_shape",
    "looks_random",
    "path_like",
    "public_identifier",
    "public_key",
    "vendor_key",
    "vendor_keys_in",
]

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
#: Public keys and content hashes by their format (see the module docstring).
_PUBLIC_FORMATS = re.compile(
    r"pk_(?:live|test)_[A-Za-z0-9+/=$]{16,}"  # Stripe, Clerk publishable keys
    r"|pk\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"  # Mapbox public tokens
    r"|phc_[A-Za-z0-9]{20,}"  # PostHog project keys (sent by every browser)
    r"|pk-lf-[0-9a-f-]{20,}"  # Langfuse public keys
    r"|age1[02-9ac-hj-np-z]{58}"  # age recipients
    r"|npub1[02-9ac-hj-np-z]{58}"  # Nostr public keys
    r"|Qm[1-9A-HJ-NP-Za-km-z]{44}"  # IPFS CIDv0
    r"|b(?:afy|afk|afz|aga)[a-z2-7]{50,}"  # IPFS CIDv1, base32
    r"|sha(?:256|384|512)-[A-Za-z0-9+/]{43,86}={0,2}"  # subresource integrity
    r"|0x[0-9a-fA-F]{40}"  # an Ethereum address
)
#: A vendor's secret key: (name, prefix, body). The body must also look random (`_random_body`).
_VENDOR_FORMATS: tuple[tuple[str, str, str], ...] = (
    ("digitalocean token", r"do[opr]_v1_", r"[a-f0-9]{64}"),
    ("shopify access token", r"shp(?:at|ca|pa|ss)_", r"[a-fA-F0-9]{32}"),
    ("perplexity api key", r"pplx-", r"[A-Za-z0-9]{32,64}"),
    ("firecrawl api key", r"fc-", r"[a-f0-9]{32}"),
    ("mailgun api key", r"key-", r"[a-z0-9]{32}"),
    ("slack app token", r"xapp-", r"\d-[A-Z0-9]{6,}-\d{6,}-[a-z0-9]{32,}"),
    ("slack token", r"xox[abeoprs]-", r"(?:\d+-)+[A-Za-z0-9]{16,}"),
    ("slack token", r"xoxe\.xox[bp]-", r"\d-[A-Za-z0-9]{40,}"),
    ("github token", r"github_pat_", r"[A-Za-z0-9_]{60,}"),
    ("github token", r"gh[opusr]_", r"[A-Za-z0-9]{36,}"),
    ("anthropic api key", r"sk-ant-(?:api|admin|oat)\d\d-", r"[A-Za-z0-9_-]{40,}"),
    ("openai api key", r"sk-(?:proj|svcacct|admin|None)-", r"[A-Za-z0-9_-]{40,}"),
    ("openrouter api key", r"sk-or-v1-", r"[a-f0-9]{64}"),
    ("langfuse secret key", r"sk-lf-", r"[0-9a-f-]{32,}"),
    ("stripe secret key", r"[rs]k_(?:live|test)_", r"[A-Za-z0-9]{20,}"),
    ("elevenlabs api key", r"sk_", r"[a-f0-9]{48}"),
    ("hugging face token", r"hf_", r"[A-Za-z0-9]{30,}"),
    ("npm token", r"npm_", r"[A-Za-z0-9]{36}"),
    ("pypi token", r"pypi-", r"AgE[A-Za-z0-9_-]{50,}"),
    ("linear api key", r"lin_(?:api|oauth)_", r"[A-Za-z0-9]{32,}"),
    ("notion token", r"(?:ntn|secret)_", r"[A-Za-z0-9]{40,50}"),
    ("groq api key", r"gsk_", r"[A-Za-z0-9]{40,}"),
    ("tavily api key", r"tvly-(?:dev-|prod-)?", r"[A-Za-z0-9]{24,}"),
    ("replicate api token", r"r8_", r"[A-Za-z0-9]{30,}"),
    ("resend api key", r"re_", r"[A-Za-z0-9]{8,}_[A-Za-z0-9]{16,}"),
    ("sentry token", r"sntry[su]_", r"[A-Za-z0-9+/=_-]{40,}"),
    ("grafana token", r"gl(?:sa|c)_", r"[A-Za-z0-9_+/=-]{32,}"),
    ("gitlab token", r"gl(?:pat|dt|ft|rt)-", r"[A-Za-z0-9_-]{20,}"),
    ("databricks token", r"dapi", r"[a-f0-9]{32}(?:-\d)?"),
    ("neon api key", r"napi_", r"[a-z0-9]{40,}"),
    ("supabase access token", r"sbp_", r"[a-f0-9]{40}"),
    ("supabase secret key", r"sb_secret_", r"[A-Za-z0-9_-]{20,}"),
    ("airtable token", r"pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("figma token", r"fig[dou]_", r"[A-Za-z0-9_-]{40,}"),
    ("posthog personal api key", r"phx_", r"[A-Za-z0-9]{30,}"),
    ("brevo api key", r"xkeysib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("atlassian api token", r"ATATT3x", r"[A-Za-z0-9_=-]{100,}"),
    (
        "tailscale key",
        r"tskey-(?:auth|api|client)-",
        r"[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}",
    ),
    ("doppler token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.", r"[A-Za-z0-9]{40,}"),
    ("vault token", r"hv[sb]\.", r"[A-Za-z0-9_-]{24,}"),
    ("planetscale token", r"pscale_(?:tkn|pw|oauth)_", r"[A-Za-z0-9_.-]{32,}"),
    ("render api key", r"rnd_", r"[A-Za-z0-9]{24,}"),
    ("apify token", r"apify_api_", r"[A-Za-z0-9]{30,}"),
    ("xai api key", r"xai-", r"[A-Za-z0-9]{60,}"),
    ("langsmith api key", r"lsv2_(?:pt|sk)_", r"[a-f0-9]{32}_[a-f0-9]{10}"),
    ("google api key", r"AIza", r"[A-Za-z0-9_-]{35}"),
    ("google oauth token", r"ya29\.", r"[A-Za-z0-9_-]{30,}"),
    ("mapbox secret token", r"sk\.eyJ", r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,}"),
    ("jina api key", r"jina_", r"[A-Za-z0-9_-]{40,}"),
    ("browserbase api key", r"bb_live_", r"[A-Za-z0-9_-]{20,}"),
    ("e2b api key", r"e2b_", r"[a-f0-9]{40}"),
    ("cerebras api key", r"csk-", r"[a-z0-9]{40,}"),
    ("age secret key", r"AGE-SECRET-KEY-1", r"[02-9AC-HJ-NP-Z]{58}"),
    ("nostr secret key", r"nsec1", r"[02-9ac-hj-np-z]{58}"),
)
_TOKEN_EDGE = "A-Za-z0-9_-"
_VENDOR = re.compile(
    "|".join(
        f"(?P<v{index}>(?<![.{_TOKEN_EDGE}]){prefix}(?P<b{index}>{body})(?![{_TOKEN_EDGE}]))"
        for index, (_name, prefix, body) in enumerate(_VENDOR_FORMATS)
    )
)
#: A random body has letters and digits and this much entropy (a 32-hex body has ~3.8 bits).
_BODY_ENTROPY = 3.0


def _entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(
        count / len(token) * math.log2(count / len(token)) for count in counts.values()
    )


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
    """Whether `token` is a public identifier, public key or content hash however random it looks (see the
    module docstring)."""
    if _HEX.fullmatch(token) and re.search(r"[0-9a-fA-F]{7}", token):
        return True
    if _STRIPE_PUBLIC.fullmatch(token) or public_key(token):
        return True
    return _ssh_public_key(token)


def public_key(token: str) -> bool:
    """Whether `token` is a public or publishable key or a content hash by its format (`pk_live_...`,
    `phc_...`, an IPFS CID): public even where a name says "key" (a hex digest or a UUID is not: after
    `--api-key` it is the key)."""
    return _PUBLIC_FORMATS.fullmatch(token) is not None


def vendor_key(token: str) -> str | None:
    """The vendor key `token` is, by its prefix and random body ("digitalocean token", "shopify access
    token", ...), or None (see the module docstring)."""
    found = vendor_keys_in(token)
    if len(found) == 1 and found[0][:2] == (0, len(token)):
        return found[0][2]
    return None


def vendor_keys_in(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each vendor key standing as a token in `text`, in order."""
    found: list[tuple[int, int, str]] = []
    for match in _VENDOR.finditer(text):
        group = match.lastgroup or ""
        index = int(group[1:])
        if _random_body(match.group(f"b{index}")):
            found.append((match.start(), match.end(), _VENDOR_FORMATS[index][0]))
    return found


def _random_body(body: str) -> bool:
    """Letters and digits, with the entropy of random text: not `YOUR_API_KEY_HERE` or `xxxx...`."""
    plain = re.sub(r"[^A-Za-z0-9]", "", body)
    return (
        bool(re.search(r"[0-9]", plain) and re.search(r"[A-Za-z]", plain))
        and _entropy(plain) >= _BODY_ENTROPY
    )


def _ssh_public_key(token: str) -> bool:
    if not token.startswith("AAAA") or len(token) < 40:
        return False
    try:
        blob = base64.b64decode(
            token[:64] + "=" * (-len(token[:64]) % 4), validate=True
        )
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
