"""Every captured real-server listing, the ms-365 listing (344 tools) and the committed examples: each package imports
and loads every model, and all of them pass `mypy --strict`, pyright (strict) and ty on a plain install (the
runtime's wheel and its dependencies, no extra), one run of each checker over every package; each `code_api.pyi`
also passes the ty release code mode runs."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, corpus_names, corpus_snapshot, generate_into, plain_python, type_check

from mcp_codegen.diagnostics import Level
from mcp_codegen.snapshot.model import read_snapshot

MS365 = ROOT / "benchmarks" / "data" / "ms365_0.155.0.snapshot.json.gz"
EXAMPLES = ROOT / "generated_examples"


@pytest.fixture(scope="module")
def corpus_packages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("corpus")
    packages = []
    for name in corpus_names():
        package = "corpus_" + name.replace("-", "_")  # apart from the examples' names (`everything_client`)
        diagnostics = generate_into(root, corpus_snapshot(name), package)
        assert not [d for d in diagnostics if d.level is Level.ERROR], (name, [str(d) for d in diagnostics])
        packages.append(package)
    snapshot = root / "ms365.snapshot.json"
    snapshot.write_bytes(gzip.decompress(MS365.read_bytes()))
    diagnostics = generate_into(root, read_snapshot(snapshot), "corpus_ms365")
    assert not [d for d in diagnostics if d.level is Level.ERROR], [str(d) for d in diagnostics]
    return root, [*packages, "corpus_ms365"]


def test_corpus_packages_import_and_load_every_model(corpus_packages: tuple[Path, list[str]]) -> None:
    root, packages = corpus_packages
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    package = importlib.import_module(name)\n"
        "    for spec in package.TOOLS.values():\n"
        "        spec.arguments_model.model_json_schema()\n"
        "        if spec.result_model is not None:\n"
        "            spec.result_model.model_json_schema()\n"
    )
    subprocess.run([sys.executable, "-c", code, *packages], cwd=root, check=True)


@pytest.mark.slow(reason="106 real listings' packages through mypy, pyright and ty at once: one run each, not one a package")
def test_corpus_and_examples_pass_mypy_pyright_and_ty_on_a_plain_install(
    corpus_packages: tuple[Path, list[str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root, packages = corpus_packages
    examples = sorted(path.name for path in EXAMPLES.iterdir() if (path / "__init__.py").exists())
    for example in examples:
        shutil.copytree(EXAMPLES / example, root / example, ignore=shutil.ignore_patterns("__pycache__"))
    results = type_check(root, [*packages, *examples], plain_python(tmp_path_factory))
    assert set(results) == {"mypy", "pyright", "ty", "ty (code mode's)"}
    for checked in results.values():
        assert checked.returncode == 0, f"{checked.checker}:\n{checked.output[-5000:]}"
