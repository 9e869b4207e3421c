"""Semantic tool search (`search(..., semantic=True)`): a static embedding table fused with the lexical ranking.

The model is mcp-codegen-search-model's table (the `semantic` extra: `pip install "mcp-codegen-runtime[semantic]"`),
trained from all-MiniLM-L6-v2 so that the mean of a text's token rows imitates the sentence model: numpy alone,
no model hub, under 10 ms for a 200-word request. A tool's text is its name's words, title, description and its
parameters' names and descriptions (its first 256 tokens count, as for the sentence model); each tool text's
vector is computed once per process, on the first semantic search of a set that holds it.

A request of several sentences is scored against each tool by the mean of its whole text's similarity and its
best sentence's (an agent's request often names the tool it needs in one sentence of many). The fused score is
`(1 - WEIGHT) * lexical / best lexical + WEIGHT * (similarity - lowest) / (highest - lowest)` over the set's
tools, ties in the set's order: the same query gives the same order. WEIGHT was tuned on the tuning half of
LiveMCPBench's tasks and is reported on the held-out half (benchmarks/bench_search.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from .search_index import name_words

if TYPE_CHECKING:
    from .tool import AgentTool

__all__ = ["EXTRA", "WEIGHT", "SemanticRanking", "load_model", "tool_text"]

#: What installs the model.
EXTRA = 'pip install "mcp-codegen-runtime[semantic]"'
#: The similarity's share of the fused score (tuned on LiveMCPBench's tuning half).
WEIGHT = 0.4
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")
#: Tool texts' vectors, shared by every tool set of the process (at most this many, then cleared).
_VECTORS: dict[str, Any] = {}
_CACHED_TEXTS = 20_000


@lru_cache(maxsize=1)
def load_model() -> Any:
    """The shipped static model (read once per process); ImportError naming the extra when it is missing."""
    try:  # imported by name: a plain install (no extra) type-checks without them
        _numpy()  # the model's own dependency, named in the error when missing
        load = import_module("mcp_codegen_search_model").load
    except ImportError as error:
        raise ImportError(
            f"semantic search needs the `semantic` extra, which is not installed: {EXTRA}"
        ) from error
    return load()


def _numpy() -> Any:
    """numpy, imported by name: a plain install (no extra) type-checks without its stubs."""
    return import_module("numpy")


def tool_text(tool: AgentTool) -> str:
    """The text a tool is embedded by: its name's words, title, description, parameters' names and descriptions."""
    parts = [" ".join(name_words(tool.wire_name))]
    if tool.title and name_words(tool.title) != name_words(tool.wire_name):
        parts.append(tool.title)
    if tool.description:
        parts.append(tool.description)
    properties: object = tool.parameters_view().get("properties")
    if isinstance(properties, dict):
        for key, value in cast(dict[str, object], properties).items():
            parts.append(" ".join(name_words(key)))
            if isinstance(value, dict):
                described = cast(dict[str, object], value).get("description")
                if isinstance(described, str):
                    parts.append(described)
    return ". ".join(part for part in parts if part)


def sentences(text: str) -> list[str]:
    """The request's sentences (at `.`, `!`, `?`, `;` and line breaks), empty ones left out."""
    return [part for part in _SENTENCE.split(text.strip()) if part.strip()]


class SemanticRanking:
    """One tool set's vectors under the static model, and the fused ranking of a request over them."""

    __slots__ = ("_model", "_vectors")

    def __init__(self, texts: Iterable[str]) -> None:
        self._model = load_model()  # first: without the extra, its ImportError names it
        np = _numpy()

        listed = list(texts)
        # Each tool text is embedded once per process: `client.tools()` makes a new set every call.
        missing = [text for text in dict.fromkeys(listed) if text not in _VECTORS]
        if missing:
            if len(_VECTORS) + len(missing) > _CACHED_TEXTS:
                _VECTORS.clear()
            _VECTORS.update(zip(missing, self._model.encode(missing), strict=True))
        dimensions = self._model.dimensions
        self._vectors = (
            np.stack([_VECTORS[text] for text in listed])
            if listed
            else np.zeros((0, dimensions), dtype=np.float32)
        )

    def similarities(self, query: str) -> Any:
        """Each tool's similarity to `query` (whole request and best sentence, averaged for several)."""
        parts = sentences(query)
        whole = self._vectors @ self._model.encode([query])[0]
        if len(parts) < 2:
            return whole
        best = (self._vectors @ self._model.encode(parts).T).max(axis=1)
        return (whole + best) / 2

    def fuse(
        self, query: str, lexical: Sequence[float], weight: float = WEIGHT
    ) -> list[int]:
        """Positions of every tool, best first, by the fused score (ties in the set's order)."""
        np = _numpy()

        similarity = self.similarities(query).astype(np.float64)
        low, high = float(similarity.min()), float(similarity.max())
        semantic = (
            (similarity - low) / (high - low)
            if high > low
            else np.zeros_like(similarity)
        )
        words = np.asarray(lexical, dtype=np.float64)
        best = float(words.max()) if len(words) else 0.0
        if best > 0:
            words = words / best
        fused = (1.0 - weight) * words + weight * semantic
        # A stable sort on the negated score: equal scores keep the set's order.
        return [int(i) for i in np.argsort(-fused, kind="stable")]
