"""Write an evaluation (the dict :func:`citeline.eval.harness.run_eval` returns) to disk.

``report.json`` is that dict as is (per query, the rank of the needle in every
run, so any two runs can be compared later); ``report.md`` is the same figures
as tables; ``recall_at_k.png``, ``distances.png`` and ``sweep.png`` are the plots
(matplotlib, Agg backend: no display needed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeline.eval.metrics import BUDGETS
from citeline.gate import DEFAULT_THRESHOLD

PLOTS = ("recall_at_k.png", "distances.png", "sweep.png")


def write_report(data: dict[str, Any], out: str | Path) -> list[Path]:
    """Write report.json, report.md and the plots into ``out``; return the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.json", out / "report.md"]
    paths[0].write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    paths[1].write_text(render_markdown(data), encoding="utf-8")
    paths += plot_all(data, out)
    return paths


# --- console ---------------------------------------------------------------------------

# The console table's narrowest columns (run name, chunks, destroyed, each R@k, MRR):
# as wide as a plain run name ("E/hybrid") or figure needs, so short tables stay compact.
_CONSOLE_WIDTHS = (10, 6, 5, 6, 6)


def console_table(data: dict[str, Any]) -> list[str]:
    """The table `citeline eval` prints: per run, its chunks, destroyed needles, R@k and
    MRR. A column is as wide as its widest cell, so a long run name
    ("E/hybrid+late+qmap") pushes the figures right instead of out of their columns.

    >>> data = {"config": {"ks": [4]}, "runs": {
    ...     "E/dense": {"chunks": 12, "destroyed": 0, "recall": {"4": {"value": 0.5}}, "mrr": 0.25},
    ...     "E/hybrid+late+qmap": {"chunks": 12, "destroyed": 0, "recall": {"4": {"value": 1}},
    ...                            "mrr": 0.75}}}
    >>> print("\\n".join(console_table(data)))
    run                chunks destr    R@4    MRR
    E/dense                12     0  0.500  0.250
    E/hybrid+late+qmap     12     0  1.000  0.750
    """
    ks = data["config"]["ks"]
    header = ["run", "chunks", "destr", *(f"R@{k}" for k in ks), "MRR"]
    rows = [[rid, str(r["chunks"]), str(r["destroyed"]),
             *(f"{r['recall'][str(k)]['value']:.3f}" for k in ks), f"{r['mrr']:.3f}"]
            for rid, r in data["runs"].items()]
    least = [*_CONSOLE_WIDTHS[:3], *(_CONSOLE_WIDTHS[3] for _ in ks), _CONSOLE_WIDTHS[4]]
    widths = [max(w, *(len(c) for c in col)) for w, col in zip(least, zip(header, *rows))]
    return [" ".join(c.ljust(w) if i == 0 else c.rjust(w)
                     for i, (c, w) in enumerate(zip(line, widths)))
            for line in (header, *rows)]


# --- markdown ----------------------------------------------------------------------------


def _ci(r: dict[str, Any]) -> str:
    return f"{r['value']:.3f} [{r['low']:.2f}, {r['high']:.2f}]"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def _ms(q: dict[str, Any]) -> str:
    if q.get("median") is None:
        return "–"
    return f"{q['median']:.2f} / {q['p95']:.2f}"


def render_markdown(data: dict[str, Any]) -> str:
    gt, cfg = data["ground_truth"], data["config"]
    ks = cfg["ks"]
    lines = [
        "# Retrieval evaluation",
        "",
        f"Ground truth `{gt['root']}`: {gt['documents']} documents ({gt['chars']:,} characters), "
        f"{gt['ground_truths']} ground truths x {len(gt['phrasings'])} phrasings "
        f"({', '.join(gt['phrasings'])}) = {gt['queries']} queries; {gt['unanswerable']} "
        f"unanswerable ({gt['unanswerable_kinds']['near']} near, "
        f"{gt['unanswerable_kinds']['off']} off-topic).",
    ]
    if gt.get("source"):
        lines += ["", f"Source: {gt['source']} @ {str(gt.get('commit') or '')[:12]}, "
                  f"license {gt.get('license')}. {gt.get('attribution') or ''}"]
    lines += [
        "",
        f"Model `{cfg['model']}`; chunk budget {cfg['chunk_budget']} characters, overlap "
        f"{cfg['overlap']}, encoder window {cfg['window']}; store {cfg.get('store', 'sqlite')}. "
        f"Run {data['created']}.",
        "",
        "A retrieval is correct when a returned chunk's `content` contains the needle whole. "
        "Every rate is shown with its 95% Wilson interval. R@2000ch / R@4000ch: the needle "
        "is in one of the retrieved chunks that fit whole, in rank order, into 2,000 / 4,000 "
        f"characters (what a prompt builder hands over). MRR over the top {max(ks)}.",
    ]
    for mode in cfg["modes"]:
        runs = [(rid, r) for rid, r in data["runs"].items() if r["mode"] == mode]
        header = ["strategy", "chunks", "destroyed", *[f"R@{k}" for k in ks], "MRR",
                  *[f"R@{b}ch" for b in BUDGETS]]
        rows = [
            [r["strategy"], str(r["chunks"]), str(r["destroyed"]),
             *[_ci(r["recall"][str(k)]) for k in ks], f"{r['mrr']:.3f}",
             *[f"{r['budgeted'][str(b)]['value']:.3f}" for b in BUDGETS]]
            for _rid, r in runs
        ]
        lines += ["", f"## Mode: {mode}", "", *_table(header, rows)]

    fused = [(rid, r) for rid, r in data["runs"].items() if "+" in r["mode"]]
    if fused:
        header = ["run", *[f"R@{k}" for k in ks], "MRR", *[f"R@{b}ch" for b in BUDGETS]]
        rows = [[rid, *[_ci(r["recall"][str(k)]) for k in ks], f"{r['mrr']:.3f}",
                 *[f"{r['budgeted'][str(b)]['value']:.3f}" for b in BUDGETS]]
                for rid, r in fused]
        lines += ["", "## Hybrid fusions side by side", "",
                  "`hybrid+rrf` is the chapter's faithful port (RRF k=60 over dense + BM25); "
                  "`hybrid+sentence` adds each chunk's best sentence similarity as a third "
                  "list (RRF k=10); `hybrid+section` also lifts the dense and "
                  "sentence lists by their section's best score; `hybrid+late` (the default) "
                  "re-scores section's top 100 by late interaction over the model's token "
                  "vectors as a fourth list. `hybrid` above is whichever "
                  "the pipeline uses by default.",
                  "", *_table(header, rows)]

    checks = data.get("hybrid_vs_components") or []
    if checks:
        by_run: dict[str, list[dict[str, Any]]] = {}
        for c in checks:
            by_run.setdefault(c["run"], []).append(c)
        metrics_ = list(dict.fromkeys(c["metric"] for c in checks))
        rows = [[rid, *[f"{c['delta']:+.3f}" + (" ✗" if c["delta"] < 0 else "")
                        for c in cs]] for rid, cs in by_run.items()]
        lines += ["", "## Hybrid vs its better component", "",
                  "Each hybrid run minus the better of the same strategy's dense and BM25 runs, "
                  "figure by figure: a fusion should never be worse than the better list it "
                  "fuses. ✗ marks a figure where it is, on this ground truth.", "",
                  *_table(["run", *metrics_], rows)]

    for strategy, summary in data["strategies"].items():
        if qm := summary.get("query_map"):
            c = qm["check"]
            lines += ["", f"## Query map ({strategy})", "",
                      f"Fitted on {qm['pairs']} pairs ({qm['inverse_cloze_pairs']} sentence -> "
                      f"chunk, {qm['heading_pairs']} heading -> section) in "
                      f"{qm['embed_seconds']:g} s of embedding. Held-out check on {c['pairs']} "
                      f"heading -> section pairs: MRR {c['mrr_without']:.3f} plain, "
                      f"{c['mrr_with']:.3f} mapped ({c['better']} ranked higher, {c['worse']} "
                      "lower). " + ("Stored: the +qmap runs use it." if qm["stored"] else
                                    "Not stored (it failed the check), as `adapt --query-map` "
                                    "would do: the +qmap runs are the plain ones.")]

    lines += ["", "## By phrasing", ""]
    header = ["run", "phrasing", *[f"R@{k}" for k in ks], "MRR"]
    rows = []
    for rid, r in data["runs"].items():
        for ph, s in r["by_phrasing"].items():
            rows.append([rid, ph, *[_ci(s["recall"][str(k)]) for k in ks], f"{s['mrr']:.3f}"])
    lines += _table(header, rows)

    lines += ["", "## Paired comparisons", "",
              "Wins: queries the first run gets right at R@K (at R@Nch: the needle in a chunk that "
              "fits, whole, into the first N characters of the hits packed in rank order) and the second does not; losses the "
              "reverse. p: exact two-sided sign test on the discordant queries. By needle: "
              "the same counted once per needle (a win when the first run is right on more "
              "of its phrasings), the conservative test, since a needle's phrasings share "
              "one answer.", ""]
    rows = [[c["label"], f"+{c['wins']}", f"-{c['losses']}", str(c["both"]), str(c["neither"]),
             f"{c['p']:.4f}", f"+{c['by_needle']['wins']}/-{c['by_needle']['losses']}",
             f"{c['by_needle']['p']:.4f}"] for c in data["comparisons"]]
    lines += _table(["comparison", "wins", "losses", "both right", "both wrong", "p",
                     "by needle", "p (needle)"], rows)
    for s in data.get("comparisons_skipped", []):
        lines.append(f"\n(skipped {s['label']}: {s['reason']})")

    lines += ["", "## Destroyed ground truths", "",
              "A needle contained whole in no chunk: its recall ceiling is 0.", ""]
    any_destroyed = False
    for strat, s in data["strategies"].items():
        for d in s["destroyed"]:
            any_destroyed = True
            cuts = "; ".join(f"chunk {c['start']}-{c['end']}" for c in d["cut_by"])
            lines.append(f"- {strat}: {d['id']} ({d['doc']}, needle {d['needle'][0]}-"
                         f"{d['needle'][1]}) cut by {cuts}")
    if not any_destroyed:
        lines.append("None.")

    lines += ["", "## Tokens and timings", "",
              "Embedded tokens are counted with the model's tokenizer over each chunk's `text` "
              "(header included). Index ms/chunk is this run's wall time (extract, chunk, "
              "embed or take from the cache, write); model ms/text is the model alone over "
              "the texts it had not seen before (– when all came from the cache).", ""]
    rows = [
        [k, str(s["chunks"]), f"{s['tokens']:,}", f"{s['header_share']:.1%}", str(s["over_window"]),
         f"{s['index_ms_per_chunk']:.2f}" if s["index_ms_per_chunk"] is not None else "–",
         str(s["model_embedded"]),
         f"{s['model_ms_per_text']:.2f}" if s["model_ms_per_text"] is not None else "–"]
        for k, s in data["strategies"].items()
    ]
    lines += _table(["strategy", "chunks", "embedded tokens", "header share", "over window",
                     "index ms/chunk", "texts embedded now", "model ms/text"], rows)
    for k, s in data["strategies"].items():  # --reuse-indexes: the ms/chunk is an update's
        if (r := s.get("reused")) and "not_reused" in r:
            lines += ["", f"Index {k} was asked to be reused and was built anew: {r['not_reused']}."]
        elif r:
            lines += ["", f"Index {k} was reused (documents unchanged {r['unchanged']}, "
                      f"indexed {r['indexed']}, removed {r['removed']}): its index ms/chunk "
                      "is that update's, not a build's."]
    qe = data.get("timings", {}).get("query_embedding_ms", {})
    lines += ["", f"Query embedding (model, one query at a time): median / p95 {_ms(qe)} ms.", "",
              "Per query, median / p95 in ms:", ""]
    # every stage any run timed, in pipeline order (late interaction and a reranker are
    # timed apart from the fusion they feed), and their sum
    stages = [st for st in TIMED_STAGES if any(st in r["timings_ms"] for r in data["runs"].values())]
    rows = [[rid, *[_ms(r["timings_ms"].get(st, {})) for st in stages],
             _ms(r["timings_ms"].get("total", {}))] for rid, r in data["runs"].items()]
    lines += _table(["run", *[TIMED_STAGES[st] for st in stages], "total"], rows)

    sw = data["sweep"]
    sep = sw["separation"]
    prop = sw["proposed"]
    lines += [
        "", f"## Threshold sweep ({sw['run']})", "",
        f"The real gate: at most 4 hits under the threshold, of the top {cfg['candidates']} "
        "candidates. refused: in-domain queries that got NO ANSWER; correct: answered with the "
        "needle among the kept hits; bluffs: unanswerable queries that got an answer.", "",
        *((f"Worst in-domain nearest distance {_f(sep['worst_in_domain'])}, best out-of-domain "
           f"{_f(sep['best_out_of_domain'])}: "
           + ("a threshold between them separates the two sets." if sep["separable"]
              else "no threshold separates them."),
           "",
           f"Proposed threshold at bluff cost {sw['bluff_cost']:g}: **{prop['threshold']:g}** "
           f"({prop['refused']} refused, {prop['correct']} correct, {prop['bluffs']} bluffs of "
           f"{prop['n_out']}). `citeline calibrate GT_DIR --index DIR --apply` stores one in an "
           "index.") if prop is not None else
          ("No threshold proposed: unanswerable.jsonl holds no question, and a threshold is "
           "only worth what the questions the documents do not answer show. The rows below "
           "count the in-domain queries alone.",)),
        "",
    ]
    rows = [[f"{r['threshold']:.3f}", f"{r['refused']}/{r['n_in']}", f"{r['correct']}/{r['n_in']}",
             str(r["wrong"]), f"{r['bluffs']}/{r['n_out']}"] for r in sw["rows"]]
    lines += _table(["threshold", "refused", "correct", "answered without needle", "bluffs"], rows)
    lines += ["", "## Plots", "", *[f"![{p}]({p})" for p in PLOTS], ""]
    return "\n".join(lines)


# The search stages a run times (SearchResult.timings), in pipeline order, and their
# column names; the query's embedding is timed apart, on the model.
TIMED_STAGES = {"dense": "dense scan", "bm25": "BM25", "sentences": "sentences",
                "late": "late interaction", "fuse": "fusion", "rerank": "rerank", "fetch": "fetch"}


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


# --- plots -------------------------------------------------------------------------------


def plot_all(data: dict[str, Any], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    paths = []
    cfg = data["config"]
    ks = cfg["ks"]
    modes = cfg["modes"]
    fig, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes), 4), squeeze=False, sharey=True)
    for ax, mode in zip(axes[0], modes, strict=True):
        for _rid, r in data["runs"].items():
            if r["mode"] != mode:
                continue
            rec = [r["recall"][str(k)] for k in ks]
            line = ax.plot(ks, [x["value"] for x in rec], marker="o", label=r["strategy"])[0]
            ax.fill_between(ks, [x["low"] for x in rec], [x["high"] for x in rec],
                            color=line.get_color(), alpha=0.12)
        ax.set_title(f"{mode}: recall@k, 95% Wilson bands")
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(title="strategy")
    axes[0][0].set_ylabel("recall@k")
    fig.tight_layout()
    paths.append(out / "recall_at_k.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    sw = data["sweep"]
    fig, ax = plt.subplots(figsize=(7, 4))
    far = max([1.0, *sw["in_nearest"], *sw["out_nearest"]])  # cosine distance can pass 1
    bins = [i * far / 50 for i in range(0, 51)]
    ax.hist(sw["in_nearest"], bins=bins, alpha=0.6, label=f"in-domain ({len(sw['in_nearest'])})")
    ax.hist(sw["out_nearest"], bins=bins, alpha=0.6,
            label=f"out-of-domain ({len(sw['out_nearest'])})")
    prop = None if sw["proposed"] is None else sw["proposed"]["threshold"]
    if prop is not None:
        ax.axvline(prop, color="black", label=f"proposed threshold {prop:g}")
    ax.axvline(DEFAULT_THRESHOLD, color="grey", linestyle="--",
               label=f"default {DEFAULT_THRESHOLD:g}")
    ax.set_xlim(0, far)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("nearest cosine distance among the candidates")
    ax.set_ylabel("queries")
    ax.set_title(f"{sw['run']}: nearest distance, in- vs out-of-domain")
    ax.legend()
    fig.tight_layout()
    paths.append(out / "distances.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    ts = [r["threshold"] for r in sw["rows"]]
    n_in = max(1, sw["rows"][0]["n_in"])
    n_out = max(1, sw["rows"][0]["n_out"])
    ax.plot(ts, [r["refused"] / n_in for r in sw["rows"]], label="in-domain refused")
    ax.plot(ts, [r["correct"] / n_in for r in sw["rows"]], label="in-domain answered with needle")
    if sw["out_of_domain"]:  # no unanswerable question: no bluff rate to draw
        ax.plot(ts, [r["bluffs"] / n_out for r in sw["rows"]],
                label="out-of-domain answered (bluffs)")
    if prop is not None:
        ax.axvline(prop, color="black", linewidth=0.8)
    ax.set_xlabel("threshold (cosine distance)")
    ax.set_ylabel("share of queries")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(f"{sw['run']}: threshold sweep")
    ax.legend()
    fig.tight_layout()
    paths.append(out / "sweep.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths
