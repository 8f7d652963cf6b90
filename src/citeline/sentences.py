"""Sentences of a chunk, for the sentence-level dense list (issue 7).

A needle is usually one sentence, and a chunk's mean-pooled vector dilutes it
among its neighbours. So every chunk's ``content`` is also split into
sentences, each embedded on its own; at query time a chunk scores the best
similarity of any of its sentences (see :mod:`citeline.retrieve.fuse`). The
chunk stays the unit that is ranked, gated and cited.

The split (measured in docs/retrieval-experiments.md, sections 1, 4 and 10):
paragraphs (runs of lines without a blank line); inside a paragraph, prose is
cut by the chapter's sentence regex, while the lines of a fenced code block
(fence lines included) are packed whole, up to :data:`CODE_PIECE_CHARS`, so
``foo.bar()`` or ``0.32 secs`` are never cut at their dots; finally any piece
shorter than :data:`MIN_SENTENCE_CHARS` joins the piece before it in the same
paragraph. Offsets are document offsets, and every sentence is an exact,
whitespace-trimmed slice of the document text inside its chunk.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from citeline.chunk import fence_starts, pack_spans

# Stamped into every document's pipeline version: a document indexed before
# sentence vectors existed (or with another split) shows as stale, and
# `reindex --stale` adds them.
SENTENCE_SIGNATURE = "sent-v1:m25:c160:h"
# Pieces shorter than this are merged into the sentence before them (same
# paragraph): "Listing 2-1." or "e.g." alone are not sentences worth a vector,
# and the experiments that chose the sentence list used this value.
MIN_SENTENCE_CHARS = 25

# Lines of fenced code are packed into pieces of at most this many characters
# (a line longer than that is a piece alone): about two prose sentences (the mean
# sentence on rustbook is ~90 characters), so a piece is a statement or a few.
# Measured against cutting code with the sentence regex: the same held-out
# retrieval on rustbook with 7% fewer vectors (docs/retrieval-experiments.md, 10).
CODE_PIECE_CHARS = 160

_PARAGRAPH = re.compile(r"[^\n]([^\n]|\n(?!\n))*")  # as in citeline.chunk
_SENTENCE = re.compile(r"[^.!?]*[.!?]*\s*")  # the chapter's sentence splitter
_LINE = re.compile(r"[^\n]*\n?")
_ROW = re.compile(r"[^\n]+")


def split_sentences(text: str, start: int = 0, end: int | None = None,
                    fences: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """(start, end) document offsets of the sentences of ``text[start:end]``.

    ``text`` is the whole document (fences before ``start`` decide whether a
    range begins inside code; ``fences``: :func:`fence_starts` of ``text``, if
    known). Every span is stripped of surrounding whitespace, non-empty, inside
    ``[start, end)``, and spans are in order without overlap.
    """
    end = len(text) if end is None else end
    fences = fence_starts(text) if fences is None else fences
    out: list[tuple[int, int]] = []
    for pm in _PARAGRAPH.finditer(text, start, end):
        base = pm.start()
        for s0, e0 in _pieces(text, base, pm.end(), fences):
            piece = text[s0:e0]
            if not piece.strip():
                continue
            s = s0 + (len(piece) - len(piece.lstrip()))
            e = e0 - (len(piece) - len(piece.rstrip()))
            if out and e - s < MIN_SENTENCE_CHARS and out[-1][1] >= base:
                out[-1] = (out[-1][0], e)  # a short piece joins the sentence before it
            else:
                out.append((s, e))
    return out


def _pieces(text: str, start: int, end: int, fences: Sequence[int]) -> list[tuple[int, int]]:
    """One paragraph -> prose sentences and packed code lines, untrimmed."""
    inside = bisect_left(fences, start) % 2 == 1  # an odd number of fences before: in code
    segments: list[tuple[int, int, bool]] = []  # runs of prose or code lines
    for ls, le in _lines(text, start, end):
        at = bisect_left(fences, ls)
        fence = at < len(fences) and fences[at] == ls
        code = inside or fence
        if fence:
            inside = not inside
        if segments and segments[-1][2] == code:
            segments[-1] = (segments[-1][0], le, code)
        else:
            segments.append((ls, le, code))
    out: list[tuple[int, int]] = []
    for s, e, code in segments:
        if code:
            out.extend(pack_spans(_lines(text, s, e), CODE_PIECE_CHARS))
        else:
            out.extend((m.start(), m.end()) for m in _SENTENCE.finditer(text, s, e))
    return out


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each line of text[start:end], its newline included."""
    return [(m.start(), m.end()) for m in _LINE.finditer(text, start, end) if m.end() > m.start()]


def row_sentences(text: str, start: int, end: int, headers: Sequence[str] = ()) -> list[tuple[int, int]]:
    """(start, end) of each row of a sheet's ``text[start:end]``: a sheet's sentence is its
    row (one line; the extractor flattens a cell's own line breaks). The prose splitter
    cut rows at every decimal point and ran pieces across rows ("50 | 900 | Acme\\nP-4003
    | Hex nut"). A line that is the sheet's header row (``headers``) is no sentence: it
    names the columns, and each row's vector carries it already (the pipeline embeds
    it before the row).

    >>> t = "id | price\\nP-1 | 12.50\\nP-2 | 3.10"
    >>> [t[s:e] for s, e in row_sentences(t, 0, len(t), ["id | price"])]
    ['P-1 | 12.50', 'P-2 | 3.10']
    """
    out = []
    for m in _ROW.finditer(text, start, end):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s and text[s:e] not in headers:
            out.append((s, e))
    return out


def sentence_text(section: str, sentence: str) -> str:
    """What is embedded for one sentence: the chunk's ``[heading path]`` header and
    the sentence. With the header, cross-validation on rustbook preferred it over
    the bare sentence for both fusions measured (docs/retrieval-experiments.md, 10)."""
    return f"[{section}]\n{sentence}" if section else sentence
