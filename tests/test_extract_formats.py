"""Each extractor on files written by real tools, checked against independent readers.

No embedding model here: these are the extractors, the region maps and the
locators computed from them (chunk.locate), which the pipeline stores as is.
"""

from __future__ import annotations

import csv
import io
import re
import time
import zipfile
from pathlib import Path

import pytest

import doc_builders as b
from citeline.chunk import chunk_document, locate, locate_in
from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import REGISTRY, extractor_for, fingerprint
from citeline.extract import pdf as pdfmod
from citeline.extract.blocks import escape_markdown
from citeline.extract.docx import formatted_levels as docx_formatted_levels
from citeline.extract.sheet import cell_text
from citeline.extract.transcript import clean_payload, parse_cues, parse_time, sidecar_for
from citeline.types import Document, Region, RegionKind


def extract(path: Path) -> Document:
    doc = extractor_for(path).extract(path, path.name)
    check_regions(doc)
    return doc


def check_regions(doc: Document) -> None:
    """Regions are in text order, never overlap, and never start or end in whitespace."""
    prev_end = 0
    for r in doc.regions:
        assert prev_end <= r.start < r.end <= len(doc.text), r
        piece = doc.text[r.start : r.end]
        assert piece == piece.strip() and piece, r
        prev_end = r.end


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def contains_words(haystack: str, needle: str) -> bool:
    """The needle's words appear contiguously, in order, in the haystack's words."""
    h, n = " " + " ".join(words(haystack)) + " ", " " + " ".join(words(needle)) + " "
    return n in h


# --- PDF ----------------------------------------------------------------------------------


def test_pdf_two_columns_read_in_column_order_and_pages_are_mapped(tmp_path: Path):
    path = b.two_column_pdf(tmp_path)
    doc = extract(path)
    assert doc.title == "Harbour operations" and doc.headings == "none"
    pages = b.pdf_page_texts(path)
    assert [r.page for r in doc.regions] == list(range(1, len(pages) + 1)) and len(pages) >= 2
    # the left column's facts come before the right column's, each sentence whole
    order = [doc.text.replace("\n", " ").find(f) for f in b.LEFT_COLUMN + b.RIGHT_COLUMN]
    assert -1 not in order and order == sorted(order)
    for r in doc.regions:  # every page region is that page's text (independent reader)
        assert contains_words(pages[r.page - 1], doc.text[r.start : r.end])
    # chunk locators: every chunk's words are on the pages its locator lists
    for c in chunk_document(doc):
        loc = locate(doc, c.start, c.end)
        assert loc.pages and loc.fragment == f"#page={loc.pages[0]}"
        assert contains_words(" ".join(pages[p - 1] for p in loc.pages), c.content)


def test_pdf_paragraphs_come_from_the_layout(tmp_path: Path):
    doc = extract(b.two_column_pdf(tmp_path))
    paragraphs = [" ".join(p.split()) for p in doc.text.split("\n\n")]
    # every fact starts its own paragraph, including the first one in the right column
    for fact in b.LEFT_COLUMN + b.RIGHT_COLUMN:
        assert any(p.startswith(fact) for p in paragraphs), fact
    # a table (lines with column gaps) gets one paragraph per row, so chunks end at rows
    table = extract(b.table_pdf(tmp_path))
    rows = [" ".join(r) for r in b.TABLE_ROWS]
    paragraphs = table.text.split("\n\n")
    assert [p for p in paragraphs if p != rows[0]] == rows[1:]  # every row, in order, whole
    assert paragraphs.count(rows[0]) == len(table.regions)  # the header repeats on each page
    for c in chunk_document(table):
        assert c.content.split("\n\n")[-1] in rows


def test_pdf_line_end_hyphen_is_kept_as_printed_and_does_not_break_the_paragraph(tmp_path: Path):
    from reportlab.pdfgen import canvas

    path = tmp_path / "hyphen.pdf"
    c = canvas.Canvas(str(path))
    lines = ["The lock keeper opens the upper sluice and the water-", "level in the chamber rises slowly.", "Boats wait at the green light."]
    for i, line in enumerate(lines):
        c.drawString(72, 700 - 14 * i, line)
    c.drawString(72, 700 - 14 * 4, "A new paragraph after a blank line.")
    c.showPage()
    c.save()
    assert extract(path).text == "\n".join(lines) + "\n\nA new paragraph after a blank line."
    assert contains_words(b.pdf_page_texts(path)[0], extract(path).text)


def test_pdf_rotated_pages_read_as_shown(tmp_path: Path):
    """/Rotate 90, 180 and 270: PDFium's char boxes are in the stored page's coordinates,
    where a shown line runs up, left or down; paragraphs and table rows are read as shown."""
    from pypdf import PdfReader

    path = b.rotated_pdf(tmp_path)
    # The fixture is what a viewer shows upright: pypdf reads each page's text in the
    # orientation of its /Rotate only (drawn turned against it), and PDFium's render,
    # which honours /Rotate, puts the ink at the shown page's top left.
    reader = PdfReader(str(path))
    with pdfmod.pdfium.PdfDocument(str(path)) as pdf:
        for i, (rotation, first, _, _) in enumerate(b.ROTATED_PAGES):
            page = reader.pages[i]
            assert page.rotation == rotation
            assert contains_words(page.extract_text(orientations=(rotation,)), first[0])
            assert not any(page.extract_text(orientations=(o,)).strip()
                           for o in (0, 90, 180, 270) if o != rotation)
            image = pdf[i].render(scale=0.5).to_pil().convert("L")
            assert (image.width > image.height) == (rotation in (90, 270))
            left, top, _, _ = image.point(lambda v: 255 if v < 200 else 0).getbbox()
            assert left < image.width / 6 and top < image.height / 6
    doc = extract(path)
    assert [r.page for r in doc.regions] == [1, 2, 3, 4] and not doc.warnings
    for r, (_, first, second, table) in zip(doc.regions, b.ROTATED_PAGES, strict=True):
        # lines in reading order, a blank line between the paragraphs and between rows
        rows = [" ".join(row) for row in table]
        assert doc.text[r.start : r.end] == "\n\n".join(["\n".join(first), "\n".join(second), *rows])
        assert contains_words(b.pdf_page_texts(path)[r.page - 1], doc.text[r.start : r.end])
    for c in chunk_document(doc):  # every chunk's words are on the pages its locator lists
        loc = locate(doc, c.start, c.end)
        assert loc.pages and loc.fragment == f"#page={loc.pages[0]}"
        assert contains_words(" ".join(b.pdf_page_texts(path)[p - 1] for p in loc.pages), c.content)
    # a box turned four times by 90 degrees is where it started; 180 is 90 twice
    box = (1.0, 2.0, 3.0, 5.0)
    assert pdfmod.shown_box(box, 0) == box
    twice = pdfmod.shown_box(pdfmod.shown_box(box, 90), 90)
    assert twice == pdfmod.shown_box(box, 180)
    assert pdfmod.shown_box(pdfmod.shown_box(twice, 90), 90) == box
    assert pdfmod.shown_box(pdfmod.shown_box(box, 90), 270) == box


def test_pdf_chunk_across_a_page_break_records_both_pages(tmp_path: Path):
    doc = extract(b.two_column_pdf(tmp_path))
    first, second = doc.regions[0], doc.regions[1]
    loc = locate(doc, first.end - 20, second.start + 20)
    assert loc.pages == (1, 2) and loc.fragment == "#page=1"


def test_pdf_table_rows_stay_rows(tmp_path: Path):
    path = b.table_pdf(tmp_path)
    doc = extract(path)
    lines = doc.text.split("\n")
    assert "Anchor winch gearbox Baltic Marine Works 18450.00 EUR 2" in lines
    assert "Bolt M6 Acme Fasteners 0 0.12 EUR 7" in lines
    assert len(doc.regions) == len(b.pdf_page_texts(path)) >= 2
    # the header row repeated on each of the two pages is kept: two pages are too
    # few to call it page furniture (FURNITURE_MIN_PAGES)
    assert doc.text.count("Part Supplier Unit price Stock") == 2 and not doc.warnings


def test_pdf_running_headers_and_footers_are_left_out_and_reported(tmp_path: Path):
    path = b.headers_pdf(tmp_path)
    doc = extract(path)
    assert b.HEADER not in doc.text and "Page 3 of 5" not in doc.text
    for n, fact in enumerate(b.HEADER_PAGES, start=1):
        region = doc.regions[n - 1]
        assert region.page == n and fact in doc.text[region.start : region.end]
    (warning,) = doc.warnings
    assert b.HEADER in warning and "Page 1 of 5" in warning


def test_furniture_detection_by_hand():
    pages = [
        ["ACME report", "Intro text", "Page 1"],
        ["ACME report", "Body", "more body", "Page 2"],
        ["ACME report", "Closing", "Page 13"],
        ["Appendix", "Page 14"],
    ]
    # 4 pages with text: furniture needs max(3, ceil(0.5 * 4)) = 3 pages; each edge
    # counts alone ("Page 14" is a top line of page 4 too, but the 3 "Page" lines at
    # the bottom are what make it a footer)
    found = pdfmod.find_furniture(pages)
    assert found == pdfmod.Furniture(frozenset({"acme report"}), frozenset({"page #"}))
    assert pdfmod.strip_furniture(pages[1], found) == ["Body", "more body"]
    # "" marks a paragraph break: kept inside, never left at an edge or doubled
    spaced = ["ACME report", "", "Body", "", "", "Tail", "", "Page 9"]
    assert pdfmod.strip_furniture(spaced, found) == ["Body", "", "Tail"]
    # a footer's words at the top of a page are not the footer, nor a header's at the foot
    assert pdfmod.strip_furniture(["Page 2", "Body", "ACME report"], found) == [
        "Page 2", "Body", "ACME report"]
    # two pages are too few to call anything furniture
    assert not pdfmod.find_furniture(pages[:2])


def test_repeated_lines_that_are_the_pages_content_are_not_furniture():
    # one invoice per page: the amount at each foot differs only in digits, but its
    # numbers do not count with the pages, so it is no footer like "Page 3" is
    amounts = ["412.50", "87.20", "1,930.00", "250.00"]
    pages = [[f"Invoice No. {1000 + n}", f"Customer: {who}", "Terms: 30 days net",
              "Item: consulting services", f"Amount due: EUR {amount}"]
             for n, who, amount in zip(range(1, 5), ["Gannet", "Puffin", "Tern", "Skua"],
                                        amounts, strict=True)]
    found = pdfmod.find_furniture(pages, numbered=True)
    assert not any(k.startswith("amount due") for k in found.bottom)
    # (the invoice number counts with the pages like a page number does: it is still
    # taken for a running header, and the extractor's warning names it)
    assert pdfmod.strip_furniture(pages[1], found, 2) == pages[1][1:]
    # a short form per page: its repeated labels would be most of the text, so they stay
    forms = [["Patient intake form", "Name: " + who, "Signed: yes", "Clinic copy"]
             for who in ("Ada", "Bo", "Cy")]
    assert not pdfmod.find_furniture(forms, numbered=True)


def test_a_book_s_left_and_right_running_heads_are_furniture_each():
    # even pages carry the book's title, odd pages their chapter's: each is on only
    # half of the pages, but on every page of its side
    chapters = ["Installing", "Installing", "Programs", "Programs", "Faults", "Faults"]
    body = ["Mount it", "Wire it", "Set A", "Set B", "E3 is a short", "Reset it"]
    pages = [[f"{n} ACME handbook" if n % 2 == 0 else f"{chapters[n - 1]} {n}", body[n - 1]]
             for n in range(1, 7)]
    found = pdfmod.find_furniture(pages)
    assert found.top == {"# acme handbook"}  # the chapters' heads repeat too rarely
    assert [pdfmod.strip_furniture(p, found)[0] for p in pages[:2]] == ["Installing 1", "Wire it"]


def test_a_deck_s_repeated_slide_title_is_not_a_running_header():
    points = ["Sales rose", "Costs fell", "Staff grew", "Stock shrank"]
    pages = [["Results (cont.)", point] for point in points]
    assert pdfmod.find_furniture(pages).top == {"results (cont.)"}
    titles = [frozenset({"Results (cont.)"})] * 4  # set large on every slide
    found = pdfmod.find_furniture(pages, large=titles)
    assert not found and pdfmod.strip_furniture(pages[0], found, 1) == pages[0]


def test_a_bare_number_is_a_page_number_only_when_it_counts_with_the_pages():
    # slides numbered 1-4 in a corner; slide 1's date wraps, leaving "2026" at its foot
    pages = [["Budget review", "Facilities team, 12 March", "2026", "1"],
             ["Agenda", "Sites", "2"], ["Sites", "North campus", "3"], ["Leaks", "Depot", "4"]]
    found = pdfmod.find_furniture(pages, numbered=True)
    assert found.bottom == {"#+0"}
    assert pdfmod.strip_furniture(pages[0], found, 1) == pages[0][:3]
    assert pdfmod.strip_furniture(pages[2], found, 3) == pages[2][:2]
    # numbering that restarts (front matter 1-3, then the body 1-4) is page numbers twice
    words = ["Preface", "Thanks", "Contents", "Intro", "Setup", "Use", "Index"]
    front = [[w, str(n)] for w, n in zip(words, (1, 2, 3, 1, 2, 3, 4), strict=True)]
    found = pdfmod.find_furniture(front, numbered=True)
    assert found.bottom == {"#+0", "#-3"}
    assert [pdfmod.strip_furniture(p, found, n) for n, p in enumerate(front, start=1)] == [
        [w] for w in words]
    # without page numbers to count with, a bare number is any number (the old rule)
    assert pdfmod.find_furniture(pages).bottom == {"#"}
    assert pdfmod.page_list([1, 2, 3, 7, 9, 10]) == "1-3, 7 and 9-10"


def test_a_chapter_s_running_head_is_furniture_over_its_run_of_pages():
    # Texinfo's heads: the chapter's title and the printed page (page n prints n - 2),
    # different in each chapter, so none is on half of the pages; a chapter's first
    # page has its printed number alone, chapter 1 has one page under its head
    words = ["Gaskets", "Valves", "Hoses", "Seals", "Pumps", "Filters", "Tanks", "Clamps",
             "Pipes", "Drains", "Vents", "Gauges", "Taps", "Fuses"]
    heads = {4: "Chapter 1: Setup"} | {n: "Chapter 2: Repairs" for n in range(6, 11)} \
        | {n: "Appendix A: Parts" for n in range(12, 15)}
    pages = [[f"{heads[n]} {n - 2}" if n in heads else str(n - 2), f"{words[n - 1]} are checked.",
              f"Then {words[n - 1].lower()} are logged."] for n in range(1, 15)]
    pages[0][0], pages[1][0] = "i", "ii"  # front matter numbered in roman numerals
    pages[2][0] = "iii"
    found = pdfmod.find_furniture(pages, numbered=True)
    assert found.top >= {"chapter #: setup #", "chapter #: repairs #", "appendix a: parts #",
                         "#-2", "#i+0"}
    assert [pdfmod.strip_furniture(p, found, n) for n, p in enumerate(pages, start=1)] == [
        p[1:] for p in pages]
    # two pages under one head are too few a run: a text says "Step 3" atop page 3 and
    # "Step 4" atop page 4 (FURNITURE_RUN_PAGES)
    steps = [[f"Step {n}", f"{w} are checked.", f"Then {w.lower()} go back."]
             for n, w in enumerate(words[:2], start=1)] + [[w, f"{w} are checked."] for w in words[2:6]]
    assert not pdfmod.find_furniture(steps, numbered=True)


def test_lines_repeated_atop_pages_without_a_counting_number_stay():
    words = ["Gaskets", "Valves", "Hoses", "Seals", "Pumps", "Filters", "Tanks", "Clamps",
             "Pipes", "Drains"]
    # a heading atop the two pages its section runs over, a table's header row repeated
    # on the four pages the table runs over, a short line repeated at three feet: the
    # same line on consecutive pages (under half of them), but no number counting with them
    tops = {1: "Troubleshooting", 2: "Troubleshooting"} | dict.fromkeys(
        range(4, 8), "Part Supplier Unit price Stock")
    pages = [[tops.get(n, f"{w} first"), f"{w} are checked.", f"Then {w.lower()} are logged.",
              "Total 12" if n in (6, 7, 8) else f"{w} last"]
             for n, w in enumerate(words, start=1)]
    found = pdfmod.find_furniture(pages, numbered=True)
    assert not found, found
    # a line ending in the page's printed number but shaped unlike the running heads is
    # text (a deck's subtitle "part 1" on page 1, whose footers carry the page number)
    deck = [["Irrigation controller", "Installer training, part 1"]] + [
        [f"{w} are checked.", f"Irrigation training, March 2026 {n}"]
        for n, w in enumerate(words[:6], start=2)]
    found = pdfmod.find_furniture(deck, numbered=True)
    assert found.bottom >= {"irrigation training, march # #"}
    assert pdfmod.strip_furniture(deck[0], found, 1) == deck[0]
    assert pdfmod.roman_value("iv") == 4 and pdfmod.roman_value("xix") == 19


def test_pdf_texinfo_running_heads_and_appendix_headings(tmp_path: Path):
    doc = extract(b.texinfo_manual_pdf(tmp_path))
    assert "Chapter 2: Descaling" not in doc.text and "Chapter 1: Wiring 2" not in doc.text
    assert "Appendix A: Reporting Bugs" not in doc.text
    assert not re.search(r"(?m)^(?:\d+|i+)$", doc.text)  # no page number alone on a line
    # the sentence across the page break is parted by the page break only
    assert f"{b.TEXINFO_BREAK[0]}\n\n{b.TEXINFO_BREAK[1]}" in doc.text
    (warning,) = doc.warnings
    assert "'Chapter 1: Wiring 2'" in warning and "'Chapter 2: Descaling 4'" in warning
    # "Appendix A" before the bookmark's title, "Chapter 1" on the line above it
    assert [(h.level, h.title, doc.text[h.start:h.end]) for h in doc.outline] == [
        (1, "Wiring", "Chapter 1\n\nWiring"), (1, "Descaling", "2 Descaling"),
        (2, "Vinegar", "2.1 Vinegar"), (1, "Reporting Bugs", "Appendix A Reporting Bugs")]
    bugs = next(c for c in chunk_document(doc) if "sage" in c.content)
    assert bugs.section == "kettle-texinfo > Reporting Bugs"  # not "... > Descaling > Vinegar"
    assert doc.extractor_version == "16"


def test_pdf_definition_list_item_is_one_paragraph(tmp_path: Path):
    """A definition beside its term is a table row to the layout (a wide gap after the
    term), and next to a one-line item it was read as one: pdf 10 put a blank line after
    its first line, mid-sentence ("-m The maximum ... processes it starts\n\nmay use;"),
    48 times in the Bash Reference Manual. Its next lines start at the definition's
    column, and the row's line had no room for their first word: they go on with it."""
    doc = extract(b.definition_list_pdf(tmp_path))
    paragraphs = [" ".join(p.split()) for p in doc.text.split("\n\n")]
    for term, definition in b.DEFINITIONS:  # wrapped over 3 lines, or on one
        assert f"{term} {definition}" in paragraphs
    # a term on its own line, its definition under it: one paragraph as before
    assert " ".join(b.LONG_TERM) in paragraphs
    # a table's last cell wrapping onto the next line stays with its row
    south = next(row for row in b.DEFINITION_TABLE if row[0] == "South")
    assert " ".join(south) in paragraphs


def test_pdf_definition_list_keeps_paragraphs_and_table_rows_apart(tmp_path: Path):
    """What the wrapped-cell rule must not join: a definition's second paragraph (a
    paragraph gap), the paragraph after the list, and a real table's rows, each one
    paragraph, the row whose first cells are empty too (the row above left room for it:
    it was not a line broken for want of space)."""
    doc = extract(b.definition_list_pdf(tmp_path))
    paragraphs = [" ".join(p.split()) for p in doc.text.split("\n\n")]
    term, first, second = b.TWO_PARAGRAPHS
    assert f"{term} {first}" in paragraphs and second in paragraphs
    assert b.AFTER_LIST in paragraphs
    rows = [" ".join(cell for cell in row if cell) for row in b.DEFINITION_TABLE]
    for row in rows:  # the wrapped one is the test above's
        assert row.startswith("South") or row in paragraphs
    assert "2026-03-05" in paragraphs  # under "North 2026-03-02 None.", not joined to it


def test_pdf_scanned_page_is_read_by_ocr_with_its_confidence(tmp_path: Path):
    if pdfmod.ocr_status() is not None:
        pytest.fail(f"OCR must be installed for the test suite: {pdfmod.ocr_status()}")
    doc = extract(b.scanned_pdf(tmp_path))
    text_page, scanned = doc.regions
    assert text_page.confidence is None and scanned.page == 2
    assert scanned.confidence is not None and scanned.confidence > 60
    ocr_text = doc.text[scanned.start : scanned.end]
    for line in b.SCANNED_LINES:
        assert line in ocr_text
    loc = locate(doc, scanned.start, scanned.end)
    assert loc.pages == (2,) and loc.ocr_confidence == scanned.confidence
    assert not doc.warnings


def test_pdf_blank_pages_are_skipped_without_ocr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A page with nothing drawn on it is not a scan: Tesseract is not run on it (0.8 s
    a page), and no "no text layer" warning names it."""
    from reportlab.pdfgen import canvas

    path = tmp_path / "verso.pdf"
    c = canvas.Canvas(str(path))
    c.drawString(72, 760, "Chapter one ends on a right-hand page.")
    c.showPage()
    c.showPage()  # the empty verso
    c.drawString(72, 760, "Chapter two starts on the next right-hand page.")
    c.save()
    ocr_calls = []
    real_ocr = pdfmod._ocr_page
    monkeypatch.setattr(pdfmod, "_ocr_page", lambda page: ocr_calls.append(page) or real_ocr(page))
    doc = extract(path)
    assert [r.page for r in doc.regions] == [1, 3] and not doc.warnings and not ocr_calls
    monkeypatch.setattr(pdfmod, "ocr_status", lambda: "pytesseract is not installed")
    assert not extract(path).warnings
    only_blank = tmp_path / "blank.pdf"
    c = canvas.Canvas(str(only_blank))
    c.showPage()
    c.showPage()
    c.save()
    with pytest.raises(ExtractionError, match="blank: nothing is drawn on its 2 pages"):
        extract(only_blank)


def test_pdf_low_ocr_confidence_is_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(pdfmod, "LOW_OCR_CONFIDENCE", 101.0)  # every OCR page counts as low
    doc = extract(b.scanned_pdf(tmp_path))
    assert any("low OCR confidence" in w and "page 2" in w for w in doc.warnings)


def test_pdf_without_ocr_reports_the_page_and_fails_when_nothing_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(pdfmod, "ocr_status", lambda: "pytesseract is not installed")
    doc = extract(b.scanned_pdf(tmp_path))
    assert [r.page for r in doc.regions] == [1]
    assert any("page 2 has no text layer; install OCR to index it" in w for w in doc.warnings)
    only_scan = b.scanned_pdf(tmp_path, "only-scan.pdf", with_text_page=False)
    with pytest.raises(ExtractionError) as err:
        extract(only_scan)
    assert err.value.reason.startswith("page 1 has no text layer; install OCR to index it")
    assert err.value.path == "only-scan.pdf"


def test_pdf_broken_files_fail_with_plain_reasons(tmp_path: Path):
    cases = {
        b.encrypted_pdf(tmp_path): "encrypted with a password",
        b.corrupt_pdf(tmp_path): "corrupt or not a PDF",
    }
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    cases[empty] = "empty file"
    for path, reason in cases.items():
        with pytest.raises(ExtractionError) as err:
            extract(path)
        assert reason in err.value.reason and err.value.path == path.name


def test_a_pdf_with_no_pages_says_so(tmp_path: Path):
    """PDFium fails to open it without an error of its own (its last error is a process
    global, so a fresh process shows what a user's first run sees)."""
    import subprocess
    import sys

    from pypdf import PdfWriter

    pageless = tmp_path / "pageless.pdf"
    PdfWriter().write(pageless)  # a page tree with /Count 0
    code = ("import sys; from pathlib import Path; from citeline.extract import extractor_for\n"
            "p = Path(sys.argv[1])\n"
            "try: extractor_for(p).extract(p, p.name)\n"
            "except Exception as exc: print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code, str(pageless)], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "pageless.pdf: the PDF has no pages (or its page tree cannot be read)"


# --- DOCX ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["docx", "xlsx"])
def test_an_office_package_that_unpacks_to_a_bomb_is_refused_unread(tmp_path: Path, kind: str):
    """A package is unpacked in memory: a small one of zeros unpacks ~1000 to 1 (a 1.5 MB
    .docx took the server to 3.5 GB). Its declared sizes refuse it before any part is read."""
    import openpyxl

    if kind == "docx":
        path = b.docx_file(tmp_path)
    else:
        path = tmp_path / "book.xlsx"
        wb = openpyxl.Workbook()
        wb.active.append(["Region", "Sales"])
        wb.save(path)
    assert extract(path).text  # the package as written reads
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("media/zeros.bin", b"\0" * (24 << 20))  # 24 MB, packed to ~24 KB
    assert path.stat().st_size < 200_000
    with pytest.raises(ExtractionError, match=r"part media/zeros.bin unpacks \d+ to 1 .*zip bomb"):
        extract(path)


def test_docx_headings_become_the_section_path_and_tables_rows(tmp_path: Path):
    import docx

    path = b.docx_file(tmp_path)
    doc = extract(path)
    assert doc.title == "Volunteer handbook" and doc.headings == "atx"
    assert "## Tools\n\nReturn the wheelbarrows" in doc.text
    assert "Tuesday | Tomasz | 5-8" in doc.text.split("\n\n")
    assert "\\# this line only looks like a heading" in doc.text
    by_start = {c.content.split("\n")[0]: c.section for c in chunk_document(doc)}
    assert by_start["### Sharp tools"] == "Volunteer handbook > Tools > Sharp tools"
    assert by_start["## Watering rota"] == "Volunteer handbook > Watering rota"
    # independent reader: every body block is a paragraph or a table row in the file
    d = docx.Document(str(path))
    originals = {p.text for p in d.paragraphs}
    originals |= {" | ".join(c.text for c in r.cells) for t in d.tables for r in t.rows}
    for block in doc.text.split("\n\n"):
        assert re.sub(r"^#+ |^\\", "", block) in originals, block


def test_docx_without_heading_styles_takes_headings_from_formatting(tmp_path: Path):
    doc = extract(b.docx_formatted(tmp_path))
    heads = [ln for ln in doc.text.split("\n") if ln.startswith("#")]
    # 20 pt, then 14 pt, then bold at the body size; not the bold lead-in, nor the
    # bold sentence
    assert heads == ["# Allotment rules", "## Sheds and tools", "### Padlocks", "## Water"]
    assert doc.title == "Allotment rules"
    chunks = {c.content: c for c in chunk_document(doc)}
    combo = next(c for c in chunks.values() if "Combination padlocks" in c.content)
    assert combo.section == "Allotment rules > Sheds and tools > Padlocks"
    assert "Always close the gate." in combo.content and "Note: the committee" in combo.content
    troughs = next(c for c in chunks.values() if "troughs" in c.content)
    assert troughs.section == "Allotment rules > Water"


def test_docx_outline_levels_are_headings_and_then_bold_is_not(tmp_path: Path):
    doc = extract(b.docx_outline_levels(tmp_path))
    heads = [ln for ln in doc.text.split("\n") if ln.startswith("#")]
    assert heads == ["# Beekeeping", "## Swarming"]  # "Queen cells" (bold) stays body text
    near = next(c for c in chunk_document(doc) if "bottom edge" in c.content)
    assert near.section == "Beekeeping > Swarming"


def test_formatted_levels_need_a_body_to_stand_out_from():
    body = ("Ordinary text at the body size, a sentence long.", [(48, 11.0, False)])
    assert docx_formatted_levels([("Poster", [(6, 40.0, True)]), body]) == [1, None]
    everything_large = [("Big", [(3, 30.0, False)]), ("Bigger words", [(12, 36.0, False)]),
                        ("small", [(5, 11.0, False)])]
    assert docx_formatted_levels(everything_large) == [None, None, None]
    # a large title may end like a sentence ("Hello, World!"), as in a PDF; bold may not
    exclaimed = [("Hello, World!", [(13, 16.0, True)]), body, ("Note:", [(5, 11.0, True)]), body]
    assert docx_formatted_levels(exclaimed) == [1, None, None, None]
    # bold with no text after it (a closing label, or the next heading right below)
    text = ("Ordinary text at the body size. " * 4, [(128, 11.0, False)])
    bold = ("Since version 2", [(15, 11.0, True)])
    assert docx_formatted_levels([text, bold, text, bold, ("Next", [(4, 20.0, False)]), text,
                                  bold]) == [None, 2, None, None, 1, None, None]


def test_docx_text_inside_content_controls_is_kept(tmp_path: Path):
    import docx
    from docx.oxml import OxmlElement

    path = tmp_path / "template.docx"
    d = docx.Document()
    d.add_paragraph("Before the control.")
    filled = d.add_paragraph("Project code: HELIOS-7")  # moved into a w:sdt below
    sdt, content = OxmlElement("w:sdt"), OxmlElement("w:sdtContent")
    filled._p.addprevious(sdt)
    sdt.append(content)
    content.append(filled._p)
    d.add_paragraph("After the control.")
    d.save(str(path))
    assert extract(path).text == "Before the control.\n\nProject code: HELIOS-7\n\nAfter the control."


def test_docx_text_is_what_word_shows(tmp_path: Path):
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def run(text: str, *, tag: str = "w:t", hidden: bool = False):  # type: ignore[no-untyped-def]
        r, t = OxmlElement("w:r"), OxmlElement(tag)
        if hidden:
            props = OxmlElement("w:rPr")
            props.append(OxmlElement("w:vanish"))
            r.append(props)
        t.text = text
        t.set(qn("xml:space"), "preserve")
        r.append(t)
        return r

    def wrapped(tag: str, *children, **attrs):  # type: ignore[no-untyped-def]
        el = OxmlElement(tag)
        for k, v in attrs.items():
            el.set(qn(k), v)
        for c in children:
            el.append(c)
        return el

    path = tmp_path / "contract.docx"
    d = docx.Document()
    p = d.add_paragraph("The dive limit is ")
    p._p.append(wrapped("w:ins", run("forty meters"), **{"w:id": "1", "w:author": "A"}))
    p._p.append(wrapped("w:del", run("thirty meters", tag="w:delText"), **{"w:id": "2", "w:author": "A"}))
    p.add_run(" for trainees.")
    p._p.append(run(" (draft note)", hidden=True))
    p = d.add_paragraph("Customer: ")
    p._p.append(wrapped("w:sdt", wrapped("w:sdtContent", run("Penguin Logistics"))))
    p._p.append(wrapped("w:fldSimple", run(", total EUR 9,870"), **{"w:instr": "MERGEFIELD total"}))
    p._p.append(wrapped("w:smartTag", run(", to Reykjavik."), **{"w:element": "City"}))
    outer = d.add_table(rows=1, cols=2)
    outer.cell(0, 0).text = "Outer cell"
    inner = outer.cell(0, 1).add_table(rows=1, cols=2)
    inner.cell(0, 0).text, inner.cell(0, 1).text = "the beluga password", "is kelp42"
    repeating = wrapped("w:tr", *(wrapped("w:tc", wrapped("w:p", run(v))) for v in ("salmon", "trout")))
    outer._tbl.append(wrapped("w:sdt", wrapped("w:sdtContent", repeating)))
    d.save(str(path))
    assert extract(path).text == (
        "The dive limit is forty meters for trainees.\n\n"
        "Customer: Penguin Logistics, total EUR 9,870, to Reykjavik.\n\n"
        "Outer cell | the beluga password | is kelp42\n\nsalmon | trout"
    )


def test_docx_symbol_font_characters_are_read(tmp_path: Path):
    """Word stores Insert > Symbol in a symbol font as ``<w:sym w:font= w:char="F0cc"/>``
    (no w:t): the Symbol font's Greek and math signs and Wingdings' check marks and
    arrows become their Unicode characters, another font's code its private-use one."""
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def para(add, *parts: str | tuple[str, str]):  # type: ignore[no-untyped-def]
        p = add()
        for part in parts:
            if isinstance(part, str):
                p.add_run(part)
                continue
            sym = OxmlElement("w:sym")
            sym.set(qn("w:font"), part[0])
            sym.set(qn("w:char"), part[1])
            p.add_run()._r.append(sym)

    d = docx.Document()
    para(lambda: d.add_heading(level=1), ("Symbol", "F044"), "-Y wiring")
    para(d.add_paragraph, "Keep the angle ", ("Symbol", "F061"), " ", ("Symbol", "F0A3"), " 30",
         ("Symbol", "F0B0"), " and the load ", ("Symbol", "F0AE"), " 5 kN.")
    para(d.add_paragraph, ("Wingdings", "F0FC"), " Breaker tested ", ("wingdings", "f0e8"),
         " sign the log.")
    para(d.add_paragraph, "Site logo ", ("Webdings", "F061"), " at the gate.")
    path = tmp_path / "wiring.docx"
    d.save(str(path))
    doc = extract(path)
    assert doc.text == (
        "# \u0394-Y wiring\n\n"
        "Keep the angle \u03b1 \u2264 30\u00b0 and the load \u2192 5 kN.\n\n"
        "\u2713 Breaker tested \u2794 sign the log.\n\n"
        "Site logo \uf061 at the gate.")
    assert doc.title == "\u0394-Y wiring"
    (chunk,) = chunk_document(doc)
    assert chunk.section == "\u0394-Y wiring"
    assert chunk.content == doc.text[chunk.start:chunk.end]
    alpha = doc.text.index("\u03b1")
    assert doc.text[alpha - len("angle "):alpha + 1] == "angle \u03b1"


def test_docx_symbol_font_table_is_adobes_symbol_encoding():
    """Against reportlab's "symbol" codec (Adobe's table, an independent copy): equal but
    for the Greek letters taken over INCREMENT, OHM SIGN and MICRO SIGN, and the codes
    Adobe maps to its own private-use points, which stay unmapped."""
    import unicodedata

    from reportlab.pdfbase.rl_codecs import RL_Codecs

    from citeline.extract.docx import SYMBOL_FONT, symbol_char

    RL_Codecs.register()
    for code in range(0x20, 0x100):
        adobe = unicodedata.normalize("NFC", bytes([code]).decode("symbol", errors="replace"))
        ours = SYMBOL_FONT.get(code)
        if code in (0x44, 0x57, 0x6D):
            assert (adobe, ours) in (("\u2206", "\u0394"), ("\u03a9", "\u03a9"), ("\u00b5", "\u03bc"))
        elif adobe == "\ufffd" or 0xE000 <= ord(adobe) < 0xF900:
            assert ours is None, hex(code)
            assert symbol_char("Symbol", f"F0{code:02X}") == chr(0xF000 + code)  # kept, unnamed
        else:
            assert ours == adobe, hex(code)
    assert symbol_char("Symbol", "61") == "\u03b1"  # a writer that leaves out the F0
    assert symbol_char("Arial", "263A") == "\u263a"  # a plain Unicode code point
    for bad in (None, "", "zz", "D800", "0007", "110000"):
        assert symbol_char("Symbol", bad) == "", bad


def test_docx_not_a_word_file(tmp_path: Path):
    legacy = tmp_path / "old.docx"
    legacy.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512)  # an OLE2 .doc
    with pytest.raises(ExtractionError, match="legacy .doc"):
        extract(legacy)
    hollow = tmp_path / "hollow.docx"
    with zipfile.ZipFile(hollow, "w") as z:
        z.writestr("hello.txt", "not a word document")
    with pytest.raises(ExtractionError, match="not a readable Word .docx file"):
        extract(hollow)


def test_docx_text_boxes_are_read_once_after_their_paragraph(tmp_path: Path):
    """Word shows a text box's text on the page; a modern box is stored twice (a DrawingML
    choice and a VML fallback for old readers) and must be read once."""
    import docx
    from docx.oxml import parse_xml

    ns = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
          'xmlns:v="urn:schemas-microsoft-com:vml" '
          'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
          'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
          'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
          'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')

    def box(*paragraphs: str) -> str:
        ps = "".join(f"<w:p><w:r><w:t>{t}</w:t></w:r></w:p>" for t in paragraphs)
        return f"<w:txbxContent>{ps}</w:txbxContent>"

    d = docx.Document()
    d.add_heading("Boiler room", 1)
    p = d.add_paragraph("The boiler sits in the basement.")
    p._p.append(parse_xml(  # legacy VML only
        f'<w:r {ns}><w:pict><v:shape><v:textbox>'
        f'{box("The emergency shutoff valve is behind panel K7.")}'
        '</v:textbox></v:shape></w:pict></w:r>'))
    p = d.add_paragraph()  # a paragraph holding only a modern box, with its fallback
    inner = box("Call the fitter on 0161 496 0000.", "Never bleed a hot radiator.")
    p._p.append(parse_xml(
        f'<w:r {ns}><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor>'
        f'<a:graphic><a:graphicData><wps:wsp><wps:txbx>{inner}</wps:txbx></wps:wsp>'
        '</a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback>'
        f'<w:pict><v:shape><v:textbox>{inner}</v:textbox></v:shape></w:pict>'
        '</mc:Fallback></mc:AlternateContent></w:r>'))
    d.add_paragraph("Check the pressure gauge weekly.")
    path = tmp_path / "boiler.docx"
    d.save(path)
    doc = extract(path)
    assert doc.text == (
        "# Boiler room\n\nThe boiler sits in the basement.\n\n"
        "The emergency shutoff valve is behind panel K7.\n\n"
        "Call the fitter on 0161 496 0000.\n\nNever bleed a hot radiator.\n\n"
        "Check the pressure gauge weekly.")
    (chunk,) = chunk_document(doc)
    assert chunk.section == "Boiler room" and "panel K7" in chunk.content


def test_a_password_protected_docx_or_xlsx_is_named_encrypted_not_legacy():
    """Office keeps them in the compound file a legacy .doc/.xls is; saving as .docx
    would not help (fixtures: SOURCES.md, encrypted with msoffcrypto-tool)."""
    real = Path(__file__).parent / "fixtures" / "real"
    for name, kind in (("locked-irrigation.docx", ".docx"), ("locked-budget.xlsx", ".xlsx")):
        with pytest.raises(ExtractionError) as exc:
            extract(real / name)
        assert f"the {kind} is encrypted with a password" in str(exc.value)
        assert "legacy" not in str(exc.value)


def test_a_truncated_docx_or_xlsx_is_named_damaged_not_legacy(tmp_path: Path):
    """A package cut short (an interrupted download) is still a ZIP's first bytes but has
    no central directory: it is called damaged, not a legacy binary file."""
    import docx
    import openpyxl
    d = docx.Document()
    d.add_paragraph("A paragraph long enough to matter. " * 20)
    whole = tmp_path / "whole.docx"
    d.save(str(whole))
    wb = openpyxl.Workbook()
    wb.active.append(["part", "months"])
    wb.save(str(tmp_path / "whole.xlsx"))
    for suffix, what in ((".docx", ".docx file"), (".xlsx", ".xlsx workbook")):
        data = (tmp_path / f"whole{suffix}").read_bytes()
        cut = tmp_path / f"cut{suffix}"
        cut.write_bytes(data[: len(data) // 2])
        with pytest.raises(ExtractionError, match=f"a damaged \\{what}: its ZIP package ends early") as exc:
            extract(cut)
        assert "legacy" not in str(exc.value)
    legacy = tmp_path / "old.xlsx"
    legacy.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512)
    with pytest.raises(ExtractionError, match="a legacy .xls file, not a .xlsx workbook: rename it .xls to index it"):
        extract(legacy)


# --- HTML ---------------------------------------------------------------------------------

PAGE_WITHOUT_MAIN = """<html><head><title>Kiln log</title></head><body>
<div class="cookie-banner">We use cookies to improve your experience</div>
<header><nav>Home | Gallery</nav><p>Site tagline: pottery for everyone</p></header>
<div role="navigation">Previous post | Next post</div>
<article><header><h1>Kiln log</h1><p>Posted by Ines</p></header>
<p>Cone 6 glaze firing took <em>nine</em> hours;<br>the vent stayed open until 1000 C.</p>
<script>trackFiring("cone6")</script>
<p hidden>Draft note: do not publish</p>
<pre>
firing-schedule:
  ramp: 150/h
# comment in a config file
</pre>
<footer>Tags: glaze, kiln</footer>
</article>
<footer>Copyright Clay Club</footer>
</body></html>"""


def test_html_drops_scripts_navigation_and_boilerplate(tmp_path: Path):
    path = tmp_path / "kiln.html"
    path.write_text(PAGE_WITHOUT_MAIN)
    doc = extract(path)
    assert doc.title == "Kiln log" and doc.headings == "atx"
    for gone in ("cookies", "Gallery", "tagline", "Previous post", "trackFiring", "Draft note", "Copyright"):
        assert gone not in doc.text, gone
    blocks = doc.text.split("\n\n")
    assert blocks[0] == "# Kiln log"
    assert "Posted by Ines" in blocks  # the article's own header is kept
    assert "Cone 6 glaze firing took nine hours;\nthe vent stayed open until 1000 C." in blocks
    assert "```\nfiring-schedule:\n  ramp: 150/h\n# comment in a config file\n```" in blocks
    assert blocks[-1] == "Tags: glaze, kiln"


def test_html_keeps_a_section_s_own_header_and_content_a_class_misnames(tmp_path: Path):
    path = tmp_path / "gizmo.html"
    path.write_text(
        "<html><body><header>Site banner</header><main><header><h1>Installing the Gizmo</h1>"
        "<p>Needs 4 GB of RAM.</p></header><section><header><h2>Dams</h2></header>"
        "<p>Beavers build dams.</p><footer>Survey of 2019.</footer></section>"
        "<div style='display: none'>A closed modal</div><p>Run the installer.</p>"
        "<p class='ads-free'>The ad-free plan costs 3 EUR.</p><div class='ad-banner ads'>Buy!</div>"
        "</main><footer>Page footer</footer></body></html>")
    assert extract(path).text == (
        "# Installing the Gizmo\n\nNeeds 4 GB of RAM.\n\n## Dams\n\nBeavers build dams.\n\n"
        "Survey of 2019.\n\nRun the installer.\n\nThe ad-free plan costs 3 EUR.")
    # a wrapper that "has" a sidebar, a recipe for cookies: the page itself, not boilerplate
    path.write_text(
        "<html><body><div id='page' class='site has-sidebar'><div class='cookie-recipe'>"
        "<h1>Chocolate chip cookies</h1><p>Bake at 180 degrees for 12 minutes.</p></div>"
        "<div class='sidebar'>Recent posts</div></div>"
        "<div class='cookie-banner'>We use cookies</div></body></html>")
    assert extract(path).text == "# Chocolate chip cookies\n\nBake at 180 degrees for 12 minutes."


def test_html_keeps_sections_whose_generated_ids_hold_a_boilerplate_word(tmp_path: Path):
    """Sphinx writes a section's id from its heading and a method's from its dotted path:
    Django's "Using cookie-based sessions" section and its set_test_cookie() signature
    were dropped as cookie banners (found writing eval/djangodocs). A banner named so by
    its class, or by an id that is no heading's anchor, is still dropped."""
    path = tmp_path / "sessions.html"
    path.write_text(
        "<html><body><main><h1>How to use sessions</h1>"
        "<div class='section' id='s-using-cookie-based-sessions'><h2>Using cookie-based "
        "sessions</h2><p>Signed cookies hold the session data.</p></div>"
        "<section id='setting-test-cookies'><h2>Setting test cookies</h2>"
        "<dl><dt id='django.contrib.sessions.backends.base.SessionBase.set_test_cookie'>"
        "set_test_cookie()</dt><dd>Sets a test cookie.</dd></dl></section>"
        "<h3 id='cookies'>Cookies</h3><p>Browsers may refuse them.</p>"
        "<div id='cookie-notice'>We use cookies</div>"
        "<div id='sidebar-cookies'><h4>Popular</h4><p>Recent posts</p></div>"
        "<div class='cookie-banner'><h2>Cookies</h2><p>Accept all</p></div>"
        "<p>Unrelated text so the page is long enough that no banner holds half of it, "
        "which would make it the page's content.</p></main></body></html>")
    assert extract(path).text == (
        "# How to use sessions\n\n## Using cookie-based sessions\n\n"
        "Signed cookies hold the session data.\n\n## Setting test cookies\n\n"
        "set_test_cookie()\n\nSets a test cookie.\n\n### Cookies\n\nBrowsers may refuse them.\n\n"
        "Unrelated text so the page is long enough that no banner holds half of it, "
        "which would make it the page's content.")


def test_html_keeps_docbook_s_boxed_asides_and_drops_its_navigation_bars(tmp_path: Path):
    """DocBook XSL writes a <sidebar> (a book's "TIP" box) as <div class="sidebar"> with
    its title in a <div class="titlepage">, and each page's Prev / Up / Next bars as
    navheader / navfooter (Publican: a <ul class="docnav">); markup as the Debian
    Administrator's Handbook and PostgreSQL's manual have it. The boxes, 27% of the
    handbook's text, were dropped as a site's sidebar (found writing eval/debhandbook),
    and the bars were indexed. A sidebar with no title page is still a site's."""
    path = tmp_path / "apt-get.html"
    path.write_text(
        '<html><body><div class="navheader"><table width="100%"><tr><th colspan="3">6.2. apt-get'
        '</th></tr><tr><td><a accesskey="p" href="apt.html">Prev</a></td><th>Chapter 6. APT</th>'
        '<td><a accesskey="n" href="apt-cache.html">Next</a></td></tr></table><hr/></div>'
        '<div class="section"><div class="titlepage"><div><div><h2 class="title">6.2. apt-get'
        '</h2></div></div></div><p>APT downloads the package lists first.</p>'
        '<div class="sidebar"><a id="sidebar.apt-pdiff"></a><div class="titlepage"><div><div>'
        '<p class="title"><strong><span class="emphasis"><em>TIP</em></span> Incremental updates'
        '</strong></p></div></div></div><div class="para">APT can download diff files, not '
        'the whole list.</div></div>'
        '<div class="sidebar"><p>Recent posts</p><a href="/x">Older</a></div></div>'
        '<ul class="docnav"><li class="previous"><a href="apt.html"><strong>Prev</strong>'
        'Chapter 6</a></li><li class="next"><a href="apt-cache.html"><strong>Next</strong>'
        '6.3. apt-cache</a></li></ul>'
        '<div class="navfooter"><hr/><table><tr><td><a href="apt.html">Prev</a></td>'
        '<td><a href="index.html">Home</a></td></tr></table></div></body></html>')
    assert extract(path).text == (
        "## 6.2. apt-get\n\nAPT downloads the package lists first.\n\nTIP Incremental "
        "updates\n\nAPT can download diff files, not the whole list.")


def test_html_main_content_headings_and_table(tmp_path: Path):
    path = tmp_path / "starter.html"
    path.write_text(b.HTML_PAGE)
    doc = extract(path)
    assert doc.title == "Sourdough starter care"
    for gone in ("secret-analytics-token", "Shop our flour", "newsletter", "proving baskets", "Crumb Co", "injected", "JavaScript"):
        assert gone not in doc.text, gone
    sections = {c.section for c in chunk_document(doc)}
    assert "Sourdough starter care > Reviving it" in sections
    assert "100% | thick batter" in doc.text.split("\n\n")


def test_html_a_hidden_main_is_not_the_page(tmp_path: Path):
    """A single-page app keeps its other views as hidden <main> elements; a <main>
    inside a cookie banner is the banner's. The shown content is indexed, not them."""
    path = tmp_path / "app.html"
    path.write_text(
        "<html><body><nav>menu</nav><main hidden><p>Old view about walruses.</p></main>"
        "<main><h1>Penguins</h1><p>Penguins nest on the rocks of the bay.</p></main>"
        "</body></html>")
    assert extract(path).text == "# Penguins\n\nPenguins nest on the rocks of the bay."
    path.write_text(
        "<html><body><div class='cookie-banner'><main><p>We use cookies.</p></main></div>"
        "<article><h1>Toasters</h1><p>The quantum toaster browns bread on both sides at "
        "once, and its crumb tray slides out from the front for cleaning.</p></article>"
        "</body></html>")
    assert extract(path).text == (
        "# Toasters\n\nThe quantum toaster browns bread on both sides at once, and its crumb "
        "tray slides out from the front for cleaning.")
    path.write_text(  # role=main when no <main> is shown; the page itself when none is
        "<html><body><main style='display: none'><p>gone</p></main>"
        "<div role='main'><p>The role's text.</p></div><p>Outside.</p></body></html>")
    assert extract(path).text == "The role's text."
    path.write_text("<html><body><main hidden><p>gone</p></main><p>All of it.</p></body></html>")
    assert extract(path).text == "All of it."


def test_xhtml_self_closing_tags_are_empty_elements(tmp_path: Path):
    """XHTML is XML: <script/> and <iframe/> are empty, where an HTML parser would read
    an open tag swallowing the rest of the page (all of it, or one paragraph, lost)."""
    page = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Boilers</title>'
            '<script type="text/javascript" src="nav.js"/></head><body>'
            "<h1>Boilers</h1><p>Keep the pressure below 3 bar.</p>"
            '<p>Bleed the radiators each autumn.<a id="note1"/></p><iframe src="x" />'
            "<p>Replace the thermocouple every <b>five</b> years.<br/>Log it.</p>"
            "<textarea name='t'/><p title='a/>b'>Check the flue.</p></body></html>")
    path = tmp_path / "boilers.xhtml"
    path.write_text(page)
    doc = extract(path)
    assert doc.title == "Boilers"
    assert doc.text == (
        "# Boilers\n\nKeep the pressure below 3 bar.\n\nBleed the radiators each autumn.\n\n"
        "Replace the thermocouple every five years.\nLog it.\n\nCheck the flue.")
    # the same bytes named .html are read as a browser reads HTML: the script swallows
    (tmp_path / "boilers.html").write_text(page)
    with pytest.raises(ExtractionError, match="no text left"):
        extract(tmp_path / "boilers.html")


def test_html_layout_table_cells_are_read_as_blocks(tmp_path: Path):
    """A 1990s page: a table puts the menu beside the text, whose headings sit in a
    cell (as SANE's UMAX pages in Debian's libsane-common do). The cells are columns of
    blocks with their headings; a data table inside the text stays rows."""
    path = tmp_path / "scanner.html"
    path.write_text(
        "<html><head><title>Scanner setup</title></head><body><table><tr>"
        "<td width=200><ul><li><a href='a.html'>Index</a></li><li><a href='b.html'>Speed</a></li></ul></td>"
        "<td><h2>Configuration</h2><p>The backend reads its options from umax.conf at start.</p>"
        "<h3>Lamp</h3><p>The lamp warms up for forty seconds before the first scan.</p>"
        "<table><tr><th>Option</th><th>Default</th></tr><tr><td>lamp-off-time</td><td>30</td></tr></table>"
        "</td></tr></table></body></html>")
    doc = extract(path)
    lamp = next(c for c in chunk_document(doc) if "forty seconds" in c.content)
    assert lamp.section == "Scanner setup > Configuration > Lamp"
    blocks = doc.text.split("\n\n")
    assert "## Configuration" in blocks and "lamp-off-time | 30" in blocks
    assert blocks.index("Index") < blocks.index("## Configuration")  # the menu's cell comes first


def test_html_declared_charset_and_undecodable_bytes(tmp_path: Path):
    latin = tmp_path / "latin.html"
    latin.write_bytes('<meta charset="iso-8859-1"><p>Crème brûlée à la carte</p>'.encode("latin-1"))
    assert extract(latin).text == "Crème brûlée à la carte"
    # no charset declared and not UTF-8: Western European text is read as Windows-1252,
    # as a browser in Western Europe reads it, with a warning; other text is refused
    bare = tmp_path / "bare.html"
    bare.write_bytes(b"<p>caf\xe9</p>")
    assert extract(bare).text == "café" and "read as Windows-1252" in extract(bare).warnings[0]
    bad = tmp_path / "bad.html"
    bad.write_bytes("<p>Привет</p>".encode("cp1251"))
    with pytest.raises(ExtractionError, match="not valid utf-8 .*, nor Western European text"):
        extract(bad)
    # a UTF-16 label met by an ASCII scan is wrong: the HTML standard reads UTF-8
    wrong = tmp_path / "wrong.html"
    wrong.write_bytes(b'<meta charset="utf-16"><p>Plain page about badgers.</p> ')
    assert extract(wrong).text == "Plain page about badgers."
    # UTF-16 without a byte-order mark holds NUL bytes: refused, not read as garbage
    u16 = tmp_path / "u16.html"
    u16.write_bytes("<html><body><p>A page about gazelles.</p></body></html>".encode("utf-16-le"))
    with pytest.raises(ExtractionError, match="UTF-16 without a byte-order mark"):
        extract(u16)
    only_script = tmp_path / "script.html"
    only_script.write_text("<script>alert(1)</script><nav>menu</nav>")
    with pytest.raises(ExtractionError, match="no text left"):
        extract(only_script)


def test_html_absurd_nesting_fails_cleanly(tmp_path: Path):
    deep = tmp_path / "deep.html"
    deep.write_text("<div>" * 300 + "bottom" + "</div>" * 300)
    assert extract(deep).text == "bottom"  # deep, but real pages stay far shallower
    deep.write_text("<div>" * 5000 + "bottom" + "</div>" * 5000)
    with pytest.raises(ExtractionError, match="HTML nested too deeply to read"):
        extract(deep)


def test_escape_markdown_only_touches_heading_and_fence_lines():
    assert escape_markdown("# not a heading\n#hashtag\n```code") == "\\# not a heading\n#hashtag\n\\```code"


# --- spreadsheets -------------------------------------------------------------------------


def test_csv_rows_regions_and_a1_ranges(tmp_path: Path):
    path = tmp_path / "rain.csv"
    path.write_text(b.CSV_TEXT)
    doc = extract(path)
    assert doc.text.split("\n") == [
        "station | date | rainfall_mm | note",
        "Aberdeen | 2024-03-01 | 12.5 | gusty",
        "Inverness | 2024-03-01 | 30.1 | flooded lane, closed road",
        "Perth | 2024-03-02 | 0.0 | dry spell",
    ]
    assert [r.row for r in doc.regions] == [1, 2, 4, 5]  # the empty record 3 is skipped, still counted
    r = doc.regions[2]
    assert locate(doc, r.start, r.end).sheet_range == "rain!A4:D4"
    assert locate(doc, 0, len(doc.text)).sheet_range == "rain!A1:D5"
    (chunk,) = chunk_document(doc)
    assert chunk.text.startswith("[rain > rain]\nstation | date | rainfall_mm | note\n")


def test_a_row_cut_for_one_long_cell_cites_the_cells_each_piece_holds(tmp_path: Path):
    import openpyxl

    path = tmp_path / "tickets.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Tickets"
    ws.append(["id", "customer", "product", "status", "body", "owner"])
    body = " ".join(f"Step {i}: the kettle's base clicked {i} times before the light went out."
                    for i in range(40))  # ~2,900 characters: over any budget
    ws.append([7, "Ada", "Kettle K2", "open", body, "Grace"])
    ws.append([8, "Bo", None, "closed", "Replaced the lid.", "Grace"])
    wb.save(path)
    doc = extract(path)
    assert doc.regions[1].cells == (4, 10, 22, 29, 29 + len(body) + 3)
    row, after = doc.regions[1], doc.regions[2]
    chunks = chunk_document(doc)
    inside = [c for c in chunks if row.start <= c.start and c.end <= row.end]
    assert len(inside) >= 3
    # an independent reader: openpyxl, cell by cell: a piece inside the long cell cites it
    sheet = openpyxl.load_workbook(path)["Tickets"]
    assert sheet["E2"].value == body
    for c in inside:
        assert locate(doc, c.start, c.end).sheet_range == "Tickets!E2:E2"
        assert c.content in body
    # a piece with the header row, and one with the next row: the rectangle they span
    assert locate(doc, chunks[0].start, chunks[0].end).sheet_range == "Tickets!A1:F2"
    assert chunks[-1].end == after.end
    assert locate(doc, chunks[-1].start, chunks[-1].end).sheet_range == "Tickets!A2:F3"
    # the row's head into its long cell, and the long cell's tail to the row's end
    e2 = row.start + row.cells[3]
    assert locate(doc, row.start, e2 + 5).sheet_range == "Tickets!A2:E2"
    assert locate(doc, e2 + 5, row.end).sheet_range == "Tickets!E2:F2"
    assert locate(doc, e2 + 5, row.end - 2).sheet_range == "Tickets!E2:F2"
    assert locate(doc, e2 + 5, row.end - len(" | Grace")).sheet_range == "Tickets!E2:E2"
    # the whole row, and a range that is only a separator or an empty cell
    empty = after
    assert locate(doc, row.start, row.end).sheet_range == "Tickets!A2:F2"
    assert locate(doc, row.start + 1, row.start + 3).sheet_range == "Tickets!B2:B2"  # " |"
    assert locate(doc, row.start + 2, row.start + 6).sheet_range == "Tickets!B2:B2"  # "| Ad"
    assert doc.text[empty.start : empty.end] == "8 | Bo |  | closed | Replaced the lid. | Grace"
    at = empty.start + doc.text.index("|  |", empty.start) - empty.start
    assert locate(doc, at + 2, at + 3).sheet_range == "Tickets!D3:D3"  # after the empty C3
    assert locate(doc, empty.start, empty.end).sheet_range == "Tickets!A3:F3"
    # a region map written before rows knew their cells still reads, as whole rows
    from citeline.store import regions_from_json, regions_json

    assert regions_from_json(regions_json(doc.regions)) == [
        Region(r.kind, r.start, r.end, sheet=r.sheet, row=r.row, first_col=r.first_col,
               last_col=r.last_col, cells=r.cells) for r in doc.regions]
    old = regions_from_json('[["row",0,5,null,null,null,"S",1,1,2,null]]')
    assert old == [Region(RegionKind.ROW, 0, 5, sheet="S", row=1, first_col=1, last_col=2)]
    assert locate_in(old, 3, 5).sheet_range == "S!A1:B1"


REAL = Path(__file__).parent / "fixtures" / "real"


def test_real_world_csv_rows_match_the_csv_module(tmp_path: Path):
    """A Yahoo Finance export shipped by matplotlib (tests/fixtures/real/SOURCES.md)."""
    path = REAL / "msft.csv"
    doc = extract(path)
    records = list(csv.reader(io.StringIO(path.read_text())))
    assert len(doc.regions) == len(records) == 66
    assert doc.regions[0].header == "Date | Open | High | Low | Close | Volume | Adj. Close*"
    for r in doc.regions:
        assert doc.text[r.start : r.end] == " | ".join(records[r.row - 1])
    for c in chunk_document(doc):
        m = re.fullmatch(r"msft!A(\d+):G(\d+)", locate(doc, c.start, c.end).sheet_range or "")
        assert m
        want = records[int(m.group(1)) - 1 : int(m.group(2))]
        assert c.content.split("\n") == [" | ".join(r) for r in want]


IRRIGATION_SECTIONS = [
    "Greenhouse irrigation manual", "Greenhouse irrigation manual > 1. Drip lines",
    "Greenhouse irrigation manual > 1. Drip lines > Flushing the lines",
    "Greenhouse irrigation manual > 1. Drip lines > Replacing an emitter",
    "Greenhouse irrigation manual > 2. Timer", "Greenhouse irrigation manual > 3. Programs",
    "Greenhouse irrigation manual > Stop the water now!",
    "Greenhouse irrigation manual > 4. Winter shutdown"]


@pytest.mark.parametrize("name", ["irrigation-styles.docx", "irrigation-handset.docx",
                                  "irrigation-styles.pdf", "irrigation-handset.pdf"])
def test_libreoffice_exports_keep_their_sections(name: str):
    """LibreOffice Writer 7.4's .docx and PDF of one manual, its titles in heading styles
    (the PDF with Writer's bookmarks) or set large and bold by hand (the PDF with no
    outline): every reading gives the same sections (tests/fixtures/real/SOURCES.md).
    "2. Timer" is empty, so "3. Programs" is the next line, in the same font."""
    doc = extract(REAL / name)
    if name.endswith(".pdf"):
        titles = [h.title for h in doc.outline]
    else:
        titles = [ln.lstrip("#").strip() for ln in doc.text.split("\n") if ln.startswith("#")]
    assert titles == [s.rsplit(" > ", 1)[-1] for s in IRRIGATION_SECTIONS]
    chunks = chunk_document(doc)
    burst = next(c for c in chunks if "red main valve" in c.content)
    assert burst.section == "Greenhouse irrigation manual > Stop the water now!"
    program = next(c for c in chunks if "Program A waters" in c.content)
    assert program.section == "Greenhouse irrigation manual > 3. Programs"
    assert {c.section for c in chunks} <= set(IRRIGATION_SECTIONS)
    if name.endswith(".pdf"):
        assert locate(doc, burst.start, burst.end).fragment == "#page=1"


SLIDE_SECTIONS = [
    "Irrigation Controller IC-8", "INSTALLING THE CONTROLLER",
    "INSTALLING THE CONTROLLER > Mounting", "INSTALLING THE CONTROLLER > Wiring the valves",
    "PROGRAMMING SCHEDULES", "PROGRAMMING SCHEDULES > Start times",
    "PROGRAMMING SCHEDULES > Seasonal adjust", "TROUBLESHOOTING",
    "TROUBLESHOOTING > Error E3: short circuit", "TROUBLESHOOTING > The display is blank"]


@pytest.mark.parametrize("name", ["irrigation-slides.pdf", "irrigation-slides-nobookmarks.pdf"])
def test_a_slide_deck_s_sections_are_its_slides_under_their_dividers(name: str):
    """LibreOffice Impress 7.4's PDF of a python-pptx deck (tests/fixtures/real): its
    slide titles, and its section header slides above the slides that follow them,
    whether or not Impress wrote bookmarks (which would make every slide one level);
    the footer and the slide numbers are page furniture."""
    doc = extract(REAL / name)
    assert doc.title == "Irrigation Controller IC-8"  # the first slide's: Impress wrote no /Title
    assert [h.title for h in doc.outline] == [s.rsplit(" > ", 1)[-1] for s in SLIDE_SECTIONS]
    chunks = chunk_document(doc)
    assert [s.removeprefix(f"{doc.title} > ") for s in dict.fromkeys(
        c.section for c in chunks)] == SLIDE_SECTIONS
    e3 = next(c for c in chunks if "0.8 A" in c.content)
    assert e3.section.endswith("TROUBLESHOOTING > Error E3: short circuit")
    assert locate(doc, e3.start, e3.end).fragment == "#page=9"
    assert "March 2026" not in doc.text and len(doc.warnings) == 1


def test_a_16_9_deck_with_awkward_slides():
    """No bookmarks, text shrunk to fit each slide (bullets at 28 and 32 pt, a table at
    18): the fonts' body size says little about a deck, each slide's own sizes do."""
    doc = extract(REAL / "water-budget.pdf")
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Water Budget Review 2026"), (2, "Agenda"), (1, "CONSUMPTION BY SITE"),
        (2, "Litres per site and quarter"), (2, "The sports field dominates"),
        (1, "LEAK FINDINGS"), (2, "Depot: two leaks found by night readings"),
        (1, "NEXT YEAR'S TARGETS"), (2, "Cutting the sports field's use by a quarter")]
    # the subtitle's year wrapped onto a line of its own at the foot of slide 1: not a
    # slide number, which counts with the slides
    assert doc.text.startswith("Water Budget Review\n2026\n\nFacilities team, 12 March\n2026\n")
    assert doc.warnings == ("repeated page headers/footers left out of the text: '1'",)
    # Impress wrote no /Title: the deck's is its first slide's title, not the file's name
    assert doc.title == "Water Budget Review 2026"
    chunks = chunk_document(doc)
    table = next(c for c in chunks if "Sports field 120,000" in c.content)
    assert table.section == "Water Budget Review 2026 > CONSUMPTION BY SITE > Litres per site and quarter"
    # the untitled slide of prose belongs to the slide before it
    night = next(c for c in chunks if "02:00" in c.content)
    assert night.section.endswith("LEAK FINDINGS > Depot: two leaks found by night readings")
    assert locate(doc, night.start, night.end).pages[-1] == 9


def test_a_pptx_deck_s_slides_are_sections_cited_by_slide_number(tmp_path: Path):
    """python-pptx's deck (doc_builders.pptx_deck): PowerPoint's named sections, then the
    slides, those after a Section Header divider under it; every slide's text is cited by
    its own number (hidden slides are numbered), read back by an independent reader."""
    path = b.pptx_deck(tmp_path)
    doc = extract(path)
    assert doc.title == "Harbour safety briefing" and doc.extractor == "pptx"
    chunks = chunk_document(doc)
    assert [c.section.removeprefix(doc.title + " > ") for c in chunks] == [
        "Before the shift > Harbour safety briefing", "Before the shift > Life jackets",
        "Before the shift > Who to call", "Before the shift > Old mooring procedure",
        "Emergencies > Man overboard > Throwing the ring",
        "Emergencies > Man overboard > Incidents this year"]
    texts = b.slide_texts(path)
    for r in doc.regions:
        assert r.kind is RegionKind.SLIDE
        said = doc.text[r.start:r.end].replace("\\#", "#").replace("Notes: ", "")
        for line in said.split("\n"):
            # a chart's sentence: its title's words are the slide's, the rest citeline's
            line = re.sub(r"\. A [a-z ]+ chart of .*\.$", "", line)
            words = line.lstrip("#").replace(" | ", " ").split()
            assert " ".join(words) in " ".join(texts[r.page - 1].split()), (r.page, line)
    assert [r.page for r in doc.regions] == [1, 2, 3, 4, 5, 6, 7]
    assert "Falls into the water per month. A column chart of Falls." in doc.text
    # notes, a group's text boxes, a table (a merged cell once), a hidden slide, a chart
    assert "Notes: Inflate one jacket at random every Monday" in doc.text
    assert "The harbour master answers on channel 12.\n\nThe coastguard" in doc.text
    assert "Night pilot | Oskar Lind | 555 0143\n\nFire watch |  | 555 0199" in doc.text
    assert "Moor bow first" in doc.text and "Falls into the water per month" in doc.text
    # a line break is a line; a body line that looks like a heading is escaped
    assert "Shout and point at the person\nuntil the boat turns.\n\\# not a heading" in doc.text
    # the footer and the slide numbers drawn as text boxes are furniture
    assert b.DECK_FOOTER not in doc.text and not re.search(r"^\d+$", doc.text, re.M)
    assert doc.warnings == ("slide 8: no text (a picture or a drawing), not indexed",)
    ring = next(c for c in chunks if "upwind" in c.content)
    loc = locate(doc, ring.start, ring.end)
    assert loc.slides == (5, 6) and loc.fragment == "#slide=5" and not loc.pages
    jackets = next(c for c in chunks if "blue lockers" in c.content)
    assert locate(doc, jackets.start, jackets.end).url("crew deck.pptx") == "crew%20deck.pptx#slide=2"
    assert locate(doc, jackets.start, jackets.end).to_json()["slides"] == [2]


def test_the_irrigation_pptx_reads_as_its_pdf_exports_do():
    """The deck Impress exported to the PDFs above (tests/fixtures/real): the same slide
    sections, from the layouts instead of the fonts; the footer and numbers left out."""
    doc = extract(REAL / "irrigation-slides.pptx")
    chunks = chunk_document(doc)
    sections = [s.removeprefix(f"{doc.title} > ") for s in dict.fromkeys(c.section for c in chunks)]
    assert [s.casefold() for s in sections] == [
        s.casefold() for s in SLIDE_SECTIONS if s.count(" > ") == 1 or s == SLIDE_SECTIONS[0]]
    e3 = next(c for c in chunks if "0.8 A" in c.content)
    assert locate(doc, e3.start, e3.end).slides == (8, 9)  # the divider, then its slide
    assert "March 2026" not in doc.text and doc.warnings == ()
    water = extract(REAL / "water-budget.pptx")
    assert water.warnings == ("slide 8: no text (a picture or a drawing), not indexed",)
    night = next(c for c in chunk_document(water) if "02:00" in c.content)
    # an untitled slide is a section of its own, named by its number
    assert night.section == "Water Budget Review 2026 > Leak findings > Slide 9"
    assert locate(water, night.start, night.end).fragment == "#slide=9"
    assert "63%" in water.text and "\n1\n" not in water.text


def test_pptx_that_cannot_be_read_says_why(tmp_path: Path):
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    cases = {
        "empty.pptx": (b"", "empty file \\(0 bytes\\), not a PowerPoint deck"),
        "old.pptx": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512,
                     "a legacy .ppt file, not a .pptx file: rename it .ppt to index it"),
        "text.pptx": (b"slides, honestly", "not a .pptx file \\(not a ZIP package\\)"),
    }
    for name, (data, reason) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ExtractionError, match=reason):
            extract(tmp_path / name)
    whole = b.pptx_deck(tmp_path, "whole.pptx").read_bytes()
    (tmp_path / "cut.pptx").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ExtractionError, match="a damaged .pptx file: its ZIP package ends early"):
        extract(tmp_path / "cut.pptx")
    with zipfile.ZipFile(tmp_path / "hollow.pptx", "w") as z:
        z.writestr("hello.txt", "not a deck")
    with pytest.raises(ExtractionError, match="not a readable PowerPoint .pptx file"):
        extract(tmp_path / "hollow.pptx")
    prs = Presentation()
    prs.save(str(tmp_path / "none.pptx"))
    with pytest.raises(ExtractionError, match="the deck has no slides"):
        extract(tmp_path / "none.pptx")
    prs.slides.add_slide(prs.slide_layouts[6]).shapes.add_shape(
        MSO_SHAPE.OVAL, Inches(1), Inches(1), Inches(2), Inches(2))
    prs.save(str(tmp_path / "pictures.pptx"))
    with pytest.raises(ExtractionError, match="the deck has no text on its slides"):
        extract(tmp_path / "pictures.pptx")


def test_a_beamer_deck_with_a_navigation_bar():
    """pdfLaTeX's Beamer, Warsaw theme, a section page before each section: each page
    starts with the theme's navigation bar (the section titles in 6 pt), and the
    bookmarks are sections whose titles are only lines of that bar. The frame titles
    make the sections, under the section pages; the section title on its own page is
    kept though the bar's copy of it is furniture."""
    doc = extract(REAL / "pumps-beamer.pdf")
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Pump Station Maintenance"), (2, "Outline"), (1, "Section 1 Daily checks"),
        (2, "Inspecting the seals"), (2, "Bearing temperature"),
        (1, "Section 2 Monthly service"), (2, "Greasing the bearings"),
        (2, "Checking shaft alignment"), (2, "Checking shaft alignment (cont.)"),
        (1, "Section 3 Faults"), (2, "Cavitation")]
    assert "Section 1\nDaily checks" in doc.text
    chunks = chunk_document(doc)
    grease = next(c for c in chunks if "12 grams" in c.content)
    assert grease.section.endswith("> Section 2 Monthly service > Greasing the bearings")


def test_csv_encoding_and_sniffing(tmp_path: Path):
    # not UTF-8: Western European text is read as Windows-1252, as a .txt is, with a
    # warning; another legacy encoding is refused
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,city\nJosé,Málaga\n".encode("latin-1"))
    assert extract(latin).text == "name | city\nJosé | Málaga"
    assert "read as Windows-1252" in extract(latin).warnings[0]
    greek = tmp_path / "greek.csv"
    greek.write_bytes("όνομα,πόλη\nΓιώργος,Αθήνα\n".encode("cp1253"))
    with pytest.raises(ExtractionError, match="not valid UTF-8 .*, nor Western European text"):
        extract(greek)
    tabs = tmp_path / "t.tsv"
    tabs.write_text("a\tb\n1\t2\n")
    assert extract(tabs).text == "a | b\n1 | 2"
    empty = tmp_path / "empty.csv"
    empty.write_text("\n\n")
    with pytest.raises(ExtractionError, match="empty file"):
        extract(empty)
    # Excel's "sep=;" line declares the delimiter and is no row; an apostrophe is no quote
    excel = tmp_path / "excel.csv"
    excel.write_text("sep=;\nName;Amount\nAlpha;1,5\n")
    doc = extract(excel)
    assert doc.text == "Name | Amount\nAlpha | 1,5" and [r.row for r in doc.regions] == [1, 2]
    names = tmp_path / "names.csv"
    names.write_text("name,remark\nO'Brien,'quoted' remark\nMcCoy,the 'real' one\n")
    assert extract(names).text == "name | remark\nO'Brien | 'quoted' remark\nMcCoy | the 'real' one"


def test_xlsx_sheets_are_sections_with_exact_ranges(tmp_path: Path):
    import openpyxl

    path = tmp_path / "budget.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Q3 Sales"
    ws["B2"], ws["C2"], ws["D2"] = "Region", "Units", "Revenue"
    ws.append([None, "North", 120, 1500.5])
    ws.append([])
    ws.append([None, "South", 80, 990])
    other = wb.create_sheet("Notes")
    other["A1"] = "Remember to reconcile the South figures\nwith the depot."
    wb.create_sheet("Blank")
    wb.save(path)
    doc = extract(path)
    assert doc.text == (
        "Region | Units | Revenue\nNorth | 120 | 1500.5\nSouth | 80 | 990\n\n"
        "Remember to reconcile the South figures with the depot."
    )
    assert [(r.sheet, r.row, r.first_col, r.last_col) for r in doc.regions] == [
        ("Q3 Sales", 2, 2, 4), ("Q3 Sales", 3, 2, 4), ("Q3 Sales", 5, 2, 4), ("Notes", 1, 1, 1),
    ]
    assert doc.warnings == ("sheet 'Blank' is empty",)
    chunks = chunk_document(doc)
    assert [c.section for c in chunks] == ["budget > Q3 Sales", "budget > Notes"]
    assert locate(doc, chunks[0].start, chunks[0].end).sheet_range == "'Q3 Sales'!B2:D5"
    assert locate(doc, chunks[1].start, chunks[1].end).sheet_range == "Notes!A1:A1"

    # a sheet name that reads as a cell reference or a number is quoted, as a spreadsheet needs
    rows = [Region(RegionKind.ROW, 0, 5, sheet=name, row=1, first_col=1, last_col=2)
            for name in ("Q1", "2024", "R2C3", "Sheet1", "Totals_2024")]
    assert [locate_in([r], 0, 5).sheet_range for r in rows] == [
        "'Q1'!A1:B1", "'2024'!A1:B1", "'R2C3'!A1:B1", "Sheet1!A1:B1", "Totals_2024!A1:B1"]


def test_xlsx_formula_without_a_saved_result_is_indexed_as_its_formula(tmp_path: Path):
    import openpyxl

    path = tmp_path / "q1.xlsx"
    wb = openpyxl.Workbook()  # openpyxl writes formulas but never calculates them
    ws = wb.active
    ws.append(["Region", "Revenue"])
    ws.append(["North", 1200])
    ws.append(["South", 800])
    ws["A5"], ws["B5"] = "Total", "=SUM(B2:B3)"
    ws["C2"] = ws["C3"] = '=IF(B2>1000,"high","")'
    wb.save(path)
    # C2 and C3 as Excel saves a calculated text result: "high", and an empty one (<v/>)
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"]
    for ref, saved in ((b"C2", b"<v>high</v>"), (b"C3", b"<v/>")):
        sheet, n = re.subn(rb'<c r="' + ref + rb'">(<f>.*?</f>)<v\s*/?>(</v>)?</c>',
                           rb'<c r="' + ref + rb'" t="str">\1' + saved + rb"</c>", sheet)
        assert n == 1
    parts["xl/worksheets/sheet1.xml"] = sheet
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    doc = extract(path)
    lines = doc.text.split("\n")
    assert lines[1:3] == ["North | 1200 | high", "South | 800"]  # an empty result is empty
    assert lines[-1] == "Total | =SUM(B2:B3)"
    assert len(doc.warnings) == 1 and "1 formula cell(s) have no saved result" in doc.warnings[0]
    assert "B5 =SUM(B2:B3)" in doc.warnings[0]


def test_an_xlsx_with_a_damaged_or_missing_part_is_named_damaged(tmp_path: Path):
    import openpyxl

    good = tmp_path / "good.xlsx"
    wb = openpyxl.Workbook()
    wb.active.append(["animal", "about okapis"])
    wb.save(good)
    with zipfile.ZipFile(good) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    sheet, styles = "xl/worksheets/sheet1.xml", "xl/styles.xml"
    cases = {
        "cut.xlsx": ({sheet: parts[sheet][: len(parts[sheet]) // 2]},
                     "the workbook is damaged (unclosed token"),
        "lost.xlsx": ({sheet: None},
                      "the workbook is damaged (sheet 'Sheet' is listed but its part is missing)"),
        "styles.xlsx": ({styles: b"<styleSheet><garbage"}, "not a readable .xlsx workbook ("),
    }
    for name, (changes, reason) in cases.items():
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            for part, data in {**parts, **changes}.items():
                if data is not None:
                    z.writestr(part, data)
        with pytest.raises(ExtractionError) as exc:
            extract(tmp_path / name)
        assert reason in str(exc.value) and "crashed" not in str(exc.value), name


def test_cell_text_by_hand():
    import datetime as dt

    assert cell_text(0.1 + 0.2) == "0.3"
    assert cell_text(dt.datetime(2024, 3, 1)) == "2024-03-01"
    assert cell_text(dt.datetime(2024, 3, 1, 8, 30)) == "2024-03-01 08:30:00"
    assert cell_text(True) == "TRUE" and cell_text(None) == "" and cell_text(7) == "7"


def test_xlsx_10000_rows_fast_and_every_chunk_range_exact(tmp_path: Path):
    import openpyxl

    path = tmp_path / "ledger.xlsx"
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Ledger")
    ws.append(["id", "account", "memo", "amount", "currency", "approved"])
    for i in range(10_000):
        ws.append([i, f"ACC-{i % 97:03d}", f"invoice {i} for crate {i * 7 % 1000}", round(i * 1.25, 2), "EUR", i % 3 == 0])
    wb.save(path)

    t0 = time.perf_counter()
    doc = extract(path)
    chunks = chunk_document(doc)
    locators = [locate(doc, c.start, c.end) for c in chunks]
    elapsed = time.perf_counter() - t0
    assert len(doc.regions) == 10_001
    assert elapsed < 15, f"10,000 rows took {elapsed:.1f}s"

    # independent reader: openpyxl in normal (not read-only) mode, cell by cell
    sheet = openpyxl.load_workbook(path)["Ledger"]
    header = " | ".join(cell_text(c.value) for c in sheet[1])
    for c, loc in zip(chunks, locators, strict=True):
        assert c.text.startswith(f"[ledger > Ledger]\n{header}\n")
        m = re.fullmatch(r"Ledger!([A-Z]+)(\d+):([A-Z]+)(\d+)", loc.sheet_range or "")
        assert m and m.group(1) == "A" and m.group(3) == "F", loc.sheet_range
        rows = sheet[f"A{m.group(2)}:F{m.group(4)}"]
        assert c.content.split("\n") == [" | ".join(cell_text(x.value) for x in row) for row in rows]


# --- transcripts --------------------------------------------------------------------------


def test_parse_time_and_payload_by_hand():
    assert parse_time("01", "02", "03", "5") == 3723.5
    assert parse_time(None, "00", "09", "250") == 9.25
    assert clean_payload(["<v Maria>Who <i>is</i> driving?", "<v Dev>I am &amp; ready"]) == (
        "Maria: Who is driving? Dev: I am & ready"
    )
    assert clean_payload(["{\\an8}<b>Loud</b> <00:00:01.500>noise"]) == "Loud noise"


def test_vtt_cues_speakers_and_exact_time_ranges(tmp_path: Path):
    import webvtt

    path = tmp_path / "call.vtt"
    path.write_text(b.VTT_TEXT)
    doc = extract(path)
    assert doc.title == "Weekly planning call" and doc.media_type == "text/vtt"
    assert doc.text.split("\n") == [
        "Maria: Morning everyone, let's start with the warehouse move.",
        "Dev: The new racks arrive on Thursday, so we pack on Wednesday.",
        "Maria: Who is driving the van? Dev: I am, I booked it until six.",
        "Sam: Remember the forklift licence expires at the end of the month!",
    ]
    # independent parser: webvtt-py's cue times are the regions' times
    cues = list(webvtt.from_buffer(io.StringIO(b.VTT_TEXT)))
    assert [(r.t_start, r.t_end) for r in doc.regions] == [(secs(c.start), secs(c.end)) for c in cues]
    r = doc.regions
    assert locate(doc, r[1].start, r[2].end).fragment == "#t=4.5,13.25"


def secs(stamp: str) -> float:
    h, m, s = (["0"] + stamp.replace(",", ".").split(":"))[-3:]
    return int(h) * 3600 + int(m) * 60 + float(s)


def test_long_transcript_every_chunk_covers_exactly_its_cues(tmp_path: Path):
    import webvtt

    lines = ["WEBVTT", ""]
    for i in range(60):
        lines += [f"00:{i // 6:02d}:{i % 6 * 10:02d}.000 --> 00:{i // 6:02d}:{i % 6 * 10 + 9:02d}.500",
                  f"<v Host>Point number {i} is about topic {i * 13 % 17} and nothing else.", ""]
    text = "\n".join(lines)
    path = tmp_path / "long.vtt"
    path.write_text(text)
    doc = extract(path)
    cues = list(webvtt.from_buffer(io.StringIO(text)))
    chunks = chunk_document(doc)
    assert len(chunks) > 3
    for c in chunks:
        loc = locate(doc, c.start, c.end)
        inside = [q for q in cues if f"Point number {q.text.split()[2]} " in c.content + " "]
        assert inside and loc.t_start == min(secs(q.start) for q in inside)
        assert loc.t_end == max(secs(q.end) for q in inside)
        assert len(c.content.split("\n")) == len(inside)  # whole cues only


def test_srt_and_malformed_cues(tmp_path: Path):
    path = tmp_path / "bees.srt"
    path.write_text(b.SRT_TEXT + "\n4\n00:02:00,000 --> garbage\nlost line\n")
    doc = extract(path)
    assert doc.text.split("\n")[1] == "The angle of the dance points towards the flowers."
    assert [(r.t_start, r.t_end) for r in doc.regions] == [(0.5, 3.0), (3.0, 7.4), (70.0, 75.0)]
    assert doc.warnings == ("skipped 1 malformed cue(s) at line(s) 15",)  # the timing line
    notvtt = tmp_path / "x.vtt"
    notvtt.write_text("1\n00:00:01.000 --> 00:00:02.000\nhello\n")
    with pytest.raises(ExtractionError, match="first line must be 'WEBVTT'"):
        extract(notvtt)
    cues, bad, _ = parse_cues("WEBVTT\n\nNOTE only a note\n", vtt=True)
    assert cues == [] and bad == []
    # a one-dash arrow: the error names the timing line, not the SRT counter above it
    arrow = tmp_path / "arrow.srt"
    arrow.write_text("1\n00:00:01,000 -> 00:00:02,000\nHello from the ibex.\n")
    with pytest.raises(ExtractionError, match="the first at line 2: '00:00:01,000 -> "):
        extract(arrow)
    hollow = tmp_path / "hollow.srt"
    hollow.write_text("1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:04,000\n")
    with pytest.raises(ExtractionError, match="every cue is empty: no text under its timing line"):
        extract(hollow)


def test_cues_a_player_would_read_are_read_and_impossible_times_are_not(tmp_path: Path):
    # a WebVTT cue right under the header, and an SRT cue with no blank line after it
    cues, bad, _ = parse_cues("WEBVTT\n00:00:01.000 --> 00:00:04.000\nThe puffin.\n\n"
                              "00:00:05.000 --> 00:00:08.000\nThe gannet.\n", vtt=True)
    assert [(c.start, c.text) for c in cues] == [(1.0, "The puffin."), (5.0, "The gannet.")]
    cues, bad, _ = parse_cues("1\n00:00:01,000 --> 00:00:03,500\nHello from the kestrel.\n"
                              "2\n00:00:04,000 --> 00:00:06,000\nNo blank line before me.\n\n"
                              "3\n00:99:00,000 --> 01:40:00,000\nNinety-nine minutes.\n\n"
                              "4\n00:00:07,000 --> 00:00:09,000\nHe said x<y and z>w, <i>quietly</i>.\n",
                              vtt=False)
    assert [(c.start, c.end, c.text) for c in cues] == [
        (1.0, 3.5, "Hello from the kestrel."), (4.0, 6.0, "No blank line before me."),
        (7.0, 9.0, "He said x<y and z>w, quietly.")]
    assert bad == [9]  # 00:99:00 is no time (its timing line)
    # a file of nothing but malformed timing lines says which line and what is expected
    path = tmp_path / "colon.srt"
    path.write_text("1\n00:00:01:000 --> 00:00:02:000\nHi\n")
    with pytest.raises(ExtractionError) as err:
        extract(path)
    assert str(err.value).count("colon.srt") == 1
    assert "line 2: '00:00:01:000 --> 00:00:02:000'" in str(err.value) and "HH:MM:SS,mmm" in str(err.value)


def test_media_sidecar_rules(tmp_path: Path):
    (tmp_path / "talk.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    (tmp_path / "talk.en.vtt").write_text(b.VTT_TEXT)
    (tmp_path / "talk.srt").write_text(b.SRT_TEXT)
    assert sidecar_for(tmp_path / "talk.mp4") == tmp_path / "talk.srt"  # exact name before tagged
    (tmp_path / "talk.srt").unlink()
    assert sidecar_for(tmp_path / "talk.mp4") == tmp_path / "talk.en.vtt"
    doc = extract(tmp_path / "talk.mp4")
    assert doc.path == "talk.mp4" and doc.media_type == "video/mp4" and doc.regions[0].t_start == 1.0
    # the sidecar its media uses is not indexed a second time
    with pytest.raises(UnsupportedFormat, match="transcript of talk.mp4"):
        extract(tmp_path / "talk.en.vtt")
    # no sidecar: skipped with a reason
    (tmp_path / "silent.wav").write_bytes(b"RIFF")
    with pytest.raises(UnsupportedFormat, match="no transcript"):
        extract(tmp_path / "silent.wav")


def test_media_fingerprint_follows_the_transcript_not_the_recording(tmp_path: Path):
    media = tmp_path / "talk.mp3"
    media.write_bytes(b"ID3 first take")
    side = tmp_path / "talk.vtt"
    side.write_text(b.VTT_TEXT)
    first = fingerprint(media)
    media.write_bytes(b"ID3 re-encoded at another bitrate")
    assert fingerprint(media) == first
    side.write_text(b.VTT_TEXT.replace("Thursday", "Friday"))
    assert fingerprint(media) != first
    plain = tmp_path / "notes.csv"
    plain.write_text("a,b\n")
    import hashlib

    assert fingerprint(plain) == hashlib.sha256(b"a,b\n").hexdigest()


def test_every_format_is_registered_with_a_name_and_version():
    names = {e.name: e.version for e in REGISTRY.values()}
    assert {"text", "pdf", "docx", "pptx", "html", "xlsx", "csv", "transcript"} <= set(names)
    for suffix in (".pdf", ".docx", ".pptx", ".html", ".xlsx", ".csv", ".vtt", ".srt", ".mp4", ".mp3"):
        assert suffix in REGISTRY, suffix
    assert all(v for v in names.values())


def test_csv_independent_reader_agrees_on_records(tmp_path: Path):
    text = 'name,quote\nAda,"one line\nand another"\n\nGrace,"plain"\n'
    path = tmp_path / "q.csv"
    path.write_text(text)
    doc = extract(path)
    records = list(csv.reader(io.StringIO(text)))
    for r in doc.regions:
        fields = records[r.row - 1][r.first_col - 1 : r.last_col]
        assert doc.text[r.start : r.end] == " | ".join(" ".join(f.split()) for f in fields)


def test_a_csv_with_a_nul_anywhere_is_binary(tmp_path: Path):
    f = tmp_path / "log.csv"
    f.write_text("when,what\n" + "2024-01-01,kettle descaled\n" * 800 + "2024-02-01,x\x00y\n")
    assert f.stat().st_size > 8192  # past the first 8,192 characters, once only looked at
    with pytest.raises(ExtractionError, match="binary file"):
        extract(f)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_with_a_byte_order_mark_is_read(tmp_path: Path, encoding: str):
    body = "# Wasserkocher\r\n\r\nEntkalken: Essig und Wasser, eine Stunde. ☕\r\n"
    bom = {"utf-16": b"", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[encoding]
    f = tmp_path / "notes.md"
    f.write_bytes(bom + body.encode(encoding))
    d = extractor_for(f).extract(f, "notes.md")
    assert d.text == body.replace("\r\n", "\n") and d.title == "Wasserkocher"
    for c in chunk_document(d):
        assert c.content == d.text[c.start : c.end]
    # without its mark, UTF-16 is indistinguishable from binary: still refused, plainly
    f.write_bytes(body.encode("utf-16-le"))
    with pytest.raises(ExtractionError, match="binary file"):
        extractor_for(f).extract(f, "notes.md")
    f.write_bytes(b"\xff\xfe" + b"\x00\xd8")  # a lone surrogate after the mark
    with pytest.raises(ExtractionError, match="not valid UTF-16 after its byte-order mark"):
        extractor_for(f).extract(f, "notes.md")
    f.write_bytes(bom + (body + "\x00tail").encode(encoding))  # a NUL character inside
    with pytest.raises(ExtractionError, match="binary file"):
        extractor_for(f).extract(f, "notes.md")


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be"])
def test_utf32_text_with_a_byte_order_mark_is_read_not_taken_for_utf16(tmp_path: Path,
                                                                       encoding: str):
    body = "# Kettle\n\nDescale with vinegar. ☕\n"
    f = tmp_path / "notes.txt"
    f.write_bytes(("\ufeff" + body).encode(encoding))  # FF FE 00 00 starts as UTF-16's mark
    assert extractor_for(f).extract(f, "notes.txt").text == body


# --- Markdown and reStructuredText titles -----------------------------------------------


def test_text_titles_come_from_the_first_level_one_heading_or_front_matter(tmp_path: Path):
    cases = {
        "setext.md": ("Kettle manual\n=============\n\nText.\n", "Kettle manual", "markdown"),
        "atx.md": ("Intro line.\n\n# Kettle manual\n\nText.\n", "Kettle manual", "markdown"),
        "page.md": ('---\ntitle: "Install guide"\nweight: 3\n---\n\nSteps.\n\n## First\n\nGo.\n',
                    "Install guide", "markdown"),
        "guide.rst": (".. _top:\n\n=======\n Guide\n=======\n\nText.\n", "Guide", "rst"),
        "notes.txt": ("Notes\n=====\n\nPlain text underlines its titles.\n", "Notes", "rst"),
        "memo.txt": ("A memo with no title.\n\nNothing is underlined.\n", "memo", "rst"),
    }
    for name, (text, title, style) in cases.items():
        (tmp_path / name).write_text(text)
        doc = extract(tmp_path / name)
        assert (doc.title, doc.headings) == (title, style), name
    assert extract(tmp_path / "guide.rst").media_type == "text/x-rst"


def test_plain_text_underlined_titles_are_sections_and_rules_are_not(tmp_path: Path):
    text = (
        "TRIGGERS\n========\n\n"
        "Introduction\n------------\n\nA trigger records an event for another package.\n\n"
        "Concepts\n--------\n\nEach trigger is named.\nA line of text right above a rule\n"
        "----------------------------------\nis not a title: no blank line above it.\n\n"
        "Name      Value\n----      -----\nkind      file\n"
    )
    path = tmp_path / "triggers.txt"
    path.write_text(text)
    doc = extract(path)
    assert (doc.title, doc.media_type) == ("TRIGGERS", "text/plain")
    chunks = chunk_document(doc)
    assert "".join(c.content for c in chunks).replace("\n", "") == text.replace("\n", "")
    named = next(c for c in chunks if "is named" in c.content)
    assert named.section == "TRIGGERS > Concepts"
    assert "right above a rule" in named.content and "kind      file" in named.content
    assert next(c for c in chunks if "records an event" in c.content).section == (
        "TRIGGERS > Introduction")



def test_files_named_by_convention_without_a_suffix_are_read_as_plain_text(tmp_path: Path):
    """A source tree's README, INSTALL and ChangeLog and a Debian package's copyright,
    README.Debian and changelog.Debian have no suffix, and were skipped as of no type;
    any other suffix-less name (a program, a lock file, data) still is."""
    readme = ("Relay\n=====\n\nInstalling\n----------\n\nRun make, then make install "
              "as root.\n")
    for name in ("README", "Readme", "INSTALL", "ChangeLog", "copyright", "README.Debian",
                 "changelog.Debian"):
        path = tmp_path / name
        path.write_text(readme)
        doc = extract(path)
        assert (doc.extractor, doc.text, doc.media_type) == ("text", readme, "text/plain")
        assert doc.title == "Relay"
    sections = {c.section for c in chunk_document(extract(tmp_path / "README"))}
    assert sections == {"Relay > Installing"}  # underlined titles, as in a .txt
    # without a title of its own, one of a hundred packages' copyright files is named by
    # its folder, as /usr/share/doc keeps them
    (tmp_path / "curl").mkdir()
    (tmp_path / "curl" / "copyright").write_text("Files: *\nLicense: curl\n")
    path = tmp_path / "curl" / "copyright"
    assert extractor_for(path).extract(path, "curl/copyright").title == "curl copyright"
    assert extractor_for(path).extract(path, "copyright").title == "copyright"
    for name in ("Makefile", "data", "relay", "README.bak", "LICENSE.old"):
        (tmp_path / name).write_text(readme)
        with pytest.raises(UnsupportedFormat):
            extractor_for(tmp_path / name)

VIM_HELP = (
    "*kettle.txt*\tFor Vim version 9.0.  Last change: 2026 Dec 01\n\n\n"
    "\t\t  VIM REFERENCE MANUAL    by A. Writer\n\n\n"
    "Boiling water with Vim\t\t\t\t*kettle*\n\n"
    "1. Filling\t\t|kettle-fill|\n2. Descaling\t\t|kettle-descale|\n\n"
    + "=" * 78 + "\n"
    "1. Filling\t\t\t\t\t\t*kettle-fill*\n\n"
    "Fill the kettle to the line marked MAX and never above it.\n\n"
    "option\t\tvalue\n--------------------\nlevel\t\tMAX\n\n"
    + "=" * 78 + "\n"
    "2. Descaling\t\t\t\t\t\t*kettle-descale*\n\n"
    "Descale it every month where the water is hard.\n\n"
    + "-" * 78 + "\n"
    "2.1 Citric acid ~\n\n"
    "Two spoons of citric acid in a full kettle, boiled and left for an hour.\n\n"
    + "=" * 78 + "\n"
    "\t\t\t\t\t\t\t*kettle-tags-only*\n"
    "Text under a rule whose next line holds only tags.\n\n"
    + "=" * 78 + "\n"
    " vim:tw=78:ts=8:noet:ft=help:norl:\n"
)


def test_vim_help_files_take_their_sections_from_rules_and_titles(tmp_path: Path):
    path = tmp_path / "kettle.txt"
    path.write_text(VIM_HELP)
    doc = extract(path)
    assert (doc.title, doc.headings, doc.media_type) == (
        "Boiling water with Vim", "outline", "text/plain")
    # the title under the banner; "=" rules open sections, "-" rules subsections; the
    # table's short dashes, a line of tags alone and the modeline are no titles
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Boiling water with Vim"), (2, "1. Filling"), (2, "2. Descaling"),
        (3, "2.1 Citric acid")]
    assert doc.text[doc.outline[1].start : doc.outline[1].end] == (
        "=" * 78 + "\n1. Filling\t\t\t\t\t\t*kettle-fill*")
    chunks = chunk_document(doc)
    assert " ".join(c.content for c in chunks).split() == doc.text.split()  # nothing dropped
    citric = next(c for c in chunks if "citric acid in a full" in c.content)
    assert citric.section == "Boiling water with Vim > 2. Descaling > 2.1 Citric acid"
    assert citric.text.startswith(f"[{citric.section}]\n")
    assert next(c for c in chunks if "line marked MAX" in c.content).section == (
        "Boiling water with Vim > 1. Filling")


def test_vim_help_titles_fall_back_to_the_description_or_the_file_name(tmp_path: Path):
    plugin = tmp_path / "matchit.txt"  # a plugin's help: no title under the banner
    plugin.write_text("*matchit.txt*\tExtended \"%\" matching\n\n\t\tVIM REFERENCE MANUAL\n\n"
                      "*matchit* *matchit.vim*\n\n" + "=" * 78 + "\n1. Intro\t*matchit-intro*\n\n"
                      "Text.\n")
    assert extract(plugin).title == 'Extended "%" matching'
    prose = tmp_path / "change.txt"  # prose right under the banner is no title
    prose.write_text("*change.txt*\tFor Vim version 9.0.\n\n\t\tVIM REFERENCE MANUAL\n\n"
                     "This file describes commands that delete or change text.  In this\n"
                     "context, changing text means deleting it and replacing it.\n")
    doc = extract(prose)
    assert (doc.title, [h.title for h in doc.outline]) == ("change", ["change"])
    other = tmp_path / "notes.txt"  # starts with a star, is not Vim help
    other.write_text("*important* notes\n=================\n\nText.\n")
    assert extract(other).headings == "rst"


def test_pdf_bookmarks_become_sections(tmp_path: Path):
    doc = extract(b.outlined_pdf(tmp_path))
    assert doc.headings == "outline"
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Kettle manual"), (2, "Care"), (3, "Descaling"), (2, "Warranty")]  # not "Figure 1"
    assert [doc.text[h.start : h.end] for h in doc.outline] == [
        "Kettle manual", "1 Care", "1.1 Descaling", "2 Warranty"]
    by_content = {c.content: c for c in chunk_document(doc)}
    descale = next(c for c in by_content.values() if "citric acid" in c.content)
    assert descale.section == "Kettle manual > Care > Descaling"
    assert descale.text.startswith("[Kettle manual > Care > Descaling]\n")
    assert locate(doc, descale.start, descale.end).fragment == "#page=2"
    warranty = next(c for c in by_content.values() if "twenty-four" in c.content)
    assert warranty.section == "Kettle manual > Warranty"


def test_pdf_in_one_font_size_has_no_sections(tmp_path: Path):
    doc = extract(b.two_column_pdf(tmp_path))  # no bookmarks, all body text
    assert doc.headings == "none" and doc.outline == ()


def test_pdf_without_bookmarks_takes_its_sections_from_font_sizes(tmp_path: Path):
    doc = extract(b.sized_pdf(tmp_path))
    assert doc.headings == "outline"
    # one level per size, largest first; the wrapped heading is one; the contents line
    # (13 pt, dot leaders) and the 14 pt running header (page furniture) are none
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Pump station handbook"), (2, "Intake and screening of river water"),
        (3, "Screens"), (2, "Maintenance")]
    assert [doc.text[h.start : h.end] for h in doc.outline][1] == (
        "Intake and screening\nof river water")
    assert b.SIZED_RUNNING_HEADER not in doc.text
    chunks = chunk_document(doc)
    assert "".join(c.content for c in chunks).count("Contents . . .") == 1  # kept as text
    rake = next(c for c in chunks if "screen rake" in c.content)
    assert rake.section == "Pump station handbook > Intake and screening of river water > Screens"
    assert rake.text.startswith(f"[{rake.section}]\n")
    grease = next(c for c in chunks if "pump bearings" in c.content)
    assert grease.section == "Pump station handbook > Maintenance"
    assert locate(doc, grease.start, grease.end).fragment == "#page=2"
    diesel = next(c for c in chunks if "standby diesel" in c.content)  # page 3, same section
    assert diesel.section == "Pump station handbook > Maintenance"


def test_pdf_font_size_counts_the_scale_text_is_drawn_at(tmp_path: Path):
    doc = extract(b.scaled_heading_pdf(tmp_path))  # 11 pt x 1.6 over 11 pt body text
    assert [(h.level, h.title) for h in doc.outline] == [(1, "Tide tables")]


def line(text: str, size: float, bold: bool = False, tabular: bool = False) -> pdfmod.Line:
    return pdfmod.Line(text, size, -1, bold, tabular)


def test_a_deck_is_wide_pages_with_little_text():
    slide = [line("Start times", 44.0), line("Each program has up to four start times.", 28.0)]
    report = [line("Plain text set at the body size, long enough to be the body.", 11.0)] * 30
    assert pdfmod.is_slide_deck([slide] * 3, [16 / 9] * 3)
    assert not pdfmod.is_slide_deck([slide] * 2, [16 / 9] * 2)  # too few to tell
    assert not pdfmod.is_slide_deck([slide] * 3, [210 / 297] * 3)  # portrait pages
    assert not pdfmod.is_slide_deck([report] * 3, [297 / 210] * 3)  # a report in landscape
    # an empty page does not count; one portrait page in ten is still a deck
    assert pdfmod.is_slide_deck([slide] * 9 + [slide, []], [4 / 3] * 9 + [0.7, 0.7])


def test_slide_titles_stand_out_from_their_own_slide():
    """A deck's text shrinks to fit each slide: a title is larger than its own slide's
    other text, whatever the deck's commonest size is."""
    nav = line("Daily checks", 6.0)
    bullets = [line("Look for drips at the seal every morning.", 10.9)] * 3
    assert pdfmod.slide_title([nav, line("Inspecting the seals", 14.3)] + bullets, 10.9) == (
        "Inspecting the seals", False)
    # the title wraps onto two lines; the 96 pt figure below it is no title
    stat = [line("The sports field", 44.0), line("dominates", 44.0), line("63%", 96.0),
            line("of all water used in 2026 went to the sports field's sprinklers.", 20.0)]
    assert pdfmod.slide_title(stat, 18.0) == ("The sports field dominates", False)
    # a divider: a title and at most one short line; an agenda's list is no divider
    assert pdfmod.slide_title([line("LEAK FINDINGS", 40.0)], 18.0) == ("LEAK FINDINGS", True)
    assert pdfmod.slide_title([line("CONSUMPTION", 40.0), line("Part 1", 20.0)], 18.0) == (
        "CONSUMPTION", True)
    agenda = [line("Agenda", 44.0)] + [line(t, 32.0) for t in ("Sites", "Leaks", "Targets")]
    assert pdfmod.slide_title(agenda, 18.0) == ("Agenda", False)
    # no title: text in one size, a first line no larger than the rest, four lines of it
    assert pdfmod.slide_title(bullets, 10.9) is None
    assert pdfmod.slide_title([line("Note:", 11.0)] + bullets, 10.9) is None
    assert pdfmod.slide_title([line("Big", 30.0)] * 4 + bullets, 10.9) is None
    assert pdfmod.slide_title([line("Quiet closing words", 12.0)], 18.0) is None


def test_slide_headings_nest_slides_under_their_dividers():
    title = [line("Water Budget Review", 44.0), line("Facilities team", 32.0)]
    agenda = [line("Agenda", 44.0), line("Sites", 32.0), line("Leaks", 32.0)]
    divider = [line("LEAK FINDINGS", 40.0)]
    content = [line("Depot leaks", 44.0), line("A cracked fitting under the wash bay.", 28.0)]
    untitled = [line("Night readings are taken at 02:00 when no fixture runs.", 18.0)]
    pages = [title, agenda, divider, content, untitled, []]
    assert pdfmod.slide_headings(pages) == [
        (1, 1, "Water Budget Review"), (2, 2, "Agenda"), (3, 1, "LEAK FINDINGS"),
        (4, 2, "Depot leaks")]
    # without a divider every slide's title is one level
    assert pdfmod.slide_headings([title, agenda, content]) == [
        (1, 1, "Water Budget Review"), (2, 1, "Agenda"), (3, 1, "Depot leaks")]
    # a slide with one bullet point, or one sentence, under its title is no divider
    for rest in ("• Fixed", "Fixed on 3 February."):
        one = [line("Depot leaks", 44.0), line(rest, 28.0)]
        assert pdfmod.slide_headings([title, agenda, one])[-1] == (3, 1, "Depot leaks")
    # when most slides look like dividers, none is: a deck of one-line slides is flat
    short = [[line(f"Idea {n}", 44.0), line(f"Team {n}", 28.0)] for n in range(4)]
    assert {lv for _, lv, _ in pdfmod.slide_headings([title, *short])} == {1}


def test_font_headings_need_a_body_size_to_stand_out_from():
    body = [line("Plain text set at the body size, long enough to be the body.", 11.0)] * 3
    title = [line("Annual report", 20.0)]
    assert pdfmod.font_headings([title + body]) == [(1, 1, "Annual report")]
    # a page of large print only (a poster, a slide of titles): no body, no headings
    slide = [line("Quarterly results", 28.0), line("Revenue up four percent", 24.0),
             line("Costs flat", 24.0), line("Small print", 11.0)]
    assert pdfmod.font_headings([slide]) == []
    # too long to be a title; more lines than a heading wraps onto
    assert pdfmod.font_headings([[line("A " * 70, 16.0)] + body * 20]) == []
    tall = [line(f"Line {i} of a large quote", 16.0) for i in range(4)]
    assert pdfmod.font_headings([tall + body * 20]) == []
    assert pdfmod.font_headings([tall[:3] + body * 20]) == [
        (1, 1, "Line 0 of a large quote Line 1 of a large quote Line 2 of a large quote")]


def test_pdf_latex_numbered_headings_tables_and_captions(tmp_path: Path):
    """LaTeX sets a quad between a section's number and its title, wider than a table's
    column gap; that gap after a leading number does not make the line a table row.
    A line of prose whose command names are bold is not wholly bold: not a heading."""
    doc = extract(b.latex_numbered_pdf(tmp_path))
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "1 Inspections"), (2, "1.1 Gate seals"), (1, "2 Repairs")]
    # the table's rows keep their column gap (one paragraph each); the bold caption
    # is not a heading, so the text under it stays in "Gate seals"
    assert "\n\nGate Last inspected\n\nNorth 2026-03-02\n\nSouth 2026-03-09\n\n" in doc.text
    after = next(c for c in chunk_document(doc) if "Figure 2: Seal wear" in c.content)
    assert after.section == "sluice > 1 Inspections > 1.1 Gate seals"


def test_captions_and_admonition_labels_are_not_headings():
    body = [line("Plain text set at the body size, long enough to be the body.", 11.0)] * 6
    lines = [line("Figure 2-5: Scaling and translating", 11.0, bold=True), *body,
             line("Table 4.7. Account tree", 13.0), *body, line("Figures and tables", 13.0), *body,
             line("Note", 11.0, bold=True), *body, line("Warning:", 11.0, bold=True), *body,
             line("Example 11.1. Quotes every Friday", 11.0, bold=True), *body,
             line("Example 2", 11.0, bold=True), *body]
    assert pdfmod.font_headings([lines]) == [(1, 1, "Figures and tables"), (1, 2, "Example 2")]
    text = ("Ordinary text at the body size. " * 4, [(128, 11.0, False)])
    assert docx_formatted_levels([("Figure 3: Pump curve", [(20, 11.0, True)]), text,
                                  ("Fig. 4 \u2013 valves", [(15, 11.0, True)]), text,
                                  ("Tip", [(3, 11.0, True)]), text, ("Valves", [(6, 11.0, True)]),
                                  text]) == [None, None, None, None, None, None, 1, None]


def test_font_headings_a_size_on_one_inner_page_of_a_long_document_is_not_a_level():
    body = [line("Plain text set at the body size, long enough to be the body.", 11.0)] * 12
    pages = [[line("Vector graphics manual", 24.0), *body]]
    pages += [[line(f"Chapter {n}", 16.0), *body] if n % 3 == 0 else list(body) for n in range(1, 12)]
    pages[5] = [line("A", 60.0), line("symptote", 22.0), *body]  # a logo drawn on page 6
    assert [(lv, t) for _, lv, t in pdfmod.font_headings(pages)] == [
        (1, "Vector graphics manual"), (2, "Chapter 3"), (2, "Chapter 6"), (2, "Chapter 9")]
    # in a short document one heading of its size on one page is common: it stays
    assert [t for _, _, t in pdfmod.font_headings(pages[:2] + pages[5:7])] == [
        "Vector graphics manual", "A", "symptote", "Chapter 6"]


def test_font_headings_a_numbered_line_starts_a_heading_of_its_own():
    body = [line("Plain text set at the body size, long enough to be the body.", 11.0)] * 20
    # an empty section's title right above the next one (its syntax diagram was a picture)
    stacked = [line("1. Syntax", 16.0), line("2. The CREATE TABLE command", 16.0)]
    assert pdfmod.font_headings([stacked + body]) == [
        (1, 1, "1. Syntax"), (1, 1, "2. The CREATE TABLE command")]
    numbered = [line("4.5 The -> and ->> operators", 16.0), line("4.6 Paths", 16.0)]
    assert [t for _, _, t in pdfmod.font_headings([numbered + body])] == [
        "4.5 The -> and ->> operators", "4.6 Paths"]
    # a wrapped title whose second line starts with a plain number stays one heading
    wrapped = [line("Results for the fiscal year", 16.0), line("2024 and the outlook", 16.0)]
    assert [t for _, _, t in pdfmod.font_headings([wrapped + body])] == [
        "Results for the fiscal year 2024 and the outlook"]


def test_font_headings_bold_at_the_body_size_is_the_lowest_level():
    body = [line("Plain text set at the body size, long enough to be the body.", 11.0)] * 6
    lines = [line("Manual", 18.0), *body, line("Installing", 14.0), *body,
             line("On Debian", 11.0, bold=True), *body,
             line("Always unplug the unit first.", 11.0, bold=True),  # a bold sentence
             line("Part  Price  Stock", 11.0, bold=True, tabular=True),  # a table's header row
             *body]
    assert pdfmod.font_headings([lines]) == [
        (1, 1, "Manual"), (1, 2, "Installing"), (1, 3, "On Debian")]
    # PDFium's weights, relative to the body's: 380 over 225 is bold (Chrome's exports)
    weighted = [pdfmod.Line(t.text, t.size, 225, False, False) for t in body]
    heading = pdfmod.Line("Configuration", 11.0, 380, False, False)
    assert pdfmod.font_headings([weighted + [heading] + weighted]) == [(1, 1, "Configuration")]


def test_a_pdf_without_a_title_is_titled_by_the_large_print_atop_its_first_page(tmp_path: Path):
    """Texinfo and LibreOffice leave /Title empty (eval/bashref's manual was titled
    "bashref"): the title is the largest print above the first page's text, its two lines
    one title; the small print above it and the author's line under it are no part of it.
    Without print larger than the text, the file's name is the title still."""
    b.title_page_pdf(tmp_path, "pilots.pdf", [(8, "Port of Haldor, internal"),
                                              (20, "Harbour pilot handbook"),
                                              (20, "for the winter season"),
                                              (12, "Marta Lindqvist, harbour master")])
    b.title_page_pdf(tmp_path, "tide-notes.pdf", [(10, "Notes on the April tides")])
    doc = extract(tmp_path / "pilots.pdf")
    assert doc.title == "Harbour pilot handbook for the winter season"
    assert extract(tmp_path / "tide-notes.pdf").title == "tide-notes"


def test_a_pdf_s_title_page_after_a_cover_that_ocr_reads_titles_it(tmp_path: Path):
    """A cover that is an image (debmake-doc's is the Debian logo) is read by OCR, with no
    print sizes: the title is the next page's, the title page."""
    b.title_page_pdf(tmp_path, "pilots.pdf", [(20, "Harbour pilot handbook")], cover=True)
    doc = extract(tmp_path / "pilots.pdf")
    assert doc.regions[0].confidence is not None  # the cover's text is OCR's
    assert doc.title == "Harbour pilot handbook"


@pytest.mark.parametrize(("head", "tail"), [
    ([(24, "12 March 2026")], []),  # a date line, set larger than anything
    ([(24, "Page 1 of 2")], []),
    ([(24, "Contents")], []),  # a contents page, the first with text
    ([], [(28, "HALDOR")]),  # a logo's lettering, under the text
    ([(14, "1 Pilotage")], [(14, "2 Towage")]),  # a section's heading, with its peer
    ([(16, "Pilots board inbound vessels at the fairway buoy, two miles off.")] * 4, []),
    ([(10, "Pilot handbook, draft")], [(24, "Harbour pilot handbook")]),  # under the text
])
def test_large_print_that_is_no_title_leaves_the_file_name(tmp_path: Path, head: list[tuple[float, str]],
                                                         tail: list[tuple[float, str]]):
    """What the first page sets large but is no title (see pdf.page_title): the file's
    name is the title. The same page with a title atop it is titled by it."""
    b.title_page_pdf(tmp_path, "pilots.pdf", head, tail=tail)
    assert extract(tmp_path / "pilots.pdf").title == "pilots"
    b.title_page_pdf(tmp_path, "titled.pdf", [(20, "Harbour pilot handbook"), *head], tail=tail)
    assert extract(tmp_path / "titled.pdf").title == "Harbour pilot handbook"


def test_a_print_job_s_title_is_the_file_name_its_author_typed(tmp_path: Path):
    """Word printed to a PDF printer: /Title is the print job's name, "Microsoft Word - "
    and the file's name. The name the author typed is the title, ahead of the PDF's own
    file name; a title the first page shows comes first, as the author set it there."""
    b.titled_pdf(tmp_path, "scan0042.pdf", "Microsoft Word - Q3 draft.docx",
                 "Sales rose in every region but the north.")
    assert extract(tmp_path / "scan0042.pdf").title == "Q3 draft"
    b.title_page_pdf(tmp_path, "scan0043.pdf", [(20, "Third quarter results")],
                     title="Microsoft Word - Q3 draft.docx")
    assert extract(tmp_path / "scan0043.pdf").title == "Third quarter results"


def test_a_proper_pdf_title_is_kept_and_a_placeholder_is_not(tmp_path: Path):
    """A /Title is the document's title unless it names nothing: a placeholder, or the
    file's own name again; then the title the page shows is (the same page each time)."""
    cases = {"Harbour pilot handbook, 2026 edition": "Harbour pilot handbook, 2026 edition",
             "Untitled-1": "Welcome aboard", "Slide 1": "Welcome aboard",
             "Microsoft Word - Document1": "Welcome aboard",
             "pilots.dvi": "Welcome aboard",  # dvips's %%Title: the PDF's own name again
             "PILOTS": "Welcome aboard"}
    for title, want in cases.items():
        b.title_page_pdf(tmp_path, "pilots.pdf", [(20, "Welcome aboard")], title=title)
        assert extract(tmp_path / "pilots.pdf").title == want, title


def test_what_a_pdf_s_title_names():
    """pdf.metadata_title: (the author's title, the name of the file the PDF was made from)."""
    cases = {
        ("Microsoft Word - Q3 draft v2.docx", "q3"): (None, "Q3 draft v2"),
        ("Microsoft PowerPoint - deck.pptx", "x"): (None, "deck"),
        ("Microsoft Excel - Budget 2026", "x"): (None, "Budget 2026"),  # suffixes hidden
        ("notes.html", "x"): (None, "notes"),  # Chromium: a page without <title>
        ("report.dvi", "report"): (None, None),
        ("main.tex", "main"): (None, None),
        ("01-about", "01-about"): (None, None),  # pdf_headings.py: <title> was the file's name
        ("Q3_draft", "q3-draft"): (None, None),
        ("untitled", "x"): (None, None), ("Untitled document", "x"): (None, None),
        ("Untitled-2", "x"): (None, None), ("PowerPoint Presentation", "x"): (None, None),
        ("Microsoft Word - Document1", "x"): (None, None),
        ("  ", "x"): (None, None),
        ("Untitled: a harbour poem", "x"): ("Untitled: a harbour poem", None),
        ("Slides 1-4 of the course", "x"): ("Slides 1-4 of the course", None),
        ("Guide for Debian Maintainers", "debmake-doc.en"): ("Guide for Debian Maintainers", None),
    }
    for (title, stem), want in cases.items():
        assert pdfmod.metadata_title(title, stem) == want, title
    import doctest

    assert doctest.testmod(pdfmod).failed == 0  # the docstrings' worked examples


def test_a_bookmark_titles_a_pdf_whose_first_page_sets_nothing_large(tmp_path: Path):
    """The first bookmark, to a line of page 1 at the outline's top level, is the title
    when the page sets no title large; a numbered one is a section's heading."""
    b.title_page_pdf(tmp_path, "rules.pdf", [(10, "Harbour rules")], bookmark="Harbour rules")
    assert extract(tmp_path / "rules.pdf").title == "Harbour rules"
    b.title_page_pdf(tmp_path, "intro.pdf", [(10, "1. Introduction")], bookmark="1. Introduction")
    assert extract(tmp_path / "intro.pdf").title == "intro"


def test_a_pdf_title_that_is_not_utf16_or_holds_a_nul(tmp_path: Path):
    """A Title with a lone UTF-16 surrogate failed the PDF ("extractor crashed"): the file
    name is the title then. A NUL in a Title is dropped by the pipeline (tested on both
    stores in tests/postgres); the extractor gives it as it is."""
    b.titled_pdf(tmp_path, "surr.pdf", b"\xfe\xff\x00A\xd8\x00\x00B",
                 "Penguins huddle together to keep warm in winter.")
    doc = extract(tmp_path / "surr.pdf")
    assert doc.title == "surr" and "Penguins huddle" in doc.text


def test_a_wide_sheet_s_header_is_cut_so_its_rows_still_fit_the_window(tmp_path: Path, embedder):
    """A 100-column header repeated in every chunk's embedded text filled the encoder window
    alone: each chunk was halved down to single words (398 chunks over the window for a
    1.6 KB file, 90 s). The repeated header is cut at a cell; the rows are whole."""
    from citeline.chunk import HEADER_CONTEXT_CHARS, ChunkConfig

    path = tmp_path / "wide.csv"
    header = [f"column_{i}" for i in range(100)]
    rows = [[f"r{r}c{i}" for i in range(100)] for r in range(3)]
    path.write_text("\n".join(",".join(x) for x in [header, *rows]) + "\n")
    doc = extract(path)
    calls: list[int] = []

    def count(texts):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return embedder.count_tokens(texts)

    chunks = chunk_document(doc, ChunkConfig(), count)
    assert len(calls) < 60, len(calls)  # thousands of tokenizer calls before
    assert all(n <= 256 for n in embedder.count_tokens([c.text for c in chunks]))
    head = chunks[0].text.split("\n")[1]
    assert len(head) <= HEADER_CONTEXT_CHARS and head.endswith(" | …")
    assert head.startswith("column_0 | column_1 | ") and " | ".join(header).startswith(head[:-4])
    # ~900 characters (~450 word pieces) a row: a few pieces each, not one per word
    assert len(chunks) <= 24 and min(len(c.content) for c in chunks) >= 100, \
        [len(c.content) for c in chunks]
    assert all(c.text.startswith(f"[wide > wide]\n{head}\n") for c in chunks)
    for c in chunks:  # every piece still cites its own row's cells
        assert c.content == doc.text[c.start:c.end]


MDX_PAGE = """---
title: Deploying to a static host
sidebar_position: 3
---

import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

Build the site once, then copy `build/` to the host.

## Building

<Tabs>
<TabItem value="npm">

```bash
npm run build
```

</TabItem>
<TabItem value="yarn">

```bash
yarn build
```

</TabItem>
</Tabs>

:::tip

Run `npm run serve` to check the build before you deploy it.

:::

## Rolling back

Keep the previous `build/` folder: copying it back is the rollback.
"""


@pytest.mark.parametrize("name", ["deploying.mdx", "deploying.qmd", "deploying.Rmd"])
def test_mdx_quarto_and_r_markdown_read_as_markdown_as_written(tmp_path: Path, name: str):
    """A Docusaurus page (MDX: Markdown with JSX), a Quarto or R Markdown document: the
    file as written is the text (an import line, a <Tabs> tag quoted as they are, as a
    LaTeX source's markup is), its sections Markdown's, its title its front matter's."""
    path = tmp_path / name
    path.write_text(MDX_PAGE)
    doc = extract(path)
    assert (doc.text, doc.title, doc.headings) == (MDX_PAGE, "Deploying to a static host",
                                                   "markdown")
    chunks = chunk_document(doc)
    assert [c.section for c in chunks] == [
        "Deploying to a static host", "Deploying to a static host > Building",
        "Deploying to a static host > Rolling back"]
    assert chunks[1].content.startswith('## Building\n\n<Tabs>\n<TabItem value="npm">')
    assert doc.media_type == ("text/mdx" if name.endswith(".mdx") else "text/markdown")
