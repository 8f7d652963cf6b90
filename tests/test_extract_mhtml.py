"""Web pages saved as one file (MHTML): read as the page they hold.

A real archive Chromium wrote of a page in four scripts must read exactly as the HTML
reader reads the page itself; an archive as Word writes one (its page in Windows-1252,
named by the part's header, beside a picture) reads its page; one with no page fails
saying so. Through the real pipeline (real SQLite, the real model).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.pipeline import Index

REAL = Path(__file__).parent / "fixtures" / "real"

WORD_MHT = b"""MIME-Version: 1.0
Content-Type: multipart/related; boundary="----=_NextPart_01DA0001"

------=_NextPart_01DA0001
Content-Location: file:///C:/notes/harbour.htm
Content-Transfer-Encoding: quoted-printable
Content-Type: text/html; charset="windows-1252"

<html><head><title>Harbour notes</title></head><body>
<h1>Harbour notes</h1>
<p class=3DMsoNormal>The caf=E9 on the quay opens when the ebb turns =96 at no=
on.</p>
</body></html>

------=_NextPart_01DA0001
Content-Location: file:///C:/notes/harbour_files/image001.png
Content-Transfer-Encoding: base64
Content-Type: image/png

iVBORw0KGgo=

------=_NextPart_01DA0001--
"""


def read(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


def test_a_browser_s_archive_reads_as_the_page_it_saved():
    doc, page = read(REAL / "tides-world.mhtml"), read(REAL / "tides-world.html")
    assert doc.text == page.text and doc.title == page.title == "Tides of the world"
    assert (doc.extractor, doc.headings) == ("mhtml", "atx")


def test_word_s_archive_reads_its_page_in_the_charset_its_header_names(tmp_path: Path):
    path = tmp_path / "harbour.mht"
    path.write_bytes(WORD_MHT.replace(b"\n", b"\r\n"))
    doc = read(path)
    assert doc.title == "Harbour notes"
    assert doc.text == ("# Harbour notes\n\nThe caf\u00e9 on the quay opens when the ebb turns "
                        "\u2013 at noon.")


def test_an_archive_with_no_page_fails_saying_so(tmp_path: Path):
    path = tmp_path / "pictures.mhtml"
    path.write_bytes(WORD_MHT.split(b"------=_NextPart_01DA0001\nContent-Location: file:///C:/"
                                    b"notes/harbour.htm")[0] + b"------=_NextPart_01DA0001--\n")
    with pytest.raises(ExtractionError, match="a web archive \\(MHTML\\) with no HTML page"):
        read(path)


def test_a_saved_page_is_indexed_and_cited(tmp_path: Path, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides-world.mhtml").write_bytes((REAL / "tides-world.mhtml").read_bytes())
    idx = Index(tmp_path / "ix", embedder=embedder)
    try:
        report = idx.index(docs)
        assert report.indexed == ["tides-world.mhtml"] and not report.failed
        text = idx.document_text("tides-world.mhtml")
        hit = idx.search("how high does the neap tide reach", k=3).hits[0]
        assert "neap tide | 1.9 m" in hit.content and hit.content == text[hit.start:hit.end]
    finally:
        idx.close()
