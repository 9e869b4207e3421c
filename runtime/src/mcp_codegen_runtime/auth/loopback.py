"""The browser side of an interactive login: a one-shot loopback listener for the redirect, and the browser.

`oauth()` hands the authorization URL to the browser (or prints it) and `LoopbackListener`
receives the redirect on 127.0.0.1, answering the browser with a small page, for at most
`login_timeout` seconds. `login_refusal()` says why a process cannot wait for a person at all
(CI, or no terminal and no browser), so the login fails at once instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..calls.errors import AuthRequiredError, ConnectError
from ..text import one_line

if TYPE_CHECKING:
    from mcp.shared.auth import AuthorizationCodeResult

__all__ = [
    "LOGIN_TIMEOUT",
    "LoopbackListener",
    "ci_is_set",
    "login_refusal",
    "open_in_browser",
    "refused_login",
    "show_url",
    "stdin_is_terminal",
]

_CALLBACK_PATH = "/callback"
#: Seconds a person gets to finish the login in the browser (`oauth(login_timeout=...)`).
LOGIN_TIMEOUT = 300.0


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or detached
        return False


def ci_is_set() -> bool:
    """The environment variable CI set to anything but "", "0", "false" or "no" (a CI job: nobody to log in)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def login_refusal(
    interactive: bool | None, on_authorize_url: Callable[[str], object] | None
) -> str | None:
    """Why this process must not start a browser login (None: it may): `interactive=False`; or,
    left to decide (`interactive=None`) with nobody given the URL (`on_authorize_url`), the
    environment variable CI set to anything but "", "0", "false" or "no"."""
    if interactive is False:
        return "interactive=False"
    if interactive is None and on_authorize_url is None and ci_is_set():
        return "CI is set"
    return None


def refused_login(server_url: str, reason: str) -> AuthRequiredError:
    """The error of a login that cannot happen here: what to do instead, at once rather than after a wait."""
    from .store import login_hint, normalise_url

    url = normalise_url(server_url)
    return AuthRequiredError(
        f"{url} needs an OAuth login and this process cannot wait for one ({reason}):"
        f" run `{login_hint(server_url)}` where a browser is at hand, or use client credentials",
        url=url,
    )


class LoopbackListener:
    """A one-shot HTTP listener on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self, port: int, *, timeout: float = LOGIN_TIMEOUT) -> None:
        self.port = port or _free_port()
        #: Seconds to wait for the redirect.
        self.timeout = timeout
        self._listener: Any = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{_CALLBACK_PATH}"

    async def start(self) -> None:
        import anyio

        if self._listener is not None:
            return
        try:
            self._listener = await anyio.create_tcp_listener(
                local_host="127.0.0.1", local_port=self.port
            )
        except OSError as error:
            raise ConnectError(
                f"cannot listen for the OAuth redirect on 127.0.0.1:{self.port}:"
                f" {error.strerror or error}"
            ) from None

    async def wait(self) -> AuthorizationCodeResult:
        """The code and state of the first redirect to the callback path."""
        import anyio
        from mcp.shared.auth import AuthorizationCodeResult

        await self.start()
        listener = self._listener.listeners[0]
        try:
            with anyio.fail_after(self.timeout):
                while True:
                    stream = await listener.accept()
                    async with stream:
                        result = await _read_redirect(stream)
                    if result is None:
                        continue
                    if "error" in result:
                        raise ConnectError(
                            "the authorization server refused the login: "
                            + one_line(
                                result.get("error_description") or result["error"]
                            )
                        )
                    return AuthorizationCodeResult(
                        code=result.get("code", ""),
                        state=result.get("state"),
                        iss=result.get("iss"),
                    )
        except TimeoutError:
            raise ConnectError(
                f"no OAuth redirect within {self.timeout:g} s (the login was not finished)"
            ) from None
        finally:
            await self.close()

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.aclose()


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>mcp-codegen</title></head>"
    "<body style='font-family:sans-serif'><h3>{}</h3><p>You can close this tab.</p></body></html>"
)


async def _read_redirect(stream: Any) -> dict[str, str] | None:
    """Read one HTTP request; answer it; its query parameters if it is the callback."""
    from urllib.parse import parse_qsl, urlsplit

    import anyio

    data = b""
    try:
        with anyio.fail_after(10):
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = await stream.receive()
                if not chunk:
                    break
                data += chunk
    except (TimeoutError, anyio.EndOfStream, anyio.BrokenResourceError, OSError):
        return None
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    fields = line.split(" ")
    target = fields[1] if len(fields) >= 3 and fields[0] == "GET" else ""
    parts = urlsplit(target)
    if parts.path != _CALLBACK_PATH:
        await _answer(stream, 404, "Not found")
        return None
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    if "error" in query:
        await _answer(stream, 400, "Login refused")
    elif "code" in query:
        await _answer(stream, 200, "Login complete")
    else:
        await _answer(stream, 400, "No authorization code in this request")
        return None
    return query


async def _answer(stream: Any, status: int, title: str) -> None:
    import html

    body = _PAGE.format(html.escape(title)).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {title}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n"
        "Cache-Control: no-store\r\n\r\n"
    ).encode("latin-1")
    with contextlib.suppress(Exception):
        await stream.send(head + body)


def show_url(url: str, on_authorize_url: Callable[[str], object] | None) -> None:
    """Hand the authorization URL to `on_authorize_url`, or print it to stderr."""
    if on_authorize_url is not None:
        on_authorize_url(url)
        return
    print(f"Open this URL in a browser to log in:\n{url}", file=sys.stderr, flush=True)


async def open_in_browser(url: str) -> bool:
    """Open `url` in the user's browser; False when there is none."""
    import webbrowser

    import anyio

    def open_it() -> bool:
        try:
            return bool(webbrowser.open(url))
        except Exception:  # no usable browser
            return False

    return await anyio.to_thread.run_sync(open_it)
