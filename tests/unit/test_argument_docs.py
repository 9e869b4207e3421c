"""Each argument's docstring line states its default once, and only a default the arguments model holds."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import generate_into, snapshot_of

TOOL = {
    "name": "fetch_rows",
    "inputSchema": {
        "type": "object",
        "properties": {
            # A null default on a property that refuses null is the server's "not given": no default.
            "cursor": {"type": "string", "default": None, "description": "Where to start."},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "description": "Tag."},
            "limit": {"type": "integer", "default": 100, "description": "Most rows (default: 100, max: 500)."},
            "ref": {"type": "string", "default": "HEAD", "description": "Reference. Defaults to HEAD."},
            "page": {"type": "integer", "default": 1, "description": "Page number"},
            "annotated": {"type": "boolean", "default": False, "description": 'Tag with a default "x" message.'},
        },
    },
}


def _args_lines(tmp_path: Path) -> dict[str, str]:
    generate_into(tmp_path, snapshot_of([TOOL]), "docs_client")
    source = (tmp_path / "docs_client" / "client.py").read_text(encoding="utf-8")
    section = source.split("Args:\n", 1)[1].split("\n\n", 1)[0]
    return dict(re.findall(r"^\s+(\w+): (.*)$", section, re.MULTILINE))


def test_a_default_is_stated_once_and_only_when_the_model_has_it(tmp_path: Path) -> None:
    lines = _args_lines(tmp_path)
    assert lines["cursor"] == "Where to start."
    assert lines["tag"] == "Tag. Default None, applied by the server when not sent."
    assert lines["limit"] == "Most rows (default: 100, max: 500)."
    assert lines["ref"] == "Reference. Defaults to HEAD."
    assert lines["page"] == "Page number. Default 1, applied by the server when not sent."
    assert lines["annotated"] == 'Tag with a default "x" message. Default False, applied by the server when not sent.'
    source = (tmp_path / "docs_client" / "client.py").read_text(encoding="utf-8")
    assert "cursor: str | NotSent = NOT_SENT" in source
