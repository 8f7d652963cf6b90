"""Rich Text Format (``.rtf``): WordPad's, TextEdit's and old Word's documents.

RTF is text: groups in braces, control words (``\\par``, ``\\b``, ``\\'e9``). This reader
interprets it in Python (the stdlib only) and writes the canonical text as the Word
reader (:mod:`citeline.extract.docx`) writes a ``.docx``'s:

- a paragraph a block; a paragraph in a heading style (the stylesheet's ``heading 1`` ...
  ``heading 9``, or an outline level: ``\\outlinelevel0`` is level 1) a ``#`` line; in a
  document with no heading styles, one set as a heading by hand (large or bold: the Word
  reader's rule, :func:`~citeline.extract.blocks.formatted_levels`);
- a table row one line, its cells joined by " | " (a cell's paragraphs by a space);
- a footnote (``{\\footnote ...}``) a block of its own after the paragraph that refers to
  it, ``Footnote 1: ...``, numbered in the order they come;
- a field's result, not its instruction (``HYPERLINK "..."``); no hidden text
  (``\\v``) and no tracked deletion (``\\deleted``);
- characters as the document encodes them: ``\\uN`` (Unicode), ``\\'hh`` in the code
  page of the font they are set in (``\\fcharset128`` is Japanese, Shift-JIS) or else the
  document's (``\\ansicpg1252``), two bytes of a double-byte code page read together.

- a picture's text (a screenshot, a pasted scan: ``{\\*\\shppict{\\pict\\pngblip ...}}``,
  or a bare ``{\\pict ...}``, its PNG or JPEG in hex or ``\\bin`` bytes) read by OCR as the
  Word reader reads one (:class:`~citeline.extract.image.PictureReader`), after its
  paragraph or row; the fallback a writer adds for old readers (``\\nonshppict``) is not
  read again, and a metafile is counted in a warning.

Dropped: the font, colour, list and style tables, objects, floating shapes, headers and
footers, and every destination marked ignorable (``{\\*\\...}``) that is none of these.
The title is the document's (``{\\info{\\title ...}}``) unless it names nothing (a
placeholder, a file's name: :func:`~citeline.extract.blocks.metadata_title`), else its
first heading, else the file's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register
from citeline.extract.blocks import (
    TextBuilder,
    escape_markdown,
    formatted_levels,
    metadata_title,
    one_paragraph,
    squash,
)
from citeline.extract.image import PictureReader
from citeline.types import Document

# \word and its number (and the one space that may end it), \'hh, a control symbol, a
# brace, a line end (no text in RTF), or a run of text
TOKEN = re.compile(r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])"
                    r"|[\r\n]+|([^\\{}\r\n]+)", re.S)
# destinations whose text is not the document's
SKIPPED = frozenset("""
    fonttbl colortbl stylesheet info pict object objdata themedata colorschememapping
    datastore latentstyles listtable listoverridetable rsidtbl generator xmlnstbl mmathPr
    header headerl headerr headerf footer footerl footerr footerf nonshppict shpinst
    pgdptbl filetbl revtbl protusertbl fldinst bkmkstart bkmkend xe tc template
    userprops docvar atnid atnauthor annotation
    """.split())
# a font's \fcharset -> the code page its \'hh bytes are in (2 is Symbol: no text)
CHARSETS = {0: 1252, 77: 10000, 128: 932, 129: 949, 130: 1361, 134: 936, 136: 950, 161: 1253,
            162: 1254, 163: 1258, 177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874,
            238: 1250, 255: 437}
_SYMBOLS = {"emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022", "lquote": "\u2018",
            "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d", "emspace": " ",
            "enspace": " ", "qmspace": " ", "tab": "\t", "line": "\n", "zwj": "", "zwnj": ""}
_CONTROL_SYMBOLS = {"~": "\u00a0", "-": "", "_": "-", "\\": "\\", "{": "{", "}": "}"}
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.I)
MAX_LEVEL = 6
DEFAULT_SIZE = 12.0  # RTF's default font size, in points


@dataclass(frozen=True)
class _Group:
    """What a group sets, restored at its closing brace."""

    dest: str = ""  # "" the body; a destination's name ("footnote", "title", a skipped one)
    uc: int = 1  # characters standing in for a \\uN after it
    font: int | None = None
    hidden: bool = False  # \\v, \\deleted
    size: float = DEFAULT_SIZE  # points (\\fsN is half-points)
    bold: bool = False


# A picture's format, by the control word saying it (in \pict)
_PICTURE_WORDS = {"pngblip": "PNG", "jpegblip": "JPEG", "emfblip": "EMF", "wmetafile": "WMF",
                  "macpict": "PICT", "dibitmap": "DIB", "wbitmap": "BMP"}
_HEX_SPACE = re.compile(r"\s+")


class _Reader:
    def __init__(self, rel: str, pictures: PictureReader) -> None:
        self.rel = rel
        self.pictures = pictures
        self.picture: list[str] = []  # the \pict being read: its data in hex
        self.picture_kind = ""
        self.codepage = 1252
        self.fonts: dict[int, int] = {}  # font number -> code page
        self.font_entry = 0  # the font table's entry being read (its \\fN)
        self.styles: dict[int, int] = {}  # paragraph style -> heading level
        self.style_names: dict[int, str] = {}
        self.title = ""
        self.title_parts: list[str] = []  # {\\info{\\title ...}}'s text, as it is read
        # (heading level or None, text, its runs: (characters, size, bold); None when not
        # a paragraph of the body, a table row or a note)
        self.blocks: list[tuple[int | None, str, list[tuple[int, float, bool]] | None]] = []
        self.para: list[str] = []
        self.runs: list[tuple[int, float, bool]] = []
        self.cells: list[str] = []  # the row's cells so far
        self.cell: list[str] = []  # the cell's paragraphs so far
        self.style = 0
        self.outline: int | None = None
        self.in_table = False
        self.notes: list[str] = []  # footnotes of the paragraph being read
        self.note: list[str] = []
        self.note_count = 0
        self.saved: tuple[int, int | None, bool] = (0, None, False)  # around a footnote
        self.pending = bytearray()  # \\'hh bytes, read together (a double-byte character)
        self.skip = 0  # characters left to skip after a \\uN
        # the stylesheet's entry being read: its number, name, outline level
        self.entry: tuple[int | None, list[str], int | None] = (None, [], None)

    # -- characters
    def _sink(self, group: _Group) -> list[str] | None:
        if group.hidden:
            return None
        if group.dest == "":
            return self.para
        if group.dest == "footnote":
            return self.note
        if group.dest == "title":
            return self.title_parts
        if group.dest == "stylesheet-entry":
            return self.entry[1]
        return None

    def flush(self, group: _Group) -> None:
        """The pending ``\\'hh`` bytes, decoded in their font's code page."""
        if not self.pending:
            return
        data, self.pending = bytes(self.pending), bytearray()
        page = self.fonts.get(group.font, self.codepage) if group.font is not None \
            else self.codepage
        try:
            text = data.decode(f"cp{page}" if page not in (10000,) else "mac_roman", "replace")
        except LookupError:
            text = data.decode("cp1252", "replace")
        self.put(text, group)

    def put(self, text: str, group: _Group) -> None:
        sink = self._sink(group)
        if sink is not None:
            sink.append(text)
            if sink is self.para and text.strip():
                self.runs.append((len(text.strip()), group.size, group.bold))

    # -- structure
    def end_paragraph(self) -> None:
        text = "".join(self.para)
        runs, self.para, self.runs = self.runs, [], []
        if self.in_table:
            self.cell.append(squash(text))
            return
        level = self.outline if self.outline is not None else self.styles.get(self.style)
        if text.strip():
            self.blocks.append((level, text, runs))
        for note in self.notes:
            self.blocks.append((None, note, None))
        self.notes = []

    def end_cell(self) -> None:
        if self.para:
            self.cell.append(squash("".join(self.para)))
            self.para, self.runs = [], []
        self.cells.append(" ".join(c for c in self.cell if c))
        self.cell = []

    def end_row(self) -> None:
        if self.para or self.cell:
            self.end_cell()
        if any(self.cells):
            self.blocks.append((None, " | ".join(self.cells), None))
        for note in self.notes:
            self.blocks.append((None, note, None))
        self.cells, self.notes = [], []

    def end_note(self) -> None:
        text = squash("".join(self.note))
        self.note = []
        if text:
            self.note_count += 1
            self.notes.append(f"Footnote {self.note_count}: {text}")

    def end_picture(self) -> None:
        """The \\pict just read: its text (OCR) a block after its paragraph or row."""
        data, kind = "".join(self.picture), self.picture_kind
        self.picture, self.picture_kind = [], ""
        if kind not in ("PNG", "JPEG"):
            if kind:
                self.pictures.not_read(kind)
            return
        try:
            blob = bytes.fromhex(_HEX_SPACE.sub("", data))
        except ValueError:
            self.pictures.warnings.append(f"a {kind} picture whose data is not hex: not read")
            return
        if text := self.pictures.text(blob, kind):
            self.notes.extend(text.split("\n\n"))

    def end_style(self) -> None:
        number, name, outline = self.entry
        if number is not None:
            words = "".join(name).split(";")[0].strip()
            self.style_names[number] = words
            if outline is not None:
                self.styles[number] = min(outline + 1, MAX_LEVEL)
            elif (m := _HEADING_STYLE.fullmatch(words)) and 1 <= int(m.group(1)) <= 9:
                self.styles[number] = min(int(m.group(1)), MAX_LEVEL)
        self.entry = (None, [], None)

    def read(self, data: str) -> None:  # noqa: C901 (one case a token)
        stack: list[_Group] = []
        group = _Group(dest="root")
        pos = 0
        n = len(data)
        while pos < n:
            m = TOKEN.match(data, pos)
            if m is None:  # a lone backslash at the end
                break
            pos = m.end()
            word, num, hexa, sym, brace, text = m.group(1, 2, 3, 4, 5, 6)
            if hexa is None and self.pending:
                self.flush(group)
            if brace == "{":
                stack.append(group)
                group = replace(group, dest="" if group.dest == "root" else group.dest)
                if group.dest == "stylesheet":
                    group = replace(group, dest="stylesheet-entry")
                continue
            if brace == "}":
                if group.dest == "footnote" and (not stack or stack[-1].dest != "footnote"):
                    self.end_note()
                    self.style, self.outline, self.in_table = self.saved
                if group.dest == "stylesheet-entry" and stack and stack[-1].dest == "stylesheet":
                    self.end_style()
                if group.dest == "title" and (not stack or stack[-1].dest != "title"):
                    self.title = squash("".join(self.title_parts))
                if group.dest == "pict" and (not stack or stack[-1].dest != "pict"):
                    self.end_picture()
                group = stack.pop() if stack else group
                continue
            if hexa is not None:
                if self.skip:
                    self.skip -= 1
                elif self._sink(group) is not None:
                    self.pending.append(int(hexa, 16))
                continue
            if text is not None and group.dest == "pict":
                self.picture.append(text)
                continue
            if text is not None:
                if self.skip:
                    cut = min(self.skip, len(text))
                    self.skip -= cut
                    text = text[cut:]
                if text:
                    self.put(text.encode("latin-1").decode(f"cp{self.codepage}", "replace")
                             if any(ord(c) > 127 for c in text) else text, group)
                continue
            if sym is not None:
                if sym == "*":
                    group = replace(group, dest="*")  # an ignorable destination, unless known
                elif sym in ("\n", "\r"):
                    if group.dest == "":
                        self.end_paragraph()
                elif sym in _CONTROL_SYMBOLS:
                    self.put(_CONTROL_SYMBOLS[sym], group)
                continue
            if word is None:  # a line end: no text
                continue
            value = int(num) if num is not None else None
            if word == "bin" and value:  # raw bytes: skipped whole (a picture's, kept)
                if group.dest == "pict":
                    self.picture.append(data[pos:pos + value].encode("latin-1").hex())
                pos += value
                continue
            if group.dest == "*":  # {\*\word ...}: a destination nobody here reads
                # (but a picture's shape, {\*\shppict{\pict ...}}, holds the body's picture)
                group = replace(group, dest="" if word == "shppict" and stack
                                and stack[-1].dest == "" else
                                word if word == "footnote" else "skip")
                continue
            if word == "pict" and group.dest == "":  # a picture in the body's flow
                group = replace(group, dest="pict")
                continue
            if group.dest == "pict":
                if word in _PICTURE_WORDS:
                    self.picture_kind = _PICTURE_WORDS[word]
                continue
            if word in SKIPPED and word not in ("stylesheet", "fonttbl", "info"):
                group = replace(group, dest="skip")
                continue
            if word in ("stylesheet", "fonttbl", "info"):
                group = replace(group, dest=word)
                continue
            if word == "footnote":  # read apart: its own \pard does not end the paragraph
                group = replace(group, dest="footnote")
                self.saved = (self.style, self.outline, self.in_table)
                continue
            if word == "title" and group.dest == "info":
                group = replace(group, dest="title")
                continue
            if group.dest in ("skip", "root") and word not in ("ansicpg", "mac", "pc", "pca",
                                                                 "uc", "deff"):
                continue
            if group.dest == "fonttbl":
                if word == "f" and value is not None:
                    self.font_entry = value
                elif word == "fcharset" and value is not None and value in CHARSETS:
                    self.fonts[self.font_entry] = CHARSETS[value]
                continue
            if group.dest == "stylesheet-entry":
                if word == "s" and value is not None:
                    self.entry = (value, self.entry[1], self.entry[2])
                elif word in ("cs", "ds", "ts", "tsrowd"):
                    self.entry = (None, [], None)  # a character, section or table style
                elif word == "outlinelevel" and value is not None and self.entry[0] is not None:
                    self.entry = (self.entry[0], self.entry[1], value)
                continue
            if word == "ansicpg" and value:
                self.codepage = value
            elif word in ("mac", "pc", "pca"):
                self.codepage = {"mac": 10000, "pc": 437, "pca": 850}[word]
            elif word == "uc" and value is not None:
                group = replace(group, uc=value)
            elif word == "u" and value is not None:
                self.put(chr(value + 65536 if value < 0 else value), group)
                self.skip = group.uc
            elif word == "f" and value is not None:
                group = replace(group, font=value)
            elif word in ("v", "deleted"):
                group = replace(group, hidden=value != 0)
            elif word == "fs" and value:
                group = replace(group, size=value / 2)
            elif word == "b":
                group = replace(group, bold=value != 0)
            elif word == "plain":
                group = replace(group, size=DEFAULT_SIZE, bold=False, hidden=False)
            elif word in ("par", "sect", "page"):
                if group.dest == "":
                    self.end_paragraph()
                elif group.dest == "footnote":
                    self.note.append(" ")
            elif group.dest != "":  # a footnote's paragraph properties are its own
                continue
            elif word == "pard":
                self.style, self.outline, self.in_table = 0, None, False
            elif word == "s" and value is not None:
                self.style = value
            elif word == "outlinelevel" and value is not None:
                self.outline = min(value + 1, MAX_LEVEL) if value < 9 else None
            elif word == "intbl":
                self.in_table = True
            elif word in ("cell", "nestcell"):
                self.end_cell()
            elif word in ("row", "nestrow"):
                self.end_row()
            elif word in _SYMBOLS:
                self.put(_SYMBOLS[word], group)
        if self.pending:
            self.flush(group)
        if self.para or self.notes:
            self.end_paragraph()
        if self.cells or self.cell:
            self.end_row()


def looks_like_rtf(data: bytes) -> bool:
    return data.lstrip()[:5] == b"{\\rtf"


def rtf_text(data: bytes, rel: str, warnings: list[str],
             plain: bool = False) -> tuple[str, str, str]:
    """An RTF document's canonical text (see the module docstring), its first heading
    and its ``\\title`` ("" for none); ``rel`` names it in what ``warnings`` gets. With
    ``plain``, its paragraphs as plain text: a heading a paragraph like the rest, no
    character escaped for Markdown (a message's body, which the e-mail reader reads as
    plain text)."""
    pictures = PictureReader(warnings)
    reader = _Reader(rel, pictures)
    reader.read(data.decode("latin-1"))  # bytes as characters: \'hh are read as bytes
    pictures.close()
    blocks = reader.blocks
    if not any(level for level, _, _ in blocks):  # no heading styles: the formatting
        paragraphs = [(text, runs) for _, text, runs in blocks if runs is not None]
        levels = iter(formatted_levels(paragraphs))
        blocks = [(next(levels) if runs is not None else None, text, runs)
                  for _, text, runs in blocks]
    out = TextBuilder()
    first_heading = ""
    for level, text, _ in blocks:
        if level is not None and squash(text) and not plain:
            out.add("#" * level + " " + squash(text), sep="\n\n")
            first_heading = first_heading or squash(text)
        elif (body := one_paragraph(text.replace("\t", " ").replace("\u00a0", " "))):
            out.add(body if plain else escape_markdown(body), sep="\n\n")
    return out.text(), first_heading, reader.title or ""


class RtfExtractor:
    name = "rtf"
    version = "3"  # 2: a \title that names nothing (Word's "Document1") is no title; 3:
    # the text of its pictures, read by OCR, after their paragraph or row
    suffixes = (".rtf",)

    def extract(self, path: Path, rel: str) -> Document:
        data = read_bytes(path, rel)
        if not looks_like_rtf(data):
            what = "a ZIP package (a .docx?)" if data[:4] == b"PK\x03\x04" else \
                "a Word 97-2003 file (.doc)" if data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" \
                else "its first bytes are not {\\rtf"
            raise ExtractionError(rel, f"not an RTF file: {what}")
        warnings: list[str] = []
        text, first_heading, title = rtf_text(data, rel, warnings)
        if not text.strip():
            raise ExtractionError(rel, "; ".join(warnings) or "the document has no text in its body")
        own, named = metadata_title(title, path.stem) if title else (None, None)
        return Document(
            path=rel, title=own or first_heading or named or path.stem, text=text,
            media_type="application/rtf", extractor=self.name, extractor_version=self.version,
            warnings=tuple(warnings), headings="atx",
        )


register(RtfExtractor())
