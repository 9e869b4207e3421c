"""Ranking a tool set's own tools for a request: the shipped BM25F index, optionally fused with embeddings.

`ToolSet.search()` ranks only the tools of its set, so whatever chose them (`include=`, `exclude=`,
a prefix, app-only tools left out) chose the search results too. A tool generated into a package is
counted in the package's shipped `search_index.json` (read on the first search); any other tool
(resources and prompts as tools, a package without the file) is counted in memory from its
definition, once per set. All of them are ranked as one index (`ToolIndex` over every part), so a
set holding several packages' tools (a `Toolkit`'s) compares their scores on one scale.

With `semantic=True` the lexical scores are fused with the similarity under the static model of the
`semantic` extra (`agents.semantic`: the tools' vectors computed once per set). With `embed=` (a function
from a list of texts to their vectors, e.g. a larger sentence-transformers model's `encode`) the lexical
ranking is fused with cosine similarity by reciprocal rank fusion (`1 / (60 + rank)` summed over both
rankings), so neither scale has to match the other. The tools' vectors are computed once per set and
`embed` function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..calls.specs import ToolSpec
from .search_index import (
    INDEX_FILE,
    CountedIndex,
    ToolIndex,
    count_index,
    document_from_listing,
    load_index,
    query_terms,
    wants_listing,
)

if TYPE_CHECKING:
    from .semantic import SemanticRanking
    from .tool import AgentTool

__all__ = ["Embed", "Searcher"]

#: Texts -> one vector each (any sequence of floats), for semantic search.
Embed = Callable[[list[str]], Sequence[Sequence[float]]]
#: Reciprocal rank fusion's constant (Cormack et al. 2009).
_RRF = 60.0


def _document_text(tool: AgentTool) -> str:
    words = " ".join(query_terms(tool.wire_name))
    return f"{words}: {tool.title or ''} {tool.description}".strip()


def _cosine(left: Sequence[float], right: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(left, right, strict=False))
    norms = math.sqrt(sum(a * a for a in left)) * math.sqrt(sum(b * b for b in right))
    return dot / norms if norms else 0.0


class Searcher:
    """The indexes covering one tool set's tools, made on its first search."""

    __slots__ = ("_embedded", "_ranked", "_semantic", "_tools")

    def __init__(self, tools: Sequence[AgentTool]) -> None:
        self._tools = list(tools)
        self._ranked: tuple[ToolIndex, list[AgentTool | None]] | None = None
        self._embedded: tuple[Embed, list[Sequence[float]]] | None = None
        self._semantic: SemanticRanking | None = None

    def _index(self) -> tuple[ToolIndex, list[AgentTool | None]]:
        """One index over every shipped index the set's tools come from and those counted here,
        with, per indexed position, the tool of this set it stands for (or None)."""
        if self._ranked is not None:
            return self._ranked
        parts: list[CountedIndex] = []
        placed: list[AgentTool | None] = []
        shipped: dict[str, list[AgentTool]] = {}
        others: list[AgentTool] = []
        for tool in self._tools:
            spec = tool.spec
            if isinstance(spec, ToolSpec):
                shipped.setdefault(str(spec.snapshot.path.parent), []).append(tool)
            else:
                others.append(tool)
        for folder, tools in shipped.items():
            counted = load_index(_index_path(folder))
            by_wire = {tool.wire_name: tool for tool in tools}
            if counted is not None:
                parts.append(counted)
                placed.extend(by_wire.pop(name, None) for name in counted.names)
            others.extend(by_wire.values())
        if others:
            parts.append(
                count_index(
                    document_from_listing(
                        tool.wire_name,
                        tool.title,
                        tool.description,
                        tool.parameters_view(),
                    )
                    for tool in others
                )
            )
            placed.extend(others)
        self._ranked = (ToolIndex(parts), placed)
        return self._ranked

    def lexical_scores(self, query: str) -> dict[int, float]:
        """Each matching tool's BM25F score for `query`, by its position in the set."""
        index, tools = self._index()
        order = {id(tool): position for position, tool in enumerate(self._tools)}
        scores: dict[int, float] = {}
        found = index.scores(query_terms(query), listing=wants_listing(query))
        for position, score in found.items():
            tool = tools[position]
            if tool is not None:
                scores[order[id(tool)]] = score
        return scores

    def lexical(self, query: str) -> list[AgentTool]:
        """The tools matching any word of `query`, best first (ties in the set's order)."""
        scores = self.lexical_scores(query)
        ranked = sorted(scores, key=lambda position: (-scores[position], position))
        return [self._tools[position] for position in ranked]

    def fused(self, query: str) -> list[AgentTool]:
        """Every tool by the lexical score fused with the static model's similarity (`agents.semantic`)."""
        ranking = self._semantic
        if ranking is None:
            from .semantic import SemanticRanking, tool_text

            ranking = self._semantic = SemanticRanking(map(tool_text, self._tools))
        scores = self.lexical_scores(query)
        lexical = [scores.get(position, 0.0) for position in range(len(self._tools))]
        return [self._tools[position] for position in ranking.fuse(query, lexical)]

    def semantic(self, query: str, embed: Embed) -> list[AgentTool]:
        """Every tool by cosine similarity of its text to `query` under `embed`, best first."""
        embedded = self._embedded
        if embedded is None or embedded[0] is not embed:
            vectors = list(embed([_document_text(tool) for tool in self._tools]))
            if len(vectors) != len(self._tools):
                raise ValueError(
                    "embed= returned a different number of vectors than texts"
                )
            embedded = self._embedded = (embed, vectors)
        query_vector = list(embed([query]))[0]
        similarity = [_cosine(query_vector, vector) for vector in embedded[1]]
        ranked = sorted(range(len(self._tools)), key=lambda i: (-similarity[i], i))
        return [self._tools[i] for i in ranked]

    def search(
        self,
        query: str,
        limit: int,
        embed: Embed | None = None,
        semantic: bool = False,
    ) -> list[AgentTool]:
        """The `limit` best tools for `query`: lexical, fused with the static model's similarity
        (`semantic`) or with `embed`'s ranking when given."""
        if semantic:
            if embed is not None:
                raise ValueError("give one of semantic=True and embed=, not both")
            return self.fused(query)[:limit]
        lexical = self.lexical(query)
        if embed is None:
            return lexical[:limit]
        fused: dict[int, float] = {}
        for ranking in (lexical, self.semantic(query, embed)):
            for rank, tool in enumerate(ranking, start=1):
                fused[id(tool)] = fused.get(id(tool), 0.0) + 1.0 / (_RRF + rank)
        order = {id(tool): position for position, tool in enumerate(self._tools)}
        ranked = sorted(
            self._tools, key=lambda t: (-fused.get(id(t), 0.0), order[id(t)])
        )
        return ranked[:limit]


def _index_path(folder: str) -> Path:
    return Path(folder) / INDEX_FILE
