"""BM25, RRF and the gate: pure math against hand-worked values and an independent BM25."""

from __future__ import annotations

import math

import numpy as np
import pytest

from citeline.gate import gate, refusal_line
from citeline.retrieve.bm25 import (
    idf,
    option_terms,
    score_postings,
    term_frequencies,
    terms,
    tokenize,
)
from citeline.retrieve.dense import top_k
from citeline.retrieve.fuse import CONVEX_ALPHA, convex, rrf, section_lift
from citeline.types import Hit, Locator

CORPUS = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "cats and dogs are pets",
    "a mat is a flat piece of cloth on the floor the mat",
    "read_line appends to the String buffer",
    "the quick brown fox jumps over the lazy dog",
]


def _postings(docs: list[str]):
    acc: dict[str, tuple[list[int], list[int]]] = {}
    lengths = []
    for row, d in enumerate(docs):
        tf, length = term_frequencies(d)  # as the stores count them
        lengths.append(length)
        for t, n in tf.items():
            acc.setdefault(t, ([], []))
            acc[t][0].append(row)
            acc[t][1].append(n)
    post = {t: (np.array(r), np.array(f)) for t, (r, f) in acc.items()}
    return post, np.array(lengths, dtype=float)


def ours(query: str, docs=CORPUS) -> np.ndarray:
    post, lengths = _postings(docs)
    return score_postings(tokenize(query), post, lengths, float(lengths.mean()))


def test_bm25_hand_worked():
    # "mat" in doc 0: N=6, n_t=2 -> idf = ln(1 + 4.5/2.5) = ln 2.8
    # |d0| = 6 tokens, avgdl = (6+6+5+13+7+9)/6 = 46/6, f = 1
    # score = ln2.8 * 1*2.2 / (1 + 1.2*(0.25 + 0.75*6/(46/6))) = 1.0296 * 2.2 / 2.0043 = 1.1301
    expected = math.log(2.8) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 6 / (46 / 6)))
    assert expected == pytest.approx(1.1301, abs=1e-4)
    assert ours("mat")[0] == pytest.approx(expected)
    assert idf(6, 2) == pytest.approx(math.log(2.8))


@pytest.mark.parametrize(
    "query", ["mat", "the cat", "dog sat log", "read_line String", "lazy fox pets", "cloth floor mat"]
)
def test_bm25_agrees_with_bm25s(query):
    """bm25s (method 'lucene', the same IDF) is an independent implementation.

    Lucene drops the constant (k1 + 1) from the numerator, so its scores are
    ours / 2.2: the same ranking, a constant factor apart.
    """
    bm25s = pytest.importorskip("bm25s")
    tokens = [tokenize(d) for d in CORPUS]
    vocab = {t: i for i, t in enumerate(sorted({t for d in tokens for t in d}))}
    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    retriever.index(bm25s.tokenization.Tokenized(
        ids=[[vocab[t] for t in d] for d in tokens], vocab=vocab), show_progress=False)
    q = [t for t in dict.fromkeys(tokenize(query)) if t in vocab]
    theirs = retriever.get_scores(q)
    mine = ours(" ".join(q))
    np.testing.assert_allclose(mine, theirs * (1.2 + 1), rtol=1e-5, atol=1e-6)
    assert list(np.argsort(-mine, kind="stable")[:3]) == list(np.argsort(-theirs, kind="stable")[:3])


def test_tokenizer_matches_baseline():
    assert tokenize("Vec<T> read_line --release 2024!") == ["vec", "t", "read", "line", "release", "2024"]


def test_an_option_is_one_more_term_and_no_more_length():
    assert option_terms("tar -xzf a.tgz; git commit -a --amend; cp -R") == [
        "-xzf", "-a", "--amend", "-R"]
    # a hyphen inside a word, a range, a rule, a lone dash: none is an option
    assert option_terms("well-known 1-5 --- - x a--b") == []
    # a typesetter's dashes read as the hyphens they stand for
    assert option_terms("\u2010v \u2212\u2212verbose \u2013release") == [
        "-v", "--verbose", "--release"]
    assert terms("xargs -0") == ["xargs", "0", "-0"]
    tf, length = term_frequencies("Use cargo build --release -p foo")
    assert tf["--release"] == tf["-p"] == tf["release"] == 1 and length == 6
    # a query naming no option scores exactly as the chapter's BM25: the option adds
    # a term, not length, to its words' (``--release`` is ``release`` and ``--release``)
    post, lengths = _postings([d + " --release -p" for d in CORPUS])
    plain_post, plain_lengths = _postings([d + " release p" for d in CORPUS])
    np.testing.assert_array_equal(lengths, plain_lengths)
    np.testing.assert_allclose(
        score_postings(tokenize("lazy fox"), post, lengths, float(lengths.mean())),
        score_postings(tokenize("lazy fox"), plain_post, plain_lengths,
                       float(plain_lengths.mean())))


def test_rrf_hand_worked():
    # a: 1/61 + 1/62 ; b: 1/62 + 1/61 ; c: 1/63 ; d: 1/63  -> a, b tie: by id
    fused = rrf([[1, 2, 3], [2, 1, 4]])
    assert [i for i, _ in fused] == [1, 2, 3, 4]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[2][1] == pytest.approx(1 / 63)
    # ranks only: rescaling one list's scores cannot change the fusion
    assert rrf([[5, 6]], k=60) == [(5, 1 / 61), (6, 1 / 62)]


def test_convex_hand_worked():
    # best BM25 is 4.0, so bm25/max: 1 -> 1.0, 2 -> 0.5, 3 -> 0 (absent from the BM25 list)
    dense = {1: 0.2, 2: 0.6, 3: 0.5}
    bm25 = {1: 4.0, 2: 2.0}
    fused = convex(dense, bm25, alpha=0.5)
    # 1: .5*.2 + .5*1 = .60 ; 2: .5*.6 + .5*.5 = .55 ; 3: .5*.5 + 0 = .25
    assert [i for i, _ in fused] == [1, 2, 3]
    assert [s for _, s in fused] == pytest.approx([0.60, 0.55, 0.25])
    # the default weight leans on the cosine: 2: .7*.6+.3*.5=.57 beats 1: .7*.2+.3=.44
    assert CONVEX_ALPHA == 0.7
    assert [i for i, _ in convex(dense, bm25)] == [2, 1, 3]
    # alpha 1 is dense alone; alpha 0 is BM25 alone (ties by id)
    assert [i for i, _ in convex(dense, bm25, alpha=1.0)] == [2, 3, 1]
    assert [i for i, _ in convex(dense, bm25, alpha=0.0)] == [1, 2, 3]
    # scaling BM25 cannot change the fusion (it is divided by the query's best score)
    assert convex(dense, {1: 40.0, 2: 20.0}) == convex(dense, bm25)


def test_convex_without_bm25_is_dense_and_rejects_bad_input():
    dense = {7: 0.1, 8: 0.9}
    assert [i for i, _ in convex(dense, {})] == [8, 7]
    assert [i for i, _ in convex(dense, {7: 0.0})] == [8, 7]
    with pytest.raises(ValueError, match="alpha"):
        convex(dense, {}, alpha=1.5)
    with pytest.raises(ValueError, match="no dense similarity"):
        convex(dense, {9: 1.0})


def test_top_k_orders_and_breaks_ties_by_position():
    s = np.array([0.1, 0.9, 0.5, 0.9, 0.2])
    assert list(top_k(s, 3)) == [1, 3, 2]
    assert list(top_k(s, 10)) == [1, 3, 2, 4, 0]
    # a tie straddling the cut is broken by position, whatever argpartition picks
    ties = np.array([0.5] * 50 + [0.9])
    assert list(top_k(ties, 4)) == [50, 0, 1, 2]


def _hit(rank: int, d: float) -> Hit:
    return Hit(rank, rank, "d.md", "D", "D", 0, 1, Locator(0, 1), "x", d, 0.0)


def test_gate_keeps_at_most_four_under_threshold_in_order():
    hits = [_hit(i, d) for i, d in enumerate([0.7, 0.3, 0.5, 0.6, 0.2, 0.1, 0.65], start=1)]
    g = gate(hits, 0.675)
    assert [h.rank for h in g.kept] == [2, 3, 4, 5]
    assert g.nearest == pytest.approx(0.1) and not g.refused


def test_gate_refuses_when_nothing_is_close():
    g = gate([_hit(1, 0.8), _hit(2, 0.9)], 0.675)
    assert g.refused and g.nearest == pytest.approx(0.8)
    assert refusal_line("q?", 0.675) == 'NO ANSWER: nothing under cosine distance 0.675 for "q?"'


def test_section_lift_hand_worked():
    # chunks 1 and 2 share a section, 3 is alone: 1 -> .9 + .5 * .9, 2 -> .5 + .5 * .9,
    # 3 -> .6 + .5 * .6
    lifted = section_lift([(1, 0.9), (3, 0.6), (2, 0.5)], {1: "a", 2: "a", 3: "b"}, 0.5)
    assert [i for i, _ in lifted] == [1, 2, 3]
    assert [s for _, s in lifted] == pytest.approx([1.35, 0.95, 0.9])
    # weight 0 keeps the list as it was; equal lifted scores keep the list's order
    assert section_lift([(4, 0.3), (5, 0.3)], {4: "a", 5: "b"}, 0.0) == [(4, 0.3), (5, 0.3)]
    assert [i for i, _ in section_lift([(5, 0.3), (4, 0.3)], {}, 1.0)] == [5, 4]
    # a chunk with no section key (deleted meanwhile) is its own section
    assert section_lift([(7, 0.8), (8, 0.1)], {8: "x"}, 1.0) == [
        (7, pytest.approx(1.6)), (8, pytest.approx(0.2))]
    # only the list's own scores count: the best of the section within the list
    assert section_lift([], {}, 1.0) == []
    with pytest.raises(ValueError, match="weight"):
        section_lift([(1, 0.5)], {}, -0.1)


def test_tokenizer_keeps_every_script():
    """Accented and non-Latin letters are word characters (az09-v1 cut "működik" into
    m, k, dik); NFKC folds ligatures and full-width forms; case folds fully."""
    assert tokenize("Működik a gép? ÉLET") == ["működik", "a", "gép", "élet"]
    assert tokenize("здравствуйте, мир") == ["здравствуйте", "мир"]
    assert tokenize("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]  # the virama stays inside the word
    assert tokenize("ﬁle Ｒｕｓｔ Straße") == ["file", "rust", "strasse"]


def test_tokenizer_bigrams_scripts_without_spaces():
    """Chinese and Japanese runs have no word boundaries to find: overlapping bigrams,
    so a two-character query word matches inside a longer run; Latin words beside
    them stay whole; a Thai vowel sign stays with its consonant."""
    assert tokenize("東京都に住む") == ["東京", "京都", "都に", "に住", "住む"]
    assert tokenize("python中文 x") == ["python", "中文", "x"]
    assert tokenize("景") == ["景"]
    assert tokenize("ครับ") == ["ครั", "รับ"]  # ค, รั, บ: three letters, two bigrams
    assert set(tokenize("京都")) <= set(tokenize("東京都に住む"))


@pytest.mark.parametrize("text", [
    "The String's read_line() returns io::Result<usize> -- see §3.2, 'café' aside.",
    "x86_64 CamelCase snake_case 0xFF 1e-9 $HOME ~/.cargo/bin",
])
def test_tokenizer_on_ascii_is_the_chapters(text):
    """On ASCII text the tokens are the chapter's ``[a-z0-9]+`` over the lower-cased text."""
    import re
    ascii_text = text.encode("ascii", "ignore").decode()
    assert tokenize(ascii_text) == re.findall(r"[a-z0-9]+", ascii_text.lower())
