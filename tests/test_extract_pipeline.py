"""Every format through the real pipeline (real SQLite, the real model, the CLI's JSON).

One folder holds a file of every format plus broken ones; it is indexed once
per module. For each format the hit's ``content`` / the citation's ``quote``
must be the exact slice of the stored canonical text, and its locator must
point at where that text is in the original file — checked with a reader
that is not the extractor (pypdf for pages, openpyxl for cells, the csv
module for records, webvtt-py for cue times, python-docx and the stdlib HTML
parser for text).
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import doc_builders as b
from citeline import cli
from citeline.chunk import column_letter
from citeline.extract import REGISTRY
from citeline.extract.sheet import cell_text
from citeline.pipeline import Index, IndexReport
from citeline.types import Hit


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def contains_words(haystack: str, needle: str) -> bool:
    h, n = " " + " ".join(words(haystack)) + " ", " " + " ".join(words(needle)) + " "
    return n in h


def build_folder(root: Path) -> Path:
    import openpyxl

    root.mkdir()
    # kept small: every chunk here is embedded by the real model
    b.two_column_pdf(root, repeats=1)
    b.table_pdf(root, rows=20)
    for builder in (b.headers_pdf, b.scanned_pdf, b.encrypted_pdf, b.corrupt_pdf, b.docx_file,
                    b.pptx_deck):
        builder(root)
    (root / "empty.pdf").write_bytes(b"")
    (root / "starter.html").write_text(b.HTML_PAGE)
    (root / "rain.csv").write_text(b.CSV_TEXT)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Stores"
    ws.append(["Item", "Quantity", "Location", "Checked"])
    for i in range(30):
        ws.append([f"Spare fuse type {i}", i * 3, f"Shelf {i % 7}", "2024-05-01"])
        if i == 25:
            ws.append([])
            ws.append(["Lighthouse lamp", 4, "Storeroom B, top cupboard", "2024-05-02"])
    wb.save(root / "stores.xlsx")
    (root / "call.vtt").write_text(b.VTT_TEXT)
    (root / "bees.mp3").write_bytes(b"ID3\x04\0\0\0\0\0\0 not really audio")
    (root / "bees.srt").write_text(b.SRT_TEXT)
    (root / "lonely.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    (root / "notes.xyz").write_text("an unknown format")
    return root


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder):
    base = tmp_path_factory.mktemp("formats")
    folder = build_folder(base / "docs")
    idx = Index(base / "index", embedder=embedder)
    report = idx.index(folder)
    yield idx, folder, report
    idx.close()


def top(idx: Index, query: str, document: str) -> Hit:
    hits = idx.search(query, k=5).hits
    hit = next((h for h in hits if h.document == document), None)
    assert hit is not None and hit.rank <= 2, [(h.document, h.content[:40]) for h in hits]
    # the quoted content is exactly the stored canonical text's slice
    text = idx.store.document_text(document)
    assert text is not None and text[hit.start : hit.end] == hit.content
    return hit


def test_a_broken_file_fails_alone_and_unknown_types_are_listed(indexed):
    idx, _, report = indexed
    assert isinstance(report, IndexReport)
    failed = dict(report.failed)
    assert set(failed) == {"locked.pdf", "broken.pdf", "empty.pdf"}
    assert "encrypted with a password" in failed["locked.pdf"]
    assert "corrupt or not a PDF" in failed["broken.pdf"]
    assert "empty file" in failed["empty.pdf"]
    skipped = dict(report.skipped)
    assert set(skipped) == {"notes.xyz", "lonely.mp4", "bees.srt"}
    assert "no transcript" in skipped["lonely.mp4"]
    assert "transcript of bees.mp3" in skipped["bees.srt"]
    assert sorted(report.indexed) == sorted([
        "harbour.pdf", "parts.pdf", "review.pdf", "scan.pdf", "handbook.docx", "briefing.pptx",
        "starter.html", "rain.csv", "stores.xlsx", "call.vtt", "bees.mp3",
    ])
    assert ("review.pdf", next(w for p, w in report.warnings if p == "review.pdf")) in report.warnings
    states = {s.record.path: (s.state, s.record.extractor) for s in idx.status()}
    assert states["broken.pdf"][0] == "failed"
    assert states["harbour.pdf"] == ("indexed", "pdf") and states["bees.mp3"] == ("indexed", "transcript")


def test_cli_summary_lists_each_failure_with_its_reason(indexed, capsys):
    idx, folder, _ = indexed
    code = cli.main(["index", str(folder), "--index", idx.location, "-q"])
    out = capsys.readouterr().out
    assert code == 1  # a document failed; the others are unchanged and searchable
    assert "11 unchanged, 3 failed" in out
    assert "FAILED  broken.pdf: not a readable PDF: the file is corrupt or not a PDF" in out
    assert "FAILED  locked.pdf: the PDF is encrypted with a password" in out
    assert "skipped lonely.mp4: no transcript" in out


def test_pdf_hits_cite_the_page_the_text_is_on(indexed):
    idx, folder, _ = indexed
    for query, doc in [
        ("refrigerated containers plugged in after unloading", "harbour.pdf"),
        ("when does the customs office close on Saturday", "harbour.pdf"),
        ("price of the anchor winch gearbox", "parts.pdf"),
        ("ferry ticket revenue in the first quarter", "review.pdf"),
    ]:
        hit = top(idx, query, doc)
        pages = b.pdf_page_texts(folder / doc)
        loc = hit.locator
        assert loc.pages and hit.to_json()["locator"] == f"#page={loc.pages[0]}"
        assert on_pages(hit.content, [pages[p - 1] for p in loc.pages]), (doc, loc)
        assert b.HEADER not in hit.content


def on_pages(quote: str, pages: list[str]) -> bool:
    """Each line of the quote is on one of ``pages`` (independently read), in page order,
    starting on the first page listed and ending on the last (so none is listed idly)."""
    at = 0
    for i, line in enumerate(ln for ln in quote.split("\n") if ln.strip()):
        while at < len(pages) and not contains_words(pages[at], line):
            if i == 0:
                return False  # the chunk must start on the locator's #page=
            at += 1
        if at == len(pages):
            return False
    return at == len(pages) - 1


def test_ocr_page_citation_carries_its_confidence(indexed):
    idx, folder, _ = indexed
    hit = top(idx, "invoice 4471 total due", "scan.pdf")
    loc = hit.to_json()["location"]
    assert loc["pages"][-1] == 2 and loc["ocr_confidence"] > 60  # page 2 is the scan
    assert on_pages(hit.content, [b.pdf_page_texts(folder / "scan.pdf")[0], "\n".join(b.SCANNED_LINES)][-len(loc["pages"]):])
    assert "Total due 380 EUR" in hit.content
    assert "INVOICE 4471" in b.SCANNED_LINES  # what was drawn into the image


def test_docx_hit_has_heading_path_and_char_locator(indexed):
    import docx

    idx, folder, _ = indexed
    hit = top(idx, "who signs out the secateurs", "handbook.docx")
    assert hit.section == "Volunteer handbook > Tools > Sharp tools"
    assert hit.to_json()["locator"] == f"#char={hit.start},{hit.end}"
    d = docx.Document(str(folder / "handbook.docx"))
    body = "\n".join(p.text for p in d.paragraphs)
    for line in hit.content.split("\n\n"):
        assert re.sub(r"^#+ |^\\", "", line) in body


class _TextOnly(HTMLParser):
    """The stdlib's parser: all text outside script/style, for an independent check."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        self._skip -= tag in ("script", "style")

    def handle_data(self, data):  # type: ignore[no-untyped-def]
        if not self._skip:
            self.parts.append(data)


def test_html_hit_is_extracted_text_without_scripts(indexed):
    idx, folder, _ = indexed
    hit = top(idx, "how often to feed a starter kept in the fridge", "starter.html")
    assert hit.section == "Sourdough starter care > Storing it"
    reader = _TextOnly()
    reader.feed((folder / "starter.html").read_text())
    page_text = " ".join(reader.parts)
    for block in hit.content.split("\n\n"):
        assert contains_words(page_text, block)
    assert "secret-analytics-token" not in idx.store.document_text("starter.html")


def test_xlsx_hit_range_holds_exactly_the_quoted_cells(indexed):
    import openpyxl

    idx, folder, _ = indexed
    hit = top(idx, "where is the lighthouse lamp stored", "stores.xlsx")
    rng = hit.locator.sheet_range
    m = re.fullmatch(r"Stores!([A-Z]+)(\d+):([A-Z]+)(\d+)", rng or "")
    assert m, rng
    ws = openpyxl.load_workbook(folder / "stores.xlsx")["Stores"]
    rows = ws[f"{m.group(1)}{m.group(2)}:{m.group(3)}{m.group(4)}"]
    expected = [" | ".join(cell_text(c.value) for c in row) for row in rows]
    assert hit.content.split("\n") == [e for e in expected if e.strip(" |")]
    assert "Lighthouse lamp | 4 | Storeroom B, top cupboard | 2024-05-02" in hit.content
    assert m.group(1) == "A" and m.group(3) == column_letter(4)


def test_csv_hit_range_holds_exactly_the_quoted_records(indexed):
    idx, folder, _ = indexed
    hit = top(idx, "rainfall flooded lane closed road", "rain.csv")
    m = re.fullmatch(r"rain!A(\d+):D(\d+)", hit.locator.sheet_range or "")
    assert m, hit.locator.sheet_range
    records = list(csv.reader(io.StringIO(b.CSV_TEXT), delimiter=";"))
    want = records[int(m.group(1)) - 1 : int(m.group(2))]
    assert hit.content.split("\n") == [" | ".join(r) for r in want if any(r)]


def _secs(stamp: str) -> float:
    h, m, s = (["0"] + stamp.replace(",", ".").split(":"))[-3:]
    return int(h) * 3600 + int(m) * 60 + float(s)


def test_transcript_and_media_hits_cover_exactly_their_cues(indexed):
    import webvtt

    idx, folder, _ = indexed
    cases = [
        ("when does the forklift licence expire", "call.vtt", webvtt.from_buffer(io.StringIO(b.VTT_TEXT))),
        ("how far away is the meadow the bees fly to", "bees.mp3", webvtt.from_srt(str(folder / "bees.srt"))),
    ]
    for query, doc, cues in cases:
        hit = top(idx, query, doc)
        quoted = [c for c in cues if contains_words(hit.content, c.text)]
        assert quoted, doc
        assert hit.locator.t_start == min(_secs(c.start) for c in quoted)
        assert hit.locator.t_end == max(_secs(c.end) for c in quoted)
        assert hit.to_json()["locator"].startswith("#t=")
    text = idx.store.document_text("call.vtt")
    assert "Sam: Remember the forklift licence" in text  # speaker labels stay in the content


def test_an_answer_s_sentence_cites_its_own_page_and_cue_not_its_chunk_s(indexed):
    import webvtt

    idx, folder, _ = indexed
    pages = b.pdf_page_texts(folder / "review.pdf")
    ans = idx.ask("Which boats will be retired when their hull certificates expire?")
    assert not ans.refused and ans.generator == "extractive"
    span = next(sp for sp in ans.spans if "catamarans" in sp.text)
    chunk = ans.citations[span.citation - 1].locator
    assert len(chunk.pages) > 1  # the chunk packs short pages: its #page= is its first one
    assert span.locator.pages == (4,) and contains_words(pages[3], span.text)
    # a sentence of a multi-cue chunk is timed by its own cue
    ans = idx.ask("When does the forklift licence expire?")
    span = next(sp for sp in ans.spans if "forklift" in sp.text)
    chunk = ans.citations[span.citation - 1].locator
    cue = next(c for c in webvtt.from_buffer(io.StringIO(b.VTT_TEXT)) if "forklift" in c.text)
    assert (span.locator.t_start, span.locator.t_end) == (_secs(cue.start), _secs(cue.end))
    assert chunk.t_start is not None and chunk.t_start < span.locator.t_start
    # an index written before the region map was kept locates the sentence as its chunk
    conn = idx.store.conn
    kept = conn.execute("SELECT regions FROM documents WHERE path = 'review.pdf'").fetchone()[0]
    conn.execute("UPDATE documents SET regions = NULL WHERE path = 'review.pdf'")
    try:
        ans = idx.ask("Which boats will be retired when their hull certificates expire?")
        span = next(sp for sp in ans.spans if "catamarans" in sp.text)
        assert span.locator.pages == ans.citations[span.citation - 1].locator.pages
    finally:  # the module's index is shared: put the map back
        conn.execute("UPDATE documents SET regions = ? WHERE path = 'review.pdf'", (kept,))


def test_a_deck_s_hits_and_answers_cite_the_slide_the_text_is_on(indexed, capsys):
    """A .pptx hit names its slides (read back from the deck by another reader); an
    answer's sentence names its own slide, not its chunk's first one (a divider)."""
    idx, folder, _ = indexed
    slides = b.slide_texts(folder / "briefing.pptx")
    hit = top(idx, "where do the life jackets hang", "briefing.pptx")
    assert hit.locator.slides == (2,) and hit.to_json()["locator"] == "#slide=2"
    assert "blue lockers by gate two" in slides[1]
    ans = idx.ask("Where should the ring be thrown when someone falls overboard?")
    assert not ans.refused and ans.generator == "extractive"
    span = next(sp for sp in ans.spans if "upwind" in sp.text)
    assert ans.citations[span.citation - 1].locator.slides == (5, 6)  # the divider, its slide
    assert span.locator.slides == (6,) and contains_words(slides[5], span.text)
    code = cli.main(["search", "channel for the coastguard", "--index", idx.location, "--json"])
    data = json.loads(capsys.readouterr().out)
    first = next(h for h in data["hits"] if h["document"] == "briefing.pptx")
    assert code == 0 and first["location"]["slides"] == [3] and first["locator"] == "#slide=3"


def test_cli_ask_json_quotes_are_slices_and_urls_open_the_media(indexed, capsys):
    idx, _, _ = indexed
    code = cli.main(["ask", "How do bees communicate?", "--index", idx.location, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and not data["refused"], data["reason"]
    cite = data["citations"][0]
    assert cite["document"] == "bees.mp3" and cite["url"].startswith("bees.mp3#t=")
    start, end = cite["location"]["char"]
    assert idx.store.document_text("bees.mp3")[start:end] == cite["quote"]

    cli.main(["search", "invoice total due", "--index", idx.location, "-k", "1"])
    assert "(OCR confidence" in capsys.readouterr().out


def test_extractor_version_bump_marks_stale_and_reindexes(
    index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "rain.csv").write_text(b.CSV_TEXT)
    (folder / "call.vtt").write_text(b.VTT_TEXT)
    assert sorted(index.index(folder).indexed) == ["call.vtt", "rain.csv"]

    was = REGISTRY[".csv"].version
    bumped = str(int(was) + 1)
    monkeypatch.setattr(REGISTRY[".csv"], "version", bumped)
    status = {s.record.path: s for s in index.status()}
    assert status["rain.csv"].state == "stale" and status["call.vtt"].state == "indexed"
    assert f"extractor csv {was} -> {bumped}" in status["rain.csv"].to_json()["reason"]
    again = index.index(folder)
    assert again.indexed == ["rain.csv"] and again.unchanged == ["call.vtt"]
    assert index.store.document("rain.csv").extractor_version == bumped

    monkeypatch.setattr(REGISTRY[".vtt"], "version", "7")
    assert [s.record.path for s in index.status() if s.state == "stale"] == ["call.vtt"]
    redone = index.reindex_stale()
    assert redone.indexed == ["call.vtt"] and redone.embedded == 0  # same text: vectors reused
    assert {s.state for s in index.status()} == {"indexed"}


def test_media_with_a_broken_sidecar_fails_naming_the_sidecar(index: Index, tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "memo.m4a").write_bytes(b"\0\0\0\x20ftypM4A ")
    (folder / "memo.srt").write_bytes("1\n00:00:01,000 --> 00:00:02,000\nПривет\n".encode("cp1251"))
    (folder / "kept.vtt").write_text(b.VTT_TEXT)
    report = index.index(folder)
    assert report.indexed == ["kept.vtt"] and [p for p, _ in report.skipped] == ["memo.srt"]
    (failed,) = report.failed
    assert failed[0] == "memo.m4a" and failed[1].startswith("memo.srt: not valid UTF-8")


def test_windows_1252_csv_and_transcript_are_indexed_with_their_warnings(run, tmp_path: Path):
    # `citeline index` itself: a Western European CSV and a recording's subtitles saved in
    # Windows-1252 are indexed and found, the CLI's summary says which encoding it assumed;
    # a Cyrillic CSV fails naming the file, the rest of the folder indexed
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "menu.csv").write_bytes("Plat;Dessert;Prix\r\nCafé;Crème brûlée;4,50 €\r\n"
                                      "Thé;Île flottante;3,90 €\r\n".encode("cp1252"))
    (folder / "talk.m4a").write_bytes(b"\0\0\0\x20ftypM4A ")
    (folder / "talk.srt").write_bytes("1\r\n00:00:01,000 --> 00:00:04,500\r\nLe café de la gare "
                                      "ferme à midi, dit Zoë.\r\n".encode("cp1252"))
    (folder / "staff.csv").write_bytes("Имя;Город\r\nИван;Москва\r\n".encode("cp1251"))
    ix = str(tmp_path / "ix")
    code, out, _ = run("index", str(folder), "--index", ix, "-q")
    assert code == 1 and "2 indexed" in out and "1 failed" in out and "1 skipped" in out
    assert ("warning menu.csv: not UTF-8: read as Windows-1252, Western European (line 2 "
            "reads 'Café;Crème'); if accented letters look wrong, save it as UTF-8") in out
    assert ("warning talk.m4a: talk.srt: not UTF-8: read as Windows-1252, Western European "
            "(line 3 reads 'café')") in out
    assert "FAILED  staff.csv: not valid UTF-8 (undecodable byte 0xC8 at offset 0, line 1), " \
           "nor Western European text (Windows-1252): read so, line 1 holds 'Èìÿ;Ãîðîä'" in out

    code, out, _ = run("search", "crème brûlée dessert price", "--index", ix, "-k", "1", "--json")
    (hit,) = json.loads(out)["hits"]
    assert hit["document"] == "menu.csv" and "Café | Crème brûlée | 4,50 €" in hit["content"]
    assert hit["locator"] == "#menu!A1:C3"  # the header row and both rows
    code, out, _ = run("search", "when does the station café close", "--index", ix, "-k", "1",
                       "--json")
    (hit,) = json.loads(out)["hits"]
    assert hit["document"] == "talk.m4a" and hit["locator"] == "#t=1,4.5"
    assert hit["content"] == "Le café de la gare ferme à midi, dit Zoë."


def test_transcript_becomes_its_media_file_when_the_recording_appears(index: Index, tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "call.vtt").write_text(b.VTT_TEXT)
    assert index.index(folder).indexed == ["call.vtt"]
    (folder / "call.webm").write_bytes(b"\x1aE\xdf\xa3 webm")
    report = index.index(folder)
    assert report.indexed == ["call.webm"] and report.removed == ["call.vtt"]
    assert [p for p, _ in report.skipped] == ["call.vtt"]
    hit = index.search("who is driving the van", k=1).hits[0]
    assert hit.document == "call.webm" and hit.locator.fragment == "#t=1,62"  # all four cues


def test_a_transcript_stays_searchable_when_its_new_recording_fails(index: Index,
                                                                   tmp_path: Path):
    # the recording appears while its transcript is broken: the words indexed from the
    # transcript stay until the recording's document holds them
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "call.vtt").write_text(b.VTT_TEXT)
    assert index.index(folder).indexed == ["call.vtt"]
    (folder / "call.vtt").write_text(b.VTT_TEXT.replace("-->", "->"))
    (folder / "call.webm").write_bytes(b"\x1aE\xdf\xa3 webm")
    report = index.index(folder)
    assert [p for p, _ in report.failed] == ["call.webm"] and report.removed == []
    assert index.search("who is driving the van", k=1).hits[0].document == "call.vtt"
    (folder / "call.vtt").write_text(b.VTT_TEXT)  # mended: the recording takes the words
    report = index.index(folder)
    assert report.indexed == ["call.webm"] and report.removed == ["call.vtt"]
    assert [r.path for r in index.store.documents()] == ["call.webm"]


def test_a_recording_or_transcript_named_alone_indexes_its_companion(index: Index, tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "call.webm").write_bytes(b"\x1aE\xdf\xa3 webm")
    assert "no transcript" in dict(index.index(folder / "call.webm").skipped)["call.webm"]
    (folder / "call.vtt").write_text(b.VTT_TEXT)
    report = index.index(folder / "call.vtt")  # the transcript alone, as a user adds it
    assert report.indexed == ["call.webm"] and [p for p, _ in report.skipped] == ["call.vtt"]
    assert [r.path for r in index.store.documents()] == ["call.webm"]

    (folder / "memo.vtt").write_text(b.VTT_TEXT.replace("van", "truck"))
    assert index.index(folder / "memo.vtt").indexed == ["memo.vtt"]
    (folder / "memo.m4a").write_bytes(b"\0\0\0\x20ftypM4A ")
    report = index.index(folder / "memo.m4a")  # the recording alone: its transcript is now its text
    assert report.indexed == ["memo.m4a"] and report.removed == ["memo.vtt"]
    assert sorted(r.path for r in index.store.documents()) == ["call.webm", "memo.m4a"]


def test_a_citation_of_a_labelled_pdf_page_shows_its_printed_number(
        tmp_path: Path, embedder, capsys):
    from doc_builders import label_pages, numbered_pages_pdf

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "book.pdf").write_bytes(label_pages(numbered_pages_pdf(5), [
        (0, 1, "/r", "", 1), (2, 4, "/D", "", 1)]))
    idx = Index(tmp_path / "ix", embedder=embedder)
    idx.index(folder)
    # one chunk holds the whole short book: its citation names every page it spans
    hit = idx.search("when does the ferry to island number 4 leave", k=1).hits[0]
    assert hit.locator.pages == (1, 2, 3, 4, 5)
    assert hit.locator.page_labels == ("i", "ii", "1", "2", "3")
    cli.main(["search", "ferry to island number 4", "--index", idx.location, "-k", "1"])
    assert "book.pdf#page=1 (printed pages i, ii, 1, 2, 3)" in capsys.readouterr().out
    ans = idx.ask("When does the ferry to island number 4 leave?")
    assert not ans.refused, ans.reason
    assert ans.citations[0].to_json()["location"]["page_labels"] == ["i", "ii", "1", "2", "3"]
    idx.close()
