"""Recall@k, MRR, destroyed and budgeted recall: by hand and against trec_eval."""

from __future__ import annotations

import random

import pytest
import pytrec_eval

from citeline.eval.metrics import (
    first_correct_rank,
    hits_at,
    is_destroyed,
    mrr,
    recall_at_k,
    within_budget,
)


def test_first_correct_rank_is_a_byte_exact_substring():
    contents = ["the answer is 42.", "The Answer is 42", "x the answer is 42 y"]
    assert first_correct_rank(contents, "the answer is 42") == 1
    assert first_correct_rank(contents[1:], "the answer is 42") == 2  # no case folding
    assert first_correct_rank(["line one\nline two"], "one line") is None  # no whitespace folding
    assert first_correct_rank([], "x") is None


def test_recall_and_mrr_by_hand():
    ranks = [1, 3, None, 2, 20]
    # R@1: only the first query -> 1/5 = 0.2
    # R@4: ranks 1, 3, 2 -> 3/5 = 0.6;  R@20: + rank 20 -> 4/5 = 0.8
    # MRR: (1/1 + 1/3 + 0 + 1/2 + 1/20) / 5 = (1 + 0.333333 + 0.5 + 0.05) / 5 = 0.376667
    assert recall_at_k(ranks, 1) == 0.2
    assert recall_at_k(ranks, 4) == 0.6
    assert recall_at_k(ranks, 20) == 0.8
    assert mrr(ranks) == pytest.approx((1 + 1 / 3 + 0.5 + 0.05) / 5)
    assert hits_at(ranks, 2) == [True, False, False, True, False]
    assert recall_at_k([], 4) == 0.0 and mrr([]) == 0.0


def test_destroyed():
    chunks = ["Plant them deep. Transplant into the", " border when the truss shows."]
    assert is_destroyed(chunks, "Transplant into the border")  # cut by the boundary
    assert not is_destroyed(chunks + ["Transplant into the border when"], "Transplant into the border")


def test_budgeted_recall_by_hand():
    contents = ["a" * 1500, "b" * 400 + "NEEDLE" + "c" * 94, "d" * 500]
    # chunk 2 (500 chars) holds the needle: packed whole it ends at 1500 + 500 = 2000
    assert within_budget(contents, "NEEDLE", 2000)
    assert not within_budget(contents, "NEEDLE", 1999)  # chunk 2 no longer fits whole
    assert within_budget(contents, "NEEDLE", 4000)
    # a needle spanning two chunks counts in neither
    assert not within_budget(["xx NEE", "DLE yy"], "NEEDLE", 4000)
    # ranked first but its chunk alone is over the budget: nothing is handed over
    assert not within_budget(["NEEDLE" + "z" * 2500], "NEEDLE", 2000)
    # blind 512-char chunks: 3 fit into 2,000 characters (1536), the 4th would not (2048)
    blind = ["x" * 512] * 3 + ["NEEDLE".ljust(512, "y")]
    assert not within_budget(blind, "NEEDLE", 2000) and within_budget(blind, "NEEDLE", 2048)


def _trec(qrels, run, ks):
    measures = {"recip_rank", "success." + ",".join(map(str, ks))}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def test_against_trec_eval_on_random_runs():
    """Random ranked lists of chunk ids with 0-2 needle-holding chunks per query
    (overlap strategies put the needle in two chunks): our R@k and MRR over the
    first correct rank equal trec_eval's success@k and recip_rank."""
    rng = random.Random(7)
    ks = (1, 4, 8, 20)
    qrels, run, ranks = {}, {}, []
    for q in range(200):
        ids = rng.sample(range(1000), 20)
        relevant = rng.sample(range(1000), rng.choice((0, 1, 1, 2)))
        qid = f"q{q}"
        qrels[qid] = {f"c{i}": 1 for i in relevant} or {"none": 0}
        run[qid] = {f"c{i}": float(20 - r) for r, i in enumerate(ids)}  # distinct scores
        contents = [("NEEDLE " if i in relevant else "") + f"chunk {i}" for i in ids]
        ranks.append(first_correct_rank(contents, "NEEDLE"))
    ref = _trec(qrels, run, ks)
    for k in ks:
        expect = sum(ref[f"q{q}"][f"success_{k}"] for q in range(200)) / 200
        assert recall_at_k(ranks, k) == pytest.approx(expect)
    assert mrr(ranks) == pytest.approx(sum(r["recip_rank"] for r in ref.values()) / 200)
