"""Adapt the embedding model to one index's documents, without any query.

The bundled all-MiniLM-L6-v2 was trained on general web pairs; a user's corpus
has its own vocabulary (``read_line``, ``Cargo.lock``, ``__init__.py``). This
continues its contrastive training on pairs the index itself provides, so no
question, label or other model is needed:

* inverse cloze (Lee, Chang & Toutanova, ACL 2019): a sentence of a chunk ->
  that chunk's embedded text with the sentence cut out. A needle is one
  sentence and its chunk is what gets retrieved: this teaches exactly that match;
* heading -> section: a chunk's heading path -> its content.

Loss: in-batch negatives (``MultipleNegativesRankingLoss`` in
sentence-transformers; Henderson et al. 2017): cross-entropy over the scaled
cosine matrix of a batch's anchors and positives, where every other positive in
the batch is a negative. A batch never holds two pairs of the same chunk (they
would be each other's false negatives).

The result is a new local model folder (weights, tokenizer, a provenance file);
the index keeps its vectors until it is re-indexed with ``--model`` pointing at
the folder (every document then shows as stale: another model's vectors are
never compared with it). Measured on eval/rustbook and on the held-out
eval/pytutorial in docs/retrieval-experiments.md, section 17.

The light option (:func:`fit_query_map`, ``adapt --query-map``) keeps the model
frozen and fits a linear map of the query on the same pairs instead; it is
stored in the index, after a held-out check, and needs no re-index (sections 18, 19).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from citeline.errors import ConfigError, ModelUnavailable
from citeline.sentences import MIN_SENTENCE_CHARS, split_sentences

if TYPE_CHECKING:
    import torch

    from citeline.pipeline import Index
    from citeline.store import Store

PROVENANCE = "citeline-adapt.json"

# A sentence cut from a chunk must leave this much of the chunk's content behind,
# or the positive is little more than the heading.
MIN_REST_CHARS = 40


@dataclass(frozen=True)
class AdaptConfig:
    """Training settings. The defaults are sentence-transformers' usual fine-tuning
    values (lr 2e-5 with 10% linear warm-up, batch 32, similarity scale 20, one
    epoch), fixed before the first run and never tuned on any query set."""

    epochs: float = 1.0
    batch_size: int = 32
    learning_rate: float = 2e-5
    warmup: float = 0.1  # share of the steps with a linearly rising learning rate
    scale: float = 20.0  # cosine -> logit factor of the in-batch softmax
    seed: int = 0
    max_pairs: int | None = None  # a random subset bounds the time on a big index

    def __post_init__(self) -> None:
        if not self.epochs > 0:
            raise ConfigError(f"--epochs: must be > 0, got {self.epochs}")
        if self.batch_size < 2:
            raise ConfigError(f"--batch-size: must be at least 2 (in-batch negatives), got {self.batch_size}")
        if self.max_pairs is not None and self.max_pairs < 2:
            raise ConfigError(f"--max-pairs: must be at least 2, got {self.max_pairs}")


class Pair(NamedTuple):
    anchor: str
    positive: str
    chunk_id: int


@dataclass
class AdaptReport:
    out: str
    base_model: str  # identity key of the model adapted from
    model: str  # identity key of the adapted model
    pairs: int
    inverse_cloze_pairs: int
    heading_pairs: int
    steps: int
    seconds: float
    loss_first: float  # mean loss over the first tenth of the steps
    loss_last: float  # ... and over the last tenth
    config: AdaptConfig = field(default_factory=AdaptConfig)

    def to_json(self) -> dict[str, object]:
        return asdict(self)  # asdict recurses into the nested config


def inverse_cloze_pairs(
    chunk_id: int, text: str, content: str, start: int, doc_text: str
) -> list[Pair]:
    """(sentence, chunk text without it) for every sentence of the chunk.

    ``text`` is the embedded text (header + content), ``content`` is
    ``doc_text[start:start + len(content)]``; sentences are those of
    :func:`citeline.sentences.split_sentences`, the sentence list's own units.
    """
    header = text[: len(text) - len(content)] if text.endswith(content) else ""
    out = []
    for s, e in split_sentences(doc_text, start, start + len(content)):
        sentence = doc_text[s:e]
        before, after = content[: s - start], content[e - start :]
        rest = (before.rstrip() + " " + after.lstrip()).strip()
        if len(sentence) >= MIN_SENTENCE_CHARS and len(rest) >= MIN_REST_CHARS:
            out.append(Pair(sentence, header + rest, chunk_id))
    return out


def training_pairs(index: Index) -> tuple[list[Pair], list[Pair]]:
    """(inverse-cloze pairs, heading pairs) from every chunk of the index."""
    by_doc: dict[str, list] = {}
    for row in index.store.all_chunks():
        by_doc.setdefault(row.document, []).append(row)
    cloze: list[Pair] = []
    heads: list[Pair] = []
    for path, rows in by_doc.items():
        doc_text = index.store.document_text(path)
        if doc_text is None:
            continue
        for r in rows:
            cloze += inverse_cloze_pairs(r.id, r.text, r.content, r.start, doc_text)
            if r.section.strip() and r.content.strip():
                heads.append(Pair(r.section, r.content, r.id))
    return cloze, heads


def make_batches(pairs: Sequence[Pair], size: int, rng: random.Random) -> list[list[Pair]]:
    """Shuffle, then fill batches of ``size`` with no chunk twice in a batch.

    Pairs that would repeat a chunk wait for a later batch; a last partial batch
    of two or more pairs is kept. Every pair is used at most once.
    """
    pool = list(pairs)
    rng.shuffle(pool)
    batches: list[list[Pair]] = []
    while len(pool) > 1:
        batch: list[Pair] = []
        chunks: set[int] = set()
        waiting: list[Pair] = []
        for p in pool:
            if len(batch) < size and p.chunk_id not in chunks:
                batch.append(p)
                chunks.add(p.chunk_id)
            else:
                waiting.append(p)
        if len(batch) < 2:
            break
        batches.append(batch)
        pool = waiting
    return batches


def in_batch_loss(anchors: torch.Tensor, positives: torch.Tensor, scale: float) -> torch.Tensor:
    """Cross-entropy of each anchor against all positives of the batch, its own
    being the right class: ``mean_i -log softmax(scale * cos(a_i, p_j))_j=i``."""
    import torch

    a = torch.nn.functional.normalize(anchors, dim=-1)
    p = torch.nn.functional.normalize(positives, dim=-1)
    logits = scale * a @ p.T
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(a)))


def check_out(out: str | Path) -> Path:
    """``--out`` as a folder the adapted model can be written to: new, or empty, and
    not under a file (checked before the model is loaded)."""
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out: {out} is a file; the adapted model is written to a folder")
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"--out: {out} exists and is not empty (a model is never overwritten)")
    above = next((p for p in out.absolute().parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise ConfigError(f"--out: {above} is a file, so no folder can be made under it")
    return out


def adapt(
    index: Index, out: str | Path, config: AdaptConfig | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> AdaptReport:
    """Train a copy of the index's model on its own documents; save it to ``out``."""
    import torch
    from sentence_transformers import SentenceTransformer

    from citeline.embed import model_identity

    config = config or AdaptConfig()
    out = check_out(out)
    base = index.embedder  # the index's model, loaded as search would load it
    while hasattr(base, "inner"):  # a caching wrapper (evaluation): the model under it
        base = base.inner
    base_path = Path(getattr(base, "path", "") or "")
    if not (base_path / "modules.json").exists() and not (base_path / "config.json").exists():
        raise ModelUnavailable(f"{index.location}: the index's model has no local folder to adapt")
    cloze, heads = training_pairs(index)
    pairs = cloze + heads
    if len(pairs) < 2:
        raise ConfigError(f"{index.location}: no chunks to learn from (index documents first)")
    rng = random.Random(config.seed)
    if config.max_pairs is not None and len(pairs) > config.max_pairs:
        pairs = rng.sample(pairs, config.max_pairs)
    batches = make_batches(pairs, config.batch_size, rng)
    steps = max(1, math.ceil(len(batches) * config.epochs))
    warm = max(1, int(steps * config.warmup))

    torch.manual_seed(config.seed)
    # A fresh copy: the index's embedder (cached per process) must not change.
    model = SentenceTransformer(str(base_path), device="cpu")
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm)))
    )
    prep = getattr(model, "preprocess", None) or model.tokenize

    def encode(texts: list[str]) -> torch.Tensor:
        return model(dict(prep(texts)))["sentence_embedding"]

    losses: list[float] = []
    t0 = time.perf_counter()
    for step in range(steps):
        batch = batches[step % len(batches)]
        loss = in_batch_loss(encode([p.anchor for p in batch]),
                             encode([p.positive for p in batch]), config.scale)
        loss.backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        losses.append(float(loss.item()))
        if progress is not None:
            progress(step + 1, steps, losses[-1])
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    tenth = max(1, steps // 10)
    cloze_set = set(cloze)
    n_cloze = sum(1 for p in pairs if p in cloze_set)
    report = AdaptReport(
        out=str(out), base_model=base.identity.key, model=model_identity(str(out)).key,
        pairs=len(pairs), inverse_cloze_pairs=n_cloze, heading_pairs=len(pairs) - n_cloze,
        steps=steps, seconds=round(time.perf_counter() - t0, 1),
        loss_first=round(sum(losses[:tenth]) / tenth, 4),
        loss_last=round(sum(losses[-tenth:]) / tenth, 4), config=config,
    )
    where = index.location
    if "://" in where:  # a store URL: never write its password into a file
        from citeline.store.postgres import redact

        where = redact(where)
    (out / PROVENANCE).write_text(
        json.dumps({"adapted_from": str(base_path), "index": where, **report.to_json()},
                   indent=2) + "\n", encoding="utf-8")
    return report


# --- the query map: the light option ----------------------------------------------------
#
# The model stays frozen; a dim x dim matrix W, started at the identity, is trained on
# the same pairs (embedded once) so that normalize(W a) finds its positive among the
# batch's. Search then ranks the dense list with normalize(W q). Stored chunk and
# sentence vectors do not change, so there is nothing to re-index, and the gate keeps
# the chunk's raw cosine distance. docs/retrieval-experiments.md, section 18.

QUERY_MAP_SETTING = "query_map"  # JSON: model key, dim, pairs, fitted_at, base64 float32 W
QUERY_MAP_ID_SETTING = "query_map_id"  # short stamp, read per search to notice a new map


@dataclass(frozen=True)
class QueryMapConfig:
    """Fixed before the first measurement and never tuned on any query set."""

    max_cloze_pairs: int = 3000  # a random subset of the sentence -> chunk pairs
    # ... and of the heading -> section pairs (one per chunk): bounds the embedding on a
    # big index; every bundled corpus has fewer (rustbook 1,563), so all are used there
    max_heading_pairs: int = 3000
    batch_size: int = 64
    learning_rate: float = 1e-3  # Adam
    epochs: int = 5
    scale: float = 20.0
    seed: int = 0


# The held-out check (docs/retrieval-experiments.md, section 19). A map is stored only
# if it ranks held-out heading -> section pairs better than the plain query does: of
# the pairs, a heading path is the most like a question. On the three bundled corpora
# the check's verdict matched the map's effect on their real queries (it helped
# pytutorial and rustbook and hurt debpolicy), where the fit's own loss gave no sign.
CHECK_FOLDS = 5  # by chunk: each checked heading pair is held out of one fold's fit
CHECK_MAX_PAIRS = 1000  # heading pairs ranked (a random subset on a big index)
CHECK_DEPTH = 100  # a chunk ranked past this counts as not found (MRR@100)
CHECK_MIN_PAIRS = 20  # fewer checked pairs than this give no verdict


@dataclass(frozen=True)
class QueryMapCheck:
    """Held-out heading -> section pairs ranked through the index's dense search with
    the plain query and with the map fitted without their chunks."""

    pairs: int
    mrr_without: float
    mrr_with: float
    better: int  # pairs whose chunk ranks higher with the map
    worse: int

    @property
    def passed(self) -> bool | None:
        """Whether the map helped; None when too few pairs were checked to say."""
        if self.pairs < CHECK_MIN_PAIRS:
            return None
        return self.mrr_with > self.mrr_without

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "passed": self.passed}


@dataclass
class QueryMapReport:
    model: str  # identity key of the model the map is for
    pairs: int
    inverse_cloze_pairs: int
    heading_pairs: int
    embed_seconds: float
    train_seconds: float
    loss_first: float  # mean loss of the first epoch
    loss_last: float  # ... and of the last
    check: QueryMapCheck
    stored: bool  # False: the check failed and the index was left as it was
    config: QueryMapConfig = field(default_factory=QueryMapConfig)

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "check": self.check.to_json()}


class QueryMap(NamedTuple):
    model: str
    matrix: np.ndarray
    pairs: int
    fitted_at: str
    check: dict[str, object] | None = None  # QueryMapCheck.to_json(); None before checks


def train_query_map(
    anchors: np.ndarray, positives: np.ndarray, chunk_ids: Sequence[int],
    config: QueryMapConfig | None = None,
) -> tuple[np.ndarray, list[float]]:
    """W (float32, dim x dim) and the mean loss of each epoch: in-batch negatives over
    normalize(W a) against p, a chunk at most once per batch."""
    import torch

    config = config or QueryMapConfig()
    torch.manual_seed(config.seed)
    w = torch.nn.Parameter(torch.eye(anchors.shape[1]))
    opt = torch.optim.Adam([w], lr=config.learning_rate)
    a, p = torch.tensor(anchors, dtype=torch.float32), torch.tensor(positives, dtype=torch.float32)
    ids = np.asarray(chunk_ids)
    losses = []
    for epoch in range(config.epochs):
        order = np.random.default_rng(config.seed + epoch).permutation(len(a))
        total, batches = 0.0, 0
        for s in range(0, len(order), config.batch_size):
            b = order[s : s + config.batch_size]
            _, first = np.unique(ids[b], return_index=True)
            b = b[np.sort(first)]
            if len(b) < 2:
                continue
            loss = in_batch_loss(a[b] @ w.T, p[b], config.scale)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, batches = total + float(loss.item()), batches + 1
        losses.append(total / max(batches, 1))
    return w.detach().numpy().astype(np.float32), losses


def _rank(index: Index, query: np.ndarray, chunk_id: int) -> int | None:
    """Where the index's dense search puts ``chunk_id`` for ``query`` (1-based), or None
    past CHECK_DEPTH."""
    q = (query / np.linalg.norm(query)).astype(np.float32)
    ids = [i for i, _ in index.store.dense(q, CHECK_DEPTH, index.embedder.identity.key)]
    return ids.index(chunk_id) + 1 if chunk_id in ids else None


def check_query_map(
    index: Index, anchors: np.ndarray, positives: np.ndarray, pairs: Sequence[Pair],
    checked: Sequence[int], config: QueryMapConfig,
) -> QueryMapCheck:
    """Rank the heading pairs at positions ``checked`` through the index's own dense
    search, with the plain query and with a map fitted on every pair except those of
    the same fold's chunks (CHECK_FOLDS folds by chunk)."""
    chunks = sorted({pairs[i].chunk_id for i in checked})
    random.Random(config.seed).shuffle(chunks)
    fold_of = {c: n % CHECK_FOLDS for n, c in enumerate(chunks)}
    rr_without: list[float] = []
    rr_with: list[float] = []
    better = worse = 0
    for fold in range(CHECK_FOLDS):
        held = [i for i in checked if fold_of[pairs[i].chunk_id] == fold]
        if not held:
            continue
        train = [i for i, p in enumerate(pairs) if fold_of.get(p.chunk_id) != fold]
        w, _ = train_query_map(anchors[train], positives[train],
                               [pairs[i].chunk_id for i in train], config)
        for i in held:
            r0 = _rank(index, anchors[i], pairs[i].chunk_id)
            r1 = _rank(index, w @ anchors[i], pairs[i].chunk_id)
            rr_without.append(1 / r0 if r0 else 0.0)
            rr_with.append(1 / r1 if r1 else 0.0)
            better += rr_with[-1] > rr_without[-1]
            worse += rr_with[-1] < rr_without[-1]
    n = len(rr_without)
    return QueryMapCheck(
        pairs=n, mrr_without=round(sum(rr_without) / n, 4) if n else 0.0,
        mrr_with=round(sum(rr_with) / n, 4) if n else 0.0, better=better, worse=worse,
    )


def fit_query_map(
    index: Index, config: QueryMapConfig | None = None, force: bool = False
) -> QueryMapReport:
    """Fit a query map on the index's own pairs with its model and check it on held-out
    heading pairs (:func:`check_query_map`). Store it in the index (replacing any
    earlier one) unless the check finds it ranks them worse; ``force`` stores it
    anyway. Seconds to minutes: the pairs are embedded once."""
    config = config or QueryMapConfig()
    cloze, heads = training_pairs(index)
    if len(cloze) + len(heads) < 2:
        raise ConfigError(f"{index.location}: no chunks to learn from (index documents first)")
    rng = random.Random(config.seed)
    cloze = rng.sample(cloze, min(config.max_cloze_pairs, len(cloze)))
    if len(heads) > config.max_heading_pairs:  # (all of them, in index order, otherwise)
        heads = rng.sample(heads, config.max_heading_pairs)
    pairs = cloze + heads
    t = time.perf_counter()
    anchors = np.asarray(index.embedder.embed([p.anchor for p in pairs]), dtype=np.float32)
    positives = np.asarray(index.embedder.embed([p.positive for p in pairs]), dtype=np.float32)
    embed_s = time.perf_counter() - t
    t = time.perf_counter()
    w, losses = train_query_map(anchors, positives, [p.chunk_id for p in pairs], config)
    train_s = time.perf_counter() - t
    heading_at = list(range(len(cloze), len(pairs)))
    checked = random.Random(config.seed).sample(heading_at, min(CHECK_MAX_PAIRS, len(heading_at)))
    check = check_query_map(index, anchors, positives, pairs, checked, config)
    key = index.embedder.identity.key
    stored = force or check.passed is True  # too few pairs show nothing: not stored
    if stored:
        blob = np.ascontiguousarray(w, dtype="<f4").tobytes()
        fitted_at = datetime.now(UTC).isoformat(timespec="seconds")
        index.store.set_setting(QUERY_MAP_SETTING, json.dumps({
            "model": key, "dim": int(w.shape[0]), "pairs": len(pairs), "fitted_at": fitted_at,
            "check": check.to_json(), "w": base64.b64encode(blob).decode("ascii")}))
        stamp = hashlib.sha256(key.encode() + blob).hexdigest()[:16]
        index.store.set_setting(QUERY_MAP_ID_SETTING, stamp)
    return QueryMapReport(
        model=key, pairs=len(pairs), inverse_cloze_pairs=len(cloze), heading_pairs=len(heads),
        embed_seconds=round(embed_s, 1), train_seconds=round(train_s, 1),
        loss_first=round(losses[0], 4), loss_last=round(losses[-1], 4), check=check,
        stored=stored, config=config,
    )


def read_query_map(store: Store) -> QueryMap | None:
    """The query map stored in an index, whatever model it is for; None when there is
    none (never fitted, or dropped)."""
    raw = store.get_setting(QUERY_MAP_SETTING) or ""
    if not raw:
        return None
    try:
        d = json.loads(raw)
        w = np.frombuffer(base64.b64decode(d["w"]), dtype="<f4").reshape(d["dim"], d["dim"])
        check = d.get("check")
        return QueryMap(str(d["model"]), w.astype(np.float32), int(d["pairs"]), str(d["fitted_at"]),
                        check if isinstance(check, dict) else None)
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"setting {QUERY_MAP_SETTING}: not a query map ({exc}); "
                          "run `citeline adapt --drop-query-map`") from exc


def drop_query_map(store: Store) -> bool:
    """Remove the index's query map; whether there was one."""
    had = bool(store.get_setting(QUERY_MAP_SETTING))
    store.set_setting(QUERY_MAP_SETTING, "")
    store.set_setting(QUERY_MAP_ID_SETTING, "")
    return had
