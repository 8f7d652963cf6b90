"""Ground-truth validation: every rule, with the file and line of the broken entry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citeline import cli
from citeline.errors import ConfigError, GroundTruthError
from citeline.eval.groundtruth import load_ground_truth
from citeline.eval.harness import EvalConfig, run_eval
from citeline.extract import extractor_for

GT = Path(__file__).parent / "fixtures" / "gt"


@pytest.fixture
def gt(tmp_path: Path) -> Path:
    dst = tmp_path / "gt"
    shutil.copytree(GT, dst)
    return dst


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def _edit_question(gt: Path, line: int, **changes) -> None:
    rows = _lines(gt / "questions.jsonl")
    rows[line - 1].update(changes)
    for k, v in changes.items():
        if v is None:
            del rows[line - 1][k]
    _write(gt / "questions.jsonl", rows)


def _error(gt: Path) -> GroundTruthError:
    with pytest.raises(GroundTruthError) as info:
        load_ground_truth(gt)
    return info.value


def test_the_fixture_is_valid():
    s = load_ground_truth(GT)
    assert [q.id for q in s.questions] == ["q01", "q02", "q03", "q04", "q05", "q06"]
    assert len(s.queries()) == 12 and s.phrasings == ["course", "ticket"]
    assert [u.kind for u in s.unanswerable] == ["near", "near", "off"]
    for q in s.questions:
        assert s.texts[q.doc][q.start : q.end] == q.needle


def test_needle_absent_from_its_document(gt: Path):
    _edit_question(gt, 3, needle="calcium shortage inside the greenhouse")
    e = _error(gt)
    assert e.file.endswith("questions.jsonl") and e.line == 3
    assert "q03: needle is not a verbatim substring of 01-greenhouse.md" in str(e)


def test_needle_in_the_other_document_is_absent_from_its_own(gt: Path):
    _edit_question(gt, 1, doc="02-espresso.md")
    assert _error(gt).line == 1


def test_needle_not_unique(gt: Path):
    _edit_question(gt, 2, needle="watering")  # in several places of the greenhouse doc
    e = _error(gt)
    assert e.line == 2 and "occurs 3 times in the corpus" in e.reason


def test_needle_is_a_heading(gt: Path):
    _edit_question(gt, 4, needle="## Descaling")
    e = _error(gt)
    assert e.line == 4 and "heading line '## Descaling'" in e.reason
    # a needle that merely runs into the heading line is rejected too
    _edit_question(gt, 4, needle="to rinse it away.\n\n## Descaling")
    assert "heading" in _error(gt).reason


def test_needle_on_a_heading_the_extractor_found(gt: Path):
    # a Vim help file's sections come from its outline, not a heading syntax
    (gt / "docs" / "03-kettle.txt").write_text(
        "*kettle.txt*\tA kettle\n\n" + "=" * 78 + "\n1. Filling the kettle\t*fill*\n\n"
        "Fill the kettle with cold water up to the line marked MAX.\n")
    manifest = json.loads((gt / "MANIFEST.json").read_text())
    text = (gt / "docs" / "03-kettle.txt").read_text()
    manifest["documents"].append({"file": "03-kettle.txt", "title": "A kettle",
                                  "chars": len(text), "sections": 1})
    manifest["total_chars"] += len(text)
    manifest["total_sections"] += 1
    (gt / "MANIFEST.json").write_text(json.dumps(manifest))
    _edit_question(gt, 4, doc="03-kettle.txt", needle="1. Filling the kettle")
    assert "needle touches heading line" in _error(gt).reason
    _edit_question(gt, 4, needle="cold water up to the line marked MAX")
    assert load_ground_truth(gt).questions[3].doc == "03-kettle.txt"


def test_duplicate_ids(gt: Path):
    _edit_question(gt, 5, id="q02")
    e = _error(gt)
    assert e.line == 5 and "duplicate id 'q02' (first at questions.jsonl:2)" in e.reason
    rows = _lines(gt / "unanswerable.jsonl")
    rows[1]["id"] = "q01"  # ids are unique across both files
    _write(gt / "unanswerable.jsonl", rows)
    assert "unanswerable.jsonl:2: duplicate id 'q01'" in str(_error(gt))


def test_missing_and_unknown_fields(gt: Path):
    _edit_question(gt, 6, needle=None)
    e = _error(gt)
    assert e.line == 6 and e.reason == "missing field(s): needle"
    _edit_question(gt, 6, needle="group gasket has hardened and needs replacing", neddle="x")
    assert _error(gt).reason == "unknown field(s): neddle"


def test_bad_queries_and_kind(gt: Path):
    _edit_question(gt, 1, queries={"course": ""})
    assert _error(gt).line == 1
    _edit_question(gt, 1, queries={"course": "When do seedlings go in?"})
    rows = _lines(gt / "unanswerable.jsonl")
    rows[2]["kind"] = "far"
    _write(gt / "unanswerable.jsonl", rows)
    e = _error(gt)
    assert e.line == 3 and "kind must be one of near, off, got 'far'" in e.reason


def test_bad_json_and_blank_lines(gt: Path):
    text = (gt / "questions.jsonl").read_text().splitlines()
    text[1] = text[1][:-1]  # drop the closing brace
    (gt / "questions.jsonl").write_text("\n".join(text) + "\n")
    e = _error(gt)
    assert e.line == 2 and e.reason.startswith("bad JSON")
    text[1] = ""
    (gt / "questions.jsonl").write_text("\n".join(text) + "\n")
    assert _error(gt).reason == "blank line"


def test_manifest_and_missing_files(gt: Path):
    m = json.loads((gt / "MANIFEST.json").read_text())
    m["documents"][1]["chars"] = 5
    (gt / "MANIFEST.json").write_text(json.dumps(m))
    assert "02-espresso.md has 1328 characters, the manifest says 5" in str(_error(gt))
    (gt / "unanswerable.jsonl").unlink()
    e = _error(gt)
    assert e.file.endswith("unanswerable.jsonl") and "missing" in e.reason


def test_manifest_field_types_and_total_are_checked(gt: Path):
    m = json.loads((gt / "MANIFEST.json").read_text())
    m["documents"][0]["chars"] = "lots"
    m["total_chars"] += 1
    (gt / "MANIFEST.json").write_text(json.dumps(m))
    text = str(_error(gt))
    assert "documents[0]: 'chars' must be a whole number, got 'lots'" in text
    assert "field 'total_chars': the documents have" in text


def test_a_needle_with_crlf_line_ends_matches_a_crlf_document(gt: Path):
    q = _lines(gt / "questions.jsonl")[0]
    doc = gt / "docs" / q["doc"]
    raw = doc.read_text()
    doc.write_bytes(raw.replace("\n", "\r\n").encode())  # saved on Windows
    m = json.loads((gt / "MANIFEST.json").read_text())
    for d in m["documents"]:
        if d["file"] == q["doc"]:
            m["total_chars"] += raw.count("\n")
            d["chars"] += raw.count("\n")
    (gt / "MANIFEST.json").write_text(json.dumps(m))
    needle = q["needle"]
    start = raw.index(needle)
    line_break = raw.rindex("\n", 0, start)
    longer = raw[line_break - 3 : start + len(needle)]  # "you\nhave. ...": across a line break
    assert "\n" in longer and raw.count(longer) == 1
    _edit_question(gt, 1, needle=longer.replace("\n", "\r\n"))  # byte-exact in the file
    s = load_ground_truth(gt)
    assert s.questions[0].needle == longer and s.texts[q["doc"]][s.questions[0].start:].startswith(longer)


def test_entries_that_would_score_wrongly_are_refused(gt: Path):
    """A needle with whitespace at an end (lost when a chunk ends at its sentence, and
    the chunker blamed), a key given twice (JSON keeps the last), a phrasing name that
    is blank or has a '/', a document listed twice in the manifest."""
    needle = _lines(gt / "questions.jsonl")[0]["needle"]
    _edit_question(gt, 1, needle=needle + "\n")
    e = _error(gt)
    assert e.line == 1 and "q01: needle starts or ends with whitespace; trim it" in e.reason
    _edit_question(gt, 1, needle=needle)
    for name in ("", " ", "course/2"):
        _edit_question(gt, 2, queries={name: "What makes tomatoes crack?"})
        assert f"q02: phrasing name {name!r} must be a word" in _error(gt).reason
    _edit_question(gt, 2, queries={"course": "What makes tomatoes crack?"})
    rows = (gt / "questions.jsonl").read_text().splitlines()
    rows[2] = rows[2].replace('"queries": {', '"queries": {"course": "first", ', 1)
    (gt / "questions.jsonl").write_text("\n".join(rows) + "\n")
    e = _error(gt)
    assert e.line == 3 and e.reason == "key 'course' appears twice in one object (only the last would count)"
    rows[2] = rows[2].replace('{"id"', '{"needle": "not in any document", "id"', 1)
    rows[2] = rows[2].replace('"queries": {"course": "first", ', '"queries": {', 1)
    (gt / "questions.jsonl").write_text("\n".join(rows) + "\n")
    assert "key 'needle' appears twice" in _error(gt).reason
    (gt / "questions.jsonl").write_text("\n".join(rows[:2] + rows[3:]) + "\n")
    m = json.loads((gt / "MANIFEST.json").read_text())
    m["documents"].append(dict(m["documents"][0]))
    (gt / "MANIFEST.json").write_text(json.dumps(m))
    assert "documents[2]: 01-greenhouse.md is listed twice" in str(_error(gt))


def test_documents_in_binary_formats_are_read_by_their_extractor(gt: Path):
    """A PDF (or Office) document's characters are its canonical text's: it is not
    refused as 'not valid UTF-8'."""
    real = Path(__file__).parent / "fixtures" / "real"
    shutil.copy(real / "water-budget.pdf", gt / "docs")
    m = json.loads((gt / "MANIFEST.json").read_text())
    m["documents"].append({"file": "water-budget.pdf"})
    (gt / "MANIFEST.json").write_text(json.dumps(m))
    text = extractor_for(gt / "docs" / "water-budget.pdf").extract(gt / "docs" / "water-budget.pdf", "w").text
    assert f"the documents have {m['total_chars'] + len(text)} characters" in str(_error(gt))
    m["total_chars"] += len(text)
    (gt / "MANIFEST.json").write_text(json.dumps(m))
    with (gt / "questions.jsonl").open("a") as f:
        f.write(json.dumps({"id": "q07", "doc": "water-budget.pdf", "needle": "A cracked fitting",
                            "queries": {"course": "What leaked at the depot?"}}) + "\n")
    s = load_ground_truth(gt)
    q = s.questions[-1]
    assert q.doc == "water-budget.pdf" and s.texts[q.doc][q.start:q.end] == q.needle


def test_a_hidden_document_is_named_as_hidden(gt: Path):
    _edit_question(gt, 1, doc=".notes.md")
    assert "(hidden names, starting with '.', are not indexed)" in str(_error(gt))


def test_every_problem_is_listed(gt: Path):
    _edit_question(gt, 2, needle="not in the text at all")
    _edit_question(gt, 5, id="q01")
    e = _error(gt)
    assert e.line == 2 and "1 more problem(s)" in str(e) and "questions.jsonl:5" in str(e)


def test_rejected_before_any_indexing(gt: Path, tmp_path: Path, capsys):
    _edit_question(gt, 3, needle="absent needle")
    out = tmp_path / "out"
    with pytest.raises(GroundTruthError):
        run_eval(gt, EvalConfig(out=out, strategies=("E",), progress=False), embedder=None)
    assert not out.exists()  # nothing built, the model never loaded
    code = cli.main(["eval", str(gt), "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "questions.jsonl:3: q03: needle is not a verbatim substring" in err
    assert not out.exists()


def test_bad_options_are_rejected_before_indexing(tmp_path: Path, capsys):
    out = tmp_path / "out"
    for argv, msg in [
        (["--modes", "dense,sparse"], "--modes: comma-separated from dense, bm25, hybrid, rerank"),
        (["--modes", "dense,rerank"], "no cross-encoder weights are bundled"),
        (["--strategies", "AX"], "--strategies: letters from ABCDEF"),
        (["--k", "0,4"], "--k: comma-separated positive integers"),
        (["--compare", "E:A"], "--compare: 'E:A' must look like X:Y@K"),
        (["--strategies", "E", "--compare", "E:A@20"], "--compare: run(s) A/dense not evaluated"),
    ]:
        code = cli.main(["eval", str(GT), "--out", str(out), "-q", *argv])
        assert code == 2 and msg in capsys.readouterr().err, argv
    assert not out.exists()
    # a bluff cost that is no number would make every threshold's cost nan (the first wins)
    from citeline.eval.harness import calibrate

    for bad in ("nan", "inf", "-1"):
        with pytest.raises(ConfigError, match="--bluff-cost: must be a finite number"):
            calibrate(GT, idx=None, bluff_cost=float(bad))  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="--bluff-cost: must be a finite number"):
            EvalConfig(out=out, bluff_cost=float(bad))
