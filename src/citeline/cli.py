"""The command line: argument parsing and printing over :mod:`citeline.pipeline`.

Exit status: 0 success; 1 the command ran but something failed (a document
failed to index); 2 a usage or configuration error (message on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from citeline.config import load_settings
from citeline.errors import CiteError
from citeline.pipeline import Index, IndexReport
from citeline.types import MODES, STRATEGIES

Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Handler] = {}


def _open(args: argparse.Namespace, create: bool = False) -> Index:
    settings = load_settings()
    return Index(
        args.index,
        model_path=args.model or settings.model_path or None,
        model_id=settings.model_id or None,
        create=create,
    )


def _print_json(obj: object) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2))


# --- index / retry / reindex ---------------------------------------------------------


def _summary(report: IndexReport, json_out: bool) -> int:
    if json_out:
        _print_json(report.to_json())
        return 0 if report.ok else 1
    print(
        f"documents: {len(report.indexed)} indexed, {len(report.unchanged)} unchanged, "
        f"{len(report.failed)} failed, {len(report.removed)} removed, "
        f"{len(report.skipped)} skipped"
    )
    print(
        f"chunks written: {report.chunks_written} ({report.embedded} embedded, "
        f"{report.reused} reused from cache); over the encoder window: {report.over_window}"
    )
    for path, reason in report.failed:
        print(f"FAILED  {path}: {reason}")
    for path, reason in report.skipped:
        print(f"skipped {path}: {reason}")
    for path, warning in report.warnings:
        print(f"warning {path}: {warning}")
    print(f"time: {report.seconds:.1f}s")
    return 0 if report.ok else 1


def cmd_index(args: argparse.Namespace) -> int:
    """Index a folder (recursively) or a file."""
    idx = _open(args, create=True)
    report = idx.index(args.path, strategy=args.strategy, progress=not args.quiet)
    return _summary(report, args.json)


def cmd_retry(args: argparse.Namespace) -> int:
    """Re-try every failed document."""
    idx = _open(args)
    return _summary(idx.retry(progress=not args.quiet), args.json)


def cmd_reindex(args: argparse.Namespace) -> int:
    """Re-index stale documents (model, pipeline or extractor changed)."""
    idx = _open(args)
    if not args.stale:
        print("reindex: nothing to do; pass --stale to re-index stale documents", file=sys.stderr)
        return 2
    return _summary(idx.reindex_stale(progress=not args.quiet), args.json)


# --- search / ask ----------------------------------------------------------------------


def cmd_search(args: argparse.Namespace) -> int:
    """Ranked hits without generation."""
    settings = load_settings()
    idx = _open(args)
    result = idx.search(args.query, k=args.k or settings.k, mode=args.mode or settings.mode)
    if args.json:
        _print_json(result.to_json())
        return 0
    for h in result.hits:
        print(
            f"{h.rank:>3}. d={h.distance:.3f} score={h.score:.4f}  "
            f"{h.document}{h.locator.fragment}  {h.section}"
        )
        snippet = " ".join(h.content.split())
        print(f"     {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer with citations, or refuse when nothing is close enough."""
    idx = _open(args)
    answer = idx.ask(args.question, mode=args.mode or load_settings().mode)
    if args.json:
        _print_json(answer.to_json())
        return 0
    if answer.refused:
        print(answer.answer)
        print(f"({answer.reason})")
        return 0
    print(answer.answer)
    print()
    print(f"{'[n]':<4} {'distance':<8}  {'document / section':<60} locator")
    for c in answer.citations:
        where = f"{c.document} / {c.section}"
        print(f"[{c.index}]  {c.distance:<8.3f}  {where[:60]:<60} {c.locator.fragment}")
    return 0


# --- status ------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    """Every document with its state, reason, counts and versions."""
    idx = _open(args)
    docs = idx.status()
    stats = idx.store.stats()
    if args.json:
        _print_json(
            {
                "index": args.index,
                "strategy": idx.strategy,
                "threshold": idx.threshold,
                "model": idx.identity.key,
                "chunks": stats.chunks,
                "over_window": stats.over_window,
                "documents": [d.to_json() for d in docs],
            }
        )
        return 0
    print(
        f"index {args.index}: strategy {idx.strategy}, threshold {idx.threshold:g}, "
        f"model {idx.identity.key}"
    )
    print(f"{len(docs)} documents, {stats.chunks} chunks ({stats.over_window} over the window)")
    for d in docs:
        j = d.to_json()
        line = f"{j['state']:<8} {j['chunks']:>5}  {j['document']}"
        if j["reason"]:
            line += f"  — {j['reason']}"
        print(line)
        print(
            f"         hash {str(j['content_hash'])[:12]}  extractor {j['extractor']} "
            f"{j['extractor_version']}  pipeline {j['pipeline_version']}  "
            f"model {j['model_id']}@{j['weights_hash']}"
        )
    return 0


# --- eval / calibrate --------------------------------------------------------------------


def cmd_eval(args: argparse.Namespace) -> int:
    """Score retrieval on a ground-truth folder: every strategy x mode, with intervals."""
    from pathlib import Path

    from citeline.embed import load_embedder
    from citeline.eval.groundtruth import load_ground_truth
    from citeline.eval.harness import (
        EvalConfig,
        parse_comparison,
        parse_ks,
        parse_modes,
        parse_strategies,
        run_eval,
    )
    from citeline.eval.report import write_report

    config = EvalConfig(
        out=Path(args.out),
        strategies=parse_strategies(args.strategies),
        modes=parse_modes(args.modes),
        ks=parse_ks(args.k),
        compare=tuple(parse_comparison(c) for c in args.compare) if args.compare else None,
        progress=not args.quiet,
    )
    config.comparisons()  # validate --compare and the ground truth before the model loads
    load_ground_truth(args.gt_dir)
    settings = load_settings()
    embedder = load_embedder(args.model or settings.model_path or None, settings.model_id or None)
    data = run_eval(args.gt_dir, config, embedder=embedder)
    paths = write_report(data, args.out)
    ks = config.ks
    print(f"{'run':<10} {'chunks':>6} {'destr':>5} " + " ".join(f"{'R@' + str(k):>6}" for k in ks)
          + f" {'MRR':>6}")
    for rid, r in data["runs"].items():
        print(f"{rid:<10} {r['chunks']:>6} {r['destroyed']:>5} "
              + " ".join(f"{r['recall'][str(k)]['value']:>6.3f}" for k in ks) + f" {r['mrr']:>6.3f}")
    for c in data["comparisons"]:
        print(f"{c['label']}: +{c['wins']}/-{c['losses']}, p = {c['p']:.4f}")
    prop = data["sweep"]["proposed"]
    print(f"threshold sweep ({data['sweep']['run']}): proposed {prop['threshold']:g} "
          f"({prop['refused']} refused, {prop['bluffs']} bluffs)")
    print("report: " + ", ".join(str(p) for p in paths))
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Sweep the refusal threshold on an index; propose (and --apply) the best one."""
    from citeline.eval.harness import calibrate

    idx = _open(args)
    rep = calibrate(args.gt_dir, idx, mode=args.mode or load_settings().mode,
                    bluff_cost=args.bluff_cost, progress=not args.quiet)
    prop = rep["proposed"]
    if args.apply:
        idx.set_threshold(prop["threshold"])
    rep["applied"] = bool(args.apply)
    if args.json:
        _print_json(rep)
        return 0
    print(f"{'threshold':>9}  {'refused':>8}  {'correct':>8}  {'no needle':>9}  {'bluffs':>7}  cost")
    for r in rep["rows"]:
        mark = "  <- proposed" if r["threshold"] == prop["threshold"] else ""
        cost = r["refused"] + args.bluff_cost * r["bluffs"]
        print(f"{r['threshold']:>9.3f}  {r['refused']:>4}/{r['n_in']:<3}  {r['correct']:>4}/{r['n_in']:<3}"
              f"  {r['wrong']:>9}  {r['bluffs']:>3}/{r['n_out']:<3}  {cost:g}{mark}")
    sep = rep["separation"]
    print(f"worst in-domain nearest distance {sep['worst_in_domain']:.3f}, best out-of-domain "
          f"{sep['best_out_of_domain']:.3f}: "
          + ("separable" if sep["separable"] else "no threshold separates them"))
    print(f"proposed threshold {prop['threshold']:g} at bluff cost {args.bluff_cost:g} "
          f"(current {rep['current_threshold']:g})"
          + ("; applied" if args.apply else "; pass --apply to store it in the index"))
    return 0


# --- parser ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="citeline",
        description="Answers over your own documents, with citations that point at the exact place.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Handler, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(handler=handler)
        COMMANDS[name] = handler
        sp.add_argument("--index", required=True, metavar="DIR", help="the index folder")
        sp.add_argument(
            "--model", default=None, metavar="PATH",
            help="local sentence-transformers folder (default: bundled all-MiniLM-L6-v2)",
        )
        return sp

    sp = add("index", cmd_index, "index a folder (recursively) or a file")
    sp.add_argument("path", help="folder or file to index")
    sp.add_argument("--strategy", choices=STRATEGIES, default=None,
                    help="chunking strategy (default E: boundaries + header)")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("search", cmd_search, "ranked hits for a query, without generation")
    sp.add_argument("query", help="the query text")
    sp.add_argument("-k", type=int, default=None, help="number of hits (default 20)")
    sp.add_argument("--mode", choices=MODES, default=None, help="retrieval mode (default hybrid)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")

    sp = add("ask", cmd_ask, "answer a question with citations, or refuse")
    sp.add_argument("question", help="the question")
    sp.add_argument("--mode", choices=MODES, default=None, help="retrieval mode (default hybrid)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")

    sp = add("status", cmd_status, "documents with state, reason, counts and versions")
    sp.add_argument("--json", action="store_true", help="print one JSON object")

    sp = add("retry", cmd_retry, "re-try every failed document")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("reindex", cmd_reindex, "re-index stale documents")
    sp.add_argument("--stale", action="store_true", help="re-index every stale document")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    _add_eval_parsers(sub, add)
    return p


def _add_eval_parsers(sub: argparse._SubParsersAction, add: Callable[..., argparse.ArgumentParser]) -> None:
    from citeline.eval.sweep import DEFAULT_BLUFF_COST

    help_ = "score retrieval on a ground-truth folder (strategies x modes, intervals, paired tests)"
    sp = sub.add_parser("eval", help=help_, description=help_)
    sp.set_defaults(handler=cmd_eval)
    COMMANDS["eval"] = cmd_eval
    sp.add_argument("gt_dir", metavar="GT_DIR",
                    help="ground-truth folder: docs/, MANIFEST.json, questions.jsonl, unanswerable.jsonl")
    sp.add_argument("--strategies", default="".join(STRATEGIES), metavar="LETTERS",
                    help="chunking strategies to build, e.g. AE (default ABCDEF)")
    sp.add_argument("--modes", default=",".join(MODES), metavar="LIST",
                    help="retrieval modes, comma-separated from dense,bm25,hybrid (default all)")
    sp.add_argument("--k", default="1,4,8,20", metavar="LIST",
                    help="cut-offs for recall@k, comma-separated (default 1,4,8,20)")
    sp.add_argument("--out", default="reports/eval", metavar="DIR",
                    help="where report.md, report.json, plots, indexes and the embedding cache go")
    sp.add_argument("--compare", action="append", default=None, metavar="X:Y@K",
                    help="a paired comparison, e.g. E:A@20 or E/hybrid:E/dense@4 (repeatable; "
                    "replaces the default set)")
    sp.add_argument("--model", default=None, metavar="PATH",
                    help="local sentence-transformers folder (default: bundled all-MiniLM-L6-v2)")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bars")

    sp = add("calibrate", cmd_calibrate,
             "sweep the refusal threshold on an index with in- and out-of-domain questions")
    sp.add_argument("gt_dir", metavar="GT_DIR",
                    help="ground-truth folder whose questions and unanswerable.jsonl are asked")
    sp.add_argument("--bluff-cost", type=float, default=DEFAULT_BLUFF_COST, metavar="C",
                    help=f"cost of one bluff in refusals; the proposal minimises refusals + C x "
                    f"bluffs (default {DEFAULT_BLUFF_COST:g})")
    sp.add_argument("--mode", choices=MODES, default=None, help="retrieval mode (default hybrid)")
    sp.add_argument("--apply", action="store_true",
                    help="store the proposed threshold in the index (used by ask from then on)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except CiteError as exc:
        print(f"citeline: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("citeline: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
