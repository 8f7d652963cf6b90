"""Paired comparisons pooled over corpora (citeline.eval.pool), on hand-made reports."""

import pytest

from citeline.errors import ConfigError
from citeline.eval.pool import needle_counts, pool, pooled_figures, rank_counts, render
from citeline.eval.stats import sign_test


def report(pairs):
    """A report with runs X and Y and one query per (rank of X, rank of Y); a needle
    counts as inside 2,000 characters when its rank is 1 (enough for these tests)."""
    queries = [{"ranks": {"X": rx, "Y": ry},
                "within": {"X": {"2000": rx == 1}, "Y": {"2000": ry == 1}}} for rx, ry in pairs]
    return {"runs": {"X": {}, "Y": {}}, "queries": queries}


A = report([(1, 2), (3, None), (None, 5), (2, 2), (10, 30)])
B = report([(4, 1), (1, 1), (25, None)])


def test_rank_counts_treat_not_found_as_worst():
    assert rank_counts(A, "X", "Y") == (3, 1)  # (1<2), (3<None), (10<30); (None>5); tie
    assert rank_counts(B, "X", "Y") == (1, 1)  # (25<None); (4>1); tie


def test_pool_counts_per_corpus_and_query_by_query():
    r = pool({"a": A, "b": B}, "X", "Y")
    a, b, p = r["corpora"]["a"], r["corpora"]["b"], r["pooled"]
    # R@4 in A: X right on q1,q2,q4 / Y right on q1,q4 -> one win (q2), no loss
    assert (a["R@4"]["wins"], a["R@4"]["losses"], a["R@4"]["both"]) == (1, 0, 2)
    # R@4 in B: q1 X=4 and Y=1 both right, q2 both, q3 neither
    assert (b["R@4"]["wins"], b["R@4"]["losses"], b["R@4"]["both"], b["R@4"]["neither"]) == (0, 0, 2, 1)
    # R@1: A q1 X wins; B q1 Y wins -> pooled +1/-1
    assert (p["R@1"]["wins"], p["R@1"]["losses"]) == (1, 1)
    assert p["R@2000ch"] == p["R@1"]  # within 2000 chars is rank 1 in these reports
    # R@20: A q2 win (3 vs None), q3 loss (None vs 5), q5 win (10 vs 30>20); B q3 neither
    assert (p["R@20"]["wins"], p["R@20"]["losses"]) == (2, 1)
    assert p["rank"] == {"better": 4, "worse": 2, "p": sign_test(4, 2)}
    assert p["queries"] == 8 and p["R@20"]["p"] == sign_test(2, 1)


def test_pooling_gives_power_one_corpus_lacks():
    one = report([(1, None)] * 5 + [(None, None)] * 59)  # +5/-0 on 64 queries: p = .0625
    r = pool({"a": one, "b": one, "c": one}, "X", "Y")
    assert r["corpora"]["a"]["R@4"]["p"] == pytest.approx(0.0625)
    assert r["pooled"]["R@4"]["wins"] == 15 and r["pooled"]["R@4"]["p"] < 0.001


def test_one_phrasing_half_pools_only_its_queries():
    halves = report([(1, None), (None, 1), (1, None)])
    for q, ph in zip(halves["queries"], ["course", "ticket", "course"], strict=True):
        q["phrasing"] = ph
    course = pool({"a": halves}, "X", "Y", phrasing="course")
    ticket = pool({"a": halves}, "X", "Y", phrasing="ticket")
    assert course["pooled"]["queries"] == 2 and course["pooled"]["R@1"]["wins"] == 2
    assert ticket["pooled"]["queries"] == 1 and ticket["pooled"]["R@1"]["losses"] == 1
    assert render(course)[0] == "X vs Y (course phrasings)"
    assert pool({"a": halves}, "X", "Y")["pooled"]["R@1"]["wins"] == 2  # both halves


def test_a_missing_run_names_the_corpus_and_run():
    with pytest.raises(ConfigError, match=r"b: the report has no run 'Z'"):
        pool({"a": {"runs": {"Z": {}, "Y": {}}, "queries": []}, "b": A}, "Z", "Y")
    with pytest.raises(ConfigError, match="no reports"):
        pool({}, "X", "Y")


def test_render_has_a_line_per_corpus_and_the_pool():
    lines = render(pool({"a": A, "b": B}, "X", "Y"))
    assert lines[0] == "X vs Y"
    assert lines[1].split()[0] == "a" and lines[3].split()[0] == "pooled"
    assert "R@20 +2/-1" in lines[3] and "rank 4/2" in lines[3]


def test_pooled_figures_count_every_query_of_every_corpus_once():
    f = pooled_figures({"a": A, "b": B}, "X")
    # X's ranks: 1, 3, None, 2, 10 | 4, 1, 25 -> 8 queries
    assert f["queries"] == 8
    assert f["R@1"] == round(2 / 8, 4) and f["R@4"] == round(5 / 8, 4) and f["R@20"] == round(6 / 8, 4)
    assert f["MRR"] == round((1 + 1 / 3 + 1 / 2 + 1 / 10 + 1 / 4 + 1 + 1 / 25) / 8, 4)
    with pytest.raises(ConfigError, match="no queries asked in course"):
        pooled_figures({"a": A}, "X", phrasing="course")  # A's queries have no phrasing


def test_needle_level_counts_each_needle_once():
    # needle g1: X right on both phrasings, Y on one -> X ahead; g2: one each -> tie;
    # g3: only Y right -> Y ahead
    r = report([(1, 1), (1, None), (1, None), (None, 1), (None, 1)])
    for q, gt in zip(r["queries"], ["g1", "g1", "g2", "g2", "g3"], strict=True):
        q["gt"] = gt
    assert needle_counts({"a": r}, "X", "Y", 1) == (3, 1, 1)
    assert needle_counts({"a": r, "b": r}, "X", "Y", 1) == (6, 2, 2)  # per corpus
    by = pool({"a": r}, "X", "Y")["by_needle"]["R@1"]
    assert by == {"needles": 3, "wins": 1, "losses": 1, "p": 1.0}
    assert render(pool({"a": r}, "X", "Y"))[-1].split()[:2] == ["by", "needle"]


def test_a_report_run_with_a_shallower_k_is_refused_not_counted_as_misses():
    """Ranks are recorded only to a report's deepest --k: asking it for R@4 or R@20 must
    fail, not count every needle found at rank 2-20 as missed."""
    shallow = {**report([(2, 1), (1, 1)]), "config": {"ks": [1]}}
    with pytest.raises(ConfigError, match="R@4 asked of a report whose ranks go to 1 only"):
        pool({"a": A, "shallow": shallow}, "X", "Y")
    with pytest.raises(ConfigError, match="--k 4 or deeper"):
        pooled_figures({"shallow": shallow}, "X")
    deep = {**shallow, "config": {"ks": [1, 4, 20]}}
    assert pooled_figures({"deep": deep}, "X")["R@4"] == 1.0
