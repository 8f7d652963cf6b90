"""The command line: argument parsing and printing over :mod:`citeline.pipeline`.

Exit status: 0 success; 1 the command ran but something failed (a document
failed to index); 2 a usage or configuration error (message on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from citeline import scale
from citeline.config import load_settings
from citeline.errors import CiteError, ConfigError
from citeline.pipeline import Index, IndexReport
from citeline.types import MODES, STRATEGIES

Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Handler] = {}


def _location(args: argparse.Namespace) -> str:
    """--index DIR or --store URL, else the `store` setting (config file / CITELINE_STORE)."""
    loc = getattr(args, "index", None) or getattr(args, "store", None) or load_settings().store
    if not loc:
        raise ConfigError("one of --index DIR or --store URL is required (or set CITELINE_STORE)")
    return str(loc)


def _shown(location: str) -> str:
    if "://" not in location:
        return location
    from citeline.store.postgres import redact

    return redact(location)


def _open(args: argparse.Namespace, create: bool = False) -> Index:
    settings = load_settings()
    return Index(
        _location(args),
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
                "index": _shown(idx.location),
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
        f"index {_shown(idx.location)}: strategy {idx.strategy}, threshold {idx.threshold:g}, "
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


# --- scale-out: migrate / copy / enqueue / worker ---------------------------------------


def cmd_migrate(args: argparse.Namespace) -> int:
    """Create or upgrade the schema of a PostgreSQL store."""
    version = scale.migrate_store(args.store)
    print(f"{_shown(args.store)}: schema version {version}")
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    """Copy a SQLite index into an empty PostgreSQL store, without re-embedding."""
    report = scale.copy_index(args.src, args.dst)
    if args.json:
        _print_json(report.to_json())
        return 0
    print(
        f"copied {report.documents} documents, {report.chunks} chunks, {report.vectors} vectors, "
        f"{report.postings} postings, {report.embeddings} cached embeddings, "
        f"{report.settings} settings into {_shown(args.dst)} in {report.seconds:.1f}s"
    )
    return 0


def cmd_enqueue(args: argparse.Namespace) -> int:
    """Queue every supported file under PATH for the store's workers."""
    idx = _open(args, create=True)
    queued, skipped = scale.enqueue(idx, args.path)
    if args.json:
        _print_json({"queued": queued,
                     "skipped": [{"document": p, "reason": r} for p, r in skipped]})
        return 0
    print(f"queued {queued} file(s); {len(skipped)} skipped")
    for path, reason in skipped:
        print(f"skipped {path}: {reason}")
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    """Claim queued files from the store and index them, until stopped."""
    idx = _open(args, create=True)

    def said(job, outcome: str) -> None:  # type: ignore[no-untyped-def]
        if not args.quiet:
            print(f"job {job.id} {job.path}: {outcome}", flush=True)

    report = scale.run_worker(
        idx, name=args.name, lease_seconds=args.lease, idle_exit=args.idle_exit,
        max_jobs=args.max_jobs, on_job=said,
    )
    if args.json:
        _print_json(report.to_json())
    else:
        print(
            f"worker: {report.jobs} jobs, {len(report.indexed)} indexed, "
            f"{len(report.unchanged)} unchanged, {len(report.failed)} failed documents, "
            f"{len(report.errors)} job errors, {len(report.lost)} leases lost"
        )
    return 0 if not report.failed and not report.errors else 1


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
        where = sp.add_mutually_exclusive_group()
        where.add_argument("--index", metavar="DIR", help="the index folder (SQLite)")
        where.add_argument(
            "--store", metavar="URL",
            help="a store URL instead of a folder, e.g. postgresql://user@host/db "
                 "(default: the `store` setting / CITELINE_STORE)",
        )
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

    def add_plain(name: str, handler: Handler, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(handler=handler)
        COMMANDS[name] = handler
        return sp

    sp = add_plain("migrate", cmd_migrate,
                   "create or upgrade the schema of a PostgreSQL store (and missing HNSW indexes)")
    sp.add_argument("--store", required=True, metavar="URL",
                    help="the store, postgresql://user@host[:port]/db")

    sp = add_plain("copy", cmd_copy,
                   "copy a SQLite index into an empty PostgreSQL store, without re-embedding")
    sp.add_argument("--from", dest="src", required=True, metavar="DIR",
                    help="the SQLite index folder to copy")
    sp.add_argument("--to", dest="dst", required=True, metavar="URL",
                    help="the PostgreSQL store to copy into (created or upgraded; must be empty)")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")

    sp = add("enqueue", cmd_enqueue,
             "queue every file under PATH for the workers of a PostgreSQL store")
    sp.add_argument("path", help="folder or file; workers read it at this absolute path")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")

    sp = add("worker", cmd_worker, "claim queued files from a PostgreSQL store and index them")
    sp.add_argument("--lease", type=float, default=scale.LEASE_SECONDS, metavar="SECONDS",
                    help="a job whose worker is silent this long is re-claimed (default 60)")
    sp.add_argument("--idle-exit", type=float, default=None, metavar="SECONDS",
                    help="exit once the queue has been empty this long (default: wait forever)")
    sp.add_argument("--max-jobs", type=int, default=None, metavar="N",
                    help="exit after N jobs")
    sp.add_argument("--name", default=None, help="worker name in the jobs table (default host:pid)")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no line per job")
    return p


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
