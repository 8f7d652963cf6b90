"""Lab (issue 7, not in the product): a query-side linear map trained on an index's
own inverse-cloze pairs, the embedding model frozen.

q' = normalize(W q) for the dense chunk list only (the sentence list keeps q);
W starts at the identity and is trained with in-batch negatives on (sentence,
its chunk's text without it) and (heading, section content) pairs -- the pairs
of ``citeline adapt``, embedded once by the bundled model. Configuration fixed
before the first run and never changed: at most 3,000 inverse-cloze pairs
(random, seed 0) plus every heading pair, batch 64 (a chunk at most once per
batch), scale 20, Adam lr 1e-3, 5 epochs. Scores dense and the default hybrid
("section") with and without the map, paired per query.

    python benchmarks/linear_map_lab.py INDEX_DIR GT_DIR --out results.json

INDEX_DIR: a strategy-E SQLite index of GT_DIR's docs built by the bundled
model (e.g. reports/eval/indexes/E after ``make eval``). Measured in
docs/retrieval-experiments.md, section 18.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from citeline.adapt import training_pairs
from citeline.eval import stats
from citeline.eval.metrics import first_correct_rank, within_budget
from citeline.pipeline import Index
from citeline.store.sqlite import SQLiteStore

MAX_CLOZE = 3000
BATCH = 64
SCALE = 20.0
LR = 1e-3
EPOCHS = 5

Row = tuple[str, int | None, bool]  # phrasing, first correct rank, needle within 2,000 chars


def train_map(anchors: np.ndarray, positives: np.ndarray, chunk_ids: np.ndarray) -> np.ndarray:
    """W minimising the in-batch softmax loss of normalize(W a) against p."""
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.eye(anchors.shape[1]))
    opt = torch.optim.Adam([w], lr=LR)
    a, p = torch.tensor(anchors), torch.tensor(positives)
    for epoch in range(EPOCHS):
        order = np.random.default_rng(epoch).permutation(len(a))
        total, batches = 0.0, 0
        for s in range(0, len(order), BATCH):
            b = order[s : s + BATCH]
            _, first = np.unique(chunk_ids[b], return_index=True)  # a chunk once per batch
            b = b[np.sort(first)]
            if len(b) < 2:
                continue
            q = torch.nn.functional.normalize(a[b] @ w.T, dim=-1)
            loss = torch.nn.functional.cross_entropy(SCALE * q @ p[b].T, torch.arange(len(b)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, batches = total + loss.item(), batches + 1
        print(f"epoch {epoch} loss {total / max(batches, 1):.4f}")
    return w.detach().numpy()


def score(idx: Index, questions: list[dict[str, Any]], mode: str) -> list[Row]:
    out = []
    for q in questions:
        for phrasing, text in q["queries"].items():
            res = idx.search(text, k=20, mode=mode,  # type: ignore[arg-type]
                             fusion="section" if mode == "hybrid" else None)
            contents = [h.content for h in res.hits]
            out.append((phrasing, first_correct_rank(contents, q["needle"]),
                        within_budget(contents, q["needle"], 2000)))
    return out


def figures(rows: list[Row]) -> dict[str, float]:
    ranks = [r for _, r, _ in rows]

    def at(k: int) -> float:
        return round(float(np.mean([r is not None and r <= k for r in ranks])), 3)

    return {"R@1": at(1), "R@4": at(4), "R@20": at(20),
            "MRR": round(float(np.mean([1 / r if r else 0.0 for r in ranks])), 3),
            "R@2000ch": round(float(np.mean([w for _, _, w in rows])), 3)}


def paired(new: list[Row], old: list[Row]) -> dict[str, str]:
    out = {}
    for k in (1, 4, 20):
        p = stats.paired([r is not None and r <= k for _, r, _ in new],
                         [r is not None and r <= k for _, r, _ in old])
        out[f"R@{k}"] = f"+{p.wins}/-{p.losses} p={p.p:.3f}"
    p = stats.paired([w for _, _, w in new], [w for _, _, w in old])
    out["R@2000ch"] = f"+{p.wins}/-{p.losses} p={p.p:.3f}"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", help="strategy-E SQLite index of the ground truth's docs")
    ap.add_argument("gt", help="ground-truth folder")
    ap.add_argument("--out", type=Path, required=True, help="JSON result")
    ap.add_argument("--cache", type=Path, default=None,
                    help="npz of the pairs' embeddings (written, then reused)")
    args = ap.parse_args()

    idx = Index(args.index, create=False)
    cloze, heads = training_pairs(idx)
    pairs = random.Random(0).sample(cloze, min(MAX_CLOZE, len(cloze))) + heads
    t = time.perf_counter()
    if args.cache is not None and args.cache.exists():
        cached = np.load(args.cache)
        anchors, positives = cached["A"], cached["P"]
    else:
        anchors = idx.embedder.embed([p.anchor for p in pairs]).astype(np.float32)
        positives = idx.embedder.embed([p.positive for p in pairs]).astype(np.float32)
        if args.cache is not None:
            np.savez(args.cache, A=anchors, P=positives)
    embed_s = time.perf_counter() - t
    t = time.perf_counter()
    w = train_map(anchors, positives, np.array([p.chunk_id for p in pairs]))
    train_s = time.perf_counter() - t

    questions = [json.loads(line) for line in (Path(args.gt) / "questions.jsonl").open()
                 if line.strip()]
    before = {m: score(idx, questions, m) for m in ("dense", "hybrid")}
    plain_dense = SQLiteStore.dense

    def mapped_dense(self, query, k, model_key):  # type: ignore[no-untyped-def]
        q = w @ query
        return plain_dense(self, (q / np.linalg.norm(q)).astype(np.float32), k, model_key)

    SQLiteStore.dense = mapped_dense  # type: ignore[method-assign]
    after = {m: score(idx, questions, m) for m in ("dense", "hybrid")}
    SQLiteStore.dense = plain_dense  # type: ignore[method-assign]

    result: dict[str, Any] = {
        "index": args.index, "gt": args.gt, "pairs": len(pairs),
        "embed_s (0 when cached)": round(embed_s, 1), "train_s": round(train_s, 1), "runs": {},
    }
    for m in ("dense", "hybrid"):
        result["runs"][m] = {"without": figures(before[m]), "with map": figures(after[m]),
                             "paired": paired(after[m], before[m])}
        print(m, json.dumps(result["runs"][m]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
