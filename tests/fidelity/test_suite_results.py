"""Typed results lose nothing: the JSON Schema Test Suite turned around, each schema in a tool's `outputSchema`.

The suite's draft 2020-12 and draft-07 schemas and instances (data/suite_cases.json, see data/make_suite_cases.py)
are served by a real in-process MCP server (result_server.py) in one generated package, two ways:

- at the root: each object schema as the output schema itself (`"type": "object"` added, as MCP requires), each
  object instance as the `structuredContent`;
- nested: each schema (of any type) as the property `v` of an object output schema, each instance as `{"v": ...}`,
  for the schemas that can move (their `$ref`s point into `$defs`/`definitions`, which move to the root).

`jsonschema`, in the schema's dialect, judges each result as served:

- one the schema accepts comes back as a typed result whose JSON (by alias, the fields sent) is exactly what was
  sent, `1.0` on an integer read as `1` aside: nothing dropped, added or changed in type;
- with `with_options(check_results=True)`, one the schema refuses raises `ResultValidationError`, also where the
  model alone lets it through; a valid one still comes back as sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing
from helpers import generate_into, imported_package, snapshot_of
from pydantic import BaseModel
from result_server import INPUT_SCHEMA, result_server

SUITE = json.loads((Path(__file__).with_name("data") / "suite_cases.json").read_text(encoding="utf-8"))
DIALECTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
}
#: Keywords that tie a schema to its place in the document (it cannot move under a property).
_PLACED = ("$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef")


@dataclass(frozen=True)
class Case:
    tool: str
    where: str  # the suite file, the schema's description, root or nested
    index: int  # into RESULTS
    valid: bool  # jsonschema's verdict in the schema's dialect


def _judge(schema: dict[str, Any], instance: object) -> bool | None:
    """jsonschema's verdict (formats not asserted, no remote `$ref`s), or None when it has none (a remote `$ref`, a
    pattern Python cannot compile)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        return bool(cls(schema, registry=referencing.Registry()).is_valid(instance))
    except (referencing.exceptions.Unresolvable, jsonschema.exceptions.SchemaError, re.error):
        return None


def _at_root(group: dict[str, Any]) -> dict[str, Any] | None:
    schema = group["schema"]
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return None
    if not any(isinstance(instance, dict) for instance in group["instances"]):
        return None
    return {"$schema": DIALECTS[group["dialect"]], **schema, "type": "object"}


def _movable(node: object) -> bool:
    """Whether no keyword in `node` ties it to its place: every `$ref` points into `$defs` or `definitions`."""
    if isinstance(node, list):
        return all(_movable(item) for item in node)
    if not isinstance(node, dict):
        return True
    ref = node.get("$ref")
    if ref is not None and not (isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/"))):
        return False
    return not any(key in node for key in _PLACED) and all(_movable(value) for value in node.values())


def _nested(group: dict[str, Any]) -> dict[str, Any] | None:
    schema = group["schema"]
    if isinstance(schema, bool):
        schema = {} if schema else {"not": {}}
    if not _movable(schema):
        return None
    inner = {key: value for key, value in schema.items() if key not in ("$schema", "$defs", "definitions")}
    moved = {key: schema[key] for key in ("$defs", "definitions") if key in schema}
    dialect = schema.get("$schema", DIALECTS[group["dialect"]])
    return {"$schema": dialect, "type": "object", "properties": {"v": inner}, **moved}


def _cases() -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], list[Case]]:
    schemas: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    cases: list[Case] = []
    for number, group in enumerate(SUITE["cases"]):
        where = f"{group['file']}: {group['description']}"
        root = _at_root(group)
        if root is not None:
            schemas[f"root{number:03d}"] = root
        nested = _nested(group)
        if nested is not None:
            schemas[f"nested{number:03d}"] = nested
        for instance in group["instances"]:
            served = []
            if root is not None and isinstance(instance, dict):
                served.append((f"root{number:03d}", root, instance, "root"))
            if nested is not None:
                served.append((f"nested{number:03d}", nested, {"v": instance}, "nested"))
            for tool, schema, result, how in served:
                verdict = _judge(schema, result)
                if verdict is not None:
                    cases.append(Case(tool, f"{where} ({how})", len(results), verdict))
                    results.append(result)
    return schemas, results, cases


SCHEMAS, RESULTS, CASES = _cases()


def same_json(sent: object, got: object) -> bool:
    """`got` is the JSON value `sent` (object key order aside); an integral float sent may come back an int."""
    if isinstance(sent, bool) or isinstance(got, bool):
        return type(sent) is type(got) and sent == got
    if isinstance(sent, float) and type(got) is int:
        return sent == got
    if isinstance(sent, int | float) and isinstance(got, int | float):
        return type(sent) is type(got) and sent == got
    if isinstance(sent, dict) and isinstance(got, dict):
        return set(sent) == set(got) and all(same_json(sent[key], got[key]) for key in sent)
    if isinstance(sent, list) and isinstance(got, list):
        return len(sent) == len(got) and all(same_json(a, b) for a, b in zip(sent, got, strict=True))
    return type(sent) is type(got) and sent == got


@dataclass
class Suite:
    package: Any
    client: Any


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    tools = [{"name": name, "inputSchema": INPUT_SCHEMA, "outputSchema": schema} for name, schema in SCHEMAS.items()]
    directory = tmp_path_factory.mktemp("suite")
    generate_into(directory, snapshot_of(tools, formatVersion=2), "suite_results_pkg")
    with imported_package(directory / "suite_results_pkg") as package:
        with package.Client.in_process(result_server(SCHEMAS, RESULTS)) as client:
            yield Suite(package, client)


def _read_back(client: Any, case: Case) -> object:
    """The typed result's JSON: the model's by alias with only the fields it was given."""
    result = client.call(case.tool, {"result": case.index})
    assert isinstance(result, BaseModel), f"{case.tool}: a typed result, not {type(result).__name__}"
    return result.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _failures(suite: Suite, client: Any, cases: list[Case]) -> list[str]:
    failures = []
    for case in cases:
        sent = RESULTS[case.index]
        try:
            got = _read_back(client, case)
        except suite.package.ResultValidationError as error:
            failures.append(f"{case.where}: {json.dumps(sent)} refused: {error}")
            continue
        if not same_json(sent, got):
            failures.append(f"{case.where}: sent {json.dumps(sent)}, read back {json.dumps(got)}")
    return failures


def test_the_suite_has_results_to_send() -> None:
    assert sum(tool.startswith("root") for tool in SCHEMAS) > 250
    assert sum(tool.startswith("nested") for tool in SCHEMAS) > 500
    assert sum(case.valid for case in CASES) > 1500
    assert sum(not case.valid for case in CASES) > 1000


def test_every_valid_result_is_read_back_exactly(suite: Suite) -> None:
    valid = [case for case in CASES if case.valid]
    failures = _failures(suite, suite.client, valid)
    assert not failures, f"{len(failures)} of {len(valid)} valid results not read back as sent:\n" + "\n".join(failures)


def test_exact_verdicts_keep_valid_results(suite: Suite) -> None:
    valid = [case for case in CASES if case.valid]
    assert not _failures(suite, suite.client.with_options(check_results=True), valid)


def test_exact_verdicts_refuse_every_result_the_schema_refuses(suite: Suite) -> None:
    checked = suite.client.with_options(check_results=True)
    invalid = [case for case in CASES if not case.valid]
    let_through_by_the_model = 0
    for case in invalid:
        try:
            suite.client.call(case.tool, {"result": case.index})
        except suite.package.ResultValidationError:
            pass
        else:
            let_through_by_the_model += 1
        with pytest.raises(suite.package.ResultValidationError) as raised:
            checked.call(case.tool, {"result": case.index})
        assert raised.value.errors, f"{case.where}: the schema's problems are listed"
    assert let_through_by_the_model > 50, "the models let many results through that only the schema refuses"


def test_unevaluated_properties_beside_a_ref_keeps_the_keys_sent(suite: Suite) -> None:
    """The case issue 37 names: `unevaluatedProperties` with a `$ref` inside `allOf`/`oneOf`, at the root and nested."""

    def named_case(tool: str) -> bool:
        schema = SCHEMAS[tool]["properties"]["v"] if tool.startswith("nested") else SCHEMAS[tool]
        return "unevaluatedProperties" in schema and '"$ref"' in json.dumps(schema.get("allOf"))

    found = [case for case in CASES if case.valid and named_case(case.tool)]
    assert {case.tool[:4] for case in found} == {"root", "nest"}
    assert not _failures(suite, suite.client, found)


CLOSED = {"type": "object", "properties": {"a": {"type": "integer"}}, "unevaluatedProperties": False}


def test_exact_verdicts_are_a_view_option_off_by_default(tmp_path: Path) -> None:
    """`unevaluatedProperties: false` is no model's rule: the model keeps the key, the schema refuses it."""
    tools = [{"name": "lookup", "inputSchema": INPUT_SCHEMA, "outputSchema": CLOSED}]
    generate_into(tmp_path, snapshot_of(tools, formatVersion=2), "closed_pkg")
    results = [{"a": 1, "z": 2}]
    with imported_package(tmp_path / "closed_pkg") as package:
        with package.Client.in_process(result_server({"lookup": CLOSED}, results)) as client:
            assert client.lookup(result=0).model_dump(by_alias=True, exclude_unset=True) == {"a": 1, "z": 2}
            checked = client.with_options(check_results=True)
            for view in (checked, checked.with_options(timeout=30)):
                with pytest.raises(package.ResultValidationError) as raised:
                    view.lookup(result=0)
                assert raised.value.tool == "lookup"
                assert raised.value.result.structured == {"a": 1, "z": 2}
                assert [(error["loc"], error["msg"]) for error in raised.value.errors] == [
                    (("z",), "is not a key the schema allows")
                ]
            assert checked.with_options(check_results=False).lookup(result=0).a == 1
