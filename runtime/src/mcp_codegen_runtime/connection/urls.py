"""URLs made safe to print and store: userinfo and fragment dropped, secret-looking query values redacted."""

from __future__ import annotations

import re

__all__ = ["SECRET_QUERY_KEY", "redact_url", "safe_url"]

#: Query keys whose values may be credentials (`?token=`, `?api_key=`, `?sig=`...).
SECRET_QUERY_KEY = re.compile(
    r"token|key|secret|pass|auth|sig|cred|session|code", re.IGNORECASE
)


def redact_url(url: str, *, keep_query: bool = True) -> str:
    """The URL without userinfo and fragment, safe to print and store (the generator uses it too).

    Query values under token-like keys become `REDACTED`; `keep_query=False` drops the query.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            port = parts.port
        except ValueError:
            port = None
    except ValueError:
        return "<invalid URL>"
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    query = ""
    if keep_query:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = urlencode(
            [
                (key, "REDACTED" if SECRET_QUERY_KEY.search(key) else value)
                for key, value in pairs
            ],
            safe="{}$",
        )
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def safe_url(url: str) -> str:
    """The URL without userinfo, query or fragment (those may carry secrets), for messages."""
    return redact_url(url, keep_query=False)
