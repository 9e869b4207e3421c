"""Writes the blocking twin's methods (mcp_codegen_runtime/client/sync_client.py) from the async client's parts.

Every public method of the async client's parts gets a blocking twin with the same signature and
docstring: a coroutine method runs on the client's event-loop thread (`self._run`), a connector
returns a `SyncConnection`, a plain method or property is forwarded. What `BlockingCore` writes by
hand (the event-loop plumbing, `with_options`, `tools`, ...) is left out, as is what only makes
sense on the loop (`aclose`, `session`) and what is documented as internal.

    python scripts/gen_blocking.py           # rewrite sync_client.py
    python scripts/gen_blocking.py --check   # exit 1 when sync_client.py is not current
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[1] / "runtime" / "src" / "mcp_codegen_runtime" / "client"
TARGET = CLIENT / "sync_client.py"
#: The async client's parts, in the order their twins appear.
PARTS = ("connectors", "replaying", "core", "server_features", "tool_calls", "agent_tools", "code_calls")
#: Not mirrored: only meaningful on the event loop (`aclose`: the twin has `close()`; `session`:
#: it belongs to the loop's thread) or a class-level helper for agent tools.
LOOP_ONLY = {"aclose", "session", "toolset_for"}


def _class_of(module: ast.Module) -> ast.ClassDef:
    return next(node for node in module.body if isinstance(node, ast.ClassDef))


def _hand_written() -> set[str]:
    tree = ast.parse((CLIENT / "blocking.py").read_text(encoding="utf-8"))
    core = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BlockingCore")
    return {n.name for n in core.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {ast.unparse(d) for d in node.decorator_list}


def _blocking_docstring(text: str) -> str:
    text = text.replace("async with AsyncClient.", "with Client.")
    text = text.replace("async context managers", "context managers")
    text = re.sub(r"\bawait ", "", text)
    return text


def _call_arguments(args: ast.arguments) -> str:
    parts = [a.arg for a in [*args.posonlyargs, *args.args][1:]]
    if args.vararg is not None:
        parts.append(f"*{args.vararg.arg}")
    parts += [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    if args.kwarg is not None:
        parts.append(f"**{args.kwarg.arg}")
    return ", ".join(parts)


def _twin(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    decorators = _decorators(node)
    docstring = ast.get_docstring(node, clean=False)
    if node.name.startswith("_") or node.name in LOOP_ONLY:
        return None
    if docstring is not None and docstring.startswith("Internal"):
        return None
    returns = ast.unparse(node.returns) if node.returns is not None else "None"
    signature = ast.unparse(node.args)
    call = _call_arguments(node.args)
    if "classmethod" in decorators:
        if not returns.startswith("AsyncConnection["):
            return None
        returns = returns.replace("AsyncConnection[", "SyncConnection[", 1)
        body = (
            "async_class = cls._async_class\n"
            f"return SyncConnection(cls, lambda: async_class.{node.name}({call}))"
        )
        head = f"@classmethod\ndef {node.name}({signature}) -> {returns}:"
    elif "property" in decorators:
        head = f"@property\ndef {node.name}({signature}) -> {returns}:"
        body = f"return self._async.{node.name}"
    elif isinstance(node, ast.AsyncFunctionDef):
        head = f"def {node.name}({signature}) -> {returns}:"
        run = f"self._run(self._async.{node.name}{', ' if call else ''}{call})"
        body = run if returns == "None" else f"return {run}"
    else:
        head = f"def {node.name}({signature}) -> {returns}:"
        body = f"return self._async.{node.name}({call})"
    doc = ""
    if docstring is not None:
        doc = '"""' + _blocking_docstring(docstring) + '"""\n'
    return head + "\n" + _indent(doc + body, 4)


def _indent(text: str, width: int) -> str:
    pad = " " * width
    return "\n".join(pad + line if line.strip() else line for line in text.split("\n"))


def _type_checking_imports(parts: dict[str, ast.Module], used: set[str]) -> list[str]:
    """The imports (from the parts' own) that the copied annotations need."""
    found: dict[tuple[int, str], set[str]] = {}
    plain: set[str] = set()
    for tree in parts.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module not in ("__future__", "typing"):
                for alias in node.names:
                    if (alias.asname or alias.name) in used:
                        found.setdefault((node.level, node.module or ""), set()).add(alias.name)
            elif isinstance(node, ast.Import):
                plain.update(a.name for a in node.names if a.name.split(".")[0] in used)
    for part, tree in parts.items():  # aliases the parts define, e.g. `ClientInfo`
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id in used and not node.targets[0].id.startswith("_"):
                    found.setdefault((1, part), set()).add(node.targets[0].id)
    lines = [f"import {name}" for name in sorted(plain)]
    for (level, module), names in sorted(found.items()):
        lines.append(f"from {'.' * level}{module} import {', '.join(sorted(names))}")
    return lines


def render() -> str:
    trees = {part: ast.parse((CLIENT / f"{part}.py").read_text(encoding="utf-8")) for part in PARTS}
    skip = _hand_written()
    methods: list[str] = []
    annotations: list[str] = []
    for tree in trees.values():
        for node in _class_of(tree).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name in skip:
                continue
            twin = _twin(node)
            if twin is not None:
                methods.append(twin)
                annotations.append(ast.unparse(node.args) + " " + (ast.unparse(node.returns) if node.returns else ""))
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(annotations)))
    imports = _type_checking_imports(trees, used - {"Self", "Any", "Literal", "Union"})
    typing_names = sorted({"Any", "Literal"} & used)
    source = f'''"""The blocking client: written by scripts/gen_blocking.py from the async client's parts (do not edit).

Each method is the async client's method of the same name and signature, run on the client's own
event-loop thread (`BlockingCore`); the docstrings are the async ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, {", ".join(typing_names)}

from .blocking import AsyncT, BlockingCore, SyncConnection

if TYPE_CHECKING:
    from typing import Self

{_indent(chr(10).join(imports), 4)}

__all__ = ["SyncClientBase"]


class SyncClientBase(BlockingCore[AsyncT]):
    """A blocking MCP client; the generated `Client` adds one method per tool that forwards to `_async`.

    Create one with `stdio()`, `http()` or `connect()` (context managers; `.open()` works without
    `with`, then `close()`). One client may be used from several threads at once.
    `with_options()` gives a view of the same client whose calls use per-call options.
    """

    __slots__ = ()

{_indent(chr(10).join(chr(10) + m for m in methods).strip(chr(10)), 4)}
'''
    used.discard("AsyncConnection")  # a connector's return type becomes SyncConnection
    sorted_imports = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "I,F401", "--fix", "-q", "--stdin-filename", str(TARGET), "-"],
        input=source,
        capture_output=True,
        text=True,
    ).stdout
    return subprocess.run(
        [sys.executable, "-m", "black", "-q", "-l", "88", "-"],
        input=sorted_imports,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is not current: run python scripts/gen_blocking.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
