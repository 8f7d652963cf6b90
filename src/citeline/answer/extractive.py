"""The extractive answer: the sentences of the kept hits that answer the question.

No language model. Every kept hit's ``content`` is split into sentences whose
offsets are exact positions in the document (``hit.start`` + the offset inside
``content``), each sentence is embedded with the same model that embedded the
index and scored by cosine similarity to the question, and the best ones are
taken under a character budget. They are shown in source order within each
hit, each followed by the [n] of the hit it came from, and each carries its
own locator (``#char=`` of the sentence itself), so a reader can check every
sentence against the document in one click.

Trade-off named: a sentence scored alone loses its context ("It does this by
..."), so its hit's own match with the question is blended in: the hit's
late-interaction score when the "late" fusion ranked it (``HIT_LATE_WEIGHT``),
else the hit's cosine similarity (``HIT_WEIGHT``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from citeline.chunk import NOTE_LINE, fence_starts, row_notes
from citeline.embed import Embedder
from citeline.retrieve.bm25 import key_terms, tokenize
from citeline.types import Hit, Locator, Span

# ~3 sentences of prose or one short code block. Swept on rustbook's 64 queries
# (benchmarks/answer_eval.py; budget 250/300/400/600 x MAX_GAP x HIT_WEIGHT):
# 250 kept 13-17 needles, 400 kept 27 at a median of ~390 chars, 600 kept the
# same 27 at ~590 chars. Tuned on the eval set itself: expect less elsewhere.
ANSWER_BUDGET = 400
# Sentences scoring this far below the best one are noise, not a second point.
MAX_GAP = 0.2
# How much the hit's own similarity counts next to the sentence's: a sentence
# from a chunk that matched well is more likely relevant than an equally similar
# sentence from a chunk that barely passed the gate.
HIT_WEIGHT = 0.3
# The same, when the hits carry their late-interaction score (the "late" fusion, the
# default): that score is what ranked them, and it tells the answering chunk from its
# neighbours better than their pooled cosine. Chosen by leave-one-corpus-out over four
# corpora among {0, .15, .3, .45} (every fold picked .45), with MAX_GAP and the
# budget as they were: needles kept 131 / 256 held out vs 120 with the cosine at .3
# (+15/-4, p = .019; docs/retrieval-experiments.md, section 24).
HIT_LATE_WEIGHT = 0.45
# A "sentence" shorter than this is a fragment ("Listing 3-1.", "}") not an answer.
MIN_SENTENCE = 12

_BLOCK = re.compile(r"[^\n]([^\n]|\n(?![ \t]*\n))*")  # lines without a blank line between
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]", re.M)
# an underline (setext, reStructuredText): one punctuation character repeated
_UNDERLINE = r"[ \t]*([=\-~^\"'`#*+:.])\1{2,}[ \t]*"
# a setext or reStructuredText heading: its text line(s) over an underline, as a block
# of its own
_UNDERLINED = re.compile(rf"[^\n]+(?:\n[^\n]+)*\n{_UNDERLINE}")
_UNDERLINE_LINE = re.compile(rf"^{_UNDERLINE}$", re.M)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+", re.M)
# A sentence ends at . ! ? (plus closing quotes/brackets/emphasis) before
# whitespace and a character that can start a sentence; "e.g. the" does not end one.
# Chinese and Japanese end theirs at 。！？ with no space after.
_SENT_END = re.compile(r"[.!?][\"'”’)\]*_`]*(?=\s+[\"'“‘(\[*_`A-Z0-9])"
                       r"|[。！？][」』”’）)]*")


def sentence_spans(content: str, headings: bool = True,
                   opener: str = "") -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``content``, whitespace trimmed.

    A fenced code block is one unit; headings are skipped (they label, they do
    not answer; an underlined one too), also when text follows them with no blank
    line between; list items start new sentences. ``headings=False`` for text whose
    lines are no Markdown (a sheet's rows: ``# | Player | Goals`` is a header row), where
    each line, a row, is a sentence of its own (and a row holding prose is cut at its
    sentences' ends too), so an answer quotes and cites the row that answers.
    ``opener``: the fence line of the block ``content`` starts inside, when a chunk
    starts in the middle of a long listing (:func:`open_fence`); its code up to the
    closing fence is then one unit, and that closing fence opens nothing.

    >>> sentence_spans("One. Two e.g. three!\\n\\n# H\\n\\n- a item here")
    [(0, 4), (5, 20), (27, 40)]
    >>> t = "## Priming\\nOpen the valve."
    >>> [t[s:e] for s, e in sentence_spans(t)]
    ['Open the valve.']
    """
    if opener:  # read as if the block's opening line stood before the chunk
        shift = len(opener) + 1
        return [(max(s - shift, 0), e - shift)
                for s, e in sentence_spans(f"{opener}\n{content}", headings) if e > shift]
    spans: list[tuple[int, int, bool]] = []  # (start, end, is a code block)
    code = _code_blocks(content)
    pos = 0
    for cs, ce in [*code, (len(content), len(content))]:
        for m in _BLOCK.finditer(content, pos, cs):
            spans.extend((a, b, False)
                         for a, b in _split_block(content, m.start(), m.end(), headings))
        if ce > cs:
            spans.append((cs, ce, True))
        pos = ce
    out = []
    for s, e, is_code in spans:
        while s < e and content[s].isspace():
            s += 1
        while e > s and content[e - 1].isspace():
            e -= 1
        # a code block is never a heading: its closing ``` would pass for an underline
        if e > s and (is_code or not headings or (not _HEADING.match(content, s)
                                                  and not _UNDERLINED.fullmatch(content, s, e))):
            out.append((s, e))
    return out


def open_fence(before: str) -> str:
    """The opening line of the fenced code block that the text ``before`` ends inside,
    "" when it ends outside any (the chunker pairs fences the same way).

    >>> open_fence("Intro.\\n\\n```rust\\nfn main() {\\n"), open_fence("```\\nx\\n```\\n")
    ('```rust', '')
    """
    at = fence_starts(before)
    return before[at[-1]:].split("\n", 1)[0] if len(at) % 2 else ""


def _code_blocks(content: str) -> list[tuple[int, int]]:
    """(start, end) of each fenced code block of ``content``, its fence lines included,
    paired as the chunker pairs them (:func:`~citeline.chunk.fence_starts`); a block
    never closed runs to the end.

    >>> t = "````md\\n```\\nx\\n```\\n````\\nAfter."
    >>> [t[s:e] for s, e in _code_blocks(t)]
    ['````md\\n```\\nx\\n```\\n````']
    """
    at = fence_starts(content)
    out = []
    for i in range(0, len(at), 2):
        if i + 1 == len(at):
            out.append((at[i], len(content)))
        else:
            close = content.find("\n", at[i + 1])
            out.append((at[i], len(content) if close < 0 else close))
    return out


def _split_block(text: str, start: int, end: int, headings: bool = True) -> list[tuple[int, int]]:
    cuts = {start, end}
    titles: list[tuple[int, int]] = []  # never cut inside: "## 2.5. Suppressing errors"
    if headings:  # a heading line is a piece of its own (then skipped), so is a title
        # with its underline: the text under either, with no blank line between, is not
        for m in _HEADING.finditer(text, start, end):
            line_end = text.find("\n", m.start(), end)
            titles.append((m.start(), end if line_end < 0 else line_end))
        for m in _UNDERLINE_LINE.finditer(text, start, end):
            title = text.rfind("\n", start, max(m.start() - 1, start))
            titles.append((start if title < 0 else title + 1, m.end()))
        for t in titles:
            cuts.update(t)
    else:  # a sheet's rows: each line is one row (the extractor flattens a cell's own
        # newlines), and a row is what answers, not the ten or fifty a chunk packs
        line = text.find("\n", start, end)
        while line >= 0:
            cuts.add(line + 1)
            line = text.find("\n", line + 1, end)
    inner = [m.start() for m in _LIST_ITEM.finditer(text, start, end)]
    inner += [m.end() for m in _SENT_END.finditer(text, start, end)]
    cuts.update(c for c in inner if not any(a < c < b for a, b in titles))
    bounds = sorted(cuts)
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


@dataclass(frozen=True)
class Candidate:
    citation: int  # the [n] of the hit
    hit: Hit
    start: int  # in the document
    end: int
    text: str
    score: float


def candidates(hits: Sequence[Hit], min_chars: int = MIN_SENTENCE,
               openers: Sequence[str] = ()) -> list[Candidate]:
    """Every sentence of every kept hit, with document offsets (score filled later);
    ``openers[i]``: the fence line hit i starts inside of, if any (:func:`open_fence`)."""
    out = []
    for n, h in enumerate(hits, start=1):
        path = h.section.split(" > ")  # the document's title, then its headings
        titles = {" ".join(t.split()) for t in path}
        opener = openers[n - 1] if openers else ""
        for s, e in sentence_spans(h.content, headings=h.locator.sheet_range is None,
                                   opener=opener):
            s = after_heading_line(h.content, s, e, path[-1])
            if e - s < min_chars or " ".join(h.content[s:e].split()) in titles:
                continue  # a fragment, or a heading set as a line of its own (a PDF's)
            out.append(Candidate(n, h, h.start + s, h.start + e, h.content[s:e], 0.0))
    return out


def after_heading_line(content: str, start: int, end: int, heading: str) -> int:
    """Where the sentence ``content[start:end]`` starts once a first line that is its
    section's ``heading`` is left out. A PDF's heading (read from its bookmarks or font
    sizes) is a plain line with no blank line after it, so it would open the sentence
    below it; Markdown's ``#`` headings are skipped by :func:`sentence_spans` already.

    >>> t = "Replacing an emitter\\nCut the old emitter off."
    >>> t[after_heading_line(t, 0, len(t), "Replacing an emitter"):]
    'Cut the old emitter off.'
    """
    line_end = content.find("\n", start, end)
    if line_end < 0 or content[start:line_end].split() != heading.split():
        return start
    start = line_end + 1
    if underline := _UNDERLINE_LINE.match(content, start, end):  # a setext title's
        start = underline.end()
    while start < end and content[start].isspace():
        start += 1
    return start


def select(
    cands: Sequence[Candidate], scores: Sequence[float], budget: int = ANSWER_BUDGET
) -> list[Candidate]:
    """Pick by score under ``budget`` characters; return them in citation, then source order.

    Pure: the scores come in. The best sentence is always taken (even when it
    alone is over budget: an answer must say something); the others only if
    they fit and score within ``MAX_GAP`` of the best.

    >>> c = [Candidate(1, None, s, s + 10, "x" * 10, 0.0) for s in (0, 20, 40)]
    >>> [x.start for x in select(c, [0.5, 0.9, 0.8], budget=25)]  # 0.9, then 0.8; 0.5 is over budget
    [20, 40]
    >>> [x.start for x in select(c, [0.8, 0.9, 0.1], budget=25)]  # 0.1 is over MAX_GAP below 0.9
    [0, 20]
    """
    if not cands:
        return []
    order = sorted(range(len(cands)), key=lambda i: -scores[i])
    best = scores[order[0]]
    chosen = [order[0]]
    used = len(cands[order[0]].text)
    for i in order[1:]:
        if scores[i] < best - MAX_GAP:
            break
        if used + len(cands[i].text) <= budget:
            chosen.append(i)
            used += len(cands[i].text)
    picked = [
        Candidate(c.citation, c.hit, c.start, c.end, c.text, float(scores[i]))
        for i in chosen
        for c in [cands[i]]
    ]
    return sorted(picked, key=lambda c: (c.citation, c.start))


def named_rows(question: str, cands: Sequence[Candidate],
               row_of: Callable[[Candidate], int | None] | None = None) -> list[int]:
    """Which candidates are sheet rows the question names by a code: a question term of
    a word with letters and digits (:func:`~citeline.retrieve.bm25.key_terms`: "e1042"
    of "E1042", "4021" of "P-4021") that one candidate alone holds, a sheet's row. Such a
    row is the answer, and rows the embedding model finds alike (every row of a sheet is,
    to it) are not; a code a paragraph also holds (an error code a manual explains)
    names no row. The row's comments under it come with it (:func:`row_notes`, told the
    row's number by ``row_of`` when it can say).

    >>> from citeline.types import Hit, Locator
    >>> rows = "P-4018 | Hex nut | 0.12\\nP-4021 | Hex bolt | 0.45"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(rows), Locator(0, len(rows), sheet_range="s!A2:C3"),
    ...         rows, 0.4, 1.0)
    >>> c = candidates([h])
    >>> [c[i].text for i in named_rows("What does part P-4021 cost?", c)]
    ['P-4021 | Hex bolt | 0.45']
    >>> named_rows("What does a hex bolt cost?", c)
    []
    >>> note = "Order P-4021 again when fewer than ten are left."
    >>> p = Hit(2, 2, "n.md", "n", "n", 0, len(note), Locator(0, len(note)), note, 0.3, 1.0)
    >>> named_rows("What does part P-4021 cost?", candidates([h, p]))
    []

    A row's comments come with it:

    >>> rows += "\\nComment on C3 by Ana Ruiz: the 2024 list is 8% higher"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(rows), Locator(0, len(rows), sheet_range="s!A2:C3"),
    ...         rows, 0.4, 1.0)
    >>> c = candidates([h])
    >>> [c[i].text for i in named_rows("What does part P-4021 cost?", c)]
    ['P-4021 | Hex bolt | 0.45', 'Comment on C3 by Ana Ruiz: the 2024 list is 8% higher']
    >>> rows += ". Checked in May.\\nP-4022 | Hex cap | 0.50"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(rows), Locator(0, len(rows), sheet_range="s!A2:C4"),
    ...         rows, 0.4, 1.0)
    >>> c = candidates([h])
    >>> [c[i].text for i in named_rows("What does part P-4021 cost?", c)]
    ['P-4021 | Hex bolt | 0.45', 'Comment on C3 by Ana Ruiz: the 2024 list is 8% higher.', 'Checked in May.']
    """
    keys = set(key_terms(question))
    if not keys:
        return []
    holders: dict[str, list[int]] = {}
    for i, c in enumerate(cands):  # prose too: a code a paragraph explains is no row's
        for t in keys & set(tokenize(c.text)):
            holders.setdefault(t, []).append(i)
    named = {held[0] for held in holders.values()
             if len(held) == 1 and cands[held[0]].hit.locator.sheet_range is not None}
    for i in list(named):  # and the row's comments, the lines right under it
        if NOTE_LINE.match(_line(cands[i])[1]):
            continue
        under: dict[int, str] = {}  # the lines after the row's, by where they start
        j = i + 1
        while j < len(cands) and cands[j].citation == cands[i].citation:
            at, line = _line(cands[j])
            under.setdefault(at, line)
            j += 1
        notes = row_notes(list(under.values()), row_of(cands[i]) if row_of else None)
        kept = set(list(under)[:len(notes)])  # a comment of two sentences is two candidates
        named.update(k for k in range(i + 1, j) if _line(cands[k])[0] in kept)
    return sorted(named)


def _line(c: Candidate) -> tuple[int, str]:
    """Where in its hit's content the line holding candidate ``c`` starts, and the line."""
    text, at = c.hit.content, c.start - c.hit.start
    begin = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return begin, text[begin:end if end >= 0 else len(text)]


def score(question: str, cands: Sequence[Candidate], embedder: Embedder) -> list[float]:
    """Cosine similarity of each sentence to the question, blended with its hit's
    match: the hit's late-interaction score when every hit has one, else its cosine."""
    if not cands:
        return []
    vecs = embedder.embed([question, *(c.text for c in cands)])
    sims = vecs[1:] @ vecs[0]
    if all(c.hit.late is not None for c in cands):
        weight = HIT_LATE_WEIGHT
        hit = np.array([c.hit.late for c in cands], dtype=np.float32)
    else:  # another fusion, or an index without token vectors
        weight = HIT_WEIGHT
        hit = np.array([1.0 - c.hit.distance for c in cands], dtype=np.float32)
    return [float(x) for x in (1 - weight) * sims + weight * hit]


def spans(picked: Sequence[Candidate], locate_span) -> tuple[Span, ...]:  # type: ignore[no-untyped-def]
    """Turn selected sentences into :class:`Span`; ``locate_span(hit, start, end) -> Locator``."""
    return tuple(
        Span(
            citation=c.citation, document=c.hit.document, start=c.start, end=c.end,
            locator=locate_span(c.hit, c.start, c.end), text=c.text, score=c.score,
        )
        for c in picked
    )


_ROWS = re.compile(r"\$?[A-Z]{1,3}\$?([0-9]+):\$?[A-Z]{1,3}\$?([0-9]+)")


def single_row(sheet_range: str | None) -> int | None:
    """The row of a sheet range within one row (``'Q3 Sales'!A3:E3`` is 3), else None.

    >>> single_row("Pumps!A3:E3"), single_row("Pumps!A1:E5"), single_row(None)
    (3, None, None)
    """
    m = _ROWS.fullmatch((sheet_range or "").rpartition("!")[2])
    return int(m.group(1)) if m and m.group(1) == m.group(2) else None


def sub_locator(hit: Hit, start: int, end: int) -> Locator:
    """The locator of a sub-range of a hit: its own #char=, the hit's page/slide/time/sheet.

    The char range is exact. Page/time/sheet are the hit's: a sentence of a
    chunk that crosses a page break may sit on the second of its pages (the
    region map that would say which is not kept in the store).
    """
    loc = hit.locator
    return Locator(
        start=start, end=end, pages=loc.pages, t_start=loc.t_start, t_end=loc.t_end,
        sheet_range=loc.sheet_range, ocr_confidence=loc.ocr_confidence, slides=loc.slides,
        page_labels=loc.page_labels, xywh=loc.xywh, attached=loc.attached,
    )


def needle_kept(document: str, document_text: str, picked: Sequence[Span], needle: str) -> bool:
    """Whether ``needle`` lies whole inside a run of adjacent selected sentences of ``document``.

    Adjacent = consecutive selected sentences with only whitespace between
    them: the answer shows them together, so a reader sees the needle whole.
    """
    runs: list[tuple[int, int]] = []
    for sp in sorted((p for p in picked if p.document == document), key=lambda p: p.start):
        if runs and not document_text[runs[-1][1] : sp.start].strip():
            runs[-1] = (runs[-1][0], max(runs[-1][1], sp.end))
        else:
            runs.append((sp.start, sp.end))
    return any(needle in document_text[s:e] for s, e in runs)
