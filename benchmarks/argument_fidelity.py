"""Argument fidelity of generated methods, measured on the official JSON-Schema-Test-Suite (issue 31).

    python benchmarks/argument_fidelity.py --suite PATH/TO/JSON-Schema-Test-Suite \
        [--dialect draft2020-12 draft7] [--placement property root] [--report report.json] [--keep DIR]

The suite is held out: it is read from a local checkout, never copied into this repository.

Each test case's schema S becomes one tool whose input schema is
`{"$schema": D, "type": "object", "properties": {"v": S'}, "required": ["v"], "$defs"/"definitions": ...}`:
S's own `$schema` (else the dialect's) and its root `$defs`/`definitions` move to the wrapper's root, and every
JSON-pointer `$ref` into S is rewritten for the wrapper (`#` -> `#/properties/v`, `#/x/...` ->
`#/properties/v/x/...`, pointers into the moved `$defs`/`definitions` unchanged). A case is skipped (and counted
under its reason) when it cannot be wrapped faithfully: a `$ref` that is not a local JSON pointer (remote
`http://localhost:1234/...`, relative URIs, `#anchor`s), `$id`, `$anchor`, `$dynamicRef`/`$dynamicAnchor`,
`$recursiveRef`/`$recursiveAnchor`, a `$schema` below the root, or such keywords inside unknown keywords. A test
whose wrapped form `jsonschema` (in the dialect, formats not asserted) judges otherwise than the suite is
skipped too (counted as `judged-otherwise`), so every instance measured is one the wrapper judges as S does.
(On the suite's commit of Nov 2026 that is only the `\p{...}` patterns Python's `re` does not know.)

`--placement root` (besides or instead of the default `property`) measures the top level too: each case whose
schema is an object schema (no `type`, or `"object"`) is itself the tool's input schema (`"type": "object"`
added when absent; nothing is rewritten), and only its object instances are sent, as keyword arguments.

One snapshot per dialect holds one tool per kept case; `mcp-codegen generate --snapshot` writes a package (a
failing generation is split in halves until the failing tools are found); the package is imported and connected
over stdio to `tests/fidelity/echo_server.py`, a low-level SDK server listing the same raw schemas and answering
each call with the arguments it received, decoded from the raw JSON-RPC line with the standard library. Each
instance is sent with the typed method, `v=instance`, and classified:

    valid-ok        valid, accepted, arrived as given: each top-level argument's `json.dumps` text unchanged
                    (numbers in the same int/float form, nested key order kept; the top-level order is the
                    method's, as keyword arguments have none)
    valid-refused   valid, refused before sending (ArgumentsValidationError)
    valid-changed   valid, accepted, arrived different
    invalid-refused invalid, refused before sending (and nothing reached the server)
    invalid-sent    invalid, sent
    inexpressible   (root placement) the instance has keys the schema names beyond its properties (through
                    additionalProperties, patternProperties, ...) and the method cannot take them (cause 9);
                    unlisted keys of a schema that merely leaves `additionalProperties` out go through
                    `client.call(name, {...})`, the documented way, and are classified like typed calls
    broken          generation failed, the models do not import, the method takes no `v` (or requires a
                    parameter a valid instance lacks), or it raised anything else than ArgumentsValidationError

Prints a table per dialect and the failures grouped by cause (the suite file, i.e. the keyword under test);
`--report` writes everything as JSON.
"""

from __future__ import annotations

import argparse
import copy
import functools
import importlib
import inspect
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import jsonschema

ROOT = Path(__file__).resolve().parents[1]
FIDELITY_TESTS = ROOT / "tests" / "fidelity"
ECHO_SERVER = FIDELITY_TESTS / "echo_server.py"
sys.path[:0] = [str(FIDELITY_TESTS), str(ROOT / "tests")]  # the tests' harness: how a typed method takes arguments

from fid_harness import same_form, says_extra_keys, typed_keywords  # noqa: E402

DIALECTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}
CATEGORIES = (
    "valid-ok", "valid-refused", "valid-changed", "invalid-refused", "invalid-sent", "inexpressible", "broken"
)  # fmt: skip
CALL_TIMEOUT = 30.0

# Keywords whose value is one subschema, a map of subschemas, or a list of subschemas (both dialects).
_ONE = {
    "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items",
}  # fmt: skip
_MAP = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
_LIST = {"allOf", "anyOf", "oneOf", "prefixItems", "items"}
_DATA = {"const", "enum", "default", "examples", "required", "dependentRequired", "type", "format", "pattern",
         "$comment", "title", "description", "contentMediaType", "contentEncoding", "$ref", "$schema"}  # fmt: skip
_UNWRAPPABLE = ("$id", "id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor")
_NUMERIC = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
            "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains", "uniqueItems",
            "readOnly", "writeOnly", "deprecated"}  # fmt: skip


class Unwrappable(Exception):
    """The case's schema cannot be moved under a property faithfully; the message is the reason."""


@dataclass
class Outcome:
    dialect: str
    file: str
    case: str
    test: str
    valid: bool
    category: str
    detail: str = ""
    keywords: list[str] = field(default_factory=list)


@dataclass
class Tool:
    name: str
    file: str
    case: dict[str, Any]
    input_schema: dict[str, Any]
    tests: list[dict[str, Any]]
    keywords: list[str]
    placement: str


def outcome_of(tool: Tool, test: dict[str, Any], dialect: str, category: str, detail: str = "") -> Outcome:
    return Outcome(dialect, tool.file, tool.case["description"], test["description"], test["valid"], category, detail,
                   tool.keywords)  # fmt: skip


def all_broken(tool: Tool, dialect: str, reason: str) -> list[Outcome]:
    """Every test of `tool` broken for `reason` (it was not generated, does not import, cannot be called)."""
    return [outcome_of(tool, test, dialect, "broken", reason) for test in tool.tests]


def _subschemas(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(keyword, subschema) for every direct subschema of `schema`; raises Unwrappable for hidden keywords."""
    for key, value in schema.items():
        if key in _MAP and isinstance(value, dict):
            for sub in value.values():
                if isinstance(sub, dict | bool):
                    yield key, sub
        elif key in _LIST and isinstance(value, list):
            for sub in value:
                yield key, sub
        elif key in _ONE:
            yield key, value
        elif key in _DATA or key in _NUMERIC:
            continue
        elif isinstance(value, dict | list) and any(
            f'"{word}"' in json.dumps(value) for word in (*_UNWRAPPABLE, "$ref")
        ):
            raise Unwrappable(f"{key} (unknown keyword) holds schema keywords")


def _check(schema: Any, at_root: bool, keywords: set[str]) -> None:
    if not isinstance(schema, dict):
        return
    keywords.update(schema)
    for word in _UNWRAPPABLE:
        if word in schema and not (word == "id" and not isinstance(schema[word], str)):
            raise Unwrappable(word)
    if "$schema" in schema and not at_root:
        raise Unwrappable("$schema below the root")
    ref = schema.get("$ref")
    if isinstance(ref, str) and not (ref == "#" or ref.startswith("#/")):
        raise Unwrappable("remote ref" if "://" in ref else "ref not a local pointer")
    for _, sub in _subschemas(schema):
        _check(sub, False, keywords)


def _rewrite(schema: Any, moved: set[str]) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str):
            head = value[2:].split("/", 1)[0] if value.startswith("#/") else None
            out[key] = value if head in moved else "#/properties/v" + value[1:]
        elif key in _MAP and isinstance(value, dict):
            out[key] = {name: _rewrite(sub, moved) for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [_rewrite(sub, moved) for sub in value]
        elif key in _ONE:
            out[key] = _rewrite(value, moved)
        else:
            out[key] = value
    return out


def wrap(schema: Any, dialect: str) -> tuple[dict[str, Any], list[str]]:
    """The tool input schema holding `schema` as property `v`, and the keywords `schema` uses."""
    keywords: set[str] = set()
    _check(schema, True, keywords)
    root: dict[str, Any] = {"$schema": DIALECTS[dialect]}
    inner: Any = schema
    if isinstance(schema, dict):
        inner = dict(schema)
        root["$schema"] = inner.pop("$schema", DIALECTS[dialect])
        if root["$schema"] not in DIALECTS.values():
            raise Unwrappable("$schema of another metaschema")
        moved = {key for key in ("$defs", "definitions") if isinstance(inner.get(key), dict)}
        inner = _rewrite(inner, moved)
        for key in moved:
            root[key] = inner.pop(key)
    root.update({"type": "object", "properties": {"v": inner}, "required": ["v"]})
    return root, sorted(keywords - {"$schema"})


def as_root(schema: Any, dialect: str) -> tuple[dict[str, Any], list[str]]:
    """`schema` itself as the tool input schema (root placement), `"type": "object"` added when absent."""
    keywords: set[str] = set()
    _check(schema, True, keywords)
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise Unwrappable("not an object schema (root placement)")
    root = {"$schema": DIALECTS[dialect], **schema}
    if root["$schema"] not in DIALECTS.values():
        raise Unwrappable("$schema of another metaschema")
    root.setdefault("type", "object")
    return root, sorted(keywords - {"$schema"})


def load_tools(suite: Path, dialect: str, placement: str, skipped: Counter[str]) -> list[Tool]:
    tools: list[Tool] = []
    place = wrap if placement == "property" else as_root
    for path in sorted((suite / "tests" / dialect).glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            try:
                schema, keywords = place(case["schema"], dialect)
            except Unwrappable as reason:
                skipped[f"case: {reason}"] += 1
                skipped["tests in skipped cases"] += len(case["tests"])
                continue
            validator_class = jsonschema.validators.validator_for(schema)
            validator = validator_class(schema)
            kept = []
            for test in case["tests"]:
                if placement == "root" and not isinstance(test["data"], dict):
                    skipped["test: not an object (root placement)"] += 1
                    continue
                try:
                    judged = validator.is_valid(_arguments(placement, test["data"]))
                except Exception:  # noqa: BLE001 - jsonschema cannot resolve it: not a faithful wrap
                    judged = not test["valid"]
                if judged == test["valid"]:
                    kept.append(test)
                else:
                    skipped["test: judged-otherwise"] += 1
            if kept:
                name = f"c{len(tools) + 1:04d}"
                tools.append(Tool(name, path.stem, case, schema, kept, keywords, placement))
    return tools


def _arguments(placement: str, instance: Any) -> Any:
    return {"v": instance} if placement == "property" else instance


def _snapshot(tools: list[Tool]) -> dict[str, Any]:
    return {
        "formatVersion": 2,
        "serverInfo": {"name": "fidelity-echo", "version": "1.0.0"},
        "capabilities": {"tools": {}},
        "tools": [{"name": tool.name, "inputSchema": tool.input_schema} for tool in tools],
    }


def generate(tools: list[Tool], work: Path, label: str, broken: dict[str, str]) -> list[tuple[str, list[Tool]]]:
    """Generate packages covering `tools`: (package name, its tools); tools of failing generations go to `broken`."""
    package = f"fid_{label}"
    snapshot = work / f"{package}.json"
    snapshot.write_text(json.dumps(_snapshot(tools)), encoding="utf-8")
    command = [sys.executable, "-m", "mcp_codegen", "generate", "--snapshot", str(snapshot), "-o",
               str(work / package), "--overwrite", "--formatter", "none", "-q"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        for tool in tools:
            if f"models.{str(tool.name).capitalize()}" in line or f"'{tool.name}'" in line:
                broken.setdefault(f"note:{tool.name}", line.strip())
    if done.returncode == 0:
        return [(package, tools)]
    if len(tools) == 1:
        broken[tools[0].name] = f"generate exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"
        return []
    half = len(tools) // 2
    return generate(tools[:half], work, label + "a", broken) + generate(tools[half:], work, label + "b", broken)


def _first_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:300]


async def measure_package(
    work: Path, package: str, tools: list[Tool], dialect: str, broken: dict[str, str]
) -> list[Outcome]:
    outcomes: list[Outcome] = []
    sys.path.insert(0, str(work))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(package)
    except Exception as error:  # noqa: BLE001 - the package does not import: every tool broken
        return [item for tool in tools for item in all_broken(tool, dialect, f"package import: {_first_line(error)}")]
    refused_class = module.ArgumentsValidationError
    log = work / f"{package}.arrivals"
    log.write_text("")
    server = [str(ECHO_SERVER), str(work / f"{package}.json"), str(log)]
    pending = list(tools)
    while pending:
        connected = False
        try:
            async with module.AsyncClient.stdio(sys.executable, server, timeout=60, stderr="discard") as client:
                connected = True
                while pending:
                    tool = pending[0]
                    outcomes += await _measure_tool(client, module, tool, dialect, refused_class, log, broken)
                    pending.pop(0)
        except Exception as error:  # noqa: BLE001 - the connection died: blame the tool in flight, go on
            # No connection at all blames no single tool: what is left is broken for that reason.
            lost = pending[:1] if connected else pending[:]
            del pending[: len(lost)]
            reason = f"connection: {_first_line(error)}"
            outcomes += [item for tool in lost for item in all_broken(tool, dialect, reason)]
    return outcomes


async def _measure_tool(client: Any, module: Any, tool: Tool, dialect: str, refused_class: type[BaseException],
                        log: Path, broken: dict[str, str]) -> list[Outcome]:  # fmt: skip
    def outcome(test: dict[str, Any], category: str, detail: str = "") -> Outcome:
        return outcome_of(tool, test, dialect, category, detail)

    spec = module.AsyncClient._tools.get(tool.name)
    problem = broken.get(tool.name)
    if spec is None and problem is None:
        problem = "no method generated"
    method = getattr(client, spec.python_name, None) if spec is not None else None
    if problem is None and method is None:
        problem = "no method generated"
    if problem is None:
        try:
            spec.arguments_model  # noqa: B018 - imports the tool's models module
        except Exception as error:  # noqa: BLE001
            problem = f"models import: {_first_line(error)}"
    parameters = inspect.signature(method).parameters if problem is None else {}
    if problem is None and tool.placement == "property" and "v" not in parameters:
        problem = f"method takes no v: {list(parameters)}"
    if problem is not None:
        return all_broken(tool, dialect, problem)
    results: list[Outcome] = []
    listed = set(tool.input_schema.get("properties") or {})
    for test in tool.tests:
        arguments = _arguments(tool.placement, test["data"])
        keywords = typed_keywords(spec, method, copy.deepcopy(arguments))
        unlisted = set(arguments) - listed
        call = None
        if unlisted and not says_extra_keys(tool.input_schema):  # documented: such keys go through call()
            call = functools.partial(client.call, tool.name, copy.deepcopy(arguments))
        elif keywords is None and unlisted:  # keys the schema names the typed method cannot take (cause 9)
            results.append(outcome(test, "inexpressible", f"no parameter for {sorted(unlisted)}"))
            continue
        elif keywords is None:  # a required parameter the instance lacks: Python refuses the call
            category = "broken" if test["valid"] else "invalid-refused"
            results.append(outcome(test, category, "the method requires a parameter the instance lacks"))
            continue
        else:
            call = functools.partial(method, **keywords)
        results.append(await _judge(client, tool, test, arguments, call, refused_class, log, outcome))
    return results


async def _judge(client: Any, tool: Tool, test: dict[str, Any], arguments: Any, call: Any,
                 refused_class: type[BaseException], log: Path, outcome: Any) -> Outcome:  # fmt: skip
    """One call: refused (and whether anything reached the server), sent, or arrived as given."""
    before = log.stat().st_size
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await call()
    except refused_class as error:
        sent = log.stat().st_size != before
        category = ("invalid-sent" if sent else "invalid-refused") if not test["valid"] else "valid-refused"
        return outcome(test, category, _first_line(error) + (" (yet sent)" if sent else ""))
    except Exception as error:  # noqa: BLE001 - anything else: the method cannot be called
        return outcome(test, "broken", f"call: {_first_line(error)}")
    if not test["valid"]:
        return outcome(test, "invalid-sent")
    text = getattr(result, "text", None)
    try:
        received = json.loads(text or "")
    except ValueError:
        received = None
    if same_form(received, arguments):  # the top-level order is the method's: keyword arguments have none
        return outcome(test, "valid-ok")
    expected = json.dumps(arguments)
    raw = await client.call_raw(tool.name, copy.deepcopy(arguments))
    how = "key order only" if _sorted_text(text) == json.dumps(arguments, sort_keys=True) else "value form"
    control = "" if raw.text == expected else "; the untyped call_raw changes it too"
    return outcome(test, "valid-changed", f"{how}{control}: sent {expected[:120]} arrived {str(text)[:120]}")


def _sorted_text(text: str | None) -> str | None:
    try:
        return json.dumps(json.loads(text or ""), sort_keys=True)
    except ValueError:
        return None


def run(suite: Path, dialects: list[str], placements: list[str], keep: Path | None) -> dict[str, Any]:
    work = keep or Path(tempfile.mkdtemp(prefix="argument-fidelity-"))
    work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"suite": str(suite), "runs": {}}
    for placement in placements:
        for dialect in dialects:
            report["runs"][f"{dialect}/{placement}"] = _run_one(suite, dialect, placement, work)
    return report


def _run_one(suite: Path, dialect: str, placement: str, work: Path) -> dict[str, Any]:
    started = time.monotonic()
    skipped: Counter[str] = Counter()
    tools = load_tools(suite, dialect, placement, skipped)
    broken: dict[str, str] = {}
    packages = generate(tools, work, f"{dialect.replace('-', '_')}_{placement}", broken)
    outcomes: list[Outcome] = []
    covered = set()
    for package, group in packages:
        outcomes += anyio.run(measure_package, work, package, group, dialect, broken)
        covered.update(tool.name for tool in group)
    for tool in tools:
        if tool.name not in covered:
            outcomes += all_broken(tool, dialect, broken.get(tool.name, "not generated"))
    counts = Counter(outcome.category for outcome in outcomes)
    return {
        "tools": len(tools),
        "instances": len(outcomes),
        "valid": sum(outcome.valid for outcome in outcomes),
        "counts": {category: counts.get(category, 0) for category in CATEGORIES},
        "broken_tools": len({(o.file, o.case) for o in outcomes if o.category == "broken"}),
        "skipped": dict(skipped),
        "generator_notes": {key[5:]: value for key, value in broken.items() if key.startswith("note:")},
        "seconds": round(time.monotonic() - started, 1),
        "outcomes": [asdict(outcome) for outcome in outcomes],
    }


def print_report(report: dict[str, Any]) -> None:
    short = {"valid-ok": "ok", "valid-refused": "v-refused", "valid-changed": "v-changed",
             "invalid-refused": "i-refused", "invalid-sent": "i-sent", "inexpressible": "inexpr", "broken": "broken"}  # fmt: skip
    print(f"{'run':<24}{'tools':>6}{'inst':>6}{'valid':>6}" + "".join(f"{short[c]:>10}" for c in CATEGORIES)
          + f"{'refused%':>10}")  # fmt: skip
    for name, data in report["runs"].items():
        counts = data["counts"]
        invalid = counts["invalid-refused"] + counts["invalid-sent"]
        share = 100.0 * counts["invalid-refused"] / invalid if invalid else 0.0
        print(f"{name:<24}{data['tools']:>6}{data['instances']:>6}{data['valid']:>6}"
              + "".join(f"{counts[c]:>10}" for c in CATEGORIES) + f"{share:>9.1f}%")  # fmt: skip
    for name, data in report["runs"].items():
        print(f"\n{name}: {data['broken_tools']} broken cases; skipped: {json.dumps(data['skipped'])}")
        for tool, note in data["generator_notes"].items():
            print(f"  generator on {tool}: {note[:200]}")
        grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
        for outcome in data["outcomes"]:
            if outcome["category"] not in ("valid-ok", "invalid-refused"):
                grouped[outcome["category"]][outcome["file"]].append(outcome)
        for category in CATEGORIES:
            if category not in grouped:
                continue
            print(f"  {category}:")
            for file, items in sorted(grouped[category].items(), key=lambda item: -len(item[1])):
                print(f"    {file} ({len(items)})")
                for item in items[:4]:
                    print(f"      - {item['case']} / {item['test']}: {item['detail'][:160]}")
                if len(items) > 4:
                    print(f"      ... and {len(items) - 4} more")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, required=True, help="a checkout of JSON-Schema-Test-Suite")
    parser.add_argument("--dialect", nargs="+", choices=sorted(DIALECTS), default=["draft2020-12", "draft7"])
    parser.add_argument("--placement", nargs="+", choices=["property", "root"], default=["property"],
                        help="property: each schema as property v (default); root: object schemas as the whole input")  # fmt: skip
    parser.add_argument("--report", type=Path, help="write the JSON report here")
    parser.add_argument("--keep", type=Path, help="work directory to keep (snapshots, packages, arrival logs)")
    options = parser.parse_args()
    if not (options.suite / "tests").is_dir():
        print(f"argument_fidelity: {options.suite} has no tests/ folder (a JSON-Schema-Test-Suite checkout?)")
        return 2
    report = run(options.suite.resolve(), options.dialect, options.placement, options.keep)
    print_report(report)
    if options.report:
        options.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
