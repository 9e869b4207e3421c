"""Runtime support shipped inside every generated client package (as its `_runtime` subpackage).

Only relative imports, no dependency on mcp-codegen itself, and nothing heavy at import time:
`mcp` and `mcp_types` are imported on first use.
"""

from __future__ import annotations

from ._connect import AsyncConnection
from .client import AsyncClientBase, AsyncPromptsBase, AsyncResourcesBase
from .errors import (
    ArgumentsValidationError,
    ConnectError,
    ConnectionClosedError,
    McpClientError,
    PromptError,
    ProtocolError,
    RequestTimeoutError,
    ResourceError,
    ResultValidationError,
    ServerRequestError,
    SnapshotError,
    ToolError,
    UnknownToolError,
)
from .results import PromptResult, ResourceResult, ToolResult
from .sentinel import NOT_SENT, NotSent
from .specs import PromptSpec, ResourceSpec, SnapshotData, TemplateSpec, ToolSpec
from .sync import SyncClientBase, SyncConnection, SyncPromptsBase, SyncResourcesBase

__all__ = [
    "NOT_SENT",
    "ArgumentsValidationError",
    "AsyncClientBase",
    "AsyncConnection",
    "AsyncPromptsBase",
    "AsyncResourcesBase",
    "ConnectError",
    "ConnectionClosedError",
    "McpClientError",
    "NotSent",
    "PromptError",
    "PromptResult",
    "PromptSpec",
    "ProtocolError",
    "RequestTimeoutError",
    "ResourceError",
    "ResourceResult",
    "ResourceSpec",
    "ResultValidationError",
    "ServerRequestError",
    "SnapshotData",
    "SnapshotError",
    "SyncClientBase",
    "SyncConnection",
    "SyncPromptsBase",
    "SyncResourcesBase",
    "TemplateSpec",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "UnknownToolError",
]
