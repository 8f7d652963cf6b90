"""A sheet's chunks are ranked on equal terms: each chunk's header-free vector, token
vectors and row sentences carry the sheet's header row, not the first chunk's alone.

The first chunk's content holds the header row itself, so when the header-free
representations were built from the rows alone, only that chunk matched the words
of a question that names a column ("the phone extension of employee E1042"), and
the default fusion ranked it first for 113 of 124 lookups in three sheets."""

from __future__ import annotations

import csv
import random
import re
import sqlite3
from pathlib import Path

import pytest

from citeline.chunk import bare_text
from citeline.pipeline import Index
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


def test_a_lookup_ranks_the_chunk_holding_the_row_not_the_one_holding_the_header(staff):
    idx, _ = staff
    in_top_two = top_is_first = asked = 0
    for i in range(0, 60, 4):
        row = i + 2  # the sheet's row: the header is row 1
        hits = idx.search(f"What is the phone extension of employee E{1000 + i}?", k=5).hits
        ranges = [_rows(h.locator.sheet_range) for h in hits]
        holder = next((r for r in ranges if r[0] <= row <= r[1]), None)
        if holder is None or holder[0] == 1:
            continue  # a row of the first chunk: no bias to show
        asked += 1
        in_top_two += holder in ranges[:2]
        top_is_first += ranges[0][0] == 1
    assert asked >= 10
    assert top_is_first <= 1, (top_is_first, asked)
    assert in_top_two >= 3 * asked // 4, (in_top_two, asked)


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
