"""Models for the low-level test server whose results do not match their advertised output schema."""

from __future__ import annotations

from ._base import Model


class MismatchArguments(Model):
    mode: str


class MismatchResult(Model):
    count: int
    label: str


class WrappedArguments(Model):
    mode: str


class WrappedResult(Model):
    result: int
