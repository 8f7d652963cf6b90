"""How well the PDF extractor finds headings in a PDF without bookmarks (README "PDF";
docs/retrieval-experiments.md, section 26): a Markdown corpus is printed to PDF by
Chromium (as a web page saved as PDF: no outline, headings only in their fonts) and
the headings the extractor finds are compared with the Markdown's own.

Each document is turned into plain HTML here, from the headings ``citeline.chunk``
reads in it: ``h1``-``h6`` for them, ``pre`` for fenced code, ``p`` for the other
blocks. Chromium's default styles then set h1-h3 larger than the text, h4 in bold
at the text's size, h5 and h6 smaller (which no font rule can tell from small print).

With ``--retrieval GT`` (the ground truth the documents come from) the PDFs are also
indexed twice, as ``citeline index`` does, once as the extractor reads them and once
with the font headings switched off (one section per document, what a PDF without
bookmarks got before), and GT's queries are searched on both with the default
settings, paired query by query. A needle counts as found when a hit's content holds
its words in order with any whitespace between them: the PDF breaks lines where the
page does, so the byte-exact rule of the eval format cannot apply.

    python benchmarks/pdf_headings.py eval/rustbook/docs --work /tmp/pdf-headings \\
        [--chromium /usr/bin/chromium] [--retrieval eval/rustbook] \\
        [--out benchmarks/results/pdf_headings_rustbook.json]
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from figures import Row, emit, paired, summary

from citeline.chunk import headings
from citeline.embed import load_embedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.extract import pdf as pdf_module
from citeline.extract.pdf import PdfExtractor
from citeline.pipeline import Index

_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def to_html(markdown: str, title: str) -> str:
    """The document as HTML: its headings, code blocks and paragraphs."""
    heads = {h.start: h for h in headings(markdown, "markdown")}
    body: list[str] = []
    block: list[str] = []
    code: list[str] | None = None

    def flush() -> None:
        if block:
            body.append(f"<p>{html.escape(' '.join(block))}</p>")
            block.clear()

    pos = 0
    skip_to = -1
    for line in markdown.split("\n"):
        start, pos = pos, pos + len(line) + 1
        if start < skip_to:
            continue
        if code is not None:
            if _FENCE.match(line):
                body.append(f"<pre>{html.escape(chr(10).join(code))}</pre>")
                code = None
            else:
                code.append(line)
        elif _FENCE.match(line):
            flush()
            code = []
        elif start in heads:
            flush()
            h = heads[start]
            body.append(f"<h{h.level}>{html.escape(h.title)}</h{h.level}>")
            skip_to = h.end  # a setext title's underline
        elif line.strip():
            block.append(line.strip())
        else:
            flush()
    flush()
    return (f"<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;font-size:11pt}</style></head>"
            f"<body>{''.join(body)}</body></html>")


def normal(title: str) -> str:
    return " ".join(re.sub(r"[`*_]", "", title).split()).casefold()


def retrieval(pdfs: Path, gt_dir: Path, index_dir: Path) -> list[Row]:
    """Index ``pdfs`` afresh into ``index_dir`` and search every query of ``gt_dir``."""
    shutil.rmtree(index_dir, ignore_errors=True)
    idx = Index(index_dir, embedder=load_embedder())
    idx.index(pdfs)
    rows = []
    for q in load_ground_truth(gt_dir).queries():
        needle = re.compile(r"\s+".join(re.escape(w) for w in q.gt.needle.split()))
        hits = idx.search(q.text, k=20).hits
        rank = next((h.rank for h in hits if needle.search(h.content)), None)
        used, within = 0, False
        for h in hits:  # packed whole, in rank order, as metrics.within_budget does
            used += len(h.content)
            if used > 2000:
                break
            if needle.search(h.content):
                within = True
                break
        rows.append((rank, within))
    idx.close()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docs", type=Path, help="a folder of Markdown documents")
    ap.add_argument("--work", type=Path, required=True, help="where the HTML and PDFs go")
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--retrieval", type=Path, default=None, metavar="GT",
                    help="also search GT's queries with and without the font headings")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    wanted: Counter[int] = Counter()
    found: Counter[int] = Counter()
    extra = 0
    level_pairs: Counter[str] = Counter()
    per_doc = {}
    for md in sorted(args.docs.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        page = args.work / f"{md.stem}.html"
        page.write_text(to_html(text, md.stem), encoding="utf-8")
        pdf = args.work / f"{md.stem}.pdf"
        subprocess.run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()],
                       check=True, capture_output=True, timeout=300)
        doc = PdfExtractor().extract(pdf, pdf.name)
        got = {}
        for h in doc.outline:
            got.setdefault(normal(h.title), h.level)
        want = [(h.level, normal(h.title)) for h in headings(text, "markdown")]
        hits = [(lv, t) for lv, t in want if t in got]
        wanted.update(lv for lv, _ in want)
        for lv, t in hits:
            found[lv] += 1
            level_pairs[f"h{lv} -> {got[t]}"] += 1
        titles = {t for _, t in want}
        extra += sum(t not in titles for t in got)
        per_doc[md.stem] = {"headings": len(want), "found": len(hits),
                            "extra": sum(t not in titles for t in got), "pages": len(doc.regions)}
    total_found = sum(found.values())
    result = {
        "recall": round(total_found / max(1, sum(wanted.values())), 3),
        "precision": round(total_found / max(1, total_found + extra), 3),
        "by Markdown level": {f"h{lv}": f"{found[lv]}/{wanted[lv]}" for lv in sorted(wanted)},
        "levels found (Markdown -> PDF)": dict(sorted(level_pairs.items())),
        "documents": per_doc,
    }
    if args.retrieval is not None:
        pdfs = args.work / "pdf"
        pdfs.mkdir(exist_ok=True)
        for f in args.work.glob("*.pdf"):
            shutil.copy(f, pdfs / f.name)
        with_heads = retrieval(pdfs, args.retrieval, args.work / "index-fonts")
        found_by_fonts = pdf_module.find_font_headings
        pdf_module.find_font_headings = lambda *a, **k: ()  # type: ignore[assignment]
        try:
            without = retrieval(pdfs, args.retrieval, args.work / "index-none")
        finally:
            pdf_module.find_font_headings = found_by_fonts
        result["retrieval (default hybrid, 64 queries)"] = {
            "font headings": summary(with_heads), "one section per document": summary(without),
            "font headings vs none": paired(with_heads, without)}
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
