"""Result drift (`check --results-from`): new recordings against the result types a snapshot observed.

For each tool the snapshot has an observed result type for (`observedResults`), the JSON answers found in the
new recordings are joined into a schema the same way (`snapshot.observed`) and walked against the old one as
a received schema, by the listing drift's output rules (`result_rules` says where observed types differ).
Findings are located at `tools.<name>.observed...`. A tool with no answer in the new recordings is not
compared; one whose answers hold no JSON is breaking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcp_codegen.drift.findings import Findings
from mcp_codegen.drift.model import DriftReport
from mcp_codegen.drift.normalize import normalize_schema
from mcp_codegen.drift.result_rules import OBSERVED_OVERRIDES
from mcp_codegen.drift.schemas import SchemaWalker
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen.snapshot.observed import infer_schema

__all__ = ["diff_results"]


def diff_results(snapshot: Snapshot, answers: Mapping[str, Sequence[object]]) -> DriftReport:
    """Every classified difference between the snapshot's observed result types and `answers` (by tool: the JSON
    of each recorded answer, None for one without JSON; `snapshot.observed.recorded_answers`)."""
    out = Findings(OBSERVED_OVERRIDES)
    for name in sorted(snapshot.observed_results):
        samples = answers.get(name)
        if not samples:
            continue
        base = f"tools.{name}.observed"
        not_json = sum(sample is None for sample in samples)
        if not_json:
            out.emit(
                "observed-results-not-json", base, None, not_json, name=name, detail=f"{not_json} of {len(samples)}"
            )
            samples = [sample for sample in samples if sample is not None]
            if not samples:
                continue
        old = snapshot.observed_results[name].get("schema")
        new = infer_schema(samples)
        SchemaWalker("output", out).diff_root(normalize_schema(old), normalize_schema(new), base)
    return DriftReport(findings=out.sorted())
