"""Warnings and errors collected along the pipeline, each with the location it is about.

A stage that meets a bad item reports it here and goes on without it; the CLI prints one summary.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field


class Level(enum.Enum):
    #: Worth knowing, nothing lost (a name the generated code spells differently from the server): `--strict` passes.
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, order=True)
class Diagnostic:
    #: Where the problem is, as a dotted path into the snapshot: `tools.<wire name>.inputSchema.properties.x`.
    location: str
    message: str
    level: Level = Level.WARNING

    def __str__(self) -> str:
        return f"{self.level.value}: {self.location}: {self.message}"

    def as_json(self) -> dict[str, str]:
        return {"level": self.level.value, "location": self.location, "message": self.message}


@dataclass
class Diagnostics:
    """An ordered, de-duplicated collection that stages append to."""

    items: list[Diagnostic] = field(default_factory=list)

    def info(self, location: str, message: str) -> None:
        self.add(Diagnostic(location, message, Level.INFO))

    def warn(self, location: str, message: str) -> None:
        self.add(Diagnostic(location, message, Level.WARNING))

    def error(self, location: str, message: str) -> None:
        self.add(Diagnostic(location, message, Level.ERROR))

    def add(self, diagnostic: Diagnostic) -> None:
        if diagnostic not in self.items:
            self.items.append(diagnostic)

    def extend(self, other: Diagnostics) -> None:
        for item in other.items:
            self.add(item)

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.level is Level.WARNING]

    @property
    def problems(self) -> list[Diagnostic]:
        """Warnings and errors: what `--strict` fails on."""
        return [d for d in self.items if d.level is not Level.INFO]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.level is Level.ERROR]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)
