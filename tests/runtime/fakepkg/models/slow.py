from __future__ import annotations

from ._base import Model


class SlowArguments(Model):
    seconds: float


class SlowResult(Model):
    result: str
