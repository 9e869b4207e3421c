from __future__ import annotations

from ._base import Model


class CrashArguments(Model):
    pass


class CrashResult(Model):
    result: str
