"""Chunking: the invariants every strategy keeps, checked on arbitrary text."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeline.chunk import (
    ChunkConfig,
    chunk_document,
    column_letter,
    headings,
    locate,
    sections,
)
from citeline.types import Document, Region, RegionKind


def doc(text: str, title: str = "Doc", headings_: str = "markdown") -> Document:
    return Document("d.md", title, text, "text/markdown", "text", "1", headings=headings_)  # type: ignore[arg-type]


# Markdown-like text: headings of any level, paragraphs, long runs without
# sentence ends, code fences, odd whitespace and non-ASCII.
_word = st.text(alphabet="abcdefghij klmnopqrstuvwxyzé.!?,`#_-", min_size=1, max_size=30)
_para = st.lists(_word, min_size=1, max_size=40).map(" ".join)
_block = st.one_of(
    _para,
    _para.map(lambda p: "#" * 2 + " " + p[:40]),
    _para.map(lambda p: "### " + p[:40]),
    _para.map(lambda p: p[:40] + "\n" + "=" * 7),  # setext headings, and a rule
    _para.map(lambda p: p[:40] + "\n---"),
    st.just("---"),
    _para.map(lambda p: "```\n" + p + "\n\n# not a heading\n```"),
    st.text(alphabet="xyz \t", min_size=600, max_size=1500),  # one huge "word" paragraph
)
markdownish = st.lists(_block, min_size=1, max_size=12).map(
    lambda bs: "\n\n".join(bs)
)


def _covered(text: str, chunks) -> bool:
    mask = [False] * len(text)
    for c in chunks:
        for i in range(c.start, c.end):
            mask[i] = True
    return all(mask[i] or text[i].isspace() for i in range(len(text)))


@pytest.mark.parametrize("strategy", list("ABCDEF"))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdownish)
def test_content_is_a_slice_and_nothing_is_dropped(strategy, text):
    d = doc(text)
    chunks = chunk_document(d, ChunkConfig(strategy=strategy))
    for c in chunks:
        assert c.content == text[c.start : c.end]
        assert c.content.strip() == c.content and c.content
        assert c.text.endswith(c.content)
    assert _covered(text, chunks)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdownish)
def test_default_strategy_never_exceeds_the_encoder_window(embedder, text):
    """Measured with the model's own tokenizer, header and special tokens included."""
    d = doc(text, title="A rather long document title " * 3)
    chunks = chunk_document(d, ChunkConfig(), embedder.count_tokens)
    counts = embedder.count_tokens([c.text for c in chunks])
    assert all(n <= 256 for n in counts), max(counts)
    for c in chunks:
        assert c.content == text[c.start : c.end]
    assert _covered(text, chunks)


def test_text_before_the_first_heading_is_kept():
    text = "Intro paragraph.\n\n# Title\n\n## A\n\nBody of A."
    chunks = chunk_document(doc(text, "Title"))
    assert chunks[0].content.startswith("Intro paragraph.")
    assert chunks[0].section == "Title"


def test_heading_path_and_header():
    text = "# Manual\n\n## Care\n\n### Rinsing\n\nRinse three times.\n\n## Warranty\n\nTwo years."
    chunks = chunk_document(doc(text, "Manual"), ChunkConfig(strategy="E", budget=30))
    by_content = {c.content: c for c in chunks}
    rinse = next(c for c in chunks if "Rinse three times." in c.content)
    assert rinse.section == "Manual > Care > Rinsing"
    assert rinse.text.startswith("[Manual > Care > Rinsing]\n")
    assert rinse.header_chars == len("[Manual > Care > Rinsing]\n")
    assert any(c.section == "Manual > Warranty" for c in by_content.values())


def test_an_empty_sections_heading_opens_its_subsections_first_chunk():
    """'# Part' right above '## Chapter' is a section with no body: its heading is not a
    chunk of its own but the start of the subsection's first; nothing is dropped."""
    text = ("# Manual\n\n## Care\n\n### Rinsing\n\nRinse three times in cold water.\n\n"
            "## Empty sibling\n\n## Warranty\n\nTwo years from the date of purchase.")
    chunks = chunk_document(doc(text, "Manual"))
    first = chunks[0]
    assert first.content.startswith("# Manual\n\n## Care\n\n### Rinsing\n\nRinse three")
    assert first.section == "Manual > Care > Rinsing" and first.start == 0
    # a heading followed by a sibling, not a subsection, stays where it is
    assert any(c.content == "## Empty sibling" and c.section == "Manual > Empty sibling"
               for c in chunks)
    assert [c.content for c in chunks if c.content.startswith("## Warranty")]
    assert _covered(text, chunks)


def test_a_heading_and_its_paragraph_over_the_budget_cut_the_paragraph_not_the_heading():
    """A 489-character paragraph under a 34-character heading: together over 512, so the
    paragraph is cut where a sentence ends, and the heading opens the first piece (it
    was a chunk of its own, cited as a source in the sample corpus)."""
    para = ("If you see smoke or flames coming from the inverter, leave the building at once. "
            * 6).strip()
    text = "## Emergency Procedures\n\n### Smoke, Fire or a Burning Smell\n\n" + para
    chunks = chunk_document(doc(text))
    assert all(len(c.content) <= 512 for c in chunks)
    assert chunks[0].content.startswith("## Emergency Procedures\n\n### Smoke, Fire or a "
                                        "Burning Smell\n\nIf you see smoke")
    assert chunks[0].section == "Doc > Emergency Procedures > Smoke, Fire or a Burning Smell"
    assert all(c.content.endswith("at once.") for c in chunks)  # cut where sentences end
    assert _covered(text, chunks)


def test_the_window_split_never_leaves_a_heading_alone(embedder):
    """A chunk over the encoder window is halved at paragraphs: with three, the first half
    was the heading alone (a chunk that answers nothing). It now takes the paragraph
    after the heading too. (These sizes left '## Setup' alone before chunk-v5.)"""
    code = "```\n" + "q9(z8,k7);\n" * 23 + "```"  # ~230 word pieces in 257 characters
    text = "## Setup\n\n" + "install " * 9 + "first.\n\n" + code
    chunks = chunk_document(doc(text), ChunkConfig(budget=1500), embedder.count_tokens)
    assert len(chunks) == 2 and chunks[0].content == "## Setup\n\n" + "install " * 9 + "first."
    assert chunks[1].content == code
    assert all(n <= 256 for n in embedder.count_tokens([c.text for c in chunks]))


def test_headings_inside_code_fences_are_not_headings():
    text = "# T\n\n```sh\n# comment\n```\n\n## Real\n\ntext"
    assert [h[2] for h in headings(text)] == ["T", "Real"]


def test_fences_pair_as_commonmark_pairs_them():
    """A longer fence shows a shorter one as code; ```rust inside a block is code; a
    closing fence is the opening's character, at least as long, with nothing after."""
    text = ("# Guide\n\n````md\nExample:\n```\n# not a heading\n```\n````\n\n## Real one\n\n"
            "```\nfn main() {}\n```rust\n# still code\n~~~\n# still code\n```\n\n"
            "## Last\n\n~~~~\n```\n# code\n~~~\n# code\n~~~~  \n\n### End\n\n"
            "```inline``` is no fence\n\n#### After\n\n```\n# never closed")
    assert [h.title for h in headings(text)] == ["Guide", "Real one", "Last", "End", "After"]
    from citeline.sentences import split_sentences

    doc = "Intro text here.\n\n````md\n```\nTwo. Sentences.\n```\n````\n\nOutro sentence here."
    pieces = [doc[s:e] for s, e in split_sentences(doc)]
    assert pieces[0] == "Intro text here." and pieces[-1] == "Outro sentence here."
    assert "Two. Sentences." in next(p for p in pieces if p.startswith("````md"))  # code, whole


def test_an_atx_heading_keeps_a_trailing_hash_that_is_no_closing_sequence():
    text = "# Learning C#\n\n## F# basics ##\n\n## Setup ###   \n\n### #hashtag\n\n## C\\#\n"
    assert [h.title for h in headings(text)] == [
        "Learning C#", "F# basics", "Setup", "#hashtag", "C\\#"]
    doc = Document(path="c.md", title="Learning C#", text="# Learning C#\n\n## Setup\n\nRun it.\n",
                   media_type="text/markdown", extractor="text", extractor_version="1")
    (chunk,) = chunk_document(doc)
    assert chunk.section == "Learning C# > Setup"  # the title, not "Learning C"


def test_setext_headings_make_sections():
    text = ("---\ntitle: front matter\n---\n\nManual\n======\n\nIntro.\n\n"
            "Care and\ncleaning\n--------\n\nRinse it.\n\n### Descaling\n\nUse vinegar.\n\n"
            "- a list item\n---\n\n```\nNot a heading\n=============\n```\n\n"
            "Warranty\n---\n\nTwo years.\n")
    found = headings(text)
    assert [(h.level, h.title) for h in found] == [
        (1, "Manual"), (2, "Care and cleaning"), (3, "Descaling"), (2, "Warranty")]
    care = found[1]
    assert text[care.start : care.end] == "Care and\ncleaning\n--------"
    by_start = {s.start: s.path for s in sections(doc(text, title="Manual"))}
    assert by_start[care.start] == ("Care and cleaning",)
    assert by_start[found[2].start] == ("Care and cleaning", "Descaling")
    assert by_start[found[3].start] == ("Warranty",)
    # a rule under a long paragraph, or after a blank line, is a rule, not a heading
    assert headings("one\ntwo\nthree\nfour\n---\n\ntext\n\n---\n") == []
    # extractors' own "# Title" lines: ATX only, an underline is text there
    assert [h.title for h in headings("# A\n\nTotal\n=====\n", "atx")] == ["A"]


RST = """\
=================
 Kettle handbook
=================

Read this first.

Care
====

Rinsing
-------

Rinse after use::

    Not
    ===

Warranty
========

=====  ======
Part   Months
=====  ======
Base   24
=====  ======

.. a comment
"""


def test_rst_section_titles_take_levels_from_their_adornment_order():
    found = headings(RST, "rst")
    assert [(h.level, h.title) for h in found] == [
        (1, "Kettle handbook"), (2, "Care"), (3, "Rinsing"), (2, "Warranty")]
    assert RST[found[0].start : found[0].end] == "=================\n Kettle handbook\n================="
    paths = [s.path for s in sections(doc(RST, title="Kettle handbook", headings_="rst"))]
    assert paths == [(), ("Care",), ("Care", "Rinsing"), ("Warranty",)]
    # a short underline is text (docutils: shorter than the title and under 4 characters)
    assert headings("A long title\n--\n", "rst") == []
    assert headings("Doc\n---\n", "rst")[0].title == "Doc"
    assert headings(RST, "none") == []


def test_paragraphs_are_never_cut_under_boundaries():
    paras = [f"Paragraph {i} " + "word " * 20 for i in range(10)]
    text = "\n\n".join(paras)
    chunks = chunk_document(doc(text, headings_="none"), ChunkConfig(strategy="C"))
    for p in paras:
        p = p.strip()
        assert any(p in c.content for c in chunks)


def test_long_paragraph_falls_back_to_sentences():
    sentences = [f"Sentence number {i} is here." for i in range(60)]
    text = " ".join(sentences)
    chunks = chunk_document(doc(text, headings_="none"), ChunkConfig(strategy="C", budget=200))
    assert len(chunks) > 1
    assert all(len(c.content) <= 200 for c in chunks)
    for s in sentences:
        assert any(s in c.content for c in chunks)


def test_a_long_paragraph_is_cut_only_where_a_sentence_ends():
    # The chapter's splitter cut after every dot: packing "config." with the sentence
    # before it split the next sentence at a file name (pytest's docs lost a needle so,
    # at "``...```\n  because"). A dot before a lowercase letter or no space ends nothing.
    first = "Alpha " * 19 + "ends here. "
    needle = ("Copy the settings into config.txt before you run the tool again, and keep "
              "the old file... because it is read first.")
    text = first + needle + " Then stop."
    chunks = chunk_document(doc(text, headings_="none"), ChunkConfig(strategy="C", budget=200))
    assert len(chunks) > 1
    assert any(needle in c.content for c in chunks)
    assert chunks[0].content == first.strip()


def test_blind_cuts_every_budget_and_overlap_copies_the_tail():
    text = "x" * 1000
    a = chunk_document(doc(text, headings_="none"), ChunkConfig(strategy="A"))
    assert [(c.start, c.end) for c in a] == [(0, 512), (512, 1000)]
    b = chunk_document(doc(text, headings_="none"), ChunkConfig(strategy="B"))
    assert [(c.start, c.end) for c in b] == [(0, 512), (448, 1000)]
    assert a[0].text == a[0].content  # no header on blind strategies


def test_boundary_overlap_starts_before_previous_end():
    text = "\n\n".join(f"Para {i}. " + "w " * 100 for i in range(4))
    chunks = chunk_document(doc(text, headings_="none"), ChunkConfig(strategy="D"))
    for prev, cur in zip(chunks, chunks[1:]):
        assert cur.start < prev.end
        assert prev.end - cur.start <= 64


def test_strategy_signature_differs():
    assert ChunkConfig(strategy="E").signature() != ChunkConfig(strategy="F").signature()


def test_rows_cues_and_pages_give_locators():
    text = "name,qty\nalpha,1\nbeta,2\n"
    rows = (
        Region(RegionKind.ROW, 9, 16, sheet="Stock", row=2, first_col=1, last_col=2, header="name,qty"),
        Region(RegionKind.ROW, 17, 23, sheet="Stock", row=3, first_col=1, last_col=2, header="name,qty"),
    )
    d = Document("s.csv", "s", text, "text/csv", "sheet", "1", regions=rows, headings="none")
    secs = sections(d)
    assert [s.path for s in secs] == [("Stock",)]
    chunks = chunk_document(d, ChunkConfig())
    assert chunks[0].text.startswith("[s > Stock]\nname,qty\n")
    loc = locate(d, chunks[0].start, chunks[0].end)
    assert loc.sheet_range == "Stock!A2:B3" and loc.fragment == "#Stock!A2:B3"

    cues = (
        Region(RegionKind.CUE, 0, 5, t_start=1.5, t_end=3.0),
        Region(RegionKind.CUE, 6, 11, t_start=3.0, t_end=4.25),
    )
    t = Document("a.vtt", "a", "hello world", "text/vtt", "vtt", "1", regions=cues, headings="none")
    assert locate(t, 0, 11).fragment == "#t=1.5,4.25"
    assert locate(t, 6, 11).fragment == "#t=3,4.25"

    pages = (Region(RegionKind.PAGE, 0, 50, page=1), Region(RegionKind.PAGE, 50, 100, page=2))
    p = Document("p.pdf", "p", "y" * 100, "application/pdf", "pdf", "1", regions=pages, headings="none")
    loc = locate(p, 40, 60)
    assert loc.pages == (1, 2) and loc.fragment == "#page=1"
    assert locate(p, 0, 10).char_fragment == "#char=0,10"


def test_column_letters():
    assert [column_letter(n) for n in (1, 26, 27, 52, 703)] == ["A", "Z", "AA", "AZ", "AAA"]


def test_offsets_are_found_not_accumulated():
    text = "# T\r\n\r\n## S\n\nA paragraph.\n\n\n\nAnother   one.\n"
    for c in chunk_document(doc(text, "T"), ChunkConfig(strategy="C", budget=15)):
        assert text[c.start : c.end] == c.content
        assert re.search(re.escape(c.content), text)


@pytest.mark.parametrize("body", [
    # Chinese prose: sentences end in 。 and nothing is separated by spaces
    "要给水壶除垢，请将醋和水的混合物倒入水壶中，煮沸后静置一小时，然后冲洗两次。" * 30,
    "x" * 3000,  # one 3,000-character "word" (WordPiece makes it a handful of tokens)
    "https://example.com/" + "a1b2c3d4/" * 300,  # a URL longer than the window
])
def test_text_without_spaces_is_cut_to_the_budget_and_the_window(embedder, body):
    text = "# 水壶\n\n" + body + "\n\nAfter it, a normal paragraph.\n"
    chunks = chunk_document(doc(text, "水壶"), ChunkConfig(), embedder.count_tokens)
    assert all(len(c.content) <= ChunkConfig().budget for c in chunks)
    assert all(n <= 256 for n in embedder.count_tokens([c.text for c in chunks]))
    for c in chunks:
        assert c.content == text[c.start : c.end]
    assert _covered(text, chunks)
    if "。" in body:  # cut at the full stops, not inside a sentence
        assert all(c.content.endswith("。") for c in chunks[:-2])


def test_a_long_fenced_pre_is_cut_to_the_budget_and_the_window(tmp_path, embedder):
    """An HTML <pre> is a fenced block (html 21), and one may be a whole listing, far over
    the budget: it is cut as any long paragraph (at its blank lines, then its sentences,
    then its words), every piece within the budget and, measured with the model's own
    tokenizer, the window (dense code is many word pieces a character); no character is
    lost, no "#" line inside is a heading, and each chunk's content is its slice."""
    from citeline.extract import extractor_for

    listing = "\n\n".join(
        f"# step {i}: set the flags. Then run it.\n"
        + "\n".join(f"cfg[{i}][{j}]=0x{i * 97 + j:04x};x{j}^=y{j}>>{j % 7}|z{j}&0xff;"
                    for j in range(12))
        for i in range(8))
    listing += "\n" + "".join(f"q{k}=({k}*{k})%{k + 3};" for k in range(400))  # one long line
    page = tmp_path / "listing.html"
    page.write_text(f"<html><head><title>Flags</title></head><body><h1>Flags</h1>"
                    f"<p>The listing sets every flag.</p><pre>{listing}</pre>"
                    "<p>After the listing, a sentence.</p></body></html>", encoding="utf-8")
    d = extractor_for(page).extract(page, page.name)
    text = d.text
    assert f"```\n{listing}\n```" in text and len(listing) > 10 * ChunkConfig().budget
    assert [h.title for h in headings(text, "atx")] == ["Flags"]
    chunks = chunk_document(d, ChunkConfig(), embedder.count_tokens)
    assert len(chunks) > 10
    assert all(c.content == text[c.start:c.end] for c in chunks)
    assert all(len(c.content) <= ChunkConfig().budget for c in chunks)
    assert max(embedder.count_tokens([c.text for c in chunks])) <= ChunkConfig().window
    assert _covered(text, chunks)
    assert {c.section for c in chunks} == {"Flags"}
