"""Wilson intervals and the exact sign test: textbook values, hand arithmetic, SciPy."""

from __future__ import annotations

import math

import pytest
from scipy.stats import binomtest

from citeline.eval.stats import Z95, paired, sign_test, wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Newcombe, "Two-sided confidence intervals for the single proportion",
        # Statistics in Medicine 17 (1998), Table I, method 3 (Wilson score):
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_textbook_values(successes, n, low, high):
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=6e-5) and hi == pytest.approx(high, abs=6e-5)


def test_wilson_course_chapter_values():
    # R@20 over 64 queries: A [0.471, 0.705] and E [0.718, 0.901] are 38/64 and 53/64
    assert [round(x, 3) for x in wilson_interval(38, 64)] == [0.471, 0.705]
    assert [round(x, 3) for x in wilson_interval(53, 64)] == [0.718, 0.901]


def test_wilson_by_hand():
    # 32 of 64, z = 1.96: p = 0.5, z^2/n = 3.8416/64 = 0.060025,
    # centre = (0.5 + 0.0300125) / 1.060025 = 0.5 (symmetric),
    # half = 1.96 / 1.060025 * sqrt(0.25/64 + 3.8416/16384)
    #      = 1.849013 * sqrt(0.00390625 + 0.000234473) = 1.849013 * 0.0643485 = 0.118981
    lo, hi = wilson_interval(32, 64, z=1.96)
    assert lo == pytest.approx(0.5 - 0.118981, abs=1e-6)
    assert hi == pytest.approx(0.5 + 0.118981, abs=1e-6)


def test_wilson_matches_scipy_and_edges():
    for n in (1, 7, 30, 64, 200):
        for s in range(0, n + 1, max(1, n // 9)):
            ci = binomtest(s, n).proportion_ci(confidence_level=0.95, method="wilson")
            lo, hi = wilson_interval(s, n)
            assert lo == pytest.approx(ci.low, abs=1e-9) and hi == pytest.approx(ci.high, abs=1e-9)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert Z95 == pytest.approx(1.959963984540054)
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


def test_sign_test_by_hand():
    # +18/-4: n = 22, P[X <= 4] = (C(22,0)+C(22,1)+C(22,2)+C(22,3)+C(22,4)) / 2^22
    #        = (1 + 22 + 231 + 1540 + 7315) / 4194304 = 9109 / 4194304; p = 2x = 0.004343
    assert sign_test(18, 4) == pytest.approx(2 * 9109 / 4194304, rel=1e-12)
    assert sign_test(18, 4) == pytest.approx(0.0043, abs=1e-4)  # shared/eval README: p = 0.004
    # +1/-0: n = 1, P[X <= 0] = 1/2, p = min(1, 2 * 1/2) = 1
    assert sign_test(1, 0) == 1.0
    # +5/-0: p = 2 / 32 = 0.0625 (five wins in a row is not significant at 0.05)
    assert sign_test(5, 0) == 0.0625
    assert sign_test(3, 3) == 1.0 and sign_test(0, 0) == 1.0
    # the chapter's figures: +18/-3 p = 0.0015, hybrid vs dense +10/-6 p = 0.45
    assert round(sign_test(18, 3), 4) == 0.0015 and round(sign_test(10, 6), 2) == 0.45


def test_sign_test_matches_scipy_binomtest():
    for wins in range(0, 31, 3):
        for losses in range(0, 31, 4):
            if wins + losses == 0:
                continue
            ref = binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue
            assert sign_test(wins, losses) == pytest.approx(ref, rel=1e-9, abs=1e-15)
    assert sign_test(30, 30) == sign_test(30, 30)  # exact ints: no float drift
    assert math.isclose(sign_test(4, 18), sign_test(18, 4))


def test_paired_counts():
    x = [True, True, False, False, True, False]
    y = [True, False, True, False, False, False]
    # wins: positions 1 and 4; loss: position 2; both right: 0; both wrong: 3, 5
    p = paired(x, y)
    assert (p.wins, p.losses, p.both, p.neither) == (2, 1, 1, 2)
    assert p.p == sign_test(2, 1) == 1.0
    with pytest.raises(ValueError):
        paired([True], [True, False])
