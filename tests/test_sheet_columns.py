"""A lookup by code of a column the sheet does not have is refused, not answered with the
named row.

The row a question names by its code is near any lookup of that code, so the distance
gate kept it for "What is the warranty period of part P-4021?" in a sheet with no
warranty column, and the answer quoted the row: 20 of 30 such lookups in
benchmarks/sheet_lookup.py. A column the sheet has, asked in a user's words (a plural,
an abbreviation, a synonym), is still answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.gate import gate
from citeline.pipeline import ASK_CANDIDATES, Index

HEADER = "part number,description,unit price,quantity in stock,supplier"
ROWS = [
    "P-4003,Hex nut M6,0.12,5200,Acme",
    "P-4006,Washer M8,0.05,9000,Bolton",
    "P-4009,Torque wrench,48.50,12,Dray",
    "P-4012,Spring pin small,0.30,800,Acme",
    "P-4015,Circlip M10,0.22,1500,Cogs Ltd",
    "P-4018,Grease gun,19.90,40,Bolton",
    "P-4021,Hex bolt M8,0.45,3100,Acme",
    "P-4024,Socket set,64.00,7,Dray",
    "P-4027,Allen key large,2.10,300,Cogs Ltd",
    "P-4030,Cable tie small,0.02,12000,Acme",
]
ROW_4021 = "P-4021 | Hex bolt M8 | 0.45 | 3100 | Acme"


@pytest.fixture(scope="module")
def stock(embedder, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("columns")
    docs = root / "docs"
    docs.mkdir()
    (docs / "stock.csv").write_text(HEADER + "\n" + "\n".join(ROWS) + "\n")
    idx = Index(root / "ix", embedder=embedder)
    idx.index(docs)
    yield idx
    idx.close()


def test_a_column_the_sheet_lacks_is_refused_naming_the_code_and_the_header(stock):
    idx = stock
    question = "What is the warranty period of part P-4021?"
    hits = idx.row_distances(question, idx.search(question, k=ASK_CANDIDATES).hits)
    # by distance alone the named row passes, and would be the answer: the bluff
    assert ROW_4021 in gate(hits, idx.threshold, question=question).kept[0].content
    ans = idx.ask(question)
    assert ans.refused and not ans.citations and not ans.spans, ans.answer
    assert ans.answer == ('NO ANSWER: "P-4021" is in stock.csv, but no column of its sheet '
                          f'holds "warranty period" for "{question}"')
    assert ans.reason.startswith('"P-4021" is in stock.csv stock!A1:E11')
    assert ('no column of sheet "stock" (part number | description | unit price | '
            'quantity in stock | supplier) holds "warranty period"') in ans.reason
    assert ans.reason.endswith("under 0.55")


@pytest.mark.parametrize("question", [
    "What is the unit price of part P-4021?",  # the header's words
    "What are the prices of P-4021?",  # a plural, part of the header cell
    "What qty of P-4021 is in stock?",  # an abbreviation
    "Who supplies part P-4021?",  # another form of the header's word
    "What is the cost of part P-4021?",  # a synonym: the model's "cost" ~ "price"
    "Which vendor sells P-4021?",  # a synonym: "vendor" ~ "supplier"
    "Is P-4021 a hex bolt?",  # a value of the row: nothing more is asked
    "What is P-4021?",  # no column named: the row is the answer
])
def test_a_column_the_sheet_has_is_answered_in_a_users_words(stock, question):
    ans = stock.ask(question)
    assert not ans.refused, ans.reason
    assert [sp.text for sp in ans.spans] == [ROW_4021]


def test_prose_is_gated_as_before_and_the_sheet_without_the_column_is_no_source(
        embedder, tmp_path: Path):
    """A paragraph is gated by its distance alone, as before: with a returns policy
    beside the sheet, the warranty lookup is answered from the policy (near enough to
    pass), never from the named row."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "stock.csv").write_text(HEADER + "\n" + "\n".join(ROWS) + "\n")
    (docs / "policy.md").write_text(
        "# Returns\n\nA part can be returned within 30 days of delivery with its receipt.\n")
    idx = Index(tmp_path / "ix", embedder=embedder)
    try:
        idx.index(docs)
        for question in ("What is the warranty period of a returned part?",  # no code
                         "Can part P-9999 be returned?"):  # a code no sheet holds
            hits = idx.row_distances(question, idx.search(question, k=ASK_CANDIDATES).hits)
            assert idx.column_lookups(question, hits) == {}
        ans = idx.ask("Within how many days can a part be returned?")
        assert not ans.refused and ans.citations[0].document == "policy.md"
        ans = idx.ask("What is the warranty period of part P-4021?")
        assert not ans.refused and [c.document for c in ans.citations] == ["policy.md"]
    finally:
        idx.close()


def test_a_lookup_is_answered_from_the_sheet_that_has_the_column(embedder, tmp_path: Path):
    """Two sheets hold the code; the one without the column is no source, the other is."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "stock.csv").write_text(HEADER + "\n" + "\n".join(ROWS) + "\n")
    (docs / "warranty.csv").write_text(
        "part number,warranty period\nP-4021,24 months\nP-4024,12 months\n")
    idx = Index(tmp_path / "ix", embedder=embedder)
    try:
        idx.index(docs)
        ans = idx.ask("What is the warranty period of part P-4021?")
        assert not ans.refused, ans.reason
        assert [c.document for c in ans.citations] == ["warranty.csv"]
        assert [sp.text for sp in ans.spans] == ["P-4021 | 24 months"]
    finally:
        idx.close()


def test_the_columns_of_one_sheet_are_weighed_in_one_model_call(embedder, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    """Rows of one sheet named in two of its chunks share its header: the question's words
    and the header's are embedded once, in one call, and both lookups weigh the same."""
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = [f"P-{4000 + n},Part {n},{n}.25,{n * 10},Acme" for n in range(200)]
    (docs / "stock.csv").write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    idx = Index(tmp_path / "ix", embedder=embedder)
    try:
        idx.index(docs)
        question = "What is the warranty period of parts P-4001 and P-4198?"
        hits = idx.row_distances(question, idx.search(question, k=ASK_CANDIDATES).hits)
        calls: list[list[str]] = []
        embed = embedder.embed
        monkeypatch.setattr(embedder, "embed", lambda texts: calls.append(list(texts))
                            or embed(texts))
        found = idx.column_lookups(question, hits)
        assert len(found) == 2 and len({lk.hit.chunk_id for lk in found.values()}) == 2
        assert len(calls) == 1 and len(calls[0]) == len(set(calls[0])), calls
        a, b = found.values()
        assert (a.nearest, a.similarity) == (b.nearest, b.similarity)
        assert a.similarity < 0.55
    finally:
        idx.close()
