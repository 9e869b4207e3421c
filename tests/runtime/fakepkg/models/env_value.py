from __future__ import annotations

from ._base import Model


class EnvValueArguments(Model):
    name: str


class EnvValueResult(Model):
    result: str | None
