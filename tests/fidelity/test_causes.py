"""The nine causes of issue 31, each with its exact reproducer: a typed method is never worse than `call_tool`.

What the tool's schema accepts reaches the server as given (the JSON text the echo server decoded, numbers in
the form given); what it refuses raises ArgumentsValidationError with nothing sent (the server's arrivals log
is unchanged). One package holds every reproducer's tool, served over stdio by the echo server.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fid_harness import DRAFT7, Served, served_package


def _v(schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": schema}, "required": ["v"]}


TOOLS: dict[str, dict[str, Any]] = {
    "object_keywords_untyped": _v({"properties": {"foo": {"type": "integer"}}}),
    "array_keywords_untyped": _v({"items": {"type": "integer"}}),
    "number": {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]},
    "number_or_anything": _v({"anyOf": [{"type": "number"}, {}]}),
    "const_zero": {"type": "object", "properties": {"n": {"const": 0}}, "required": ["n"]},
    "integer": {"type": "object", "properties": {"i": {"type": "integer"}}, "required": ["i"]},
    "max_properties_root": {"type": "object", "maxProperties": 2},
    "min_properties_root": {"type": "object", "minProperties": 1},
    "no_property_names_root": {"type": "object", "propertyNames": False},
    "property_names_root": {"type": "object", "propertyNames": {"maxLength": 3}},
    "pattern_properties_root": {"type": "object", "patternProperties": {"f.*": True}},
    "additional_only_root": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "unevaluated_items_allof": _v({"allOf": [{"prefixItems": [{"type": "string"}]}], "unevaluatedItems": False}),
    "unevaluated_items_open": _v({"prefixItems": [{"type": "string"}], "items": True, "unevaluatedItems": False}),
    "pattern_and_additional": _v(
        {"properties": {"foo": {}}, "patternProperties": {"^v": {}}, "additionalProperties": False}
    ),
    "unevaluated_properties_nested": _v(
        {"allOf": [{"properties": {"foo": {}}, "unevaluatedProperties": True}], "unevaluatedProperties": False}
    ),
    "draft7_ref_siblings": {
        "$schema": DRAFT7,
        "type": "object",
        "definitions": {"r": {"type": "array"}},
        "properties": {"foo": {"$ref": "#/definitions/r", "maxItems": 2}},
    },
    "renamed_forward": {
        "type": "object",
        "properties": {
            "filterBy": {"anyOf": [{"type": "object", "properties": {"value": {"type": "string"}}}, {"type": "string"}]}
        },
    },
    "additional_typed": {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": {"type": "string"},
    },
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tools = [{"name": name, "inputSchema": schema} for name, schema in TOOLS.items()]
    with served_package(tmp_path_factory.mktemp("causes"), tools, "causes_pkg") as served:
        yield served


def arrived(served: Served, call: Callable[[], Any]) -> str:
    """The arguments the server received for `call()`, as `json.dumps` text."""
    before = served.arrivals()
    result = call()
    assert served.arrivals() == before + 1
    return json.dumps(json.loads(result.text))


def refused(served: Served, call: Callable[[], Any]) -> None:
    """`call()` raises ArgumentsValidationError and sends nothing."""
    before = served.arrivals()
    with pytest.raises(served.package.ArgumentsValidationError):
        call()
    assert served.arrivals() == before, "refused, yet something reached the server"


def test_cause1_object_and_array_keywords_without_type_constrain_only_their_type(served: Served) -> None:
    client = served.client
    assert arrived(served, lambda: client.object_keywords_untyped(v=12)) == '{"v": 12}'
    assert arrived(served, lambda: client.array_keywords_untyped(v={"foo": "bar"})) == '{"v": {"foo": "bar"}}'
    refused(served, lambda: client.object_keywords_untyped(v={"foo": "x"}))
    refused(served, lambda: client.array_keywords_untyped(v=["x"]))


def test_cause2_numbers_keep_the_form_given(served: Served) -> None:
    client = served.client
    assert arrived(served, lambda: client.number(n=1)) == '{"n": 1}'
    assert arrived(served, lambda: client.number(n=1.0)) == '{"n": 1.0}'
    assert arrived(served, lambda: client.number_or_anything(v=123)) == '{"v": 123}'


def test_cause3_const_keeps_the_form_and_strings_are_not_coerced(served: Served) -> None:
    client = served.client
    assert arrived(served, lambda: client.const_zero(n=0.0)) == '{"n": 0.0}'
    assert arrived(served, lambda: client.const_zero(n=0)) == '{"n": 0}'
    refused(served, lambda: client.integer(i="1"))
    refused(served, lambda: client.const_zero(n=False))


def test_cause4_a_root_of_constraints_only_generates_a_working_method(served: Served) -> None:
    assert [str(d) for d in served.diagnostics.errors] == []
    client = served.client
    assert arrived(served, lambda: client.max_properties_root()) == "{}"
    two = {"a": 1, "b": 2}
    assert arrived(served, lambda: client.max_properties_root(extra_arguments=two)) == '{"a": 1, "b": 2}'
    assert arrived(served, lambda: client.call("max_properties_root", two)) == '{"a": 1, "b": 2}'
    refused(served, lambda: client.max_properties_root(extra_arguments={"a": 1, "b": 2, "c": 3}))
    refused(served, lambda: client.min_properties_root())
    assert arrived(served, lambda: client.min_properties_root(extra_arguments={"a": 1})) == '{"a": 1}'
    assert arrived(served, lambda: client.no_property_names_root()) == "{}"
    refused(served, lambda: client.no_property_names_root(extra_arguments={"a": 1}))
    refused(served, lambda: client.call("no_property_names_root", {"a": 1}))


def test_cause5_a_root_model_root_needs_no_root_keyword(served: Served) -> None:
    client = served.client
    for name in ("property_names_root", "pattern_properties_root", "additional_only_root"):
        parameters = inspect.signature(getattr(client, name)).parameters.values()
        assert [p.name for p in parameters if p.default is p.empty and p.kind is p.KEYWORD_ONLY] == []
        assert arrived(served, getattr(client, name)) == "{}"
    assert arrived(served, lambda: client.property_names_root(extra_arguments={"abc": 1})) == '{"abc": 1}'
    refused(served, lambda: client.property_names_root(extra_arguments={"abcd": 1}))
    both = {"foo": 1, "bar": 2}
    assert arrived(served, lambda: client.pattern_properties_root(extra_arguments=both)) == json.dumps(both)


def test_cause5_a_root_of_additional_properties_only_takes_them_as_extra_arguments(served: Served) -> None:
    # Still a RootModel on 242489a: the method requires `root: dict[str, bool]` and refuses what it is given.
    client = served.client
    assert arrived(served, lambda: client.additional_only_root(extra_arguments={"foo": True})) == '{"foo": true}'
    refused(served, lambda: client.additional_only_root(extra_arguments={"foo": 1}))
    assert arrived(served, lambda: client.additional_only_root()) == "{}"


def test_cause6_unevaluated_items_see_items_evaluated_by_subschemas(served: Served) -> None:
    client = served.client
    assert arrived(served, lambda: client.unevaluated_items_allof(v=["foo"])) == '{"v": ["foo"]}'
    refused(served, lambda: client.unevaluated_items_allof(v=["foo", 1]))
    assert arrived(served, lambda: client.unevaluated_items_open(v=["foo", 42])) == '{"v": ["foo", 42]}'
    refused(served, lambda: client.unevaluated_items_open(v=[42]))


def test_cause7_pattern_and_unevaluated_properties_are_not_extra(served: Served) -> None:
    client = served.client
    given = {"foo": 1, "vroom": 2}
    assert arrived(served, lambda: client.pattern_and_additional(v=given)) == json.dumps({"v": given})
    refused(served, lambda: client.pattern_and_additional(v={"foo": 1, "bar": 2}))
    nested = {"foo": 1, "bar": 2}
    assert arrived(served, lambda: client.unevaluated_properties_nested(v=nested)) == json.dumps({"v": nested})


def test_cause8_draft7_ignores_ref_siblings(served: Served) -> None:
    client = served.client
    assert arrived(served, lambda: client.draft7_ref_siblings(foo=[1, 2, 3])) == '{"foo": [1, 2, 3]}'
    refused(served, lambda: client.draft7_ref_siblings(foo="x"))


def test_cause9_keys_beyond_the_listed_properties_go_through_the_typed_method(served: Served) -> None:
    client = served.client
    typed = arrived(served, lambda: client.additional_typed(a=1, extra_arguments={"x": "y"}))
    assert typed == '{"a": 1, "x": "y"}'
    refused(served, lambda: client.additional_typed(a=1, extra_arguments={"x": 2}))
    assert arrived(served, lambda: client.call("additional_typed", {"a": 1, "x": "y"})) == '{"a": 1, "x": "y"}'
    refused(served, lambda: client.call("additional_typed", {"a": 1, "x": 2}))


def test_call_sends_a_python_name_under_its_wire_name(served: Served) -> None:
    # Beyond the nine: on 242489a `call(name, {python_name: ...})` sent the Python name (`filter_by`) itself, and a
    # refusal named the wire name, when the model's field refers to a class further down the module (pydantic
    # has not resolved its alias before the model is first used, and ToolSpec.wire_names() reads the alias).
    client = served.client
    assert arrived(served, lambda: client.call("renamed_forward", {"filter_by": "x"})) == '{"filterBy": "x"}'
    assert arrived(served, lambda: client.renamed_forward(filter_by="x")) == '{"filterBy": "x"}'
    with pytest.raises(served.package.ArgumentsValidationError) as caught:
        client.renamed_forward(filter_by=5)
    assert "'renamed_forward': filter_by" in str(caught.value)  # named by its Python name
