"""The `mcp-codegen` console script: Ctrl-C is handled before the command line is imported, then it runs.

Importing click and the commands takes a noticeable moment; an interrupt then is one line and exit 130
(nothing can have been written yet), never a traceback. Once the command's outcome is decided, a late
Ctrl-C (while the interpreter shuts down) is ignored.
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    try:
        from mcp_codegen.interrupts import pause

        pause("start")
        from mcp_codegen.cli import main as run_cli
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.stderr.write("mcp-codegen: interrupted; the previous output is unchanged\n")
        sys.exit(130)
    try:
        run_cli()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    main()
