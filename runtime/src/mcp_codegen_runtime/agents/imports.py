"""Imports an agent framework on first use, with a clear message naming the package when it is missing."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["require"]

# Top-level module -> the pip package that provides it.
_INSTALL = {
    "openai": "openai",
    "anthropic": "anthropic",
    "langchain_core": "langchain-core",
    "pydantic_ai": "pydantic-ai-slim",
    "agents": "openai-agents",
    "claude_agent_sdk": "claude-agent-sdk",
    "google": "google-adk",
    "smolagents": "smolagents",
    "PIL": "pillow",
    "llama_index": "llama-index-core",
}


def require(module: str, what: str) -> Any:
    """Import `module` for `what` (e.g. "to_langchain()"); ImportError with the pip command when missing."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        top = module.partition(".")[0]
        package = _INSTALL.get(top, top)
        raise ImportError(
            f"{what} needs the {package!r} package, which is not installed: pip install {package}"
        ) from error
