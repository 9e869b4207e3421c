from __future__ import annotations

from typing import Literal

from ._base import Model


class GetWeatherArguments(Model):
    city: str
    units: Literal["c", "f"] | None = "c"
    days: int | None = None


class GetWeatherResult(Model):
    city: str
    temperature: float
    units: Literal["c", "f"]
    days: int | None = None
