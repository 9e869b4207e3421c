from __future__ import annotations

from ._base import Model


class AddArguments(Model):
    a: int
    b: int


class AddResult(Model):
    result: int
