"""Result models made from recorded answers extend the runtime's `ObservedResult` (which keeps the whole result).

The model generator writes every class on `BaseModel`; a tool whose result type was observed
(`--results-from`) gets its root result class rebased here, after the models are made (and cached), so the
cached models stay the same whatever the recordings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mcp_codegen.generate.build_ir import ToolPlan
from mcp_codegen.generate.models import ModelsOutput

_IMPORT = "from mcp_codegen_runtime import ObservedResult"


def with_observed_bases(models: ModelsOutput, plans: Sequence[ToolPlan]) -> ModelsOutput:
    """`models` with the result class of each observed tool extending `ObservedResult`."""
    modules = dict(models.modules)
    for plan in plans:
        result_class = plan.prepared.result_class
        if not plan.observed or result_class is None or result_class not in models.class_module:
            continue
        module = models.class_module[result_class]
        modules[module] = _rebased(modules[module], result_class)
    return replace(models, modules=modules) if modules != models.modules else models


def _rebased(source: str, class_name: str) -> str:
    head, separator, body = source.partition("\n\n\n")
    declaration = f"class {class_name}(BaseModel):"
    if declaration not in body:
        return source
    body = body.replace(declaration, f"class {class_name}(ObservedResult):", 1)
    lines = head.split("\n")
    absolute = sorted(
        {*(line for line in lines[2:] if line.startswith("from ") and not line.startswith("from .")), _IMPORT}
    )
    relative = [line for line in lines[2:] if line.startswith("from .")]
    return "\n".join([*lines[:2], *absolute, *relative]) + separator + body
