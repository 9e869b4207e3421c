"""Notes, warnings and errors collected along the pipeline, each with a stable code and the location it is about.

A stage that meets a bad item reports it here and goes on without it; the CLI prints one summary.
Every diagnostic has a code from `CODES` (rendered into the docs' warning-codes page), so
`--allow-warning CODE` can accept a known, benign warning without giving up `--strict` for the others.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

#: Every diagnostic code and what it means: the one table the docs' warning-codes page is rendered from.
CODES: dict[str, str] = {
    # Snapshot (what the server sent)
    "secret-in-command": (
        "a --stdio argument or an -H header holds a literal secret (a --token style value, a URL password or secret"
        " query value, a vendor key or known credential format, an `ID:SECRET` pair, a secret `key=value`, a"
        " high-entropy token, the value of a secret environment variable, an `Authorization: Bearer` token): it is"
        " recorded as `${NAME}` (a header's after its name: `Bearer ${AUTHORIZATION}`), which the generated client"
        " reads from the environment; write `${VAR}` in --stdio or -H (single-quoted) to choose the name,"
        " `--no-redact VALUE` to keep a value"
    ),
    "server-stdout-noise": "a stdio server wrote lines that are not JSON-RPC to stdout; they were skipped",
    "listing-not-implemented": "the server declares a capability but does not implement its list method",
    "listing-failed": (
        "the server answered resources/list, resources/templates/list or prompts/list with an error, or not within"
        " --timeout: the package is written without them and the snapshot records the listing as not taken"
        " (`notListed`), which drift does not read as removals; `--skip resources|templates|prompts` (config:"
        " `skip`) stops asking. A failing tools/list still fails the run"
    ),
    "item-not-object": "a listed tool, resource or prompt is not a JSON object; left out",
    "item-without-name": "a listed item has no string name (or uri); left out",
    "duplicate-item": "two listed items share a name; the later one is left out",
    "skills-not-listed": (
        "a server listing skill:// resources over the legacy handshake could not be reached again at MCP"
        " 2026-07-28, where skills are listed; the snapshot has no skills"
    ),
    "skill-invalid": (
        "a skills/list entry is not a usable skill (its URI, name, description or manifest: a file path leaving"
        " the skill's folder, a digest or size missing, over 512 files or 16 MiB); left out"
    ),
    "tool-invalid-header": "a 2026-07-28 tool whose x-mcp-header annotations are invalid; left out, as clients drop it",
    "observed-results-mixed": (
        "--results-from: a tool's recorded answers are not all JSON objects or all JSON arrays; its results stay"
        " untyped"
    ),
    # Schemas
    "schema-not-object": "a (sub)schema is not a JSON object; accepted as any value",
    "pattern-dropped": "a regex pydantic cannot check; the constraint is left to the server",
    "wide-integer-dropped": "an enum/const integer beyond 64 bits; the constraint is left to the server",
    "ref-not-local": "a $ref to another document; accepted as any value",
    "ref-unresolvable": "a $ref that points nowhere; accepted as any value",
    "default-dropped": "a default that does not fit its property's type; left out of the model",
    "output-schema-untyped": "an outputSchema that is not an object schema; results are untyped",
    "output-schema-no-type": "an outputSchema without 'type'; read as an object",
    "input-schema-empty": "an empty inputSchema ({}); the tool takes any arguments",
    "input-schema-no-type": "an inputSchema without 'type'; read as an object",
    "input-schema-permissive": "an inputSchema that is not an object schema; the tool takes any arguments",
    "model-generator-failed": "the model generator cannot handle a tool's schemas; it is untyped",
    # Names and selection
    "renamed": (
        "(a note, never fails --strict) a name is spelt differently in Python (snake_case, a keyword, taken or"
        " reserved); the wire name is still sent"
    ),
    "code-api-loose-type": (
        "(a note, never fails --strict) an object has a property name no type checker takes as a TypedDict key (the"
        " empty string): code mode's code_api.pyi types that object as `dict[str, Any]`; the models keep it"
    ),
    "description-override-unused": "--descriptions names a tool that is not generated",
    "server-handler-missing": "generate --server: handlers.py has no handler for a tool (it answers an error)",
    "package-version-defaulted": (
        "(a note, never fails --strict) --meta pyproject without --package-version or package_version: the project"
        " is version 0.1.0; the server's reported version is not used (FastMCP servers report FastMCP's own)"
    ),
    # Errors (a bug of ours if seen: report it)
    "parameter-name-mismatch": "the model generator named a parameter differently than expected",
    "model-class-missing": "the model generator did not produce an expected class",
}


class Level(enum.Enum):
    #: Worth knowing, nothing lost (a name the generated code spells differently from the server): `--strict` passes.
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


_LEVELS = {level.value: level for level in Level}


@dataclass(frozen=True, order=True)
class Diagnostic:
    #: Where the problem is, as a dotted path into the snapshot: `tools.<wire name>.inputSchema.properties.x`.
    location: str
    message: str
    level: Level = Level.WARNING
    #: A key of `CODES` ("" only for a diagnostic recorded by a version that had no codes).
    code: str = ""

    def __str__(self) -> str:
        code = f"[{self.code}]" if self.code else ""
        return f"{self.level.value}{code}: {self.location}: {self.message}"

    def as_json(self) -> dict[str, str]:
        return {"code": self.code, "level": self.level.value, "location": self.location, "message": self.message}

    @classmethod
    def from_json(cls, item: dict[str, str]) -> Diagnostic:
        """The diagnostic `as_json` wrote (KeyError for an unknown level). The level is looked up in a dict:
        calling `Level(value)` costs ~6 us, and a large server's cached results hold thousands of notes."""
        return cls(item["location"], item["message"], _LEVELS[item["level"]], item["code"])


@dataclass
class Diagnostics:
    """An ordered, de-duplicated collection that stages append to."""

    items: list[Diagnostic] = field(default_factory=list)
    #: What `items` holds, for the duplicate check (a run can record thousands of diagnostics).
    _seen: set[Diagnostic] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._seen.update(self.items)

    def info(self, location: str, message: str, *, code: str) -> None:
        self.add(Diagnostic(location, message, Level.INFO, code))

    def warn(self, location: str, message: str, *, code: str) -> None:
        self.add(Diagnostic(location, message, Level.WARNING, code))

    def error(self, location: str, message: str, *, code: str) -> None:
        self.add(Diagnostic(location, message, Level.ERROR, code))

    def add(self, diagnostic: Diagnostic) -> None:
        seen = len(self._seen)
        self._seen.add(diagnostic)  # one hash (a Python call) where `in` and `add` took two
        if len(self._seen) != seen:
            self.items.append(diagnostic)

    def extend(self, other: Diagnostics) -> None:
        if not self.items:  # taken whole: each diagnostic's hash is a Python call (a large server has thousands)
            self.items = list(other.items)
            self._seen = set(other._seen)
            return
        for item in other.items:
            self.add(item)

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.level is Level.WARNING]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.level is Level.ERROR]

    def blocking(self, allowed: Collection[str] = ()) -> list[Diagnostic]:
        """What `--strict` fails on: every error, and every warning whose code is not in `allowed`."""
        return [d for d in self.items if d.level is Level.ERROR or (d.level is Level.WARNING and d.code not in allowed)]

    @property
    def problems(self) -> list[Diagnostic]:
        """Warnings and errors: everything but notes (what `-q` still prints)."""
        return [d for d in self.items if d.level is not Level.INFO]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)


def unknown_codes(codes: Collection[str]) -> list[str]:
    """The codes in `codes` that are not warning codes (to reject a misspelt `--allow-warning`)."""
    return sorted(code for code in codes if code not in CODES)
