"""`code_api.pyi` as one piece per tool, each tool's stub text kept in the cache and replayed while it still holds.

The stub writer (`code_api.StubWriter`) takes the tools in order and shares three things between them: the
class names taken (a name is numbered when taken), the classes already written (an identical class is reused)
and the typing names used. A tool's text depends on the others only through what it asked of the first two, so
its entry (`code-api/`, one per server, keyed by its schemas' prepared digest and its IR) records, in order,
every question (`name in taken`, `bodies.get(stem, shape)`) with its answer and every change it made (names
taken and given back, classes defined and written, typing names used). A later run replays the entry when every
question gets the same answer now, making the same changes; else (a tool before it took a name it had) the
tool's text is made again, recorded. Either way the result is what the writer gives.

The file is a `PieceFile` (`pieces.py`): a skeleton with a slot for each tool's classes and one for its function,
formatted as a stub (`.pyi`), the pieces formatted apart and kept (`formatting.py`): a changed tool's pieces are
the only stub text made and formatted again (ms-365: 727 KB, ~70 ms to write and ~50 ms to format whole).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from mcp_codegen.diagnostics import Diagnostic, Diagnostics
from mcp_codegen.generate import code_api, ir
from mcp_codegen.generate.cache import ServerResults
from mcp_codegen.generate.pieces import Piece, PieceFile, slot_line

#: One step a tool's writing took: ("in", name, taken?), ("add", name), ("discard", name),
#: ("get", (stem, shape), class or None), ("set", (stem, shape), class), ("class", text), ("use", name).
Event = tuple[Any, ...]


class _Log:
    """The steps of the tool being written (None between tools: nothing is recorded)."""

    def __init__(self) -> None:
        self.events: list[Event] | None = None

    def add(self, *event: Any) -> None:
        if self.events is not None:
            self.events.append(event)


class _TakenNames(set[str]):
    """The writer's class names taken, each question and change recorded."""

    def __init__(self, names: set[str], log: _Log) -> None:
        super().__init__(names)
        self.log = log

    def __contains__(self, name: object) -> bool:
        found = super().__contains__(name)
        self.log.add("in", name, found)
        return found

    def add(self, name: str) -> None:
        super().add(name)
        self.log.add("add", name)

    def discard(self, name: object) -> None:
        super().discard(name)
        self.log.add("discard", name)


class _UsedNames(set[str]):
    """The typing names used (only ever added to while tools are written)."""

    def __init__(self, names: set[str], log: _Log) -> None:
        super().__init__(names)
        self.log = log

    def add(self, name: str) -> None:
        super().add(name)
        self.log.add("use", name)


class _Bodies(dict[tuple[str, str], str]):
    """The classes written, by (stem, fields), each question and change recorded."""

    def __init__(self, log: _Log) -> None:
        super().__init__()
        self.log = log

    def get(self, key: tuple[str, str], default: Any = None) -> Any:
        found = super().get(key, default)
        self.log.add("get", key, found)
        return found

    def __setitem__(self, key: tuple[str, str], value: str) -> None:
        super().__setitem__(key, value)
        self.log.add("set", key, value)


class _Classes(list[str]):
    """The class blocks written, in order."""

    def __init__(self, log: _Log) -> None:
        super().__init__()
        self.log = log

    def append(self, text: str) -> None:
        super().append(text)
        self.log.add("class", text)


class RecordedWriter:
    """A `code_api.StubWriter` whose shared state records each tool's questions and changes, and replays them."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.log = _Log()
        writer.taken = self.taken = _TakenNames(writer.taken, self.log)
        writer.used = self.used = _UsedNames(writer.used, self.log)
        writer.bodies = self.bodies = _Bodies(self.log)
        writer.classes = self.classes = _Classes(self.log)

    def written(self, make: Callable[[], str]) -> tuple[str, list[Event], Diagnostics]:
        """`make()` (one tool's function text), the steps it took and the notes it made."""
        self.log.events = []
        shared, self.writer.diagnostics = self.writer.diagnostics, Diagnostics()
        try:
            return make(), self.log.events, self.writer.diagnostics
        finally:
            shared.extend(self.writer.diagnostics)
            self.writer.diagnostics = shared
            self.log.events = None

    def replay(self, events: list[Event]) -> bool:
        """Take a recorded tool's steps again if every question gets its recorded answer now; else (or for a step
        that is not one) change nothing and say no."""
        undo: list[Event] = []  # what to take back, as steps of the same kinds
        try:
            if self._replayed(events, undo):
                return True
        except (TypeError, IndexError, ValueError):  # not a step this version wrote
            pass
        for step in reversed(undo):
            self._take_back(step)
        return False

    def _replayed(self, events: list[Event], undo: list[Event]) -> bool:
        taken, bodies, used = self.taken, self.bodies, self.used
        for event in events:
            kind, name = event[0], event[1]
            if kind == "get" or kind == "set":
                key = tuple(name)
                if len(key) != 2 or type(key[0]) is not str or type(key[1]) is not str:
                    return False
                if kind == "get":
                    if dict.get(bodies, key) != event[2]:
                        return False
                    continue
                if type(event[2]) is not str:
                    return False
                undo.append(("set", key, dict.get(bodies, key)))
                dict.__setitem__(bodies, key, event[2])
                continue
            if type(name) is not str:
                return False
            if kind == "in":
                if set.__contains__(taken, name) != event[2]:
                    return False
            elif kind in ("add", "use"):
                names = taken if kind == "add" else used
                if not set.__contains__(names, name):
                    set.add(names, name)
                    undo.append((kind, name))
            elif kind == "discard":
                if set.__contains__(taken, name):
                    set.discard(taken, name)
                    undo.append(("discard", name))
            elif kind == "class":
                list.append(self.classes, name)
                undo.append(("class",))
            else:
                return False
        return True

    def _take_back(self, step: Event) -> None:
        kind = step[0]
        if kind == "add":
            set.discard(self.taken, step[1])
        elif kind == "use":
            set.discard(self.used, step[1])
        elif kind == "discard":
            set.add(self.taken, step[1])
        elif kind == "set" and step[2] is None:
            dict.pop(self.bodies, step[1], None)
        elif kind == "set":
            dict.__setitem__(self.bodies, step[1], step[2])
        else:
            list.pop(self.classes)


def tool_key(tool: ir.Tool, prepared_key: str) -> str:
    """What a tool's stub text is made from: its schemas (named by their prepared entry's digest) and its IR."""
    return hashlib.sha256(f"{prepared_key}\0{tool!r}".encode()).hexdigest() if prepared_key else ""


def open_store(server_name: str) -> ServerResults | None:
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    return ServerResults.open("code-api", generator_fingerprint(), server_name, _valid)


def _valid(entry: dict[str, Any]) -> bool:
    """An entry of the right shape (its steps are checked as they are replayed: one of another shape ends the
    replay, which changes nothing)."""
    for item in entry["diagnostics"]:
        Diagnostic.from_json(item)  # raises for one this version did not write: a miss
    return isinstance(entry["function"], str) and isinstance(entry["events"], list)


def piece_file(
    prefix: list[str], class_blocks: list[list[str]], functions: list[str], render_whole: Callable[[], str]
) -> PieceFile:
    """The stub as its skeleton (`prefix`, the lines before the first block) and its pieces: each tool's classes
    (`class_blocks`, one list per tool, the tool's order) and each function, laid out as the whole file is."""
    texts = ["\n\n\n".join(blocks) for blocks in class_blocks if blocks] + functions
    parts = list(prefix)
    for _ in texts:
        parts += ["", slot_line(0), ""]
    skeleton = "\n".join(parts).rstrip("\n") + "\n"
    pieces = tuple(
        Piece(hashlib.sha256(f"pyi\0{text}".encode()).hexdigest(), "stub", 0, functools.partial(str, text), ".pyi")
        for text in texts
    )
    return PieceFile(skeleton, pieces, render_whole)


def code_api_file(
    spec: ir.ClientSpec,
    listings: Mapping[str, Mapping[str, Any]],
    header: str,
    keys: Mapping[str, str],
    server: str,
    diagnostics: Diagnostics,
) -> PieceFile:
    """`code_api.code_api_text` as a `PieceFile`, each tool's text replayed from the `code-api/` cache of `server`
    where it still holds (its notes added to `diagnostics` either way); `keys` are the tools' prepared digests by
    wire name (`ToolPlan.prepared_key`)."""
    tools = [tool for tool in spec.tools if not tool.app_only]
    writer = code_api.StubWriter({tool.python_name for tool in tools} | set(code_api.TYPING_NAMES), diagnostics)
    recorded = RecordedWriter(writer)
    store = open_store(server) if server else None
    class_blocks: list[list[str]] = []
    functions: list[str] = []
    for tool in tools:
        key = tool_key(tool, keys.get(tool.wire_name, "")) if store is not None else ""
        entry = store.get(key) if store is not None and key else None
        written = len(recorded.classes)
        if entry is not None and recorded.replay(entry["events"]):
            assert store is not None
            store.use(key, entry, made=False)
            function = entry["function"]
            for item in entry["diagnostics"]:
                diagnostics.add(Diagnostic.from_json(item))
        else:
            function, events, notes = recorded.written(
                functools.partial(writer.function, tool, listings.get(tool.wire_name, {}))
            )
            if store is not None and key:
                made = {"events": events, "function": function, "diagnostics": [item.as_json() for item in notes]}
                store.use(key, made, made=True)
        class_blocks.append(list(recorded.classes[written:]))
        functions.append(function)
    if store is not None:
        store.close()
    prefix = code_api.stub_prefix(spec, header, [name for name in code_api.TYPING_NAMES if writer.uses(name)])
    blocks = [block for tool_blocks in class_blocks for block in tool_blocks] + functions
    return piece_file(prefix, class_blocks, functions, lambda: code_api.stub_text(prefix, blocks))
