"""Every captured real-server listing generates a package that imports and passes mypy --strict and pyright."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import corpus_names, corpus_snapshot, generate_into, mypy_strict, pyright_strict

from mcp_codegen.diagnostics import Level


@pytest.fixture(scope="module")
def corpus_packages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("corpus")
    packages = []
    for name in corpus_names():
        package = name.replace("-", "_") + "_client"
        diagnostics = generate_into(root, corpus_snapshot(name), package)
        assert not [d for d in diagnostics if d.level is Level.ERROR], (name, [str(d) for d in diagnostics])
        packages.append(package)
    return root, packages


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


def test_corpus_packages_pass_mypy_strict(corpus_packages: tuple[Path, list[str]]) -> None:
    root, packages = corpus_packages
    result = mypy_strict(root, *packages)
    assert result.returncode == 0, result.stdout[-5000:]


def test_corpus_packages_pass_pyright_strict(corpus_packages: tuple[Path, list[str]]) -> None:
    root, packages = corpus_packages
    result = pyright_strict(root, *packages)
    assert result.returncode == 0, result.stdout[-5000:]
