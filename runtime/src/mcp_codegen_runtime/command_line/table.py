"""What the generated `__main__.py` tables describe (tools, options) and the exit codes of the command line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..calls.specs import PromptSpec, ResourceSpec, TemplateSpec, ToolSpec
    from ..client.base import AsyncClientBase


#: An enum value an option may take.
Choice = str | int | float | bool | None

EXIT_OK = 0


#: The tool ran and reported failure (`isError`): its text on stderr (`--raw`: the result on stdout).
EXIT_TOOL_ERROR = 1


#: Bad command line or arguments: nothing was sent (the server was not contacted).
EXIT_USAGE = 2


#: The server could not be started or reached, or the connection failed or timed out (retries spent): the
#: call was not processed, or (a timeout) it may still be running.
EXIT_CONNECTION = 3


#: The server answered with an error (unknown tool, resource or prompt, a protocol error).
EXIT_SERVER = 4


#: The connection failed after the call was sent and no answer came: the tool may have run. It was not sent
#: again, as it is not marked read-only or idempotent; check the server's state before running it again.
EXIT_OUTCOME_UNKNOWN = 5


#: The tool ran as an MCP task and the task was cancelled (by the server, `tasks cancel` or another
#: client) before it had a result.
EXIT_TASK_CANCELLED = 6


#: A bug (an unexpected exception): one line naming it.
EXIT_INTERNAL = 70


EXIT_INTERRUPTED = 130


#: The command line's groups beside its tools (`run.py` answers these names first, when the server has what the
#: group lists): a tool's command is never given one of these names.
GROUP_COMMANDS = frozenset({"resources", "prompts", "skills", "tasks"})


#: What each exit code of a generated command line means.
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "success: the result on stdout",
    EXIT_TOOL_ERROR: "the tool ran and reported an error (`isError`): its text on stderr",
    EXIT_USAGE: "bad command line or arguments (the parameter is named): nothing was sent",
    EXIT_CONNECTION: (
        "the server could not be started or reached, was unavailable (HTTP 408, 429, 502, 503, 504), or the"
        " connection failed or timed out, retries spent"
        " (the call was not processed; after a timeout it may still be running)"
    ),
    EXIT_SERVER: (
        "the server answered with an error (unknown tool, resource, prompt or task id; protocol error), or a"
        " skill's file did not match its digest or size"
    ),
    EXIT_OUTCOME_UNKNOWN: (
        "the connection failed after the call was sent: the tool may have run (not sent again, as it is"
        " not read-only or idempotent); check before running it again"
    ),
    EXIT_TASK_CANCELLED: (
        "the tool ran as a task and the task was cancelled (by the server, `tasks cancel` or another"
        " client) before it had a result"
    ),
    EXIT_INTERNAL: "an unexpected error (a bug): one line naming it",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


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
    #: The wire names of the tools that may run as MCP tasks (written at generation, so `--help` and
    #: the `tasks` commands need not read the snapshot).
    task_tools: frozenset[str] = frozenset()
    #: The skills at generation (`specs.SKILLS`), or None: the server offered no skills (no `skills` command).
    skills: Mapping[str, str] | None = None


class UsageError(Exception):
    """A bad command line: one line, exit code 2, nothing sent."""
