"""Honest statistics for 64-query evaluations (pure, no I/O).

* :func:`wilson_interval` — the Wilson score interval for a binomial
  proportion (Wilson, "Probable inference, the law of succession, and
  statistical inference", JASA 1927; Newcombe, Stat. Med. 1998, method 3).
  Unlike the normal approximation it never leaves [0, 1] and behaves at 0 and n.
  With 64 queries a recall near 0.5 carries about +-0.12: a strategy four
  points ahead of another has shown nothing.
* :func:`sign_test` — the exact two-sided sign test on the discordant pairs of
  a paired comparison (both strategies answer the same queries): under H0 a
  discordant query is a win or a loss with probability 1/2, so with
  n = wins + losses, p = min(1, 2 * P[Binomial(n, 1/2) <= min(wins, losses)]).
  Concordant queries (both right, both wrong) carry no information about which
  is better and are left out, as McNemar's test does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

# Two-sided 95%: the 0.975 quantile of the standard normal.
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """(low, high) of the Wilson score interval for ``successes`` out of ``n``.

    centre = (p + z^2 / 2n) / (1 + z^2 / n)
    half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    n = 0 gives the vacuous (0, 1).
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign-test p-value for ``wins`` vs ``losses`` discordant pairs.

    Computed exactly from the binomial coefficients (Fractions, no float
    cancellation); no discordant pair gives p = 1.
    """
    if wins < 0 or losses < 0:
        raise ValueError("wins and losses must be >= 0")
    n = wins + losses
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(wins, losses) + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


@dataclass(frozen=True)
class Paired:
    """A paired comparison of X against Y on the same queries."""

    wins: int  # X right, Y wrong
    losses: int  # X wrong, Y right
    both: int  # both right
    neither: int  # both wrong
    p: float  # exact two-sided sign test on wins vs losses

    def to_json(self) -> dict[str, object]:
        return {"wins": self.wins, "losses": self.losses, "both": self.both,
                "neither": self.neither, "p": self.p}


def paired(x: Sequence[bool], y: Sequence[bool]) -> Paired:
    """Compare per-query correctness of X and Y (same queries, same order)."""
    if len(x) != len(y):
        raise ValueError(f"paired runs must have the same queries ({len(x)} vs {len(y)})")
    wins = sum(1 for a, b in zip(x, y) if a and not b)
    losses = sum(1 for a, b in zip(x, y) if b and not a)
    both = sum(1 for a, b in zip(x, y) if a and b)
    return Paired(wins, losses, both, len(x) - wins - losses - both, sign_test(wins, losses))
