"""Imported only through a ToolSpec, to show that specs import their models lazily."""

from __future__ import annotations

from ._base import Model


class LazyProbeArguments(Model):
    x: int
