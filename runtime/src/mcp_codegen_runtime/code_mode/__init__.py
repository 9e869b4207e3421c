"""Code mode: a model's Python run against the package's typed code API, type-checked first, in a sandbox.

* `api`: the shipped `code_api.pyi` read as functions and classes (the whole stub, a subset, an index);
* `errors`: `CodeTypeError`, `CodeError`, `CodeLimitError` (all `CodeRunError`);
* `host`: one run's host side: its calls in a task group it owns (none outlives the run), its limits;
* `sandbox`: one run in `pydantic-monty` (the `code` extra), each call of the code a typed tool call;
* `agent_tool`: `run_python`, the one agent tool of `client.tools(code=True)`.

Nothing here imports `pydantic_monty` until code runs, so a package without the extra still imports.
"""

from __future__ import annotations

from .errors import CodeError, CodeLimitError, CodeRunError, CodeTypeError
from .host import CallStatus, LimitName
from .sandbox import (
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_OUTPUT,
    DEFAULT_MEMORY,
    DEFAULT_TIMEOUT,
    CodeCall,
    CodeResult,
)

__all__ = [
    "DEFAULT_MAX_CALLS",
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_MEMORY",
    "DEFAULT_TIMEOUT",
    "CallStatus",
    "CodeCall",
    "CodeError",
    "CodeLimitError",
    "CodeResult",
    "CodeRunError",
    "CodeTypeError",
    "LimitName",
]
