"""Runtime support shipped inside every generated client package (as its `_runtime` subpackage).

Only relative imports, no dependency on mcp-codegen itself, and nothing heavy at import time:
`mcp` and `mcp_types` are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .calls.drift import DriftSummary, SchemaDriftError
from .calls.errors import (
    ArgumentsValidationError,
    AuthRequiredError,
    ConnectError,
    ConnectionClosedError,
    HttpStatusError,
    McpClientError,
    OutcomeUnknownError,
    PromptError,
    ProtocolError,
    RequestTimeoutError,
    ResourceError,
    ResultValidationError,
    ServerRequestError,
    SnapshotError,
    SubscriptionLostError,
    TaskCancelledError,
    TaskNotFoundError,
    ToolError,
    UnknownToolError,
    UnsupportedByServerError,
)
from .calls.options import CallOptions, ProgressCallback
from .calls.results import PromptResult, ResourceResult, ToolResult
from .calls.retries import Retries
from .calls.sentinel import NOT_SENT, NotSent
from .calls.specs import PromptSpec, ResourceSpec, SnapshotData, TemplateSpec, ToolSpec
from .calls.tasks import TaskState
from .client.base import AsyncClientBase, AsyncPromptsBase, AsyncResourcesBase
from .client.blocking import (
    SyncConnection,
    SyncPromptsBase,
    SyncResourcesBase,
    SyncTask,
    SyncTasksBase,
)
from .client.sync_client import SyncClientBase
from .connection.session import AsyncConnection
from .server_requests import (
    Accept,
    Cancel,
    Completion,
    Decline,
    ElicitationRequest,
    ListChanged,
    LogMessage,
    Root,
    SamplingMessage,
    SamplingRequest,
    SamplingTool,
    ServerRequests,
    ToolUse,
    accept_defaults,
    ask_on_terminal,
)

#: What every generated package's `__init__` re-exports from its runtime, in import order (constants,
#: classes, functions): the package template imports exactly these, and the generator keeps model class
#: names off them.
PACKAGE_EXPORTS: tuple[str, ...] = (
    "NOT_SENT",
    "Accept",
    "ArgumentsValidationError",
    "AuthRequiredError",
    "CallOptions",
    "Cancel",
    "Completion",
    "ConnectError",
    "ConnectionClosedError",
    "Decline",
    "ElicitationRequest",
    "HttpStatusError",
    "ListChanged",
    "LogMessage",
    "McpClientError",
    "NotSent",
    "OutcomeUnknownError",
    "ProgressCallback",
    "PromptError",
    "PromptResult",
    "ProtocolError",
    "RequestTimeoutError",
    "ResourceError",
    "ResourceResult",
    "ResultValidationError",
    "Retries",
    "Root",
    "SamplingMessage",
    "SamplingRequest",
    "SamplingTool",
    "SchemaDriftError",
    "ServerRequestError",
    "SnapshotError",
    "SubscriptionLostError",
    "TaskCancelledError",
    "TaskNotFoundError",
    "TaskState",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "ToolUse",
    "UnknownToolError",
    "UnsupportedByServerError",
    "accept_defaults",
    "ask_on_terminal",
)

if TYPE_CHECKING:
    from .agents import AgentTool, ContentPart, ToolOutput, ToolSet
    from .agents.names import agent_tool_names
    from .auth import TokenStore, client_credentials, oauth, stored, workload
    from .calls.tracing import ToolCall, TraceRecorder
    from .client.task_handles import AsyncTasksBase, Task

#: What every generated package also re-exports, imported on first use: name -> runtime module.
PACKAGE_LAZY_EXPORTS: dict[str, str] = {
    "ToolSet": "agents",
    "TokenStore": "auth",
    "client_credentials": "auth",
    "oauth": "auth",
    "stored": "auth",
    "workload": "auth",
}

# Agent tools, tracing and OAuth are imported on first use (they are not needed to make calls).
_LAZY = {
    **PACKAGE_LAZY_EXPORTS,
    "AgentTool": "agents",
    "ContentPart": "agents",
    "ToolOutput": "agents",
    "agent_tool_names": "agents.names",
    "ToolCall": "calls.tracing",
    "TraceRecorder": "calls.tracing",
    "Task": "client.task_handles",
    "AsyncTasksBase": "client.task_handles",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "PACKAGE_EXPORTS",
    "PACKAGE_LAZY_EXPORTS",
    "Accept",
    "Cancel",
    "Completion",
    "Decline",
    "ElicitationRequest",
    "ListChanged",
    "LogMessage",
    "Root",
    "SamplingMessage",
    "SamplingRequest",
    "SamplingTool",
    "ServerRequests",
    "ToolUse",
    "accept_defaults",
    "ask_on_terminal",
    "DriftSummary",
    "SchemaDriftError",
    "NOT_SENT",
    "AgentTool",
    "ArgumentsValidationError",
    "AuthRequiredError",
    "AsyncClientBase",
    "AsyncConnection",
    "AsyncPromptsBase",
    "AsyncResourcesBase",
    "AsyncTasksBase",
    "CallOptions",
    "ProgressCallback",
    "ConnectError",
    "ConnectionClosedError",
    "ContentPart",
    "HttpStatusError",
    "McpClientError",
    "NotSent",
    "OutcomeUnknownError",
    "PromptError",
    "PromptResult",
    "PromptSpec",
    "ProtocolError",
    "RequestTimeoutError",
    "ResourceError",
    "ResourceResult",
    "ResourceSpec",
    "ResultValidationError",
    "Retries",
    "ServerRequestError",
    "SnapshotData",
    "SnapshotError",
    "SubscriptionLostError",
    "SyncClientBase",
    "SyncConnection",
    "SyncPromptsBase",
    "SyncResourcesBase",
    "SyncTask",
    "SyncTasksBase",
    "Task",
    "TaskCancelledError",
    "TaskNotFoundError",
    "TaskState",
    "TemplateSpec",
    "ToolCall",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "ToolSet",
    "ToolSpec",
    "TraceRecorder",
    "UnknownToolError",
    "UnsupportedByServerError",
    "agent_tool_names",
    "client_credentials",
    "oauth",
    "stored",
    "workload",
    "TokenStore",
]
