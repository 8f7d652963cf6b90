"""GNU Info manuals: what makeinfo writes from Texinfo, as ``/usr/share/info`` keeps them.

``sed.info.gz`` is read as ``sed.info`` (:mod:`citeline.extract.compressed`). An Info
file is the manual's nodes, each opened by a ``\\x1f`` line and a header naming it
(``File: sed.info,  Node: Introduction,  Next: ...``), with the file's tables of node
offsets (``Tag Table:``) and, for a manual makeinfo split in parts (``find.info``,
``find.info-1``, ``find.info-2``), the list of its parts (``Indirect:``).

Canonical text, every ``#char=`` offset refers to it: each node's text as makeinfo
filled it, a blank line between nodes, with

- its titles, which makeinfo underlines (``*`` a chapter, ``=`` a section, ``-`` a
  subsection, ``.`` a subsubsection), as ``#`` to ``####`` lines: the manual's sections;
- a cross reference (``*note Regexp Addresses::``, ``*Note Foo: bar.``) read as the
  words it stands for ("see Regexp Addresses", "See Foo.");
- a picture as its alt text, when it has one.

Dropped, as a web page's navigation is: the node headers, each node's menu (``* Menu:``
and the entries after it: links to other nodes), the index nodes (a list of links to
lines), the tables of offsets, and the preamble before the first node (the directory
entry and a copy of the Top node's licence notice).

A manual split in parts is one document: its main file is read with its parts, found
beside it by the names its ``Indirect:`` table gives (compressed or not, as the main
file); a part is skipped while its main file is beside it, and read on its own
otherwise. The title is the Top node's (``GNU ‘sed’``), else the directory entry's name
and description (``bc — An arbitrary precision calculator language``), else the file's
name.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import compressed, read_bytes, register
from citeline.extract.blocks import TextBuilder, escape_markdown
from citeline.extract.text import decode
from citeline.types import Document

NODE_SEP = "\x1f"
_HEADER = re.compile(r"File:\s*[^,]*,\s*Node:\s*(?P<node>[^,\t\n]+)")
_PART = re.compile(r"(?P<name>[^:\n]+):\s*\d+\s*$")
# makeinfo's underline characters, by level
LEVELS = {"*": 1, "=": 2, "-": 3, ".": 4}
# makeinfo's markers (an index node's, a picture's) are bracketed by NUL and backspace,
# "\x00\x08[index\x00\x08]": made printable before the file is decoded (a NUL anywhere
# else is a binary file, refused as such), then dropped, or read for a picture's alt text
_MARK_OPEN, _MARK_CLOSE = "\x02[", "\x02]"
_INDEX_MARK = f"{_MARK_OPEN}index{_MARK_CLOSE}"
_MARKUP = re.compile(r"\x02\[(?P<kind>\w+)(?P<attrs>[^\x02]*)\x02\]")
# the directory entry in the preamble: "* bc: (bc).   An arbitrary precision calculator"
_DIR_ENTRY = re.compile(r"^\* (?P<name>[^:\n]+):\s*\([^)\n]*\)[^.\n]*\.\s+(?P<what>\S.*)$", re.M)
_ALT = re.compile(r'\btext="(?P<text>(?:[^"\\]|\\.)*)"')
_MENU = re.compile(r"^\* Menu:", re.M)
# "*note Foo::", "*Note Label: Node name." (the node name may run onto the next line)
_XREF_SHORT = re.compile(r"\*(?P<n>[Nn])ote[ \t\n]+(?P<name>[^:*]+?)::")
_XREF_LONG = re.compile(r"\*(?P<n>[Nn])ote[ \t\n]+(?P<label>[^:*]+?):[ \t\n]+"
                        r"(?:\([^)\n]*\))?[^.,:*]*?(?P<end>[.,])")
_BLANKS = re.compile(r"\n{3,}")
# An Info file's part: "find.info-1" (the suffix type_suffix reads as .info)
PART_SUFFIX = re.compile(r"\.info-(?P<n>\d+)$", re.I)


def _see(m: re.Match[str], words: str) -> str:
    return ("See " if m.group("n") == "N" else "see ") + " ".join(words.split())


def plain_refs(text: str) -> str:
    """Cross references as the words they stand for.

    >>> plain_refs("(*note Execution Cycle::) and *Note the manual: Top. Done")
    '(see Execution Cycle) and See the manual. Done'
    """
    text = _XREF_SHORT.sub(lambda m: _see(m, m.group("name")), text)
    return _XREF_LONG.sub(lambda m: _see(m, m.group("label")) + m.group("end"), text)


def _markup(m: re.Match[str]) -> str:
    """A picture's alt text; any other of makeinfo's markers (``index``), nothing."""
    if m.group("kind") == "image" and (alt := _ALT.search(m.group("attrs"))):
        return re.sub(r"\\(.)", r"\1", alt.group("text"))
    return ""


def underline_level(title: str, under: str) -> int | None:
    """The level of ``title`` when ``under`` is makeinfo's underline of it: one of
    :data:`LEVELS`' characters, as long as the title (one off, for a wide character)."""
    title, under = title.rstrip(), under.rstrip()
    if not title or title[0].isspace() or len(under) < 2 or under[0] not in LEVELS \
            or under.strip(under[0]) or abs(len(under) - len(title)) > 1:
        return None
    return LEVELS[under[0]]


def node_blocks(body: str) -> tuple[list[str], list[tuple[int, str]]]:
    """One node's text as blocks (titles as ``#`` lines, the rest escaped) and its titles
    (level, title), less its menu."""
    if (menu := _MENU.search(body)) is not None:
        body = body[:menu.start()]
    body = plain_refs(_MARKUP.sub(_markup, body.replace("\x7f", "")))
    lines = body.split("\n")
    blocks: list[str] = []
    titles: list[tuple[int, str]] = []
    run: list[str] = []
    i = 0
    while i < len(lines):
        level = underline_level(lines[i], lines[i + 1]) if i + 1 < len(lines) else None
        if level is None:
            run.append(lines[i])
            i += 1
            continue
        if "\n".join(run).strip():
            blocks.append(escape_markdown("\n".join(run).strip("\n")))
        run = []
        title = " ".join(lines[i].split())
        blocks.append(f"{'#' * level} {title}")
        titles.append((level, title))
        i += 2
    if "\n".join(run).strip():
        blocks.append(escape_markdown("\n".join(run).strip("\n")))
    return blocks, titles


def _nodes(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The nodes of one Info file, (name, text) in order, and the parts its
    ``Indirect:`` table names (none when it is not split)."""
    bodies: list[tuple[str, str]] = []
    parts: list[str] = []
    for piece in text.split(NODE_SEP)[1:]:
        piece = piece.lstrip("\x0c\n")
        first, _, body = piece.partition("\n")
        if (header := _HEADER.match(first)) is not None:
            if _INDEX_MARK not in body:  # an index: links to lines, navigation
                bodies.append((header.group("node").strip(), body))
        elif first.startswith("Indirect:"):
            parts = [m.group("name").strip() for m in map(_PART.match, body.split("\n")) if m]
    return bodies, parts


def _beside(folder: Path, name: str) -> Path | None:
    """``name`` in ``folder``, plain or compressed (``find.info-1``, ``find.info-1.gz``)."""
    for suffix in ("", *compressed.CODECS):
        if (folder / (name + suffix)).is_file():
            return folder / (name + suffix)
    return None


def _decode(rel: str, data: bytes) -> tuple[str, str]:
    """An Info file's text (see :func:`~citeline.extract.text.decode`), its markers made
    printable first, and a warning or ""."""
    data = data.replace(b"\x00\x08[", _MARK_OPEN.encode()).replace(b"\x00\x08]",
                                                                   _MARK_CLOSE.encode())
    return decode(rel, data, western=True)


def _read(path: Path, rel: str) -> str:
    """A part's text, decompressed first when it is named so."""
    if compressed.codec_of(path) is not None:
        data = b"".join(compressed.blocks(path, rel))
    else:
        data = read_bytes(path, rel)
    return _decode(rel, data)[0]


def is_info(text: str) -> bool:
    """Whether ``text`` is an Info file: a node separator line before a node header, or
    before a split manual's ``Indirect:`` table."""
    return re.search(r"\x1f\n\x0c?\n?(?:File:\s*[^,]*,\s*Node:|Indirect:)", text) is not None


class InfoExtractor:
    name = "info"
    version = "1"
    suffixes = (".info",)
    # Decompressing passes the folder the compressed file is in (``beside``): a split
    # manual's parts are there, not in the folder it is decompressed into
    reads_beside = True

    def extract(self, path: Path, rel: str, beside: Path | None = None) -> Document:
        folder = beside or path.parent
        data = read_bytes(path, rel)
        text, warning = _decode(rel, data)
        if not is_info(text):
            raise ExtractionError(rel, "not an Info file (no node: a line of \\x1f and "
                                       "a 'File: ..., Node: ...' header)")
        part = PART_SUFFIX.search(path.name)
        if part is not None:
            main = path.name[:part.start()] + ".info"
            if _beside(folder, main) is not None:
                raise UnsupportedFormat(rel, f"part {part.group('n')} of {main}, which is "
                                             "read with its parts")
        bodies, parts = _nodes(text)
        missing = []
        for name in parts:  # a split manual: its nodes are in its parts, in order
            found = _beside(folder, name)
            if found is None:
                missing.append(name)
                continue
            bodies.extend(_nodes(_read(found, f"{rel} ({name})"))[0])
        out = TextBuilder()
        title = ""
        for node, body in bodies:
            blocks, titles = node_blocks(body)
            if node == "Top" and titles:
                title = titles[0][1]
            for block in blocks:
                out.add(block, sep="\n\n")
        if not title and (entry := _DIR_ENTRY.search(text.split(NODE_SEP, 1)[0])):
            title = f"{entry.group('name').strip()} \u2014 {entry.group('what').strip()}"
        body = _BLANKS.sub("\n\n", out.text())
        if not body.strip():
            raise ExtractionError(rel, "no text in this Info file's nodes"
                                  + (f" (its parts are missing: {', '.join(missing)})"
                                     if missing else ""))
        warnings = [warning] if warning else []
        if missing:
            warnings.append(f"{len(missing)} of its {len(parts)} parts are not beside it, "
                            f"and their nodes are not read: {', '.join(missing)}")
        return Document(
            path=rel, title=title or path.name, text=body, media_type="text/x-info",
            extractor=self.name, extractor_version=self.version, headings="atx",
            warnings=tuple(warnings),
        )

    def fingerprint(self, path: Path) -> str:
        """A split manual's content is its parts' too: the main file's bytes and each
        part's found beside it. (A compressed manual's is its main file's decompressed
        content, whose offsets table changes whenever a part does.)"""
        h = hashlib.sha256(path.read_bytes())
        try:
            parts = _nodes(path.read_bytes().decode("utf-8", "replace"))[1]
        except OSError:
            parts = []
        for name in parts:
            if (found := _beside(path.parent, name)) is not None:
                h.update(found.read_bytes())
        return h.hexdigest()


register(InfoExtractor())
