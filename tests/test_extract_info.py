"""GNU Info manuals: nodes read as the manual's text, titles as its sections.

The fixtures are written here as makeinfo writes them (a preamble, ``\\x1f`` node
separators and headers, underlined titles, menus, an index node with makeinfo's NUL
markers, the tag table), one manual whole and one split in parts, so a test needs no
/usr/share/info. A split manual is one document, read compressed as Debian keeps it,
through the real pipeline (real SQLite, the real model).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import extractor_for
from citeline.pipeline import Index

PREAMBLE = """This is tide.info, produced by makeinfo version 6.8 from tide.texi.

This manual documents the harbour tide gauge, version 2.1.

INFO-DIR-SECTION Harbour
START-INFO-DIR-ENTRY
* tide: (tide).                 Read the harbour tide gauge.
END-INFO-DIR-ENTRY

"""
TOP = """\x1f
File: tide.info,  Node: Top,  Next: Readings,  Up: (dir)

Harbour Tide Gauge
******************

This manual documents the harbour tide gauge, version 2.1.

* Menu:

* Readings::            How the gauge reads the tide.
* Index::               Every topic.

"""
READINGS = """\x1f
File: tide.info,  Node: Readings,  Next: Resets,  Prev: Top,  Up: Top

1 Readings
**********

The gauge at the north quay reads the tide every ten minutes and reports
the height above chart datum (*note Resets::).

1.1 Spring tides
================

   A spring tide passes four point two metres twice a month.  The gauge
raises a warning then; *Note Warning marks: Resets, for the marks.

     tidectl --watch north

\x00\x08[image src="quay.png" text="The north quay gauge"\x00\x08]
"""
RESETS = """\x1f
File: tide.info,  Node: Resets,  Next: Index,  Prev: Readings,  Up: Top

2 Resets
********

Resetting the gauge to chart datum takes two minutes.

"""
INDEX = """\x1f
File: tide.info,  Node: Index,  Prev: Resets,  Up: Top

Index
*****

\x00\x08[index\x00\x08]
* Menu:

* spring tide:                           Readings.             (line 12)

"""
TAGS = """\x1f
Tag Table:
Node: Top\x7f219
Node: Readings\x7f503
\x1f
End Tag Table

\x1f
Local Variables:
coding: utf-8
End:
"""
WHOLE = PREAMBLE + TOP + READINGS + RESETS + INDEX + TAGS


def write(path: Path, text: str, gz: bool = False) -> Path:
    data = text.encode()
    if gz:
        path = path.with_name(path.name + ".gz")
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    return path


def split_manual(folder: Path, gz: bool = False) -> Path:
    """tide.info as makeinfo splits it: the main file's tables, the nodes in two parts."""
    main = PREAMBLE + "\x1f\nIndirect:\ntide.info-1: 219\ntide.info-2: 900\n" + TAGS
    write(folder / "tide.info-1", PREAMBLE + TOP + READINGS, gz)
    write(folder / "tide.info-2", PREAMBLE + RESETS + INDEX, gz)
    return write(folder / "tide.info", main, gz)


def read(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


EXPECTED = """# Harbour Tide Gauge

This manual documents the harbour tide gauge, version 2.1.

# 1 Readings

The gauge at the north quay reads the tide every ten minutes and reports
the height above chart datum (see Resets).

## 1.1 Spring tides

   A spring tide passes four point two metres twice a month.  The gauge
raises a warning then; See Warning marks, for the marks.

     tidectl --watch north

The north quay gauge

# 2 Resets

Resetting the gauge to chart datum takes two minutes."""


def test_an_info_manual_reads_as_its_nodes_with_its_titles_as_sections(tmp_path: Path):
    doc = read(write(tmp_path / "tide.info", WHOLE))
    # no headers, menus, index node, tables or preamble; references as their words
    assert doc.text == EXPECTED
    assert (doc.title, doc.extractor, doc.headings) == ("Harbour Tide Gauge", "info", "atx")
    assert not doc.warnings


def test_a_split_manual_is_one_document_and_its_parts_are_skipped(tmp_path: Path):
    main = split_manual(tmp_path)
    assert read(main).text == EXPECTED
    with pytest.raises(UnsupportedFormat, match="part 1 of tide.info, which is read with"):
        read(tmp_path / "tide.info-1")
    (tmp_path / "tide.info").unlink()  # a part alone is read as what it holds
    assert read(tmp_path / "tide.info-2").text == \
        "# 2 Resets\n\nResetting the gauge to chart datum takes two minutes."
    (tmp_path / "tide.info-2").unlink()
    other = tmp_path / "other"  # a main file whose second part is not beside it
    other.mkdir()
    main = split_manual(other)
    (other / "tide.info-2").unlink()
    doc = read(main)
    assert "# 2 Resets" not in doc.text and "# 1 Readings" in doc.text
    assert doc.warnings == ("1 of its 2 parts are not beside it, and their nodes are not "
                            "read: tide.info-2",)


def test_a_file_named_info_that_is_not_one_fails_saying_why(tmp_path: Path):
    with pytest.raises(ExtractionError, match="not an Info file"):
        read(write(tmp_path / "notes.info", "Meeting notes: the gauge is fine.\n"))
    with pytest.raises(ExtractionError, match="NUL"):
        read(write(tmp_path / "blob.info", "\x1f\nFile: a,  Node: Top\n\x00\x00"))


def test_the_title_falls_back_to_the_directory_entry(tmp_path: Path):
    no_top_title = WHOLE.replace("Harbour Tide Gauge\n******************\n\n", "")
    doc = read(write(tmp_path / "tide.info", no_top_title))
    assert doc.title == "tide \u2014 Read the harbour tide gauge."


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder):
    base = tmp_path_factory.mktemp("info")
    folder = base / "info"
    folder.mkdir()
    split_manual(folder, gz=True)
    idx = Index(base / "index", embedder=embedder)
    report = idx.index(folder)
    yield idx, folder, report
    idx.close()


def test_a_compressed_split_manual_is_indexed_whole_and_cited(indexed):
    idx, folder, report = indexed
    assert report.indexed == ["tide.info.gz"] and not report.failed
    assert sorted(dict(report.skipped)) == ["tide.info-1.gz", "tide.info-2.gz"]
    assert idx.document_text("tide.info.gz") == EXPECTED
    hit = idx.search("how long does a reset of the gauge take", k=3).hits[0]
    assert hit.document == "tide.info.gz" and "two minutes" in hit.content
    assert hit.section == "Harbour Tide Gauge > 2 Resets"
    assert hit.content == EXPECTED[hit.start:hit.end]
    # a part changed, the main file's offsets table with it: read again
    main = folder / "tide.info.gz"
    data = gzip.decompress(main.read_bytes()).decode().replace("900", "905")
    main.write_bytes(gzip.compress(data.encode(), mtime=0))
    (folder / "tide.info-2.gz").write_bytes(gzip.compress(
        (PREAMBLE + RESETS.replace("two minutes", "three minutes") + INDEX).encode(), mtime=0))
    again = idx.index(folder)
    assert again.indexed == ["tide.info.gz"]
    assert "three minutes" in idx.document_text("tide.info.gz")
