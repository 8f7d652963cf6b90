"""How the Word and PDF extractors read documents written in an office suite (README
"Word" and "PDF"; docs/retrieval-experiments.md, section 27): a Markdown corpus is
turned into plain HTML (as ``pdf_headings.py`` does), opened by LibreOffice Writer and
saved as .docx, and that .docx printed to PDF by LibreOffice, the way a user's
documents come out of Writer or Word. Four readings of each document are compared
with the Markdown's own headings:

- ``docx (styles)``: the .docx as saved, its titles in Heading N styles;
- ``docx (hand-set)``: the same .docx with every heading style replaced by the body's
  style and the heading's size and bold set on its runs by hand, as an author who
  never uses styles writes (the extractor's formatting rule);
- ``pdf (bookmarks)``: Writer's PDF with its default bookmarks;
- ``pdf (fonts)``: the PDF exported without bookmarks (the extractor's font rule).

With ``--retrieval GT`` (the ground truth the documents come from) the hand-set and
the styled .docx files are each indexed, as ``citeline index`` does, and so is the
hand-set .docx read with the formatting rule off (one section per document, what such
a file got before extractor version 2); GT's queries are searched on each with the
default settings and paired query by query. A needle counts when a hit's content holds
its words in order with any whitespace between them (Writer turns some spacing and
quotes into its own, so the byte-exact rule of the eval format cannot apply).

Needs LibreOffice (Debian: ``apt-get install libreoffice-writer-nogui``; lab only, the
tests use the Writer files in tests/fixtures/real instead).

    python benchmarks/office_headings.py eval/rustbook/docs --work /tmp/office \\
        [--soffice soffice] [--retrieval eval/rustbook] \\
        [--out benchmarks/results/office_headings_rustbook.json]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import docx
from figures import emit, paired, summary
from pdf_headings import normal, retrieval, to_html

from citeline.chunk import headings
from citeline.extract import docx as docx_module
from citeline.extract.docx import DocxExtractor, heading_level, run_formats
from citeline.extract.pdf import PdfExtractor
from citeline.types import Document

NO_BOOKMARKS = 'pdf:writer_pdf_Export:{"ExportBookmarks":{"type":"boolean","value":"false"}}'


def soffice(binary: str, target: str, src: Path, out: Path, infilter: str | None = None) -> Path:
    """Convert ``src`` with LibreOffice into ``out`` (a folder); the converted file.
    LibreOffice keeps its profile in a folder of its own next to ``out``."""
    profile = (out.parent / ".soffice-profile").resolve()
    cmd = [binary, "--headless", "--norestore", f"-env:UserInstallation={profile.as_uri()}"]
    if infilter:
        cmd.append(f"--infilter={infilter}")
    subprocess.run([*cmd, "--convert-to", target, "--outdir", str(out), str(src)],
                   check=True, capture_output=True, timeout=300)
    made = out / f"{src.stem}.{target.split(':')[0]}"
    if not made.exists():
        raise RuntimeError(f"LibreOffice made no {made.name} from {src}")
    return made


def hand_set(styled: Path, out: Path) -> None:
    """``styled`` rewritten as by an author who sets titles by hand: each heading
    paragraph gets the body's style, and its runs the size and bold it showed."""
    d = docx.Document(str(styled))
    body_style = d.styles["Body Text"] if "Body Text" in [s.name for s in d.styles] else d.styles["Normal"]
    default = docx_module._default_size(d)
    for p in d.paragraphs:
        if heading_level(p) is None:
            continue
        shown = run_formats(p, default)
        size = min((s for _, s, _ in shown), default=default)
        bold = all(b for _, _, b in shown)
        p.style = body_style
        ppr = p._p.pPr
        if ppr is not None:
            for lvl in ppr.findall(docx_module.qn("w:outlineLvl")):
                ppr.remove(lvl)
        for run in p.runs:
            run.font.size = docx.shared.Pt(size)
            run.font.bold = bold
    d.save(str(out))


def compare(markdown: str, doc: Document) -> tuple[Counter[int], Counter[int], int, Counter[str]]:
    """(wanted by level, found by level, extra titles, Markdown -> found level pairs)."""
    got: dict[str, int] = {}
    # the Word extractor writes its headings into the text, as Markdown
    for h in doc.outline or headings(doc.text, "markdown"):
        got.setdefault(normal(h.title), h.level)
    want = [(h.level, normal(h.title)) for h in headings(markdown, "markdown")]
    titles = {t for _, t in want}
    wanted: Counter[int] = Counter(lv for lv, _ in want)
    found: Counter[int] = Counter(lv for lv, t in want if t in got)
    pairs: Counter[str] = Counter(f"h{lv} -> {got[t]}" for lv, t in want if t in got)
    return wanted, found, sum(t not in titles for t in got), pairs


READINGS = ("docx (styles)", "docx (hand-set)", "pdf (bookmarks)", "pdf (fonts)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docs", type=Path, help="a folder of Markdown documents")
    ap.add_argument("--work", type=Path, required=True, help="where the converted files go")
    ap.add_argument("--soffice", default="soffice")
    ap.add_argument("--retrieval", type=Path, default=None, metavar="GT",
                    help="also search GT's queries on the .docx files, with and without headings")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    folders = {name: args.work / name for name in ("html", "docx", "hand", "pdf", "pdf-bm")}
    for f in folders.values():
        f.mkdir(parents=True, exist_ok=True)
    tally = {r: [Counter(), Counter(), 0, Counter()] for r in READINGS}  # type: ignore[var-annotated]
    per_doc: dict[str, dict[str, str]] = {}
    for md in sorted(args.docs.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        page = folders["html"] / f"{md.stem}.html"
        page.write_text(to_html(text, md.stem), encoding="utf-8")
        styled = soffice(args.soffice, "docx:MS Word 2007 XML", page, folders["docx"],
                         infilter="HTML (StarWriter)")
        hand = folders["hand"] / styled.name
        hand_set(styled, hand)
        marked = soffice(args.soffice, "pdf", styled, folders["pdf-bm"])
        unmarked = soffice(args.soffice, NO_BOOKMARKS, styled, folders["pdf"])
        readings = {
            "docx (styles)": DocxExtractor().extract(styled, styled.name),
            "docx (hand-set)": DocxExtractor().extract(hand, hand.name),
            "pdf (bookmarks)": PdfExtractor().extract(marked, marked.name),
            "pdf (fonts)": PdfExtractor().extract(unmarked, unmarked.name),
        }
        per_doc[md.stem] = {}
        for reading, doc in readings.items():
            wanted, found, extra, pairs = compare(text, doc)
            t = tally[reading]
            t[0].update(wanted)
            t[1].update(found)
            t[2] += extra
            t[3].update(pairs)
            per_doc[md.stem][reading] = f"{sum(found.values())}/{sum(wanted.values())} +{extra}"
    result: dict[str, object] = {}
    for reading, (wanted, found, extra, pairs) in tally.items():
        n = sum(found.values())
        result[reading] = {
            "recall": round(n / max(1, sum(wanted.values())), 3),
            "precision": round(n / max(1, n + extra), 3),
            "by Markdown level": {f"h{lv}": f"{found[lv]}/{wanted[lv]}" for lv in sorted(wanted)},
            "levels found (Markdown -> extracted)": dict(sorted(pairs.items())),
        }
    result["documents"] = per_doc
    if args.retrieval is not None:
        styled_rows = retrieval(folders["docx"], args.retrieval, args.work / "index-styles")
        hand_rows = retrieval(folders["hand"], args.retrieval, args.work / "index-hand")
        by_format = docx_module.formatted_levels
        docx_module.formatted_levels = lambda paragraphs: [None] * len(paragraphs)  # type: ignore[assignment]
        try:
            none_rows = retrieval(folders["hand"], args.retrieval, args.work / "index-none")
        finally:
            docx_module.formatted_levels = by_format
        result["retrieval (default hybrid, 64 queries)"] = {
            "docx (styles)": summary(styled_rows), "docx (hand-set)": summary(hand_rows),
            "hand-set read without the formatting rule": summary(none_rows),
            "hand-set vs without the rule": paired(hand_rows, none_rows),
            "styles vs hand-set": paired(styled_rows, hand_rows)}
    shutil.rmtree(args.work / ".soffice-profile", ignore_errors=True)
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
