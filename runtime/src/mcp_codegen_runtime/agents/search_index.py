"""The lexical tool-search index: tools' words weighted by field (BM25F), built once and ranked per query.

A tool's document has five fields: its name split into words (`list-mail-messages`, `getMailMessage`
-> list mail message), its title, its description, its parameters' names (split the same way) and
their descriptions. Each field's term frequency is normalised by that field's length against the
catalog's average and weighted (the name counts most), as in BM25F: the per-tool pseudo frequency
`tf~ = sum(weight_f * tf_f / (1 - b + b * len_f / avg_f))` is computed when the index is built, so a
query only adds `idf(t) * tf~ / (k1 + tf~)` over the postings of its words (microseconds for 344
tools). Words are lower-cased, English stop words dropped, plurals and `-ing`/`-ed` endings
stripped (`emails` and `email` meet) and a few synonyms of tool vocabularies merged (`post` and
`send`, `remove` and `delete`, `email` and `mail`).

The generator builds the index from the snapshot's listing and ships it beside `snapshot.json` as
`search_index.json` (sorted, rounded: byte-deterministic); a tool set whose tools are not in a shipped
index (resources as tools, specs made by hand, older packages) builds the same index in memory on its
first search. Pure Python, no dependency: the ranking is a few dozen lines, and a library (bm25s,
rank-bm25) would add numpy or a tokenizer of its own without BM25F's fields.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import cast

__all__ = [
    "INDEX_FILE",
    "ToolDocument",
    "ToolIndex",
    "build_index",
    "document_terms",
    "document_from_listing",
    "index_json",
    "load_index",
    "name_words",
    "query_terms",
]

#: The shipped index's file name, beside the package's `snapshot.json`.
INDEX_FILE = "search_index.json"
#: Bumped when tokenizing or weighting changes: an index of another format is rebuilt, not read.
INDEX_FORMAT = 2
#: Field weights (name words first) and BM25's constants.
FIELD_WEIGHTS = {
    "name": 3.0,
    "title": 2.0,
    "description": 1.0,
    "parameters": 1.0,
    "parameter_descriptions": 0.5,
}
B = 0.75
K1 = 1.2

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = frozenset(
    "a an and are as at be by can do does for from has have how i in into is it its me my of on or "
    "our should so that the their them then there these this to was were what when where which who "
    "will with you your all any please want need".split()
)


#: Words requests and tool names use for the same action or thing, read as one term on both sides.
_SYNONYMS = {
    "email": "mail",
    "e-mail": "mail",
    "post": "send",
    "remove": "delete",
    "erase": "delete",
    "retrieve": "get",
    "fetch": "get",
    "obtain": "get",
    "modify": "update",
    "edit": "update",
    "change": "update",
    "find": "search",
    "lookup": "search",
    "look": "search",
    "make": "create",
    "new": "create",
    "show": "list",
    "enumerate": "list",
}


def _stem(word: str) -> str:
    """A light English stemmer: plurals, `-ing` and `-ed` (enough for tool vocabularies)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    return word


@lru_cache(maxsize=8192)
def _term(word: str) -> str:
    """A word's index term, "" for a stop word (cached: a catalog repeats its words)."""
    word = word.lower()
    if word in _STOP or (len(word) < 2 and not word.isdigit()):
        return ""
    stem = _stem(word)
    return _SYNONYMS.get(stem, stem)


def _term_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    # Counted as words first (Counter counts in C), then each distinct word made a term once.
    for word, count in Counter(_WORD.findall(text)).items():
        term = _term(word)
        if term:
            counts[term] = counts.get(term, 0) + count
    return counts


def query_terms(text: str) -> list[str]:
    """`text` as index terms: words split at case changes and punctuation, lower-cased, stemmed."""
    return [term for term in map(_term, _WORD.findall(text)) if term]


@dataclass(frozen=True)
class ToolDocument:
    """One tool's searchable text by field (see the module docstring)."""

    name: str
    title: str = ""
    description: str = ""
    parameters: str = ""
    parameter_descriptions: str = ""

    def fields(self) -> dict[str, str]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "parameters": self.parameters,
            "parameter_descriptions": self.parameter_descriptions,
        }


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def document_from_listing(
    name: str, title: object, description: object, input_schema: object
) -> ToolDocument:
    """A tool's document from its listing: its top-level parameters' names and descriptions."""
    names: list[str] = []
    described: list[str] = []
    properties: object = None
    if isinstance(input_schema, Mapping):
        properties = cast("Mapping[str, object]", input_schema).get("properties")
    if isinstance(properties, Mapping):
        for key, value in cast("Mapping[str, object]", properties).items():
            names.append(key)
            if isinstance(value, Mapping):
                described.append(
                    _text(cast("Mapping[str, object]", value).get("description"))
                )
    return ToolDocument(
        name=name,
        title=_text(title),
        description=_text(description),
        parameters=" ".join(names),
        parameter_descriptions=" ".join(text for text in described if text),
    )


class ToolIndex:
    """Tools (by wire name) and, per term, the tools holding it with their BM25F pseudo frequency, as
    one flat list `[position, hundredths, position, hundredths, ...]` (one list per term: quicker to
    write and to read back than a list per pair)."""

    __slots__ = ("names", "postings")

    def __init__(self, names: list[str], postings: Mapping[str, Sequence[int]]) -> None:
        self.names = names
        self.postings = postings

    def scores(self, terms: Iterable[str]) -> dict[int, float]:
        """Each matching tool's BM25F score (by position in `names`) for these query terms."""
        total = len(self.names)
        scored: dict[int, float] = {}
        for term in dict.fromkeys(terms):
            posting = self.postings.get(term)
            if not posting:
                continue
            df = len(posting) // 2
            idf = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
            for position, hundredths in zip(posting[::2], posting[1::2], strict=True):
                frequency = hundredths / 100
                scored[position] = scored.get(position, 0.0) + idf * frequency / (
                    K1 + frequency
                )
        return scored


#: A tool's term counts by field (what `document_terms` makes: the index is assembled from these).
TermCounts = dict[str, dict[str, int]]


def document_terms(document: ToolDocument) -> TermCounts:
    """How often each term occurs in each field of `document`."""
    return {field: _term_counts(text) for field, text in document.fields().items()}


def build_index(
    documents: Iterable[ToolDocument], counts: Iterable[TermCounts] | None = None
) -> ToolIndex:
    """The index of these documents (see the module docstring for the weighting); `counts` are their
    `document_terms` when the caller has them already (the generator caches them per tool).
    """
    listed = list(documents)
    counted = list(counts) if counts is not None else list(map(document_terms, listed))
    lengths = {
        field: [sum(by_field.get(field, {}).values()) for by_field in counted]
        for field in FIELD_WEIGHTS
    }
    averages = {
        field: (sum(values) / len(values) if values and sum(values) else 1.0)
        for field, values in lengths.items()
    }
    postings: dict[str, list[int]] = {}
    for position, by_field in enumerate(counted):
        frequencies: dict[str, float] = {}
        for field, field_counts in by_field.items():
            norm = 1.0 - B + B * lengths[field][position] / averages[field]
            weight = FIELD_WEIGHTS[field] / norm
            for term, count in field_counts.items():
                frequencies[term] = frequencies.get(term, 0.0) + weight * count
        for term, frequency in frequencies.items():
            # Hundredths, as integers: smaller and faster to write and read than floats.
            postings.setdefault(term, []).extend((position, round(frequency * 100)))
    return ToolIndex([document.name for document in listed], postings)


def index_json(index: ToolIndex) -> str:
    """The index as the text of `search_index.json`: sorted and rounded, the same bytes every run."""
    data = {
        "format": INDEX_FORMAT,
        "tools": index.names,
        "terms": {term: index.postings[term] for term in sorted(index.postings)},
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n"


def name_words(text: str) -> list[str]:
    """`text`'s words as `query_terms` finds them, lower-cased but not stemmed (for display)."""
    words = (match.group().lower() for match in _WORD.finditer(text))
    return [word for word in words if word not in _STOP and len(word) > 1]


@lru_cache(maxsize=16)
def load_index(path: Path) -> ToolIndex | None:
    """The shipped index at `path`, read on first use; None when it is missing, unreadable or of
    another format (the caller then builds one in memory)."""
    try:
        parsed: object = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(parsed, dict):
        return None
    data = cast("dict[str, object]", parsed)
    if data.get("format") != INDEX_FORMAT:
        return None
    names = data.get("tools")
    terms = data.get("terms")
    if not isinstance(names, list) or not isinstance(terms, dict):
        return None
    return ToolIndex(
        [str(name) for name in cast("list[object]", names)],
        cast("dict[str, list[int]]", terms),
    )
