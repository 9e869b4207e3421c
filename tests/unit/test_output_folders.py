"""The folders above a manifest's paths (what a survey descends into) are pathlib's, for any path a manifest holds."""

from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from mcp_codegen.output.ownership import _folders

_PARTS = st.sampled_from(["a", "b", "..", ".", "", "c.py", "d", "é", " "])
_PATHS = st.lists(st.lists(_PARTS, min_size=1, max_size=5).map("/".join), max_size=6)


@given(_PATHS)
def test_the_folders_are_pathlibs(paths: list[str]) -> None:
    expected = {
        parent.as_posix() for path in paths for parent in PurePosixPath(path).parents if parent.as_posix() != "."
    }
    assert _folders(paths) == expected
