"""`citeline eval --store URL`: the same evaluation with the indexes in PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.errors import ConfigError
from citeline.eval.harness import EvalConfig, run_eval
from citeline.pipeline import Index

GT = Path(__file__).parent.parent / "fixtures" / "gt"


def _figures(data: dict) -> dict:
    keep = ("recall", "mrr", "budgeted", "n")
    return {run: {k: v for k, v in r.items() if k in keep} for run, r in data["runs"].items()}


def test_eval_on_postgres_matches_sqlite(pg_url, memo_embedder, tmp_path):
    config = {"strategies": ("E", "A"), "progress": False}
    lite = run_eval(GT, EvalConfig(out=tmp_path / "lite", **config), embedder=memo_embedder)
    pg = run_eval(GT, EvalConfig(out=tmp_path / "pg", store=pg_url + "?exact=1", **config),
                  embedder=memo_embedder)
    assert pg["config"]["store"].startswith("postgresql ")
    assert _figures(pg) == _figures(lite)
    assert [q["ranks"] for q in pg["queries"]] == [q["ranks"] for q in lite["queries"]]
    assert pg["strategies"]["E"]["chunks"] == lite["strategies"]["E"]["chunks"]
    # the store holds the last strategy's index, and a second eval may replace it
    again = run_eval(GT, EvalConfig(out=tmp_path / "pg2", store=pg_url, strategies=("E",),
                                    modes=("hybrid",), progress=False), embedder=memo_embedder)
    assert again["runs"]["E/hybrid"]["recall"] == lite["runs"]["E/hybrid"]["recall"]


def test_eval_refuses_a_store_with_documents_it_did_not_index(pg_url, memo_embedder, tmp_path,
                                                              clean_corpus):
    idx = Index(pg_url, embedder=memo_embedder)
    idx.index(clean_corpus)
    n = len(idx.status())
    idx.close()
    with pytest.raises(ConfigError, match="documents an eval did not index"):
        run_eval(GT, EvalConfig(out=tmp_path / "x", store=pg_url, strategies=("E",),
                                progress=False), embedder=memo_embedder)
    idx = Index(pg_url, embedder=memo_embedder)
    assert len(idx.status()) == n  # nothing was removed
    idx.close()
