"""AsciiDoc files: read as written, their sections from AsciiDoc's titles.

Every offset is an offset in the file itself (the canonical text is the file), so a hit's
content is checked against the file's own bytes; titles inside delimited blocks (a
listing's ``== not a heading``, a comment block) make no section, two-line titles do.
Through the real pipeline (real SQLite, the real model).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.extract import extractor_for

GUIDE = """= Harbour Gauge Guide
Ana Ruiz <ana@example.org>
:toc:

The gauge at the north quay reads the tide every ten minutes.

== Installing

[source,shell]
----
== not a heading: a line of the listing
# nor this
apt install tidectl
----

=== On Debian

Install the tidectl package; its service starts at boot.

////
== A section commented out
////

Calibration
-----------
Reset the gauge to chart datum before the first reading: the reset takes two minutes.

```
== nor inside a fence
```

|===
| Mark | Height
| spring tide | four point two metres
|===

.A block's title, not a section
== Warning marks

A warning is raised when the spring tide passes four point two metres.
"""


def test_sections_are_asciidoc_titles_outside_blocks(tmp_path: Path):
    path = tmp_path / "guide.adoc"
    path.write_text(GUIDE)
    doc = extractor_for(path).extract(path, "guide.adoc")
    assert doc.text == GUIDE and (doc.extractor, doc.headings) == ("adoc", "outline")
    assert doc.title == "Harbour Gauge Guide"
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Harbour Gauge Guide"), (2, "Installing"), (3, "On Debian"), (2, "Calibration"),
        (2, "Warning marks")]
    for h in doc.outline:  # each heading's span is its line(s) in the file
        assert GUIDE[h.start:h.end].split("\n")[0].strip("= ") == h.title


def test_a_file_without_a_document_title_is_titled_by_its_name(tmp_path: Path):
    path = tmp_path / "notes.asciidoc"
    path.write_text("== Tides\n\nThe ebb turns at noon.\n")
    doc = extractor_for(path).extract(path, "notes.asciidoc")
    assert doc.title == "notes" and [(h.level, h.title) for h in doc.outline] == [(2, "Tides")]


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"guide.adoc": GUIDE})


def test_an_asciidoc_hit_cites_the_file_and_its_section(indexed):
    idx, report = indexed
    assert report.indexed == ["guide.adoc"] and not report.failed
    hit = idx.search("how long does resetting the gauge to chart datum take", k=3).hits[0]
    assert hit.document == "guide.adoc" and "two minutes" in hit.content
    assert hit.content == GUIDE[hit.start:hit.end]  # offsets in the file itself
    assert hit.section == "Harbour Gauge Guide > Calibration"
