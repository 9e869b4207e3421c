"""`generate --cli`'s agent skill (`SKILL.md`): its name, description, example and tool groups, from the table.

MCP Apps' app-only tools are left out: the skill is read by agents, and a host must not offer those to a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mcp_codegen.generate import ir
from mcp_codegen.generate.cli_table import cli_line
from mcp_codegen_runtime.command_line.table import Command


def skill_context(spec: ir.ClientSpec, package: str, label: str, commands: Sequence[Command]) -> dict[str, Any]:
    """What `cli/SKILL.md.jinja` says of the tools of `commands` that are offered to models."""
    app_only = {tool.wire_name for tool in spec.tools if tool.app_only}
    for_agents = [command for command in commands if command.wire_name not in app_only]
    task_tools = {tool.wire_name for tool in spec.tools if tool.task_support}
    return {
        "skill_name": _skill_name(package),
        "skill_description": _front_matter_string(
            f"Call the tools of the {cli_line(label, 100)} MCP server from the command line "
            f"(python -m {package}): {len(for_agents)} tool{'' if len(for_agents) == 1 else 's'}, "
            "results as JSON. Use it to list the tools, read their parameters and call them."
        ),
        "example": _cli_example(package, for_agents, example_tool(spec.tools)),
        "tool_groups": _tool_groups(for_agents, {tool.wire_name: tool.read_only for tool in spec.tools}),
        "task_commands": [command for command in for_agents if command.wire_name in task_tools],
    }


def example_tool(tools: Sequence[ir.Tool]) -> ir.Tool | None:
    """The tool an example calls: one a model may call (not app-only), read-only first, then one marked not
    destructive, then one without the hint, then a destructive one; alphabetical within each."""

    def rank(tool: ir.Tool) -> tuple[bool, int, str]:
        safety = 0 if tool.read_only is True else {False: 1, None: 2, True: 3}[tool.destructive]
        return (tool.app_only, safety, tool.python_name)

    return min(tools, key=rank, default=None)


def _skill_name(package: str) -> str:
    """An agent skill's name: lowercase letters, digits and hyphens (at most 64)."""
    name = re.sub(r"[^a-z0-9]+", "-", package.lower()).strip("-")
    return (name or "mcp-client")[:64].rstrip("-")


def _front_matter_string(text: str) -> str:
    """A YAML double-quoted scalar on one line: control characters dropped, quotes and backslashes escaped."""
    return json.dumps(cli_line(text, 1000), ensure_ascii=False)


def _tool_groups(commands: Sequence[Command], read_only: Mapping[str, bool | None]) -> list[tuple[str, list[Command]]]:
    """The tools for SKILL.md: read-only ones, then those that may change things, then the undeclared."""
    hints = [(c, read_only.get(c.wire_name)) for c in commands]
    groups = [
        ("Read-only", [c for c, hint in hints if hint is True]),
        ("May change things", [c for c, hint in hints if hint is False]),
        ("Other tools (no read-only hint)", [c for c, hint in hints if hint is None]),
    ]
    kept = [(heading, group) for heading, group in groups if group]
    return [("", kept[0][1])] if len(kept) == 1 else kept


_PLACEHOLDERS = {"str": "TEXT", "int": "1", "float": "1.5", "bool": "", "json": "'{...}'", "value": "VALUE"}


def _cli_example(package: str, commands: Sequence[Command], tool: ir.Tool | None) -> str | None:
    """`python -m PKG TOOL --required PLACEHOLDER ...` for `tool`'s command, else the first (placeholders only: no
    server text)."""
    if not commands:
        return None
    command = next((c for c in commands if tool is not None and c.wire_name == tool.wire_name), commands[0])
    words = ["python", "-m", package, command.name]
    for option in command.options:
        if option.required:
            value = "CHOICE" if option.kind == "enum" else _PLACEHOLDERS.get(option.kind, "VALUE")
            words += [option.flag, value] if value else [option.flag]
    text = " ".join(words)
    return text if "`" not in text and "\n" not in text else None
