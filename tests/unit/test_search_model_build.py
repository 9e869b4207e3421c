"""The search model's build (scripts/search_model/build.py): its deterministic stages, checked against the shipped
table without torch.

The full rebuild (`build.py verify`: the teacher's embeddings and the training need torch and sentence-transformers
in a venv of their own, and about 15 minutes of two cores) is not run here; what runs here is every stage that
needs only the standard library and numpy, on what the repository commits:

* the shipped files are the ones the recorded build wrote (their SHA-256 in `recipe.json`);
* the packing stage (PCA, int8 per column) is deterministic, and the shipped table is its fixed point: packing
  the shipped table's own values again gives the same bytes;
* the corpus stage reads the standard library's docstrings into the very paragraphs the build trained on (their
  digest is recorded), on the Python version the build ran with.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "search_model"))

import build  # noqa: E402
import corpus  # noqa: E402

RECIPE = json.loads((build.DATA / "recipe.json").read_text(encoding="utf-8"))


def test_the_shipped_files_are_what_the_recorded_build_wrote() -> None:
    outputs = RECIPE["stages"]["pack"]["outputs"]
    assert set(outputs) == {"table.npy", "scales.npy", "vocab.txt"}
    for name, digest in outputs.items():
        assert hashlib.sha256((build.DATA / name).read_bytes()).hexdigest() == digest, name
    # Every stage before it recorded its outputs and versions too.
    for stage in ("corpus", "distil", "teacher", "train"):
        assert RECIPE["stages"][stage]["outputs"] and RECIPE["stages"][stage]["versions"]["python"]
    assert RECIPE["source"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert RECIPE["source"]["licence"] == "Apache-2.0"


def test_packing_is_deterministic_and_the_shipped_table_is_its_fixed_point(tmp_path: Path) -> None:
    rows = np.load(build.DATA / "table.npy")
    scales = np.load(build.DATA / "scales.npy")
    assert rows.dtype == np.int8 and rows.shape == (30522, build.DIMENSIONS) and scales.shape == (build.DIMENSIONS,)
    again, again_scales = build.quantize(rows.astype(np.float32) * scales)
    assert again.tobytes() == rows.tobytes() and again_scales.tobytes() == scales.tobytes()
    # The whole stage on a table of the folded table's shape and spread: the same bytes twice.
    rng = np.random.default_rng(62)
    folded = (rng.standard_normal((2000, 384)) * rng.uniform(0.1, 2.0, 384)).astype(np.float32)
    first = [path.read_bytes() for path in build.pack(folded, tmp_path / "a")]
    second = [path.read_bytes() for path in build.pack(folded, tmp_path / "b")]
    assert first == second
    # int8 with per-column scales keeps every value within half a step.
    packed = np.load(tmp_path / "a" / "table.npy").astype(np.float32) * np.load(tmp_path / "a" / "scales.npy")
    _, axes = build._pca(folded, build.DIMENSIONS)
    exact = folded @ axes
    assert np.all(np.abs(packed - exact) <= np.load(tmp_path / "a" / "scales.npy") / 2 + 1e-6)


def test_the_corpus_stage_reads_the_standard_library_as_the_build_did() -> None:
    recorded = RECIPE["stages"]["corpus"]
    if platform.python_version() != recorded["versions"]["python"]:
        pytest.skip(
            f"the standard library's docstrings are those of Python {recorded['versions']['python']}, "
            f"this is {platform.python_version()}"
        )
    paragraphs = corpus.collect([corpus.stdlib_root()])
    assert len(paragraphs) == recorded["stdlib_paragraphs"]
    assert corpus.digest(paragraphs) == recorded["stdlib_digest"]


def test_the_corpus_keeps_prose_and_drops_code_and_licences() -> None:
    docstring = (
        "Return the sum of the values in the list, skipping missing ones.\n\n"
        "    >>> add([1, 2])\n    3\n\n"
        "Licensed under the Apache License, Version 2.0, see the file for details.\n\n"
        "x = f(y) == z[1] and {a: b} for this"
    )
    assert list(corpus.paragraphs(docstring)) == ["Return the sum of the values in the list, skipping missing ones."]
    texts = ["b text", "a text", "c text"]
    assert corpus.select(texts, 2) == corpus.select(list(reversed(texts)), 2)
