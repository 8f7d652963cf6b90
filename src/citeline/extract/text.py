"""Markdown and plain text.

Canonical text = the file decoded as UTF-8 (a BOM dropped), or as UTF-16 or UTF-32
when it starts with their byte-order mark (Windows Notepad's "Unicode"), or, when it
is not UTF-8 and has no mark, as Windows-1252 if it is Western European text (with a
warning; other legacy encodings are refused, see :func:`western_text`), with line
endings normalised to ``\\n``; every ``#char=`` offset refers to that string.

A ``.txt`` file in Vim's help format (Vim's own manuals and every Vim plugin's
``doc/``) has its sections read from that format (:func:`vim_help_outline`).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from citeline.chunk import FRONT_MATTER, headings, text_lines
from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register, type_suffix
from citeline.types import Document, Heading

# Plain text marks a title by underlining it (a line of "=" or "-" below it, as
# setext Markdown, AsciiDoc, reStructuredText and most README/NEWS files do); the
# reStructuredText rule reads those: an underline at least as long as the title (or
# 4), a blank line above the title, one level per underline character in order of use.
_STYLES: dict[str, Literal["markdown", "rst"]] = {
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".qmd": "markdown",
    ".rmd": "markdown", ".rst": "rst", ".txt": "rst", ".text": "rst"}
_FM_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
# MDX (Markdown with JSX: Docusaurus, Nextra, Astro sites), Quarto and R Markdown are
# Markdown with more in it: read as Markdown, the file as written (an ``import`` line, a
# ``<Tabs>`` tag, a chunk's ``{r}`` fence header quoted as they are, as LaTeX's markup is)
_MEDIA_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".mdx": "text/mdx",
                ".qmd": "text/markdown", ".rmd": "text/markdown", ".rst": "text/x-rst"}

# Vim's help format (`:help help-writing`): the first line is "*name.txt*<Tab>what it
# is"; a line of "=" across the page opens a section, whose title is the next line
# with its "*tags*" at the right (a line of "-" opens a subsection); a manual's own
# title is the first line under its "VIM USER MANUAL" / "VIM REFERENCE MANUAL" banner.
# A rule is 40 characters or more: Vim's are 78, a table's dashes are shorter.
_VIM_HELP = re.compile(r"\*[^*\s]+\.txt\*[ \t]+(.*)")
_VIM_RULE = re.compile(r"([=-])\1{39,}[ \t]*")
_VIM_BANNER = re.compile(r"[ \t]*VIM [A-Z ]*MANUAL\b")
_VIM_TAG = re.compile(r"\*[^*\s|]+\*|~[ \t]*$")  # a tag; a "~" headline marker at the end
_VIM_MODELINE = re.compile(r"[ \t]*(vim?|ex):")  # "vim:tw=78:ts=8:ft=help:" under the last rule
VIM_TITLE_MAX = 60  # characters: a longer line under the banner is the first sentence


def undecodable(data: bytes, encoding: str, exc: UnicodeDecodeError, skipped: int = 0) -> str:
    """Where ``data`` breaks ``encoding``: the bytes, their offset from the file's start
    (a byte-order mark counted, as a hex editor counts) and their line: "byte 0xE9 at
    offset 21, line 2". ``skipped``: the bytes before what was decoded (a mark cut off);
    counted from after the mark, that byte was reported at offset 18, where a reader
    finds nothing wrong."""
    start, end = exc.start + skipped, exc.end + skipped
    line = data[:start].decode(encoding, "replace").count("\n") + 1
    bad = " ".join(f"0x{b:02X}" for b in data[start:end])
    return f"byte{'s' if end - start > 1 else ''} {bad} at offset {start}, line {line}"


# A file that is not UTF-8 and says nothing of its encoding is, most often, Western
# European text as Windows saved it before UTF-8 (Notepad's "ANSI", old Office exports,
# a web page with no charset, which browsers in Western locales read so): Windows-1252,
# a superset of Latin-1. Another legacy encoding also decodes as Windows-1252, byte for
# byte, into words no Western language has; two signs of that refuse the reading:
# A run of this many letters outside ASCII ("Ïðèâåò" is Cyrillic "Привет" in
# Windows-1251, "ÖÐÎÄ" Chinese in GBK; Greek, Hebrew, Arabic, Thai and a DOS box
# drawing's "ÍÍÍÍ" read alike), where Western words hold at most three (Icelandic "Þýð").
FOREIGN_LETTERS = 4
# ... and a sign between two letters, where Central European text in Windows-1250 puts
# its ł, ą and ż (Windows-1252's "³", "¹" and "¿": "by³a", "mo¿e"); in Western text
# only an apostrophe, a dash, Catalan's middle dot, a soft hyphen or an ellipsis do.
_IN_WORD_MARKS = "\u2019\u2018\u00b7\u2013\u2014\u00ad\u2026"
_SIGNS = "".join(c for c in bytes(range(0x80, 0x100)).decode("cp1252", "ignore")
                 if not c.isalpha() and not c.isspace() and c not in _IN_WORD_MARKS)
_LETTER = r"[^\W\d_]"
_NOT_WESTERN = re.compile(rf"(?:(?![\x00-\x7f]){_LETTER}){{{FOREIGN_LETTERS},}}"
                          rf"|{_LETTER}[{re.escape(_SIGNS)}]{_LETTER}")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WORD_END = re.compile(r"[\s<>]")  # a word's end; <>: a page's tags


def _word_at(text: str, at: int) -> tuple[int, str]:
    """The line of ``text[at]`` and the word around it (at most 40 characters)."""
    start = max(text.rfind(c, 0, at) for c in " \t\n\r<>") + 1
    end = m.start() if (m := _WORD_END.search(text, at)) else len(text)
    return text.count("\n", 0, at) + 1, text[start:end][:40]


def western_text(data: bytes) -> tuple[str | None, str]:
    """``data`` read as Windows-1252 (Western European) and where its first word outside
    ASCII is ("line 3 reads 'Crème'"); or None and why it is no such text.

    What cannot be told apart, and is read so: a Central European, Turkish or Baltic
    file whose every letter has a Western look-alike ("Pøíliš" for Czech "Příliš"); the
    caller says which encoding it assumed and shows that word, so a reader can tell.
    """
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError as exc:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D: Shift-JIS, Big5...
        return None, f"its byte 0x{data[exc.start]:02X} at offset {exc.start} is no character there"
    if bad := _NOT_WESTERN.search(text):
        line, word = _word_at(text, bad.start())
        return None, f"read so, line {line} holds {word!r}, no Western European word"
    first = _NON_ASCII.search(text)
    line, word = _word_at(text, first.start()) if first else (0, "")
    return text, f"line {line} reads {word!r}"


def damaged_after_mark(encoding: str, where: str) -> str:
    """Why a file whose byte-order mark names ``encoding`` cannot be read."""
    return (f"starts with {encoding}'s byte-order mark, but its {where}, "
            f"{'are' if where.startswith('bytes') else 'is'} not {encoding}: part of the file "
            "was saved in another encoding, or it is damaged")


def decode(rel: str, data: bytes, western: bool = False) -> tuple[str, str]:
    """Bytes -> (canonical text, a warning or ""), or ExtractionError with the reason:
    :func:`decode_bytes`'s text, refused when blank, its line ends made ``\\n``."""
    text, warning = decode_bytes(rel, data, western)
    if not text.strip():
        raise ExtractionError(rel, "empty file (no text to index)")
    return text.replace("\r\n", "\n").replace("\r", "\n"), warning


def decode_bytes(rel: str, data: bytes, western: bool = False,
                 kind: str = "text") -> tuple[str, str]:
    """Bytes -> (the text as written, a warning or ""), or ExtractionError with the reason:
    UTF-8, or UTF-16/32 after their byte-order mark (the mark dropped). Its line ends are
    left as they are, for a reader that parses them (a CSV's records); ``kind`` is what a
    file holding a NUL is not ("binary file (contains NUL bytes), not CSV").

    With ``western``, a file that is not UTF-8 and has no byte-order mark is read as
    Windows-1252 when it is Western European text (:func:`western_text`), with a
    warning naming the encoding assumed and the first word it changed; otherwise it is
    refused, saying why it is neither. A file with a mark is never read so: its mark
    says what it is, and bytes breaking it are damage.
    """
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16's
        encoding, what = "utf-32", "not valid UTF-32 after its byte-order mark"  # (BOM dropped)
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16, whose ASCII holds NUL bytes
        encoding, what = "utf-16", "not valid UTF-16 after its byte-order mark"  # (BOM dropped)
    elif data.startswith(codecs.BOM_UTF8):  # the mark says UTF-8: a byte that is not is damage
        encoding, what = "utf-8", "starts with UTF-8's byte-order mark"
    else:
        encoding, what = "utf-8", "not valid UTF-8"
    if encoding == "utf-8" and b"\x00" in data:  # one NUL anywhere is binary
        raise ExtractionError(rel, f"binary file (contains NUL bytes), not {kind}")
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0  # dropped
    warning = ""
    try:
        text = data[bom:].decode(encoding)
    except UnicodeDecodeError as exc:
        where = undecodable(data, encoding, exc, bom)
        if bom:  # not "not valid UTF-8": its other bytes are, as its mark says
            raise ExtractionError(rel, damaged_after_mark("UTF-8", where)) from exc
        if encoding != "utf-8" or not western:
            raise ExtractionError(rel, f"{what} (undecodable {where})") from exc
        legacy, seen = western_text(data)
        if legacy is None:
            raise ExtractionError(rel, f"{what} (undecodable {where}), nor Western European "
                                       f"text (Windows-1252): {seen}; it is in some other "
                                       "encoding: save it as UTF-8") from exc
        text, warning = legacy, (f"not UTF-8: read as Windows-1252, Western European ({seen}); "
                                 "if accented letters look wrong, save it as UTF-8")
    if "\x00" in text:  # a NUL character in UTF-16/32 text: binary all the same
        raise ExtractionError(rel, f"binary file (contains NUL characters), not {kind}")
    return text, warning


def heading_title(text: str, style: str, fallback: str) -> str:
    """The first level-1 heading (Markdown: ATX ``#`` or setext ``===``, outside code
    fences; reStructuredText: the first section title), else a Markdown file's YAML
    front matter ``title:`` (static-site pages often have no ``#`` title), else
    ``fallback``."""
    first = next((h.title for h in headings(text, style) if h.level == 1), None)
    if first is not None:
        return first
    if style == "markdown" and (fm := FRONT_MATTER.match(text)):
        if (m := _FM_TITLE.search(fm.group())) and (title := m.group(1).strip().strip("\"'")):
            return title
    return fallback


def vim_help_outline(text: str, fallback: str) -> tuple[str, tuple[Heading, ...]] | None:
    """A Vim help file's title and headings (level 1: its title; 2: each "=" rule with
    the title under it; 3: each "-" rule's), or None when ``text`` is not one. A
    section starts at its rule."""
    lines = text_lines(text)
    first = _VIM_HELP.fullmatch(lines[0][2]) if lines else None
    if first is None:
        return None

    def name(line: str) -> str:
        return " ".join(_VIM_TAG.sub(" ", line).split())

    # "For Vim version 9.0.  Last change: ..." says which Vim, not what the file is
    described = name(first.group(1))
    title = fallback if described.startswith("For Vim version") or not described else described
    top = Heading(0, 1, title, lines[0][1])
    banner = next((i for i, (_, _, line) in enumerate(lines[:12]) if _VIM_BANNER.match(line)), None)
    if banner is not None:
        # the title is a line of its own below the banner, after a blank line (the line
        # right under it continues the banner: "by ..."), tags alone skipped; a file
        # that opens with prose there has none
        blank = False
        for k in range(banner + 1, min(banner + 9, len(lines))):
            start, end, line = lines[k]
            if not line.strip():
                blank = True
                continue
            if not blank or not name(line):  # the banner's own "by ..." line; tags alone
                continue
            alone = k + 1 == len(lines) or not lines[k + 1][2].strip()
            if alone and len(name(line)) <= VIM_TITLE_MAX and not _VIM_RULE.fullmatch(line):
                title = name(line)
                top = Heading(start, 1, title, end)
            break
    heads = [top]
    for (start, _, line), (_, end, below) in zip(lines, lines[1:]):
        rule = _VIM_RULE.fullmatch(line)
        if (rule and start > top.start and below.strip() and not below[0].isspace()
                and not _VIM_RULE.fullmatch(below) and not _VIM_MODELINE.match(below)
                and name(below)):
            heads.append(Heading(start, 2 if rule.group(1) == "=" else 3, name(below), end))
    return title, tuple(heads)


def outlined_text(path: Path, rel: str, extractor: str, version: str, media_type: str,
                  outline: Callable[[str, str], tuple[str, tuple[Heading, ...]]]) -> Document:
    """A text file read as written (:func:`decode`), its title and sections from
    ``outline(text, fallback)`` (the file's stem the fallback title): how the AsciiDoc and
    Org readers read their files."""
    text, warning = decode(rel, read_bytes(path, rel), western=True)
    title, heads = outline(text, path.stem)
    return Document(path=rel, title=title, text=text, media_type=media_type,
                    extractor=extractor, extractor_version=version, headings="outline",
                    outline=heads, warnings=(warning,) if warning else ())


class TextExtractor:
    name = "text"
    # 2: UTF-16 with a byte-order mark is read, not refused as binary; 3: setext
    # headings in Markdown and section titles in reStructuredText make sections, and
    # a Markdown file without a "#" title takes its front matter's title; 4: so do
    # underlined titles in plain text; 5: Vim help files' sections; 6: UTF-32 with a
    # byte-order mark is read, and a NUL character in UTF-16/32 text is binary; 7: a file
    # that is not UTF-8 is read as Windows-1252 when it is Western European text; 8: a file
    # named by convention without a suffix (README, NEWS, copyright) is read as a .txt,
    # titled with its folder's name when it has no title of its own ("curl copyright")
    version = "8"
    suffixes = (".md", ".markdown", ".mdx", ".qmd", ".rmd", ".txt", ".text", ".rst")

    def extract(self, path: Path, rel: str) -> Document:
        text, warning = decode(rel, read_bytes(path, rel), western=True)
        warnings = (warning,) if warning else ()
        suffix = type_suffix(path)  # README's is .txt's
        media_type = _MEDIA_TYPES.get(suffix, "text/plain")
        vim = vim_help_outline(text, path.stem) if suffix in (".txt", ".text") else None
        if vim is not None:
            title, outline = vim
            return Document(path=rel, title=title, text=text, media_type=media_type,
                            extractor=self.name, extractor_version=self.version,
                            headings="outline", outline=outline, warnings=warnings)
        style = _STYLES.get(suffix, "none")
        fallback = path.stem
        if suffix != path.suffix.lower():  # a README, a copyright: named by the folder too
            fallback = " ".join((Path(rel).parent.name, path.name)).strip()
        return Document(
            path=rel,
            title=heading_title(text, style, fallback),
            text=text,
            media_type=media_type,
            extractor=self.name,
            extractor_version=self.version,
            headings=style,
            warnings=warnings,
        )


register(TextExtractor())
