"""Spreadsheet and transcript extraction: inputs built here, read by the extractors."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.chunk import locate
from citeline.errors import ExtractionError
from citeline.extract.sheet import CsvExtractor


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_csv_in_utf16_or_utf32_with_a_bom_is_read(tmp_path: Path, encoding: str):
    # Excel's "Unicode Text" and Windows PowerShell's Out-File write UTF-16 with a BOM;
    # such a CSV failed as "not valid UTF-8 (undecodable byte at offset 0)"
    text = "code\tmeaning\nE1042\tpump pressure low, café\n\nE1043\t\"two\nlines\"\n"
    bom = {"utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path = tmp_path / "codes.tsv"
    path.write_bytes(bom + text.encode(encoding))
    doc = CsvExtractor().extract(path, "codes.tsv")
    assert doc.text == "code | meaning\nE1042 | pump pressure low, café\nE1043 | two lines"
    assert [r.row for r in doc.regions] == [1, 2, 4]
    last = doc.regions[-1]
    assert locate(doc, last.start, last.end).sheet_range == "codes!A4:B4"


def test_csv_bad_utf16_names_the_file_and_offset(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"\xff\xfea\x00,\x00\x00\xd8")  # a lone high surrogate at the end
    with pytest.raises(ExtractionError) as err:
        CsvExtractor().extract(path, "bad.csv")
    assert err.value.path == "bad.csv"
    assert err.value.reason.startswith("not valid UTF-16 after its byte-order mark (undecodable byte")


def test_xlsx_hidden_sheet_is_indexed_and_named_in_a_warning(tmp_path: Path):
    # a citation 'Lookup'!B2 pointed at a sheet the workbook does not show, with no word why
    import openpyxl

    from citeline.extract.sheet import XlsxExtractor

    wb = openpyxl.Workbook()
    wb.active.title = "Codes"
    wb.active["A1"] = "E1042"
    hidden = wb.create_sheet("Lookup")
    hidden["B2"] = "secret rate"
    hidden.sheet_state = "hidden"
    very = wb.create_sheet("Cfg")
    very["A1"] = "key"
    very.sheet_state = "veryHidden"
    empty = wb.create_sheet("Gone")
    empty.sheet_state = "hidden"
    wb.save(tmp_path / "book.xlsx")
    doc = XlsxExtractor().extract(tmp_path / "book.xlsx", "book.xlsx")
    lookup = next(r for r in doc.regions if r.sheet == "Lookup")
    assert locate(doc, lookup.start, lookup.end).sheet_range == "Lookup!B2:B2"
    assert doc.warnings == (
        "sheet 'Lookup' is hidden: its 1 row(s) are indexed and cited; Unhide in a "
        "spreadsheet program shows it",
        "sheet 'Cfg' is hidden: its 1 row(s) are indexed and cited; it is very hidden: "
        "only the VBA editor shows it",
        "sheet 'Gone' is empty",
    )


# A CSV saved by Excel as "CSV (Comma delimited)" on a Western European Windows, and a
# subtitle file from an old tool, are Windows-1252: both were refused as 'not valid UTF-8',
# though a text file with the same bytes was read. They are read as the text extractor
# reads it (citeline.extract.text.decode_bytes), with the same warning; another legacy
# encoding is refused, never indexed garbled.
_MENU = "Plat;Dessert;Prix\r\nCafé;Crème brûlée;4,50 €\r\n\"Thé, «vert»\";Île flottante;3,90 €\r\n"
_SUBTITLES = ("1\r\n00:00:01,000 --> 00:00:02,500\r\nCafé au lait, s'il vous plaît.\r\n\r\n"
              "2\r\n00:01:03,250 --> 00:01:05,000\r\n<i>À bientôt</i>, Zoë !\r\n")


def test_a_windows_1252_csv_is_read_with_a_warning(tmp_path: Path):
    path = tmp_path / "menu.csv"
    path.write_bytes(_MENU.encode("cp1252"))
    doc = CsvExtractor().extract(path, "menu.csv")
    assert doc.text == ("Plat | Dessert | Prix\nCafé | Crème brûlée | 4,50 €\n"
                        "Thé, «vert» | Île flottante | 3,90 €")
    assert doc.extractor_version == "6"
    second = doc.regions[1]
    assert locate(doc, second.start, second.end).sheet_range == "menu!A2:C2"
    assert doc.text[second.start + second.cells[0] :].startswith("Crème brûlée")
    assert doc.warnings == ("not UTF-8: read as Windows-1252, Western European (line 2 reads "
                            "'Café;Crème'); if accented letters look wrong, save it as UTF-8",)
    # the same table in UTF-8 (a byte-order mark or none, as a TSV too) is read as before,
    # to the same text, with no warning
    for name, data in (("plain/menu.csv", _MENU.encode()), ("bom/menu.csv", _MENU.encode("utf-8-sig")),
                       ("tabs/menu.tsv", _MENU.replace(";", "\t").encode())):
        (tmp_path / name).parent.mkdir()
        (tmp_path / name).write_bytes(data)
        utf8 = CsvExtractor().extract(tmp_path / name, name)
        assert (utf8.text, utf8.regions, utf8.warnings) == (doc.text, doc.regions, ()), name


@pytest.mark.parametrize(("text", "encoding", "holds"), [
    ("Имя;Город\r\nИван;Москва\r\n", "cp1251", "line 1 holds 'Èìÿ;Ãîðîä'"),
    ("Imię;Miasto\r\nZażółć gęślą;Łódź\r\n", "cp1250", "line 2 holds 'Za¿ó³æ'"),
])
def test_a_csv_in_another_legacy_encoding_is_refused_naming_the_file(
        tmp_path: Path, text: str, encoding: str, holds: str):
    path = tmp_path / "staff.csv"
    path.write_bytes(text.encode(encoding))
    with pytest.raises(ExtractionError) as err:
        CsvExtractor().extract(path, "lists/staff.csv")
    assert err.value.path == "lists/staff.csv"
    assert str(err.value).startswith("lists/staff.csv: not valid UTF-8 (undecodable byte 0x")
    assert f"nor Western European text (Windows-1252): read so, {holds}, no Western European " \
           "word; it is in some other encoding: save it as UTF-8" in err.value.reason


def test_a_windows_1252_transcript_is_read_with_a_warning(tmp_path: Path):
    from citeline.extract.transcript import TranscriptExtractor

    srt = tmp_path / "talk.srt"
    srt.write_bytes(_SUBTITLES.encode("cp1252"))
    doc = TranscriptExtractor().extract(srt, "talk.srt")
    assert doc.text == "Café au lait, s'il vous plaît.\nÀ bientôt, Zoë !"
    assert [(r.t_start, r.t_end) for r in doc.regions] == [(1.0, 2.5), (63.25, 65.0)]
    assert doc.text[doc.regions[1].start : doc.regions[1].end] == "À bientôt, Zoë !"
    assert doc.extractor_version == "3"
    assert doc.warnings == ("not UTF-8: read as Windows-1252, Western European (line 3 reads "
                            "'Café'); if accented letters look wrong, save it as UTF-8",)
    vtt = tmp_path / "talk.vtt"  # WebVTT alike, and a recording's sidecar is named
    vtt.write_bytes(("WEBVTT\r\n\r\n" + _SUBTITLES.replace(",", ".")).encode("cp1252"))
    (tmp_path / "talk.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    media = TranscriptExtractor().extract(tmp_path / "talk.mp4", "talk.mp4")
    assert media.text == "Café au lait. s'il vous plaît.\nÀ bientôt. Zoë !"
    assert [(r.t_start, r.t_end) for r in media.regions] == [(1.0, 2.5), (63.25, 65.0)]
    assert media.warnings == ("talk.vtt: not UTF-8: read as Windows-1252, Western European "
                              "(line 5 reads 'Café'); if accented letters look wrong, save it "
                              "as UTF-8",)
    # the same cues in UTF-8 are read as before, to the same text, with no warning
    srt.write_bytes(_SUBTITLES.encode())
    utf8 = TranscriptExtractor().extract(srt, "talk.srt")
    assert (utf8.text, utf8.regions, utf8.warnings) == (doc.text, doc.regions, ())


def test_a_transcript_in_another_legacy_encoding_is_refused_naming_the_file(tmp_path: Path):
    from citeline.extract.transcript import TranscriptExtractor

    (tmp_path / "ru.srt").write_bytes("1\n00:00:01,000 --> 00:00:02,000\nПривет, мир.\n"
                                      .encode("cp1251"))
    with pytest.raises(ExtractionError) as err:
        TranscriptExtractor().extract(tmp_path / "ru.srt", "ru.srt")
    assert str(err.value) == (
        "ru.srt: not valid UTF-8 (undecodable byte 0xCF at offset 32, line 3), nor Western "
        "European text (Windows-1252): read so, line 3 holds 'Ïðèâåò,', no Western European "
        "word; it is in some other encoding: save it as UTF-8")
