from __future__ import annotations

from ._base import Model


class GreetPlainArguments(Model):
    name: str
