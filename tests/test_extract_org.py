"""Org mode files: read as written, their sections from their headlines.

The canonical text is the file, so a hit's content is checked against the file's own
text; a headline's title is what Org shows (no TODO keyword, priority, cookie or tags),
and stars inside a source block are code. Through the real pipeline (real SQLite, the
real model).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.extract import extractor_for

NOTES = """#+TITLE: Harbour notes
#+TODO: TODO WAITING | DONE CANCELLED(c)

Notes kept by the harbour master.

* Tides                                                     :sea:
The spring tide at the north quay reaches four point two metres.

** WAITING [#B] Gauge calibration [1/2]                :gauge:work:
Reset the gauge to chart datum before the first reading: the reset takes two minutes.

#+BEGIN_SRC sh
* not a headline: a line of the script
tidectl --reset north
#+END_SRC

*bold words* at a line's start are no headline.

* DONE Moorings
Visiting yachts moor on the pontoon by the lifeboat station.
"""


def test_headlines_are_sections_as_org_shows_them(tmp_path: Path):
    path = tmp_path / "harbour.org"
    path.write_text(NOTES)
    doc = extractor_for(path).extract(path, "harbour.org")
    assert doc.text == NOTES and (doc.extractor, doc.headings) == ("org", "outline")
    assert doc.title == "Harbour notes"
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Tides"), (2, "Gauge calibration"), (1, "Moorings")]
    for h in doc.outline:
        assert NOTES[h.start:h.end].startswith("*") and h.title in NOTES[h.start:h.end]


def test_a_file_without_a_title_is_titled_by_its_name(tmp_path: Path):
    path = tmp_path / "tides.org"
    path.write_text("* Ebb\nThe ebb turns at noon.\n")
    assert extractor_for(path).extract(path, "tides.org").title == "tides"


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"harbour.org": NOTES})


def test_an_org_hit_cites_the_file_and_its_headline(indexed):
    idx, report = indexed
    assert report.indexed == ["harbour.org"] and not report.failed
    hit = idx.search("how long does it take to reset the gauge to chart datum", k=3).hits[0]
    assert hit.document == "harbour.org" and "two minutes" in hit.content
    assert hit.content == NOTES[hit.start:hit.end]
    assert hit.section == "Harbour notes > Tides > Gauge calibration"
