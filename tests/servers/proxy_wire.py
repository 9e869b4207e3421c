"""The HTTP/1.1 wire work of the fault-injecting proxy (`fault_proxy.py`): reading, writing and cutting messages."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Sequence
from typing import NamedTuple

MAX_HEAD_BYTES = 64 * 1024
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "content-length", "upgrade"}


class _Request(NamedTuple):
    method: str  # the HTTP method
    target: str
    version: str
    headers: list[tuple[str, str]]
    body: bytes


class _Head(NamedTuple):
    raw: bytes  # the status line and headers, without the blank line
    headers: list[tuple[str, str]]


def _header(headers: Sequence[tuple[str, str]], name: str) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def _dechunk(raw: bytes) -> bytes:
    """The payload of a chunked body (as much of it as is complete)."""
    out = bytearray()
    pos = 0
    while True:
        end = raw.find(b"\r\n", pos)
        if end < 0:
            break
        size = int(raw[pos:end].split(b";")[0].strip() or b"0", 16)
        if size == 0:
            break
        out += raw[end + 2 : end + 2 + size]
        pos = end + 2 + size + 2
    return bytes(out)


def _partial(payload: bytes, content_type: str) -> bytes:
    """The part of a response body `drop_mid` delivers: never the whole JSON-RPC response."""
    if content_type.startswith("text/event-stream"):
        normalized = payload.replace(b"\r\n", b"\n")
        events = normalized.split(b"\n\n")
        sent = bytearray()
        for event in events:
            if b'"result"' in event or b'"error"' in event:
                return bytes(sent + event[: len(event) // 2])
            sent += event + b"\n\n"
    return payload[: len(payload) // 2]


def _abort_with_rst(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def _read_head(reader: asyncio.StreamReader) -> _Head | None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    if len(raw) > MAX_HEAD_BYTES:
        raise ValueError("head too large")
    lines = raw[:-4].decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    return _Head(raw[:-4], headers)


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    head = await _read_head(reader)
    if head is None:
        return None
    method, target, version = head.raw.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
    body = b""
    if (_header(head.headers, "transfer-encoding") or "").lower() == "chunked":
        chunks = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                    pass
                break
            chunks += await reader.readexactly(size)
            await reader.readexactly(2)
        body = bytes(chunks)
    elif (length := _header(head.headers, "content-length")) is not None:
        body = await reader.readexactly(int(length))
    return _Request(method, target, version, head.headers, body)


def _serialize_request(request: _Request) -> bytes:
    lines = [f"{request.method} {request.target} HTTP/1.1"]
    lines += [f"{name}: {value}" for name, value in request.headers if name.lower() not in _HOP_BY_HOP]
    if request.body or request.method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(request.body)}")
    lines += ["Connection: close", "", ""]  # one upstream connection per request: its answer ends at EOF
    return "\r\n".join(lines).encode("latin-1") + request.body


def _client_head(head: _Head) -> bytes:
    """The upstream's response head with ``Connection: close`` (the client opens a new connection next time)."""
    lines = head.raw.split(b"\r\n")
    kept = [line for line in lines[1:] if line.split(b":", 1)[0].strip().lower() not in (b"connection", b"keep-alive")]
    return b"\r\n".join([lines[0], *kept, b"Connection: close", b"", b""])


def _truncated_body(head: _Head, rest: bytes) -> bytes:
    """Part of the body, framed as the head says, so the client sees a response cut short."""
    content_type = _header(head.headers, "content-type") or ""
    if (_header(head.headers, "transfer-encoding") or "").lower() == "chunked":
        part = _partial(_dechunk(rest), content_type)
        return b"%x\r\n%s\r\n" % (len(part), part) if part else b""
    return _partial(rest, content_type)


async def _pipe_until_either_closes(
    up_reader: asyncio.StreamReader, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
) -> None:
    async def upstream_to_client() -> None:
        while chunk := await up_reader.read(65536):
            client_writer.write(chunk)
            await client_writer.drain()

    async def client_gone() -> None:
        # The client sends nothing more after its request (Connection: close); EOF means it hung up.
        while await client_reader.read(65536):
            pass

    tasks = [asyncio.ensure_future(upstream_to_client()), asyncio.ensure_future(client_gone())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
