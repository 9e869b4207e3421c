"""Names agents see: valid for OpenAI and Anthropic, at most 64 characters, distinct and stable."""

from __future__ import annotations

import random
import re
import string

from mcp_codegen_runtime.agents.names import (
    MAX_NAME_LENGTH,
    agent_tool_names,
    is_valid_tool_name,
    namespace_for,
    sanitize_name,
    shorten_name,
)

VALID = re.compile(r"^[a-zA-Z0-9_-]+$")


def _check(names: dict[str, str]) -> None:
    assert len(set(names.values())) == len(names), names
    for emitted in names.values():
        assert VALID.match(emitted), emitted
        assert 0 < len(emitted) <= MAX_NAME_LENGTH, emitted


def test_valid_names_are_kept() -> None:
    names = agent_tool_names(["get_weather", "search-notes", "A1"])
    assert names == {"get_weather": "get_weather", "search-notes": "search-notes", "A1": "A1"}


def test_invalid_characters_become_underscores() -> None:
    assert sanitize_name("search.notes v2") == "search_notes_v2"
    assert agent_tool_names(["résumé/get"])["résumé/get"] == "r_sum_get"
    assert is_valid_tool_name(sanitize_name("日本語"))


def test_prefix_and_namespace() -> None:
    assert agent_tool_names(["add"], prefix="demo_") == {"add": "demo_add"}
    assert agent_tool_names(["add"], namespace="demo") == {"add": "mcp__demo__add"}
    assert agent_tool_names(["get-sum"], namespace="mcp-servers/everything", prefix="x_") == {
        "get-sum": "mcp__everything__x_get-sum"
    }
    assert namespace_for("@acme/My Server") == "My_Server"


def test_long_names_are_shortened_stably_and_readably() -> None:
    long = "fetch_the_quarterly_revenue_report_for_every_business_unit_in_the_company"
    first = agent_tool_names([long])[long]
    assert len(first) <= 64 and first.startswith("fetch_the_quarterly_revenue_report")
    assert re.search(r"_[0-9a-f]{8}$", first)
    assert agent_tool_names(["other", long])[long] == first  # independent of the other names
    assert shorten_name(long, 64) == shorten_name(long, 64)
    namespaced = agent_tool_names([long], namespace="a-very-long-server-name-indeed-yes")[long]
    assert namespaced.startswith("mcp__a-very-long-ser") and len(namespaced) <= 64
    short = agent_tool_names(["x"], namespace="a-very-long-server-name-indeed-yes")["x"]
    assert re.fullmatch(r"mcp__a-very-long-ser_[0-9a-f]{8}__x", short), short


def test_collisions_are_resolved_independently_of_order() -> None:
    wire = ["a.b", "a_b", "a b", "a-b"]
    forward = agent_tool_names(wire)
    backward = agent_tool_names(list(reversed(wire)))
    assert forward == backward
    assert forward["a_b"] == "a_b" and forward["a-b"] == "a-b"  # unchanged names keep theirs
    _check(forward)


def test_hundred_random_long_and_colliding_names_stay_valid_and_distinct() -> None:
    rng = random.Random(20260417)
    alphabet = string.ascii_letters + string.digits + "_-./ :éü"
    stem = "x" * 70
    wire: list[str] = []
    for index in range(100):
        kind = index % 4
        if kind == 0:  # long, sharing a long common start
            wire.append(stem + "".join(rng.choices(alphabet, k=rng.randint(1, 40))))
        elif kind == 1:  # differ only in characters that get replaced
            wire.append("tool" + rng.choice("./ :") + str(index % 5))
        elif kind == 2:  # random junk, sometimes empty after sanitizing
            wire.append("".join(rng.choices(alphabet, k=rng.randint(1, 120))))
        else:
            wire.append("".join(rng.choices("éü./", k=rng.randint(1, 5))))
    wire = list(dict.fromkeys(wire))
    for options in ({}, {"prefix": "p_"}, {"namespace": "some server/with a long name"}):
        names = agent_tool_names(wire, **options)  # type: ignore[arg-type]
        assert list(names) == wire
        _check(names)
        shuffled = wire[:]
        rng.shuffle(shuffled)
        assert agent_tool_names(shuffled, **options) == names  # type: ignore[arg-type]
