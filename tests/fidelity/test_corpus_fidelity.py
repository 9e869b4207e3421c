"""The real listings of tests/corpus: what each tool's schema accepts arrives as given, the rest is refused.

All 171 tools in one package (renamed `<server>__<tool>` so names stay unique), served over stdio by the echo
server; per server, hypothesis draws a tool and arguments for it (see fid_harness.arguments_for).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fid_harness import Served, arguments_for, assert_faithful, examples, served_package
from helpers import CORPUS, corpus_names
from hypothesis import given
from hypothesis import strategies as st

EXAMPLES = examples(20)


def _tools(server: str) -> list[dict[str, Any]]:
    listing = json.loads((CORPUS / f"{server}.json").read_text(encoding="utf-8"))
    return [{"name": f"{server}__{tool['name']}", "inputSchema": tool["inputSchema"]} for tool in listing["tools"]]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tools = [tool for server in corpus_names() for tool in _tools(server)]
    with served_package(tmp_path_factory.mktemp("corpus"), tools, "corpus_pkg") as served:
        yield served


@pytest.mark.parametrize("server", corpus_names())
def test_drawn_arguments_are_kept_or_refused_before_sending(served: Served, server: str) -> None:
    cases = st.sampled_from(_tools(server)).flatmap(
        lambda tool: st.tuples(st.just(tool["name"]), arguments_for(tool["inputSchema"]))
    )

    @EXAMPLES
    @given(case=cases)
    def check(case: tuple[str, dict[str, Any]]) -> None:
        assert_faithful(served, *case)

    check()
