"""`citeline adapt`: training pairs, batches, the loss, and a real fine-tuning run
of the bundled model on a small index, used end to end afterwards."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from citeline.adapt import (
    CHECK_MIN_PAIRS,
    PROVENANCE,
    QUERY_MAP_ID_SETTING,
    AdaptConfig,
    Pair,
    QueryMapCheck,
    QueryMapConfig,
    adapt,
    drop_query_map,
    fit_query_map,
    in_batch_loss,
    inverse_cloze_pairs,
    make_batches,
    train_query_map,
    training_pairs,
)
from citeline.embed import load_embedder, model_identity
from citeline.errors import ConfigError, ModelMismatch
from citeline.pipeline import Index


def test_inverse_cloze_pairs_hand_worked():
    doc = ("# Kettles\n\nDescale the kettle every month with white vinegar. "
           "Rinse it twice before boiling water again.")
    start = doc.index("Descale")
    content = doc[start:]
    text = "[Kettles]\n" + content
    pairs = inverse_cloze_pairs(7, text, content, start, doc)
    assert pairs == [
        Pair("Descale the kettle every month with white vinegar.",
             "[Kettles]\nRinse it twice before boiling water again.", 7),
        Pair("Rinse it twice before boiling water again.",
             "[Kettles]\nDescale the kettle every month with white vinegar.", 7),
    ]
    # a sentence that leaves too little of the chunk behind is skipped
    short = "A single sentence that is the whole chunk here."
    assert inverse_cloze_pairs(1, short, short, 0, short) == []


def test_make_batches_never_repeat_a_chunk_and_use_each_pair_once():
    pairs = [Pair(f"a{i}", f"p{i}", i % 5) for i in range(23)]
    batches = make_batches(pairs, 4, random.Random(3))
    used = [p for b in batches for p in b]
    assert len(used) == len(set(used)) and set(used) <= set(pairs)
    for b in batches:
        assert 2 <= len(b) <= 4 and len({p.chunk_id for p in b}) == len(b)
    # every chunk has 4-5 pairs, 5 chunks: at most one pair can be left over
    assert len(used) >= 22
    assert make_batches(pairs, 4, random.Random(3)) == batches  # seeded
    assert make_batches([Pair("a", "b", 1), Pair("c", "d", 1)], 4, random.Random(0)) == []


def test_in_batch_loss_matches_the_formula():
    a = torch.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    p = torch.tensor([[2.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    an = a.numpy() / np.linalg.norm(a.numpy(), axis=1, keepdims=True)
    pn = p.numpy() / np.linalg.norm(p.numpy(), axis=1, keepdims=True)
    logits = 20.0 * an @ pn.T
    want = np.mean([-(logits[i, i] - math.log(np.exp(logits[i]).sum())) for i in range(3)])
    assert float(in_batch_loss(a, p, 20.0)) == pytest.approx(want, rel=1e-5)


def test_config_rejects_bad_values():
    for kwargs, flag in (({"epochs": 0}, "--epochs"), ({"batch_size": 1}, "--batch-size"),
                         ({"max_pairs": 1}, "--max-pairs")):
        with pytest.raises(ConfigError, match=flag):
            AdaptConfig(**kwargs)


def test_adapt_a_real_index_then_reindex_and_search_with_it(
    tmp_path: Path, clean_corpus: Path, embedder, run
):
    folder = tmp_path / "ix"
    idx = Index(folder, embedder=embedder)
    with pytest.raises(ConfigError, match="no chunks"):
        adapt(idx, tmp_path / "none")
    idx.index(clean_corpus)
    cloze, heads = training_pairs(idx)
    assert len(cloze) > 10 and len(heads) == idx.store.stats().chunks - sum(
        1 for r in idx.store.all_chunks() if not r.section.strip())
    out = tmp_path / "adapted"
    report = adapt(idx, out, AdaptConfig(batch_size=8))
    assert report.pairs == len(cloze) + len(heads) and report.steps >= 3
    assert report.base_model == embedder.identity.key != report.model
    prov = json.loads((out / PROVENANCE).read_text())
    assert prov["model"] == report.model == model_identity(str(out)).key
    assert prov["config"]["learning_rate"] == 2e-5 and prov["index"] == str(folder)
    # the index's own embedder is untouched: same vector for the same text
    assert np.allclose(embedder.embed(["descaling vinegar"]),
                       load_embedder().embed(["descaling vinegar"]), atol=1e-6)
    with pytest.raises(ConfigError, match="not empty"):
        adapt(idx, out)
    idx.close()

    # with the adapted model, every document is stale until re-embedded
    adapted = Index(folder, model_path=str(out))
    assert {s.state for s in adapted.status()} == {"stale"}
    with pytest.raises(ModelMismatch, match="index's vectors are from"):
        adapted.search("descaling vinegar")
    rep = adapted.reindex_stale()
    assert rep.embedded > 0 and {s.state for s in adapted.status()} == {"indexed"}
    res = adapted.search("how do I descale the kettle")
    assert res.fusion == "late" and "kettle" in res.hits[0].document
    adapted.close()

    # the CLI: bad input is refused before any training, with the flag named
    code, _, err = run("adapt", "--index", str(folder), "--out", str(tmp_path / "x"),
                       "--epochs", "0")
    assert code == 2 and "--epochs" in err
    # --reindex: train and re-embed in one command (here on the adapted index: a
    # model adapted from an adapted model is just another local folder)
    again = tmp_path / "again"
    code, out, err = run("adapt", "--index", str(folder), "--model", str(out), "--out",
                         str(again), "--batch-size", "8", "--epochs", "0.5", "--reindex")
    assert code == 0 and f"re-embedded {len(rep.indexed)} documents" in out
    # the first step's line estimates the run; the last says how long it took
    assert re.search(r"step 1/\d+  loss .* spent, ~\d+(s|m\d\ds) left", err), err
    assert re.search(r"step (\d+)/\1  loss \d\.\d{3}  \d+(s|m\d\ds) spent, ~0s left", err), err
    second = Index(folder, model_path=str(again))
    assert {s.state for s in second.status()} == {"indexed"}
    assert second.search("how do I descale the kettle").hits
    second.close()


def test_train_query_map_learns_a_linear_relation():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(256, 16)).astype(np.float32)
    m = np.eye(16, dtype=np.float32) + 0.8 * rng.normal(size=(16, 16)).astype(np.float32)
    p = a @ m.T
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    w, losses = train_query_map(a, p, list(range(256)), QueryMapConfig(batch_size=32, epochs=20))
    assert w.shape == (16, 16) and w.dtype == np.float32 and losses[-1] < losses[0] / 2

    def mean_cos(x: np.ndarray) -> float:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
        return float(np.mean(np.sum(x * p, axis=1)))

    assert mean_cos(a @ w.T) > mean_cos(a) + 0.1
    # a chunk is never twice in a batch: all pairs of one chunk -> no batch, no step
    same = train_query_map(a[:8], p[:8], [7] * 8, QueryMapConfig(epochs=1))
    assert np.array_equal(same[0], np.eye(16, dtype=np.float32)) and same[1] == [0.0]


def test_query_map_on_a_real_index(tmp_path: Path, clean_corpus: Path, embedder, run):
    folder = tmp_path / "ix"
    idx = Index(folder, embedder=embedder)
    idx.index(clean_corpus)
    queries = ("how do I descale the kettle", "what does the warranty cover")

    def hits(ix: Index, mode: str) -> list[list[tuple]]:
        return [[(h.chunk_id, round(h.distance, 6)) for h in ix.search(q, k=8, mode=mode).hits]
                for q in queries]

    before = {m: hits(idx, m) for m in ("dense", "hybrid", "bm25")}
    assert idx.query_map() is None and idx.stored_query_map() is None
    # one heading pair per chunk: 10, too few for a verdict
    report = fit_query_map(idx, force=True)
    assert report.pairs == report.inverse_cloze_pairs + report.heading_pairs > 10
    assert report.stored and report.check.pairs == report.heading_pairs == idx.store.stats().chunks
    assert report.heading_pairs == 10
    assert report.check.passed is None and report.check.better + report.check.worse <= 10
    assert 0 < report.check.mrr_without <= 1 and 0 < report.check.mrr_with <= 1
    assert report.model == embedder.identity.key and report.loss_last < report.loss_first
    w = idx.query_map()
    assert w is not None and w.shape == (384, 384)
    key = embedder.identity.key
    for q in queries:
        qv = embedder.embed([q])[0]
        mq = w @ qv
        want = [i for i, _ in idx.store.dense((mq / np.linalg.norm(mq)).astype(np.float32), 8, key)]
        res = idx.search(q, k=8, mode="dense").hits
        assert [h.chunk_id for h in res] == want
        # the gate's distance stays the raw cosine of the query and the chunk
        raw = idx.store.similarities(qv, want, key)
        assert [h.distance for h in res] == pytest.approx([1 - raw[i] for i in want], abs=1e-5)
        fused = idx.search(q, k=8).hits  # hybrid: the same for the fused list
        raw = idx.store.similarities(qv, [h.chunk_id for h in fused], key)
        assert [h.distance for h in fused] == pytest.approx(
            [1 - raw[h.chunk_id] for h in fused], abs=1e-5)
    assert hits(idx, "bm25") == before["bm25"]  # BM25 never sees the map
    # another process sees a new map (by its stamp); one for another model is ignored
    other = Index(folder, embedder=embedder)
    assert np.array_equal(other.query_map(), w)
    stored = json.loads(idx.store.get_setting("query_map"))
    idx.store.set_setting("query_map", json.dumps(stored | {"model": "another@0/384"}))
    idx.store.set_setting("query_map_id", "another")
    assert idx.query_map() is None and idx.stored_query_map().model == "another@0/384"
    assert {m: hits(idx, m) for m in before} == before
    assert drop_query_map(idx.store) and not drop_query_map(idx.store)
    assert other.query_map() is None and {m: hits(other, m) for m in before} == before
    idx.close()
    other.close()

    # the CLI
    code, out, _ = run("adapt", "--index", str(folder), "--query-map", "-q")
    assert code == 0 and "held-out check, 10 heading -> section pairs" in out
    assert "too few pairs to tell" in out and "query map NOT stored: fewer than 20 held-out " \
        "pairs cannot show that it helps; the index is unchanged (--force stores it)" in out
    assert json.loads(run("status", "--index", str(folder), "--json")[1])["query_map"] is None
    code, out, _ = run("adapt", "--index", str(folder), "--query-map", "--force", "-q")
    assert code == 0 and "query map stored in the index" in out
    code, out, _ = run("status", "--index", str(folder), "--json")
    qm = json.loads(out)["query_map"]
    assert qm["active"] and qm["model"] == key and qm["pairs"] == report.pairs
    code, out, _ = run("status", "--index", str(folder))
    assert f"query map: on, fitted {qm['fitted_at']} on {qm['pairs']} pairs" in out
    code, out, _ = run("adapt", "--index", str(folder), "--drop-query-map")
    assert code == 0 and "query map dropped" in out
    code, out, _ = run("status", "--index", str(folder), "--json")
    assert json.loads(out)["query_map"] is None
    code, _, err = run("adapt", "--index", str(folder))
    assert code == 2 and "--out" in err
    code, _, err = run("adapt", "--index", str(folder), "--query-map", "--out", str(tmp_path / "m"))
    assert code == 2 and "--query-map" in err
    code, _, err = run("adapt", "--index", str(folder), "--force", "--out", str(tmp_path / "m"))
    assert code == 2 and "--force" in err


def test_query_map_check_verdict():
    assert QueryMapCheck(CHECK_MIN_PAIRS - 1, 0.2, 0.9, 9, 0).passed is None  # too few
    assert QueryMapCheck(CHECK_MIN_PAIRS, 0.2, 0.25, 9, 3).passed is True
    assert QueryMapCheck(CHECK_MIN_PAIRS, 0.2, 0.2, 3, 3).passed is False  # must help
    assert QueryMapCheck(50, 0.3, 0.1, 2, 30).to_json()["passed"] is False


def test_query_map_check_turns_down_a_harmful_map(tmp_path: Path, embedder, run):
    """Two chapters of the bundled Python tutorial (~40 chunks, each with its heading
    pair): enough held-out pairs for a verdict. A map trained with a learning rate
    1,000x the setting scrambles the query space; the check must refuse to store it
    and leave the index as it was, and --force must store it anyway."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("10-stdlib.md", "12-venv.md"):
        shutil.copy(Path(__file__).parents[1] / "eval" / "pytutorial" / "docs" / name, docs / name)
    folder = tmp_path / "ix"
    idx = Index(folder, embedder=embedder)
    idx.index(docs)
    good = fit_query_map(idx)
    assert good.check.pairs == good.heading_pairs >= CHECK_MIN_PAIRS
    assert good.stored is (good.check.passed is True)
    stamp = idx.store.get_setting(QUERY_MAP_ID_SETTING)
    assert bool(stamp) is good.stored
    harmful = QueryMapConfig(learning_rate=1.0)
    bad = fit_query_map(idx, harmful)
    assert bad.check.passed is False and not bad.stored
    assert bad.check.mrr_with < bad.check.mrr_without and bad.check.worse > bad.check.better
    assert idx.store.get_setting(QUERY_MAP_ID_SETTING) == stamp  # the index is unchanged
    forced = fit_query_map(idx, harmful, force=True)
    assert forced.stored and forced.check == bad.check
    assert idx.stored_query_map().check == bad.check.to_json()
    idx.close()
    code, out, _ = run("status", "--index", str(folder))
    assert code == 0 and (f"held-out headings MRR {bad.check.mrr_without:.3f} -> "
                          f"{bad.check.mrr_with:.3f} (stored with --force)") in out
