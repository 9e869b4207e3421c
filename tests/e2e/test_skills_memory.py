"""Skills install in bounded memory: 8 skills of 12 MiB each from a real FastMCP 4.2.3 server (tests/servers/skills).

`install()` streams each file to a staging folder while it is hashed, so the client's memory grows by about one
file's answer (the protocol delivers a file whole, base64 in one JSON-RPC message), not by skills x size. The
growth is measured with `tracemalloc` (every Python allocation of this process, the SDK's parsed messages
included) as the peak during the install over the memory held before it, for skills of three files and of one
12 MiB file: under 64 MiB for all eight, and no more than for one skill alone (plus 8 MiB). Reading two of the
skills into memory with `read()` is measured beside it, to show the measure sees what holding them costs.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from servers import install

from .conftest import unique_name

MIB = 1024 * 1024
SKILLS, SKILL_BYTES, LIMIT = 8, 12 * MIB, 64 * MIB
#: Skills read whole into memory, to show the measure sees what that holds (more would show it no better).
HELD = 2


def _server(*args: str) -> list[str]:
    try:
        return install.skills_server_command(*args)
    except install.InstallError as exc:
        pytest.fail(f"cannot provide the FastMCP skills server: {exc}", pytrace=False)


def _skill_md(name: str) -> bytes:
    return f"---\nname: {name}\ndescription: Bulk data for the memory test.\n---\n# {name}\n".encode()


SHAPES = {"three data files": 3, "one data file": 1}


@pytest.fixture(scope="module")
def bulk_roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Eight skills per shape, each a SKILL.md and data files (random bytes, served as blobs) of 12 MiB in all."""
    roots = {}
    for shape, parts in SHAPES.items():
        root = roots[shape] = tmp_path_factory.mktemp("bulk-skills")
        for index in range(SKILLS):
            folder = root / f"bulk-{index}"
            (folder / "data").mkdir(parents=True)
            (folder / "SKILL.md").write_bytes(_skill_md(folder.name))
            left = SKILL_BYTES - len(_skill_md(folder.name))
            for part in range(parts):
                size = left // parts if part < parts - 1 else left - (parts - 1) * (left // parts)
                (folder / "data" / f"part-{part}.bin").write_bytes(os.urandom(size))
    return roots


@pytest.fixture(scope="module")
def bulk_client(
    bulk_roots: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    generate_package: Callable[..., Path],
    import_package: Callable[[Path], ModuleType],
) -> ModuleType:
    """Generated from the first shape; the other connects without the drift check (same names, other files)."""
    directory = tmp_path_factory.mktemp("bulk") / unique_name("bulk_client")
    server = shlex.join(_server("--root", str(bulk_roots["three data files"])))
    return import_package(generate_package(directory, "--stdio", server))


def _digests(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.anyio
@pytest.mark.parametrize("shape", SHAPES)
async def test_installing_8_skills_of_12_mib_grows_memory_by_less_than_64_mib(
    bulk_client: ModuleType, bulk_roots: dict[str, Path], tmp_path: Path, shape: str
) -> None:
    root = bulk_roots[shape]
    command = _server("--root", str(root))

    def growth_since(held: int) -> int:
        return tracemalloc.get_traced_memory()[1] - held

    tracemalloc.start()
    try:
        # Each install on a fresh connection, so that neither pays for buffers the other left.
        async with bulk_client.AsyncClient.stdio(command[0], command[1:], drift_check=False) as client:
            assert len(await client.skills.list()) == SKILLS
            held = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            written = await client.skills.install(into=tmp_path / "skills")
            install_growth = growth_since(held)

            held = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            contents = [await client.skills.read(folder.name) for folder in written[:HELD]]
            reading_growth = growth_since(held)
            assert sum(len(data) for content in contents for data in content.files.values()) == HELD * SKILL_BYTES
            del contents
        async with bulk_client.AsyncClient.stdio(command[0], command[1:], drift_check=False) as client:
            assert len(await client.skills.list()) == SKILLS
            held = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            await client.skills.install("bulk-0", into=tmp_path / "one")
            one_growth = growth_since(held)
    finally:
        tracemalloc.stop()
    print(
        f"\n{shape}: install of 8 grew traced memory by {install_growth / MIB:.1f} MiB, of one "
        f"{one_growth / MIB:.1f} MiB; read() of {HELD}: {reading_growth / MIB:.1f} MiB"
    )
    assert [folder.name for folder in written] == [f"bulk-{index}" for index in range(SKILLS)]
    for folder in written:
        assert _digests(folder) == _digests(root / folder.name)
    assert sorted(path.name for path in (tmp_path / "skills").iterdir()) == [f.name for f in written]  # no staging
    assert reading_growth > HELD * SKILL_BYTES  # the measure sees what holding skills costs
    assert install_growth < LIMIT, f"install grew memory by {install_growth / MIB:.1f} MiB"
    assert install_growth < one_growth + 8 * MIB  # bounded by a file, not by the number of skills
