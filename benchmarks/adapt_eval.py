"""Measure `citeline adapt` on a ground truth (issue 7): the adapted model against
the bundled one, query by query, with nothing tuned on the queries.

1. ``citeline eval GT --strategies E`` with the bundled model (runs E/dense,
   E/bm25, E/hybrid = the default fusion, E/hybrid+rrf = the chapter's port);
2. ``adapt`` the bundled model on that E index's own chunks (default settings);
3. the same eval with the adapted model;
4. paired exact sign tests, adapted vs bundled, per run, at R@1/4/20, R@2000ch
   and first-correct rank; the adapted default against the port; the threshold
   sweep's proposal for both.

    python benchmarks/adapt_eval.py eval/rustbook --out reports/eval-adapt/rustbook

``--max-pairs N`` adapts on a random N of the pairs (the cost curve), ``--base
DIR`` reuses step 1 of an earlier run (its OUT/base) instead of repeating it.
Writes OUT/adapt_eval.json (and OUT/base/, OUT/model/, OUT/adapted/). Takes
~20 minutes for rustbook's 1,563 chunks on 2 CPU cores (the training), ~6 for
eval/pytutorial.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citeline.adapt import AdaptConfig, adapt
from citeline.embed import load_embedder
from citeline.eval import stats
from citeline.eval.harness import EvalConfig, run_eval, run_figures
from citeline.eval.report import write_report
from citeline.pipeline import Index

RUNS = ("E/dense", "E/hybrid", "E/hybrid+rrf")
RANK_MISS = 99


def paired(a: dict[str, Any], ra: str, b: dict[str, Any], rb: str) -> dict[str, str]:
    """Run ``ra`` of report ``a`` against run ``rb`` of report ``b``, query by query."""
    qa = {q["qid"]: q for q in a["queries"]}
    qb = {q["qid"]: q for q in b["queries"]}
    ids = sorted(qa)
    if ids != sorted(qb):
        raise SystemExit("the two reports hold different queries")

    def hit(q: dict[str, Any], run: str, k: int) -> bool:
        return q["ranks"][run] is not None and q["ranks"][run] <= k

    out = {}
    for k in (1, 4, 20):
        p = stats.paired([hit(qa[i], ra, k) for i in ids], [hit(qb[i], rb, k) for i in ids])
        out[f"R@{k}"] = f"+{p.wins}/-{p.losses} p={p.p:.4f}"
    p = stats.paired([qa[i]["within"][ra]["2000"] for i in ids],
                     [qb[i]["within"][rb]["2000"] for i in ids])
    out["R@2000ch"] = f"+{p.wins}/-{p.losses} p={p.p:.4f}"
    x = [qa[i]["ranks"][ra] or RANK_MISS for i in ids]
    y = [qb[i]["ranks"][rb] or RANK_MISS for i in ids]
    better, worse = sum(u < v for u, v in zip(x, y)), sum(u > v for u, v in zip(x, y))
    out["rank better/worse"] = f"{better}/{worse} p={stats.sign_test(better, worse):.4f}"
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gt", help="ground-truth folder (docs/, questions.jsonl, ...)")
    ap.add_argument("--out", required=True, help="work and result folder (replaced)")
    ap.add_argument("--max-pairs", type=int, default=None,
                    help="adapt on a random subset of this many pairs (the cost curve)")
    ap.add_argument("--base", default=None,
                    help="reuse the bundled-model eval of an earlier run (its OUT/base) "
                         "instead of running it again")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    config = dict(strategies=("E",), fusions=("rrf",), progress=False)

    if args.base:
        print(f"[1/3] {args.gt}: reusing the bundled-model eval in {args.base}", file=sys.stderr)
        shutil.copytree(args.base, out / "base")
        base = json.loads((out / "base" / "report.json").read_text(encoding="utf-8"))
        if Path(base["ground_truth"]["root"]).resolve() != Path(args.gt).resolve():
            raise SystemExit(f"--base {args.base}: made on {base['ground_truth']['root']}, "
                             f"not {args.gt}")
    else:
        print(f"[1/3] {args.gt}: eval with the bundled model", file=sys.stderr)
        base = run_eval(args.gt, EvalConfig(out=out / "base", **config))  # type: ignore[arg-type]
        write_report(base, out / "base")
    print("[2/3] adapting the bundled model on the E index", file=sys.stderr)
    idx = Index(out / "base" / "indexes" / "E", create=False)
    report = adapt(
        idx, out / "model", AdaptConfig(max_pairs=args.max_pairs),
        progress=lambda s, n, loss: s % 50 == 0 and print(f"  step {s}/{n} loss {loss:.3f}",
                                                           file=sys.stderr))
    idx.close()
    print(f"[3/3] eval with the adapted model ({report.seconds:g} s of training)", file=sys.stderr)
    adapted = run_eval(args.gt, EvalConfig(out=out / "adapted", **config),  # type: ignore[arg-type]
                       embedder=load_embedder(str(out / "model")))
    write_report(adapted, out / "adapted")

    result: dict[str, Any] = {
        "ground_truth": args.gt, "adapt": report.to_json(),
        "runs": {r: {"bundled": run_figures(base["runs"][r]),
                     "adapted": run_figures(adapted["runs"][r]),
                     "adapted vs bundled": paired(adapted, r, base, r)} for r in RUNS},
        "adapted default (E/hybrid) vs the bundled port (E/hybrid+rrf)":
            paired(adapted, "E/hybrid", base, "E/hybrid+rrf"),
        "hybrid below its better component (adapted)":
            [c for c in adapted["hybrid_vs_components"] if c["delta"] < 0],
        "threshold proposed": {"bundled": base["sweep"]["proposed"],
                               "adapted": adapted["sweep"]["proposed"]},
    }
    (out / "adapt_eval.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for r, v in result["runs"].items():
        b, a = v["bundled"], v["adapted"]
        print(f"{r:14} " + "  ".join(f"{m} {b[m]:.3f}->{a[m]:.3f}" for m in
                                    ("R@1", "R@4", "R@20", "MRR", "R@2000ch")))
        print(f"{'':14} adapted vs bundled: {v['adapted vs bundled']}")
    print("adapted default vs bundled port:",
          result["adapted default (E/hybrid) vs the bundled port (E/hybrid+rrf)"])
    print(f"wrote {out / 'adapt_eval.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
