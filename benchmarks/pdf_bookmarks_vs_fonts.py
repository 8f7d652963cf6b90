"""The PDF extractor's font-size headings checked against real PDFs' own bookmarks
(README "PDF"; docs/retrieval-experiments.md, section 27): each PDF is read once, and
both the bookmarks the extractor locates in the text (what it uses when they exist)
and the headings the font rule finds with the bookmarks ignored (what a copy of the
same PDF without its outline would get) are kept. A bookmark is *found* by the fonts
when a font heading's line holds its start (LaTeX's ``CHAPTER 1`` above the title is
one font heading, ``CHAPTER 1 Introduction``). Its level is *consistent* when the font
level minus the bookmark's is the PDF's most common difference (a title page set
larger than the chapters puts every font level one deeper). Font headings that no bookmark marks
are counted and listed (``--show``): a manual's bookmarks often stop at sections
while its fonts also set function names or appendix letters as headings, so these
are read, not scored as errors.

The PDFs of section 27 come from Debian packages: ``apt-get download glpk-doc
gnuplot-doc asymptote-doc python-reportlab-doc octave-doc gmsh-doc gnucash-docs grace
liblapack-doc mpich-doc sbcl-doc maxima-doc``, ``dpkg-deb -x`` each, ``gunzip`` the
``.pdf.gz`` ones, plus the installed libtasn1 and shared-mime-info PDFs.

    python benchmarks/pdf_bookmarks_vs_fonts.py /usr/share/doc/*/*.pdf [--show 8] \\
        [--out benchmarks/results/pdf_bookmarks_vs_fonts.json]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pypdfium2 as pdfium
from figures import emit

from citeline.extract import pdf as pdf_module
from citeline.types import Heading


def both_readings(path: Path) -> tuple[tuple[Heading, ...], tuple[Heading, ...], int]:
    """(bookmarks located in the text, font headings, pages) of one PDF."""
    seen: dict[str, tuple[Heading, ...]] = {}
    by_outline, by_fonts = pdf_module.find_outline, pdf_module.find_font_headings

    def outline(*args):  # type: ignore[no-untyped-def]
        seen["bookmarks"] = by_outline(*args)
        return ()  # as if the PDF had none: the font rule runs

    def fonts(*args):  # type: ignore[no-untyped-def]
        seen["fonts"] = by_fonts(*args)
        return seen["fonts"]

    pdf_module.find_outline, pdf_module.find_font_headings = outline, fonts  # type: ignore[assignment]
    try:
        doc = pdf_module.PdfExtractor().extract(path, path.name)
    finally:
        pdf_module.find_outline, pdf_module.find_font_headings = by_outline, by_fonts
    return seen["bookmarks"], seen["fonts"], len(doc.regions)


def producer(path: Path) -> str:
    pdf = pdfium.PdfDocument(str(path))
    try:
        meta = pdf.get_metadata_dict()
    finally:
        pdf.close()
    return " / ".join(v for v in (meta.get("Creator", ""), meta.get("Producer", "")) if v)


def compare(marks: Sequence[Heading], fonts: Sequence[Heading], show: int) -> dict[str, object]:
    def holder(b: Heading) -> Heading | None:
        return next((h for h in fonts if h.start <= b.start < max(h.end, h.start + 1)), None)

    pairs = [(b, h) for b in marks if (h := holder(b)) is not None]
    shift = Counter(h.level - b.level for b, h in pairs)
    usual = shift.most_common(1)[0][0] if shift else 0
    marked = {id(h) for _, h in pairs}
    extra = [h for h in fonts if id(h) not in marked]
    return {"bookmarks located": len(marks), "found by the fonts": len(pairs),
            "consistent level": shift[usual],
            "levels (bookmark -> fonts)": dict(sorted(Counter(
                f"{b.level} -> {h.level}" for b, h in pairs).items())),
            "font headings": len(fonts), "not bookmarked": len(extra),
            "not bookmarked, first": [h.title[:80] for h in extra[:show]],
            "bookmarks not found, first": [b.title[:80] for b in marks if holder(b) is None][:show]}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="+", type=Path)
    ap.add_argument("--show", type=int, default=8, help="titles listed per PDF and kind")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    result: dict[str, object] = {}
    totals: Counter[str] = Counter()
    for path in args.pdfs:
        marks, fonts, pages = both_readings(path)
        row = {"made by": producer(path), "pages": pages, **compare(marks, fonts, args.show)}
        result[path.name] = row
        if marks:
            for key in ("bookmarks located", "found by the fonts", "consistent level",
                        "font headings", "not bookmarked"):
                totals[key] += row[key]  # type: ignore[assignment]
    result["total (PDFs with bookmarks located)"] = dict(totals)
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
