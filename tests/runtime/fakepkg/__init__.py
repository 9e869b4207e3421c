"""A hand-written stand-in for a generated client package, built on mcp_codegen_runtime."""

from __future__ import annotations

from .client import AsyncClient, Client

__all__ = ["AsyncClient", "Client"]
