"""Document -> [Chunk], by one of the chapter's six strategies.

=====  =========  ========  =======
name   cuts       header    overlap
=====  =========  ========  =======
A      blind      no        no
B      blind      no        yes
C      bounds     no        no
D      bounds     no        yes
E      bounds     yes       no       (the default)
F      bounds     yes       yes
=====  =========  ========  =======

*Blind* cuts every ``budget`` characters of a document without looking at it.
*Boundaries* split the document at its headings into sections (the heading
path is kept): Markdown's ATX (``## Title``) and setext (a line underlined with
``===`` or ``---``) headings, reStructuredText's underlined (and overlined)
titles, whose levels follow the order their adornment styles first appear, or
the headings the extractor found (a PDF's bookmarks, located in its text); it
packs whole paragraphs up to the budget, and falls back to sentence (then word)
boundaries only when one paragraph is over the budget. A heading is not a chunk of
its own: it labels the paragraph under it, and a heading with its first paragraph over
the budget counts as an over-budget paragraph (the paragraph is cut where a sentence
ends); a section that is only its heading (``# Part`` right above ``## Chapter``)
opens the first chunk of its subsection.
Atomic regions (transcript cues, spreadsheet rows) play the paragraph's part
and are cut only as an over-budget paragraph is (a piece of a cue cites the whole
cue's times). *Header* prefixes the embedded ``text`` with
``[Title > Section > Subsection]``. *Overlap* starts a chunk ``overlap``
characters before the previous one ended.

Two texts per chunk: ``text`` (header + content) is embedded, ``content`` is
quoted, and ``content == doc.text[start:end]`` always. Offsets are found in
the document (regex match positions), never accumulated from lengths.

The budget is in characters, and the encoder window (256 word pieces for
all-MiniLM-L6-v2, header and special tokens included) caps it too: a packed
chunk whose ``text`` is over the window is split again at paragraph, then
sentence, then word boundaries until every piece fits. Blind strategies are
not split (they are blind by definition); their over-window chunks are
counted and reported instead, never silently truncated.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citeline.types import (
    AttachedPlace,
    Chunk,
    Document,
    Heading,
    Locator,
    Region,
    RegionKind,
    Strategy,
)

TokenCounter = Callable[[Sequence[str]], list[int]]

# The chapter's budget: 512 characters is ~120 word pieces of English prose, well
# under the 256-piece window, so the window only bites on code and long headers.
DEFAULT_BUDGET = 512
# Bounds for a user-chosen budget (`citeline index --budget`): below ~128 chars
# a chunk is shorter than many single sentences; above ~4,000 one chunk would
# fill a whole 2,000-char answer context twice over.
MIN_BUDGET = 128
MAX_BUDGET = 4000
# The chapter copies the last 64 characters of the previous chunk: about one
# clause, enough to keep a sentence cut by a blind boundary whole somewhere.
DEFAULT_OVERLAP = 64
# all-MiniLM-L6-v2's max_seq_length, [CLS] and [SEP] included.
DEFAULT_WINDOW = 256

# An ATX heading; a closing run of # counts only after a space ("# Learning C#" is
# about C#, "# Setup ##" about setup), as CommonMark has it.
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)
# A code fence line: a run of 3+ backticks or tildes, then the opening fence's info.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_PARAGRAPH = re.compile(r"[^\n]([^\n]|\n(?!\n))*")  # runs of lines without a blank line
# Where a sentence may end: . ! ? (and the quotes, brackets or emphasis that close
# after them) before whitespace, or a CJK full stop (Chinese or Japanese prose has no
# spaces, so without them a long paragraph has neither sentences nor words). A cut is
# made there only when the next character is not a lowercase letter: "file.txt",
# "v1.2", "e.g. the" and "``...``` because" are not sentence ends. (The chapter's
# splitter cut after every dot, and cut needles in two at a path or an ellipsis.)
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]*_`]*\s+|[。！？]+[」』）\"'”’)]*\s*")
_WORD = re.compile(r"\S+\s*")
# the units a message's attached file is cited by, by its regions' kind
_ATTACHED_UNITS = {RegionKind.ATTACHED_PAGE: "page", RegionKind.ATTACHED_SLIDE: "slide"}


@dataclass(frozen=True)
class ChunkConfig:
    strategy: Strategy = "E"
    budget: int = DEFAULT_BUDGET
    overlap: int = DEFAULT_OVERLAP
    window: int = DEFAULT_WINDOW

    @property
    def blind(self) -> bool:
        return self.strategy in ("A", "B")

    @property
    def header(self) -> bool:
        return self.strategy in ("E", "F")

    @property
    def overlapping(self) -> bool:
        return self.strategy in ("B", "D", "F")

    def signature(self) -> str:
        """Stamped on documents: a different signature means re-chunk (stale)."""
        ov = self.overlap if self.overlapping else 0
        return f"chunk-v6:{self.strategy}:b{self.budget}:o{ov}:w{self.window}"


@dataclass(frozen=True)
class Section:
    start: int  # where the section's text starts (its heading line included)
    end: int
    path: tuple[str, ...]  # heading path below the title
    context: str = ""  # extra embedded context, e.g. a sheet's header row
    head_end: int | None = None  # where its heading ends; None: no heading (a preamble)

    def is_heading(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` is this section's heading and nothing more."""
        return self.head_end is not None and start >= self.start and end <= self.head_end

    def has_subsection(self, other: Section) -> bool:
        return (len(other.path) > len(self.path)
                and other.path[: len(self.path)] == self.path)


# --- sections -------------------------------------------------------------------------


_LINE = re.compile(r"^.*$", re.M)
# CommonMark's setext underline; a paragraph of more lines than this above a
# "---" is read as text and a rule, not as a heading longer than most paragraphs
_SETEXT_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*")
_SETEXT_MAX_LINES = 3
# a line that cannot start a setext heading's text: list item, quote, table row,
# indented code, HTML
_NOT_SETEXT_TEXT = re.compile(r" {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|[>|<])| {4}|\t")
FRONT_MATTER = re.compile(r"---[ \t]*\n(?:[^\n]*\n)*?(?:---|\.\.\.)[ \t]*(?:\n|$)")
# reStructuredText adornment: one punctuation character repeated (docutils takes
# any of these; a title's underline is at least as long as the title, or 4)
_RST_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*")


def text_lines(text: str) -> list[tuple[int, int, str]]:
    """Each line of ``text`` as (start, end, line), its newline left out."""
    return [(m.start(), m.end(), m.group()) for m in _LINE.finditer(text)]


def fence_starts(text: str) -> list[int]:
    r"""Where the lines that open and close ``text``'s fenced code blocks start, in
    order, paired as CommonMark pairs them: a block opened by a run of backticks or
    tildes closes only at a run of the same character at least as long with nothing
    after it, so a ````` ```` ````` block may show a ```` ``` ```` example, and
    ```` ```rust ```` inside a block is code; one never closed runs to the end (its
    opening line is the last start). A backtick run whose info holds a backtick
    (```` ```a``` ````) is inline code, no fence.

    >>> t = "````md\n```\n# in code\n```\n````\n# out"
    >>> [t[i:].split("\n")[0] for i in fence_starts(t)]
    ['````md', '````']
    """
    out: list[int] = []
    opened: tuple[str, int] | None = None  # the open block's character and run length
    for m in _FENCE.finditer(text):
        run, rest = m.group(1), m.group(2)
        if opened is None:
            if run[0] == "`" and "`" in rest:
                continue
            opened = (run[0], len(run))
            out.append(m.start())
        elif run[0] == opened[0] and len(run) >= opened[1] and not rest.strip():
            opened = None
            out.append(m.start())
    return out


def headings(text: str, style: str = "markdown") -> list[Heading]:
    """Every heading of ``text``, in order. ``style`` is the document's
    :attr:`~citeline.types.Document.headings`: ``markdown`` (ATX and setext,
    outside fenced code and YAML front matter), ``atx`` (the ``#`` lines an
    extractor wrote), ``rst`` (reStructuredText section titles) or ``none``."""
    lines = text_lines(text)
    if style == "rst":
        return _rst_headings(lines)
    if style not in ("markdown", "atx"):
        return []
    skip_to = 0
    if style == "markdown" and (fm := FRONT_MATTER.match(text)):
        skip_to = fm.end()
    out: list[Heading] = []
    # fences paired from where the body starts: a ``` in the front matter pairs with none
    fences = {skip_to + at for at in fence_starts(text[skip_to:])}
    in_fence = False
    para: list[tuple[int, int, str]] = []  # the paragraph above the current line
    for start, end, line in lines:
        if start < skip_to:
            continue
        if start in fences:
            in_fence, para = not in_fence, []
            continue
        if in_fence:
            continue
        if m := _HEADING.fullmatch(line):
            out.append(Heading(start, len(m.group(1)), m.group(2).strip(), end))
            para = []
            continue
        if (style == "markdown" and para and _SETEXT_UNDERLINE.fullmatch(line)
                and len(para) <= _SETEXT_MAX_LINES and not _NOT_SETEXT_TEXT.match(para[0][2])):
            title = " ".join(t.strip() for _, _, t in para)
            out.append(Heading(para[0][0], 1 if line.strip()[0] == "=" else 2, title, end))
            para = []
            continue
        # a paragraph longer than a setext title can be is never one: keep no more of it
        # (a 160k-line log with no blank line made this copy quadratic: 87 s)
        para = (para if len(para) > _SETEXT_MAX_LINES else para + [(start, end, line)]) \
            if line.strip() else []
    return out


def _rst_headings(lines: list[tuple[int, int, str]]) -> list[Heading]:
    out: list[Heading] = []
    styles: list[tuple[str, bool]] = []  # adornment styles in order of first use: the levels
    i = 0
    while i + 1 < len(lines):
        _, _, title = lines[i]
        under = _RST_ADORNMENT.fullmatch(lines[i + 1][2])
        over = _RST_ADORNMENT.fullmatch(lines[i - 1][2]) if i else None
        overlined = bool(over and under and over.group(1) == under.group(1))
        above_ok = i == 0 or not lines[i - 1][2].strip() or (
            overlined and (i == 1 or not lines[i - 2][2].strip()))
        name = title.strip()
        if (under and name and above_ok and not _RST_ADORNMENT.fullmatch(title)
                and (overlined or not title[0].isspace()) and not title.startswith(".. ")
                and len(under.group().rstrip()) >= min(len(name), 4)):
            style = (under.group(1), overlined)
            if style not in styles:
                styles.append(style)
            start = lines[i - 1][0] if overlined else lines[i][0]
            out.append(Heading(start, styles.index(style) + 1, name, lines[i + 1][1]))
            i += 2
            continue
        i += 1
    return out


def sections(doc: Document) -> list[Section]:
    """Split a document into sections with heading paths; nothing is dropped."""
    rows = [r for r in doc.regions if r.kind is RegionKind.ROW]
    if rows:
        return _sheet_sections(doc, rows)
    if doc.headings == "none":
        return [Section(0, len(doc.text), ())]
    heads = list(doc.outline) if doc.headings == "outline" else headings(doc.text, doc.headings)
    out: list[Section] = []
    if not heads or heads[0].start > 0:
        first = heads[0].start if heads else len(doc.text)
        out.append(Section(0, first, ()))
    stack: list[tuple[int, str]] = []
    for i, (at, level, title, head_end) in enumerate(heads):
        end = heads[i + 1].start if i + 1 < len(heads) else len(doc.text)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        path = tuple(t for lv, t in stack if not (lv == 1 and t == doc.title))
        out.append(Section(at, end, path, head_end=head_end))
    return out


def _sheet_sections(doc: Document, rows: list[Region]) -> list[Section]:
    out: list[Section] = []
    for r in rows:
        if out and out[-1].path == (r.sheet or "",):
            last = out[-1]
            out[-1] = Section(last.start, r.end, last.path, last.context)
        else:
            out.append(Section(r.start, r.end, (r.sheet or "",), header_context(r.header or "")))
    return out


# A sheet's header row repeated in every chunk's embedded text is cut to this many
# characters (~60-130 word pieces), at a cell: a 100-column header filled the encoder
# window by itself, and every chunk of the sheet was halved down to single words (398
# chunks, 90 s, for one 1.6 KB row).
HEADER_CONTEXT_CHARS = 256


def header_context(header: str) -> str:
    """A sheet's header row as each of its chunks embeds it: whole, or its first cells
    that fit :data:`HEADER_CONTEXT_CHARS`, then `` | …``.

    >>> header_context("id | name")
    'id | name'
    >>> header_context(" | ".join(f"column_{i}" for i in range(100)))[-25:]
    'column_19 | column_20 | …'
    """
    if len(header) <= HEADER_CONTEXT_CHARS:
        return header
    cut = header.rfind(CELL_SEP, 0, HEADER_CONTEXT_CHARS - len(CELL_SEP))
    return (header[:cut] if cut > 0 else header[:HEADER_CONTEXT_CHARS - 4]) + CELL_SEP + "…"


def section_label(doc: Document, path: tuple[str, ...]) -> str:
    return " > ".join((doc.title, *path)) if doc.title else " > ".join(path)


# --- units: paragraphs, or atomic regions ----------------------------------------------


def _units(doc: Document, sec: Section) -> list[tuple[int, int]]:
    regions = doc.regions  # in text order: the section's are found by bisection (a scan
    # per section was quadratic: 200 sheets of 200 rows, 11 s)
    lo = bisect.bisect_left(regions, sec.start, key=_region_start)
    hi = bisect.bisect_left(regions, sec.end, key=_region_start)
    atomic = [(r.start, r.end) for r in regions[lo:hi]
              if r.kind in (RegionKind.CUE, RegionKind.ROW)]
    if atomic:
        return atomic
    body = doc.text[sec.start : sec.end]
    return [(sec.start + m.start(), sec.start + m.end()) for m in _PARAGRAPH.finditer(body)]


def _pieces(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    return [
        (start + m.start(), start + m.end())
        for m in pattern.finditer(text[start:end])
        if m.group(0)
    ]


def _paragraph_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return _pieces(text, start, end, _PARAGRAPH)


def _word_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return _pieces(text, start, end, _WORD)


def sentence_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut after each sentence end (:data:`_SENTENCE_END`) that is
    not followed by a lowercase letter; each piece keeps its trailing whitespace.

    >>> t = "See file.txt, e.g. the log. Then stop! 止まる。次"
    >>> [t[s:e] for s, e in sentence_pieces(t, 0, len(t))]
    ['See file.txt, e.g. the log. ', 'Then stop! ', '止まる。', '次']
    """
    cuts = [m.end() for m in _SENTENCE_END.finditer(text, start, end)
            if m.end() < end and not text[m.end()].islower()]
    bounds = [start, *cuts, end]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def pack_spans(spans: list[tuple[int, int]], budget: int) -> list[tuple[int, int]]:
    """Greedily merge consecutive spans while the merged range stays within budget."""
    out: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    for s, e in spans:
        if cur and e - cur[0] > budget:
            out.append(cur)
            cur = None
        cur = (cur[0], e) if cur else (s, e)
    if cur:
        out.append(cur)
    return out


def _split_long(text: str, start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """A paragraph over budget -> its sentences; a sentence over budget -> its words;
    a word over budget (a URL, a run of text without spaces) -> budget-long slices."""
    out: list[tuple[int, int]] = []
    for s, e in sentence_pieces(text, start, end):
        if e - s <= budget:
            out.append((s, e))
            continue
        for ws, we in _word_pieces(text, s, e):
            out.extend((i, min(i + budget, we)) for i in range(ws, we, budget))
    return out


def _heading_with_its_paragraph(
    text: str, spans: list[tuple[int, int]], headings: int, budget: int
) -> list[tuple[int, int]]:
    """A heading labels the paragraph under it, so the two are one unit: when the first
    ``headings`` spans (headings) and the paragraph after them are over the budget
    together, the paragraph is cut where its sentences end (as a paragraph over the
    budget is), and the headings pack with its first sentences instead of making a
    chunk of their own."""
    k = headings
    if k == 0 or k == len(spans) or spans[k][1] - spans[0][0] <= budget:
        return spans
    return [*spans[:k], *_split_long(text, *spans[k], budget), *spans[k + 1:]]


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    raw = text[start:end]
    lead = len(raw) - len(raw.lstrip())
    tail = len(raw) - len(raw.rstrip())
    if lead == len(raw):
        return None
    return start + lead, end - tail


# --- the chunker ------------------------------------------------------------------------


def chunk_document(
    doc: Document, config: ChunkConfig = ChunkConfig(), count_tokens: TokenCounter | None = None
) -> list[Chunk]:
    """Chunk ``doc`` by ``config.strategy``.

    ``count_tokens`` (the encoder's own tokenizer) enables the window cap; without
    it only the character budget applies.
    """
    secs = sections(doc)
    if config.blind:
        ranges = _blind_ranges(doc, config)
    else:
        ranges = []
        carried: list[tuple[int, int]] = []  # headings of empty sections above this one
        page_starts = [r.start for r in doc.regions if r.kind is RegionKind.PAGE]
        for i, sec in enumerate(secs):
            # A paragraph over budget is replaced by its sentences (a sentence over
            # budget by its words), which then pack like paragraphs do: the cut
            # falls inside that paragraph only, and the short paragraph before it
            # (often a heading line) is not left alone in a chunk of its own.
            spans: list[tuple[int, int]] = []
            for s, e in _units(doc, sec):
                if e - s > config.budget:
                    spans.extend(_split_long(doc.text, s, e, config.budget))
                else:
                    spans.append((s, e))
            # A section that is only its heading ("# Part" right above "## Chapter")
            # would be a chunk that answers nothing: its heading opens the first chunk
            # of its subsection instead, whose label names it already. Not across a
            # page break: a divider slide or a part's title page stays its own page, and
            # the subsection's chunk is cited at the page it is on.
            nxt = secs[i + 1] if i + 1 < len(secs) else None
            if (nxt is not None and sec.has_subsection(nxt) and spans
                    and all(sec.is_heading(s, e) for s, e in spans)
                    and bisect.bisect_right(page_starts, sec.start)
                    == bisect.bisect_right(page_starts, nxt.start)):
                carried += spans
                continue
            own = 1 if spans and sec.is_heading(*spans[0]) else 0
            spans = _heading_with_its_paragraph(doc.text, carried + spans, len(carried) + own,
                                                config.budget)
            ranges.extend((sec, r) for r in pack_spans(spans, config.budget))
            carried = []
    chunks: list[Chunk] = []
    for sec, (s, e) in ranges:
        trimmed = _trim(doc.text, s, e)
        if trimmed:
            chunks.append(_make(doc, sec, *trimmed, config))
    if config.overlapping and not config.blind:
        chunks = _add_overlap(doc, secs, chunks, config)
    if count_tokens is not None and not config.blind:
        chunks = _fit_window(doc, secs, chunks, config, count_tokens)
    return [
        Chunk(i, c.start, c.end, c.section, c.text, c.content, c.header_chars, c.context)
        for i, c in enumerate(chunks)
    ]


def _blind_ranges(doc: Document, config: ChunkConfig) -> list[tuple[Section, tuple[int, int]]]:
    secs = sections(doc)
    out = []
    for i in range(0, len(doc.text), config.budget):
        s = max(0, i - config.overlap) if config.overlapping and i else i
        e = min(len(doc.text), i + config.budget)
        sec = next((x for x in reversed(secs) if x.start <= i), secs[0])
        out.append((sec, (s, e)))
    return out


def _section_of(secs: list[Section], start: int) -> Section:
    """The last section starting at or before ``start`` (sections are in text order)."""
    return secs[max(bisect.bisect_right(secs, start, key=_section_start) - 1, 0)]


def _section_start(sec: Section) -> int:
    return sec.start


def _own_section(secs: list[Section], c: Chunk) -> Section:
    """The section a chunk belongs to: the one holding its last character (a chunk
    may open with the heading of an empty section above its own)."""
    return _section_of(secs, c.end - 1)


def _is_a_heading(secs: list[Section], start: int, end: int) -> bool:
    return _section_of(secs, start).is_heading(start, end)


def _make(doc: Document, sec: Section, start: int, end: int, config: ChunkConfig) -> Chunk:
    content = doc.text[start:end]
    label = section_label(doc, sec.path)
    context = sec.context if config.header else ""
    if config.header:
        head = f"[{label}]\n" + (f"{context}\n" if context else "")
        text = head + content
    else:
        text = content
    return Chunk(0, start, end, label, text, content, len(text) - len(content), context)


def bare_text(chunk: Chunk) -> str:
    """What a chunk's header-free vector and token vectors are computed from: its
    ``content``, after its ``context`` (a sheet's header row) unless the content opens
    with that row itself (the sheet's first chunk).

    Without it a row is numbers with no names (``E1042 | Oslo | 4411``), and only
    the first chunk, whose content holds the header row, could match a question
    that names a column ("the phone extension of E1042"): the late fusion ranked
    that chunk first for 110 of 124 lookups in three sheets (benchmarks/sheet_lookup.py).

    >>> c = Chunk(0, 0, 9, "s", "[s]\\nid | city\\nE1 | Oslo", "E1 | Oslo", 13, "id | city")
    >>> bare_text(c)
    'id | city\\nE1 | Oslo'
    >>> bare_text(Chunk(0, 0, 19, "s", "", "id | city\\nE1 | Oslo", 0, "id | city"))
    'id | city\\nE1 | Oslo'
    """
    context = missing_context(chunk.context, chunk.content)
    return f"{context}\n{chunk.content}" if context else chunk.content


def missing_context(context: str, content: str) -> str:
    """``context`` (a sheet's header row, whole or as :func:`header_context` cut it),
    or "" when ``content`` opens with that row itself (the sheet's first chunk)."""
    if not context or content.startswith(context.removesuffix(CELL_SEP + "…")):
        return ""
    return context


def _fit_window(
    doc: Document,
    secs: list[Section],
    chunks: list[Chunk],
    config: ChunkConfig,
    count_tokens: TokenCounter,
) -> list[Chunk]:
    counts = count_tokens([c.text for c in chunks])
    out: list[Chunk] = []
    for c, n in zip(chunks, counts, strict=True):
        if n <= config.window:
            out.append(c)
        else:
            out.extend(_split_to_window(doc, secs, c, config, count_tokens))
    return out


def _split_to_window(
    doc: Document, secs: list[Section], c: Chunk, config: ChunkConfig, count_tokens: TokenCounter
) -> list[Chunk]:
    """Split an over-window chunk at the coarsest boundary that has more than one piece;
    the first half takes at least one piece that is not a heading."""
    sec = _own_section(secs, c)
    for split in (_paragraph_pieces, sentence_pieces, _word_pieces):
        spans = split(doc.text, c.start, c.end)
        if len(spans) > 1:
            break
    else:
        header = c.text[: len(c.text) - len(c.content)]
        if c.end - c.start < 2 or count_tokens([header])[0] >= config.window:
            return [c]  # a header over the window alone: no cut helps; reported
        # one word (a URL, text without spaces): cut it in the middle, a last resort
        # that beats the encoder truncating it
        mid = (c.start + c.end) // 2
        spans = [(c.start, mid), (mid, c.end)]
    # binary split keeps the number of tokenizer calls logarithmic
    mid = len(spans) // 2
    while mid < len(spans) - 1 and all(_is_a_heading(secs, s, e) for s, e in spans[:mid]):
        mid += 1  # a heading alone would be a piece that answers nothing
    halves = [(spans[0][0], spans[mid - 1][1]), (spans[mid][0], spans[-1][1])]
    out: list[Chunk] = []
    for s, e in halves:
        trimmed = _trim(doc.text, s, e)
        if not trimmed:
            continue
        piece = _make(doc, sec, *trimmed, config)
        if count_tokens([piece.text])[0] <= config.window:
            out.append(piece)
        else:
            out.extend(_split_to_window(doc, secs, piece, config, count_tokens))
    return _merge_fitting(doc, sec, out, config, count_tokens)


def _merge_fitting(
    doc: Document, sec: Section, pieces: list[Chunk], config: ChunkConfig, count: TokenCounter
) -> list[Chunk]:
    """Re-join neighbouring pieces the halving separated when together they still fit."""
    out: list[Chunk] = []
    for p in pieces:
        if out:
            joined = _make(doc, sec, out[-1].start, p.end, config)
            if len(joined.content) <= config.budget and count([joined.text])[0] <= config.window:
                out[-1] = joined
                continue
        out.append(p)
    return out


def _add_overlap(
    doc: Document, secs: list[Section], chunks: list[Chunk], config: ChunkConfig
) -> list[Chunk]:
    """Start each chunk ``overlap`` chars before its predecessor's end (same section)."""
    out: list[Chunk] = []
    for i, c in enumerate(chunks):
        prev = chunks[i - 1] if i else None
        if prev is not None and prev.section == c.section:
            s = max(prev.start, prev.end - config.overlap)
            trimmed = _trim(doc.text, s, c.end)
            if trimmed:
                out.append(_make(doc, _own_section(secs, c), *trimmed, config))
                continue
        out.append(c)
    return out


# --- locators ---------------------------------------------------------------------------


def locate(doc: Document, start: int, end: int) -> Locator:
    """The locator of ``doc.text[start:end]`` from the document's region map."""
    return locate_in(doc.regions, start, end)


def locate_in(regions: Sequence[Region], start: int, end: int) -> Locator:
    """The locator of the text range ``start:end`` from a document's region map.

    Regions are in text order and do not overlap (every extractor builds them
    so), so a binary search finds the first one touching the range: locating
    every chunk of a 100,000-row sheet stays O(chunks x log rows).
    """
    pages: list[int] = []
    slides: list[int] = []
    t0: float | None = None
    t1: float | None = None
    rows: list[tuple[Region, int, int]] = []  # a row, and the columns of it the range holds
    conf: float | None = None
    labels: dict[int, str] = {}  # page -> its printed number, where the PDF labels it
    printed: list[str] = []  # an e-book's printed pages, in reading order
    boxes: list[tuple[int | None, tuple[int, int, int, int]]] = []  # an image's lines read
    attached: dict[tuple[str, str], list[int]] = {}  # a message's files: their pages
    attached_rows: dict[str, list[tuple[Region, int, int]]] = {}  # ... their sheets' rows
    for i in range(bisect.bisect_right(regions, start, key=_region_end), len(regions)):
        r = regions[i]
        if r.start >= end:
            break
        if r.end <= start:
            continue
        if r.kind is RegionKind.PAGE and r.page is not None:
            pages.append(r.page)
            if r.label is not None:
                labels[r.page] = r.label
            if r.confidence is not None:
                conf = r.confidence if conf is None else min(conf, r.confidence)
        elif r.kind is RegionKind.SLIDE and r.page is not None:
            slides.append(r.page)
        elif r.kind is RegionKind.CUE and r.t_start is not None and r.t_end is not None:
            t0 = r.t_start if t0 is None else min(t0, r.t_start)
            t1 = r.t_end if t1 is None else max(t1, r.t_end)
        elif r.kind is RegionKind.ROW:
            rows.append((r, *_columns(r, start, end)))
        elif r.kind is RegionKind.PRINTED and r.label is not None and \
                (not printed or printed[-1] != r.label):
            printed.append(r.label)
        elif r.kind is RegionKind.LINE and r.box is not None:
            boxes.append((r.page, r.box))
            if r.confidence is not None:
                conf = r.confidence if conf is None else min(conf, r.confidence)
        elif r.kind in _ATTACHED_UNITS and r.label is not None and r.page is not None:
            attached.setdefault((r.label, _ATTACHED_UNITS[r.kind]), []).append(r.page)
        elif r.kind is RegionKind.ATTACHED_ROW and r.label is not None:
            attached_rows.setdefault(r.label, []).append((r, *_columns(r, start, end)))
    xywh = None
    if boxes:  # the pages of a multi-page image, and the box around the lines on the first
        pages = [page for page, _ in boxes if page is not None]
        xywh = _around([box for page, box in boxes if page == boxes[0][0]])
    return Locator(
        start=start,
        end=end,
        pages=tuple(sorted(set(pages))),
        page_labels=(tuple(labels.get(p, str(p)) for p in sorted(set(pages))) if labels
                     else tuple(printed)),
        t_start=t0,
        t_end=t1,
        sheet_range=_a1_range(rows) if rows else None,
        ocr_confidence=conf,
        slides=tuple(sorted(set(slides))),
        xywh=xywh,
        attached=(*(AttachedPlace(name, unit, tuple(sorted(set(numbers))))
                    for (name, unit), numbers in attached.items()),
                  *(AttachedPlace(name, "range", range=_a1_range(_one_sheet(rows)))
                    for name, rows in attached_rows.items())),
    )


def _around(boxes: Sequence[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """The smallest box holding every (x, y, width, height) of ``boxes``.

    >>> _around([(10, 20, 100, 15), (12, 40, 50, 15)])
    (10, 20, 100, 35)
    """
    left = min(x for x, _, _, _ in boxes)
    top = min(y for _, y, _, _ in boxes)
    right = max(x + w for x, _, w, _ in boxes)
    bottom = max(y + h for _, y, _, h in boxes)
    return left, top, right - left, bottom - top


def _region_end(r: Region) -> int:
    return r.end


def _region_start(r: Region) -> int:
    return r.start


def column_letter(n: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA (spreadsheet column names)."""
    s = ""
    while n > 0:
        n, rem = divmod(n - 1, 26)
        s = chr(65 + rem) + s
    return s


# A sheet name a spreadsheet reads unquoted in a reference: a letter or "_" first, then
# letters, digits, "_" or "." ...
_PLAIN_SHEET = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
# ... and not itself a cell reference ("Q1", "AB12") or R1C1 notation ("R2C3", "R", "C").
_CELL_LIKE = re.compile(r"[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*(?:[Cc][0-9]*)?|[Cc][0-9]*")


def _plain_sheet_name(sheet: str) -> bool:
    return bool(_PLAIN_SHEET.fullmatch(sheet)) and not _CELL_LIKE.fullmatch(sheet)


# What joins a spreadsheet row's cells in the canonical text (the sheet extractor's).
CELL_SEP = " | "
# A cell's comment as the sheet extractor writes it, a line under its row
# (``Comment on D3 by Ana Ruiz: ...``): the gate and the answer read a row's comments
# with the row.
NOTE_LINE = re.compile(r"Comment on [A-Z]{1,3}([1-9][0-9]*)(?: by [^\n]*?)?: ")
# A line of a drawing a sheet shows, as the sheet extractor writes it under the row of
# the cell the drawing is anchored at: the text OCR read in a picture (``Picture at E3:
# ...``), a text box's (``Text box at E2: ...``), or what a chart says of itself.
DRAWN_LINE = re.compile(r"(?:Picture|Text box|Chart) at [A-Z]{1,3}[1-9][0-9]*: ")


def note_row(line: str) -> int | None:
    """The sheet row of the cell a comment's line names; None for any other line.

    >>> note_row("Comment on D3 by Ana Ruiz: checked"), note_row("P-102 | 3")
    (3, None)
    """
    m = NOTE_LINE.match(line)
    return int(m.group(1)) if m else None


def row_notes(lines: Sequence[str], row: int | None = None) -> list[str]:
    """The comments of a row: of ``lines`` (those right under the row's line), the
    leading comment lines on ``row``, or, with no row given, on the row of the first
    (a row's own comments come before those of the empty rows under it, which the
    text alone does not tell apart when the row itself has none).

    >>> row_notes(["Comment on D3: a", "Comment on E3: b", "Comment on C4: c", "P-5 | 1"])
    ['Comment on D3: a', 'Comment on E3: b']
    >>> row_notes(["Comment on C4: c"], row=3)
    []
    """
    out: list[str] = []
    for line in lines:
        on = note_row(line)
        if on is None:
            break
        row = on if row is None else row
        if on != row:
            break
        out.append(line)
    return out


def _columns(row: Region, start: int, end: int) -> tuple[int, int]:
    """The first and last column of ``row`` that the text range ``start:end`` touches:
    the row's own when it holds all of it, or its cells are not known."""
    c0, c1 = row.first_col or 1, row.last_col or row.first_col or 1
    if not row.cells or (start <= row.start and end >= row.end):
        return c0, c1
    lo, hi = max(start, row.start) - row.start, min(end, row.end) - row.start
    begins = (0, *row.cells)
    # cell i runs from begins[i] to the separator before the next cell
    ends = (*(b - len(CELL_SEP) for b in row.cells), row.end - row.start)
    touched = [i for i, (b, e) in enumerate(zip(begins, ends, strict=True)) if b < hi and e > lo]
    if not touched:  # only separator text, or an empty cell: the cell after it
        touched = [min(bisect.bisect_right(begins, lo), len(begins) - 1)]
    return c0 + touched[0], c0 + touched[-1]


def _one_sheet(rows: list[tuple[Region, int, int]]) -> list[tuple[Region, int, int]]:
    """The rows of the first sheet among ``rows`` (a range names one sheet)."""
    return [row for row in rows if row[0].sheet == rows[0][0].sheet]


def _a1_range(rows: list[tuple[Region, int, int]]) -> str:
    sheet = rows[0][0].sheet or "Sheet1"
    r0 = min(r.row or 1 for r, _, _ in rows)
    r1 = max(r.row or 1 for r, _, _ in rows)
    c0 = min(c for _, c, _ in rows)
    c1 = max(c for _, _, c in rows)
    quoted = sheet if _plain_sheet_name(sheet) else "'" + sheet.replace("'", "''") + "'"
    return f"{quoted}!{column_letter(c0)}{r0}:{column_letter(c1)}{r1}"
