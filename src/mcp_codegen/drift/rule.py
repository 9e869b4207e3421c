"""What a drift rule is: its level, the section it applies to, and the words reports and docs use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

Level = Literal["breaking", "dangerous", "safe"]
Section = Literal["tools", "input", "output", "prompts", "resources", "resourceTemplates", "skills", "server"]

LEVELS: tuple[Level, ...] = ("breaking", "dangerous", "safe")
#: Higher is worse.
LEVEL_RANK: Mapping[str, int] = MappingProxyType({"safe": 0, "dangerous": 1, "breaking": 2})


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    section: Section
    #: The DRIFT_RULES.md row the rule implements ("extension: ..." when the rules do not list it).
    spec: str
    reason: str
    wire_impact: str
    source_impact: str


#: Shorthands for the rule tables.
B: Level = "breaking"
D: Level = "dangerous"
S: Level = "safe"

NO_WIRE = "none"
NO_SOURCE = "none"
DOCS_SOURCE = "docstrings change"
