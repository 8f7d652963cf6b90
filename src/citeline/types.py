"""The small frozen dataclasses that cross stage boundaries.

Data flows one way::

    file --extract--> Document --chunk--> [Chunk] --embed/store--> index
    query --retrieve/fuse--> [Hit] --gate--> kept hits --answer--> Answer(citations)

Every object remembers where its text came from. The invariant the whole
product rests on is ``chunk.content == document.text[chunk.start:chunk.end]``:
what we quote is a verbatim slice of the canonical text, and the locator is
computed from those offsets, never from lengths added up along the way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, NamedTuple
from urllib.parse import quote

Strategy = Literal["A", "B", "C", "D", "E", "F"]
STRATEGIES: tuple[Strategy, ...] = ("A", "B", "C", "D", "E", "F")

Mode = Literal["dense", "bm25", "hybrid", "rerank"]
# The modes an index can always run. "rerank" (hybrid, then a cross-encoder over the
# fused shortlist) also needs cross-encoder weights on local disk, which are not
# bundled, so it is in no default list: it is asked for by name.
MODES: tuple[Mode, ...] = ("dense", "bm25", "hybrid")
ALL_MODES: tuple[Mode, ...] = (*MODES, "rerank")


class DocState(StrEnum):
    """Lifecycle of a document in an index."""

    PENDING = "pending"
    INDEXING = "indexing"
    INDEXED = "indexed"
    FAILED = "failed"
    STALE = "stale"


class RegionKind(StrEnum):
    """What a located region of canonical text stands for in the original file."""

    PAGE = "page"  # a PDF page: locator #page=N
    CUE = "cue"  # a transcript cue: locator #t=start,end (seconds)
    ROW = "row"  # a spreadsheet row: locator Sheet!A1:F1
    SLIDE = "slide"  # a presentation's slide (its number in ``page``): locator #slide=N
    # an e-book's printed page (its number in ``label``), from its page list: the
    # locator stays #char=, and names the printed pages its range spans
    PRINTED = "printed"
    # a line of an image read by OCR: its pixel box in ``box``, its page in ``page`` when
    # the image has more than one (a multi-page TIFF): locator #xywh=x,y,w,h
    LINE = "line"
    # a page (a slide) of a file attached to a message, its name in ``label``, its
    # number in ``page``: the message's locator stays #char=, and names the file's
    # pages (slides) its range spans, which #page=N of the file saved alone opens
    ATTACHED_PAGE = "attached page"
    ATTACHED_SLIDE = "attached slide"
    # a row of a spreadsheet attached to a message (its name in ``label``, the ROW
    # fields): the message's locator names the sheet range its range spans
    ATTACHED_ROW = "attached row"


@dataclass(frozen=True)
class Region:
    """A span of canonical text tied to a place in the original file.

    Pages annotate text (a chunk may cross a page break and records both pages);
    cues and rows are atomic units the chunker never cuts inside.
    """

    kind: RegionKind
    start: int
    end: int
    page: int | None = None  # 1-based PDF page, or slide number
    t_start: float | None = None  # seconds
    t_end: float | None = None
    sheet: str | None = None
    row: int | None = None  # 1-based spreadsheet row
    first_col: int | None = None  # 1-based column numbers, for the A1 range
    last_col: int | None = None
    confidence: float | None = None  # OCR confidence of the page, 0..100
    header: str | None = None  # for rows: the sheet's header row, repeated in embedded text
    # for rows: where each cell after the first begins, as an offset from ``start``
    # (column first_col + i begins at cells[i - 1]); () when not known
    cells: tuple[int, ...] = ()
    # a PDF page's printed number (its /PageLabels label: "xii", "A-3"), when it is not
    # the page's position in the file; an e-book's printed page's number; None otherwise
    label: str | None = None
    # an image's LINE: (x, y, width, height) in the image's pixels, from its top left
    box: tuple[int, int, int, int] | None = None


class Heading(NamedTuple):
    """A heading of a document's canonical text (see :func:`citeline.chunk.headings`)."""

    start: int  # its first character: the title line, or an reStructuredText overline
    level: int
    title: str
    end: int  # the end of its last line (a setext or reStructuredText underline)


@dataclass(frozen=True)
class Document:
    """One extracted document: a canonical text plus its locator map."""

    path: str  # relative to the indexed root, POSIX separators
    title: str
    text: str  # the canonical text every offset refers to
    media_type: str  # e.g. "text/markdown"
    extractor: str
    extractor_version: str
    regions: tuple[Region, ...] = ()  # in text order, non-overlapping (locate() bisects)
    warnings: tuple[str, ...] = ()  # visible problems that did not fail the document
    # how the chunker finds sections (chunk.headings): "markdown" (ATX and setext),
    # "atx" (the "# Title" lines an extractor wrote), "rst", "outline" (the
    # extractor found them: ``outline``, e.g. a PDF's bookmarks), or "none"
    headings: Literal["markdown", "atx", "rst", "outline", "none"] = "markdown"
    outline: tuple[Heading, ...] = ()  # in text order; only with headings="outline"


@dataclass(frozen=True)
class Chunk:
    """A retrievable unit. ``text`` is embedded, ``content`` is quoted.

    ``content == document.text[start:end]`` always.
    """

    ordinal: int
    start: int
    end: int
    section: str  # heading path, e.g. "Doc > Section > Subsection"
    text: str  # contextual header + content: what the encoder sees
    content: str  # the chunk's own characters: what the user sees
    header_chars: int = 0  # len(text) - len(content): what the header costs
    # the part of the header content cannot be read without: a sheet's header row (its
    # columns' names), which text carries and the header-free vectors keep
    context: str = ""


def consecutive(numbers: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted numbers as their runs of consecutive ones, each (first, last).

    >>> consecutive([1, 2, 3, 7, 9, 10])
    [(1, 3), (7, 7), (9, 10)]
    """
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def _runs(numbers: tuple[int, ...]) -> str:
    """Sorted numbers, a run of three or more as ``first-last``: ``3, 4, 7-9``."""
    return ", ".join(f"{a}-{b}" if b - a >= 2 else ", ".join(map(str, range(a, b + 1)))
                     for a, b in consecutive(numbers))


class AttachedPlace(NamedTuple):
    """Where a range of a message's text is in a file attached to it: the file's name,
    ``page`` or ``slide`` and their numbers, or ``range`` and a sheet range."""

    file: str
    unit: str  # "page", "slide" or "range"
    numbers: tuple[int, ...] = ()  # pages or slides, ascending
    range: str = ""  # a sheet range, "Sheet1!A12:F20", for unit "range"

    @property
    def said(self) -> str:
        """``in report.pdf, pages 3, 4``, ``in budget.xlsx, Sheet1!A2:C4``."""
        if self.unit == "range":
            return f"in {self.file}, {self.range}"
        return f"in {self.file}, {self.unit}{'s' if len(self.numbers) > 1 else ''} " \
            + _runs(self.numbers)


@dataclass(frozen=True)
class Locator:
    """Where a chunk is in its original file, in forms a browser understands."""

    start: int
    end: int
    pages: tuple[int, ...] = ()
    t_start: float | None = None
    t_end: float | None = None
    sheet_range: str | None = None  # "Sheet1!A12:F20"
    ocr_confidence: float | None = None
    slides: tuple[int, ...] = ()  # 1-based slide numbers of a deck
    # the printed number of each page in ``pages`` (a PDF's /PageLabels: front matter
    # in "xii", an appendix's "A-3"), where any differs from its position in the file,
    # which ``#page=N`` opens; () when the PDF labels none or all as they fall. An
    # e-book's (no ``pages``: its fragment is #char=) are the printed pages its range
    # spans, in reading order, from the book's page list; () for text before the first
    page_labels: tuple[str, ...] = ()
    # the part of an image the range was read from by OCR: (x, y, width, height) in its
    # pixels, the box around its lines (on the first of ``pages`` in a multi-page image)
    xywh: tuple[int, int, int, int] | None = None
    # in a message, where the range is in the files attached to it: their pages,
    # slides or sheet ranges; the fragment stays #char= (a place in the message's text)
    attached: tuple[AttachedPlace, ...] = ()

    @property
    def fragment(self) -> str:
        """The URL fragment: ``#page=N``, ``#slide=N``, ``#t=s,e``, a sheet range, an
        image's area (``#xywh=x,y,w,h``, W3C Media Fragments' spatial dimension, after
        ``page=N&`` in a multi-page image), else ``#char=s,e``.

        >>> Locator(0, 9, xywh=(40, 12, 300, 25)).fragment
        '#xywh=40,12,300,25'
        >>> Locator(0, 9, pages=(2,), xywh=(40, 12, 300, 25)).fragment
        '#page=2&xywh=40,12,300,25'
        """
        if self.xywh is not None:
            area = "xywh=" + ",".join(map(str, self.xywh))
            return f"#page={self.pages[0]}&{area}" if self.pages else f"#{area}"
        if self.pages:
            return f"#page={self.pages[0]}"
        if self.slides:
            return f"#slide={self.slides[0]}"
        if self.t_start is not None and self.t_end is not None:
            return f"#t={_secs(self.t_start)},{_secs(self.t_end)}"
        if self.sheet_range:
            return f"#{self.sheet_range}"
        return self.char_fragment

    @property
    def char_fragment(self) -> str:
        return f"#char={self.start},{self.end}"

    def url(self, document: str) -> str:
        """``document`` (a path under the indexed folder) with this fragment, as a relative
        URL: percent-encoded, so a name with ``#``, ``%`` or a space, or a sheet name with
        a space, still parses back to the same file and place.

        >>> Locator(0, 81).url("notes #1 100%.md")
        'notes%20%231%20100%25.md#char=0,81'
        >>> Locator(0, 9, sheet_range="'Q3 Sales'!A1:F10").url("t.xlsx")
        "t.xlsx#'Q3%20Sales'!A1:F10"
        """
        # RFC 3986: a fragment may hold sub-delims, ':', '@', '/' and '?' as they are
        return quote(document, safe="/") + "#" + quote(self.fragment[1:], safe="!$&'()*+,;=:@/?")

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"char": [self.start, self.end], "fragment": self.fragment}
        if self.pages:
            out["pages"] = list(self.pages)
        if self.page_labels:
            out["page_labels"] = list(self.page_labels)
        if self.slides:
            out["slides"] = list(self.slides)
        if self.t_start is not None:
            out["t"] = [self.t_start, self.t_end]
        if self.sheet_range:
            out["sheet_range"] = self.sheet_range
        if self.ocr_confidence is not None:
            out["ocr_confidence"] = self.ocr_confidence
        if self.xywh is not None:
            out["xywh"] = list(self.xywh)
        if self.attached:
            out["attached"] = [
                {"file": a.file, "unit": a.unit, "range": a.range} if a.unit == "range"
                else {"file": a.file, "unit": a.unit, "numbers": list(a.numbers)}
                for a in self.attached]
        return out

    @property
    def attached_note(self) -> str:
        """The attached files' places a range spans, as a reader says them, a run of
        three or more as a range: ``in report.pdf, pages 3, 4``; "" for none.

        >>> Locator(0, 9, attached=(AttachedPlace("report.pdf", "page", (3, 4, 7, 8, 9)),
        ...                         AttachedPlace("b.xlsx", "range", range="Q3!A2:C4"))
        ...         ).attached_note
        'in report.pdf, pages 3, 4, 7-9; in b.xlsx, Q3!A2:C4'
        """
        return "; ".join(a.said for a in self.attached)


def _secs(t: float) -> str:
    return f"{t:.3f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Hit:
    """A chunk as returned by a search, with both of its numbers."""

    rank: int  # 1-based, in the mode's own order
    chunk_id: int
    document: str
    title: str
    section: str
    start: int
    end: int
    locator: Locator
    content: str
    distance: float  # cosine distance of the chunk's embedding to the query's, every mode
    score: float  # the mode's own score: cosine similarity, BM25, RRF, or the cross-encoder's
    # the late-interaction score of the chunk's content (citeline.retrieve.late) when the
    # "late" fusion ranked it, else None; the extractive answer weighs its sentences by it
    late: float | None = None
    # a sheet's header row when ``content`` does not hold it (every chunk but the
    # sheet's first): its rows are read by its column names, so the prompt puts it first
    columns: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "chunk_id": self.chunk_id,
            "document": self.document,
            "title": self.title,
            "section": self.section,
            "start": self.start,
            "end": self.end,
            "locator": self.locator.fragment,
            "location": self.locator.to_json(),
            "content": self.content,
            "distance": round(self.distance, 6),
            "score": round(self.score, 6),
            "late": None if self.late is None else round(self.late, 6),
        }


@dataclass(frozen=True)
class Citation:
    """What the answer's [n] points at; built by citeline, never by a model."""

    index: int
    document: str
    title: str
    section: str
    locator: Locator
    quote: str  # exactly the chunk's content
    distance: float

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "document": self.document,
            "title": self.title,
            "section": self.section,
            "locator": self.locator.fragment,
            "url": self.locator.url(self.document),
            "location": self.locator.to_json(),
            "quote": self.quote,
            "distance": round(self.distance, 6),
        }


@dataclass(frozen=True)
class Span:
    """One sentence an extractive answer selected: an exact sub-range of a document.

    ``text == document_text[start:end]``; ``citation`` is the [n] of the hit it
    came from and ``locator`` points at the sentence itself, not the whole chunk.
    """

    citation: int
    document: str
    start: int
    end: int
    locator: Locator
    text: str
    score: float  # cosine similarity of the sentence to the question

    def to_json(self) -> dict[str, object]:
        return {
            "citation": self.citation,
            "document": self.document,
            "start": self.start,
            "end": self.end,
            "locator": self.locator.fragment,
            "url": self.locator.url(self.document),
            "location": self.locator.to_json(),
            "text": self.text,
            "score": round(self.score, 6),
        }


@dataclass(frozen=True)
class Answer:
    """The result of ``ask``: either cited passages or an honest refusal."""

    question: str
    refused: bool
    reason: str
    answer: str
    citations: tuple[Citation, ...] = ()
    threshold: float = 0.0
    nearest_distance: float | None = None
    timings: dict[str, float] = field(default_factory=dict)
    # What the answer step did; see citeline.answer. All [n] below are 1-based.
    generator: str = "extractive"
    spans: tuple[Span, ...] = ()  # extractive: the selected sentences, exact sub-ranges
    unused_sources: tuple[int, ...] = ()  # sources given but never cited
    invalid_markers: tuple[str, ...] = ()  # markers the output had that match no source
    stripped_links: tuple[str, ...] = ()  # URLs/links removed from the output
    uncited_sentences: tuple[str, ...] = ()  # answer sentences carrying no [n]
    error: str | None = None  # the generator failed; the citations are still here
    # the generator was stopped before it finished (token limit, timeout, content filter):
    # the answer may end mid-sentence
    cut_off: str | None = None
    prompt: str = ""  # the prompt the generator saw ("" for extractive or a refusal)
    prompt_tokens: int = 0
    prompt_tokenizer: str = ""  # whose tokenizer counted prompt_tokens
    # the documents a filtered question was answered from (those its patterns matched);
    # None: every document of the index
    documents: tuple[str, ...] | None = None

    @property
    def cites_nothing(self) -> bool:
        """Text that makes claims and cites none of its sources: nothing in it can be checked.

        Only a generator can write such an answer (the extractive one cites every
        sentence by construction); the prompt's "The sources do not contain the
        answer." is not a claim, so a model that says only that is not counted.
        """
        return (
            not self.refused and bool(self.citations) and bool(self.uncited_sentences)
            and len(self.unused_sources) == len(self.citations)
        )

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "question": self.question,
            "refused": self.refused,
            "reason": self.reason,
            "answer": self.answer,
            "citations": [c.to_json() for c in self.citations],
            "threshold": self.threshold,
            "nearest_distance": (
                None if self.nearest_distance is None else round(self.nearest_distance, 6)
            ),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "generator": self.generator,
            "spans": [sp.to_json() for sp in self.spans],
            "unused_sources": list(self.unused_sources),
            "invalid_markers": list(self.invalid_markers),
            "stripped_links": list(self.stripped_links),
            "uncited_sentences": list(self.uncited_sentences),
            "cites_nothing": self.cites_nothing,
            "cut_off": self.cut_off,
        }
        if self.error is not None:
            out["error"] = self.error
        if self.documents is not None:  # (an unfiltered answer's object is as it was)
            out["documents"] = list(self.documents)
        return out
