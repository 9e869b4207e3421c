from __future__ import annotations

import keyword

from mcp_codegen.casing import snake_case
from mcp_codegen.generate.class_members import class_members
from mcp_codegen.generate.naming import (
    NameRegistry,
    class_prefixes,
    pascal_from_snake,
    reserved_identifiers,
)


def methods(*wire: str) -> dict[str, str]:
    registry = NameRegistry(reserved_identifiers() | class_members().client)
    return registry.assign_all(wire, lambda w: snake_case(w, fallback="tool"))


def test_exact_wire_name_keeps_its_name_whatever_the_order() -> None:
    assert methods("get-sum", "get_sum") == {"get_sum": "get_sum", "get-sum": "get_sum_2"}
    assert methods("get_sum", "get-sum") == {"get_sum": "get_sum", "get-sum": "get_sum_2"}


def test_collisions_after_conversion_get_distinct_stable_names() -> None:
    names = methods("getSum", "get-sum", "GET_SUM", "get sum")
    assert len(set(names.values())) == 4
    assert all(name.startswith("get_sum") for name in names.values())
    assert methods("getSum", "get-sum", "GET_SUM", "get sum") == names


def test_keywords_builtins_and_client_members_are_suffixed() -> None:
    assert methods("class", "list", "call", "from") == {
        "call": "call_",
        "class": "class_",
        "from": "from_",
        "list": "list_",
    }


def test_non_identifiers_and_non_ascii() -> None:
    names = methods("3d-render", "日本", "café", "$weird!", "")
    assert names["3d-render"] == "tool_3d_render"
    assert names["café"] == "cafe"
    for name in names.values():
        assert name.isidentifier() and name.isascii() and not keyword.iskeyword(name)


def test_pydantic_reserved_field_prefix() -> None:
    registry = NameRegistry(reserved_identifiers(), reserved_prefix="model_")
    names = registry.assign_all(["model_config", "model_dump", "schema", "json"], lambda w: snake_case(w, fallback="f"))
    assert names == {
        "json": "json_",
        "model_config": "field_model_config",
        "model_dump": "field_model_dump",
        "schema": "schema_",
    }


def test_class_prefixes_are_letters_and_digits_and_keep_numbered_names_apart() -> None:
    # datamodel-code-generator drops underscores from class names: `GetWeather_2` would become `GetWeather2`.
    assert pascal_from_snake("get_weather_2") == "GetWeather2"
    prefixes = class_prefixes(["get_weather_2", "get_weather2", "step_1", "list_"])
    assert prefixes == {
        "get_weather2": "GetWeather2",
        "get_weather_2": "GetWeather22",
        "step_1": "Step1",
        "list_": "List",
    }
    assert class_prefixes(["get_weather_2", "get_weather22", "get_weather2"])["get_weather_2"] == "GetWeather23"
    assert class_prefixes(["tool", "prompt"], taken={"ToolResult", "Client"}) == {"tool": "Tool2", "prompt": "Prompt"}
