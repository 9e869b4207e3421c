"""Runtime support shipped inside every generated client package (as its `_runtime` subpackage).

Only relative imports and no dependency on mcp-codegen itself. Every name here is imported on first use
(PEP 562), so importing one runtime module (the generator reads a few: `text`, `calls.drift`, `files`) never
loads the rest, pydantic and `mcp` included; a generated package's `__init__` imports what it re-exports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agents import AgentTool, ContentPart, ToolOutput, ToolSet
    from .agents.names import agent_tool_names
    from .auth import TokenStore, client_credentials, oauth, stored, workload
    from .calls.drift import DriftSummary, SchemaDriftError
    from .calls.errors import (
        ArgumentsValidationError,
        AuthRequiredError,
        ConnectError,
        ConnectionClosedError,
        HttpStatusError,
        McpClientError,
        NoUIError,
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
    from .calls.specs import (
        PromptSpec,
        ResourceSpec,
        SnapshotData,
        TemplateSpec,
        ToolSpec,
    )
    from .calls.tasks import TaskState
    from .calls.tracing import ToolCall, TraceRecorder
    from .calls.ui import ToolUI, UICsp, UIPermissions, UIResource
    from .client.base import AsyncClientBase, AsyncPromptsBase, AsyncResourcesBase
    from .client.blocking import (
        SyncConnection,
        SyncPromptsBase,
        SyncResourcesBase,
    )
    from .client.sync_client import SyncClientBase
    from .client.sync_tasks import SyncTask, SyncTasksBase
    from .client.task_handles import AsyncTasksBase, Task
    from .code_mode import (
        CodeCall,
        CodeError,
        CodeLimitError,
        CodeResult,
        CodeRunError,
        CodeTypeError,
    )
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
    "NoUIError",
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

#: What every generated package also re-exports, imported on first use: name -> runtime module.
PACKAGE_LAZY_EXPORTS: dict[str, str] = {
    "CodeCall": "code_mode",
    "CodeError": "code_mode",
    "CodeLimitError": "code_mode",
    "CodeResult": "code_mode",
    "CodeRunError": "code_mode",
    "CodeTypeError": "code_mode",
    "ToolSet": "agents",
    "TokenStore": "auth",
    "client_credentials": "auth",
    "oauth": "auth",
    "stored": "auth",
    "workload": "auth",
}

#: Where each name of this package lives (module relative to it): imported from there on first use.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "agents": (
        "AgentTool",
        "ContentPart",
        "ToolOutput",
        "ToolSet",
    ),
    "agents.names": ("agent_tool_names",),
    "code_mode": (
        "CodeCall",
        "CodeError",
        "CodeLimitError",
        "CodeResult",
        "CodeRunError",
        "CodeTypeError",
    ),
    "auth": (
        "TokenStore",
        "client_credentials",
        "oauth",
        "stored",
        "workload",
    ),
    "calls.drift": (
        "DriftSummary",
        "SchemaDriftError",
    ),
    "calls.errors": (
        "ArgumentsValidationError",
        "AuthRequiredError",
        "ConnectError",
        "ConnectionClosedError",
        "HttpStatusError",
        "McpClientError",
        "NoUIError",
        "OutcomeUnknownError",
        "PromptError",
        "ProtocolError",
        "RequestTimeoutError",
        "ResourceError",
        "ResultValidationError",
        "ServerRequestError",
        "SnapshotError",
        "SubscriptionLostError",
        "TaskCancelledError",
        "TaskNotFoundError",
        "ToolError",
        "UnknownToolError",
        "UnsupportedByServerError",
    ),
    "calls.options": (
        "CallOptions",
        "ProgressCallback",
    ),
    "calls.results": (
        "PromptResult",
        "ResourceResult",
        "ToolResult",
    ),
    "calls.retries": ("Retries",),
    "calls.sentinel": (
        "NOT_SENT",
        "NotSent",
    ),
    "calls.specs": (
        "PromptSpec",
        "ResourceSpec",
        "SnapshotData",
        "TemplateSpec",
        "ToolSpec",
    ),
    "calls.tasks": ("TaskState",),
    "calls.ui": (
        "ToolUI",
        "UICsp",
        "UIPermissions",
        "UIResource",
    ),
    "calls.tracing": (
        "ToolCall",
        "TraceRecorder",
    ),
    "client.base": (
        "AsyncClientBase",
        "AsyncPromptsBase",
        "AsyncResourcesBase",
    ),
    "client.blocking": (
        "SyncConnection",
        "SyncPromptsBase",
        "SyncResourcesBase",
    ),
    "client.sync_client": ("SyncClientBase",),
    "client.sync_tasks": ("SyncTask", "SyncTasksBase"),
    "client.task_handles": (
        "AsyncTasksBase",
        "Task",
    ),
    "connection.session": ("AsyncConnection",),
    "server_requests": (
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
    ),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "PACKAGE_EXPORTS",
    "PACKAGE_LAZY_EXPORTS",
    "Accept",
    "Cancel",
    "CodeCall",
    "CodeError",
    "CodeLimitError",
    "CodeResult",
    "CodeRunError",
    "CodeTypeError",
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
    "NoUIError",
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
    "ToolUI",
    "TraceRecorder",
    "UICsp",
    "UIPermissions",
    "UIResource",
    "UnknownToolError",
    "UnsupportedByServerError",
    "agent_tool_names",
    "client_credentials",
    "oauth",
    "stored",
    "workload",
    "TokenStore",
]
