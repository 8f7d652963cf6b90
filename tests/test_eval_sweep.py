"""The threshold sweep follows the real gate; the proposal minimises refusals + C x bluffs."""

from __future__ import annotations

import pytest

from citeline.eval.sweep import grid, propose_threshold, separation, sweep
from citeline.gate import gate
from citeline.types import Hit, Locator


def test_grid():
    g = grid()
    assert g[0] == 0.30 and g[-1] == 0.90 and len(g) == 25
    assert 0.675 in g  # the chapter's starting value lies on the grid
    assert grid(0.5, 0.6, 0.05) == [0.5, 0.55, 0.6]
    with pytest.raises(ValueError):
        grid(0.6, 0.5)


IN = [
    [(0.20, True), (0.30, False)],  # q1: needle first, very close
    [(0.40, False), (0.45, False), (0.46, False), (0.47, False), (0.50, True)],  # q2: 5th
    [(0.70, True)],  # q3: far
]
OUT = [[0.45, 0.9], [0.80]]


def test_sweep_by_hand():
    rows = {r.threshold: r for r in sweep(IN, OUT, [0.25, 0.5, 0.55, 0.75, 0.85])}
    # 0.25: q1 keeps its needle; q2, q3 keep nothing; no bluff
    assert (rows[0.25].refused, rows[0.25].correct, rows[0.25].wrong, rows[0.25].bluffs) == (2, 1, 0, 0)
    # 0.50: strictly under -> q2 keeps 0.40..0.47 (4 hits), not the 0.50 needle -> wrong;
    #       u1 (0.45) bluffs
    assert (rows[0.5].refused, rows[0.5].correct, rows[0.5].wrong, rows[0.5].bluffs) == (1, 1, 1, 1)
    # 0.55: q2 has five hits under the cut but only four are kept: still wrong
    assert (rows[0.55].correct, rows[0.55].wrong) == (1, 1)
    # 0.75: q3 answered with its needle; 0.85: both unanswerable bluff
    assert (rows[0.75].refused, rows[0.75].correct, rows[0.75].bluffs) == (0, 2, 1)
    assert rows[0.85].bluffs == 2 and rows[0.85].n_in == 3 and rows[0.85].n_out == 2


def _hit(rank: int, distance: float, content: str) -> Hit:
    return Hit(rank, rank, "d.md", "D", "D", 0, len(content), Locator(0, len(content)), content,
               distance, 0.0)


def test_sweep_agrees_with_the_gate():
    hits = [_hit(i + 1, d, "NEEDLE" if ok else "other") for i, (d, ok) in enumerate(IN[1])]
    for t in (0.3, 0.41, 0.5, 0.55, 0.9):
        g = gate(hits, t)
        row = sweep([IN[1]], [], [t])[0]
        assert row.refused == int(g.refused)
        assert row.correct == int(any("NEEDLE" in h.content for h in g.kept))


def test_propose_threshold():
    rows = sweep(IN, OUT, [0.25, 0.5, 0.75, 0.85])
    # costs with C = 2: 0.25 -> 2 + 0 = 2; 0.5 -> 1 + 2 = 3; 0.75 -> 0 + 2 = 2; 0.85 -> 0 + 4 = 4
    # tie 0.25 vs 0.75 -> more correct answers wins: 0.75 (2 correct vs 1)
    assert propose_threshold(rows, 2.0).threshold == 0.75
    # C = 3: 0.25 -> 2, 0.75 -> 3: refusing is now cheaper
    assert propose_threshold(rows, 3.0).threshold == 0.25
    # C = 0: bluffs are free: fewest refusals, most correct, then lowest threshold
    assert propose_threshold(rows, 0.0).threshold == 0.75
    with pytest.raises(ValueError):
        propose_threshold([], 1.0)


def test_separation():
    assert separation([0.2, 0.5], [0.6, 0.9]) == {
        "worst_in_domain": 0.5, "best_out_of_domain": 0.6, "separable": True}
    assert not separation([0.56], [0.37])["separable"]
