"""The command line of a generated package (`python -m PKG`): parse, call, print the result as JSON.

The generated `__main__.py` passes a table of its tools (`Command`, `Option`: plain data written at
generation), so `--help` builds its parser without importing models or `mcp`; a tool's parser is built
only when that tool is named, and models, `anyio` and the SDK are imported only to make the call.
Arguments are checked against the tool's model before anything is sent. Exit codes: `EXIT_CODES`.
"""

from .run import main
from .table import EXIT_CODES, Command, CommandLine, CommandRow, Option, OptionRow

__all__ = [
    "EXIT_CODES",
    "Command",
    "CommandLine",
    "CommandRow",
    "Option",
    "OptionRow",
    "main",
]
