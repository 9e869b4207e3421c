"""Thin read-only views over the SDK's result objects: nothing is copied or dropped, `.raw` is the original."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from ..text import shortened

if TYPE_CHECKING:
    from mcp_types import (
        AudioContent,
        BlobResourceContents,
        CallToolResult,
        EmbeddedResource,
        GetPromptResult,
        ImageContent,
        PromptMessage,
        ReadResourceResult,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )
    from typing_extensions import TypeIs

    ContentBlock = (
        TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
    )
    ResourceContents = TextResourceContents | BlobResourceContents

__all__ = ["PromptResult", "ResourceResult", "ToolResult"]


def _decode_base64(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return base64.b64decode(data)


class ToolResult:
    """A tool's result: content blocks, structured content and the error flag; `.raw` is the `CallToolResult`."""

    __slots__ = ("raw",)

    raw: CallToolResult

    def __init__(self, raw: CallToolResult) -> None:
        self.raw = raw

    @classmethod
    def from_text(cls, text: str, *, is_error: bool = False) -> ToolResult:
        """A result of one text block (what a server handler or a fake returns for a tool without output schema)."""
        import mcp_types

        content: list[ContentBlock] = [mcp_types.TextContent(type="text", text=text)]
        return cls(mcp_types.CallToolResult(content=content, is_error=is_error))

    @property
    def content(self) -> list[ContentBlock]:
        """The content blocks (text, image, audio, resource links, embedded resources) as received."""
        return self.raw.content

    @property
    def text(self) -> str:
        """Every text block joined with newlines ("" when there is none)."""
        return "\n".join(
            block.text for block in self.raw.content if block.type == "text"
        )

    @property
    def structured(self) -> dict[str, Any] | None:
        """The `structuredContent` object as received, or None."""
        structured: dict[str, Any] | None = self.raw.structured_content
        return structured

    @property
    def is_error(self) -> bool:
        return bool(self.raw.is_error)

    @property
    def meta(self) -> dict[str, Any] | None:
        """The result's `_meta`, or None."""
        return self.raw.meta

    @property
    def images(self) -> list[ImageContent]:
        """The image blocks; `image_bytes()` decodes them."""
        return [block for block in self.raw.content if block.type == "image"]

    def image_bytes(self) -> list[tuple[bytes, str]]:
        """Each image block decoded: `(data, mime_type)`."""
        return [(_decode_base64(block.data), block.mime_type) for block in self.images]

    @property
    def resource_links(self) -> list[ResourceLink]:
        """The resource links the tool returned (`uri`, `name`, `mime_type`, `icons`, ...): read one with
        `client.read_resource(str(link.uri))`."""
        return [block for block in self.raw.content if block.type == "resource_link"]

    @property
    def embedded_resources(self) -> list[EmbeddedResource]:
        """The resources returned inline (`block.resource` is text or blob contents)."""
        return [block for block in self.raw.content if block.type == "resource"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolResult) and other.raw == self.raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [f"text={shortened(self.text, 80)!r}"]
        if self.raw.structured_content is not None:
            parts.append(
                f"structured={shortened(repr(self.raw.structured_content), 80)}"
            )
        if self.raw.is_error:
            parts.append("is_error=True")
        kinds = {block.type for block in self.raw.content} - {"text"}
        if kinds:
            parts.append(f"other_content={sorted(kinds)}")
        return f"ToolResult({', '.join(parts)})"

    def __getstate__(self) -> dict[str, Any]:
        return {"raw": self.raw}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.raw = state["raw"]


class ResourceResult:
    """The contents of a resource read; `.raw` is the `ReadResourceResult`."""

    __slots__ = ("raw",)

    raw: ReadResourceResult

    def __init__(self, raw: ReadResourceResult) -> None:
        self.raw = raw

    @property
    def contents(self) -> list[ResourceContents]:
        return self.raw.contents

    @property
    def text(self) -> str:
        """Every text item joined with newlines ("" when there is none)."""
        return "\n".join(
            item.text for item in self.raw.contents if _is_text_contents(item)
        )

    @property
    def blobs(self) -> list[bytes]:
        """Every binary item, base64-decoded."""
        return [
            _decode_base64(item.blob)
            for item in self.raw.contents
            if _is_blob_contents(item)
        ]

    @property
    def mime_types(self) -> list[str | None]:
        return [item.mime_type for item in self.raw.contents]

    @property
    def meta(self) -> dict[str, Any] | None:
        return self.raw.meta

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResourceResult) and other.raw == self.raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        uris = [str(item.uri) for item in self.raw.contents]
        return f"ResourceResult(uris={uris!r}, text={shortened(self.text, 80)!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"raw": self.raw}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.raw = state["raw"]


def _is_text_contents(item: ResourceContents) -> TypeIs[TextResourceContents]:
    return hasattr(item, "text")


def _is_blob_contents(item: ResourceContents) -> TypeIs[BlobResourceContents]:
    return hasattr(item, "blob")


class PromptResult:
    """A rendered prompt; `.raw` is the `GetPromptResult`."""

    __slots__ = ("raw",)

    raw: GetPromptResult

    def __init__(self, raw: GetPromptResult) -> None:
        self.raw = raw

    @property
    def description(self) -> str | None:
        return self.raw.description

    @property
    def messages(self) -> list[PromptMessage]:
        return self.raw.messages

    @property
    def text(self) -> str:
        """The text of every text message joined with newlines."""
        return "\n".join(
            m.content.text for m in self.raw.messages if m.content.type == "text"
        )

    @property
    def meta(self) -> dict[str, Any] | None:
        return self.raw.meta

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PromptResult) and other.raw == self.raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"PromptResult(description={self.description!r}, "
            f"messages={len(self.raw.messages)}, text={shortened(self.text, 80)!r})"
        )

    def __getstate__(self) -> dict[str, Any]:
        return {"raw": self.raw}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.raw = state["raw"]
