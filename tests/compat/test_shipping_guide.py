"""Builds that work on another machine, and the shipping guide as written, on a fresh clone of this repository.

A `git clone` of the repository builds the generator's sdist and wheel with `python -m build`, no variable set:
both require the runtime by version (`mcp-codegen-runtime==X.Y.Z`), never by a `file:` URL or the builder's
path. Then every command of docs/how-to/shipping.md runs as written, in a folder beside the clone (its one
`generate --url` on a snapshot of the demo server instead, its upload left out: no index here): the client's
wheel and the runtime's, built from the clone without checking out any tag; a fresh virtual environment then
installs the client, and the generator's wheel, from that folder of wheels, imports the client and runs the
generator.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = pytest.mark.slow(reason="the shipping guide as written: a fresh clone, wheels built, a fresh venv")

GUIDE = ROOT / "docs" / "how-to" / "shipping.md"
DEMO_SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"


def _run(*arguments: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in arguments], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{shlex.join(map(str, arguments))}: {done.stdout}{done.stderr}"
    return done


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a fresh clone of this repository as `mcp-codegen/`, as the guide's commands expect."""
    folder = tmp_path_factory.mktemp("shipping")
    _run("git", "clone", "-q", ROOT, folder / "mcp-codegen", cwd=folder)
    return folder


def _version(clone: Path) -> str:
    text = (clone / "runtime" / "src" / "mcp_codegen_runtime" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'__version__ = "([^"]+)"', text)
    assert match is not None
    return match[1]


def _requirements(metadata: str) -> list[str]:
    return Parser().parsestr(metadata).get_all("Requires-Dist") or []


@pytest.fixture(scope="module")
def generator_build(work: Path) -> tuple[Path, Path]:
    """The generator's sdist and wheel (built from the sdist, as `python -m build` does), in the clone's folder."""
    clone = work / "mcp-codegen"
    _run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", work / "dist", clone, cwd=work)
    (sdist,) = (work / "dist").glob("mcp_client_codegen-*.tar.gz")
    (wheel,) = (work / "dist").glob("mcp_client_codegen-*.whl")
    return sdist, wheel


def test_the_generators_sdist_and_wheel_require_the_runtime_by_version(
    work: Path, generator_build: tuple[Path, Path]
) -> None:
    sdist, wheel = generator_build
    version = _version(work / "mcp-codegen")
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [item for item in archive.namelist() if item.endswith(".dist-info/METADATA")]
        from_wheel = _requirements(archive.read(name).decode("utf-8"))
    with tarfile.open(sdist) as archive:
        (member,) = [
            item for item in archive.getmembers() if item.name.count("/") == 1 and item.name.endswith("/PKG-INFO")
        ]
        extracted = archive.extractfile(member)
        assert extracted is not None
        from_sdist = _requirements(extracted.read().decode("utf-8"))
    for requirements in (from_wheel, from_sdist):
        assert f"mcp-codegen-runtime=={version}" in requirements, requirements
        assert not [line for line in requirements if "file:" in line or " @ " in line or str(work) in line]


def _guide_commands() -> tuple[list[str], list[str]]:
    """The guide's shell commands (each ```bash block's lines, comments dropped) and its inline install."""
    text = GUIDE.read_text(encoding="utf-8")
    commands = [
        line.split("  #")[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
        for line in block.splitlines()
        if line.strip()
    ]
    inline = re.findall(r"`(pip install --find-links dist [^`]+)`", text)
    return commands, inline


def test_the_shipping_guide_works_as_written_on_a_fresh_clone(work: Path, generator_build: tuple[Path, Path]) -> None:
    commands, inline = _guide_commands()
    assert inline == ["pip install --find-links dist acme-client"]
    assert not [command for command in commands if "git checkout" in command]  # no tag needed
    skipped = [command for command in commands if command.startswith("twine upload")]
    assert len(skipped) == 1
    ran = 0
    for command in commands:
        arguments = shlex.split(command)
        if arguments[0] == "twine":
            continue  # needs an index to upload to
        if arguments[:2] == ["mcp-codegen", "generate"]:
            at = arguments.index("--url")
            arguments[at : at + 2] = ["--snapshot", str(DEMO_SNAPSHOT)]  # the demo server, recorded
            arguments = [sys.executable, "-m", "mcp_codegen", *arguments[1:]]
        elif arguments[0] == "pip":
            arguments = [sys.executable, "-m", "pip", *arguments[1:]]
        else:
            pytest.fail(f"the guide runs a command this test does not know: {command}")
        _run(*arguments, cwd=work)
        ran += 1
    assert ran == len(commands) - 1
    version = _version(work / "mcp-codegen")
    assert (work / "dist" / f"mcp_codegen_runtime-{version}-py3-none-any.whl").is_file()
    assert list((work / "dist").glob("acme_client-*.whl"))

    # Another machine: a fresh environment with nothing of this repository, wheels from the folder.
    _run(sys.executable, "-m", "venv", work / "venv", cwd=work)
    python = work / "venv" / "bin" / "python"
    _run(python, "-m", *shlex.split(inline[0]), cwd=work)
    _run(python, "-c", "import acme_client", cwd=work)
    # The generator's wheel, built in the clone with no variable set, installs there too (the runtime from dist).
    _run(python, "-m", "pip", "install", "-q", "--find-links", "dist", generator_build[1], cwd=work)
    assert version in _run(work / "venv" / "bin" / "mcp-codegen", "--version", cwd=work).stdout
