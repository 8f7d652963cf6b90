"""Every ground truth bundled under eval/ loads through citeline's own loader (the one
`citeline eval` uses): needles verbatim, unique in their corpus, never a heading; the
manifest lists every document with its length; two phrasings per needle."""

from pathlib import Path

import pytest

from citeline.eval.groundtruth import load_ground_truth

EVAL = Path(__file__).resolve().parents[1] / "eval"
BUNDLED = sorted(p.name for p in EVAL.iterdir() if (p / "MANIFEST.json").is_file())


def test_the_fourteen_corpora_are_bundled():
    assert {"rustbook", "pytutorial", "debpolicy", "sqlitedoc", "npmdocs", "cmakedoc",
            "vimmanual", "cargobook", "pylibguides", "vimref", "pytestdocs", "gitdocs",
            "pgdocs", "nodejsdocs"} <= set(BUNDLED)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_ground_truth_loads(name):
    gt = load_ground_truth(EVAL / name)
    assert len(gt.questions) == 32
    assert gt.phrasings == ["course", "ticket"]
    assert len(gt.queries()) == 64
    assert len(gt.unanswerable) == 30
    assert {u.kind for u in gt.unanswerable} == {"near", "off"}
    for q in gt.questions:  # the offset the loader found is where the needle is
        assert gt.texts[q.doc][q.start : q.end] == q.needle
    # ten documents hold needles; a corpus that is one book (a PDF, an EPUB) has each of its
    # documents hold some, and its check_gt.py spreads them over its chapters
    assert len({q.doc for q in gt.questions}) >= min(10, len(gt.texts))
