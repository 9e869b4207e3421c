"""`python -m PKG skills list` and `skills install DIR [NAME...]`: a server's MCP Skills from the command line.

`list` prints the live skills as JSON (name, description, files); `install` writes every skill (or the ones
named) to `DIR/<name>/`, each file verified against its digest and size before anything is written, as
`client.skills.install` does. A skill that does not match its manifest exits with the server-error code.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..text import one_line
from .connect import connected
from .output import print_json
from .parsing import Formatter, Parser
from .table import EXIT_OK, EXIT_USAGE, CommandLine

__all__ = ["skills_command"]


def skills_command(
    line: CommandLine, options: argparse.Namespace, rest: list[str]
) -> int:
    parser = Parser(prog=f"{line.prog} skills", formatter_class=Formatter)
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="{list,install}"
    )
    actions.add_parser("list", help="the server's skills now, with their files")
    install = actions.add_parser(
        "install", help="write the skills to DIR/<name>/, every file verified first"
    )
    install.add_argument("directory", metavar="DIR")
    install.add_argument(
        "names", nargs="*", metavar="NAME", help="only these skills (default: all)"
    )
    parsed = parser.parse_args(rest)

    async def run(client: Any) -> int:
        from ..client.skills import AsyncSkillsBase

        skills = AsyncSkillsBase(client)
        if parsed.action == "list":
            print_json(
                [
                    {
                        "name": skill.name,
                        "description": skill.description,
                        "uri": skill.uri,
                        "files": (
                            skill.files
                            if skill.files == "dynamic"
                            else [
                                {"path": f.path, "size": f.size, "digest": f.digest}
                                for f in skill.files
                            ]
                        ),
                    }
                    for skill in await skills.list()
                ]
            )
            return EXIT_OK
        try:
            written = await skills.install_names(
                list(parsed.names) or None, into=parsed.directory
            )
        except OSError as error:
            print(
                f"{line.prog}: error: cannot write {parsed.directory}: {one_line(str(error))}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        for folder in written:
            print(folder)
        return EXIT_OK

    return connected(line, options, run)
