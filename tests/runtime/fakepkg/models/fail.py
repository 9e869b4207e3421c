from __future__ import annotations

from ._base import Model


class FailArguments(Model):
    message: str


class FailResult(Model):
    result: str
