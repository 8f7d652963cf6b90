"""Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
BM25 and Beyond", 2009), with the chapter's constants and IDF::

    idf(t)      = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))
    score(q, d) = sum_{t in q} idf(t) * f_{t,d} (k1 + 1) / (f_{t,d} + k1 (1 - b + b |d| / avgdl))

with k1 = 1.2 (how fast repeating a term stops helping) and b = 0.75 (how hard
long chunks are penalised). The "+1" inside the log keeps IDF positive for terms
in more than half the chunks (Lucene's variant), so a common word never
*lowers* a score. Query terms are counted with multiplicity, as the chapter does.

Tokens are runs of letters and digits (with their combining marks) in any script,
over the NFKC-normalised, case-folded text; ``_`` and punctuation split them, so
``read_line`` gives ``read``, ``line``. On English text that is the chapter's
``[a-z0-9]+`` exactly. Scripts written without spaces between words (Chinese,
Japanese kana, Thai, Lao, Khmer, Myanmar) have no word boundaries to find without a
dictionary, so their runs become overlapping character bigrams (``東京都`` ->
``東京``, ``京都``), as Lucene's CJK analyser does. The same Python function tokenises
for every backend, so SQLite and PostgreSQL rank identically.

A command-line option (``-0``, ``-R``, ``--no-install-recommends``) is also one term
as written (:func:`option_terms`): split into runs, ``xargs -0`` is ``xargs``, ``0``,
and ``0`` is in every chunk with a number, so a question naming the option could not
find its page by it. The option term is a key the chunk carries, not more text: a
chunk's length counts :func:`tokenize`'s terms alone, so a question naming no option
scores exactly as the chapter's BM25 does.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import regex

K1 = 1.2
B = 0.75
# uni-v2: letters and digits of every script (az09-v1 kept only a-z and 0-9, so
# "működik" was the tokens m, k, dik and Chinese text had none); uni-v3: options
# (``-0``, ``--release``) are terms too
TOKENIZER_VERSION = "uni-v3"
_TOKEN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*")
_UNSPACED = regex.compile(
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]"
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{M}]*"
)

_GRAPHEME = regex.compile(r"\X")
# a word that starts with one or two hyphens (or the dash a typesetter made of them:
# U+2010/2011 hyphens and U+2212 minus for one, an en dash for two) and a letter or
# digit, at the start of the text or after a space or an opening bracket or quote
_OPTION = regex.compile(
    r"(?<![^\s(\[{<\"'`=])((?:[-\u2010\u2011\u2212]{1,2}|\u2013))([\p{L}\p{N}][\p{L}\p{N}_-]*)")
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u2013": "--"})


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    for word in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if word.isascii():
            out.append(word)
            continue
        at = 0
        for run in _UNSPACED.finditer(word):
            if run.start() > at:
                out.append(word[at : run.start()])
            chars = _GRAPHEME.findall(run.group())  # a letter with its marks is one unit
            out.extend(chars if len(chars) == 1 else
                       [chars[i] + chars[i + 1] for i in range(len(chars) - 1)])
            at = run.end()
        if at < len(word):
            out.append(word[at:])
    return out


def option_terms(text: str) -> list[str]:
    """The command-line options written in ``text``, each a term as written (case
    kept: ``-R`` and ``-r`` are different options), after NFKC, typeset dashes read
    as the hyphens they stand for, without a trailing hyphen or ``_``.

    >>> option_terms("find . -print0 | xargs -0 rm; apt-get --no-install-recommends")
    ['-print0', '-0', '--no-install-recommends']
    >>> option_terms("a well-known 1-5 range, -- alone, and \u2013release")
    ['--release']
    """
    return [dashes.translate(_DASHES) + name.rstrip("-_")
            for dashes, name in _OPTION.findall(unicodedata.normalize("NFKC", text))]


def terms(text: str) -> list[str]:
    """BM25's terms of ``text``: :func:`tokenize`'s, then :func:`option_terms`'."""
    return tokenize(text) + option_terms(text)


_WORD = regex.compile(r"\S+")


def key_terms(text: str) -> list[str]:
    """The BM25 terms of ``text`` that are part of a code: a word with letters and
    digits in it (``E1042``, ``P-4021``, ``INV-20520``, ``B12``), its terms holding a
    digit. A bare number (a year, a quantity) is no code: it keys nothing.

    >>> key_terms("What is the price of part P-4021 in 2019, and of E1042?")
    ['4021', 'e1042']
    """
    out: dict[str, None] = {}  # in the order met, each once
    for word in key_words(text):
        out.update((t, None) for t in tokenize(word) if any(ch.isdigit() for ch in t))
    return list(out)


def key_words(text: str) -> list[str]:
    """The words of ``text`` that are codes, as written (the punctuation around them
    trimmed), each once: what :func:`key_terms` takes its terms from.

    >>> key_words('Is "P-4021" the part, or E1042? In 2019.')
    ['P-4021', 'E1042']
    """
    out: dict[str, None] = {}
    for word in _WORD.findall(text):
        if any(ch.isalpha() for ch in word) and any(ch.isdigit() for ch in word):
            out[word.strip(_AROUND)] = None
    return list(out)


_AROUND = "\"'`.,;:!?()[]{}<>«»“”‘’"


def term_frequencies(text: str) -> tuple[Counter[str], int]:
    """Each BM25 term's count in ``text`` (options too), and the length BM25 divides
    by: :func:`tokenize`'s terms alone, so an option adds a key, not length."""
    toks = tokenize(text)
    return Counter(toks + option_terms(text)), len(toks)


def idf(N: int, n_t: int) -> float:  # noqa: N803 - the paper's names
    return math.log(1.0 + (N - n_t + 0.5) / (n_t + 0.5))


class Postings:
    """Every term's postings in three flat arrays, grouped by term (compressed sparse
    rows): term ``t``'s chunk rows and frequencies are ``rows[s:e]`` and ``tfs[s:e]``
    for ``s, e = offsets[i], offsets[i + 1]``, ``i = vocabulary[t]``, sorted by row.

    One structure for the whole index instead of two small arrays per term: it is built
    and merged with whole-array numpy steps (sorting ~400k postings takes ~40 ms), not
    a Python loop over postings, so the SQLite store's snapshot can take in a few
    changed chunks without reading the rest again. A term left with no postings by a
    merge stays in the vocabulary, empty: ``in`` says False for it.
    """

    def __init__(self, vocabulary: dict[str, int], term_ix: np.ndarray, rows: np.ndarray,
                 tfs: np.ndarray) -> None:
        """``term_ix``, ``rows``, ``tfs``: one posting per position, in any order."""
        order = np.lexsort((rows, term_ix))
        self.vocabulary = vocabulary
        self.term_ix = term_ix[order]
        self.rows = rows[order]
        self.tfs = tfs[order]
        self.offsets = np.searchsorted(self.term_ix, np.arange(len(vocabulary) + 1))

    def __contains__(self, term: object) -> bool:
        i = self.vocabulary.get(term)  # type: ignore[call-overload]
        return i is not None and bool(self.offsets[i + 1] > self.offsets[i])

    def __getitem__(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        i = self.vocabulary[term]
        s, e = self.offsets[i], self.offsets[i + 1]
        if s == e:
            raise KeyError(term)
        return self.rows[s:e], self.tfs[s:e]

    def merged(self, kept: np.ndarray, remap: np.ndarray,
               added: Sequence[tuple[str, int, int]]) -> Postings:
        """These postings with only the rows ``kept`` (a mask over the old rows), renumbered
        by ``remap`` (old row -> new row), plus ``added`` (term, new row, tf)."""
        keep = kept[self.rows]
        vocabulary = dict(self.vocabulary)
        new_ix = [vocabulary.setdefault(t, len(vocabulary)) for t, _, _ in added]
        return Postings(
            vocabulary,
            np.concatenate([self.term_ix[keep], np.array(new_ix, dtype=np.int64)]),
            np.concatenate([remap[self.rows[keep]],
                            np.array([r for _, r, _ in added], dtype=np.int64)]),
            np.concatenate([self.tfs[keep], np.array([f for _, _, f in added], dtype=np.int64)]),
        )


def score_postings(
    query_terms: Sequence[str],
    postings: Mapping[str, tuple[np.ndarray, np.ndarray]] | Postings,
    lengths: np.ndarray,
    avgdl: float,
    k1: float = K1,
    b: float = B,
) -> np.ndarray:
    """BM25 of every chunk (by row position) for ``query_terms``.

    ``postings[t] = (rows, tf)``: the row positions of the chunks holding ``t``
    and its frequency in each; ``n_t = len(rows)``; ``N = len(lengths)``.
    """
    N = len(lengths)  # noqa: N806
    scores = np.zeros(N, dtype=np.float64)
    if N == 0 or avgdl <= 0:
        return scores
    norm = k1 * (1.0 - b + b * lengths / avgdl)
    for t in query_terms:
        if t not in postings:
            continue
        rows, tf = postings[t]
        f = tf.astype(np.float64)
        scores[rows] += idf(N, len(rows)) * f * (k1 + 1.0) / (f + norm[rows])
    return scores
