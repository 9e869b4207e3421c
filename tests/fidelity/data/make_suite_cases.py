"""Write `suite_cases.json`: the schemas and instances of the JSON Schema Test Suite, for the typed-result tests.

    python tests/fidelity/data/make_suite_cases.py PATH_TO_JSON-Schema-Test-Suite

Reads `tests/draft2020-12/*.json` and `tests/draft7/*.json` (not `optional/`) of a checkout of
https://github.com/json-schema-org/JSON-Schema-Test-Suite and writes every schema with its instances, compactly,
the suite's `valid` left out: the test judges each instance itself, with `jsonschema` in the schema's dialect,
as the schema is served (`dialect` names the draft of the file; the suite's draft7 schemas leave `$schema` out).
The suite's license: LICENSE-JSON-Schema-Test-Suite next to this file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DRAFTS = ("draft2020-12", "draft7")


def cases(suite: Path) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for draft in DRAFTS:
        for path in sorted((suite / "tests" / draft).glob("*.json")):
            for group in json.loads(path.read_text(encoding="utf-8")):
                found.append(
                    {
                        "file": f"{draft}/{path.name}",
                        "description": group["description"],
                        "dialect": draft,
                        "schema": group["schema"],
                        "instances": [test["data"] for test in group["tests"]],
                    }
                )
    return found


def main() -> None:
    suite = Path(sys.argv[1])
    commit = subprocess.run(
        ["git", "-C", str(suite), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    document = {"source": "json-schema-org/JSON-Schema-Test-Suite", "commit": commit or None, "cases": cases(suite)}
    out = Path(__file__).with_name("suite_cases.json")
    out.write_text(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(document['cases'])} schemas written to {out}")


if __name__ == "__main__":
    main()
