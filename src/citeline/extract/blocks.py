"""Helpers the structured extractors share: building canonical text with exact offsets.

An extractor that *writes* its canonical text (PDF pages, sheet rows, cues,
HTML/DOCX blocks) records each piece's span as it appends it, so every region
is ``(start, end)`` of a string that is really at ``text[start:end]`` — the
tests check that for every region of every format.
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, BinaryIO

from citeline.errors import ExtractionError

# Tesseract's word confidences are 0..100; below ~60 on a page's mean, a
# noticeable share of words are wrong, so citations from that page are flagged.
LOW_OCR_CONFIDENCE = 60.0

# Headings from formatting (a PDF without bookmarks, a Word file without heading
# styles): text set 15% or more above the body size is a heading. Body text varies
# by a point at most (10 vs 11 pt in one document is a footnote or a code font, 9%
# of 11); a section heading is 1.2x the body (LaTeX's \subsubsection, Word's
# Heading 3: 12 or 13 pt over 11) or more.
HEADING_SIZE_RATIO = 1.15
# ... and short: a heading is a title, not a paragraph set large (a pull quote, a
# slide's bullet).
HEADING_MAX_CHARS = 120
# When more of the text than this is large print there is no body size to tell
# headings from (a poster, a slide deck of titles): no headings then.
HEADING_MAX_SHARE = 0.25
# A line or paragraph ending like this is a sentence set in bold, not a title.
SENTENCE_END = re.compile(r"[.,;:!]$")
# A figure's or table's caption is set like a heading (bold, or a size up) but
# names a float, not a section: "Figure 2-5: Scaling", "Table 4.7. Accounts", and
# DocBook's other numbered titles, "Example 11.1. ...", "Procedure 11.2. ...".
CAPTION = re.compile(r"(?:Figure|Fig\.|Table|Listing|Exhibit|Example|Procedure|Equation)\s+"
                     r"[\dA-Z]+(?:[.\-\u2013]\d+)*"
                     r"\s*[:.\u2013\u2014](?:\s|$)", re.I)
# An admonition's label ("Note", "Warning:") is set like a heading but starts a box
# inside the section, not a section: the text after the box is still the section's.
ADMONITION = re.compile(r"(?:note|tip|hint|warning|caution|important|danger|attention|"
                        r"see also)\s*:?", re.I)
# A title has a letter in it ("2.1" alone is a number, "***" a separator).
LETTER = re.compile(r"[^\W\d_]")
# Markdown's six levels; deeper ones nest under the sixth.
MAX_HEADING_LEVEL = 6

_MD_SPECIAL = re.compile(r"^( {0,3})(#{1,6}(?=[ \t]|$)|```|~~~)", re.M)
_BACKTICKS = re.compile(r"`+")
_NOT_IN_INFO = re.compile(r"[\s`]+")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_BLANK_LINES = re.compile(r"\n[ \t]*\n+")

# A block set as written (an HTML <pre>, a manual page's no-fill lines) that nothing marks
# as code is read as prose, not fenced, when most of its text is in lines of prose
# (:func:`prose_pre`): a mailing-list archive's message, an RFC, a text
# file shown as a page. A line of prose, once its indentation and e-mail quote marks ("> ") are off:
# as long as a wrapped line of text is (a short line is a command, a label, a name) ...
PROSE_LINE_MIN_CHARS = 40
# ... opening (after a list item's "- " or "2. ") with four words of letters ("The file
# is read"; an apostrophe or hyphen inside a word, quotes, brackets and sentence
# punctuation around it): a diagram's or a command's line may end in words, not open so ...
_OPENING, _CLOSING = r"[(\"'\u201c\u2018]?", r"[)\"'\u201d\u2019]?"
_PROSE_WORD = rf"{_OPENING}[^\W\d_]+(?:['\u2019-][^\W\d_]+)*{_CLOSING}[,.;:!?]?{_CLOSING}"
_LIST_MARK = r"(?:(?:-|\d{1,3}[.)])\s+)?"
_FOUR_WORDS = re.compile(rf"{_LIST_MARK}{_PROSE_WORD}(?:\s{_PROSE_WORD}){{3}}(?=\s|$)")
# ... not opening with a comment's or a prompt's mark ...
_CODE_LINE_START = re.compile(r"(?:#|//|/\*|\*|;|--|%|\$|!|@)")
# ... with no comment after code ("set term png   # the default") ...
_TRAILING_COMMENT = re.compile(r"\S\s+(?:#|//)\s")
# ... and one of these signs of code at most: braces, brackets' kin, assignment, pipes
# and redirections, a variable, a backslash, a call ("f("), a dotted name ("os.path").
_CODE_SIGN = re.compile(r"[{}<>=;|&$\\]|\w\(|\w\.\w")
_QUOTE_MARKS = re.compile(r"\s*(?:>\s*)*")
# Prose is over half of the characters of 3 lines or more: one or two lines of a log or an
# error message that read as words are code output, and fenced.
PROSE_MIN_LINES = 3


def names_no_section(title: str) -> bool:
    """A caption or an admonition's label: set like a heading, but not one."""
    return bool(CAPTION.match(title) or ADMONITION.fullmatch(title))


def body_size(sized: Iterable[tuple[float, int]]) -> float | None:
    """The size most characters are set in, from (size, characters) pairs."""
    chars: Counter[float] = Counter()
    for size, n in sized:
        chars[size] += n
    return chars.most_common(1)[0][0] if chars else None


def heading_levels(styles: Sequence[float | None], lengths: Sequence[int]) -> list[int | None]:
    """Heading levels of a document's blocks (lines or paragraphs, in order) from each
    one's heading style: its size when set large, 0.0 for bold at the body's size, None
    for text; ``lengths`` are their characters. The rule the PDF and Word extractors
    share: no headings at all when they hold over :data:`HEADING_MAX_SHARE` of the
    characters; a bold block only with text right after it (not a heading, not the
    end); one level per style, the largest first."""
    if sum(n for s, n in zip(styles, lengths, strict=True) if s is not None) > \
            HEADING_MAX_SHARE * sum(lengths):
        return [None] * len(styles)
    kept = [None if s == 0.0 and (i + 1 == len(styles) or styles[i + 1] is not None) else s
            for i, s in enumerate(styles)]
    order = sorted({s for s in kept if s is not None}, reverse=True)
    return [None if s is None else min(order.index(s) + 1, MAX_HEADING_LEVEL) for s in kept]


def formatted_levels(paragraphs: list[tuple[str, list[tuple[int, float, bool]]]]) -> list[int | None]:
    """Each paragraph's heading level from its formatting alone, for a document with no
    heading styles (a Word or RTF file set by hand): pure, on (text, runs) pairs, a run
    (characters, size in points, bold). A paragraph is a heading when all of it is set
    :data:`HEADING_SIZE_RATIO` above the body size, or bold at it and not ending like a
    sentence; levels by :func:`heading_levels`."""
    body = body_size((size, n) for _, runs in paragraphs for n, size, _ in runs)
    if body is None:
        return [None] * len(paragraphs)
    styles: list[float | None] = []  # a heading's size; 0.0 = bold at the body's size
    for text, runs in paragraphs:
        style = None
        title = squash(text)
        if runs and len(title) <= HEADING_MAX_CHARS and LETTER.search(title) \
                and not names_no_section(title):
            smallest = min(size for _, size, _ in runs)
            if smallest >= HEADING_SIZE_RATIO * body:
                style = smallest
            elif smallest >= body and all(bold for _, _, bold in runs) \
                    and not SENTENCE_END.search(title):
                style = 0.0
        styles.append(style)
    return heading_levels(styles, [len(squash(t)) for t, _ in paragraphs])


# /Title values that name no document. A Windows print job is named after its window,
# "Microsoft Word - Q3 draft.docx", and a PDF printer writes that name as the /Title;
# these are the three prefixes PDFCreator strips by default (pdfforge's PDFCreator,
# CreateDefaultTitleReplacements). What follows is the file's name as its author typed it.
_PRINT_JOB = re.compile(r"Microsoft (?:Word|PowerPoint|Excel) - (.+)", re.I | re.S)
# A title that is a file name: what generators write that copy their input's name (the
# print job's above; dvips's "%%Title: report.dvi", which ps2pdf keeps; Chromium's for a
# page without <title>, "notes.html"; "many PDF converters set the PDF's title to the
# original filename", Thunderstone's Webinator manual, "PDF Title Action"). The suffixes
# are PDFCreator's (the documents a print job comes from) and TeX's.
_FILE_NAME = re.compile(r"(.+?)\.(?:docx?|docm|dotx?|dotm|rtf|txt|od[tps]|pptx?|pptm|ppsx?|potx?"
                        r"|xlsx?|xlsm|xlsb|csv|html?|mhtml?|xps|pdf|tex|dvi|ps|png|jpe?g|tiff?|bmp)",
                        re.I | re.S)
# Placeholders: Quartz's (macOS printing) and Google Docs' names for a document nobody
# named, "Untitled" and "Untitled document", numbered as editors number them ("Untitled-1");
# the names Word, PowerPoint and Excel give a file never saved ("Microsoft Word -
# Document1"); PowerPoint's "PowerPoint Presentation" and "Slide 1" for a deck without a title.
_PLACEHOLDER = re.compile(r"untitled(?: document)?(?:[ -]?\d+)?|(?:document|presentation|book)\d+"
                          r"|powerpoint presentation|slide \d+", re.I)

def metadata_title(title: str, stem: str) -> tuple[str | None, str | None]:
    """What a document's title property names (a PDF's /Title, a Word 97-2003 or RTF
    file's title), for a file saved as ``stem`` (pure): (the title its author set, or
    None; the name of the file it was made from, or None).

    >>> metadata_title("Microsoft Word - Q3 draft v2.docx", "scan0042")
    (None, 'Q3 draft v2')
    >>> metadata_title("Guide for Debian Maintainers", "debmake-doc.en")
    ('Guide for Debian Maintainers', None)
    >>> metadata_title("01-about", "01-about")
    (None, None)

    A print job's name (:data:`_PRINT_JOB`) or a file name (:data:`_FILE_NAME`) is the name
    of the file the PDF was made from, its suffix dropped: the caller ranks it below the
    title the first page shows, as a file name. A placeholder (:data:`_PLACEHOLDER`) or the
    PDF's own file name again (Chromium's title of a page whose <title> was its file's name)
    names nothing.
    """
    title = " ".join(title.split())
    job = _PRINT_JOB.fullmatch(title)
    name = job.group(1) if job else title
    file = _FILE_NAME.fullmatch(name)
    if file:
        name = file.group(1).strip()
    if not name or _PLACEHOLDER.fullmatch(name) or _same_name(name, stem):
        return None, None
    return (None, name) if job or file else (name, None)


_NAME_GAPS = re.compile(r"[\s_-]+")


def _same_name(a: str, b: str) -> bool:
    """Whether two names are one up to case and the marks file names put for spaces."""
    return _NAME_GAPS.sub(" ", a.casefold()).strip() == _NAME_GAPS.sub(" ", b.casefold()).strip()


class TextBuilder:
    """Append pieces of canonical text; each ``add`` returns the piece's exact span."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def add(self, piece: str, sep: str = "") -> tuple[int, int]:
        """Append ``sep`` (only when something precedes) then ``piece``; return its span."""
        if self._len and sep:
            self._parts.append(sep)
            self._len += len(sep)
        start = self._len
        self._parts.append(piece)
        self._len += len(piece)
        return start, self._len

    def text(self) -> str:
        return "".join(self._parts)


def escape_markdown(block: str) -> str:
    """Keep body text from being read as a heading or a code fence by the chunker.

    Extractors that turn real headings into ``# Title`` lines must make sure no
    other line looks like one: ``#hashtag`` is fine, ``# not a heading`` gets a
    backslash (Markdown's own escape), as does a line starting with a fence.
    """
    return _MD_SPECIAL.sub(lambda m: m.group(1) + "\\" + m.group(2), block)


def escape_points(block: str) -> list[int]:
    """Where :func:`escape_markdown` puts its backslashes: each before the offset of
    ``block`` it names, in order (to follow an offset of ``block`` into its escape)."""
    return [m.end(1) for m in _MD_SPECIAL.finditer(block)]


def fenced(body: str, info: str = "") -> str:
    """``body`` as a CommonMark fenced code block: opened by a run of backticks longer
    than any inside it (three at least), so no line of the code closes it, and ``info``
    after the opening fence (a language), less any space or backtick, which would end
    the info string or unmake the fence. The notebook and HTML extractors write code so.

    >>> print(fenced("x = `a` + ```b```", "py thon"))
    ````python
    x = `a` + ```b```
    ````
    """
    run = max((len(m.group()) for m in _BACKTICKS.finditer(body)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}{_NOT_IN_INFO.sub('', info)}\n{body}\n{fence}"


_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def roman(n: int) -> str:
    """``n`` (1 or more) in lower-case Roman numerals, as Word numbers endnotes and a
    browser an ``<ol type="i">``: ``roman(14) == "xiv"``."""
    out = ""
    for value, digits in _ROMAN:
        k, n = divmod(n, value)
        out += digits * k
    return out


def squash(text: str) -> str:
    """Inline text: runs of whitespace (newlines included) become one space."""
    return _SPACES.sub(" ", text.replace("\n", " ")).strip()


# Alt texts that describe nothing: a file name (what converters write, and PowerPoint
# when a picture is inserted: "python-logo.gif"), or a word naming the kind of thing, with
# a number at most ("Image 3", "Cover", "Figure").
NO_DESCRIPTION = re.compile(
    r"(?:image|img|picture|pic|photo|graphic|figure|fig\.?|illustration|cover|icon|logo|"
    r"spacer|placeholder)(?:\s*\d+)?|\S*\.(?:png|jpe?g|gif|svg|webp|bmp|tiff?|emf|wmf)", re.I)
# The sentence Microsoft 365 ends the alt text it writes itself with (it describes each
# picture inserted by a vision model: "A screenshot of a computer. Description
# automatically generated"), in English, German, French, Spanish, Italian, Portuguese and
# Dutch: generic words on how the picture looks, not the author's.
_AUTOMATIC = re.compile(
    r"(?:description automatically generated(?: with (?:very high|high|medium|low) "
    r"confidence)?|automatisch generierte beschreibung|description générée automatiquement|"
    r"descripción generada automáticamente|descrizione generata automaticamente|"
    r"descrição gerada automaticamente|automatisch gegenereerde beschrijving)\.?$", re.I)


def described(alt: str) -> str:
    """A picture's alt text (what a reader who cannot see it gets) on one line, or "" when
    it tells a reader of the text nothing: empty, a file name or a bare word such as
    ``Image 3`` (:data:`NO_DESCRIPTION`), or a description Office wrote itself.

    >>> described("Bar chart: enrolment rose from 1,200 in 2019\\nto 1,850 in 2023")
    'Bar chart: enrolment rose from 1,200 in 2019 to 1,850 in 2023'
    >>> described("python-logo.gif"), described("Picture 3")
    ('', '')
    >>> described("A screenshot of a computer. Description automatically generated")
    ''
    """
    alt = squash(alt)
    if not alt or NO_DESCRIPTION.fullmatch(alt) or _AUTOMATIC.search(alt):
        return ""
    return alt


def one_paragraph(text: str) -> str:
    """A block that must stay one paragraph for the chunker: no blank lines inside."""
    lines = [_SPACES.sub(" ", ln).strip() for ln in _BLANK_LINES.sub("\n", text).split("\n")]
    return "\n".join(ln for ln in lines if ln)


def prose_line(line: str) -> bool:
    """Whether a preformatted line reads as prose (see :data:`PROSE_LINE_MIN_CHARS` and
    after): long, opening with four words, no comment or prompt mark, one sign of code at
    most.

    >>> prose_line("> The server reads its configuration file once, at startup.")
    True
    >>> [prose_line(ln) for ln in ("# apt-get install the package for this host now",
    ...  "    set terminal png size 800,600   # the size of the picture",
    ...  "    return self.reader.read(block_size, timeout=self.timeout)",
    ...  " o--o--o--o--a--b <-- old head of the branch")]
    [False, False, False, False]
    """
    line = _QUOTE_MARKS.sub("", line, count=1)
    return len(line) >= PROSE_LINE_MIN_CHARS and not _CODE_LINE_START.match(line) \
        and not _TRAILING_COMMENT.search(line) and len(_CODE_SIGN.findall(line)) <= 1 \
        and _FOUR_WORDS.match(line) is not None


def prose_pre(text: str) -> bool:
    """Whether a preformatted block's text (a ``<pre>``'s) is prose: of :data:`PROSE_MIN_LINES` lines or more (blank
    ones not counted), over half of its characters (indentation not counted) are in lines
    that read as prose (:func:`prose_line`). Characters, not lines: a message's "Hi all,",
    "Thanks," and signature are lines as many as its paragraphs' and no code.

    >>> prose_pre("Hi all,\\n\\nThe mirror fails every time it reaches the security archive,\\n"
    ...           "though the keyring package was updated in the same run last night.\\n\\n"
    ...           "Thanks,\\nAna")
    True
    """
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    prose = sum(len(ln) for ln in lines if prose_line(ln))
    return len(lines) >= PROSE_MIN_LINES and 2 * prose > sum(map(len, lines))


OLE2_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the container of legacy .doc/.xls files


# An Office package is a ZIP file: its parts are unpacked in memory to be read, so its
# unpacked size, not its file size, is what reading it costs. A real document's XML packs
# 5-20 to 1 and its images do not pack at all; zeros pack 1000 to 1 (a "zip bomb": a
# 1.5 MB .docx that unpacks to 1.5 GB took the server to 3.5 GB of memory).
MAX_UNPACKED = 1 << 30  # bytes, all parts together
MAX_RATIO = 100  # unpacked / packed size of one part, once it is over RATIO_FROM bytes
RATIO_FROM = 16 << 20


def check_package(path: Path, rel: str, what: str) -> None:
    """Refuse an Office package that unpacks to more than :data:`MAX_UNPACKED`, or with a
    large part packed more than :data:`MAX_RATIO` to 1, before anything is unpacked
    (zipfile reads a part only up to the size its header declares, so the declared
    sizes bound what reading it could cost)."""
    with zipfile.ZipFile(path) as z:
        parts = z.infolist()
    total = sum(p.file_size for p in parts)
    if total > MAX_UNPACKED:
        raise ExtractionError(rel, f"this {what} unpacks to {total >> 20} MB (the most read is "
                                   f"{MAX_UNPACKED >> 20} MB): too big to index, or a zip bomb")
    for p in parts:
        if p.file_size > RATIO_FROM and p.file_size > MAX_RATIO * max(p.compress_size, 1):
            raise ExtractionError(
                rel, f"this {what}'s part {p.filename} unpacks {p.file_size // max(p.compress_size, 1)}"
                     f" to 1 to {p.file_size >> 20} MB (no document's part packs over "
                     f"{MAX_RATIO} to 1): a zip bomb, not read")


def main_part(package: Any, factory: Any, part_class: type, types: Sequence[str], path: Path,
              what: str) -> Any:
    """The main part of the Office Open XML package ``path``, opened by python-docx's or
    python-pptx's ``package`` class, whose part ``factory`` is first told to make a
    ``part_class`` of every content type in ``types`` (each library makes one of only
    some: a .docx's, a .pptx's); ValueError naming the content type of a main part of
    none of them (``what``: "a Word document", for a workbook renamed)."""
    for kind in types:
        factory.part_type_for.setdefault(kind, part_class)
    part = package.open(str(path)).main_document_part
    if part.content_type not in types or not isinstance(part, part_class):
        raise ValueError(f"it is not {what}: its main part is {part.content_type}")
    return part


# The stream a password-protected Office Open XML file keeps its package in (MS-OFFCRYPTO),
# named in the compound file's directory in UTF-16LE.
ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
# The main stream of each Office program's compound file, and what the file then is
OFFICE_STREAMS = (("WordDocument", "a Word document"), ("Workbook", "an Excel workbook"),
                  ("Book", "an Excel workbook"), ("PowerPoint Document", "a PowerPoint presentation"))


def missing_stream(streams: set[str], stream: str, what: str, legacy: str, modern: str) -> str:
    """Why a compound file whose streams are ``streams`` and has no ``stream`` (its program's
    main one: "WordDocument") is no ``what`` ("a Word document"): a password-protected
    ``modern`` file (an encrypted package; ``legacy`` the name it was saved under), another
    Office program's file, or neither."""
    if "EncryptedPackage" in streams:
        return (f"a password-protected Office Open XML document under a {legacy} name; save a "
                f"copy without the password as {modern}")
    for other, kind in OFFICE_STREAMS:
        if other != stream and other in streams:
            return f"{kind}, not {what} (it has no {stream} stream)"
    return f"not {what}: the compound file has no {stream} stream"


def cfb_directory(f: BinaryIO) -> bytes:
    """The first sectors of a compound file's directory (MS-CFB 2.2: the header gives
    the sector size and where the directory starts); a file too short gives less."""
    f.seek(0)
    header = f.read(512)
    if len(header) < 512:
        return b""
    size = 1 << int.from_bytes(header[0x1E:0x20], "little")
    first = int.from_bytes(header[0x30:0x34], "little")
    if size not in (512, 4096) or first >= 0xFFFFFFFA:  # not a sector number
        return b""
    f.seek((first + 1) * size)
    return f.read(4 * size)


def not_a_package(path: Path, what: str, legacy: str) -> str:
    """Why ``path``, which zipfile cannot open, is not an Office Open XML package
    (``what``: ".docx file"; ``legacy``: ".doc"): a legacy binary file under the new
    suffix (to rename when a reader reads its own, as .doc's and .xls's; else to save
    anew), a ZIP package cut short (a download or copy that stopped), or neither."""
    with path.open("rb") as f:
        head = f.read(8)
        directory = cfb_directory(f) if head.startswith(OLE2_SIGNATURE) else b""
    if ENCRYPTED_PACKAGE in directory:
        # Office keeps a password-protected .docx/.xlsx as an encrypted package inside
        # the same compound file a legacy one is: saving it again does not help
        return (f"the {what.split()[0]} is encrypted with a password; save a copy without "
                "the password to index it")
    if head.startswith(OLE2_SIGNATURE):
        from citeline.extract import supported  # the registry's, loaded by now

        if supported(Path("file" + legacy)):  # read under its own suffix (.doc, .xls)
            return f"a legacy {legacy} file, not a {what}: rename it {legacy} to index it"
        return f"a legacy {legacy} file, not a {what}; save it as {what.split()[0]}"
    if head.startswith(b"PK\x03\x04"):
        return (f"a damaged {what}: its ZIP package ends early (no central directory), as "
                "after an interrupted download or copy; save or fetch it again")
    return f"not a {what} (not a ZIP package); a legacy {legacy} must be saved as {what.split()[0]}"


# Embedded objects read as the files they are (Excel's and Word's, PowerPoint's, and
# LibreOffice's when it saves an embedded spreadsheet into a .docx), by their part's suffix
EMBEDDED_SUFFIXES = (".xlsx", ".xlsm", ".docx", ".docm", ".pptx", ".pptm")


def embedded_text(part: Any, warnings: list[str]) -> str | None:
    """The text of an embedded object (``part``: a workbook or a document in an Office
    package, with its ``partname`` and ``blob``: ``word/embeddings/oleObject1.xlsx``,
    ``ppt/embeddings/Microsoft_Excel_Worksheet.xlsx``), read as that file is:
    a workbook's rows a block each (as a table's rows are), a document's blocks as they
    are; "" when it holds no text. None when it is not read: an object of another kind
    (an OLE compound file, ``oleObject1.bin``: an equation, a Visio drawing, an Excel 97
    sheet), or one that cannot be read, said in ``warnings``."""
    import tempfile

    name = str(part.partname).rsplit("/", 1)[-1]
    suffix = Path(name).suffix.lower()
    if suffix not in EMBEDDED_SUFFIXES:
        warnings.append(f"an embedded object ({name}) is not read: only embedded workbooks, "
                        "documents and decks are")
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"embedded{suffix}"
        path.write_bytes(part.blob)
        return read_embedded(path, name, warnings)


# An object embedded in an object embedded in ... this deep is not read: a package that
# holds itself (a ZIP quine) would otherwise be read forever.
MAX_EMBEDDED_DEPTH = 3
_EMBEDDED_DEPTH: ContextVar[int] = ContextVar("embedded_depth", default=0)


def read_embedded(path: Path, name: str, warnings: list[str]) -> str | None:
    """The text of an embedded object written out as the file ``path`` (``name``: its
    name in the document), read by its format's extractor: a workbook's rows a block
    each (as a table's rows are), a document's blocks as they are; its warnings added to
    ``warnings``, naming it. None, said in ``warnings``, when it cannot be read or is
    embedded :data:`MAX_EMBEDDED_DEPTH` objects deep."""
    from citeline.extract import extractor_for

    depth = _EMBEDDED_DEPTH.get()
    if depth >= MAX_EMBEDDED_DEPTH:
        warnings.append(f"the embedded {name} is not read: it is embedded {depth + 1} objects "
                        "deep (a file that holds itself?)")
        return None
    token = _EMBEDDED_DEPTH.set(depth + 1)
    try:
        doc = extractor_for(path).extract(path, name)
    except ExtractionError as exc:
        warnings.append(f"the embedded {name} cannot be read ({exc.reason}); not indexed")
        return None
    finally:
        _EMBEDDED_DEPTH.reset(token)
    warnings.extend(f"embedded {name}: {w}" for w in doc.warnings)
    if doc.extractor in ("xlsx", "ods"):  # one block a row, as a table's
        return "\n\n".join(line for line in doc.text.split("\n") if line.strip())
    return doc.text
