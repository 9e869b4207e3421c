"""Parsing a package's command line: argparse built from the table, option values converted and checked."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

if TYPE_CHECKING:
    from ..calls.specs import ToolSpec

from ..text import one_line, printable
from .table import EXIT_CODES, Command, CommandLine, CommandRow, Option, UsageError

_GLOBAL_VALUES = frozenset(
    {
        "--stdio",
        "--url",
        "--header",
        "--env",
        "--timeout",
        "--retries",
        "--search",
        "--limit",
    }
)


_GLOBAL_FLAGS = frozenset({"--raw", "-v", "--verbose", "-h", "--help", "--semantic"})


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Help text printed as given: server text is never %-formatted (a `%` in a description is only a `%`)."""

    def _expand_help(self, action: argparse.Action) -> str:
        return action.help or ""

    def _format_text(self, text: str) -> str:
        width = max(self._width - self._current_indent, 11)
        return self._fill_text(text, width, " " * self._current_indent) + "\n\n"


class Parser(argparse.ArgumentParser):
    """argparse whose errors become one `UsageError` line instead of exiting."""

    def __init__(self, **options: Any) -> None:
        # No abbreviations: `--ci` must not silently mean `--city` (nor a later parameter's prefix).
        super().__init__(allow_abbrev=False, **options)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def printable_lines(text: str) -> str:
    """Server text for a terminal: control characters (escape sequences) dropped, line breaks kept."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(printable(line, keep="\t").rstrip() for line in lines).strip("\n")


def split_globals(arguments: list[str]) -> int:
    """The index of the command: the first word that is neither a global option nor its value."""
    index = 0
    while index < len(arguments):
        word = arguments[index]
        name = word.split("=", 1)[0]
        if name in _GLOBAL_VALUES:
            index += 1 if "=" in word else 2
        elif word in _GLOBAL_FLAGS:
            index += 1
        elif word.startswith("-") and word != "-":
            raise UsageError(
                f"unknown option {word} (options before the tool name: "
                f"{', '.join(sorted(_GLOBAL_VALUES | _GLOBAL_FLAGS))})"
            )
        else:
            return index
    return index


def global_parser(line: CommandLine, commands: Sequence[CommandRow]) -> Parser:
    parser = Parser(
        prog=line.prog,
        usage=f"{line.prog} [options] TOOL [--param VALUE ...]",
        description=f"Call the tools of the {line.label} MCP server from the command line.",
        epilog=_listing(line, commands),
        formatter_class=Formatter,
    )
    server = parser.add_argument_group(
        "server (default: the launch recorded at generation, secrets from the environment)"
    )
    server.add_argument(
        "--stdio", metavar="CMD", help="start this server command instead"
    )
    server.add_argument("--url", help="connect to this HTTP URL instead")
    server.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="with --url: an HTTP header (repeatable)",
    )
    server.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --stdio: an environment variable for the server (repeatable)",
    )
    server.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="for connecting and for the call (default 60)",
    )
    server.add_argument(
        "--retries",
        type=int,
        default=5,
        metavar="N",
        help="send a call that failed in transit again up to N times where it is safe (default 5; 0: never)",
    )
    search = parser.add_argument_group(
        "search (instead of a tool: the tools for a request, best first; nothing is sent)"
    )
    search.add_argument(
        "--search", metavar="QUERY", help="print the tools matching this request"
    )
    search.add_argument(
        "--limit",
        type=int,
        default=5,
        metavar="N",
        help="with --search: how many (default 5)",
    )
    search.add_argument(
        "--semantic",
        action="store_true",
        help='with --search: rank with the static embedding model too (pip install "mcp-codegen-runtime[semantic]")',
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--raw", action="store_true", help="print the whole result as JSON"
    )
    output.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show the server's own stderr (a stdio server's) and the MCP SDK's log",
    )
    return parser


def _listing(line: CommandLine, commands: Sequence[CommandRow]) -> str:
    rows = [(c[0], c[2]) for c in commands]
    width = min(max((len(name) for name, _ in rows), default=0), 30)
    text = ["tools (`TOOL --help` shows its parameters):"]
    text += [
        f"  {name:<{width}}  {one_line(summary, None)}".rstrip()
        for name, summary in rows
    ]
    if not rows:
        text.append("  (none)")
    if line.resources or line.templates:
        text += [
            "",
            "resources:",
            "  resources list          the resources and templates recorded at generation",
            "  resources read URI      read one",
        ]
    if line.prompts:
        text += [
            "",
            "prompts:",
            "  prompts list            the prompts recorded at generation",
            "  prompts get NAME --arg KEY=VALUE ...",
        ]
    if line.task_tools:
        text += [
            "",
            "tasks (tools that run as MCP tasks; `TOOL --no-wait` starts one and prints its id):",
            "  tasks list                   the tasks the server keeps",
            "  tasks status ID              a task's status, as JSON",
            "  tasks wait ID [--tool TOOL]  wait for it to end; its result as a call prints it",
            "  tasks cancel ID              cancel it",
        ]
    text += ["", "exit codes:"]
    text += [f"  {code:<3} {meaning}" for code, meaning in EXIT_CODES.items()]
    return "\n".join(text)


def dashed(name: str) -> str:
    """A name as flags are written: leading/trailing `_` dropped, the others `-` (`max_results`: `max-results`)."""
    return name.strip("_").replace("_", "-")


def find(
    commands: Sequence[CommandRow],
    name: str,
    tools: Mapping[str, ToolSpec[Any, Any]] | None = None,
) -> Command:
    """The command for `name`: its command name, the tool's wire or Python name, or one of those
    dashed as flags are (`search-objects` for `search_objects`); UsageError when none or several match.
    """

    def command(row: CommandRow) -> Command:
        options = tuple(Option._make(option) for option in row[3])
        return Command(row[0], row[1], row[2], options)

    def spellings(row: CommandRow) -> set[str]:
        spec = tools.get(row[1]) if tools is not None else None
        return {row[0], row[1], *([spec.python_name] if spec is not None else [])}

    for row in commands:
        if name in (row[0], row[1]):
            return command(row)
    exact = [row for row in commands if name in spellings(row)]
    if len(exact) == 1:
        return command(exact[0])
    wanted = dashed(name)
    loose = exact or [
        row for row in commands if wanted in {dashed(s) for s in spellings(row)}
    ]
    if len(loose) == 1:
        return command(loose[0])
    if loose:
        several = ", ".join(row[0] for row in loose)
        raise UsageError(f"tool {name!r} is ambiguous: it could be {several}")
    import difflib

    names = [row[0] for row in commands]
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else " (--help lists them)"
    raise UsageError(f"no tool {name!r}{hint}")


def tool_parser(
    line: CommandLine, command: Command, spec: ToolSpec[Any, Any]
) -> Parser:
    description = printable_lines(spec.description or spec.title or command.summary)
    parser = Parser(
        prog=f"{line.prog} {command.name}",
        description=description or None,
        formatter_class=Formatter,
        epilog="Lists: repeat the option. Objects: JSON text, or @FILE to read it. "
        "The result: JSON on stdout (text blocks as text).",
    )
    group = parser.add_argument_group("parameters") if command.options else parser
    for index, option in enumerate(command.options):
        _add_option(group, option, f"option_{index}")
    flags = {option.flag for option in command.options}
    parser.add_argument(
        "--json",
        dest="json_arguments",
        metavar="'{...}'",
        help="the whole arguments object as JSON (or @FILE); options given win",
    )
    if "--raw" not in flags:
        parser.add_argument(
            "--raw",
            dest="raw_output",
            action="store_true",
            help="print the whole result as JSON",
        )
    else:
        parser.set_defaults(raw_output=False)
    parser.set_defaults(task=False, no_wait=False)
    if spec.task_support != "forbidden":
        _add_task_options(parser, spec, flags)
    return parser


def _add_task_options(
    parser: Parser, spec: ToolSpec[Any, Any], flags: set[str]
) -> None:
    """`--task` (an optional task tool) and `--no-wait`: a tool that may run as an MCP task."""
    group = parser.add_argument_group(
        "task",
        "The tool runs as an MCP task"
        + (" (it requires one)" if spec.task_support == "required" else " when asked")
        + ": a call waits for it (its id and status lines on stderr); `tasks status|wait|cancel ID`"
        " follow one by id.",
    )
    if spec.task_support == "optional" and "--task" not in flags:
        group.add_argument(
            "--task",
            dest="task",
            action="store_true",
            help="run the call as a task and wait for it",
        )
    if "--no-wait" not in flags:
        group.add_argument(
            "--no-wait",
            dest="no_wait",
            action="store_true",
            help="start the task, print its id on stdout and exit",
        )


class _AddsArguments(Protocol):
    """An argument parser or one of its groups."""

    def add_argument(self, *names: str, **options: Any) -> argparse.Action: ...


def _add_option(
    parser: _AddsArguments,
    option: Option,
    dest: str,
) -> None:
    help_text = one_line(option.help, None)
    notes: list[str] = []
    if option.required:
        notes.append("required")
    if option.default is not None:
        notes.append(f"default {one_line(option.default, None)}")
    if option.repeated:
        notes.append("repeatable")
    if option.kind == "enum" and not _plain_choices(option):
        shown = ", ".join(json.dumps(value) for value in option.choices)
        notes.append(f"one of {one_line(shown, None)}")
    if notes:
        help_text = f"{help_text} ({'; '.join(notes)})".strip()
    if option.kind == "bool" and not option.repeated:
        parser.add_argument(
            option.flag,
            dest=dest,
            action=argparse.BooleanOptionalAction,
            default=None,
            help=help_text,
        )
        return
    convert = _converter(option)
    metavar = _metavar(option)
    if option.repeated:
        parser.add_argument(
            option.flag,
            dest=dest,
            action="append",
            type=convert,
            metavar=metavar,
            help=help_text,
        )
    else:
        parser.add_argument(
            option.flag, dest=dest, type=convert, metavar=metavar, help=help_text
        )


def _metavar(option: Option) -> str:
    if option.kind == "enum":
        if _plain_choices(option):
            return "{" + ",".join(_choice_text(value) for value in option.choices) + "}"
        return "CHOICE"
    return {
        "str": "TEXT",
        "int": "INT",
        "float": "NUMBER",
        "bool": "BOOL",
        "json": "JSON",
        "value": "VALUE",
    }.get(option.kind, "VALUE")


def _plain_choices(option: Option) -> bool:
    """Choices argparse can show as `{a,b}` (its usage line breaks on spaces and brackets)."""
    texts = [_choice_text(value) for value in option.choices]
    return sum(map(len, texts)) <= 60 and all(
        text
        and not text.startswith("-")
        and all(c.isalnum() or c in "_.:/@+=-" for c in text)
        for text in texts
    )


def _choice_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _converter(option: Option) -> Callable[[str], object]:
    kind = option.kind

    def convert(text: str) -> object:
        if kind == "str":
            return text
        if kind == "int":
            try:
                return int(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if kind == "float":
            try:
                number = float(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
            return int(number) if number.is_integer() and "." not in text else number
        if kind == "bool":
            if text.lower() in ("true", "1", "yes"):
                return True
            if text.lower() in ("false", "0", "no"):
                return False
            raise argparse.ArgumentTypeError(f"not true or false: {text!r}")
        if kind == "enum":
            for value in option.choices:
                if _choice_text(value) == text:
                    return value
            shown = ", ".join(_choice_text(value) for value in option.choices)
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {shown}")
        if kind == "json":
            try:
                return json_value(text, option.flag)
            except UsageError as error:
                raise argparse.ArgumentTypeError(
                    str(error).split(": ", 1)[-1]
                ) from None
        return _loose_value(text)

    convert.__name__ = option.kind  # argparse names the type in its messages
    return convert


def json_value(text: str, what: str) -> object:
    """JSON text, or `@FILE` holding it."""
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or type(error).__name__
            raise UsageError(f"{what}: cannot read {text[1:]} ({reason})") from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise UsageError(f"{what}: not valid JSON ({error})") from None


def _loose_value(text: str) -> object:
    """A parameter of no single type: JSON when it parses (`3`, `true`, `{...}`), else the text."""
    if text.startswith("@"):
        return json_value(text, "@FILE")
    try:
        return json.loads(text)
    except ValueError:
        return text


def check_arguments(
    spec: ToolSpec[Any, Any], command: Command, values: Mapping[str, object]
) -> None:
    """Check the arguments (by wire name) with the tool's schema before connecting: the first problems, each
    naming its option (the schema decides, as for every call; the values are never quoted).
    """
    problems = spec.arguments_check().problems(values)
    if not problems:
        return
    flags = {option.wire_name: option.flag for option in command.options}
    said: list[str] = []
    for item in problems[:3]:
        location = item["loc"]
        head = str(location[0]) if location else ""
        flag = flags.get(head) or _flag_by_python_name(command, head) or head
        path = "".join(f"[{part!r}]" for part in location[1:])
        said.append(f"{flag}{path}: {item['msg']}" if flag else item["msg"])
    raise UsageError("; ".join(said))


def _flag_by_python_name(command: Command, name: str) -> str | None:
    for option in command.options:
        if option.flag == "--" + dashed(name):
            return option.flag
    return None


def pairs(items: Sequence[str], what: str, separator: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for item in items:
        key, found, value = item.partition(separator)
        if not found or not key.strip():
            raise UsageError(f"{what} {key.strip()!r}: give NAME{separator}VALUE")
        pairs.append((key, value))
    return pairs
