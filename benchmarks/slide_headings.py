"""How the PDF extractor reads slide decks (README "Slides exported to PDF";
docs/retrieval-experiments.md, section 28): a Markdown corpus is made into decks the
way a team would present it, exported to PDF by LibreOffice Impress without
bookmarks (as PowerPoint, Keynote and Google Slides exports come), and read.

Each document becomes one 16:9 deck (python-pptx; lab only, ``pip install
python-pptx``): a title slide with its ``#`` title, a section header slide for each
``##`` heading, and content slides titled by the nearest ``###`` (or ``##``) heading,
each holding whole Markdown blocks (paragraphs, lists, fenced code) verbatim, up to
:data:`SLIDE_CHARS` characters a slide; a longer block has a slide of its own, and a
section's further slides are titled ``... (cont.)``. The text is set at 14 pt (12 pt
for code and long blocks), or with ``--autofit`` shrunk to fit as PowerPoint's and
Impress's templates do: 24 pt on a slide of little text, 18 pt on a fuller one, 14 pt
on a full one (:data:`AUTOFIT`), under 32 pt titles.

Headings: the slide titles the extractor finds, compared with the titles the decks
were given (``#``/``##`` slides and content slides, ``(cont.)`` ones included), read
with the deck rule and without it (``pdf`` version 4's font rule).

With ``--retrieval GT`` the PDFs are indexed twice with the default settings, once
as the extractor reads them (slide titles) and once with the deck rule switched off
(what ``pdf`` version 4 made of a deck: the font rule, which finds no body size in
most decks and leaves them one section), and GT's queries are searched on both,
paired. A needle counts as found when a hit's content holds its words in order with
any whitespace between them (as in ``pdf_headings.py``).

    python benchmarks/slide_headings.py eval/rustbook/docs --work /tmp/slides-rustbook \\
        [--soffice soffice] [--autofit] [--retrieval eval/rustbook] \\
        [--out benchmarks/results/slide_headings_rustbook.json]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from figures import emit, paired, summary
from pdf_headings import normal, retrieval

from citeline.chunk import headings
from citeline.extract import pdf as pdf_module
from citeline.extract.pdf import PdfExtractor

SLIDE_CHARS = 700  # about what a 16:9 slide holds at 14 pt
# --autofit: (most characters on the slide, size in points), the first that fits
AUTOFIT = ((200, 24), (450, 18), (10**9, 14))
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def blocks(text: str) -> list[tuple[int, str]]:
    """(level, title) for a heading, (0, text) for a block, in order: blank lines
    split blocks except inside fenced code."""
    heads = {h.start: h for h in headings(text, "markdown")}
    out: list[tuple[int, str]] = []
    cur: list[str] = []
    fenced = False
    pos = 0
    skip_to = -1

    def flush() -> None:
        if cur and "".join(cur).strip():
            out.append((0, "\n".join(cur).strip("\n")))
        cur.clear()

    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        if start < skip_to:
            continue
        if not fenced and start in heads:
            flush()
            h = heads[start]
            out.append((h.level, h.title))
            skip_to = h.end
            continue
        if _FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced:
            flush()
        else:
            cur.append(line)
    flush()
    return out


def make_deck(markdown: str, stem: str, out: Path, autofit: bool = False) -> list[str]:
    """Write ``out`` (.pptx); return the slide titles it was given, in order."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    titled: list[str] = []
    pending: list[str] = []
    title = stem
    slides_of_title = 0

    def content_slide() -> None:
        nonlocal slides_of_title
        if not pending:
            return
        s = prs.slides.add_slide(prs.slide_layouts[5])  # title only
        name = title if slides_of_title == 0 else f"{title} (cont.)"
        s.shapes.title.text = name
        for run in s.shapes.title.text_frame.paragraphs[0].runs:
            run.font.size = Pt(32)  # a long title on two lines, as an author would fit it
        titled.append(name)
        box = s.shapes.add_textbox(Inches(0.7), Inches(1.6), Inches(12.0), Inches(5.5))
        box.text_frame.word_wrap = True
        chars = sum(map(len, pending))
        fitted = next(size for most, size in AUTOFIT if chars <= most)
        for i, block in enumerate(pending):
            para = box.text_frame.paragraphs[0] if i == 0 else box.text_frame.add_paragraph()
            code = block.lstrip().startswith(("```", "~~~", "    "))
            para.text = block if code else " ".join(block.split())
            for run in para.runs:
                run.font.size = Pt(fitted if autofit else 12 if code or len(block) > SLIDE_CHARS
                                   else 14)
                if code:
                    run.font.name = "DejaVu Sans Mono"
        pending.clear()
        slides_of_title += 1

    for level, text in blocks(markdown):
        if level == 0:
            if pending and sum(map(len, pending)) + len(text) > SLIDE_CHARS:
                content_slide()
            pending.append(text)
            continue
        content_slide()
        if level == 1:
            s = prs.slides.add_slide(prs.slide_layouts[0])
            s.shapes.title.text = text
            s.placeholders[1].text = stem
        elif level == 2:
            s = prs.slides.add_slide(prs.slide_layouts[2])  # section header
            s.shapes.title.text = text
            s.placeholders[1].text = ""
        if level <= 2:
            titled.append(text)
        title, slides_of_title = text, 0
    content_slide()
    prs.save(str(out))
    return titled


def headings_read(pdfs: Path, given: dict[str, list[str]]) -> dict[str, object]:
    """The slide titles the extractor finds in each deck's PDF against those it was given."""
    found = wanted = extra = 0
    levels: Counter[str] = Counter()
    per_doc = {}
    for stem, titles in given.items():
        doc = PdfExtractor().extract(pdfs / f"{stem}.pdf", f"{stem}.pdf")
        got = Counter(normal(h.title) for h in doc.outline)
        hit = sum((got & Counter(normal(t) for t in titles)).values())
        found, wanted, extra = found + hit, wanted + len(titles), extra + got.total() - hit
        levels.update(f"level {h.level}" for h in doc.outline)
        per_doc[stem] = {"slides titled": len(titles), "found": hit,
                         "extra": got.total() - hit, "pages": len(doc.regions)}
    return {"found": f"{found}/{wanted}", "recall": round(found / max(1, wanted), 3),
            "precision": round(found / max(1, found + extra), 3),
            "levels": dict(sorted(levels.items())), "documents": per_doc}


@contextmanager
def without_deck_rule() -> Iterator[None]:
    is_deck = pdf_module.is_slide_deck
    pdf_module.is_slide_deck = lambda *a, **k: False  # type: ignore[assignment]
    try:
        yield
    finally:
        pdf_module.is_slide_deck = is_deck


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docs", type=Path, help="a folder of Markdown documents")
    ap.add_argument("--work", type=Path, required=True, help="where the decks and PDFs go")
    ap.add_argument("--soffice", default="soffice")
    ap.add_argument("--autofit", action="store_true",
                    help="shrink each slide's text to fit it, as slide templates do")
    ap.add_argument("--retrieval", type=Path, default=None, metavar="GT",
                    help="also search GT's queries with and without the deck rule")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    decks, pdfs = args.work / "pptx", args.work / "pdf"
    decks.mkdir(parents=True, exist_ok=True)
    pdfs.mkdir(parents=True, exist_ok=True)
    given: dict[str, list[str]] = {}
    for md in sorted(args.docs.glob("*.md")):
        given[md.stem] = make_deck(md.read_text(encoding="utf-8"), md.stem,
                                   decks / f"{md.stem}.pptx", args.autofit)
    no_bookmarks = 'pdf:impress_pdf_Export:{"ExportBookmarks":{"type":"boolean","value":"false"}}'
    subprocess.run([args.soffice, "--headless", "--convert-to", no_bookmarks, "--outdir",
                    str(pdfs), *sorted(str(p) for p in decks.glob("*.pptx"))],
                   check=True, capture_output=True, timeout=1800)
    result: dict[str, object] = {"slide titles": headings_read(pdfs, given)}
    with without_deck_rule():
        result["without the deck rule (pdf v4)"] = headings_read(pdfs, given)
    if args.retrieval is not None:
        with_slides = retrieval(pdfs, args.retrieval, args.work / "index-slides")
        with without_deck_rule():
            as_v4 = retrieval(pdfs, args.retrieval, args.work / "index-v4")
        result["retrieval (default hybrid)"] = {
            "slide titles": summary(with_slides), "without the deck rule (pdf v4)": summary(as_v4),
            "slide titles vs without": paired(with_slides, as_v4)}
    shutil.rmtree(args.work / "index-slides", ignore_errors=True)
    shutil.rmtree(args.work / "index-v4", ignore_errors=True)
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
