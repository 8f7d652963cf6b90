"""Compressed documents through the real pipeline (real SQLite, the real model).

A ``.gz`` (``.bz2``, ``.xz``) file is read as the file it decompresses to: each hit's
content must be that decompressed file's text (read here with the stdlib, not the
extractor) at the hit's offsets, and a PDF's ``#page=`` the page an independent reader
(pypdf, on the uncompressed PDF) finds the text on. A damaged or oversized one fails
alone, saying why; a tar archive, a name with no type under the suffix and a compressed
copy beside its plain file are skipped.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
import tempfile
from pathlib import Path

import pytest

import doc_builders as b
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, compressed, extractor_for, fingerprint
from citeline.pipeline import Index

HARBOUR_MD = """# Harbour notes

## Tides

The spring tide at the north quay reaches four point two metres above chart datum.

## Moorings

Visiting yachts moor on the pontoon by the lifeboat station, never at the fuel berth.
"""
FERRY_MD = "# Ferry\n\nThe island ferry sails at seven and returns at half past six.\n"
TIDE_TXT = "Tide tables\n===========\n\nThe pilot gig races start when the ebb turns.\n"
PLAIN_MD = "# Lighthouse\n\nThe lighthouse lamp is cleaned every Thursday morning.\n"
README = "The README of a Debian package: plain text, no suffix.\n"
DATA = "7 12 19 4 88 1\n"  # a suffix-less file no convention names: no type
BIND_HTML = ("<html><head><title>Binding</title></head><body><h1>Binding</h1>"
             "<p>The Listen directive binds the server to a port.</p></body></html>")


def gz(data: bytes, mtime: int = 0) -> bytes:
    return gzip.compress(data, mtime=mtime)


def build_folder(root: Path, plain: Path) -> Path:
    """Compressed documents of several types, a damaged one, an archive, a plain one."""
    root.mkdir()
    (root / "notes").mkdir()
    (root / "notes" / "harbour.md.gz").write_bytes(gz(HARBOUR_MD.encode()))
    plain.mkdir()
    (root / "harbour.pdf.gz").write_bytes(gz(b.two_column_pdf(plain, repeats=1).read_bytes()))
    (root / "ferry.md.xz").write_bytes(lzma.compress(FERRY_MD.encode()))
    (root / "tide.txt.bz2").write_bytes(bz2.compress(TIDE_TXT.encode()))
    (root / "bind.html.en.gz").write_bytes(gz(BIND_HTML.encode()))
    (root / "lighthouse.md").write_text(PLAIN_MD)
    (root / "site").mkdir()  # a web server's precompressed copy beside its page
    (root / "site" / "bind.html").write_text(BIND_HTML)
    (root / "site" / "bind.html.gz").write_bytes(gz(BIND_HTML.encode()))
    (root / "README.gz").write_bytes(gz(README.encode()))
    (root / "data.gz").write_bytes(gz(DATA.encode()))
    whole = gz(("# Cut\n\n" + "A sentence cut short by a failed copy. " * 200).encode())
    (root / "cut.md.gz").write_bytes(whole[: len(whole) // 2])  # truncated
    (root / "renamed.txt.gz").write_text("plain text named as if compressed\n")
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w:gz") as t:
        info = tarfile.TarInfo("inside.md")
        info.size = len(PLAIN_MD)
        t.addfile(info, io.BytesIO(PLAIN_MD.encode()))
    (root / "src.tar.gz").write_bytes(tar.getvalue())
    (root / "src.tgz").write_bytes(tar.getvalue())
    return root


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder):
    base = tmp_path_factory.mktemp("compressed")
    folder = build_folder(base / "docs", base / "plain")
    idx = Index(base / "index", embedder=embedder)
    report = idx.index(folder)
    yield idx, folder, base / "plain", report
    idx.close()


def contains_words(haystack: str, needle: str) -> bool:
    """The needle's words appear contiguously, in order, in the haystack's words."""
    def words(text: str) -> str:
        return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "
    return words(needle) in words(haystack)


def hit_in(idx: Index, query: str, document: str):  # type: ignore[no-untyped-def]
    hit = next((h for h in idx.search(query, k=5).hits if h.document == document), None)
    assert hit is not None, query
    return hit


def test_a_compressed_markdown_file_is_read_as_its_decompressed_text(indexed):
    idx, folder, _, report = indexed
    assert "notes/harbour.md.gz" in report.indexed
    text = gzip.decompress((folder / "notes" / "harbour.md.gz").read_bytes()).decode()
    assert idx.document_text("notes/harbour.md.gz") == text
    hit = hit_in(idx, "how high is the spring tide at the north quay", "notes/harbour.md.gz")
    assert hit.content == text[hit.start : hit.end] and "four point two metres" in hit.content
    assert hit.locator.fragment == f"#char={hit.start},{hit.end}"
    assert hit.section.endswith("Tides")  # its headings are Markdown's, as the plain file's
    rec = idx.store.document("notes/harbour.md.gz")
    assert rec is not None and rec.title == "Harbour notes" and rec.media_type == "text/markdown"
    # stamped by the reader of its type: bumping text's version makes it stale too
    assert (rec.extractor, rec.extractor_version) == ("text", REGISTRY[".md"].version)


def test_bzip2_xz_and_a_page_s_language_variant_are_read_too(indexed):
    idx, folder, _, report = indexed
    assert {"ferry.md.xz", "tide.txt.bz2", "bind.html.en.gz"} <= set(report.indexed)
    assert idx.document_text("ferry.md.xz") == FERRY_MD
    assert idx.document_text("tide.txt.bz2") == TIDE_TXT
    page = idx.store.document("bind.html.en.gz")
    assert page is not None and page.extractor == "html" and page.title == "Binding"
    hit = hit_in(idx, "when does the island ferry sail", "ferry.md.xz")
    assert hit.content == FERRY_MD[hit.start : hit.end]


def test_a_compressed_pdf_s_hits_cite_the_page_their_text_is_on(indexed):
    idx, _, plain, _ = indexed
    pages = b.pdf_page_texts(plain / "harbour.pdf")  # pypdf, on the uncompressed PDF
    for query in ("refrigerated containers plugged in after unloading",
                  "crane recalibrated after the load cell drifted"):
        hit = hit_in(idx, query, "harbour.pdf.gz")
        loc = hit.locator
        assert loc.pages and loc.fragment == f"#page={loc.pages[0]}"
        # every line of the quote is on a page the locator lists, the first on #page=
        lines = [ln for ln in hit.content.split("\n") if ln.strip()]
        assert contains_words(pages[loc.pages[0] - 1], lines[0])
        assert all(any(contains_words(pages[p - 1], ln) for p in loc.pages) for ln in lines)
    rec = idx.store.document("harbour.pdf.gz")
    assert rec is not None and rec.extractor == "pdf" and rec.media_type == "application/pdf"
    assert rec.title == "Harbour operations"


def test_a_damaged_compressed_file_fails_alone_saying_why(indexed):
    idx, _, _, report = indexed
    failed = dict(report.failed)
    assert set(failed) == {"cut.md.gz", "renamed.txt.gz"}
    assert failed["cut.md.gz"].startswith("not a valid gzip file: Compressed file ended")
    assert failed["renamed.txt.gz"].startswith("not a valid gzip file: Not a gzipped file")
    states = {s.record.path: (s.state, s.record.reason) for s in idx.status()}
    assert states["cut.md.gz"] == ("failed", failed["cut.md.gz"])
    # the rest of the folder is indexed and searchable
    assert set(report.indexed) == {"notes/harbour.md.gz", "harbour.pdf.gz", "ferry.md.xz",
                                   "tide.txt.bz2", "bind.html.en.gz", "lighthouse.md",
                                   "site/bind.html", "README.gz"}
    hit_in(idx, "when is the lighthouse lamp cleaned", "lighthouse.md")


def test_an_archive_a_copy_and_a_name_with_no_type_are_skipped_saying_why(indexed):
    _, _, _, report = indexed
    skipped = dict(report.skipped)
    assert set(skipped) == {"data.gz", "src.tar.gz", "src.tgz", "site/bind.html.gz"}
    assert skipped["site/bind.html.gz"] == "a compressed copy of bind.html, which is indexed instead"
    assert skipped["src.tar.gz"] == ("a tar archive (gzip-compressed), not a document: unpack "
                                     "it to index its files")
    assert skipped["src.tgz"] == "a tar archive, not a document: unpack it to index its files"
    # a name with no suffix that no convention names has no type, compressed or not
    assert skipped["data.gz"] == "unsupported file type 'data' (gzip-compressed)"


def test_a_decompression_bomb_fails_at_the_cap(index: Index, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(compressed, "MAX_DECOMPRESSED", 1 << 20)  # 1 MB, not 1 GB
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "bomb.txt.gz").write_bytes(gz(b"a" * (3 << 20)))  # 3 MB of one letter: 3 KB
    (folder / "lighthouse.md").write_text(PLAIN_MD)
    report = index.index(folder)
    assert dict(report.failed) == {"bomb.txt.gz": "decompresses to more than 1 MB (the most read "
                                                  "of a compressed file): too big to index, or a "
                                                  "decompression bomb"}
    assert report.indexed == ["lighthouse.md"]


def test_compressed_again_unchanged_is_unchanged(index: Index, tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    f = folder / "harbour.md.gz"
    f.write_bytes(gz(HARBOUR_MD.encode(), mtime=1_000))
    assert index.index(folder).indexed == ["harbour.md.gz"]
    # the gzip header's time changes the file's bytes, not its content
    f.write_bytes(gz(HARBOUR_MD.encode(), mtime=2_000))
    again = index.index(folder)
    assert again.unchanged == ["harbour.md.gz"] and not again.indexed
    f.write_bytes(gz((HARBOUR_MD + "\nA new paragraph about the harbour master.\n").encode()))
    assert index.index(folder).indexed == ["harbour.md.gz"]
    # its fingerprint is the decompressed file's
    (tmp_path / "harbour.md").write_text(HARBOUR_MD)
    f.write_bytes(gz(HARBOUR_MD.encode(), mtime=3_000))
    assert fingerprint(f) == fingerprint(tmp_path / "harbour.md")


def test_a_compressed_copy_gives_way_to_its_plain_file_while_that_is_beside_it(
        index: Index, tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferry.md.gz").write_bytes(gz(FERRY_MD.encode()))
    assert index.index(folder).indexed == ["ferry.md.gz"]
    (folder / "ferry.md").write_text(FERRY_MD)  # the page and its precompressed copy
    report = index.index(folder)
    assert report.indexed == ["ferry.md"] and report.removed == ["ferry.md.gz"]
    assert [h.document for h in index.search("when does the island ferry sail", k=5).hits] \
        == ["ferry.md"]
    (folder / "ferry.md").unlink()
    report = index.index(folder)
    assert report.indexed == ["ferry.md.gz"] and report.removed == ["ferry.md"]


def test_the_decompressed_copy_is_removed_even_when_reading_it_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    f = tmp_path / "notes.md.gz"
    f.write_bytes(gz(b"\xff\xfe\x00\x00"))  # UTF-32's mark and nothing after: no text
    with pytest.raises(ExtractionError) as exc:
        extractor_for(f).extract(f, "notes.md.gz")
    assert exc.value.path == "notes.md.gz"  # the reason names the user's file
    assert list(scratch.iterdir()) == []
    f.write_bytes(gz(HARBOUR_MD.encode()))
    assert extractor_for(f).extract(f, "notes.md.gz").text == HARBOUR_MD
    assert list(scratch.iterdir()) == []
