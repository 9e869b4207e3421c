"""Requests and notifications the server sends to the client: typed handlers for elicitation, sampling, roots, logs.

`messages` holds the typed requests and answers, `elicitation` checks answers against the
requested schema and has the stock handlers, `dispatch` wires handlers into the SDK session.
"""

from __future__ import annotations

from .dispatch import ServerRequests
from .elicitation import accept_defaults, ask_on_terminal, elicited_content
from .messages import (
    Accept,
    Cancel,
    ChangeHandler,
    ChangeKind,
    Completion,
    Decline,
    ElicitationAnswer,
    ElicitationHandler,
    ElicitationRequest,
    ListChanged,
    LogHandler,
    LogLevel,
    LogMessage,
    ResourceUpdatedHandler,
    Root,
    RootLike,
    SamplingAnswer,
    SamplingHandler,
    SamplingMessage,
    SamplingRequest,
    SamplingTool,
    ToolUse,
    list_changed_kind,
    root_uri,
    updated_resource,
)

__all__ = [
    "Accept",
    "Cancel",
    "ChangeHandler",
    "ChangeKind",
    "Completion",
    "Decline",
    "ElicitationAnswer",
    "ElicitationHandler",
    "ElicitationRequest",
    "ListChanged",
    "LogHandler",
    "LogLevel",
    "LogMessage",
    "ResourceUpdatedHandler",
    "Root",
    "RootLike",
    "SamplingAnswer",
    "SamplingHandler",
    "SamplingMessage",
    "SamplingRequest",
    "SamplingTool",
    "ServerRequests",
    "ToolUse",
    "accept_defaults",
    "ask_on_terminal",
    "elicited_content",
    "list_changed_kind",
    "root_uri",
    "updated_resource",
]
