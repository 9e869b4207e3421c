"""How a wire name splits into words and joins again as `snake_case` or `PascalCase`.

Below every stage: the config readers (`inputs/`) name servers and variables with it, the generator
(`generate/naming.py`) names methods and classes with it.
"""

from __future__ import annotations

import re
import unicodedata

#: A new word starts at a capital after a lowercase letter (`getSum`), at a capitalized word after a digit or
#: a capital (`v2Response`, `HTTPResponse`); a digit's capital suffix stays with it (`Point3D`: one word).
_WORD_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])")
_NOT_IDENTIFIER_CHAR = re.compile(r"[^0-9a-zA-Z]+")


def words(name: str) -> list[str]:
    """Split any wire name into lowercase ASCII words: `getHTTPResponse-v2` -> get, http, response, v2."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    spaced = _WORD_BOUNDARY.sub(" ", ascii_name)
    return [word.lower() for word in _NOT_IDENTIFIER_CHAR.split(spaced) if word]


def snake_case(name: str, *, fallback: str) -> str:
    """A lowercase identifier for `name`; `fallback` when nothing usable is left, or as a prefix to a digit."""
    parts = words(name)
    if not parts:
        return fallback
    result = "_".join(parts)
    if result[0].isdigit():
        result = f"{fallback}_{result}"
    return result


def pascal_case(name: str, *, fallback: str) -> str:
    parts = words(name)
    if not parts:
        return fallback
    result = "".join(part[:1].upper() + part[1:] for part in parts)
    if result[0].isdigit():
        result = fallback + result
    return result
