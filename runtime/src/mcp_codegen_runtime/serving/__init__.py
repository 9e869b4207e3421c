"""The other side of the wire: a fake server that answers from a snapshot, and serving a server object.

Public (generated `testing` and server modules import these): `FakeServer` and its hooks, and the transports.
Each is imported from its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .fake import FakeServer
    from .hooks import (
        FakeCall,
        FakeContext,
        FakeError,
        NoVariables,
        PromptHook,
        PromptHooks,
        ResourceHook,
        ResourceHooks,
        ToolHook,
        ToolHooks,
    )
    from .transport import AddressInUseError, parse_address, serve_http, serve_stdio

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "fake": ("FakeServer",),
        "hooks": (
            "FakeCall",
            "FakeContext",
            "FakeError",
            "NoVariables",
            "PromptHook",
            "PromptHooks",
            "ResourceHook",
            "ResourceHooks",
            "ToolHook",
            "ToolHooks",
        ),
        "transport": (
            "AddressInUseError",
            "parse_address",
            "serve_http",
            "serve_stdio",
        ),
    },
)

__all__ = [
    "AddressInUseError",
    "FakeCall",
    "FakeContext",
    "FakeError",
    "FakeServer",
    "NoVariables",
    "PromptHook",
    "PromptHooks",
    "ResourceHook",
    "ResourceHooks",
    "ToolHook",
    "ToolHooks",
    "parse_address",
    "serve_http",
    "serve_stdio",
]
