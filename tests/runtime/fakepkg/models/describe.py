from __future__ import annotations

from ._base import Model


class DescribeArguments(Model):
    b: int | None = 7


class DescribeResult(Model):
    result: str
