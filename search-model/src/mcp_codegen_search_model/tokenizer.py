"""BERT's uncased WordPiece tokenizer in pure Python: text -> token ids, as all-MiniLM-L6-v2's tokenizer gives them.

The basic step lower-cases, strips accents (NFD, combining marks dropped), drops control, format, private-use and
unassigned characters, puts spaces around CJK characters and splits at whitespace and punctuation (ASCII's, and
Unicode's `P*` categories), as the `tokenizers` library's BERT normalizer and pre-tokenizer do; WordPiece
then splits each word greedily into the longest pieces of the vocabulary (`##` marks a piece inside a word), a
word of no pieces, or of more than 100 characters, being `[UNK]`. No `[CLS]`/`[SEP]`: the static table averages
the text's own tokens, and a literal `[CLS]` in the text is text. Words are cached: a tool catalog repeats its words. Plain ASCII text takes a regex fast
path that gives the same tokens.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["WordPiece"]

_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^a-z0-9\s]")
#: ASCII control characters other than tab and line breaks (BERT drops them; the fast path does not).
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LONGEST_WORD = 100
#: Unicode's White_Space characters that are not control characters (those are dropped, as `\v` and `\x85`).
_WHITESPACE = frozenset(
    [0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class _Characters(dict[int, str]):
    """What BERT's basic tokenizer makes of each character after lower-casing and NFD (for `str.translate`,
    filled on first sight): nothing (a combining mark, a control or format character), a space (whitespace),
    the character between spaces (punctuation, a CJK ideograph) or itself."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        category = unicodedata.category(char)
        if char in "\t\n\r" or code in _WHITESPACE:
            made = " "
        elif code == 0xFFFD or category == "Mn" or category.startswith("C"):
            made = ""
        elif _is_cjk(code) or _is_punctuation(char):
            made = f" {char} "
        else:
            made = char
        self[code] = made
        return made


_CHARACTERS = _Characters()


def _basic_words(text: str) -> list[str]:
    """BERT's basic tokenizer (uncased, accents stripped) on any text: per character through `_CHARACTERS`,
    in C but for each distinct character's first sight."""
    cleaned = unicodedata.normalize("NFD", text.lower()).translate(_CHARACTERS)
    return [word for word in cleaned.split(" ") if word]


class WordPiece:
    """The tokenizer over one vocabulary (one token a line, the line's number its id)."""

    __slots__ = ("_pieces", "_vocabulary", "unknown")

    def __init__(self, tokens: Iterable[str]) -> None:
        self._vocabulary = {token: index for index, token in enumerate(tokens)}
        self.unknown = self._vocabulary["[UNK]"]
        self._pieces = lru_cache(maxsize=65536)(self._word_pieces)

    def __len__(self) -> int:
        return len(self._vocabulary)

    def _word_pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > _LONGEST_WORD:
            return (self.unknown,)
        vocabulary = self._vocabulary
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = -1
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = vocabulary.get(piece, -1)
                if found >= 0:
                    break
                end -= 1
            if found < 0:
                return (self.unknown,)
            pieces.append(found)
            start = end
        return tuple(pieces)

    def words(self, text: str) -> list[str]:
        """`text` split into words and punctuation, lower-cased, as BERT's basic tokenizer splits it."""
        if text.isascii() and not _ASCII_CONTROL.search(text):
            return _ASCII_WORDS.findall(text.lower())
        return _basic_words(text)

    def ids(self, text: str) -> list[int]:
        """The token ids of `text` (no special tokens)."""
        pieces = self._pieces
        found: list[int] = []
        for word in self.words(text):
            found.extend(pieces(word))
        return found
