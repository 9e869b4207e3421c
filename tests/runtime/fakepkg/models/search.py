from __future__ import annotations

from pydantic import Field

from ._base import Model


class SearchArguments(Model):
    query: str
    max_results: int | None = Field(default=3, alias="maxResults")


class SearchResult(Model):
    result_: list[str] = Field(alias="result")
