"""Run the evaluation on the real pipeline: index per strategy, query per mode, score.

For every strategy a real :class:`~citeline.pipeline.Index` (SQLite) is built
under ``OUT/indexes/<strategy>`` from ``GT_DIR/docs``, and every query of every
phrasing is sent through ``Index.search`` in every mode: no shortcut around the
product. The model is wrapped in a :class:`~citeline.eval.cache.CachingEmbedder`
(``OUT/embed-cache.sqlite3``), so identical texts are embedded once across
strategies and across runs.

The result is one JSON-able dict (see :func:`run_eval`); :mod:`citeline.eval.report`
turns it into report.md, report.json and plots.
"""

from __future__ import annotations

import math
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from citeline.adapt import drop_query_map, fit_query_map
from citeline.chunk import DEFAULT_BUDGET, DEFAULT_OVERLAP, MAX_BUDGET, MIN_BUDGET
from citeline.embed import Embedder, load_embedder
from citeline.errors import CiteError, ConfigError
from citeline.eval import metrics, stats
from citeline.eval import sweep as sweeps
from citeline.eval.cache import CachingEmbedder
from citeline.eval.groundtruth import GroundTruthSet, Query, load_ground_truth
from citeline.gate import keyed, with_columns
from citeline.pipeline import ASK_CANDIDATES, DEFAULT_FUSION, Index
from citeline.rerank import Reranker, load_reranker, shortlist_size
from citeline.retrieve.fuse import FUSIONS, SENTENCE_FUSIONS, Fusion
from citeline.store.sqlite import DB_NAME
from citeline.types import ALL_MODES, MODES, STRATEGIES, Hit, Mode, Strategy

DEFAULT_KS: tuple[int, ...] = (1, 4, 8, 20)
# The chapter's comparisons: does structure help (E vs A), does the header help
# (E vs C), does overlap rescue blind cuts (B vs A), does overlap help on top of
# the header (F vs E), does BM25 add anything to dense (hybrid vs dense/BM25).
DEFAULT_COMPARISONS: tuple[tuple[str, str, int], ...] = (
    ("E/dense", "A/dense", 20),
    ("E/dense", "C/dense", 20),
    ("B/dense", "A/dense", 8),
    ("F/dense", "E/dense", 20),
    ("E/hybrid", "E/dense", 4),
    ("E/hybrid", "E/bm25", 4),
)
# Added to the defaults when the rerank mode is evaluated: the chapter's gain from
# the cross-encoder was at the top (R@1 0.094 -> 0.312), and R@4 is what `ask` keeps.
RERANK_COMPARISONS: tuple[tuple[str, str, int], ...] = (
    ("E/rerank", "E/hybrid", 1),
    ("E/rerank", "E/hybrid", 4),
)
# The sweep runs on what `ask` uses by default: strategy E, hybrid retrieval.
SWEEP_RUN = "E/hybrid"
# Hybrid fusions scored side by side on one strategy's index, as runs
# "E/hybrid+rrf", "E/hybrid+section", ...: the chapter's faithful port (RRF k=60
# over dense + BM25) against the default "late" fusion, the "section" fusion it
# builds on (the previous default: each adopted change must beat it, paired) and the
# plain sentence list (issue 7), whatever --fusion says for the other runs.
FUSION_STRATEGY: Strategy = "E"
FUSION_RUNS: tuple[Fusion, ...] = ("rrf", "sentence", "section", "late")
# (x, y, k, unit): unit "ch" compares budgeted recall R@{k}ch (the fair measure
# when the retrieved text differs in length), "" compares R@k.
FUSION_COMPARISONS: tuple[tuple[str, str, int] | tuple[str, str, int, str], ...] = (
    ("E/hybrid+late", "E/hybrid+rrf", 1, ""),
    ("E/hybrid+late", "E/hybrid+rrf", 4, ""),
    ("E/hybrid+late", "E/hybrid+rrf", 20, ""),
    ("E/hybrid+late", "E/hybrid+rrf", 2000, "ch"),
    ("E/hybrid+late", "E/hybrid+section", 1, ""),
    ("E/hybrid+late", "E/hybrid+section", 4, ""),
    ("E/hybrid+late", "E/hybrid+section", 20, ""),
    ("E/hybrid+late", "E/hybrid+section", 2000, "ch"),
    ("E/hybrid+section", "E/hybrid+rrf", 4, ""),
    ("E/hybrid+section", "E/hybrid+sentence", 4, ""),
    # "hybrid never worse than its better component"
    ("E/hybrid+late", "E/dense", 4, ""),
    ("E/hybrid+late", "E/dense", 20, ""),
    ("E/hybrid+late", "E/dense", 2000, "ch"),
    ("E/hybrid+late", "E/bm25", 4, ""),
)


# `--query-map`: a query map (citeline adapt --query-map) fitted on FUSION_STRATEGY's
# index after its other runs, scored as runs "E/dense+qmap" and "E/hybrid+qmap"
# against the same index without it, then dropped.
QUERY_MAP_SUFFIX = "+qmap"
QUERY_MAP_COMPARISONS: tuple[tuple[str, str, int] | tuple[str, str, int, str], ...] = (
    ("E/hybrid+qmap", "E/hybrid", 1, ""),
    ("E/hybrid+qmap", "E/hybrid", 4, ""),
    ("E/hybrid+qmap", "E/hybrid", 20, ""),
    ("E/hybrid+qmap", "E/hybrid", 2000, "ch"),
    ("E/dense+qmap", "E/dense", 4, ""),
    ("E/dense+qmap", "E/dense", 2000, "ch"),
)


@dataclass(frozen=True)
class Comparison:
    x: str  # run id "E/dense"
    y: str
    k: int
    unit: str = ""  # "" = R@k (rank), "ch" = budgeted recall R@{k}ch (characters)

    @property
    def label(self) -> str:
        return f"{self.x} vs {self.y} @ R@{self.k}{self.unit}"


def parse_run(spec: str) -> str:
    """``E`` -> ``E/dense``; ``E/hybrid`` stays; anything else is a ConfigError."""
    s, _, m = spec.strip().partition("/")
    m = m or "dense"
    fusion_run = m.startswith("hybrid+") and m.partition("+")[2] in FUSIONS
    map_run = m in (f"dense{QUERY_MAP_SUFFIX}", f"hybrid{QUERY_MAP_SUFFIX}")
    if fusion_run or map_run:  # a side-by-side run of strategy E's index
        return f"{s}/{m}" if s in STRATEGIES else parse_run(s)
    if s not in STRATEGIES or m not in ALL_MODES:
        raise ConfigError(
            f"--compare: run {spec!r} must be STRATEGY or STRATEGY/MODE "
            f"(strategy one of {''.join(STRATEGIES)}, mode one of {', '.join(ALL_MODES)})"
        )
    return f"{s}/{m}"


def parse_comparison(spec: str) -> Comparison:
    """``X:Y@K``, e.g. ``E:A@20`` or ``E/hybrid:E/dense@4``; ``X:Y@2000ch`` compares
    budgeted recall (one of metrics.BUDGETS)."""
    pair, at, k = spec.partition("@")
    x, colon, y = pair.partition(":")
    k = k.strip()
    unit = "ch" if k.endswith("ch") else ""
    k = k.removesuffix("ch")
    if not at or not colon or not k.isdigit() or int(k) < 1:
        raise ConfigError(f"--compare: {spec!r} must look like X:Y@K, e.g. E:A@20 or E/hybrid:E/dense@4"
                          " (or @2000ch for budgeted recall)")
    if unit and int(k) not in metrics.BUDGETS:
        raise ConfigError(f"--compare: {spec!r}: budgeted recall is measured at "
                          f"{', '.join(f'{b}ch' for b in metrics.BUDGETS)}")
    return Comparison(parse_run(x), parse_run(y), int(k), unit)


def parse_strategies(spec: str) -> tuple[Strategy, ...]:
    letters = [c for c in spec.upper() if not c.isspace() and c != ","]
    bad = [c for c in letters if c not in STRATEGIES]
    if bad or not letters:
        raise ConfigError(f"--strategies: letters from {''.join(STRATEGIES)}, got {spec!r}")
    return tuple(dict.fromkeys(letters))  # type: ignore[arg-type]


def parse_modes(spec: str) -> tuple[Mode, ...]:
    modes = [m.strip() for m in spec.split(",") if m.strip()]
    bad = [m for m in modes if m not in ALL_MODES]
    if bad or not modes:
        raise ConfigError(f"--modes: comma-separated from {', '.join(ALL_MODES)}, got {spec!r}")
    return tuple(dict.fromkeys(modes))  # type: ignore[arg-type]


def parse_fusions(spec: str) -> tuple[Fusion, ...]:
    names = [f.strip() for f in spec.split(",") if f.strip()]
    bad = [f for f in names if f not in FUSIONS]
    if bad:
        raise ConfigError(f"--fusions: comma-separated from {', '.join(FUSIONS)}, got {spec!r}")
    return tuple(dict.fromkeys(names))  # type: ignore[arg-type]


def parse_ks(spec: str) -> tuple[int, ...]:
    try:
        ks = sorted({int(x) for x in spec.split(",") if x.strip()})
    except ValueError as exc:
        raise ConfigError(f"--k: comma-separated positive integers, got {spec!r}") from exc
    if not ks or ks[0] < 1:
        raise ConfigError(f"--k: comma-separated positive integers, got {spec!r}")
    return tuple(ks)


@dataclass
class EvalConfig:
    out: Path
    strategies: tuple[Strategy, ...] = STRATEGIES
    modes: tuple[Mode, ...] = MODES
    ks: tuple[int, ...] = DEFAULT_KS
    compare: tuple[Comparison, ...] | None = None  # None = the defaults that were run
    thresholds: tuple[float, ...] = field(default_factory=lambda: tuple(sweeps.grid()))
    bluff_cost: float = sweeps.DEFAULT_BLUFF_COST
    progress: bool = True
    # A PostgreSQL store to build the indexes in instead of SQLite folders under out/
    # (one strategy after another in the same database; see _prepare_store).
    store: str | None = None
    # hybrid fusions scored side by side on FUSION_STRATEGY (() = none)
    fusions: tuple[Fusion, ...] = FUSION_RUNS

    def fusion_runs(self, strategy: str) -> list[tuple[str, Fusion]]:
        if strategy != FUSION_STRATEGY or "hybrid" not in self.modes:
            return []
        return [(f"{strategy}/hybrid+{f}", f) for f in self.fusions]
    # How hybrid (and rerank's shortlist) fuse dense and BM25; None = Index.search's default.
    fusion: Fusion | None = None
    # Characters per chunk for every strategy's index; None = the chunker's default.
    budget: int | None = None
    # The rerank mode's model: a cross-encoder folder or a causal LM (see citeline.rerank);
    # required when that mode is evaluated.
    rerank_model: str | None = None
    # How many fused hits the rerank mode re-scores; None = the reranker's own default.
    rerank_candidates: int | None = None
    # Also fit a query map on FUSION_STRATEGY's index and score the +qmap runs.
    query_map: bool = False
    # Bring an index a previous eval left under out/indexes/<strategy> up to date (the
    # indexer skips unchanged documents, redoes stale ones, drops gone ones) instead of
    # building it anew: the figures are the same, the index seconds are the update's.
    reuse_indexes: bool = False

    def query_map_runs(self, strategy: str) -> list[tuple[str, Mode]]:
        if not self.query_map or strategy != FUSION_STRATEGY:
            return []
        return [(f"{strategy}/{m}{QUERY_MAP_SUFFIX}", m) for m in ("dense", "hybrid")
                if m in self.modes]

    def __post_init__(self) -> None:
        if not math.isfinite(self.bluff_cost) or self.bluff_cost < 0:
            raise ConfigError(f"--bluff-cost: must be a finite number >= 0, got {self.bluff_cost}")
        if self.fusion is not None and self.fusion not in FUSIONS:
            raise ConfigError(f"--fusion: must be one of {', '.join(FUSIONS)}, got {self.fusion!r}")
        if self.reuse_indexes and self.store is not None:
            raise ConfigError("--reuse-indexes: keeps the SQLite indexes under --out; an eval "
                              "with --store always empties the store it builds in")
        if self.budget is not None and not MIN_BUDGET <= self.budget <= MAX_BUDGET:
            raise ConfigError(
                f"--budget: must be within {MIN_BUDGET}..{MAX_BUDGET} characters, got {self.budget}"
            )

    @property
    def effective_fusion(self) -> str:
        """The fusion the runs use: the flag, else what ``Index.search`` defaults to."""
        return str(self.fusion or DEFAULT_FUSION)

    @property
    def runs(self) -> list[str]:
        return [f"{s}/{m}" for s in self.strategies for m in self.modes] + [
            r for s in self.strategies for r, _ in self.fusion_runs(s)
        ] + [r for s in self.strategies for r, _ in self.query_map_runs(s)]

    def comparisons(self) -> tuple[list[Comparison], list[tuple[Comparison, str]]]:
        """(comparisons to run, default comparisons skipped with the reason)."""
        runs = set(self.runs)
        if self.compare is not None:
            missing = [r for c in self.compare for r in (c.x, c.y) if r not in runs]
            if missing:
                raise ConfigError(
                    f"--compare: run(s) {', '.join(dict.fromkeys(missing))} not evaluated "
                    f"(--strategies {''.join(self.strategies)} --modes {','.join(self.modes)})"
                )
            bad_k = [c for c in self.compare if not c.unit and c.k > max(self.ks)]
            if bad_k:
                raise ConfigError(f"--compare: K={bad_k[0].k} is deeper than max --k {max(self.ks)}")
            return list(self.compare), []
        todo, skipped = [], []
        defaults = (DEFAULT_COMPARISONS + FUSION_COMPARISONS
                    + (RERANK_COMPARISONS if "rerank" in self.modes else ())
                    + (QUERY_MAP_COMPARISONS if self.query_map else ()))
        for x, y, k, *unit in defaults:
            c = Comparison(x, y, k, *unit)
            if x in runs and y in runs and (c.unit or k <= max(self.ks)):
                todo.append(c)
            else:
                skipped.append((c, "not in this evaluation's strategies/modes/k"))
        return todo, skipped

    @property
    def sweep_run(self) -> str:
        runs = self.runs
        if SWEEP_RUN in runs:
            return SWEEP_RUN
        return next((r for r in runs if r.endswith("/hybrid")), runs[0])


def _bar(total: int, desc: str, enabled: bool):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="query", disable=not enabled, file=sys.stderr,
                dynamic_ncols=True, leave=False)


def _say(msg: str, enabled: bool) -> None:
    if enabled:
        print(msg, file=sys.stderr, flush=True)


def _quantiles(values: Sequence[float]) -> dict[str, float | int | None]:
    if not values:
        return {"median": None, "p95": None, "n": 0}
    arr = np.asarray(values, dtype=np.float64)
    return {"median": round(float(np.median(arr)), 4),
            "p95": round(float(np.percentile(arr, 95)), 4), "n": len(values)}


def _rate(hits: Sequence[bool]) -> dict[str, float | int]:
    n, s = len(hits), sum(hits)
    low, high = stats.wilson_interval(s, n)
    return {"value": round(s / n, 4) if n else 0.0, "hits": s, "n": n,
            "low": round(low, 4), "high": round(high, 4)}


def summarize(ranks: Sequence[int | None], ks: Sequence[int],
              budget_hits: dict[int, list[bool]] | None = None) -> dict[str, Any]:
    """R@k with Wilson intervals, MRR and budgeted recall over one run's ranks."""
    out: dict[str, Any] = {
        "n": len(ranks),
        "recall": {str(k): _rate(metrics.hits_at(ranks, k)) for k in ks},
        "mrr": round(metrics.mrr(ranks), 4),
    }
    if budget_hits is not None:
        out["budgeted"] = {str(b): _rate(h) for b, h in budget_hits.items()}
    return out


def _store_label(url: str | None) -> str:
    if url is None:
        return "sqlite"
    from citeline.store.postgres import redact

    return f"postgresql {redact(url)}"


def _prepare_index_dir(path: Path) -> None:
    """Start each strategy from an empty index; refuse to delete anything not ours."""
    if path.exists():
        if not (path / DB_NAME).exists() and any(path.iterdir()):
            raise ConfigError(f"{path}: exists and is not a citeline index; choose another --out")
        shutil.rmtree(path)
    path.mkdir(parents=True)


def _open_index_dir(path: Path, docs_dir: Path, reuse: bool, embedder: Embedder,
                    reranker: Reranker | None,
                    rerank_candidates: int | None) -> tuple[Index, str | None]:
    """The strategy's index folder, emptied first unless ``reuse`` finds there an index
    of this ground truth's documents alone (each indexed from ``docs_dir``), and why an
    index asked to be reused was not (None when it was, or was not asked to be). One
    built from another folder, a copy of the corpus elsewhere, would keep its documents
    under their old folder and add these beside them, so it is built anew."""
    why = None
    if reuse and (path / DB_NAME).exists():
        idx = Index(path, embedder=embedder, reranker=reranker,
                    rerank_candidates=rerank_candidates)
        here = str(docs_dir.resolve())
        others = sorted({r.root for r in idx.store.documents()} - {here})
        if not others:
            return idx, None
        idx.close()
        why = f"its documents were indexed from {', '.join(others)}, not {here}"
    elif reuse:
        why = "there was no index to reuse"
    _prepare_index_dir(path)
    return Index(path, embedder=embedder, reranker=reranker,
                 rerank_candidates=rerank_candidates), why


# Set in a store an eval has built: only such a store may be emptied by the next eval.
EVAL_STORE_MARK = "eval.scratch"


def _prepare_store(url: str, embedder: Embedder, reranker: Reranker | None,
                   rerank_candidates: int | None) -> Index:
    """Open ``url`` emptied of documents, for one strategy's index. A store holding
    documents that no eval put there is refused, never emptied."""
    from citeline.store.postgres import redact

    idx = Index(url, embedder=embedder, reranker=reranker, rerank_candidates=rerank_candidates)
    try:
        docs = idx.store.documents()
        if docs and idx.store.get_setting(EVAL_STORE_MARK) != "1":
            raise ConfigError(
                f"--store {redact(url)}: holds {len(docs)} documents an eval did not index; "
                "give an empty database (eval replaces what it indexes)"
            )
        idx.store.set_setting(EVAL_STORE_MARK, "1")
        for rec in docs:
            idx.store.remove_document(rec.path)
    except BaseException:
        idx.close()
        raise
    return idx


def run_eval(
    gt_dir: str | Path, config: EvalConfig, embedder: Embedder | None = None,
    reranker: Reranker | None = None,
) -> dict[str, Any]:
    """Evaluate every strategy x mode of ``config`` on the ground truth at ``gt_dir``.

    The ground truth and every option are validated before any index is built;
    the rerank mode needs ``reranker`` or ``config.rerank_model`` (a local folder),
    else ModelUnavailable before anything is written.
    """
    gt = load_ground_truth(gt_dir)
    comparisons, skipped = config.comparisons()
    if "rerank" in config.modes and reranker is None:
        reranker = load_reranker(config.rerank_model)
    ks = config.ks
    depth = max(max(ks), ASK_CANDIDATES)  # ranks use the top max(k); the gate sees 25
    progress = config.progress
    out = Path(config.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file of that name, a read-only place, no permission
        raise ConfigError(f"--out {out}: cannot create the report folder: "
                          f"{exc.strerror or exc}") from exc

    inner = embedder if embedder is not None else load_embedder()
    cache = CachingEmbedder(inner, out / "embed-cache.sqlite3")
    queries = gt.queries()
    data: dict[str, Any] = {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "ground_truth": _gt_summary(gt),
        "config": {
            "strategies": list(config.strategies), "modes": list(config.modes),
            "ks": list(ks), "budgets": list(metrics.BUDGETS), "model": inner.identity.key,
            "chunk_budget": config.budget or DEFAULT_BUDGET, "overlap": DEFAULT_OVERLAP,
            "window": inner.window, "candidates": ASK_CANDIDATES,
            "fusion": config.effective_fusion,
            "rerank": (_reranker_summary(reranker, config.rerank_candidates)
                       if "rerank" in config.modes else None),
            "store": _store_label(config.store),
        },
        "strategies": {}, "runs": {},
        "queries": [{"qid": q.qid, "gt": q.gt.id, "phrasing": q.phrasing, "query": q.text,
                     "doc": q.gt.doc, "ranks": {}, "within": {}, "nearest": {}} for q in queries],
        "unanswerable": [{"id": u.id, "kind": u.kind, "query": u.query, "nearest": {}}
                         for u in gt.unanswerable],
    }
    sweep_inputs: tuple[list[list[tuple[float, bool]]], list[list[float]]] | None = None
    try:
        for strategy in config.strategies:
            not_reused: str | None = None
            if config.store is not None:
                idx = _prepare_store(config.store, cache, reranker, config.rerank_candidates)
            else:
                idx_dir = out / "indexes" / strategy
                idx, not_reused = _open_index_dir(idx_dir, gt.docs_dir, config.reuse_indexes,
                                                  cache, reranker, config.rerank_candidates)
                if not_reused:
                    print(f"{idx_dir}: built anew, not reused: {not_reused}", file=sys.stderr)
            try:
                _say(f"strategy {strategy}: indexing {len(gt.texts)} documents", progress)
                misses0, model_s0 = cache.misses, cache.model_seconds
                # sentence vectors only where a run uses them (they are an index option)
                wants = any(f in SENTENCE_FUSIONS for _, f in config.fusion_runs(strategy)) or (
                    config.effective_fusion in SENTENCE_FUSIONS and "hybrid" in config.modes)
                report = idx.index(gt.docs_dir, strategy=strategy, progress=progress,
                                   budget=config.budget, sentences=wants)
                if report.failed:
                    path, reason = report.failed[0]
                    raise CiteError(f"{gt.docs_dir / path}: failed to index: {reason}")
                data["strategies"][strategy] = _strategy_summary(
                    idx, gt, report.seconds, cache.misses - misses0,
                    cache.model_seconds - model_s0,
                )
                if config.reuse_indexes:  # what the index seconds measured: an update
                    data["strategies"][strategy]["reused"] = (
                        {"not_reused": not_reused} if not_reused else
                        {"unchanged": len(report.unchanged), "indexed": len(report.indexed),
                         "removed": len(report.removed)})
                # (run, mode, fusion, the mode recorded for it): --fusion applies to the
                # mode runs, which keep their mode's name; side-by-side runs are hybrid+NAME
                plan: list[tuple[str, Mode, Fusion | None, str]] = [
                    (f"{strategy}/{m}", m, config.fusion, m) for m in config.modes
                ] + [(r, "hybrid", f, f"hybrid+{f}") for r, f in config.fusion_runs(strategy)]
                plan += [(r, m, config.fusion, f"{m}{QUERY_MAP_SUFFIX}")
                         for r, m in config.query_map_runs(strategy)]
                if idx.stored_query_map() is not None:  # a reused store's: runs are plain
                    drop_query_map(idx.store)
                run_depth = _depth(idx, depth)
                for run, mode, fusion, recorded in plan:
                    if (run.endswith(QUERY_MAP_SUFFIX)
                            and "query_map" not in data["strategies"][strategy]):
                        # as `adapt --query-map` does: a map failing its held-out check
                        # is not stored, and the +qmap runs are then the plain ones
                        _say(f"strategy {strategy}: fitting a query map", progress)
                        data["strategies"][strategy]["query_map"] = fit_query_map(idx).to_json()
                    res = _run_queries(idx, gt, queries, mode, ks, run_depth, progress, run,
                                       fusion=fusion)
                    for i, (row, rank, near) in enumerate(
                        zip(data["queries"], res["ranks"], res["nearest"], strict=True)
                    ):
                        row["ranks"][run] = rank
                        row["within"][run] = {str(b): h[i] for b, h in res["budget_hits"].items()}
                        row["nearest"][run] = near
                    for row, near in zip(data["unanswerable"], res["out_nearest"], strict=True):
                        row["nearest"][run] = near
                    by_phrasing = {
                        ph: summarize([r for q, r in zip(queries, res["ranks"], strict=True)
                                       if q.phrasing == ph], ks)
                        for ph in gt.phrasings
                    }
                    data["runs"][run] = {
                        "strategy": strategy, "mode": recorded,
                        "chunks": data["strategies"][strategy]["chunks"],
                        "destroyed": len(data["strategies"][strategy]["destroyed"]),
                        **summarize(res["ranks"], ks, res["budget_hits"]),
                        "by_phrasing": by_phrasing,
                        "timings_ms": {stage: _quantiles(v) for stage, v in res["timings"].items()},
                    }
                    if run == config.sweep_run:
                        sweep_inputs = (res["in_candidates"], res["out_candidates"])
            finally:
                if config.query_map:
                    drop_query_map(idx.store)  # fitted by this eval: the index is left plain
                idx.close()
        data["timings"] = {"query_embedding_ms": _time_query_embedding(inner, gt)}
    finally:
        cache.close()

    data["comparisons"] = [
        {"x": c.x, "y": c.y, "k": c.k, "unit": c.unit, "label": c.label,
         **stats.paired(correct(data, c.x, c.k, c.unit),
                        correct(data, c.y, c.k, c.unit)).to_json(),
         "by_needle": by_needle(data, c.x, c.y, c.k, c.unit)}
        for c in comparisons
    ]
    data["comparisons_skipped"] = [{"label": c.label, "reason": why} for c, why in skipped]
    data["hybrid_vs_components"] = hybrid_vs_components(data["runs"])
    assert sweep_inputs is not None
    data["sweep"] = sweep_report(config.sweep_run, *sweep_inputs, config.thresholds,
                                 config.bluff_cost)
    return data


def run_figures(run: dict[str, Any]) -> dict[str, float]:
    """A run summary's figures by name: R@k, MRR, R@{budget}ch."""
    out = {f"R@{k}": r["value"] for k, r in run["recall"].items()}
    out["MRR"] = run["mrr"]
    out.update({f"R@{b}ch": r["value"] for b, r in run.get("budgeted", {}).items()})
    return out


def hybrid_vs_components(runs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every hybrid run (``S/hybrid``, ``S/hybrid+FUSION``) against the better of its own
    strategy's dense and BM25 runs, figure by figure (R@k, MRR, budgeted recall).

    A fusion should never do worse than the better list it fuses; ``delta`` < 0 marks a
    figure where it does (on this ground truth). Pure: reads the run summaries only.
    """
    out = []
    for rid, r in runs.items():
        strategy, mode = rid.split("/", 1)
        qmap = QUERY_MAP_SUFFIX if mode.endswith(QUERY_MAP_SUFFIX) else ""  # its own dense
        dense, bm25 = runs.get(f"{strategy}/dense{qmap}"), runs.get(f"{strategy}/bm25")
        if not mode.startswith("hybrid") or dense is None or bm25 is None:
            continue
        fd, fb = run_figures(dense), run_figures(bm25)
        for metric, value in run_figures(r).items():
            best, name = (fd[metric], "dense") if fd[metric] >= fb[metric] else (fb[metric], "bm25")
            out.append({"run": rid, "metric": metric, "hybrid": value, "better": name,
                        "better_value": best, "delta": round(value - best, 4)})
    return out


def sweep_report(
    run: str, in_candidates: list[list[tuple[float, bool]]], out_candidates: list[list[float]],
    thresholds: Sequence[float], bluff_cost: float,
) -> dict[str, Any]:
    rows = sweeps.sweep(in_candidates, out_candidates, thresholds)
    best = sweeps.propose_threshold(rows, bluff_cost)
    in_nearest = [min((d for d, _ in c), default=2.0) for c in in_candidates]
    out_nearest = [min(c, default=2.0) for c in out_candidates]
    return {
        "run": run, "bluff_cost": bluff_cost, "rows": [r.to_json() for r in rows],
        # a threshold is only worth what questions the documents do not answer show:
        # with none, nothing is proposed
        "proposed": best.to_json() if out_candidates else None,
        "out_of_domain": len(out_candidates),
        "separation": sweeps.separation(in_nearest, out_nearest),
        "in_nearest": [round(d, 6) for d in in_nearest],
        "out_nearest": [round(d, 6) for d in out_nearest],
    }


def _reranker_summary(reranker: Reranker | None,
                      candidates: int | None = None) -> dict[str, Any] | None:
    if reranker is None:
        return None
    return {"name": reranker.name, "path": str(getattr(reranker, "path", "")) or None,
            "weights_hash": getattr(reranker, "weights_hash", None),
            "candidates": candidates or shortlist_size(reranker),
            "combine": getattr(reranker, "combine", "replace")}


def by_needle(data: Mapping[str, Any], x: str, y: str, k: int, unit: str = "") -> dict[str, Any]:
    """The paired comparison counted once per needle: a win when ``x`` is right on more
    of the needle's phrasings than ``y``, a loss when on fewer. A needle's phrasings
    share one answer, so they are not independent: this is the conservative test."""
    net: dict[str, int] = {}
    for q, a, b in zip(data["queries"], correct(data, x, k, unit), correct(data, y, k, unit),
                       strict=True):
        gt = str(q.get("gt", q.get("qid")))
        net[gt] = net.get(gt, 0) + int(a) - int(b)
    wins, losses = sum(v > 0 for v in net.values()), sum(v < 0 for v in net.values())
    return {"needles": len(net), "wins": wins, "losses": losses, "p": stats.sign_test(wins, losses)}


def correct(data: Mapping[str, Any], run: str, k: int, unit: str = "") -> list[bool]:
    """Per query of a report: whether ``run`` found the needle at rank <= ``k``
    (``unit`` "") or in a hit that fits, whole, into its first ``k`` characters of
    hits packed in rank order (``unit`` "ch"; :func:`metrics.within_budget`)."""
    if unit == "ch":
        return [bool(r["within"][run][str(k)]) for r in data["queries"]]
    deepest = max((data.get("config") or {}).get("ks") or [k])
    if k > deepest:  # a rank beyond it was never recorded: it would count as a miss
        raise ConfigError(f"R@{k} asked of a report whose ranks go to {deepest} only "
                          f"(run its eval with --k {k} or deeper)")
    return [r["ranks"][run] is not None and r["ranks"][run] <= k for r in data["queries"]]


def _gt_summary(gt: GroundTruthSet) -> dict[str, Any]:
    m = gt.manifest
    kinds = {k: sum(1 for u in gt.unanswerable if u.kind == k) for k in ("near", "off")}
    return {
        "root": str(gt.root), "source": m.get("source"), "commit": m.get("commit"),
        "license": m.get("license"), "attribution": m.get("attribution"),
        "documents": len(gt.texts), "chars": sum(len(t) for t in gt.texts.values()),
        "ground_truths": len(gt.questions), "queries": len(gt.queries()),
        "phrasings": gt.phrasings, "unanswerable": len(gt.unanswerable), "unanswerable_kinds": kinds,
    }


def _strategy_summary(
    idx: Index, gt: GroundTruthSet, seconds: float, model_texts: int, model_seconds: float
) -> dict[str, Any]:
    st = idx.store.stats()
    by_doc: dict[str, list[Any]] = {}
    for row in idx.store.all_chunks():
        by_doc.setdefault(row.document, []).append(row)
    destroyed = []
    for q in gt.questions:
        rows = by_doc.get(q.doc, [])
        if metrics.is_destroyed((r.content for r in rows), q.needle):
            cut = [r for r in rows if r.start < q.end and q.start < r.end]
            destroyed.append({
                "id": q.id, "doc": q.doc, "needle": [q.start, q.end],
                "cut_by": [{"start": r.start, "end": r.end, "section": r.section} for r in cut],
            })
    return {
        "chunks": st.chunks, "documents": len(by_doc), "tokens": st.tokens,
        "header_tokens": st.header_tokens,
        "header_share": round(st.header_tokens / st.tokens, 4) if st.tokens else 0.0,
        "over_window": st.over_window, "index_seconds": round(seconds, 3),
        "index_ms_per_chunk": round(seconds * 1000 / st.chunks, 3) if st.chunks else None,
        "model_embedded": model_texts,
        "model_ms_per_text": round(model_seconds * 1000 / model_texts, 3) if model_texts else None,
        "destroyed": destroyed,
    }


def _depth(idx: Index, least: int) -> int:
    """Hits a query retrieves: at least ``least`` (the top max(k) for ranks, the 25
    the gate sees), and as many as the largest character budget can hold if the
    shortest chunks came first, so R@Nch never depends on --k."""
    lengths = np.sort([len(r.content) for r in idx.store.all_chunks()])
    fit = int(np.searchsorted(np.cumsum(lengths), max(metrics.BUDGETS), side="right"))
    return max(least, fit)


def _run_queries(
    idx: Index, gt: GroundTruthSet, queries: list[Query], mode: Mode, ks: Sequence[int],
    depth: int, progress: bool, run: str, fusion: Fusion | None = None,
) -> dict[str, Any]:
    kmax = max(ks)
    ranks: list[int | None] = []
    nearest: list[float | None] = []
    budget_hits: dict[int, list[bool]] = {b: [] for b in metrics.BUDGETS}
    in_candidates: list[list[tuple[float, bool]]] = []
    out_candidates: list[list[float]] = []
    out_nearest: list[float | None] = []
    timings: dict[str, list[float]] = {}
    bar = _bar(len(queries) + len(gt.unanswerable), f"querying {run}", progress)
    try:
        for q in queries:
            hits = _search(idx, q.text, depth, mode, timings, fusion)
            contents = [h.content for h in hits]
            ranks.append(metrics.first_correct_rank(contents[:kmax], q.gt.needle))
            for b in metrics.BUDGETS:  # packed from every hit: not cut short at max(k)
                budget_hits[b].append(metrics.within_budget(contents, q.gt.needle, b))
            gated = idx.row_distances(q.text, hits[:ASK_CANDIDATES])  # as `ask` gates them
            in_candidates.append([(h.distance, q.gt.needle in h.content)  # what it can keep
                                  for h in with_columns(keyed(q.text, gated)[0],
                                                        idx.column_lookups(q.text, gated))])
            nearest.append(round(min(h.distance for h in gated), 6) if gated else None)
            bar.update(1)
        for u in gt.unanswerable:
            hits = _search(idx, u.query, depth, mode, timings, fusion)
            gated = idx.row_distances(u.query, hits[:ASK_CANDIDATES])
            out_candidates.append([h.distance for h in with_columns(
                keyed(u.query, gated)[0], idx.column_lookups(u.query, gated))])
            out_nearest.append(round(min(h.distance for h in gated), 6) if gated else None)
            bar.update(1)
    finally:
        bar.close()
    return {"ranks": ranks, "nearest": nearest, "budget_hits": budget_hits,
            "in_candidates": in_candidates, "out_candidates": out_candidates,
            "out_nearest": out_nearest, "timings": timings}


def _search(
    idx: Index, text: str, k: int, mode: Mode, timings: dict[str, list[float]],
    fusion: Fusion | None = None,
) -> list[Hit]:
    result = idx.search(text, k=k, mode=mode, fusion=fusion)
    # the query vector comes from the eval's cache: the model is timed on its own
    staged = {stage: ms for stage, ms in result.timings.items() if stage not in ("embed", "total")}
    for stage, ms in staged.items():
        timings.setdefault(stage, []).append(ms)
    timings.setdefault("total", []).append(sum(staged.values()))
    return list(result.hits)


def _time_query_embedding(embedder: Embedder, gt: GroundTruthSet) -> dict[str, Any]:
    """The model's time for one query, one at a time, as `search` embeds it."""
    texts = [q.text for q in gt.queries()] + [u.query for u in gt.unanswerable]
    embedder.embed(texts[:1])  # warm-up: the first call allocates
    times = []
    for t in texts:
        t0 = time.perf_counter()
        embedder.embed([t])
        times.append((time.perf_counter() - t0) * 1000)
    return _quantiles(times)


# --- calibrate ---------------------------------------------------------------------------


def calibrate(
    gt_dir: str | Path, idx: Index, mode: Mode = "hybrid", bluff_cost: float = sweeps.DEFAULT_BLUFF_COST,
    thresholds: Sequence[float] | None = None, progress: bool = True,
) -> dict[str, Any]:
    """The threshold sweep on an existing index with ``gt_dir``'s in- and out-of-domain queries."""
    gt = load_ground_truth(gt_dir)
    if not gt.unanswerable:
        raise ConfigError(f"{gt.root / 'unanswerable.jsonl'}: calibrate needs out-of-domain questions")
    if not math.isfinite(bluff_cost) or bluff_cost < 0:  # nan < 0 is False; inf x 0 is nan
        raise ConfigError(f"--bluff-cost: must be a finite number >= 0, got {bluff_cost}")
    if idx.store.stats().chunks == 0:
        raise ConfigError(f"{idx.location}: the index is empty; index the documents first")
    queries = gt.queries()
    indexed = [d.path for d in idx.store.documents() if d.n_chunks]
    wanted = sorted({q.gt.doc for q in queries})
    missing = [doc for doc in wanted if not any(p == doc or p.endswith("/" + doc) for p in indexed)]
    if missing:
        # a sweep against documents that do not hold the answers proposes nonsense: a
        # question whose document is absent looks out of domain, and pulls the
        # threshold up (3 of 4 documents absent: 0.9 proposed instead of 0.5)
        which = "none of the ground truth's documents" if len(missing) == len(wanted) else \
            f"{len(missing)} of the ground truth's {len(wanted)} documents"
        verb = "is in" if len(missing) == len(wanted) else "are not in"
        raise ConfigError(
            f"{idx.location}: {which} ({', '.join(missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''}) {verb} this index; index "
            f"{gt.root / 'docs'} into it first")
    res = _run_queries(idx, gt, queries, mode, (ASK_CANDIDATES,), ASK_CANDIDATES, progress,
                       f"calibrate/{mode}")
    report = sweep_report(mode, res["in_candidates"], res["out_candidates"],
                          thresholds or sweeps.grid(), bluff_cost)
    report["current_threshold"] = idx.threshold
    report["index"] = idx.location
    report["n_in"] = len(queries)
    report["n_out"] = len(gt.unanswerable)
    report["never_retrieved"] = sum(1 for r in res["ranks"] if r is None)
    return report
