"""Hard keyword combinations (hard_schemas.py): what each schema accepts arrives as given, the rest is refused.

One package for all of them, served over stdio by the echo server; hypothesis draws arguments from the schema,
near misses of those, `not` the schema and anything, and jsonschema (in the schema's dialect) is the judge.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fid_harness import Served, arguments_for, assert_faithful, examples, served_package
from hard_schemas import HARD_SCHEMAS
from hypothesis import given

EXAMPLES = examples(15)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tools = [{"name": name, "inputSchema": schema} for name, schema in HARD_SCHEMAS.items()]
    with served_package(tmp_path_factory.mktemp("hard"), tools, "hard_pkg") as served:
        yield served


@pytest.mark.parametrize("tool", sorted(HARD_SCHEMAS))
def test_drawn_arguments_are_kept_or_refused_before_sending(served: Served, tool: str) -> None:
    @EXAMPLES
    @given(arguments=arguments_for(HARD_SCHEMAS[tool]))
    def check(arguments: dict[str, Any]) -> None:
        assert_faithful(served, tool, arguments)

    check()
