"""Stage 5: format the generated Python with the chosen formatter (ruff, black or none), formatting only what is new.

`--formatter ruff` (the default) runs `ruff format` once over the files to format (a few ms per thousand lines,
where black takes about a second), `--isolated`, with the settings `inputs.formatter` read from the user's
pyproject.toml and nothing else of theirs. Its output is black-compatible for the constructs we emit; the golden
tests run `black --check` on every generated example to keep that true. `--formatter black` runs black itself,
in this process, with the user's `[tool.black]` settings. Both first sort the imports and drop unused ones
(`ruff check --select I,F401 --fix`: pyright strict rejects unused imports). `--formatter none` writes the code
as rendered: valid, typed, not tidied.

Every file is formatted on its own (the package imports itself by relative imports only), so a file's result
depends on its path, text and the settings alone: results are kept in the user's cache (`cache.py`,
`formatted/` for ruff, `formatted-black/` for black). The client and specs modules come as a skeleton and one
piece per tool (`pieces.py`): the skeleton's imports are tidied against the names the pieces use, and each
tool's formatted pieces are kept too (`formatted-pieces-<formatter>/`). Regenerating after one tool changed
formats that tool's models module, its pieces, and the skeletons only if they changed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from mcp_codegen.errors import CodegenError
from mcp_codegen.generate.cache import ServerResults
from mcp_codegen.generate.pieces import Piece, PieceFile, joined, names_used, slot_lines, split_joined
from mcp_codegen.inputs.formatter import FormatterSettings

_TARGET = "py311"
_COMMON = ("--isolated", "--quiet", f"--target-version={_TARGET}", "--no-cache")
_DEFAULT = FormatterSettings()


def _ruff_executable() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return os.fsdecode(find_ruff_bin())


@cache
def _fingerprint(formatter: str) -> str:
    """What a formatted file depends on besides its path, text and settings: the formatters themselves.

    Ruff is named by its executable (path, size, modification time: what any reinstall changes), which costs a
    `stat` where asking the installed distributions for its version costs ~30 ms of every run."""
    executable = _ruff_executable()
    status = os.stat(executable)
    versions = [executable, str(status.st_size), str(status.st_mtime_ns), *_COMMON]
    if formatter == "black":
        from black import __version__ as black_version  # type: ignore[attr-defined]  # black does export it

        versions.append(black_version)
    return hashlib.sha256("\0".join(versions).encode()).hexdigest()


def _key(path: str, text: str, settings: FormatterSettings) -> str:
    return hashlib.sha256(f"{settings.key()}\0{path}\0{text}".encode()).hexdigest()


def _valid(entry: dict[str, Any]) -> bool:
    return entry.keys() == {"text"} and isinstance(entry["text"], str)


def _ruff(arguments: list[str], directory: str) -> None:
    # Run inside the directory: import sorting looks for first-party code from the working directory.
    completed = subprocess.run(
        [_ruff_executable(), *arguments], cwd=directory, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        first = (completed.stderr or completed.stdout).strip().splitlines()[:1]
        raise CodegenError(f"formatting the generated code failed: {first[0] if first else 'ruff failed'}")


def _ruff_settings(settings: FormatterSettings) -> list[str]:
    arguments = [*_COMMON, f"--line-length={settings.line_length}"]
    if settings.name == "ruff":
        for key, value in settings.extra:
            literal = ("true" if value else "false") if isinstance(value, bool) else f"'{value}'"
            arguments.append(f"--config=format.{key}={literal}")
    return arguments


def _run_formatter(python: Mapping[str, str], settings: FormatterSettings, skeletons: frozenset[str]) -> dict[str, str]:
    """`python` (text by relative path) formatted: imports tidied by ruff, then ruff's or black's format. The last
    line of each of `skeletons` is there for tidying imports only (`_uses_line`) and is dropped before formatting."""
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as directory:
        root = Path(directory)
        for path, text in python.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        arguments = _ruff_settings(settings)
        # Sort imports and drop unused ones (pyright strict rejects them), then format.
        _ruff(["check", "--select=I,F401", "--fix", "--exit-zero", *arguments, "."], directory)
        for path in skeletons:
            tidied = (root / path).read_text(encoding="utf-8")
            (root / path).write_text(tidied[: tidied.rstrip("\n").rfind("\n") + 1], encoding="utf-8")
        if settings.name == "black":
            return {path: _black((root / path).read_text(encoding="utf-8"), settings, path) for path in python}
        _ruff(["format", *arguments, "."], directory)
        return {path: (root / path).read_text(encoding="utf-8") for path in python}


def _black(text: str, settings: FormatterSettings, path: str = "") -> str:
    from black import format_str
    from black.mode import Mode, TargetVersion
    from black.parsing import InvalidInput

    mode = Mode(
        target_versions={TargetVersion.PY311},
        line_length=settings.line_length,
        string_normalization=not settings.get("skip-string-normalization", False),
        magic_trailing_comma=not settings.get("skip-magic-trailing-comma", False),
        is_pyi=path.endswith(".pyi"),
    )
    try:
        return format_str(text, mode=mode)
    except InvalidInput as error:  # a fault of ours (the text parsed before), said in one line
        raise CodegenError(f"formatting the generated code failed: {str(error).splitlines()[0]}") from None


def format_python(
    files: Mapping[str, str | PieceFile], settings: FormatterSettings = _DEFAULT, *, server: str = ""
) -> dict[str, str]:
    """Format every `.py` and `.pyi` file of `files` (by relative path); other files pass through unchanged.

    A `PieceFile`'s skeleton and its pieces are formatted apart (`pieces.py`), each tool's formatted pieces taken
    from (and added to) the cache, under the name of its `server`: only the pieces of changed tools are rendered
    and formatted."""
    piece_files = {path: f for path, f in files.items() if isinstance(f, PieceFile) and f.slots_match()}
    plain = {path: f if isinstance(f, str) else f.whole() for path, f in files.items() if path not in piece_files}
    pieces = _PieceTexts(settings, [piece for f in piece_files.values() for piece in f.pieces], server)
    if settings.name == "none":
        texts = dict(plain)
        skeletons = {path: f.skeleton for path, f in piece_files.items()}
    else:
        python = {path: text for path, text in plain.items() if path.endswith((".py", ".pyi"))}
        with_uses = {path: f.skeleton + _uses_line(pieces.names_used(f.pieces)) for path, f in piece_files.items()}
        formatted = _formatted_files(
            python | with_uses, settings, frozenset(with_uses), pieces.rendered_missing(), server
        )
        pieces.formatted(formatted)
        texts = {path: formatted.get(path, text) for path, text in plain.items()}
        skeletons = {path: formatted[path] for path in piece_files}
    for path, f in piece_files.items():
        if len(slot_lines(skeletons[path])) == len(f.pieces):
            texts[path] = f.assembled(skeletons[path], [pieces.text(piece) for piece in f.pieces])
        else:  # the formatter moved a slot (never seen so far): the file formatted whole instead
            texts[path] = format_python({path: f.whole()}, settings)[path]
    pieces.save()
    return {path: texts[path] for path in files}


def _formatted_files(
    python: Mapping[str, str],
    settings: FormatterSettings,
    skeletons: frozenset[str],
    joined_pieces: Mapping[str, str],
    server: str,
) -> dict[str, str]:
    """`python` formatted, each file's result taken from the cache when it holds it (one entry per server), and
    `joined_pieces` (new by definition: not looked up) formatted in the same formatter run."""
    store = _store(_files_kind(settings), _valid, server, settings)
    keys = {path: _key(path, text, settings) for path, text in python.items()}
    formatted: dict[str, str] = {}
    if store is not None:
        for path, key in keys.items():
            if (entry := store.get(key)) is not None:
                formatted[path] = entry["text"]
                store.use(key, entry, made=False)
    missing = {path: text for path, text in python.items() if path not in formatted}
    if missing or joined_pieces:
        fresh = _run_formatter({**missing, **joined_pieces}, settings, skeletons & missing.keys())
        formatted |= fresh
        if store is not None:
            for path in missing:
                store.use(keys[path], {"text": fresh[path]}, made=True)
    if store is not None:
        store.close()
    return formatted


def _uses_line(names: Iterable[str]) -> str:
    """A last line naming what the pieces use, so that tidying the skeleton's imports keeps what only they use."""
    listed = ", ".join(names)
    return f"({listed},)\n" if listed else "()\n"


#: Stores read ahead (`open_stores`), by kind, settings and server: taken when formatting.
_opened: dict[tuple[str, str, str], ServerResults | None] = {}


def open_stores(server: str, settings: FormatterSettings = _DEFAULT) -> None:
    """Read the cached formatted files and pieces of `server` now (a run does it while it waits for the model
    generator), for `format_python` to find them in memory."""
    _opened.clear()
    if settings.name == "none":
        return
    for kind, valid in ((_files_kind(settings), _valid), (_pieces_kind(settings), _valid_pieces)):
        _opened[kind, settings.key(), server] = ServerResults.open(kind, _fingerprint(settings.name), server, valid)


def _store(
    kind: str, valid: Callable[[dict[str, Any]], bool], server: str, settings: FormatterSettings
) -> ServerResults | None:
    """The `kind` store of `server`: the one read ahead (`open_stores`), else read now."""
    key = (kind, settings.key(), server)
    if key in _opened:
        return _opened.pop(key)
    return ServerResults.open(kind, _fingerprint(settings.name), server, valid)


def _files_kind(settings: FormatterSettings) -> str:
    return "formatted" if settings.name == "ruff" else f"formatted-{settings.name}"


def _pieces_kind(settings: FormatterSettings) -> str:
    return f"formatted-pieces-{settings.name}"


def _piece_key(group: str, settings: FormatterSettings) -> str:
    return hashlib.sha256(f"{settings.key()}\0{group}".encode()).hexdigest()


class _PieceTexts:
    """The formatted text of every piece: from the cache (`formatted-pieces-<formatter>/`, one entry per server
    holding each tool's pieces and the names each uses), or rendered and formatted here (`rendered_missing`, then
    `formatted`); `save` keeps the new ones."""

    def __init__(self, settings: FormatterSettings, pieces: Sequence[Piece], server: str) -> None:
        self.settings = settings
        self.store = _store(_pieces_kind(settings), _valid_pieces, server, settings) if pieces else None
        self.texts: dict[tuple[str, str], str] = {}
        self.names: dict[tuple[str, str], list[str]] = {}
        groups: dict[str, list[Piece]] = {}
        for piece in pieces:
            groups.setdefault(piece.group, []).append(piece)
        self.missing: dict[str, list[Piece]] = {}
        for group, members in groups.items():
            key = _piece_key(group, settings)
            entry = self.store.get(key) if self.store is not None else None
            if entry is not None and all(piece.name in entry["pieces"] for piece in members):
                assert self.store is not None
                self.store.use(key, entry, made=False)
                for piece in members:
                    self.texts[group, piece.name] = entry["pieces"][piece.name]
                    self.names[group, piece.name] = entry["names"][piece.name]
            else:
                self.missing[group] = members
        self.rendered: dict[tuple[str, str], str] = {}
        for members in self.missing.values():
            for piece in members:
                text = self.rendered[piece.group, piece.name] = piece.render()
                self.names[piece.group, piece.name] = names_used(text, piece.indent)
        if settings.name == "none":
            self.texts.update(self.rendered)

    def names_used(self, pieces: Iterable[Piece]) -> list[str]:
        return sorted({name for piece in pieces for name in self.names[piece.group, piece.name]})

    def rendered_missing(self) -> dict[str, str]:
        """The rendered pieces to format, joined into one module per indentation and kind of file (`pieces.joined`)."""
        by_layout: dict[tuple[int, str], list[str]] = {}
        for members in self.missing.values():
            for piece in members:
                by_layout.setdefault((piece.indent, piece.suffix), []).append(self.rendered[piece.group, piece.name])
        return {_joined_path(*layout): joined(texts, layout[0]) for layout, texts in by_layout.items()}

    def formatted(self, formatted: Mapping[str, str]) -> None:
        """Take the formatted pieces out of the formatter's results and keep them."""
        for indent, suffix in {(piece.indent, piece.suffix) for members in self.missing.values() for piece in members}:
            order = [
                piece
                for members in self.missing.values()
                for piece in members
                if (piece.indent, piece.suffix) == (indent, suffix)
            ]
            texts = split_joined(formatted[_joined_path(indent, suffix)], indent, len(order))
            if texts is None:  # a piece's text mimics the separator: format these pieces one by one
                texts = self._formatted_alone(order)
            self.texts.update({(piece.group, piece.name): text for piece, text in zip(order, texts, strict=True)})

    def _formatted_alone(self, pieces: Sequence[Piece]) -> list[str]:
        alone = {
            f"piece_{n}{p.suffix}": joined([self.rendered[p.group, p.name]], p.indent) for n, p in enumerate(pieces)
        }
        results = _run_formatter(alone, self.settings, frozenset())
        texts = []
        for n, piece in enumerate(pieces):
            # One piece, so no separator to split at: only the `class _:` line to drop.
            lines = results[f"piece_{n}{piece.suffix}"].split("\n")[1 if piece.indent else 0 :]
            texts.append("\n".join(lines).strip("\n"))
        return texts

    def save(self) -> None:
        """Add the pieces made in this run to the cache."""
        if self.store is None:
            return
        for group, members in self.missing.items():
            if all((group, piece.name) in self.texts for piece in members):
                entry = {
                    "pieces": {piece.name: self.texts[group, piece.name] for piece in members},
                    "names": {piece.name: self.names[group, piece.name] for piece in members},
                }
                self.store.use(_piece_key(group, self.settings), entry, made=True)
        self.store.close()

    def text(self, piece: Piece) -> str:
        return self.texts[piece.group, piece.name]


def _joined_path(indent: int, suffix: str = ".py") -> str:
    return f"_pieces_{indent}{suffix}"


def _valid_pieces(entry: dict[str, Any]) -> bool:
    pieces, names = entry.get("pieces"), entry.get("names")
    return (
        isinstance(pieces, dict)
        and isinstance(names, dict)
        and pieces.keys() == names.keys()
        and all(isinstance(text, str) for text in pieces.values())
        and all(isinstance(used, list) and all(isinstance(n, str) for n in used) for used in names.values())
    )
