"""Balanced packing of a section's paragraphs, tested against the greedy packer
(docs/retrieval-experiments.md, section 36; the plan there was committed first).

The chunker packs a section's paragraphs (an over-budget paragraph's sentences)
greedily: it fills a chunk up to the 512-character budget and starts the next. That
makes the fewest chunks, but their sizes are uneven: a section of 560 characters
becomes 500 + 60. The candidate keeps the same number of chunks and the same cut
points' kind (paragraph, else sentence, else word ends) and chooses, among all the
packings with that many chunks, the one with the smallest sum of squared chunk
lengths: 280 + 280. It has no parameter.

``run`` indexes and scores corpora with ``citeline eval --strategies E`` through the
product, the chunker's ``pack_spans`` replaced by :func:`balanced_pack` (the vectors
of texts the greedy run already embedded are reused from its embedding cache);
``compare`` pairs the default hybrid of each corpus's balanced report with its greedy
one, per corpus and pooled (citeline.eval.pool):

    python benchmarks/packing_test.py run rustbook pytutorial ... \\
        --greedy reports/chunk4 --out reports/packing
    python benchmarks/packing_test.py compare rustbook pytutorial ... \\
        --greedy reports/chunk4 --balanced reports/packing --out result.json
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from pair_reports import compare  # benchmarks/

import citeline.chunk
from citeline import cli

GREEDY = citeline.chunk.pack_spans  # the product's packer, before `run` replaces it
CACHE = "embed-cache.sqlite3"


def balanced_pack(spans: list[tuple[int, int]], budget: int) -> list[tuple[int, int]]:
    """As many chunks as :func:`citeline.chunk.pack_spans` makes (the fewest whose
    ranges fit ``budget``), with the smallest sum of squared lengths among them.

    Dynamic programming over the spans in order: ``best[i]`` is the lexicographically
    smallest (chunks, sum of squares) that packs ``spans[:i]``. A span over the budget
    on its own (which the chunker never produces) leaves the greedy packing in place.

    >>> balanced_pack([(0, 250), (251, 500), (501, 560)], 512)
    [(0, 250), (251, 560)]
    """
    n = len(spans)
    if any(e - s > budget for s, e in spans):
        return GREEDY(spans, budget)
    best: list[tuple[int, int] | None] = [(0, 0), *([None] * n)]
    back = [0] * (n + 1)
    for i in range(1, n + 1):
        end = spans[i - 1][1]
        j = i - 1
        while j >= 0 and end - spans[j][0] <= budget:
            prefix = best[j]
            if prefix is not None:
                length = end - spans[j][0]
                cand = (prefix[0] + 1, prefix[1] + length * length)
                current = best[i]
                if current is None or cand < current:
                    best[i], back[i] = cand, j
            j -= 1
    out: list[tuple[int, int]] = []
    i = n
    while i > 0:
        j = back[i]
        out.append((spans[j][0], spans[i - 1][1]))
        i = j
    return out[::-1]


def run(names: Sequence[str], greedy: Path, out: Path) -> int:
    citeline.chunk.pack_spans = balanced_pack  # chunk_document looks it up at call time
    for name in names:
        dest = out / name
        dest.mkdir(parents=True, exist_ok=True)
        if (greedy / name / CACHE).exists() and not (dest / CACHE).exists():
            shutil.copyfile(greedy / name / CACHE, dest / CACHE)
        rc = cli.main(["eval", f"eval/{name}", "--strategies", "E", "--out", str(dest)])
        print(f"{name}: rc={rc}", flush=True)
        if rc:
            return rc
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="index and score corpora with balanced packing")
    r.add_argument("names", nargs="+", help="corpus folders under eval/")
    r.add_argument("--greedy", type=Path, required=True, help="the greedy runs' root (for the cache)")
    r.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare", help="pair the balanced runs with the greedy ones")
    c.add_argument("names", nargs="+")
    c.add_argument("--greedy", type=Path, required=True)
    c.add_argument("--balanced", type=Path, required=True)
    c.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "run":
        return run(args.names, args.greedy, args.out)
    compare(args.names, args.balanced, args.greedy, ("balanced", "greedy"), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
