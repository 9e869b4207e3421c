"""Running the command line: connect, call the tool (or read a resource, get a prompt), print the result."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    pass

from ..text import one_line
from .connect import connected
from .output import dump, print_json, print_result
from .parsing import (
    Formatter,
    Parser,
    check_arguments,
    find,
    global_parser,
    json_value,
    split_globals,
    tool_parser,
)
from .table import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Command,
    CommandLine,
    CommandRow,
    UsageError,
)


def main(
    line: CommandLine, commands: Sequence[CommandRow], argv: Sequence[str] | None = None
) -> int:
    """Run the command line on `argv` (default: `sys.argv[1:]`); returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(line, commands, arguments)
    except UsageError as error:
        print(f"{line.prog}: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{line.prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - one line, never a traceback
        message = one_line(str(error))
        print(
            f"{line.prog}: internal error: {type(error).__name__}: {message}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _main(
    line: CommandLine, commands: Sequence[CommandRow], arguments: list[str]
) -> int:
    index = split_globals(arguments)
    parser = global_parser(line, commands)
    options = parser.parse_args(arguments[:index])
    rest = arguments[index:]
    if options.search is not None:
        if rest:
            raise UsageError("give --search or a tool, not both")
        return _search(line, commands, options)
    if options.semantic:
        raise UsageError("--semantic goes with --search QUERY")
    if not rest:
        parser.print_usage(sys.stderr)
        raise UsageError("no tool given (--help lists them)")
    name, rest = rest[0], rest[1:]
    if options.stdio and options.url:
        raise UsageError("give one of --stdio and --url")
    if name == "resources" and (line.resources or line.templates):
        return _resources(line, options, rest)
    if name == "prompts" and line.prompts:
        return _prompts(line, options, rest)
    if name == "skills" and line.skills is not None:
        from .skills import skills_command

        return skills_command(line, options, rest)
    if name == "tasks" and line.task_tools:
        from .tasks import tasks_command

        return tasks_command(line, commands, options, rest)
    command = find(commands, name, line.tools)
    return _tool(line, command, options, rest)


def _search(
    line: CommandLine, commands: Sequence[CommandRow], options: argparse.Namespace
) -> int:
    """`--search QUERY`: the matching tools' commands and summaries (`--raw`: as JSON), best first."""
    if not options.search.strip():
        raise UsageError("--search needs a request (words)")
    if options.limit < 1:
        raise UsageError("--limit must be at least 1")
    tools = line.client.toolset_for(cast("Any", None))
    try:
        found = tools.search(
            options.search, limit=options.limit, semantic=options.semantic
        )
    except ImportError as error:
        raise UsageError(str(error)) from error
    by_wire = {row[1]: row for row in commands}
    rows = [by_wire[tool.wire_name] for tool in found if tool.wire_name in by_wire]
    if options.raw:
        print_json([{"command": row[0], "summary": row[2]} for row in rows])
    else:
        for row in rows:
            summary = one_line(row[2], None)
            print(f"{row[0]}: {summary}" if summary else row[0])
    return EXIT_OK


def _tool(
    line: CommandLine, command: Command, options: argparse.Namespace, rest: list[str]
) -> int:
    spec = line.tools[command.wire_name]
    parser = tool_parser(line, command, spec)
    parsed = parser.parse_args(rest)
    raw = bool(options.raw or parsed.raw_output)
    values: dict[str, Any] = {}
    if parsed.json_arguments is not None:
        whole = json_value(parsed.json_arguments, "--json")
        if not isinstance(whole, dict):
            raise UsageError("--json: the arguments must be a JSON object")
        values.update(cast("dict[str, Any]", whole))
    for index, option in enumerate(command.options):
        given = getattr(parsed, f"option_{index}")
        if given is not None:
            values[option.wire_name] = given
    missing = [
        o.flag for o in command.options if o.required and o.wire_name not in values
    ]
    if missing:
        what = "is" if len(missing) == 1 else "are"
        raise UsageError(f"{', '.join(missing)} {what} required (or give it in --json)")
    check_arguments(spec, command, values)

    prefix = f"{line.prog} {command.name}"
    support = spec.task_support
    # `--task`/`--no-wait` are offered only for tools that may run as tasks (see `tool_parser`).
    as_task = support == "required" or bool(parsed.task or parsed.no_wait)

    async def call(client: Any) -> int:
        if as_task:
            from .tasks import run_task_call

            answer = await run_task_call(
                client, spec, values, prefix=prefix, wait=not parsed.no_wait
            )
            if answer is None:  # started, its id printed
                return EXIT_OK
            return print_result(line, prefix, spec, answer, raw)
        from ..calls.errors import ToolError

        try:
            answer = (await client.call_spec_result(spec, values)).raw
        except ToolError as error:
            answer = error.result.raw
        return print_result(line, prefix, spec, answer, raw)

    return connected(line, options, call)


def _resources(line: CommandLine, options: argparse.Namespace, rest: list[str]) -> int:
    parser = Parser(prog=f"{line.prog} resources", formatter_class=Formatter)
    actions = parser.add_subparsers(dest="action", required=True, metavar="{list,read}")
    actions.add_parser(
        "list", help="the resources and templates recorded at generation"
    )
    read = actions.add_parser("read", help="read one resource")
    read.add_argument("uri", metavar="URI")
    parsed = parser.parse_args(rest)
    if parsed.action == "list":
        listing: list[dict[str, object]] = []
        for resource in line.resources.values():
            listing.append(
                {
                    "uri": resource.uri,
                    "name": resource.name,
                    "description": resource.description,
                }
            )
        for template in line.templates.values():
            listing.append(
                {
                    "uriTemplate": template.uri_template,
                    "name": template.name,
                    "description": template.description,
                }
            )
        print_json(listing)
        return EXIT_OK
    uri: str = parsed.uri

    async def read_one(client: Any) -> int:
        result = await client.read_resource(uri)
        if options.raw:
            print_json(dump(result.raw))
            return EXIT_OK
        for item in result.raw.contents:
            text = getattr(item, "text", None)
            if isinstance(text, str):
                print(text)
            else:
                mime = item.mime_type or "binary"
                print(
                    f"{line.prog}: {item.uri}: {mime} contents not shown (--raw)",
                    file=sys.stderr,
                )
        return EXIT_OK

    return connected(line, options, read_one)


def _prompts(line: CommandLine, options: argparse.Namespace, rest: list[str]) -> int:
    parser = Parser(prog=f"{line.prog} prompts", formatter_class=Formatter)
    actions = parser.add_subparsers(dest="action", required=True, metavar="{list,get}")
    actions.add_parser("list", help="the prompts recorded at generation")
    get = actions.add_parser("get", help="render one prompt")
    get.add_argument("name", metavar="NAME")
    get.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a prompt argument (repeatable)",
    )
    parsed = parser.parse_args(rest)
    if parsed.action == "list":
        print_json(
            [
                {
                    "name": prompt.name,
                    "description": prompt.description,
                    "arguments": [
                        {"name": wire, "required": required}
                        for wire, _python, required in prompt.arguments
                    ],
                }
                for prompt in line.prompts.values()
            ]
        )
        return EXIT_OK
    spec = line.prompts.get(parsed.name)
    if spec is None:
        raise UsageError(f"no prompt {parsed.name!r} (`prompts list` lists them)")
    known = {wire for wire, _python, _required in spec.arguments}
    values: dict[str, str] = {}
    for pair in parsed.arg:
        key, equals, value = pair.partition("=")
        if not equals:
            raise UsageError(f"--arg {pair!r}: give KEY=VALUE")
        if key not in known:
            raise UsageError(
                f"--arg {key}: prompt {spec.name!r} has no such argument "
                f"(it takes: {', '.join(sorted(known)) or 'none'})"
            )
        values[key] = value
    missing = [w for w, _p, required in spec.arguments if required and w not in values]
    if missing:
        raise UsageError(f"--arg {missing[0]}=... is required")
    name = spec.name

    async def get_one(client: Any) -> int:
        result = await client.get_prompt(name, values)
        if options.raw:
            print_json(dump(result.raw))
        else:
            print(result.text)
        return EXIT_OK

    return connected(line, options, get_one)
