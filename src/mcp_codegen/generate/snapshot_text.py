"""The snapshot's canonical file text (`Snapshot.to_text()`), each item's indented text kept in the cache.

Indented JSON takes the standard library's pure-Python encoder, about ten times slower than its C one: for a
server of 300+ tools that was a quarter of a regeneration after a change. Each tool, resource and prompt is
encoded once (the compact C encoding names it in the cache), so a changed run encodes only the changed items.
The text is the same, byte for byte, as `Snapshot.to_text()` (`tests/unit/test_snapshot_text.py`).

The digest of each tool's part of that text is kept too, with the digest of the tool's content (`snapshot-texts/`,
`item_texts`): reading a snapshot file then recognises a file in canonical form (the usual one, written by
mcp-codegen) tool by tool, canonicalising only the tools whose text it has not seen
(`snapshot.model._canonical_file`); its text is the file's own, and its content digest needs only the new tools
encoded (`Snapshot.content_digest`).
"""

from __future__ import annotations

import json
from typing import Any

from mcp_codegen.generate.cache import ServerResults
from mcp_codegen.snapshot.model import ItemTexts, Snapshot, item_digest, item_text_digest, sorted_keys

#: The lists whose items are canonical already (sorting them again would sort their schemas' `properties`).
_ITEM_LISTS = frozenset({"tools", "resources", "resourceTemplates", "prompts"})


def snapshot_text(snapshot: Snapshot) -> str:
    """`snapshot.to_text()`, with the items' texts taken from (and added to) the user's cache."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    known = snapshot.canonical_text()
    if known is not None:
        return known
    store = ServerResults.open(
        "snapshot-items", generator_fingerprint(), snapshot.server_name, lambda entry: isinstance(entry["text"], str)
    )
    digests = item_texts(snapshot.server_name)
    data = snapshot.canonical().as_json()
    members = []
    for key in sorted(data):
        value = data[key]
        if key in _ITEM_LISTS and value:
            # The tools' digests are the input hash's (computed once); any other item's is computed here, if kept.
            names = snapshot.tool_digests() if key == "tools" else [None] * len(value)
            texts = [
                "    " + _indented(_item_text(item, name, store), "    ")
                for item, name in zip(value, names, strict=True)
            ]
            if key == "tools" and digests is not None:
                for text, tool in zip(texts, snapshot.tool_digests(), strict=True):
                    digest = item_text_digest(text)
                    if digests.get(digest) is None:
                        digests.add(digest, tool)  # kept for the next read
            items = ",\n".join(texts)
            text = f"[\n{items}\n  ]"
        else:
            text = _indented(json.dumps(sorted_keys(value), indent=2, ensure_ascii=False), "  ")
        members.append(f"  {json.dumps(key, ensure_ascii=False)}: {text}")
    whole = "{\n" + ",\n".join(members) + "\n}\n"
    # A file that is this text is recognised tool by tool next time (`digests`): its items need not be kept (3.5 MB
    # of indented text for ms-365, ~0.1 s to write, taken from a cold run's main process while the workers work).
    if store is not None and not snapshot.read_from(whole):
        store.close()
    if digests is not None:
        digests.close()
    return whole


class _ItemTexts:
    """`ItemTexts` in the user's cache: one entry per server (`snapshot-texts/`) of the tool texts seen canonical."""

    def __init__(self, store: ServerResults) -> None:
        self.store = store

    def get(self, text_digest: str) -> str | None:
        entry = self.store.get(text_digest)
        if entry is None:
            return None
        self.store.use(text_digest, entry, made=False)
        return str(entry["tool"])

    def add(self, text_digest: str, tool: str) -> None:
        self.store.use(text_digest, {"tool": tool}, made=True)

    def close(self) -> None:
        self.store.close()


def item_texts(server_name: str) -> ItemTexts | None:
    """The digests of `server_name`'s tool texts known to be canonical (None when the cache is off or unusable):
    what `read_snapshot(..., item_texts=item_texts)` recognises a canonical file by."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    store = ServerResults.open(
        "snapshot-texts", generator_fingerprint(), server_name, lambda entry: isinstance(entry["tool"], str)
    )
    return _ItemTexts(store) if store is not None else None


def _indented(text: str, prefix: str) -> str:
    """`text` as nested one level deeper: every line but the first prefixed (JSON strings hold no raw newline)."""
    return text.replace("\n", "\n" + prefix)


def _item_text(item: Any, digest: str | None, store: ServerResults | None) -> str:
    """`item`'s indented text, kept in `store` by its `item_digest` (`digest` when the caller has it)."""
    if store is None:
        return json.dumps(item, indent=2, ensure_ascii=False)
    key = digest or item_digest(item)
    entry = store.get(key)
    if entry is not None:
        store.use(key, entry, made=False)
        return str(entry["text"])
    text = json.dumps(item, indent=2, ensure_ascii=False)
    store.use(key, {"text": text}, made=True)
    return text
