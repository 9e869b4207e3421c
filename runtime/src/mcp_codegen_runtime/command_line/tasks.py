"""Tools that run as MCP tasks on the command line: a call that waits (status lines on stderr), `--no-wait`,
and the `tasks` commands (`list`, `status ID`, `wait ID`, `cancel ID`).

Imported only when a task tool is called or `tasks` is named: plain calls and `--help` never load it.
Status lines go to stderr (the task id once, then each change of status or message), so stdout is
the result only, as for any call.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..text import one_line
from .connect import connected
from .output import print_json, print_result
from .parsing import Formatter, Parser, find
from .table import EXIT_OK, CommandLine, CommandRow, UsageError

if TYPE_CHECKING:
    import mcp_types

    from ..calls.specs import ToolSpec
    from ..calls.tasks import TaskProtocol, TaskState

__all__ = ["StatusLines", "run_task_call", "state_json", "tasks_command"]


class StatusLines:
    """Status lines on stderr: `prefix: task ID` once, then `prefix: STATUS: MESSAGE` per state seen."""

    __slots__ = ("last", "prefix")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.last: TaskState | None = None

    async def show(self, state: TaskState) -> None:
        if self.last is None:
            task_id = one_line(state.task_id)
            print(f"{self.prefix}: task {task_id}", file=sys.stderr, flush=True)
        self.last = state
        message = f": {one_line(state.message)}" if state.message else ""
        print(f"{self.prefix}: {state.status}{message}", file=sys.stderr, flush=True)

    def ended(self, result: mcp_types.CallToolResult) -> mcp_types.CallToolResult:
        """The last line when the result came before a poll saw the task end: `tasks/result` answers
        only once it has (`failed` for a result with `isError`)."""
        if self.last is not None and not self.last.terminal:
            status = "failed" if result.is_error else "completed"
            print(f"{self.prefix}: {status}", file=sys.stderr, flush=True)
        return result


def state_json(state: TaskState) -> dict[str, object]:
    """A task's state as the wire's `Task` writes it (camelCase keys, `ttl` and `pollInterval` in ms)."""
    shown: dict[str, object] = {"taskId": state.task_id, "status": state.status}
    if state.message is not None:
        shown["statusMessage"] = state.message
    if state.created_at is not None:
        shown["createdAt"] = state.created_at
    if state.last_updated_at is not None:
        shown["lastUpdatedAt"] = state.last_updated_at
    shown["ttl"] = None if state.ttl is None else round(state.ttl * 1000)
    if state.poll_interval is not None:
        shown["pollInterval"] = round(state.poll_interval * 1000)
    return shown


async def run_task_call(
    client: Any,
    spec: ToolSpec[Any, Any],
    values: Mapping[str, object],
    *,
    prefix: str,
    wait: bool,
) -> mcp_types.CallToolResult | None:
    """Call the tool as a task: with `wait`, follow it to its end (status lines on stderr) and return its
    result; without, print its id on stdout and return None. A server that runs the call at once
    (no task) gives its result either way. The call owns its task: Ctrl-C while waiting cancels it.
    """
    from ..calls.errors import UnsupportedByServerError
    from ..calls.tasks import TaskState
    from ..client.task_handles import wait_with_deadline

    try:
        protocol: TaskProtocol = client._task_protocol()
    except UnsupportedByServerError:
        if not wait:
            raise
        # A connection whose tasks are not held as handles (the 2026-07-28 extension): the typed
        # call path still follows the task to its end, without status lines.
        from ..calls.errors import ToolError

        try:
            result = await client.call_spec_result(spec, values)
        except ToolError as error:
            return error.result.raw
        answer: mcp_types.CallToolResult = result.raw
        return answer
    payload = client._wire_arguments(spec, values, None)
    started = await protocol.start(spec.name, payload)
    if not isinstance(started, TaskState):
        print(f"{prefix}: the server ran the call at once (no task)", file=sys.stderr)
        return started
    if not wait:
        print(started.task_id, flush=True)
        return None
    lines = StatusLines(prefix)
    result = await wait_with_deadline(
        protocol,
        started,
        tool=spec.name,
        limit=None,
        on_status=lines.show,
        cancel_on_exit=True,
    )
    return lines.ended(result)


#: What may follow `tasks ACTION` besides the id: an id that starts with "-" is none of these.
_TASK_OPTIONS = ("-h", "--help", "--tool", "--raw")


def _id_last(rest: list[str]) -> list[str]:
    """`rest` with an id that starts with "-" (servers make ids of any characters) moved after "--": argparse
    would take it for an option otherwise. Only the word right after the action is an id.
    """
    if len(rest) < 2 or rest[0] not in ("status", "wait", "cancel"):
        return rest
    word = rest[1]
    if (
        not word.startswith("-")
        or word == "--"
        or word.split("=", 1)[0] in _TASK_OPTIONS
    ):
        return rest
    return [rest[0], *rest[2:], "--", word]


def tasks_command(
    line: CommandLine,
    commands: Sequence[CommandRow],
    options: argparse.Namespace,
    rest: list[str],
) -> int:
    """`tasks list`, `tasks status ID`, `tasks wait ID [--tool NAME] [--raw]`, `tasks cancel ID`."""
    parser = Parser(
        prog=f"{line.prog} tasks",
        formatter_class=Formatter,
        description="Tasks by id: those a `TOOL --no-wait` started, or any the server keeps. The server"
        " must keep tasks across connections (an HTTP server, `--url`): a stdio server started for one"
        " command forgets them when it ends.",
    )
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="{list,status,wait,cancel}"
    )
    actions.add_parser("list", help="the tasks the server keeps, as JSON")
    status = actions.add_parser("status", help="a task's status, as JSON")
    status.add_argument("task_id", metavar="ID")
    wait = actions.add_parser(
        "wait", help="wait for a task to end and print its result like a call"
    )
    wait.add_argument("task_id", metavar="ID")
    wait.add_argument(
        "--tool",
        metavar="NAME",
        help="the task's tool: its result is printed as a call of it prints it",
    )
    wait.add_argument(
        "--raw", action="store_true", help="print the whole result as JSON"
    )
    cancel = actions.add_parser("cancel", help="cancel a task; prints its state")
    cancel.add_argument("task_id", metavar="ID")
    parsed = parser.parse_args(_id_last(rest))
    action: str = parsed.action
    prefix = f"{line.prog} tasks {action}"

    if action == "list":

        async def list_all(client: Any) -> int:
            states = await client.tasks.list()
            print_json([state_json(state) for state in states])
            return EXIT_OK

        return connected(line, options, list_all)
    task_id: str = parsed.task_id
    if not task_id.strip():
        raise UsageError("the task id is empty")
    if action == "status":

        async def status_of(client: Any) -> int:
            print_json(state_json(await client.tasks.resume(task_id).status()))
            return EXIT_OK

        return connected(line, options, status_of)
    if action == "cancel":

        async def cancel_it(client: Any) -> int:
            print_json(state_json(await client.tasks.resume(task_id).cancel()))
            return EXIT_OK

        return connected(line, options, cancel_it)
    spec: ToolSpec[Any, Any] | None = None
    if parsed.tool is not None:
        spec = line.tools[find(commands, parsed.tool, line.tools).wire_name]
    raw = bool(options.raw or parsed.raw)

    async def wait_for(client: Any) -> int:
        from ..client.task_handles import follow_task

        protocol: TaskProtocol = client._task_protocol()
        state = await protocol.get(task_id)
        lines = StatusLines(prefix)
        result = await follow_task(
            protocol,
            state,
            tool=spec.name if spec is not None else None,
            on_status=lines.show,
        )
        return print_result(line, prefix, spec, lines.ended(result), raw)

    return connected(line, options, wait_for)
