"""The command line of a generated package (`python -m PKG`): parse, call, print the result as JSON.

The generated `__main__.py` passes a table of its tools (`Command`, `Option`: plain data written at
generation), so `--help` builds its parser without importing models or `mcp`; a tool's parser is built
only when that tool is named, and models, `anyio` and the SDK are imported only to make the call.
Arguments are checked against the tool's model before anything is sent. Exit codes: `EXIT_CODES`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, NoReturn, Protocol, cast

if TYPE_CHECKING:
    from .client import AsyncClientBase
    from .results import ToolResult
    from .specs import PromptSpec, ResourceSpec, TemplateSpec, ToolSpec

__all__ = [
    "EXIT_CODES",
    "Command",
    "CommandLine",
    "CommandRow",
    "Option",
    "OptionRow",
    "main",
]

EXIT_OK = 0
#: The tool ran and reported failure (`isError`): its text on stderr (`--raw`: the result on stdout).
EXIT_TOOL_ERROR = 1
#: Bad command line or arguments: nothing was sent (the server was not contacted).
EXIT_USAGE = 2
#: The server could not be started or reached, or the connection failed or timed out.
EXIT_CONNECTION = 3
#: The server answered with an error (unknown tool, resource or prompt, a protocol error).
EXIT_SERVER = 4
#: A bug (an unexpected exception): one line naming it.
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130

#: What each exit code of a generated command line means.
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "success: the result on stdout",
    EXIT_TOOL_ERROR: "the tool ran and reported an error (`isError`): its text on stderr",
    EXIT_USAGE: "bad command line or arguments (the parameter is named): nothing was sent",
    EXIT_CONNECTION: "the server could not be started or reached, or the connection failed or timed out",
    EXIT_SERVER: "the server answered with an error (unknown tool, resource or prompt; protocol error)",
    EXIT_INTERNAL: "an unexpected error (a bug): one line naming it",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}

_GLOBAL_VALUES = frozenset({"--stdio", "--url", "--header", "--env", "--timeout"})
_GLOBAL_FLAGS = frozenset({"--raw", "-v", "--verbose", "-h", "--help"})


class Option(NamedTuple):
    """One parameter of a tool as a command-line option (written by the generator)."""

    wire_name: str
    flag: str
    #: "str", "int", "float", "bool", "enum", "json" or "value" (JSON if it parses, else text).
    kind: str
    #: A list: the option is repeated, one item each time.
    repeated: bool
    required: bool
    help: str
    #: The schema's default as JSON text, shown in the help (the server applies it).
    default: str | None
    choices: tuple[Choice, ...]


class Command(NamedTuple):
    """One tool as a command (written by the generator)."""

    name: str
    wire_name: str
    #: The first line of the tool's description.
    summary: str
    options: tuple[Option, ...]


Choice = str | int | float | bool | None
#: An `Option` as the generated table writes it: a plain tuple (a constant of the module's bytecode).
OptionRow = tuple[str, str, str, bool, bool, str, str | None, tuple[Choice, ...]]
#: A `Command` as the generated table writes it: (name, wire name, summary, options).
CommandRow = tuple[str, str, str, tuple[OptionRow, ...]]


@dataclass(frozen=True)
class CommandLine:
    """What the command line of one package needs: its client class and specs."""

    prog: str
    label: str
    client: type[AsyncClientBase]
    tools: Mapping[str, ToolSpec[Any, Any]]
    prompts: Mapping[str, PromptSpec]
    resources: Mapping[str, ResourceSpec]
    templates: Mapping[str, TemplateSpec]
    #: The launch recorded at generation (`specs.LAUNCH`); None: `--stdio` or `--url` is needed.
    launch: Mapping[str, Any] | None


class _UsageError(Exception):
    """A bad command line: one line, exit code 2, nothing sent."""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help text printed as given: server text is never %-formatted (a `%` in a description is only a `%`)."""

    def _expand_help(self, action: argparse.Action) -> str:
        return action.help or ""

    def _format_text(self, text: str) -> str:
        width = max(self._width - self._current_indent, 11)
        return self._fill_text(text, width, " " * self._current_indent) + "\n\n"


class _Parser(argparse.ArgumentParser):
    """argparse whose errors become one `_UsageError` line instead of exiting."""

    def __init__(self, **options: Any) -> None:
        # No abbreviations: `--ci` must not silently mean `--city` (nor a later parameter's prefix).
        super().__init__(allow_abbrev=False, **options)

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _printable(text: str) -> str:
    """Server text for a terminal: control characters (escape sequences) dropped, line breaks kept."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(
        "".join(c if c.isprintable() or c == "\t" else " " for c in line).rstrip()
        for line in lines
    ).strip("\n")


def _one_line(text: str) -> str:
    return " ".join(_printable(text).split())


def main(
    line: CommandLine, commands: Sequence[CommandRow], argv: Sequence[str] | None = None
) -> int:
    """Run the command line on `argv` (default: `sys.argv[1:]`); returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(line, commands, arguments)
    except _UsageError as error:
        print(f"{line.prog}: error: {_one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{line.prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - one line, never a traceback
        message = _one_line(str(error))
        print(
            f"{line.prog}: internal error: {type(error).__name__}: {message}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _split_globals(arguments: list[str]) -> int:
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
            raise _UsageError(
                f"unknown option {word} (options before the tool name: "
                f"{', '.join(sorted(_GLOBAL_VALUES | _GLOBAL_FLAGS))})"
            )
        else:
            return index
    return index


def _global_parser(line: CommandLine, commands: Sequence[CommandRow]) -> _Parser:
    parser = _Parser(
        prog=line.prog,
        usage=f"{line.prog} [options] TOOL [--param VALUE ...]",
        description=f"Call the tools of the {line.label} MCP server from the command line.",
        epilog=_listing(line, commands),
        formatter_class=_Formatter,
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
    output = parser.add_argument_group("output")
    output.add_argument(
        "--raw", action="store_true", help="print the whole result as JSON"
    )
    output.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show the server's own stderr (a stdio server's)",
    )
    return parser


def _listing(line: CommandLine, commands: Sequence[CommandRow]) -> str:
    rows = [(c[0], c[2]) for c in commands]
    width = min(max((len(name) for name, _ in rows), default=0), 30)
    text = ["tools (`TOOL --help` shows its parameters):"]
    text += [
        f"  {name:<{width}}  {_one_line(summary)}".rstrip() for name, summary in rows
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
    text += ["", "exit codes:"]
    text += [f"  {code:<3} {meaning}" for code, meaning in EXIT_CODES.items()]
    return "\n".join(text)


def _main(
    line: CommandLine, commands: Sequence[CommandRow], arguments: list[str]
) -> int:
    index = _split_globals(arguments)
    parser = _global_parser(line, commands)
    options = parser.parse_args(arguments[:index])
    rest = arguments[index:]
    if not rest:
        parser.print_usage(sys.stderr)
        raise _UsageError("no tool given (--help lists them)")
    name, rest = rest[0], rest[1:]
    if options.stdio and options.url:
        raise _UsageError("give one of --stdio and --url")
    if name == "resources" and (line.resources or line.templates):
        return _resources(line, options, rest)
    if name == "prompts" and line.prompts:
        return _prompts(line, options, rest)
    command = _find(commands, name)
    return _tool(line, command, options, rest)


def _find(commands: Sequence[CommandRow], name: str) -> Command:
    for row in commands:
        if name in (row[0], row[1]):
            options = tuple(Option._make(option) for option in row[3])
            return Command(row[0], row[1], row[2], options)
    import difflib

    names = [row[0] for row in commands]
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else " (--help lists them)"
    raise _UsageError(f"no tool {name!r}{hint}")


# ------------------------------------------------------------------------------------ tools


def _tool(
    line: CommandLine, command: Command, options: argparse.Namespace, rest: list[str]
) -> int:
    spec = line.tools[command.wire_name]
    parser = _tool_parser(line, command, spec)
    parsed = parser.parse_args(rest)
    raw = bool(options.raw or parsed.raw_output)
    values: dict[str, Any] = {}
    if parsed.json_arguments is not None:
        whole = _json_value(parsed.json_arguments, "--json")
        if not isinstance(whole, dict):
            raise _UsageError("--json: the arguments must be a JSON object")
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
        raise _UsageError(
            f"{', '.join(missing)} {what} required (or give it in --json)"
        )
    _check_arguments(spec, command, values)

    async def call(client: Any) -> int:
        from .errors import ToolError

        try:
            result: ToolResult = await client.call_spec_result(spec, values)
        except ToolError as error:
            if raw:
                _print_json(_dump(error.result.raw))
            message = _one_line(error.result.text) or "the tool reported an error"
            print(f"{line.prog} {command.name}: {message}", file=sys.stderr)
            return EXIT_TOOL_ERROR
        if raw:
            _print_json(_dump(result.raw))
            return EXIT_OK
        structured = result.structured
        if structured is not None:
            if spec.unwrap_result and len(structured) == 1:
                _print_json(next(iter(structured.values())))
            else:
                _print_json(structured)
        else:
            _print_blocks(line, result.raw.content)
        return EXIT_OK

    return _connected(line, options, call)


def _tool_parser(
    line: CommandLine, command: Command, spec: ToolSpec[Any, Any]
) -> _Parser:
    description = _printable(spec.description or spec.title or command.summary)
    parser = _Parser(
        prog=f"{line.prog} {command.name}",
        description=description or None,
        formatter_class=_Formatter,
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
    return parser


class _AddsArguments(Protocol):
    """An argument parser or one of its groups."""

    def add_argument(self, *names: str, **options: Any) -> argparse.Action: ...


def _add_option(
    parser: _AddsArguments,
    option: Option,
    dest: str,
) -> None:
    help_text = _one_line(option.help)
    notes: list[str] = []
    if option.required:
        notes.append("required")
    if option.default is not None:
        notes.append(f"default {_one_line(option.default)}")
    if option.repeated:
        notes.append("repeatable")
    if option.kind == "enum" and not _plain_choices(option):
        shown = ", ".join(json.dumps(value) for value in option.choices)
        notes.append(f"one of {_one_line(shown)}")
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
                return _json_value(text, option.flag)
            except _UsageError as error:
                raise argparse.ArgumentTypeError(
                    str(error).split(": ", 1)[-1]
                ) from None
        return _loose_value(text)

    convert.__name__ = option.kind  # argparse names the type in its messages
    return convert


def _json_value(text: str, what: str) -> object:
    """JSON text, or `@FILE` holding it."""
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or type(error).__name__
            raise _UsageError(f"{what}: cannot read {text[1:]} ({reason})") from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise _UsageError(f"{what}: not valid JSON ({error})") from None


def _loose_value(text: str) -> object:
    """A parameter of no single type: JSON when it parses (`3`, `true`, `{...}`), else the text."""
    if text.startswith("@"):
        return _json_value(text, "@FILE")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _check_arguments(
    spec: ToolSpec[Any, Any], command: Command, values: Mapping[str, object]
) -> None:
    """Validate with the tool's model before connecting: the first problems, each naming its option."""
    from pydantic import ValidationError

    try:
        spec.arguments_model.model_validate(dict(values))
    except ValidationError as error:
        flags = {option.wire_name: option.flag for option in command.options}
        problems: list[str] = []
        for item in error.errors(include_url=False, include_input=False)[:3]:
            location = item["loc"]
            head = str(location[0]) if location else ""
            flag = flags.get(head) or _flag_by_python_name(command, head) or head
            path = "".join(f"[{part!r}]" for part in location[1:])
            problems.append(f"{flag}{path}: {item['msg']}" if flag else item["msg"])
        raise _UsageError("; ".join(problems)) from None


def _flag_by_python_name(command: Command, name: str) -> str | None:
    for option in command.options:
        if option.flag == "--" + name.strip("_").replace("_", "-"):
            return option.flag
    return None


# ----------------------------------------------------------------- resources and prompts


def _resources(line: CommandLine, options: argparse.Namespace, rest: list[str]) -> int:
    parser = _Parser(prog=f"{line.prog} resources", formatter_class=_Formatter)
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
        _print_json(listing)
        return EXIT_OK
    uri: str = parsed.uri

    async def read_one(client: Any) -> int:
        result = await client.read_resource(uri)
        if options.raw:
            _print_json(_dump(result.raw))
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

    return _connected(line, options, read_one)


def _prompts(line: CommandLine, options: argparse.Namespace, rest: list[str]) -> int:
    parser = _Parser(prog=f"{line.prog} prompts", formatter_class=_Formatter)
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
        _print_json(
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
        raise _UsageError(f"no prompt {parsed.name!r} (`prompts list` lists them)")
    known = {wire for wire, _python, _required in spec.arguments}
    values: dict[str, str] = {}
    for pair in parsed.arg:
        key, equals, value = pair.partition("=")
        if not equals:
            raise _UsageError(f"--arg {pair!r}: give KEY=VALUE")
        if key not in known:
            raise _UsageError(
                f"--arg {key}: prompt {spec.name!r} has no such argument "
                f"(it takes: {', '.join(sorted(known)) or 'none'})"
            )
        values[key] = value
    missing = [w for w, _p, required in spec.arguments if required and w not in values]
    if missing:
        raise _UsageError(f"--arg {missing[0]}=... is required")
    name = spec.name

    async def get_one(client: Any) -> int:
        result = await client.get_prompt(name, values)
        if options.raw:
            _print_json(_dump(result.raw))
        else:
            print(result.text)
        return EXIT_OK

    return _connected(line, options, get_one)


# ---------------------------------------------------------------------- connecting


def _connection(line: CommandLine, options: argparse.Namespace) -> Any:
    client = line.client
    stderr: Literal["discard"] | None = None if options.verbose else "discard"
    if options.stdio:
        import shlex

        words = shlex.split(options.stdio)
        if not words:
            raise _UsageError("--stdio: the command is empty")
        env = dict(_pairs(options.env, "--env", "="))
        return client.stdio(
            words[0], words[1:], env=env, timeout=options.timeout, stderr=stderr
        )
    if options.url:
        headers = {
            k.strip(): v.strip() for k, v in _pairs(options.header, "--header", ":")
        }
        return client.http(options.url, headers=headers, timeout=options.timeout)
    if options.header or options.env:
        raise _UsageError("--header goes with --url, --env with --stdio")
    if line.launch is None:
        raise _UsageError(
            "this package recorded no server launch: give --stdio CMD or --url URL"
        )
    return client.connect(timeout=options.timeout, stderr=stderr)


def _pairs(items: Sequence[str], what: str, separator: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for item in items:
        key, found, value = item.partition(separator)
        if not found or not key.strip():
            raise _UsageError(f"{what} {key.strip()!r}: give NAME{separator}VALUE")
        pairs.append((key, value))
    return pairs


def _connected(
    line: CommandLine,
    options: argparse.Namespace,
    work: Callable[[Any], Awaitable[int]],
) -> int:
    """Connect, run `work(client)`, close; errors become one line and an exit code."""
    connection = _connection(line, options)

    async def run() -> int:
        async with connection as client:
            return await work(client)

    import anyio

    from .errors import (
        ArgumentsValidationError,
        ConnectError,
        ConnectionClosedError,
        McpClientError,
        RequestTimeoutError,
    )

    try:
        return anyio.run(run)
    except ArgumentsValidationError as error:
        print(f"{line.prog}: error: {_one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except (ConnectError, ConnectionClosedError, RequestTimeoutError) as error:
        print(
            f"{line.prog}: cannot reach the server: {_one_line(str(error))}",
            file=sys.stderr,
        )
        return EXIT_CONNECTION
    except McpClientError as error:
        print(f"{line.prog}: server error: {_one_line(str(error))}", file=sys.stderr)
        return EXIT_SERVER


def _dump(model: Any) -> object:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _print_json(value: object) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _print_blocks(line: CommandLine, blocks: Sequence[Any]) -> None:
    for block in blocks:
        if block.type == "text":
            print(block.text)
        else:
            kind = getattr(block, "mime_type", None) or block.type
            print(f"{line.prog}: a {kind} block is not shown (--raw)", file=sys.stderr)
