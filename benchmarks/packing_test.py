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
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import citeline.chunk
from citeline import cli
from citeline.eval.pool import pool, pooled_figures, render

RUN = "E/hybrid"
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


def merged(greedy: dict[str, Any], balanced: dict[str, Any]) -> dict[str, Any]:
    """One report holding both default hybrids, as runs ``greedy`` and ``balanced``."""
    g, b = greedy["queries"], balanced["queries"]
    if [q["qid"] for q in g] != [q["qid"] for q in b]:
        raise SystemExit("the two reports do not hold the same queries in the same order")
    queries = [{**qg, "ranks": {"greedy": qg["ranks"][RUN], "balanced": qb["ranks"][RUN]},
                "within": {"greedy": qg["within"][RUN], "balanced": qb["within"][RUN]}}
               for qg, qb in zip(g, b, strict=True)]
    return {"runs": {"greedy": {}, "balanced": {}}, "queries": queries}


def compare(names: Sequence[str], greedy: Path, balanced: Path, out: Path | None) -> int:
    reports, chunks = {}, {}
    for name in names:
        rg = json.loads((greedy / name / "report.json").read_text(encoding="utf-8"))
        rb = json.loads((balanced / name / "report.json").read_text(encoding="utf-8"))
        reports[name] = merged(rg, rb)
        chunks[name] = {
            side: {"chunks": r["strategies"]["E"]["chunks"],
                   "destroyed": len(r["strategies"]["E"]["destroyed"])}
            for side, r in (("greedy", rg), ("balanced", rb))}
    result = pool(reports, "balanced", "greedy")
    result["figures"] = {run: pooled_figures(reports, run) for run in ("balanced", "greedy")}
    result["rustbook"] = ({run: pooled_figures({"rustbook": reports["rustbook"]}, run)
                           for run in ("balanced", "greedy")} if "rustbook" in reports else None)
    result["chunks"] = chunks
    print("\n".join(render(result)))
    print(json.dumps({"figures": result["figures"], "rustbook": result["rustbook"],
                      "chunks": chunks}, indent=1))
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
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
    return compare(args.names, args.greedy, args.balanced, args.out)


if __name__ == "__main__":
    sys.exit(main())
