"""The user's browser for tests (`BROWSER="python fake_browser.py %s"`): follows the authorization URL.

Like a real browser's launcher it returns at once and visits the page from a detached process, so the
command that opened it can go on to receive the redirect. `--idle` makes a browser that never comes back.
"""

import subprocess
import sys
import urllib.request

if __name__ == "__main__":
    if sys.argv[1] == "--visit":
        with urllib.request.urlopen(sys.argv[2], timeout=30) as page:  # noqa: S310 (127.0.0.1)
            page.read()
    elif sys.argv[1] != "--idle":
        subprocess.Popen(
            [sys.executable, __file__, "--visit", sys.argv[1]],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
