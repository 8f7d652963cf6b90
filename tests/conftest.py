"""Shared fixtures: tmp-path indexes, tiny literal corpora, one real model per session.

Tests never touch a user's real index or config: every index lives under
pytest's tmp_path, and CITELINE_CONFIG points at an empty config file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

FIXTURES = Path(__file__).parent / "fixtures"
BAD_FILES = ("empty.md", "cyrillic.txt", "image.md")


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    cfg = tmp_path_factory.getbasetemp() / "empty-config.toml"
    if not cfg.exists():
        cfg.write_text("# every setting at its default\n")
    monkeypatch.setenv("CITELINE_CONFIG", str(cfg))
    for k in list(os.environ):
        if k.startswith("CITELINE_") and k != "CITELINE_CONFIG":
            monkeypatch.delenv(k)


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2, loaded once per test session, remembering what it has
    embedded (:func:`remember_embeddings`): the same instance an ``Index`` loads itself."""
    from citeline.embed import load_embedder

    return remember_embeddings(load_embedder())


@pytest.fixture
def model_itself(embedder):
    """The session's model without its memory of embeddings, for tests of the embedder
    itself (its lock, its threads, one pass giving both vectors), whose every call must
    reach the model."""
    remembered = embedder.embed, embedder.embed_with_tokens
    del embedder.embed, embedder.embed_with_tokens  # the class's own methods again
    try:
        yield embedder
    finally:
        embedder.embed, embedder.embed_with_tokens = remembered


def remember_embeddings(model):  # type: ignore[no-untyped-def]
    """``model`` (the session's real embedder) made to embed each distinct text once per
    session: tests index the same fixture corpora and ask the same questions hundreds of
    times, which was more than half of the model's time in the suite (150 of 260 s).
    Vectors are the model's own, computed for the text's first request; the arrays
    handed out are read-only, so no caller can change what another gets. A text's vector
    can differ from a batch-mate's run in the last float bit (padding changes the
    matmul's shape); tests compare within a session, where each text has one vector."""
    import numpy as np

    if getattr(model, "_remembered", False):
        return model
    embed, with_tokens = model.embed, model.embed_with_tokens
    vectors: dict[str, np.ndarray] = {}
    pairs: dict[str, tuple] = {}

    def embed_remembered(texts, progress=False):  # type: ignore[no-untyped-def]
        todo = [t for t in dict.fromkeys(texts) if t not in vectors]
        if todo:
            for t, v in zip(todo, embed(todo, progress=progress), strict=True):
                v.flags.writeable = False
                vectors[t] = v
        if not texts:
            return embed(texts)
        return np.vstack([vectors[t] for t in texts])

    def with_tokens_remembered(texts):  # type: ignore[no-untyped-def]
        todo = [t for t in dict.fromkeys(texts) if t not in pairs]
        if todo:
            for t, (v, tv) in zip(todo, with_tokens(todo), strict=True):
                v.flags.writeable = False
                tv.vectors.flags.writeable = False
                pairs[t] = (v, tv)
        return [pairs[t] for t in texts]

    model.embed, model.embed_with_tokens = embed_remembered, with_tokens_remembered
    model._remembered = True
    return model


@pytest.fixture
def run(embedder, capsys):
    """Run the CLI in-process (the session's model is already loaded): (exit, stdout, stderr)."""
    from citeline import cli

    def _run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The fixture corpus, bad files included (empty, Latin-1, binary, unknown type)."""
    dst = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", dst)
    return dst


@pytest.fixture
def clean_corpus(corpus: Path) -> Path:
    for name in (*BAD_FILES, "data.bin"):
        (corpus / name).unlink()
    return corpus


@pytest.fixture
def index(tmp_path: Path, embedder):
    from citeline.pipeline import Index

    idx = Index(tmp_path / "index", embedder=embedder)
    yield idx
    idx.close()


@pytest.fixture(scope="module")
def index_of(tmp_path_factory: pytest.TempPathFactory, embedder):
    """Index a folder of ``files`` (its relative path -> text or bytes) with the real model
    and real SQLite, once per test module: ``index_of(files)`` is (index, report). Each
    index it made is closed after the module's last test."""
    from citeline.pipeline import Index

    made: list[Index] = []

    def build(files: dict[str, str | bytes]):  # type: ignore[no-untyped-def]
        base = tmp_path_factory.mktemp("indexed")
        for rel, content in files.items():
            path = base / "docs" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode() if isinstance(content, str) else content)
        idx = Index(base / "index", embedder=embedder)
        made.append(idx)
        return idx, idx.index(base / "docs")

    yield build
    for idx in made:
        idx.close()
