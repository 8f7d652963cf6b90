"""A sheet's chunks are ranked on equal terms: each chunk's header-free vector, token
vectors and row sentences carry the sheet's header row, not the first chunk's alone.

The first chunk's content holds the header row itself, so when the header-free
representations were built from the rows alone, only that chunk matched the words
of a question that names a column ("the phone extension of employee E1042"), and
the default fusion ranked it first for 110 of 124 lookups in three sheets."""

from __future__ import annotations

import csv
import random
import re
import sqlite3
from pathlib import Path

import pytest

from citeline.chunk import bare_text
from citeline.pipeline import Index
from citeline.retrieve.bm25 import tokenize
from citeline.store.sqlite import DB_NAME
from citeline.types import Chunk

OFFICES = "Oslo Lyon Graz Porto Turin Bergen Brno Ghent".split()
DEPARTMENTS = "Finance Logistics Sales Research Support Legal Marketing Facilities".split()
NAMES = "Anna Ben Carla David Emil Fatima Gustav Hanna Ivan Julia Karl Lena".split()


@pytest.fixture(scope="module")
def staff(embedder, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("sheet")
    docs = root / "docs"
    docs.mkdir()
    rng = random.Random(7)
    with (docs / "staff.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["employee id", "name", "department", "office", "phone extension"])
        for i in range(60):
            w.writerow([f"E{1000 + i}", rng.choice(NAMES), rng.choice(DEPARTMENTS),
                        rng.choice(OFFICES), str(rng.randint(2000, 7999))])
    idx = Index(root / "ix", embedder=embedder)
    idx.index(docs)
    yield idx, docs
    idx.close()


def _rows(sheet_range: str) -> tuple[int, int]:
    m = re.fullmatch(r".*!A(\d+):[A-Z]+(\d+)", sheet_range)
    assert m, sheet_range
    return int(m.group(1)), int(m.group(2))


def test_a_row_named_by_its_key_ranks_first_and_is_the_answer(staff):
    """The embedding model reads E1012 and E1013 alike: the dense, sentence and late
    lists ranked a sheet's chunks by little but their length, and BM25, the one list
    that reads the key, was one vote of five."""
    idx, docs = staff
    lines = (docs / "staff.csv").read_text().splitlines()
    answered = 0
    for i in range(2, 60, 5):
        row = i + 2  # the sheet's row: the header is row 1
        question = f"What is the phone extension of employee E{1000 + i}?"
        hits = idx.search(question, k=5).hits
        first, last = _rows(hits[0].locator.sheet_range)
        assert first <= row <= last, (question, hits[0].locator.sheet_range)
        ans = idx.ask(question)
        named = idx.row_distances(question, hits[:1])[0]  # what the gate weighs: the row
        if named.distance >= idx.threshold:
            # and the rows under it are not the asked one: quoting them would bluff
            assert ans.refused and not ans.citations, (question, ans.answer)
            assert f'holds "E{1000 + i}"' in ans.answer
            assert ans.reason.endswith(
                f"staff.csv {hits[0].locator.sheet_range} holds it, at {named.distance:.3f}")
            continue
        answered += 1
        assert [sp.text for sp in ans.spans] == [lines[row - 1].replace(",", " | ")]
        assert ans.spans[0].locator.sheet_range == f"staff!A{row}:E{row}"
    assert answered >= 10


def test_a_lookup_is_gated_at_its_rows_distance_not_its_chunks(staff, embedder):
    """A chunk of ten rows sits farther from a lookup than the row it names: gated at
    the chunk's distance, 23 of benchmarks/sheet_lookup.py's 124 lookups were refused
    with the asked row ranked first. The gate now weighs that row, embedded as the
    index embeds a sheet's rows (heading path, header row, row), and the citation
    shows the distance the gate weighed."""
    idx, docs = staff
    lines = (docs / "staff.csv").read_text().splitlines()
    header = lines[0].replace(",", " | ")
    over = 0
    for i in range(60):
        question = f"What is the phone extension of employee E{1000 + i}?"
        top = idx.search(question, k=25).hits[0]
        row = lines[i + 1].replace(",", " | ")
        q, r = embedder.embed([question, f"[{top.section}]\n{header}\n{row}"])
        named = idx.row_distances(question, [top])[0]
        assert named.distance == pytest.approx(1.0 - float(q @ r), abs=1e-5)
        assert (named.chunk_id, named.content) == (top.chunk_id, top.content)
        if top.distance < idx.threshold or named.distance >= idx.threshold:
            continue
        over += 1  # refused by its chunk's distance, answered by its row's
        ans = idx.ask(question)
        assert not ans.refused and [sp.text for sp in ans.spans] == [row], question
        cited = next(c for c in ans.citations if c.locator.sheet_range == top.locator.sheet_range)
        assert cited.distance == pytest.approx(named.distance)
    assert over >= 1  # the fixture holds such lookups: the test is not empty
    # a question naming no code, and prose, keep their own distances
    hits = idx.search("Which employees work in Graz?", k=5).hits
    assert idx.row_distances("Which employees work in Graz?", hits) == list(hits)


def test_a_code_no_row_holds_is_refused_not_answered_with_other_rows(staff):
    """Every row of a sheet is near a lookup by its key to the embedding model, the
    unknown key's too: the gate kept the sheet's chunks and the answer quoted rows that
    were not the one asked for (30 of 30 such lookups in benchmarks/sheet_lookup.py)."""
    idx, _ = staff
    for code in ("E5000", "E1060", "E999"):  # the sheet has E1000 to E1059
        question = f"What is the phone extension of employee {code}?"
        assert any(h.distance < idx.threshold for h in idx.search(question, k=25).hits)
        ans = idx.ask(question)
        assert ans.refused and not ans.citations and not ans.spans, (question, ans.answer)
        assert ans.answer == (f'NO ANSWER: nothing under cosine distance {idx.threshold:g} '
                              f'holds "{code}" for "{question}"')
        assert ans.reason.endswith("hold other rows, and no chunk of the index holds it")
    # a question that names no code is still answered from the rows
    ans = idx.ask("Which employees work in the Research department in Graz?")
    assert not ans.refused and ans.spans
    assert all(sp.locator.sheet_range.startswith("staff!A") for sp in ans.spans)


def test_a_code_in_prose_or_a_bare_number_moves_nothing(staff, embedder, tmp_path: Path):
    """Only a sheet's row is found by its code: a code in a paragraph is no key to the
    paragraph, a bare number (a year, an extension) is no code, and a code two rows hold
    names neither; the fused order then stays the fusion's."""
    idx, docs = staff
    prose_docs = tmp_path / "docs"
    prose_docs.mkdir()
    (prose_docs / "history.md").write_text(
        "# Harbour history\n\nThe harbour opened under permit HB1848 after the storm.\n\n"
        "## Lighthouse\n\nThe lighthouse keeper lit the lamp every evening at dusk.\n")
    prose = Index(tmp_path / "ix", embedder=embedder)
    ranked = [(2, 0.5), (1, 0.4)]
    try:
        prose.index(prose_docs)
        query = "Which permit was HB1848?"
        terms = tokenize(query)
        assert prose.store.document_frequencies(terms)[1]["hb1848"] == 1
        assert prose._named_rows_first(query, terms, prose.store.bm25(terms, 10), ranked,
                                       5) == ranked
    finally:
        prose.close()
    extensions = [line.split(",")[-1] for line in (docs / "staff.csv").read_text().splitlines()[1:]]
    df = idx.store.document_frequencies(extensions)[1]
    extension = next(e for e in extensions if df.get(e) == 1)  # one row's alone
    query = f"Who has the phone extension {extension}?"
    terms = tokenize(query)
    assert idx._named_rows_first(query, terms, idx.store.bm25(terms, 10), ranked, 5) == ranked


def test_a_sheets_sentences_are_its_rows_and_every_chunk_is_read_with_its_header(staff):
    idx, _ = staff
    text = idx.document_text("staff.csv")
    lines = text.split("\n")
    header, rows = lines[0], lines[1:]
    with sqlite3.connect(Path(idx.location) / DB_NAME) as db:
        spans = db.execute("SELECT s.start, s.end FROM sentences s JOIN chunks c "
                           "ON c.id = s.chunk_id JOIN documents d ON d.id = c.doc_id "
                           "WHERE d.path = ? ORDER BY s.start", ("staff.csv",)).fetchall()
    sentences = [text[s:e] for s, e in spans]
    assert sentences == rows  # each row whole, in order, and the header row is none
    c = Chunk(0, 0, 0, "staff", f"[staff]\n{header}\n{rows[20]}", rows[20], 0, header)
    assert bare_text(c) == f"{header}\n{rows[20]}"
    first = Chunk(0, 0, 0, "staff", "", f"{header}\n{rows[0]}", 0, header)
    assert bare_text(first) == first.content  # the first chunk holds its header already


def test_an_edited_sheet_reuses_its_token_vectors_unless_an_older_sheet_shares_them(
        embedder, tmp_path: Path):
    """A sheet indexed before extractor 5 stored token vectors of its rows alone, under
    the hash its chunks' embedded text still has: none is reused while such a document is
    in the index; once none is, an edited row re-embeds its own chunk only."""
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = [f"R{i},{['Oslo', 'Lyon', 'Graz'][i % 3]},{i * 37 % 1000}" for i in range(80)]
    (docs / "t.csv").write_text("id,city,amount\n" + "\n".join(rows) + "\n")
    def index() -> int:  # a new Index each run, as a new process is
        idx = Index(tmp_path / "ix", embedder=embedder)
        try:
            return idx.index(docs).tokens_embedded
        finally:
            idx.close()

    index()
    with sqlite3.connect(tmp_path / "ix" / DB_NAME) as db:
        n_chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert n_chunks >= 3

    rows[40] = "R40,Porto,999"
    (docs / "t.csv").write_text("id,city,amount\n" + "\n".join(rows) + "\n")
    assert index() == 1  # the edited row's chunk

    with sqlite3.connect(tmp_path / "ix" / DB_NAME) as db:  # as an older citeline left it
        db.execute("UPDATE documents SET extractor_version = '0'")  # an older extractor's
    rows[41] = "R41,Porto,998"
    (docs / "t.csv").write_text("id,city,amount\n" + "\n".join(rows) + "\n")
    assert index() == n_chunks  # none taken from the older sheet's chunks


def test_a_generator_reads_every_sheet_source_under_its_column_names(staff):
    """The prompt gave a model each chunk's rows alone: only the sheet's first chunk holds
    the header row, so the others were numbers with no names."""
    from citeline.answer.prompt import build_prompt

    idx, docs = staff
    header = (docs / "staff.csv").read_text().splitlines()[0].replace(",", " | ")
    hits = idx.search("Which employees work in Graz?", k=4).hits
    assert len(hits) == 4
    user = build_prompt("Which employees work in Graz?", hits).user
    blocks = re.findall(r'<source id="\d+">\n(.*?)\n</source>', user, re.S)
    assert len(blocks) == 4
    for h, block in zip(hits, blocks, strict=True):
        assert block.split("\n")[0] == header and block.count(header) == 1
        assert block.endswith(h.content.strip())
