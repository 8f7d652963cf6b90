"""AsciiDoc: the file as written, its sections read from AsciiDoc's titles.

Canonical text = the file decoded as a text file is (:func:`citeline.extract.text.decode`:
UTF-8, UTF-16/32 with a byte-order mark, Western European Windows-1252 with a warning),
line endings ``\\n``: every ``#char=`` offset is an offset in the ``.adoc`` file a
user opens.

Sections (``headings="outline"``), as Asciidoctor reads them:

- a title line: ``= Document title`` (level 0), ``== Section`` (1) down to
  ``====== Section`` (5); Markdown's ``#`` marks are read the same;
- a two-line title, underlined by a line as long (one character either way): ``=``
  level 0, ``-`` 1, ``~`` 2, ``^`` 3, ``+`` 4, as older AsciiDoc and git's documentation
  write them (``NAME`` over ``----``);
- none inside a delimited block: a listing (``----``), a literal (``....``), a comment
  (``////``), a passthrough (``++++``), an example (``====``), a sidebar (``****``), a
  quote (``____``), a table (``|===``), a Markdown code fence; nor a ``//`` comment line.

Level 0 is the document's title (the chunker's heading path starts below it); a file
with none is titled by its name. Code and markup stay as written: a citation quotes the
file, ``[source,python]`` and ``link:`` macros included.
"""

from __future__ import annotations

import re
from pathlib import Path

from citeline.chunk import text_lines
from citeline.extract import register
from citeline.extract.text import outlined_text
from citeline.types import Document, Heading

_TITLE = re.compile(r"(?P<marks>={1,6}|#{1,6})[ \t]+(?P<title>\S.*?)(?:[ \t]+(?P=marks))?[ \t]*")
_UNDERLINE = {"=": 0, "-": 1, "~": 2, "^": 3, "+": 4}
# A delimited block's opening line: four or more of one delimiter character (a comment,
# listing, literal, passthrough, example, sidebar, quote), a table's "|===", a fence
_DELIMITER = re.compile(r"(?P<d>(?P<c>[-./+=*_])(?P=c){3,}|[|!,:]={3,}|`{3,}|~{3,})[ \t]*")
_FENCE_INFO = re.compile(r"`{3,}\w*[ \t]*")
UNDERLINE_SLACK = 1  # an underline this much shorter or longer than its title still is one


def _underline(title: str, under: str) -> int | None:
    """The level a two-line title's underline gives, or None when ``under`` is none."""
    under = under.rstrip()
    if len(under) < 2 or under[0] not in _UNDERLINE or under.strip(under[0]):
        return None
    if abs(len(under) - len(title.rstrip())) > UNDERLINE_SLACK:
        return None
    return _UNDERLINE[under[0]]


def _titled(line: str) -> bool:
    """Whether a line could be a two-line title: text, not a block's marks or a list item."""
    s = line.strip()
    return bool(s) and not line[0].isspace() and s[0] not in "[.:/|*-=<+#" \
        and not re.match(r"\d+\.|[a-z]\.|[A-Z]+:\s", s)


def asciidoc_outline(text: str, fallback: str) -> tuple[str, tuple[Heading, ...]]:
    """The document's title and its sections (see the module docstring); levels as the
    chunker counts them, the title's 1.

    >>> t, hs = asciidoc_outline("= Gauge\\n\\n== Reading\\n\\n----\\n== code\\n----\\n"
    ...                          "NAME\\n----\\nx\\n", "gauge")
    >>> t, [(h.level, h.title) for h in hs]
    ('Gauge', [(1, 'Gauge'), (2, 'Reading'), (2, 'NAME')])
    """
    lines = text_lines(text)
    heads: list[Heading] = []
    block: str | None = None  # the delimiter line that opened the block we are in
    i = 0
    while i < len(lines):
        start, end, line = lines[i]
        stripped = line.rstrip()
        if block is not None:
            if stripped == block:
                block = None
            i += 1
            continue
        nxt = lines[i + 1][2] if i + 1 < len(lines) else ""
        level = _underline(line, nxt) if _titled(line) else None
        if level is not None and not (i + 2 < len(lines) and lines[i + 2][2].rstrip() ==
                                      nxt.rstrip() and _DELIMITER.fullmatch(nxt)):
            heads.append(Heading(start, level + 1, " ".join(line.split()), lines[i + 1][1]))
            i += 2
            continue
        if (m := _DELIMITER.fullmatch(line)) is not None:
            block = m.group("d") if not m.group("d").startswith("`") else \
                re.match(r"`+", stripped).group()  # type: ignore[union-attr]
            i += 1
            continue
        if _FENCE_INFO.fullmatch(line):  # ```python
            block = re.match(r"`+", stripped).group()  # type: ignore[union-attr]
            i += 1
            continue
        if (m := _TITLE.fullmatch(line)) is not None:
            heads.append(Heading(start, len(m.group("marks")), m.group("title").strip(), end))
        i += 1
    top = next((h for h in heads if h.level == 1), None)
    title = top.title if top is not None and top is heads[0] else fallback
    return title, tuple(heads)


class AsciidocExtractor:
    name = "adoc"
    version = "1"
    suffixes = (".adoc", ".asciidoc")

    def extract(self, path: Path, rel: str) -> Document:
        return outlined_text(path, rel, self.name, self.version, "text/asciidoc",
                             asciidoc_outline)


register(AsciidocExtractor())
