"""A static sentence-embedding table for tool search, trained from all-MiniLM-L6-v2: text -> vector with numpy alone.

A text's vector is the mean of its WordPiece tokens' rows (int8, a float32 scale per column), normalised to length 1;
the table was trained so that this mean imitates all-MiniLM-L6-v2's sentence embedding (see `recipe.json`, the
README and scripts/search_model/build.py of mcp-codegen). No model hub and no torch: the files are package data,
read from this folder on `load()`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .tokenizer import WordPiece

__all__ = ["DATA", "StaticModel", "WordPiece", "load"]

#: The shipped table, its scales, the vocabulary and the recipe.
DATA = Path(__file__).resolve().parent / "data"

Vectors = npt.NDArray[np.float32]
#: Tokens of a text that count (all-MiniLM-L6-v2's own limit).
MAX_TOKENS = 256


class StaticModel:
    """The table and its tokenizer: `encode(texts)` gives one unit vector per text (zeros for a text of no token)."""

    __slots__ = ("_rows", "_scales", "dimensions", "recipe", "tokenizer")

    def __init__(
        self,
        rows: npt.NDArray[np.int8],
        scales: npt.NDArray[np.float32],
        tokenizer: WordPiece,
        recipe: dict[str, Any] | None = None,
    ) -> None:
        if rows.shape[0] != len(tokenizer) or scales.shape != (rows.shape[1],):
            raise ValueError(
                "the table, its column scales and the vocabulary do not fit together"
            )
        self._rows = rows
        self._scales = scales
        self.tokenizer = tokenizer
        self.dimensions = int(rows.shape[1])
        self.recipe = recipe or {}

    def encode(self, texts: Sequence[str], max_tokens: int = MAX_TOKENS) -> Vectors:
        """One unit vector per text (float32, shape `(len(texts), dimensions)`), of its first `max_tokens`
        tokens (as the sentence model it imitates reads 256)."""
        ids: list[int] = []
        starts: list[int] = []
        for text in texts:
            starts.append(len(ids))
            ids.extend(self.tokenizer.ids(text)[:max_tokens])
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not ids:
            return out
        rows = self._rows[np.asarray(ids, dtype=np.intp)]
        # Summed as integers (one scale per column, applied once): a quarter of the memory traffic of
        # float rows. A sum per slice: np.add.reduceat along rows is an order of magnitude slower here.
        ends = [*starts[1:], len(ids)]
        for position, (start, end) in enumerate(zip(starts, ends, strict=True)):
            if end > start:
                out[position] = rows[start:end].sum(axis=0, dtype=np.int32)
        out *= self._scales
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out /= norms
        return out


@lru_cache(maxsize=1)
def load() -> StaticModel:
    """The shipped model, read once per process."""
    rows = np.load(DATA / "table.npy")
    scales = np.load(DATA / "scales.npy")
    vocabulary = (DATA / "vocab.txt").read_text(encoding="utf-8").splitlines()
    recipe = json.loads((DATA / "recipe.json").read_text(encoding="utf-8"))
    return StaticModel(rows, scales, WordPiece(vocabulary), recipe)
