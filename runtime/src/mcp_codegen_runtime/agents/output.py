"""What a model receives from a tool call: `ToolOutput` (text and media parts), built from a `ToolResult`.

Models get what the server wrote for them: its content blocks, in order. Text blocks as they are
(a string result is `42`, not the JSON literal `"42"`; a file's text keeps its lines), images and
audio as native blocks where the framework takes them, else a placeholder like
`[image: image/png, 1234 bytes]`; embedded resources as a line naming their URI and MIME type
followed by their text (an image or audio blob as media, other blobs by size), resource links
as a line with name, URI, MIME type and description.

Structured content becomes JSON text only when the result has no (non-empty) text block: the
MCP spec asks servers that send `structuredContent` to send its serialization as text too, and
where a server wrote a text of its own (a summary, a file, a plain string), that text is what it
meant a model to read. The `{"result": ...}` wrapping of SDK-built servers (an outputSchema with a
single `result` property) is removed, and a wrapped string is sent as the string itself. The
structured value stays available to code as `ToolOutput.structured` (and the whole result as
`ToolOutput.result`).

Every framework converter (OpenAI Chat Completions and Responses, Anthropic, LangChain,
pydantic-ai, the OpenAI Agents SDK, the Claude Agent SDK, ADK, smolagents, LlamaIndex) renders
these same parts, so all of them hand a model the same
text. Failures (`isError`, invalid arguments, a timeout, an unknown tool) are outputs with
`is_error` set, never exceptions.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, cast

from ..calls.errors import McpClientError, RequestTimeoutError, ToolError

if TYPE_CHECKING:
    from ..calls.results import ToolResult

__all__ = [
    "ContentPart",
    "ToolOutput",
    "failure_output",
    "output_from_result",
    "resource_parts",
]


class ContentPart:
    """One piece of what a model receives: text, or base64 media (`kind` "image" or "audio")."""

    __slots__ = ("data", "kind", "mime_type", "text")

    kind: Literal["text", "image", "audio"]
    text: str
    data: str
    mime_type: str

    def __init__(
        self,
        kind: Literal["text", "image", "audio"],
        *,
        text: str = "",
        data: str = "",
        mime_type: str = "",
    ) -> None:
        self.kind = kind
        self.text = text
        self.data = data
        self.mime_type = mime_type

    @property
    def size(self) -> int:
        """Decoded size in bytes of media data (computed from the base64 length)."""
        data = self.data.strip()
        return max(0, len(data) * 3 // 4 - data[-2:].count("="))

    @property
    def placeholder(self) -> str:
        """What a text-only model sees instead of this media part."""
        return f"[{self.kind}: {self.mime_type or 'unknown type'}, {self.size} bytes]"

    def as_text(self) -> str:
        return self.text if self.kind == "text" else self.placeholder

    def __repr__(self) -> str:
        if self.kind == "text":
            return f"ContentPart(text={self.text[:60]!r})"
        return f"ContentPart({self.placeholder})"


class ToolOutput:
    """A tool call's outcome as a model receives it: parts (text and media) and an error flag.

    `result` is the full `ToolResult` when the server answered (also for `isError`), `error` the
    exception of a failure (ToolError, ArgumentsValidationError, RequestTimeoutError, ...).
    """

    __slots__ = ("error", "is_error", "parts", "result", "structured")

    def __init__(
        self,
        parts: list[ContentPart],
        *,
        is_error: bool = False,
        result: ToolResult | None = None,
        structured: object = None,
        error: Exception | None = None,
    ) -> None:
        self.parts = parts
        self.is_error = is_error
        self.result = result
        self.structured = structured
        self.error = error

    @classmethod
    def failure(cls, message: str, error: Exception | None = None) -> ToolOutput:
        result = error.result if isinstance(error, ToolError) else None
        return cls(
            [ContentPart("text", text=message)],
            is_error=True,
            result=result,
            error=error,
        )

    @property
    def text(self) -> str:
        """Every part as text (media as placeholders), joined with newlines."""
        return "\n".join(part.as_text() for part in self.parts if part.as_text())

    @property
    def has_media(self) -> bool:
        return any(part.kind != "text" for part in self.parts)

    def error_text(self) -> str:
        """`Error: <text>` for an error (text-only frameworks), else the text."""
        text = self.text
        if not self.is_error:
            return text
        return f"Error: {text}" if text else "Error: the tool failed"

    def as_dict(self) -> dict[str, Any]:
        return {"is_error": self.is_error, "text": self.text}

    # ---- framework forms

    def to_anthropic_content(self) -> list[dict[str, Any]]:
        """Anthropic `tool_result` content blocks: text, images as base64 image blocks."""
        blocks: list[dict[str, Any]] = []
        for part in self.parts:
            if part.kind == "image" and part.mime_type in _ANTHROPIC_IMAGE_TYPES:
                blocks.append(
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": part.mime_type,
                            "data": part.data,
                        },
                    }
                )
            else:
                text = part.as_text()
                if text:  # Anthropic rejects empty text blocks
                    blocks.append({"type": "text", "text": text})
        return blocks

    def to_openai_responses_output(self) -> str | list[dict[str, Any]]:
        """A Responses API `function_call_output.output`: a string, or input items with images."""
        if not any(part.kind == "image" for part in self.parts):
            return self.error_text()
        items: list[dict[str, Any]] = []
        if self.is_error:
            items.append({"type": "input_text", "text": "Error:"})
        for part in self.parts:
            if part.kind == "image":
                items.append(
                    {
                        "type": "input_image",
                        "image_url": f"data:{part.mime_type};base64,{part.data}",
                    }
                )
            elif part.as_text():
                items.append({"type": "input_text", "text": part.as_text()})
        return items

    def to_langchain_content(self) -> str | list[dict[str, Any]]:
        """LangChain tool message content: a string, or standard blocks with images and audio."""
        if not self.has_media:
            return self.text
        blocks: list[dict[str, Any]] = []
        for part in self.parts:
            if part.kind != "text":
                blocks.append(
                    {
                        "type": part.kind,
                        "base64": part.data,
                        "mime_type": part.mime_type,
                    }
                )
            elif part.as_text():
                blocks.append({"type": "text", "text": part.as_text()})
        return blocks

    def __repr__(self) -> str:
        flag = ", is_error=True" if self.is_error else ""
        return f"ToolOutput(text={self.text[:80]!r}{flag})"


_ANTHROPIC_IMAGE_TYPES = frozenset(
    {"image/jpeg", "image/png", "image/gif", "image/webp"}
)


def resource_parts(resource: Any) -> list[ContentPart]:
    """An embedded resource: a line naming its URI and MIME type, then its text, or its image or
    audio as a media part, or (other binary data) its size.
    """
    uri = str(getattr(resource, "uri", ""))
    mime = getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        kind = f" ({mime})" if mime else ""
        return [ContentPart("text", text=f"[resource {uri}{kind}]\n{text}")]
    mime = mime or "application/octet-stream"
    blob = str(getattr(resource, "blob", "")).strip()
    size = max(0, len(blob) * 3 // 4 - blob[-2:].count("="))
    header = ContentPart("text", text=f"[resource {uri}: {mime}, {size} bytes]")
    media = mime.partition("/")[0]
    if media == "image":
        return [header, ContentPart("image", data=blob, mime_type=mime)]
    if media == "audio":
        return [header, ContentPart("audio", data=blob, mime_type=mime)]
    return [header]


def _link_text(block: Any) -> str:
    """A resource link as one line: name, URI, MIME type and description when listed."""
    mime = f" ({block.mime_type})" if block.mime_type else ""
    about = f": {block.description}" if getattr(block, "description", None) else ""
    return f"[resource link: {block.name} {block.uri}{mime}{about}]"


def _structured_text(structured: dict[str, Any], unwrap: bool) -> str:
    """Structured content as a model reads it: unwrapped from `{"result": ...}`, a string as is."""
    value: object = structured
    if unwrap and "result" in structured:
        value = structured["result"]
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def output_from_result(result: ToolResult, *, unwrap: bool = False) -> ToolOutput:
    """What a model gets from a tool's result (see the module docstring)."""
    raw = result.raw
    parts: list[ContentPart] = []
    structured = raw.structured_content
    has_text = any(block.type == "text" and block.text for block in raw.content)
    if structured is not None and not has_text:
        parts.append(ContentPart("text", text=_structured_text(structured, unwrap)))
    for block in raw.content:
        if block.type == "text":
            if block.text:
                parts.append(ContentPart("text", text=block.text))
        elif block.type == "image":
            parts.append(
                ContentPart("image", data=block.data, mime_type=block.mime_type)
            )
        elif block.type == "audio":
            parts.append(
                ContentPart("audio", data=block.data, mime_type=block.mime_type)
            )
        elif block.type == "resource_link":
            parts.append(ContentPart("text", text=_link_text(block)))
        elif block.type == "resource":
            parts.extend(resource_parts(block.resource))
        else:  # pragma: no cover - a future block type
            kind: object = cast(Any, block).type
            parts.append(ContentPart("text", text=f"[{kind} content]"))
    return ToolOutput(
        parts, is_error=bool(raw.is_error), result=result, structured=structured
    )


def failure_output(error: McpClientError, timeout: float | None) -> ToolOutput:
    """A failure as the model sees it: an `isError` result keeps its content."""
    if isinstance(error, ToolError):
        output = output_from_result(error.result)
        output.is_error = True
        output.error = error
        if not output.text:
            output.parts.append(ContentPart("text", text=str(error)))
        return output
    if isinstance(error, RequestTimeoutError):
        after = f" after {timeout:g} s" if timeout is not None else ""
        return ToolOutput.failure(f"the tool call timed out{after}", error)
    return ToolOutput.failure(str(error), error)
