"""What a stdio server inherits of this process's environment: the SDK's few safe variables, TLS and proxies.

A child gets nothing else of ours unless asked (`env=`, `-e`, a config's `env`): secrets in our environment
stay ours. The SDK's default (HOME, LOGNAME, PATH, SHELL, TERM, USER) leaves a server that reaches the
network without the CA bundle or proxy this machine needs (`uvx` then fails with `UnknownIssuer`), so those
variables go too, under both spellings.
"""

from __future__ import annotations

import os

__all__ = ["NETWORK_VARIABLES", "inherited_environment", "proxy_passwords"]

#: Where TLS trust anchors are (OpenSSL, requests, curl, Node) and which proxies to use.
_NETWORK = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
)
#: The network variables a stdio server inherits, upper- and lower-case (`https_proxy` is curl's spelling).
NETWORK_VARIABLES = tuple(
    name
    for pair in zip(_NETWORK, [n.lower() for n in _NETWORK], strict=True)
    for name in pair
)


def inherited_environment() -> dict[str, str]:
    """The variables a stdio server gets from this process before its own `env`: the SDK's
    `get_default_environment()` and those of `NETWORK_VARIABLES` that are set."""
    from mcp.client.stdio import get_default_environment

    inherited = get_default_environment()
    for name in NETWORK_VARIABLES:
        value = os.environ.get(name)
        if value and not value.startswith(
            "()"
        ):  # a shell function: the SDK skips those too
            inherited[name] = value
    return inherited


def proxy_passwords() -> list[str]:
    """The passwords in the proxy URLs a stdio server inherits (`http://user:PASSWORD@proxy:3128`): what a
    message quoting the server's output must hide, as it hides the values given in `env`.
    """
    from urllib.parse import urlsplit

    found: list[str] = []
    for name in NETWORK_VARIABLES:
        value = os.environ.get(name, "")
        if "@" in value:
            try:
                password = urlsplit(value if "://" in value else f"//{value}").password
            except ValueError:  # not a URL: nothing to find
                continue
            if password:
                found.append(password)
    return found
