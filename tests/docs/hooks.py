"""The docs' MkDocs hook (scripts/docs_hooks.py), importable from the tests: pages as the site renders them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcp_codegen_docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _load()


def render_docs_page(page: str) -> str:
    """The Markdown of `docs/<page>` with its tables rendered, as the hook hands it to MkDocs."""
    return str(HOOKS.render_tables((DOCS / page).read_text(encoding="utf-8")))
