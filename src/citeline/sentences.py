"""Sentences of a chunk, for the sentence-level dense list (issue 7).

A needle is usually one sentence, and a chunk's mean-pooled vector dilutes it
among its neighbours. So every chunk's ``content`` is also split into
sentences, each embedded on its own; at query time a chunk scores the best
similarity of any of its sentences (see :mod:`citeline.retrieve.fuse`). The
chunk stays the unit that is ranked, gated and cited.

The split is the one measured in docs/retrieval-experiments.md (sections 1, 4
and 10): paragraphs (runs of lines without a blank line), then the chapter's
sentence regex inside each paragraph, then any piece shorter than
:data:`MIN_SENTENCE_CHARS` merged into the sentence before it in the same
paragraph. A fenced code block is one paragraph per blank-line run, and the
regex cuts it at ``.`` (``foo.bar()``); the short-piece merge glues most such
fragments back to their line, and a code sentence still carries the section
header. Offsets are document offsets and every sentence is an exact slice of
the document text, inside its chunk.
"""

from __future__ import annotations

import re

# Stamped into every document's pipeline version: a document indexed before
# sentence vectors existed (or with another split) shows as stale, and
# `reindex --stale` adds them.
SENTENCE_SIGNATURE = "sent-v1:m25:h"
# Pieces shorter than this are merged into the sentence before them (same
# paragraph): "Listing 2-1." or "e.g." alone are not sentences worth a vector,
# and the experiments that chose the sentence list used this value.
MIN_SENTENCE_CHARS = 25

_PARAGRAPH = re.compile(r"[^\n]([^\n]|\n(?!\n))*")  # as in citeline.chunk
_SENTENCE = re.compile(r"[^.!?]*[.!?]*\s*")  # the chapter's sentence splitter


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) document offsets of the sentences of ``text[start:end]``.

    Every span is stripped of surrounding whitespace, non-empty, inside
    ``[start, end)``, and spans are in order without overlap.
    """
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    for pm in _PARAGRAPH.finditer(text, start, end):
        base = pm.start()
        para = pm.group(0)
        for sm in _SENTENCE.finditer(para):
            piece = sm.group(0)
            if not piece.strip():
                continue
            s = base + sm.start() + (len(piece) - len(piece.lstrip()))
            e = base + sm.end() - (len(piece) - len(piece.rstrip()))
            if out and e - s < MIN_SENTENCE_CHARS and out[-1][1] >= base:
                out[-1] = (out[-1][0], e)  # a short piece joins the sentence before it
            else:
                out.append((s, e))
    return out


def sentence_text(section: str, sentence: str) -> str:
    """What is embedded for one sentence: the chunk's ``[heading path]`` header and
    the sentence. With the header, cross-validation on rustbook preferred it over
    the bare sentence for both fusions measured (docs/retrieval-experiments.md, 10)."""
    return f"[{section}]\n{sentence}" if section else sentence
