"""PDF, with PDFium (pypdfium2, Apache-2.0/BSD): text page by page, page map kept.

Canonical text = every page's text, in page order, joined by a blank line;
inside a page, a blank line where the layout shows a paragraph (or column)
break, and between the rows of a table (lines with column-wide gaps), so the
chunker packs whole paragraphs and whole rows as it does for Markdown. A row's
cell that wraps keeps its next lines: the lines under a row that start where one
of its columns does, and whose first word would not have fit on the row's line, go
on with that cell. A definition list is such a table (Texinfo's ``@table``, a man
page's tagged paragraphs, a hanging indent: the term, a wide gap, the first line of
its definition, and the definition going on under it), so a definition is one
paragraph, not its first line and the rest.
Each page is a :class:`Region` of kind PAGE, so a chunk's locator lists every
page it touches (``#page=N`` opens the first; a chunk across a page break
records both pages — it never spans one silently).

- **Running headers and footers** — a line at the top (or the bottom) of most pages,
  or of nearly all odd or all even pages (a book's left and right running heads),
  that is the same up to its digits ("Annual report — page 7") — are detected
  and kept out of the canonical text; the document carries a warning naming
  them, so nothing disappears unseen. A line that is only a number is a page
  number only when it counts with the pages (a slide's "2026" is not). A
  chapter's running head, which changes with the chapter (Texinfo's "Chapter 3:
  Basic Shell Features 13", LaTeX's "16 Chapter 2. Setup"), is furniture when it
  is the top (or bottom) line of a run of consecutive pages, or of one side's, with
  the printed page number counting in it (:func:`running_heads`); that number then
  finds a short chapter's lone head and a chapter's first page's bare number. A
  line repeated without a counting number (a heading atop two pages, a table's
  header row on each page it runs over) stays.
- **Pages without a text layer** (scans) go through OCR when it is installed
  (Tesseract via pytesseract: ``pip install 'citeline[ocr]'`` plus Debian's
  ``tesseract-ocr``): the page is rendered to an image and its recognised text
  indexed, with the page's mean word confidence stored on the region and shown
  with every citation from that page. A page under
  :data:`LOW_OCR_CONFIDENCE` is flagged in the document's warnings. Without
  OCR such a page is reported ("page 3 has no text layer; install OCR to index
  it"); a PDF with no text at all fails with that reason. A page with nothing
  drawn on it (a book's empty verso) is blank, not a scan: it is skipped, without
  OCR or a warning.
- **Pictures on a page with text** (a screenshot of a terminal or a form in a
  report, a diagram's labels) are read by OCR as a picture in a Word document is
  (:class:`~citeline.extract.image.PictureReader`), their text after the page's own,
  so it is cited at its page (:func:`_page_pictures`). Not read: a picture whose area
  already holds text of the page's text layer (an OCR'd scan's invisible text, labels
  drawn over a figure), one under an inch wide or a quarter inch high (an icon, a
  bullet, a rule), and one shown on three pages or more and on most of them (a logo
  on every slide: furniture); a picture with no text (a photograph) adds nothing.
  A tagged PDF's figure (Word's "Save as PDF", a browser's) gives its alt text, the
  author's description of a chart or a photograph, before its picture's text
  (:func:`_figures`), unless it says nothing (a file name, ``Picture 3``).
- **Bookmarks** (the outline LaTeX, Word and LibreOffice write) are the document's
  headings: each bookmark's title is looked for as a line of the page it points
  to (a section number may precede it, and "Appendix", "Chapter" or "Part" before
  that: "Appendix A Reporting Bugs"), and the ones found give the chunker its
  sections, so a hit names its section as well as its page. A bookmark whose title
  is not a line of its page (a bookmark to a figure, a title reworded) is left out.
- **Font sizes** make the headings of a PDF without bookmarks (what most exports
  from web pages, slides and simple writers are): the size most of the text is set
  in is the body's; a line of at most :data:`HEADING_MAX_CHARS` set at least
  :data:`HEADING_SIZE_RATIO` times larger is a heading, one level per distinct size,
  the largest first (in a document of :data:`ONE_PAGE_SIZE_MIN_PAGES` pages or more,
  a size found on one page only, not the first, is a figure's lettering or a logo,
  not a level), and a line set wholly in bold at the body's size that does not end
  like a sentence, with text after it, is a level below those (a wrapped heading's
  lines are one heading, but a line that starts with a section number such as
  ``2.`` or ``2.1`` starts a heading of its own: an empty section's title stands
  right above the next one; a table-of-contents line with dot leaders, a table
  row, a caption such as ``Figure 2-5: Scaling`` or an admonition's ``Note`` is
  not one). A document whose large print is more than ``HEADING_MAX_SHARE``
  of its text has no body size to tell headings from, and stays one section (the
  levels rule is shared with Word: :func:`citeline.extract.blocks.heading_levels`).
- **Slide decks** (PowerPoint, Impress, Keynote, Google Slides, Beamer: wide pages
  holding little text, :func:`is_slide_deck`) are sectioned by their slides: a
  slide's title is its first lines when set larger than the rest of that slide
  (a deck has no one body size: its text shrinks to fit each slide), and the
  slides after a section divider (a slide that is all title) nest under it. This
  reading wins over a deck's bookmarks, which are its slide titles again, flat
  (Impress), or sections whose titles are lines of a navigation bar (Beamer).
- **Filled-in forms and annotations**: what a viewer draws over the page (a form
  field's value, a free-text or typewriter note, a stamp) is text of the page; it
  comes after the page's own text (a field's value is not beside its label).
- **The title** is the first of these that gives one (:meth:`PdfExtractor._title`):
  1. the /Title its author set: Word's title property, LaTeX's ``\\title`` through hyperref,
     an HTML page's <title>; not one that names nothing (a placeholder, "Untitled",
     "Slide 1", "Microsoft Word - Document1"; the PDF's own file name again, "report.dvi" on
     report.pdf, "01-about" on 01-about.pdf), nor a file's name (below);
  2. the title the first page with text shows (:func:`page_title`; the next page's when
     that one's text is OCR's, a cover that is an image): a deck's first slide's
     title; else the largest print set above the page's text, at least
     :data:`HEADING_SIZE_RATIO` times the body's size, its lines in one size one title
     (bashref.pdf's "Bash Reference Manual"), never a running head (page furniture), a
     date line, a page number or lettering under the text (a logo's), nor a heading set
     again in its size on the page (a section's, with its peers). Before the bookmark, as
     it is what the reader sees as the title: a first bookmark on page 1 is as often the
     first section's ("1. Introduction" under shared-mime-info-spec.pdf's title);
  3. the first bookmark, when it points to a line of the first page with text, at the top
     level and with no section number (:func:`bookmark_title`): a title the author made a
     heading without setting it large;
  4. the name of the file the PDF was made from, when the /Title is one: a print job's,
     "Microsoft Word - Q3 draft v2.docx" -> "Q3 draft v2" (:func:`metadata_title`), or a
     converter's, "notes.html". After the page's title, as it is a file name, but before
     the PDF's own, which a download or a scanner's numbering may have renamed;
  5. the PDF's file name.
- **Encrypted or corrupt files** fail with PDFium's reason in plain words.

Text is PDFium's, in content-stream order (which is reading order for what
word processors and LaTeX write, columns included); the layout (paragraph
spacing, column gaps) is read as a viewer shows the page, turned by its
``/Rotate`` (:func:`shown_box`); a hyphen PDFium marks as
a line-end hyphen is kept as printed (``-`` plus the line break), so the
quote matches what a reader sees on the page.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import re
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.blocks import (
    HEADING_MAX_CHARS,
    HEADING_SIZE_RATIO,
    LETTER,
    LOW_OCR_CONFIDENCE,
    SENTENCE_END,
    TextBuilder,
    body_size,
    described,
    heading_levels,
    metadata_title,
    names_no_section,
)
from citeline.extract.image import PictureReader
from citeline.extract.ocr import mean_confidence, ocr_status, read_upright, turned_warning
from citeline.types import Document, Heading, Region, RegionKind, consecutive

# A header/footer sits in the first or last lines of a page; two covers a
# running title plus a page-number line.
EDGE_LINES = 2
# "Most pages": a line is page furniture when it repeats (digits aside) at the
# edge of at least half of the pages with text ...
FURNITURE_SHARE = 0.5
# ... and on at least three of them, so a two-page letter whose pages both
# start with the same salutation keeps it.
FURNITURE_MIN_PAGES = 3
# A book's left and right pages carry different running heads (the book's title,
# the chapter's), each on half of the pages: a line on this share of the odd pages,
# or of the even ones, is furniture too (a chapter's first page has no head; a
# share as low as the one above would take a code listing's closing tag that
# happens to fall at three page ends).
FURNITURE_SIDE_SHARE = 0.8
# Furniture never takes more than this share of a document's lines: beyond it the
# repeated lines are what the pages say (a short form per page, its labels on each).
FURNITURE_MAX_SHARE = 2 / 3
# A bare page number has at most this many digits; a longer one is a figure.
_PAGE_NUMBER_DIGITS = 5
# A chapter's running head (Texinfo's "Chapter 3: Basic Shell Features 13", LaTeX's
# "2.1. SETUP 17") changes from chapter to chapter, so no one line is on half of the
# pages: a line is furniture too when its key is the edge line of this many consecutive
# pages (or pages of one side, for a book's left and right heads) and it holds a
# number that counts with the pages at every step, the printed page number. Three, as
# bashref.pdf's shortest run of one head is 3 pages (chapter 7) and two counting lines
# at the top of two pages is something a text prints ("Step 3", "Step 4"); a line
# without such a number (a heading atop two pages, a table's header row repeated on
# each page it runs over, "(continued from previous page)") is never taken by this rule.
FURNITURE_RUN_PAGES = 3
# Lines the runs' printed page number dates are furniture too, wherever the document
# has running heads at that edge on at least FURNITURE_SHARE of its pages: a chapter
# of one or two pages ("Chapter 1: Introduction 2") has its head on no run, and a
# chapter's first page carries its printed number alone ("167"); both end or are the
# number the heads put on that page. A run's head is at most this long (Texinfo's
# longest in bashref.pdf, "Appendix B: Major Differences From The Bourne Shell 169",
# is 56 characters), so a long sentence ending in the same number stays.
RUNNING_HEAD_MAX_CHARS = 120
# Bookmarks deeper than this are rare and too fine for a heading path (a
# figure or a paragraph); the outline's first levels are the sections.
OUTLINE_DEPTH = 6
# Headings from font sizes (PDFs without bookmarks; the size rules are in blocks.py):
# a heading wraps onto at most this many lines; longer runs of large print are prose.
HEADING_MAX_LINES = 3
# In a document of this many pages, a size found on one page only (not the first) is
# a figure's lettering or a logo, not a heading level.
ONE_PAGE_SIZE_MIN_PAGES = 10
# At most this many characters of a line, spread over it, have their size read
# (PDFium answers for one character per call).
SIZE_SAMPLES = 7
# A font is bold when its name says so, or when PDFium gives it a weight this much
# above the body text's (weights are the font's own numbers: 380 over 225 in
# Chrome's exports, 545 over 345 in TeX's; not always 700 over 400).
BOLD_WEIGHT_STEP = 100
_BOLD_FONT = re.compile(r"bold|black|heavy|demi|cmbx", re.I)
# A table of contents line: the title, dot leaders, the page number.
_LEADERS = re.compile(r"(?:\.\s?){4,}")
# A heading line that starts with its section number ("2. Transactions", "4.5 JSON")
# is a new heading, not the wrapped end of the one above it.
_NUMBERED = re.compile(r"\d+(?:\.\d+)+\.?\s|\d+\.\s")
# A line's leading section number or list label, alone ("2.1", "A", "IV.", "3.")
_LABEL = re.compile(r"(?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*\.?")
_LEADING_LABEL = re.compile(rf"\s*{_LABEL.pattern}(?= )")
# Before a bookmark's title on its line: a section number ("2.1", "A.3", "IV."), or
# the word LaTeX, Texinfo and DocBook print before a chapter's or an appendix's
# number ("Appendix A Reporting Bugs", "Chapter 3. Setup", "Part II"; with the number
# in the bookmark, "A Copying Information", as libtasn1's Texinfo writes it), the two
# on a line of their own above the title as LaTeX and dblatex set them ("Chapter 1\n\nOverview")
_SECTION_NUMBER = (rf"(?:(?:appendix|chapter|part)[ \t]+(?:{_LABEL.pattern}\s+)?"
                   rf"|{_LABEL.pattern}[ \t]+)?")

# Slide decks (PowerPoint, Impress, Keynote, Google Slides and Beamer exports): a page
# at least this much wider than tall is a slide (4:3 is 1.33, 16:9 1.78) ...
SLIDE_ASPECT = 1.25
# ... and a deck is at least this many pages, nearly all of them slides ...
SLIDE_MIN_PAGES = 3
SLIDE_PAGE_SHARE = 0.8
# ... holding little text: a median page of at most this many characters (a report
# printed in landscape holds 2,000 and more).
SLIDE_MAX_CHARS = 1200
# A slide whose text besides its title is at most one line this long, neither a
# bullet point nor a sentence, is a section divider (a title and "Part 2"), which
# the slides after it belong to; an agenda slide's list is not one ...
DIVIDER_MAX_CHARS = 60
# ... and when more than this share of a deck's titled slides look like dividers,
# none is: the deck is one level of short slides.
DIVIDER_MAX_SHARE = 0.5
_BULLET = re.compile(r"[•◦▪▫●○■□▶►‣⁃–—*-]\s")

# The document's title (document_title; the order of the rules is in the module doc).
# The title is looked for on the first page with text, or on the second when the first
# has no text layer (a cover OCR read).
TITLE_PAGES = 2
# Large print on a first page that is no title: a date line ("September 2022", "May 9,
# 2022", "(December 2020)"; a date in digits alone has no letter, which a title needs) ...
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DATE_LINE = re.compile(rf"\(?(?:\d{{1,2}}\.?\s+{_MONTH}|{_MONTH}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?,?)?)"
                        rf"\s+\d{{4}}\)?", re.I)
# ... a page number in words ("Page 3", "Page 3 of 12") ...
_PAGE_LINE = re.compile(r"(?:page|p\.)\s*\d+(?:\s*(?:of|/)\s*\d+)?", re.I)
# ... and a table of contents' heading, when that page is the first with text
# (debmake-doc.zh-tw.pdf's title page has no text layer; its contents page is "Contents").
_CONTENTS = re.compile(r"(?:table of )?contents", re.I)
# The page's text starts at a line with a word in it, not at an ornament font's letters
# (glpk.pdf's cover has its corners drawn as "M L" and "J K" in 12 pt, a size up from the body).
_WORD = re.compile(r"[^\W\d_]{2}")
# A title's footnote mark, LaTeX's \thanks ("MPICH Installer's Guide*"), is no part of it.
_THANKS = re.compile(r"\s*[*\u2217\u2020\u2021]+$")
# A bookmark whose title starts with a section number ("1. Introduction") is a section's.
_NUMBER_FIRST = re.compile(r"\d+(?:\.\d+)*\.?\s")

# A baseline gap over 1.3 line pitches is paragraph spacing: word processors add
# 30-100% of a line between paragraphs, while line spacing inside one varies by
# a few percent.
PARAGRAPH_GAP = 1.3
# A gap wider than 1.2 font heights between two words is a table column: word
# spaces are ~0.25 em, and even justified prose rarely stretches one past 0.8 em.
COLUMN_GAP_EM = 1.2
# A line under a table row that starts within 0.3 font heights of where one of the row's
# columns does goes on with that cell (a wrapped cell, a definition under its term):
# the lines of a cell or a hanging indent start at one x, up to a glyph's side bearing,
# while a paragraph's first-line indent is 1 em or more.
CELL_ALIGN_EM = 0.3
# 300 dpi is Tesseract's recommended input resolution; lower loses small print.
OCR_DPI = 300

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufeff\ufffd]")
_TRAILING_WS = re.compile(r"[ \t]+\n")
_BLANK_RUN = re.compile(r"\n{3,}")
_DIGITS = re.compile(r"\d+")
# A front matter's page number in lower-case roman numerals ("iv"), up to 39
_ROMAN = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10}
_WS = re.compile(r"\s+")
# PDFium's load errors, "Failed to load document (PDFium: <reason>).", in plain words.
_PDFIUM_REASONS = {
    "data format error": "not a readable PDF: the file is corrupt or not a PDF",
    "incorrect password error": "the PDF is encrypted with a password; remove the password to index it",
    "unsupported security scheme": "the PDF is encrypted with a security scheme PDFium does not support",
    "file access error": "the file could not be opened",
    "page not found or content error": "the PDF's page tree is damaged",
    # what PDFium says of a PDF whose page tree holds no page ("/Count 0")
    "success": "the PDF has no pages (or its page tree cannot be read)",
}


# PDFium says "data format error" of any file it cannot parse; the file's first and
# last bytes tell the usual cases apart. A PDF's header is in its first 1024 bytes
# (where Acrobat looks for it: the PDF Reference 1.7, appendix H) ...
PDF_HEADER_WITHIN = 1024
# ... and it ends with "%%EOF" and at most a line end or some padding after it.
PDF_EOF_WITHIN = 1024
# Files saved under a .pdf name that are something else (a link that answered with a
# login or error page, an archive or a Word file behind a download button).
_NOT_PDF = (
    (re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:<!doctype html|<html|<head|<body|<!--)", re.I),
     "an HTML page (a link that answered with a web page: a login, an error or a "
     "viewer page); download the PDF itself"),
    (re.compile(rb"PK\x03\x04"), "a ZIP archive or an Office document; give it its own suffix"),
    (re.compile(rb"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"),
     "a legacy Office file (.doc, .xls, .ppt); give it its suffix, or save it as PDF"),
    (re.compile(rb"%!PS"), "a PostScript file; convert it with ps2pdf"),
    (re.compile(rb"\x89PNG|\xff\xd8\xff|GIF8|II\*\x00|MM\x00\*"),
     "an image; convert it to PDF (img2pdf) to index it with OCR"),
)


def _why_unreadable(path: Path) -> str:
    """Why PDFium could not parse ``path`` ("data format error"), from its bytes: not a
    PDF at all (and what it is, when its first bytes say), a PDF cut short (no %%EOF at
    its end: an interrupted download or copy), or a damaged one (the plain reason)."""
    with path.open("rb") as f:
        head = f.read(PDF_HEADER_WITHIN)
        f.seek(max(0, path.stat().st_size - PDF_EOF_WITHIN))
        tail = f.read()
    base = _PDFIUM_REASONS["data format error"]
    if b"%PDF-" not in head:
        for magic, what in _NOT_PDF:
            if magic.match(head):
                return f"{base}: it is {what}"
        return f"{base}: it has no %PDF- header in its first {PDF_HEADER_WITHIN} bytes"
    if b"%%EOF" not in tail:
        return (f"{base}: it is cut short (it does not end with %%EOF), as after an "
                "interrupted download or copy; fetch or copy it again")
    return base


# PDFium is not thread-safe (pypdfium2 says so): a server indexing uploads on
# several threads must not call into it concurrently.
_PDFIUM_LOCK = threading.Lock()


def clean_page_text(raw: str) -> str:
    """PDFium page text -> canonical page text (LF line ends, no control characters)."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-\n")
    text = _CONTROL.sub("", text).replace("\t", " ")
    text = _TRAILING_WS.sub("\n", text + "\n")
    return _BLANK_RUN.sub("\n\n", text).strip("\n ")


def column_gaps(textpage: pdfium.PdfTextPage) -> list[bool] | None:
    """For each of PDFium's lines of the page (``get_text_range()`` split at CRLF),
    whether a gap between two of its words is as wide as a table column; None when
    the text's offsets are not the characters' (surrogate pairs)."""
    raw = textpage.get_text_range()
    if len(raw) != textpage.count_chars():
        return None
    rotation = textpage.page.get_rotation()
    out = []
    pos = 0
    for line in raw.split("\r\n"):
        out.append(_has_column_gap(textpage, line, pos, rotation))
        pos += len(line) + 2
    return out


Box = tuple[float, float, float, float]  # left, bottom, right, top


def shown_box(box: Box, rotation: int) -> Box:
    """A box in the page's own coordinates (PDFium's char boxes) -> as a viewer shows
    the page, turned clockwise by its ``/Rotate`` of ``rotation`` degrees (pure).

    The layout rules (baselines go down the page, words go right along a line) read
    shown coordinates: a landscape page stored as a portrait one with ``/Rotate 90``
    (scanners, ps2pdf, "rotate page" in a viewer) has its text drawn upwards in its
    own coordinates, where each line's baseline would be a column of constant x.
    Coordinates are the shown page's up to a shift (the layout only takes
    differences): ``(x, y)`` turned by 90 degrees is ``(y, -x)``.

    >>> shown_box((60.0, 72.0, 74.0, 79.0), 90)
    (72.0, -74.0, 79.0, -60.0)
    """
    left, bottom, right, top = box
    if rotation == 90:
        return bottom, -right, top, -left
    if rotation == 180:
        return -right, -top, -left, -bottom
    if rotation == 270:
        return -top, left, -bottom, right
    return box


def _char_box(textpage: pdfium.PdfTextPage, index: int, rotation: int) -> Box:
    """Character ``index``'s loose box (the font's full height) as the page is shown."""
    return shown_box(textpage.get_charbox(index, loose=True), rotation)


def paragraph_text(textpage: pdfium.PdfTextPage, tabular: list[bool] | None = None) -> str:
    """The page's text with a blank line where a paragraph (or a column) ends.

    PDFium gives lines, not paragraphs. A line whose baseline is further below
    the previous one than :data:`PARAGRAPH_GAP` times the page's usual line
    pitch starts a paragraph, and so does a line *above* the previous one (the
    next column). A table's rows (lines with column gaps) are a paragraph each; a
    row's cell that wraps takes its next lines with it (:func:`_wraps_cell`), as a
    definition list's term and the first line of its definition are a row and the
    definition goes on under it. ``tabular`` is :func:`column_gaps` of the page,
    when the caller has it already.
    """
    raw = textpage.get_text_range()
    if len(raw) != textpage.count_chars():  # surrogate pairs: offsets differ, keep lines only
        return raw
    lines = raw.split("\r\n")
    tabular = tabular if tabular is not None else column_gaps(textpage) or []
    # Each line's first and last visible character: a line PDFium joined across a
    # line-end hyphen starts on one visual line and ends on the next.
    rotation = textpage.page.get_rotation()
    first: list[Box | None] = []
    last: list[Box | None] = []
    starts = []  # each line's offset in the page's text
    pos = 0
    for line in lines:
        seen = [j for j, ch in enumerate(line) if not ch.isspace()]
        first.append(_char_box(textpage, pos + seen[0], rotation) if seen else None)
        last.append(_char_box(textpage, pos + seen[-1], rotation) if seen else None)
        starts.append(pos)
        pos += len(line) + 2
    # A run of two or more lines with column gaps is a table: one paragraph per row,
    # so the chunker packs whole rows instead of cutting at a decimal point.
    row = [
        t and ((i > 0 and tabular[i - 1]) or (i + 1 < len(tabular) and tabular[i + 1]))
        for i, t in enumerate(tabular)
    ]
    gaps = [None if a is None or b is None else a[1] - b[1] for a, b in zip(last, first[1:])]
    pitches = sorted(g for g in gaps if g is not None and g > 0)
    if not pitches:
        return raw
    usual = pitches[(len(pitches) - 1) // 2]  # the lower median: short pages have few gaps
    # the page's text ends at its rightmost line end (too far right only keeps a row apart)
    edge = max(box[2] for box in last if box is not None)
    out = [lines[0]]
    for i, (gap, line) in enumerate(zip(gaps, lines[1:]), start=1):
        if gap is None:
            apart = row[i] or row[i - 1]
        elif gap <= 0 or gap > PARAGRAPH_GAP * usual or row[i]:
            apart = True
        else:  # the line right below a row, at the usual pitch, ends the row unless it
            # goes on with one of its cells
            apart = row[i - 1] and not (last[i - 1] is not None and _wraps_cell(
                textpage, rotation, (lines[i - 1], starts[i - 1]), (line, starts[i]),
                last[i - 1][2], edge))
        if apart:
            out.append("")
        out.append(line)
    return "\n".join(out)


_FIRST_WORD = re.compile(r"[^\s\ufffe]+")


def _wraps_cell(textpage: pdfium.PdfTextPage, rotation: int, row: tuple[str, int],
                below: tuple[str, int], row_end: float, edge: float) -> bool:
    """Whether the line ``below`` a table ``row`` (each a line and its offset in the
    page's text) goes on with one of the row's cells, on a page whose text ends at x
    ``edge``: it starts where one of the row's columns after a gap does (within
    :data:`CELL_ALIGN_EM`), and its first word would not have fit after the row's
    end, ``row_end`` (the row's line was broken there, not ended).

    The caller has checked that the line below is at the usual pitch and not itself a
    row. A definition list (Texinfo's ``@table``, a man page's tagged paragraphs,
    LaTeX's description, a hanging indent) sets its term and the first line of its
    definition as a row ("-m   The maximum resident set size (many systems do not
    honor this") and the definition's next lines under the definition ("limit).");
    a table's wrapped cell does the same. A line starting at the row's left edge is
    the next row or the paragraph after the table; a line where the row left room
    for its first word is a row whose first cells are empty ("3 <= x4 <= 8" under
    "5 <= r3 < +inf   0 <= x3 <= 1"), or a new paragraph: both stay apart.
    """
    line, pos = below
    word = _FIRST_WORD.search(line)
    if word is None:
        return False
    start = _char_box(textpage, pos + word.start(), rotation)
    if row_end + _char_box(textpage, pos + word.end() - 1, rotation)[2] - start[0] <= edge:
        return False
    return any(abs(start[0] - box[0]) <= CELL_ALIGN_EM * (box[3] - box[1])
               for box in _column_starts(textpage, row[0], row[1], rotation))


def find_outline(pdf: pdfium.PdfDocument, text: str, pages: list[Region]) -> tuple[Heading, ...]:
    """The bookmarks whose titles are lines of the pages they point to, as headings
    of ``text`` (levels from the outline's depth, 1 at the top), in text order."""
    spans = {r.page: (r.start, r.end) for r in pages}
    found: dict[int, Heading] = {}
    after: dict[int, int] = {}  # page -> end of the last heading found on it
    try:
        for bm in pdf.get_toc(max_depth=OUTLINE_DEPTH):
            title = " ".join(bm.get_title().split())
            dest = bm.get_dest()
            page = None if dest is None else dest.get_index()
            if not title or page is None or (page + 1) not in spans:
                continue
            m = _find_line(text, title, spans[page + 1], after.get(page + 1), _SECTION_NUMBER)
            if m is None or m.start() in found:
                continue
            found[m.start()] = Heading(m.start(), bm.level + 1, title, m.end())
            after[page + 1] = m.end()
    except pdfium.PdfiumError:
        return ()  # a damaged outline: the text is still good, without sections
    return tuple(found[k] for k in sorted(found))


def _find_line(text: str, title: str, span: tuple[int, int], after: int | None,
               prefix: str = "") -> re.Match[str] | None:
    """``title`` as a whole line (or lines: any spacing between its words) of ``text``
    inside ``span`` (optionally after ``prefix``), first looked for from ``after``."""
    start, end = span
    words = r"\s+".join(re.escape(w) for w in title.split())
    line = re.compile(rf"^[ \t]*{prefix}{words}[ \t]*$", re.M | re.I)
    return (after is not None and line.search(text, after, end)) or line.search(text, start, end)


class Line(NamedTuple):
    """A visible line of a page, as the font-size heading rule reads it."""

    text: str
    size: float  # points, to a tenth, the drawn scale included
    weight: int  # PDFium's font weight, the lightest of its sampled characters' (-1: unknown)
    bold_name: bool  # every sampled character's font name says bold ("LiberationSans-Bold", "CMBX12")
    tabular: bool  # a gap between two words as wide as a table column


def page_lines(textpage: pdfium.PdfTextPage, tabular: list[bool] | None = None) -> list[Line]:
    """Each line of the page that has visible characters, with the size most of them
    are set in (a line is set in one size but for a footnote mark) and whether all of
    them are bold, read from :data:`SIZE_SAMPLES` of them. ``tabular`` is
    :func:`column_gaps` of the page, when the caller has it already."""
    raw = textpage.get_text_range()
    tabular = tabular if tabular is not None else column_gaps(textpage)
    if tabular is None or len(raw) != textpage.count_chars():  # surrogate pairs: offsets differ
        return []
    out = []
    pos = 0
    matrix = pdfium_c.FS_MATRIX()
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    for line, gap in zip(raw.split("\r\n"), tabular, strict=True):
        sizes: Counter[float] = Counter()
        weights: Counter[int] = Counter()
        bold = 0
        seen = [j for j, ch in enumerate(line) if not ch.isspace()]
        n = min(len(seen), SIZE_SAMPLES)
        for j in (seen[k * len(seen) // n] for k in range(n)):
            size = pdfium_c.FPDFText_GetFontSize(textpage.raw, pos + j)
            if pdfium_c.FPDFText_GetMatrix(textpage.raw, pos + j, ctypes.byref(matrix)):
                size *= math.hypot(matrix.b, matrix.d)  # the drawn scale (Tf 1 with Tm 11; a scaled CTM)
            sizes[round(size, 1)] += 1
            weights[pdfium_c.FPDFText_GetFontWeight(textpage.raw, pos + j)] += 1
            got = pdfium_c.FPDFText_GetFontInfo(textpage.raw, pos + j, name, len(name),
                                                ctypes.byref(flags))
            bold += bool(got and _BOLD_FONT.search(name.value.decode("latin-1")))
        if sizes:  # bold only when every sampled character is (not a line of prose
            # with a few words in bold, as manuals set command names)
            out.append(Line(line.strip(), sizes.most_common(1)[0][0], min(weights), bold == n, gap))
        pos += len(line) + 2
    return out


def font_headings(pages: list[list[Line]]) -> list[tuple[int, int, str]]:
    """(page, level, title) of the headings the fonts show (pure; see the module doc).

    ``pages`` holds each page's visible lines, page furniture already left out.
    Consecutive heading lines in one style on one page are one wrapped heading,
    unless a line starts with a section number.
    """
    body = body_size((ln.size, len(ln.text)) for lines in pages for ln in lines)
    if body is None:
        return []
    weights: Counter[int] = Counter()
    for lines in pages:
        weights.update({ln.weight: len(ln.text) for ln in lines if ln.size == body and ln.weight > 0})
    body_weight = weights.most_common(1)[0][0] if weights else 0

    def style(ln: Line) -> float | None:
        """A heading line's style: its size when large, 0.0 for bold at the body's size."""
        if len(ln.text) > HEADING_MAX_CHARS or ln.tabular or names_no_section(ln.text):
            return None
        if ln.size >= HEADING_SIZE_RATIO * body:
            return ln.size
        bold = ln.bold_name or (body_weight > 0 and ln.weight >= body_weight + BOLD_WEIGHT_STEP)
        return 0.0 if bold and ln.size >= body and not SENTENCE_END.search(ln.text) else None

    blocks: list[tuple[int, float | None, list[str]]] = []  # (page, style, lines)
    for number, lines in enumerate(pages, start=1):
        for ln in lines:
            kind = style(ln)
            if kind is not None and blocks and blocks[-1][:2] == (number, kind) \
                    and not _NUMBERED.match(ln.text):
                blocks[-1][2].append(ln.text)
            else:
                blocks.append((number, kind, [ln.text]))
    titles = [" ".join(" ".join(texts).split()) for _, _, texts in blocks]
    styles = [kind if kind is not None and len(texts) <= HEADING_MAX_LINES
              and LETTER.search(title) and not _LEADERS.search(title) else None
              for (_, kind, texts), title in zip(blocks, titles, strict=True)]
    if len(pages) >= ONE_PAGE_SIZE_MIN_PAGES:
        first = next((n for n, lines in enumerate(pages, start=1) if lines), 1)
        seen: dict[float, set[int]] = {}
        for (page, _, _), kind in zip(blocks, styles, strict=True):
            if kind:
                seen.setdefault(kind, set()).add(page)
        lone = {k for k, on in seen.items() if len(on) == 1 and first not in on}
        styles = [None if k in lone else k for k in styles]
    levels = heading_levels(styles, [sum(len(t) for t in texts) for _, _, texts in blocks])
    return [(page, level, title)
            for (page, _, _), level, title in zip(blocks, levels, titles, strict=True)
            if level is not None]


def is_slide_deck(pages: list[list[Line]], aspects: list[float]) -> bool:
    """Whether the pages are slides: nearly all of them wide (``aspects`` are each
    page's width over its height) and each holding little text (see the constants)."""
    shown = [(sum(len(ln.text) for ln in lines), aspect)
             for lines, aspect in zip(pages, aspects, strict=True) if lines]
    if len(shown) < SLIDE_MIN_PAGES:
        return False
    wide = sum(aspect >= SLIDE_ASPECT for _, aspect in shown)
    chars = sorted(n for n, _ in shown)
    return wide >= SLIDE_PAGE_SHARE * len(shown) and chars[len(chars) // 2] <= SLIDE_MAX_CHARS


def slide_title(lines: list[Line], body: float) -> tuple[str, bool] | None:
    """(title, whether the slide is a divider) when the slide's first lines are
    its title: at most :data:`HEADING_MAX_LINES` lines in one size, set
    :data:`HEADING_SIZE_RATIO` times larger than the rest of the slide's text (than the
    deck's ``body`` size when nothing else is on it). A slide's own sizes are what count:
    a deck has no one body size, its text shrinks to fit each slide. Lines above the
    title set smaller than ``body`` (a Beamer theme's section navigation) are passed over."""
    top = 0  # small print above the title is a theme's navigation bar, not the title
    while top < len(lines) and lines[top].size < body:
        top += 1
    if top == len(lines):
        return None
    size = lines[top].size
    head = top + 1
    while head < len(lines) and lines[head].size == size and head <= top + HEADING_MAX_LINES:
        head += 1
    if head - top > HEADING_MAX_LINES:
        return None
    title = " ".join(" ".join(ln.text for ln in lines[top:head]).split())
    if (any(len(ln.text) > HEADING_MAX_CHARS or ln.tabular for ln in lines[top:head])
            or not LETTER.search(title) or _LEADERS.search(title) or names_no_section(title)):
        return None
    rest = lines[head:]
    other = body_size((ln.size, len(ln.text)) for ln in rest) or body
    if size < HEADING_SIZE_RATIO * other:
        return None
    alone = not rest or (len(rest) == 1 and len(rest[0].text) <= DIVIDER_MAX_CHARS
                         and not _BULLET.match(rest[0].text)
                         and not SENTENCE_END.search(rest[0].text))
    return title, alone


def slide_headings(pages: list[list[Line]]) -> list[tuple[int, int, str]]:
    """(page, level, title) of a slide deck's headings (pure): each slide's title
    (:func:`slide_title`). When the deck has section dividers (a slide that is all
    title but for a short line, after the first), they are level 1 and the other slides'
    titles level 2 under them; else (or when most slides look like dividers) every
    title is level 1. The first slide (the deck's title) is
    level 1 either way."""
    body = body_size((ln.size, len(ln.text)) for lines in pages for ln in lines)
    if body is None:
        return []
    first = next((n for n, lines in enumerate(pages, start=1) if lines), 1)
    titles = [(n, t) for n, lines in enumerate(pages, start=1)
              if (t := slide_title(lines, body)) is not None]
    divider = {n for n, (_, alone) in titles if n != first and alone}
    nested = bool(divider) and len(divider) <= DIVIDER_MAX_SHARE * len(titles)
    return [(n, 1 if n == first or n in divider or not nested else 2, title)
            for n, (title, _) in titles]


def find_font_headings(pages: list[list[Line]], text: str,
                       regions: list[Region]) -> tuple[Heading, ...]:
    """:func:`font_headings` found in ``text``, in text order."""
    return place_headings(font_headings(pages), text, regions)


def place_headings(found: list[tuple[int, int, str]], text: str,
                   regions: list[Region]) -> tuple[Heading, ...]:
    """(page, level, title) headings as :class:`Heading` of ``text``, each found as a
    line (or lines) of its page, in text order; one that is not is left out."""
    spans = {r.page: (r.start, r.end) for r in regions}
    out: dict[int, Heading] = {}
    after: dict[int, int] = {}
    for page, level, title in found:
        if page not in spans:
            continue
        m = _find_line(text, title, spans[page], after.get(page))
        if m is None or m.start() in out:
            continue
        out[m.start()] = Heading(m.start(), level, title, m.end())
        after[page] = m.end()
    return tuple(out[k] for k in sorted(out))


def _names_nothing(text: str) -> bool:
    """Whether large print names no document: no letter (a page number, a year), a date
    line, a page number in words, "Contents", a caption or an admonition's label, dot leaders."""
    return (not LETTER.search(text) or names_no_section(text) or bool(
        _DATE_LINE.fullmatch(text) or _PAGE_LINE.fullmatch(text) or _CONTENTS.fullmatch(text)
        or _LEADERS.search(text)))


def page_title(lines: list[Line], body: float, deck: bool = False) -> str | None:
    """The title a document's first page with text shows, ``lines`` being that page's lines
    (page furniture left out) and ``body`` the document's body size; None when it shows none
    (pure).

    A deck's is its first slide's title (:func:`slide_title`). Any other document's is its
    largest print set above its text: of the page's lines before the first one with a word
    set at the body's size or a little larger (short of :data:`HEADING_SIZE_RATIO` times
    it), those set at least that much larger, small print among them passed over (a
    journal's header line, a draft notice); consecutive lines in one size are one title
    ("Asymptote: the Vector Graphics" over "Language"). Print that names nothing
    (:func:`_names_nothing`: a date line, a year) is passed over; the largest size's first
    block is the title when it is shaped like one, at most :data:`HEADING_MAX_LINES` lines of
    at most :data:`HEADING_MAX_CHARS` characters and no table row, else there is none (a
    paragraph set large; four lines of title, version and institution, whose first may be
    the title or not; a smaller size is not looked at then, as it holds the authors'
    names), and when the page sets more in its size: a title is set once, a section's heading
    has peers (a report without a title, "1 Inspections" on page 1 and "2 Repairs" under
    it; a chapter's "Chapter 2" elsewhere in the title's size does not count). A footnote
    mark after the title (LaTeX's ``\\thanks``) is left out.

    Above the text only, as a title heads its page: a first page without one (a letter, a
    report that starts with its first section) sets its section headings after text, and a
    logo's lettering comes under the title and what the title page says in body type
    (asymptote.pdf's "symptote", 24.8 pt, the logo's "A" drawn, below its 20.7 pt title and
    "For version 2.85"). The trade-off: a page whose text starts above its title (a web
    page's menu printed at the body's size) shows none.
    """
    if deck:
        found = slide_title(lines, body)
        return found[0] if found is not None and not _names_nothing(found[0]) else None
    blocks: list[tuple[float, list[Line]]] = []
    joined = False  # whether the line before was large print (a block goes on)
    for ln in lines:
        if ln.size < HEADING_SIZE_RATIO * body:
            if ln.size >= body and _WORD.search(ln.text):
                break  # the page's text starts: a title is set above it
            joined = False
            continue
        if joined and blocks[-1][0] == ln.size:
            blocks[-1][1].append(ln)
        else:
            blocks.append((ln.size, [ln]))
        joined = True
    shown = [(size, group, " ".join(" ".join(ln.text for ln in group).split()))
             for size, group in blocks]
    shown = [b for b in shown if not _names_nothing(b[2])]
    if not shown:
        return None
    largest = max(size for size, _, _ in shown)
    _, group, title = next(b for b in shown if b[0] == largest)
    if len(group) > HEADING_MAX_LINES or any(len(ln.text) > HEADING_MAX_CHARS or ln.tabular
                                             for ln in group):
        return None
    if sum(ln.size == largest and bool(LETTER.search(ln.text)) for ln in lines) > len(group):
        return None  # its size heads more of the page: a section's heading, with its peers
    return _THANKS.sub("", title)


def bookmark_title(outline: Sequence[Heading], text: str, first: Region) -> str | None:
    """The first bookmark's title (``outline`` being :func:`find_outline`'s headings of
    ``text``) when it titles the document: placed on the first page with text, ``first``, at
    the outline's top level, and a line of its own with no section number (in the bookmark or
    before it on the line) or "Chapter" before it: that is a section's heading
    (shared-mime-info-spec.pdf's first bookmark is "1. Introduction", on page 1 under the
    title)."""
    if not outline:
        return None
    head = outline[0]
    line = " ".join(text[head.start:head.end].split())
    if head.level != 1 or not first.start <= head.start < first.end \
            or line.casefold() != head.title.casefold() or _NUMBER_FIRST.match(head.title) \
            or _names_nothing(head.title):
        return None
    return head.title


def _has_column_gap(textpage: pdfium.PdfTextPage, line: str, pos: int, rotation: int) -> bool:
    """Whether a space in ``line`` (starting at char ``pos``) spans a table column gap,
    on a page shown turned by ``rotation`` degrees. The wide space after a leading
    section number (LaTeX's ``1<quad>Introduction``) is not one."""
    return next(_column_starts(textpage, line, pos, rotation), None) is not None


def _column_starts(textpage: pdfium.PdfTextPage, line: str, pos: int,
                   rotation: int) -> Iterator[Box]:
    """The box of the first character after each table column gap of ``line`` (see
    :func:`_has_column_gap`), left to right: where the row's columns after the first start."""
    label = _LEADING_LABEL.match(line)
    after_label = label.end() if label else -1  # the space right after it
    for j in range(1, len(line) - 1):
        if line[j] == " " and line[j - 1] != " " and line[j + 1] != " " and j != after_label:
            left = _char_box(textpage, pos + j - 1, rotation)
            right = _char_box(textpage, pos + j + 1, rotation)
            height = left[3] - left[1]
            if height > 0 and right[0] - left[2] > COLUMN_GAP_EM * height:
                yield right


def furniture_key(line: str, page: int | None = None) -> str:
    """Lines equal up to digits and spacing are the same furniture ("Page 3" ~ "Page 14").

    A line that is a bare number is a page number only if it counts with the pages:
    on ``page`` its key is its offset from the page's own number ("7" on page 9 is
    ``"#-2"``, the only keys with a digit), so a slide's "2026" does not pass for the
    "3" of the next one.
    """
    bare = line.strip()
    if page is not None and bare.isascii() and bare.isdigit() and len(bare) <= _PAGE_NUMBER_DIGITS:
        return f"#{int(bare) - page:+d}"
    if page is not None and bare and _ROMAN.fullmatch(bare):  # front matter's "iv": "#i-2" on page 6
        return f"#i{roman_value(bare) - page:+d}"
    return _WS.sub(" ", _DIGITS.sub("#", line)).strip().casefold()


def roman_value(numeral: str) -> int:
    """A lower-case roman numeral's value, up to 39 ("iv" -> 4, "xii" -> 12)."""
    values = [_ROMAN_VALUES[ch] for ch in numeral]
    return sum(-v if v < w else v for v, w in zip(values, values[1:] + [0], strict=True))


def _is_page_number_key(key: str) -> bool:
    return any(ch.isdigit() for ch in key)


@dataclass(frozen=True)
class Furniture:
    """Keys (:func:`furniture_key`) of running headers and of footers: each is looked
    for at its own edge only, so a footer's words on top of a page (a Beamer theme's
    navigation bar repeats the section titles that a slide shows lower down) stay."""

    top: frozenset[str] = frozenset()
    bottom: frozenset[str] = frozenset()
    # each page's lines that are never furniture (a deck's titles; see find_furniture)
    large: tuple[frozenset[str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.top or self.bottom)

    def holds(self, line: str, page: int | None, top: bool) -> bool:
        """Whether ``line``, at the top (or bottom) edge of page ``page``, is furniture."""
        return not _is_title(self.large, page, line) \
            and furniture_key(line, page) in (self.top if top else self.bottom)


def _is_title(large: Sequence[frozenset[str]], page: int | None, line: str) -> bool:
    """Whether ``line`` is one of page ``page``'s titles (``large``, see find_furniture)."""
    return page is not None and page <= len(large) and " ".join(line.split()) in large[page - 1]


def find_furniture(pages: list[list[str]], numbered: bool = False,
                   large: Sequence[frozenset[str]] = ()) -> Furniture:
    """The lines repeated at the top or at the bottom of most pages, or of nearly all
    odd or even pages (a book's left and right running heads differ; pure; see the
    module doc). With ``numbered``, ``pages[i]`` is page ``i + 1`` (see
    :func:`furniture_key`); bare page numbers count as one furniture however often the
    numbering restarts, each run of :data:`FURNITURE_MIN_PAGES` or more pages.
    ``large[i]`` holds the lines of page ``i + 1`` that are never furniture (a deck's
    titles set large: "Results (cont.)" at the top of most slides is no running header)."""
    with_text = [(n, t) for n, t in ((n, [ln for ln in p if ln.strip()])
                                     for n, p in enumerate(pages, start=1)) if t]
    if len(with_text) < FURNITURE_MIN_PAGES:
        return Furniture()

    def repeated(edge: slice, parity: int | None) -> set[str]:
        counts: Counter[str] = Counter()
        seen: dict[str, dict[int, str]] = {}  # key -> page -> its first line there
        shown = [(n, lines) for n, lines in with_text if parity is None or n % 2 == parity]
        for n, lines in shown:
            keys = {k for ln in lines[edge] if not _is_title(large, n, ln)
                    and (k := furniture_key(ln, n if numbered else None))}
            for ln in lines[edge]:
                if not _is_title(large, n, ln):
                    seen.setdefault(furniture_key(ln, n if numbered else None), {}).setdefault(n, ln)
            counts.update(keys)
        share = FURNITURE_SHARE if parity is None else FURNITURE_SIDE_SHARE
        need = max(FURNITURE_MIN_PAGES, math.ceil(share * len(shown)))
        runs = {k: c for k, c in counts.items()
                if _is_page_number_key(k) and c >= FURNITURE_MIN_PAGES}
        found = {k for k, c in counts.items() if c >= need} | (
            set(runs) if sum(runs.values()) >= need else set())
        return {k for k in found if _counts_with_pages(seen[k])}

    top, bottom = slice(None, EDGE_LINES), slice(-EDGE_LINES, None)
    heads_top, heads_bottom = running_heads(with_text, numbered, large)
    found = Furniture(frozenset().union(heads_top, *(repeated(top, p) for p in (None, 0, 1))),
                      frozenset().union(heads_bottom, *(repeated(bottom, p) for p in (None, 0, 1))),
                      tuple(frozenset(t) for t in large))
    # Furniture is a page's margin: when it would take most of the text (FURNITURE_MAX_SHARE),
    # the repeated lines are the content (a short form per page, its labels on each).
    total = sum(len(lines) for _, lines in with_text)
    left = sum(len([ln for ln in strip_furniture(lines, found, n if numbered else None)
                    if ln.strip()]) for n, lines in with_text)
    return found if total - left <= FURNITURE_MAX_SHARE * total else Furniture()


def running_heads(with_text: list[tuple[int, list[str]]], numbered: bool = False,
                  large: Sequence[frozenset[str]] = ()) -> tuple[set[str], set[str]]:
    """Keys of the running heads (top) and feet (bottom) that change from chapter to
    chapter (pure; ``with_text`` holds (page number, its non-blank lines) for each page
    with text). Each is the first (last) line of :data:`FURNITURE_RUN_PAGES` or more
    consecutive pages, or pages of one side, the same up to its digits, with a number
    that grows with the page at every step: Texinfo's "Chapter 3: Basic Shell Features
    13" on pages 19, 20, 21 ... The number's offset from the page (-6: printed page 13
    is page 19) then dates the lines no run holds: a page's number alone at either edge
    ("167" on a chapter's first page), and, where such heads run over
    :data:`FURNITURE_SHARE` of the pages, an edge line of at most
    :data:`RUNNING_HEAD_MAX_CHARS` that starts or ends with it as a run's head does, the
    same word beside it (:func:`_head_shape`: a chapter of one page, "Chapter 1:
    Introduction 2" on page 8, beside runs of "Chapter 3: ... 13")."""
    found: tuple[set[str], set[str]] = (set(), set())
    pages = [n for n, _ in with_text]
    for side, top in ((found[0], True), (found[1], False)):
        edge: dict[int, tuple[str, str]] = {}  # page -> (its edge line, the line's key)
        for n, lines in with_text:
            line = lines[0] if top else lines[-1]
            if not _is_title(large, n, line):
                edge[n] = (line, furniture_key(line, n if numbered else None))
        offsets: set[int] = set()
        held: set[int] = set()  # pages whose edge line a run of heads holds
        shapes: set[tuple[int, bool, str]] = set()  # the runs' (offset, *_head_shape)
        # every page, then each side's (a book's left and right heads alternate)
        for order in (pages, [n for n in pages if n % 2], [n for n in pages if not n % 2]):
            i = 0
            while i < len(order):
                j = i
                key = edge.get(order[i], ("", None))[1]
                while j + 1 < len(order) and key is not None \
                        and edge.get(order[j + 1], ("", None))[1] == key:
                    j += 1
                run = order[i:j + 1]
                i = j + 1
                if key is None or len(run) < FURNITURE_RUN_PAGES:
                    continue
                if numbered and _is_page_number_key(key):
                    side.add(key)  # a page number alone, counting with the pages already
                    continue
                offset = _page_offset({n: edge[n][0] for n in run})
                if offset is not None:
                    side.add(key)
                    offsets.add(offset)
                    held.update(run)
                    shape = _head_shape(edge[run[0]][0], run[0] + offset)
                    if shape is not None:
                        shapes.add((offset, *shape))
        if not numbered or not offsets:
            continue
        for offset in offsets:  # a page number alone, at either edge
            found[0].add(f"#{offset:+d}")
            found[1].add(f"#{offset:+d}")
        if len(held) < FURNITURE_SHARE * len(pages):
            continue
        for n, (line, key) in edge.items():
            if n not in held and len(line) <= RUNNING_HEAD_MAX_CHARS and any(
                    _head_shape(line, n + offset) == (end, word) for offset, end, word in shapes):
                side.add(key)
    return found


def _page_offset(lines_by_page: dict[int, str]) -> int | None:
    """The printed page number's offset from the page's own, when one of the lines'
    numbers (the same place in each) grows as the page does at every step, else None."""
    nums = [(n, [int(d) for d in _DIGITS.findall(t)]) for n, t in sorted(lines_by_page.items())]
    steps = list(zip(nums, nums[1:], strict=False))
    for i in range(min(len(v) for _, v in nums)):
        if all(b[1][i] - a[1][i] == b[0] - a[0] for a, b in steps):
            return nums[0][1][i] - nums[0][0]
    return None


def _head_shape(line: str, number: int) -> tuple[bool, str] | None:
    """(whether ``number`` ends ``line``, the first of its other words up to digits)
    when ``number`` is the line's first or last word and a word is left: a running head's
    shape ("Chapter 3: Basic Shell Features 13" -> (True, "chapter"); "16 Chapter 2. Setup"
    -> (False, "chapter"); "2.1. Wiring 17" -> (True, "#.#.")), which a chapter's lone head
    shares with the runs' and a line of text ending in the same number rarely does."""
    words = line.split()
    if len(words) < 2 or str(number) not in (words[0], words[-1]):
        return None
    end = words[-1] == str(number)
    rest = words[:-1] if end else words[1:]
    return end, _DIGITS.sub("#", rest[0]).casefold()


def _counts_with_pages(lines_by_page: dict[int, str]) -> bool:
    """Lines that share a furniture key but differ in their digits ("Page 3", "Page 4")
    are furniture only if one of their numbers counts with the pages (it grows as
    much as the page number does, from one page to the next, at least half the
    time): "Amount due: EUR 87.20" at the foot of each invoice is no footer."""
    nums = [(n, [int(d) for d in _DIGITS.findall(t)]) for n, t in sorted(lines_by_page.items())]
    if len({tuple(v) for _, v in nums}) == 1:
        return True  # the same line on every page
    steps = list(zip(nums, nums[1:], strict=False))
    for i in range(min(len(v) for _, v in nums)):
        counting = sum(b[1][i] - a[1][i] == b[0] - a[0] for a, b in steps)
        if 2 * counting >= len(steps):
            return True
    return False


def strip_furniture(lines: list[str], furniture: Furniture, page: int | None = None) -> list[str]:
    """Drop furniture lines from the top and the bottom edge of one page (page number
    ``page`` when the keys were found ``numbered``).

    ``""`` in ``lines`` marks a paragraph break; it is kept between text lines,
    never at the edges or twice in a row.
    """
    filled = [i for i, ln in enumerate(lines) if ln.strip()]
    drop: set[int] = set()
    for edge, top in ((filled[:EDGE_LINES], True), (filled[::-1][:EDGE_LINES], False)):
        for i in edge:
            if not furniture.holds(lines[i], page, top):
                break
            drop.add(i)
    out: list[str] = []
    for i, ln in enumerate(lines):
        if i in drop or (not ln.strip() and (not out or not out[-1].strip())):
            continue
        out.append(ln)
    while out and not out[-1].strip():
        out.pop()
    return out


def _titles_by_size(pages: list[list[Line]]) -> list[frozenset[str]]:
    """Each page's lines set as large as a heading, but for a text the page also has in
    smaller print (a Beamer navigation bar repeats a section page's title in 6 pt)."""
    body = body_size((ln.size, len(ln.text)) for lines in pages for ln in lines)
    out = []
    for lines in pages:
        large: dict[str, set[bool]] = {}  # text -> whether each line of it is set large
        for ln in lines:
            large.setdefault(" ".join(ln.text.split()), set()).add(
                body is not None and ln.size >= HEADING_SIZE_RATIO * body)
        out.append(frozenset(t for t, sizes in large.items() if sizes == {True}))
    return out


def _strip_furniture_lines(lines: list[Line], furniture: Furniture, page: int) -> list[Line]:
    """:func:`strip_furniture` for a page's :class:`Line` list: the same edge lines go
    (a furniture line's words inside the page, a slide's title say, stay)."""
    top, bottom = 0, len(lines)
    while top < min(EDGE_LINES, bottom) and furniture.holds(lines[top].text, page, True):
        top += 1
    while bottom > max(top, len(lines) - EDGE_LINES) \
            and furniture.holds(lines[bottom - 1].text, page, False):
        bottom -= 1
    return lines[top:bottom]


def page_list(pages: list[int]) -> str:
    """[3] -> "3"; [1, 2, 3, 7] -> "1-3 and 7" (for messages)."""
    runs = [str(a) if a == b else f"{a}-{b}" for a, b in consecutive(pages)]
    return runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + " and " + runs[-1]


def no_text_layer_message(pages: list[int]) -> str:
    if len(pages) == 1:
        return f"page {pages[0]} has no text layer; install OCR to index it"
    return f"pages {page_list(pages)} have no text layer; install OCR to index them"


def _open(path: Path, rel: str) -> pdfium.PdfDocument:
    if path.stat().st_size == 0:
        raise ExtractionError(rel, "empty file (0 bytes), not a PDF")
    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        m = re.search(r"PDFium: ([^)]*)\)", msg)
        key = m.group(1).strip().casefold() if m else ""
        if key == "data format error":
            raise ExtractionError(rel, _why_unreadable(path)) from exc
        reason = _PDFIUM_REASONS.get(key, f"PDFium could not open it ({msg.rstrip('.')})")
        raise ExtractionError(rel, reason) from exc
    # Before any page is loaded: a form's filler then draws the fields whose values have
    # no appearance yet (/NeedAppearances, as pypdf and browsers fill them in), for
    # _flattened. XFA forms are left alone: this PDFium reads no XFA, and would log so.
    if pdf.get_formtype() == pdfium_c.FORMTYPE_ACRO_FORM:
        try:
            pdf.init_forms()
        except pdfium.PdfiumError:
            pass  # no filler: the fields that carry their own appearance are still read
    return pdf


def _flattened(pdf: pdfium.PdfDocument, index: int) -> pdfium.PdfPage:
    """Page ``index`` with its annotations drawn into its content as a viewer shows
    them: a filled form's values, a typewriter or free-text note, a stamp. PDFium's
    text page reads the page's content only, so a filled-in form indexed its labels
    and none of its answers. Hidden annotations and pop-up notes stay out (what
    FLAT_NORMALDISPLAY leaves out); PDFium reads a page flattened only once it is
    loaded again. The document in memory changes, never the file."""
    page = pdf[index]
    if pdfium_c.FPDFPage_GetAnnotCount(page.raw) > 0 and pdfium_c.FPDFPage_Flatten(
            page.raw, pdfium_c.FLAT_NORMALDISPLAY) == pdfium_c.FLATTEN_SUCCESS:
        page.close()
        page = pdf[index]
    return page


def _ocr_page(page: pdfium.PdfPage) -> tuple[str, float | None, int]:
    """Render one page and read it with Tesseract: (text, mean word confidence, the
    clockwise turn that stood its text up: a page scanned upside down is read turned)."""
    lines, turn = read_upright(page.render(scale=OCR_DPI / 72).to_pil())
    parts: list[str] = []
    for i, line in enumerate(lines):
        if i and line.paragraph != lines[i - 1].paragraph:
            parts.append("")  # a blank line between OCR paragraphs
        parts.append(line.text)
    return "\n".join(parts), mean_confidence(lines), turn


# A picture smaller on the page than this, in points, is an icon, a bullet or a rule:
# not read. (72 points are an inch; a line of 10-point text is about 12 high.)
MIN_PICTURE_WIDTH, MIN_PICTURE_HEIGHT = 72, 18
# A picture whose area holds this many characters of the text layer has its text read
# already (an OCR'd scan's invisible text over it, labels drawn over a figure).
LAYER_CHARS = 20
# A picture shown on this many pages or more, and on more than half of them, is
# furniture (a logo on every slide): not read.
FURNITURE_PAGES = 3
# A structure tree deeper than this is not walked further (a crafted file's loop).
MAX_STRUCTURE_DEPTH = 64


def _page_pictures(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, number: int,
                   reader: PictureReader, tagged: bool) -> list[tuple[str, str]]:
    """The pictures of page ``number``, which has a text layer, that may hold text of
    their own, read by ``reader`` as PNG files (their pixels as stored, at their own
    resolution): each big enough to hold a line (:data:`MIN_PICTURE_WIDTH`) whose area
    holds almost none of the layer's text (:data:`LAYER_CHARS`); one PDFium cannot
    decode is left out. Each as (its content's digest, the text read in it); only the
    text is kept, not the picture (a book of photographs holds gigabytes of pixels).
    A figure's alt text (:func:`_figures`; a PDF that is ``tagged`` has a structure tree)
    comes before the text of the pictures its marked content holds, as (``alt:`` and the
    text, the text)."""
    import io

    figures = _figures(page) if tagged else []
    read: dict[int, list[tuple[str, str]]] = {}  # by the marked content a picture is in
    for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
        left, bottom, right, top = obj.get_bounds()
        if right - left < MIN_PICTURE_WIDTH or top - bottom < MIN_PICTURE_HEIGHT:
            continue
        inside = textpage.get_text_bounded(left=left, bottom=bottom, right=right, top=top)
        if len("".join(inside.split())) >= LAYER_CHARS:
            continue
        try:
            img = obj.get_bitmap(render=False).to_pil()
        except (pdfium.PdfiumError, ValueError, OSError):
            continue
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        data = buf.getvalue()
        read.setdefault(pdfium_c.FPDFPageObj_GetMarkedContentID(obj.raw), []).append(
            (hashlib.sha256(data).hexdigest(), reader.text(data, f"page {number}")))
    out = []
    for marks, alt in figures:
        out.append(("alt:" + alt, alt))
        for mark in marks:
            out += read.pop(mark, [])
    return out + [picture for pictures in read.values() for picture in pictures]


def _figures(page: pdfium.PdfPage) -> list[tuple[tuple[int, ...], str]]:
    """The figures of a tagged PDF's page that have alt text (what a reader who cannot
    see them gets: ISO 32000-1, 14.9.3), in the structure tree's order, the order it is
    read in: each figure's marked-content ids and its alt text
    (:func:`~citeline.extract.blocks.described`). A decorative picture is an artifact,
    outside the tree. Word's "Save as PDF" and a browser's tagged PDF write them."""
    tree = pdfium_c.FPDF_StructTree_GetForPage(page.raw)
    if not tree:
        return []
    found: list[tuple[tuple[int, ...], str]] = []

    def text(get, el) -> str:  # type: ignore[no-untyped-def]
        size = get(el, None, 0)
        if size <= 2:
            return ""
        buf = ctypes.create_string_buffer(size)
        get(el, buf, size)
        return buf.raw[:size].decode("utf-16-le", errors="replace").rstrip("\0")

    def walk(el, depth: int) -> None:  # type: ignore[no-untyped-def]
        if not el or depth > MAX_STRUCTURE_DEPTH:
            return
        if text(pdfium_c.FPDF_StructElement_GetType, el) == "Figure" and \
                (alt := described(text(pdfium_c.FPDF_StructElement_GetAltText, el))):
            marks = tuple(pdfium_c.FPDF_StructElement_GetMarkedContentIdAtIndex(el, i) for i in
                          range(max(pdfium_c.FPDF_StructElement_GetMarkedContentIdCount(el), 0)))
            found.append((marks, alt))
            return  # a figure inside it is the same picture (a browser's <figure><img>)
        for i in range(pdfium_c.FPDF_StructElement_CountChildren(el)):
            walk(pdfium_c.FPDF_StructElement_GetChildAtIndex(el, i), depth + 1)

    try:
        for i in range(pdfium_c.FPDF_StructTree_CountChildren(tree)):
            walk(pdfium_c.FPDF_StructTree_GetChildAtIndex(tree, i), 0)
    finally:
        pdfium_c.FPDF_StructTree_Close(tree)
    return found


def _add_picture_text(pages: list[list[str]], pictures: list[list[tuple[str, str]]]) -> None:
    """Each page's pictures' text (:func:`_page_pictures`) added after the page's lines
    ("" a paragraph break), but a picture's shown on :data:`FURNITURE_PAGES` pages or
    more and on most pages: furniture (read once, as the reader reads a content once)."""
    shown = Counter(key for page in pictures for key in {key for key, _ in page})
    furniture = {key for key, count in shown.items()
                 if count >= FURNITURE_PAGES and count > len(pages) / 2}
    for lines, page in zip(pages, pictures, strict=True):
        for key, text in page:
            if text and key not in furniture:
                lines += ["", *text.split("\n")]


def page_label(pdf: pdfium.PdfDocument, page: int) -> str | None:
    """The number printed on 1-based ``page`` by the PDF's /PageLabels ("xii" in the front
    matter, "A-3" in an appendix), or None when the PDF labels it as it falls (``page``
    itself) or not at all. A viewer shows it in its page box; a citation that said only
    "page 15" of a book whose page 15 reads "1" sent the reader to the wrong page."""
    label = pdf.get_page_label(page - 1).strip()  # "" when there is none
    return label if label and label != str(page) else None


class PdfExtractor:
    name = "pdf"
    version = "16"  # 2: bookmarks make sections; 3: so do font sizes, without bookmarks;
    # 4: a numbered heading line is not the wrapped end of the heading above it, the
    # quad after a leading section number is not a column gap, captions and
    # admonition labels are not headings, a body-size line is bold only if wholly, a
    # size on one inner page of a long document is lettering; 5: slide decks are
    # sectioned by their slides' titles, a book's left and right running heads are
    # furniture, a bare number is a page number only if it counts with the pages,
    # headers and footers are each looked for at their own edge; 6: lines that differ
    # only in digits are furniture only if a number counts with the pages, and
    # furniture never takes more than two thirds of the text; 7: paragraphs and table
    # rows of a page with /Rotate are read from its layout as shown (shown_box); 8: what
    # annotations show is text of the page (a filled form's values, free-text notes);
    # 9: a page's printed number (/PageLabels) is kept with it for citations; 10: a
    # chapter's running head (the same line, up to its counting page number, atop a run
    # of pages) and the bare page numbers it dates are furniture, and a bookmark's line
    # may start with "Appendix", "Chapter" or "Part" before its number; 11: the line
    # under a table row that starts at one of its columns and did not fit on the row's
    # line goes on with that cell (a definition list's definition under its term); 12: the
    # title, when /Title gives none or names nothing (a placeholder, the file's own name, a
    # print job's "Microsoft Word - X.docx"), is the largest print atop the first page (a
    # deck's first slide's title), else a top-level bookmark's line on it, else the name in
    # the print job's title, else the file's name; 13: a scanned page whose text does not
    # read upright (fed into the scanner upside down) is read turned, with a warning; 14:
    # a sideways scanned page is read turned the quarter that stands its text up, which
    # its warning names (it was read turned 180 degrees, as Tesseract reads it on its side);
    # 15: the text of the pictures on a page with text, read by OCR, after the page's text;
    # 16: a tagged PDF's figures' alt text, each before its picture's text
    suffixes = (".pdf",)

    def extract(self, path: Path, rel: str) -> Document:
        with _PDFIUM_LOCK:
            pdf = _open(path, rel)
            try:
                return self._extract(pdf, path, rel)
            finally:
                pdf.close()

    def _extract(self, pdf: pdfium.PdfDocument, path: Path, rel: str) -> Document:
        n = len(pdf)
        if n == 0:
            raise ExtractionError(rel, "the PDF has no pages")
        pages: list[list[str]] = []
        conf: dict[int, float | None] = {}
        no_layer: list[int] = []
        warnings: list[str] = []
        ocr_missing = ocr_status()
        sized: list[list[Line]] = []  # each page's lines and their fonts
        aspects: list[float] = []  # each page's width over its height (slides are wide)
        blank = 0
        pictures: list[list[tuple[str, str]]] = []  # each page's pictures' text
        reader = PictureReader(warnings)
        tagged = bool(pdfium_c.FPDFCatalog_IsTagged(pdf.raw))  # its figures may have alt text
        for i in range(n):
            page = _flattened(pdf, i)
            width, height = page.get_size()
            aspects.append(width / height if height > 0 else 1.0)
            try:
                textpage = page.get_textpage()
                tabular = column_gaps(textpage)  # both passes below read the same lines
                text = clean_page_text(paragraph_text(textpage, tabular))
                sized.append(page_lines(textpage, tabular))
                pictures.append(_page_pictures(page, textpage, i + 1, reader, tagged)
                                if text.strip() else [])
                textpage.close()
                if not text.strip():
                    if not pdfium_c.FPDFPage_CountObjects(page.raw):
                        blank += 1  # nothing is drawn on it (a book's empty verso)
                    elif ocr_missing is None:
                        text, conf[i + 1] = self._ocr(page, i + 1, rel, warnings)
                    else:
                        no_layer.append(i + 1)
            finally:
                page.close()
            pages.append(strip_furniture(text.split("\n"), Furniture()))  # "" = paragraph break

        # In a deck, a title repeated at the top of most slides ("Results (cont.)") is
        # no running header; a document's header may be set larger than its text.
        deck = is_slide_deck(sized, aspects)
        large = _titles_by_size(sized) if deck else []
        printed = sized  # as printed, furniture and all (a title may be the running head's text)
        furniture = find_furniture(pages, numbered=True, large=large)
        if furniture:
            example: dict[str, str] = {}  # one sample line per furniture key, in page order
            for number, lines in enumerate(pages, start=1):
                filled = [ln for ln in lines if ln.strip()]
                for edge, top in ((filled[:EDGE_LINES], True), (filled[::-1][:EDGE_LINES], False)):
                    for ln in edge:  # as strip_furniture goes: from the edge, up to a kept line
                        if not furniture.holds(ln, number, top):
                            break
                        k = furniture_key(ln, number)
                        example.setdefault("#" if _is_page_number_key(k) else k, ln.strip())
            if example:
                shown = "; ".join(repr(s) for s in example.values())
                warnings.append(f"repeated page headers/footers left out of the text: {shown}")
            pages = [strip_furniture(p, furniture, n) for n, p in enumerate(pages, start=1)]
            sized = [_strip_furniture_lines(lines, furniture, n)
                     for n, lines in enumerate(sized, start=1)]
        reader.close()
        _add_picture_text(pages, pictures)

        out = TextBuilder()
        regions: list[Region] = []
        for i, lines in enumerate(pages, start=1):
            if not lines:
                continue
            start, end = out.add("\n".join(lines), sep="\n\n")
            regions.append(Region(RegionKind.PAGE, start, end, page=i, confidence=conf.get(i),
                                  label=page_label(pdf, i)))
        if no_layer:
            msg = no_text_layer_message(no_layer)
            if not regions:
                raise ExtractionError(rel, f"{msg} ({ocr_missing})")
            warnings.append(f"{msg} ({ocr_missing})")
        if not regions and blank == n:
            raise ExtractionError(rel, f"blank: nothing is drawn on its {n} page{'s' if n > 1 else ''}")
        if not regions:
            raise ExtractionError(rel, "no text on any page (OCR found none either)")
        canonical = out.text()
        # A deck's headings are its slide titles, bookmarks or not: a deck's bookmarks are
        # its slide titles again (Impress) or sections that are no line of the page but
        # a navigation bar's (Beamer).
        marks: tuple[Heading, ...] = ()  # the bookmarks placed, when they are the headings
        if deck:
            outline = place_headings(slide_headings(sized), canonical, regions)
            if not outline:
                outline = marks = find_outline(pdf, canonical, regions)
        else:
            marks = find_outline(pdf, canonical, regions)
            outline = marks or find_font_headings(sized, canonical, regions)
        low = [p for p, c in conf.items() if c is not None and c < LOW_OCR_CONFIDENCE]
        if low:
            warnings.append(
                f"low OCR confidence (under {LOW_OCR_CONFIDENCE:g}) on page{'s' if len(low) > 1 else ''} "
                f"{page_list(low)}: check citations from there against the page"
            )
        return Document(
            path=rel,
            title=self._title(pdf, path, (printed, sized), deck, marks, canonical, regions),
            text=canonical,
            media_type="application/pdf",
            extractor=self.name,
            extractor_version=self.version,
            regions=tuple(regions),
            warnings=tuple(warnings),
            headings="outline" if outline else "none",
            outline=outline,
        )

    def _ocr(
        self, page: pdfium.PdfPage, number: int, rel: str, warnings: list[str]
    ) -> tuple[str, float | None]:
        import pytesseract

        try:
            text, confidence, turn = _ocr_page(page)
        except (pytesseract.TesseractError, RuntimeError, OSError) as exc:
            warnings.append(f"page {number}: OCR failed ({exc}); the page is not indexed")
            return "", None
        if turn:
            warnings.append(turned_warning(f"page {number}", turn))
        return clean_page_text(text), confidence

    @staticmethod
    def _title(pdf: pdfium.PdfDocument, path: Path, sized: tuple[list[list[Line]], list[list[Line]]],
               deck: bool, marks: tuple[Heading, ...], text: str, regions: list[Region]) -> str:
        """The document's title, by the first rule that gives one (see the module doc);
        ``sized`` holds each page's lines as printed and with the furniture left out, and
        ``regions`` the pages with text."""
        try:
            info = pdf.get_metadata_dict().get("Title") or ""
        except (pdfium.PdfiumError, UnicodeDecodeError):  # a Title that is not UTF-16
            info = ""
        given, name = metadata_title(info, path.stem)
        if given:
            return given
        printed, kept = sized
        body = body_size((ln.size, len(ln.text)) for lines in kept for ln in lines)
        shown = None
        # The first page with text, or the next when that one's text is OCR's (no print
        # sizes to read: debmake-doc's cover is the Debian logo, read as "debian").
        index = next((i for i in ((r.page or 1) - 1 for r in regions[:TITLE_PAGES]) if printed[i]),
                     None)
        if body is not None and index is not None:  # the page's furniture left out, but for a
            # title set large that is the running head's text too (shared-mime-info-spec.pdf's,
            # small on every other page)
            lines = [ln for ln in printed[index]
                     if ln in kept[index] or ln.size >= HEADING_SIZE_RATIO * body]
            shown = page_title(lines, body, deck)
        return shown or bookmark_title(marks, text, regions[0]) or name or path.stem


register(PdfExtractor())
