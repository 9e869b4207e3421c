"""The "argument not given" marker used as the default of optional tool parameters."""

from __future__ import annotations

import enum
from typing import Final, Literal

__all__ = ["NOT_SENT", "NotSent"]


class NotSent(enum.Enum):
    """Type of `NOT_SENT`: an optional argument left out of the request (`None` is sent as JSON null)."""

    NOT_SENT = "NOT_SENT"

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_SENT"

    __str__ = __repr__


NOT_SENT: Final = NotSent.NOT_SENT
