"""A small end-to-end evaluation on the real pipeline (SQLite, the real model).

Two documents, six ground truths x two phrasings, three unanswerable questions;
strategies E and A in all three modes. Blind cuts destroy two needles (q01 and
q05 straddle the 512-character boundary), structure-aware E destroys none.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import pytrec_eval

from citeline import cli
from citeline.errors import ConfigError
from citeline.eval import metrics
from citeline.eval.cache import CachingEmbedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.eval.harness import (
    EvalConfig,
    parse_comparison,
    parse_fusions,
    run_eval,
    run_figures,
)
from citeline.eval.report import PLOTS, render_markdown, write_report
from citeline.eval.stats import sign_test
from citeline.pipeline import ASK_CANDIDATES, DEFAULT_FUSION, Index

GT = Path(__file__).parent / "fixtures" / "gt"
KS = (1, 4, 8, 20)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory, embedder):
    out = tmp_path_factory.mktemp("eval")
    data = run_eval(GT, EvalConfig(out=out, strategies=("E", "A"), progress=False), embedder=embedder)
    write_report(data, out)
    return out, data


def _cached(out: Path, embedder) -> CachingEmbedder:
    """The eval's own embedding cache: the queries were embedded once already."""
    return CachingEmbedder(embedder, out / "embed-cache.sqlite3")


def test_report_files(evaluated):
    out, data = evaluated
    assert json.loads((out / "report.json").read_text()) == json.loads(json.dumps(data))
    md = (out / "report.md").read_text()
    for heading in ("## Mode: dense", "## Mode: bm25", "## Mode: hybrid", "## By phrasing",
                    "## Paired comparisons", "## Destroyed ground truths", "## Tokens and timings",
                    "## Hybrid fusions side by side",
                    "## Threshold sweep (E/hybrid)"):
        assert heading in md
    assert "- A: q01 (01-greenhouse.md, needle 486-562) cut by chunk 0-512; chunk 512-1024" in md
    for name in PLOTS:
        png = (out / name).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 5000
    assert (out / "indexes" / "E").is_dir() and (out / "embed-cache.sqlite3").is_file()
    # every stage the default hybrid spends time on has its column, and the total
    assert "| run | dense scan | BM25 | sentences | late interaction | fusion | fetch | total |" in md


def test_numbers_are_consistent(evaluated):
    _, data = evaluated
    assert set(data["runs"]) == {f"{s}/{m}" for s in "EA" for m in ("dense", "bm25", "hybrid")} | {
        "E/hybrid+rrf", "E/hybrid+sentence", "E/hybrid+section", "E/hybrid+late"}  # on E only
    ranks_of = lambda rid: [q["ranks"][rid] for q in data["queries"]]  # noqa: E731
    assert ranks_of("E/hybrid") == ranks_of(f"E/hybrid+{DEFAULT_FUSION}")  # hybrid = the default
    for rid, run in data["runs"].items():
        ranks = [q["ranks"][rid] for q in data["queries"]]
        assert run["n"] == len(ranks) == 12
        for k in KS:
            r = run["recall"][str(k)]
            assert r["hits"] == sum(metrics.hits_at(ranks, k))
            assert r["value"] == pytest.approx(metrics.recall_at_k(ranks, k), abs=1e-4)
            assert r["low"] <= r["value"] <= r["high"]
        assert run["mrr"] == pytest.approx(metrics.mrr(ranks), abs=1e-4)
        recalls = [run["recall"][str(k)]["value"] for k in KS]
        assert recalls == sorted(recalls)
        assert run["budgeted"]["2000"]["value"] <= run["budgeted"]["4000"]["value"]
        # the phrasings split the queries: their hits add up to the run's
        for k in KS:
            assert sum(p["recall"][str(k)]["hits"] for p in run["by_phrasing"].values()) == (
                run["recall"][str(k)]["hits"])
        assert all(t["n"] > 0 for t in run["timings_ms"].values())
    for c in data["comparisons"]:
        if c["unit"] == "ch":  # budgeted recall, per query
            x = [q["within"][c["x"]][str(c["k"])] for q in data["queries"]]
            y = [q["within"][c["y"]][str(c["k"])] for q in data["queries"]]
        else:
            x = [q["ranks"][c["x"]] is not None and q["ranks"][c["x"]] <= c["k"]
                 for q in data["queries"]]
            y = [q["ranks"][c["y"]] is not None and q["ranks"][c["y"]] <= c["k"]
                 for q in data["queries"]]
        assert c["wins"] == sum(a and not b for a, b in zip(x, y))
        assert c["losses"] == sum(b and not a for a, b in zip(x, y))
        # by needle: each needle's phrasings netted, one vote per needle
        net: dict[str, int] = {}
        for q, a, b in zip(data["queries"], x, y):
            net[q["gt"]] = net.get(q["gt"], 0) + int(a) - int(b)
        n = c["by_needle"]
        assert n["needles"] == len({q["gt"] for q in data["queries"]}) == len(net)
        assert (n["wins"], n["losses"]) == (sum(v > 0 for v in net.values()),
                                            sum(v < 0 for v in net.values()))
        assert n["p"] == sign_test(n["wins"], n["losses"])
    for rid, run in data["runs"].items():  # the per-query budget hits add up to the rate
        for b in ("2000", "4000"):
            assert sum(q["within"][rid][b] for q in data["queries"]) == run["budgeted"][b]["hits"]
    assert [c["label"] for c in data["comparisons"]] == [
        "E/dense vs A/dense @ R@20", "E/hybrid vs E/dense @ R@4", "E/hybrid vs E/bm25 @ R@4",
        "E/hybrid+late vs E/hybrid+rrf @ R@1", "E/hybrid+late vs E/hybrid+rrf @ R@4",
        "E/hybrid+late vs E/hybrid+rrf @ R@20", "E/hybrid+late vs E/hybrid+rrf @ R@2000ch",
        "E/hybrid+late vs E/hybrid+section @ R@1", "E/hybrid+late vs E/hybrid+section @ R@4",
        "E/hybrid+late vs E/hybrid+section @ R@20", "E/hybrid+late vs E/hybrid+section @ R@2000ch",
        "E/hybrid+section vs E/hybrid+rrf @ R@4", "E/hybrid+section vs E/hybrid+sentence @ R@4",
        "E/hybrid+late vs E/dense @ R@4", "E/hybrid+late vs E/dense @ R@20",
        "E/hybrid+late vs E/dense @ R@2000ch", "E/hybrid+late vs E/bm25 @ R@4"]


def test_destroyed_and_token_accounting(evaluated):
    out, data = evaluated
    a, e = data["strategies"]["A"], data["strategies"]["E"]
    # blind 512-char cuts: 1473 -> 3 chunks, 1328 -> 3 chunks
    assert a["chunks"] == 6 and a["header_share"] == 0.0
    assert {d["id"] for d in a["destroyed"]} == {"q01", "q05"}
    q05 = next(d for d in a["destroyed"] if d["id"] == "q05")
    assert [(c["start"], c["end"]) for c in q05["cut_by"]] == [(0, 511), (512, 1023)]
    assert e["destroyed"] == [] and e["header_share"] > 0.05 and e["over_window"] == 0
    for mode in ("dense", "bm25", "hybrid"):
        assert data["runs"][f"A/{mode}"]["destroyed"] == 2
        assert all(q["ranks"][f"A/{mode}"] is None for q in data["queries"]
                   if q["gt"] in ("q01", "q05"))
    idx = Index(out / "indexes" / "E")
    try:
        st = idx.store.stats()
        assert (st.chunks, st.tokens, st.header_tokens) == (e["chunks"], e["tokens"], e["header_tokens"])
        assert idx.strategy == "E"
    finally:
        idx.close()


def test_recall_and_mrr_match_trec_eval_on_the_same_runs(evaluated, embedder):
    """Re-run E/hybrid's queries on the eval's own index and score them with trec_eval."""
    out, data = evaluated
    gt = load_ground_truth(GT)
    idx = Index(out / "indexes" / "E", embedder=_cached(out, embedder))
    try:
        rows = idx.store.all_chunks()  # type: ignore[attr-defined]
        qrels, run = {}, {}
        for q in gt.queries():
            qrels[q.qid] = {str(r.id): 1 for r in rows if q.gt.needle in r.content}
            hits = idx.search(q.text, k=20, mode="hybrid").hits
            run[q.qid] = {str(h.chunk_id): float(100 - h.rank) for h in hits}
    finally:
        idx.close()
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "success.1,4,8,20"}).evaluate(run)
    ours = data["runs"]["E/hybrid"]
    for k in KS:
        ref = sum(v[f"success_{k}"] for v in ev.values()) / len(ev)
        assert ours["recall"][str(k)]["value"] == pytest.approx(ref, abs=1e-4)
    assert ours["mrr"] == pytest.approx(sum(v["recip_rank"] for v in ev.values()) / len(ev), abs=1e-4)


def test_sweep_matches_what_ask_does(evaluated, embedder):
    out, data = evaluated
    sw = data["sweep"]
    assert sw["run"] == "E/hybrid" and len(sw["rows"]) == 25
    assert len(sw["in_nearest"]) == 12 and len(sw["out_nearest"]) == 3
    gt = load_ground_truth(GT)
    idx = Index(out / "indexes" / "E", embedder=_cached(out, embedder))
    try:
        for row in (sw["rows"][8], sw["proposed"]):  # 0.50 and the proposal
            idx.set_threshold(row["threshold"])
            answers = [idx.ask(q.text) for q in gt.queries()]
            refused = sum(a.refused for a in answers)
            correct = sum(any(q.gt.needle in c.quote for c in a.citations)
                          for q, a in zip(gt.queries(), answers))
            bluffs = sum(not idx.ask(u.query).refused for u in gt.unanswerable)
            assert (refused, correct, bluffs) == (row["refused"], row["correct"], row["bluffs"])
    finally:
        idx.close()
    assert ASK_CANDIDATES == data["config"]["candidates"]


def test_rerun_reuses_every_embedding(evaluated, embedder):
    out, _ = evaluated
    data = run_eval(GT, EvalConfig(out=out, strategies=("E",), modes=("dense",), progress=False),
                    embedder=embedder)
    assert data["strategies"]["E"]["model_embedded"] == 0  # all from embed-cache.sqlite3
    assert data["runs"]["E/dense"]["recall"]["4"]["value"] > 0


def test_budgeted_recall_does_not_depend_on_k(evaluated, embedder):
    """R@Nch packs hits into N characters: --k 1 must not cut the packing at one hit."""
    out, data = evaluated
    one = run_eval(GT, EvalConfig(out=out, strategies=("A",), modes=("dense",), ks=(1,),
                                  fusions=(), progress=False), embedder=embedder)
    assert one["runs"]["A/dense"]["budgeted"] == data["runs"]["A/dense"]["budgeted"]
    assert [q["within"]["A/dense"] for q in one["queries"]] == [
        q["within"]["A/dense"] for q in data["queries"]]
    # with one hit per query, R@2000ch would be R@1: blind 512-character chunks fit four
    assert one["runs"]["A/dense"]["budgeted"]["2000"]["hits"] > sum(
        1 for q in data["queries"] if q["ranks"]["A/dense"] == 1)


def test_cli_eval_proposes_no_threshold_without_unanswerable_questions(
        evaluated, tmp_path: Path, capsys):
    gt = tmp_path / "gt"
    shutil.copytree(GT, gt)
    (gt / "unanswerable.jsonl").write_text("")
    out = tmp_path / "report"
    out.mkdir()
    shutil.copy(evaluated[0] / "embed-cache.sqlite3", out / "embed-cache.sqlite3")
    code = cli.main(["eval", str(gt), "--strategies", "E", "--modes", "dense", "--fusions", "",
                     "--out", str(out), "-q"])
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert "no threshold proposed: unanswerable.jsonl holds no question" in stdout
    sweep = json.loads((out / "report.json").read_text())["sweep"]
    assert sweep["out_of_domain"] == 0 and sweep["proposed"] is None
    md = (out / "report.md").read_text()
    assert "No threshold proposed: unanswerable.jsonl holds no question" in md
    assert "Proposed threshold" not in md and "separates" not in md


def _assert_columns_aligned(table: list[str]) -> None:
    """Every row has as many columns as the header, the names start where "run" does
    and every figure ends where its header does (they are right-aligned)."""
    def columns(line: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(r"\S+", line)]

    head = columns(table[0])
    for line in table[1:]:
        cells = columns(line)
        assert len(cells) == len(head), line
        assert cells[0][0] == head[0][0] and [e for _, e in cells[1:]] == [
            e for _, e in head[1:]], "\n".join(table)


def test_the_console_table_widens_to_the_longest_run_name():
    from citeline.eval.report import console_table

    def run(recall: float, mrr: float, chunks: int = 40) -> dict:
        return {"chunks": chunks, "destroyed": 2, "mrr": mrr,
                "recall": {str(k): {"value": recall} for k in KS}}

    data = {"config": {"ks": list(KS)}, "runs": {
        "E/dense": run(0.5, 0.25), "E/hybrid+late+query-map": run(1.0, 0.875, chunks=12345),
        "A/bm25": run(0.0, 0.0)}}
    table = console_table(data)
    assert len(table) == 4 and table[0].split() == ["run", "chunks", "destr", "R@1", "R@4",
                                                     "R@8", "R@20", "MRR"]
    assert table[2].split() == ["E/hybrid+late+query-map", "12345", "2", *["1.000"] * 4, "0.875"]
    _assert_columns_aligned(table)
    # short names keep the old widths
    assert console_table({"config": {"ks": [4]}, "runs": {"E/dense": run(0.5, 0.25)}}) == [
        "run        chunks destr    R@4    MRR", "E/dense        40     2  0.500  0.250"]


def test_cli_eval_and_calibrate(evaluated, embedder, tmp_path: Path, capsys):
    out = tmp_path / "report"
    out.mkdir()
    # the module's embedding cache: chunk and query texts are not embedded again
    shutil.copy(evaluated[0] / "embed-cache.sqlite3", out / "embed-cache.sqlite3")
    code = cli.main(["eval", str(GT), "--strategies", "E", "--modes", "dense,hybrid", "--k", "1,4",
                     "--out", str(out), "--compare", "E/hybrid:E@4", "-q"])
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert "E/hybrid vs E/dense @ R@4: +" in stdout and "report: " in stdout
    data = json.loads((out / "report.json").read_text())
    lines = stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("run "))
    table = lines[at : at + 1 + len(data["runs"])]
    assert [line.split()[0] for line in table[1:]] == list(data["runs"])
    _assert_columns_aligned(table)  # "E/hybrid+section" is longer than "E/hybrid"
    assert data["config"]["ks"] == [1, 4] and [c["label"] for c in data["comparisons"]] == [
        parse_comparison("E/hybrid:E@4").label]

    ix = tmp_path / "ix"
    shutil.copytree(out / "indexes" / "E", ix)  # an ordinary index, built by the eval
    code = cli.main(["calibrate", str(GT), "--index", str(ix), "--json", "-q"])
    rep = json.loads(capsys.readouterr().out)
    assert code == 0 and not rep["applied"] and rep["n_in"] == 12 and rep["n_out"] == 3
    assert Index(ix).threshold == 0.675  # not applied without --apply
    code = cli.main(["calibrate", str(GT), "--index", str(ix), "--bluff-cost", "5", "--apply", "-q"])
    text = capsys.readouterr().out
    assert code == 0 and "<- proposed" in text and "applied" in text
    proposed = float(text.split("proposed threshold ")[1].split()[0])
    assert Index(ix).threshold == proposed
    # an index that holds none of the ground truth's documents is refused, not swept
    other = tmp_path / "other"
    (tmp_path / "unrelated").mkdir()
    (tmp_path / "unrelated" / "fish.md").write_text("# Fish\n\nPoach the salmon slowly.\n")
    Index(other, embedder=embedder).index(tmp_path / "unrelated")
    code = cli.main(["calibrate", str(GT), "--index", str(other), "--apply", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "none of the ground truth's documents" in err and " is in this index" in err
    assert "is not in" not in err  # "none of ... is not in" reads as "all of them are in"
    assert Index(other).threshold == 0.675
    # ... and so is one that holds only some: their questions would look out of domain
    (tmp_path / "unrelated" / "01-greenhouse.md").write_text(
        (GT / "docs" / "01-greenhouse.md").read_text(encoding="utf-8"), encoding="utf-8")
    Index(other, embedder=embedder).index(tmp_path / "unrelated")
    code = cli.main(["calibrate", str(GT), "--index", str(other), "--apply", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "1 of the ground truth's 2 documents (02-espresso.md)" in err
    assert Index(other).threshold == 0.675


def test_fusion_runs_parse_and_are_validated():
    c = parse_comparison("E/hybrid+sentence:E/hybrid+rrf@4")
    assert (c.x, c.y, c.k, c.unit) == ("E/hybrid+sentence", "E/hybrid+rrf", 4, "")
    c = parse_comparison("E/hybrid+section:E/hybrid+rrf@2000ch")
    assert (c.k, c.unit, c.label) == (2000, "ch", "E/hybrid+section vs E/hybrid+rrf @ R@2000ch")
    with pytest.raises(ConfigError, match="budgeted recall is measured at 2000ch, 4000ch"):
        parse_comparison("E:A@300ch")
    with pytest.raises(ConfigError, match="--compare"):
        parse_comparison("E/hybrid+nope:E/hybrid+rrf@4")
    with pytest.raises(ConfigError, match="--fusions"):
        parse_fusions("rrf,nope")
    assert parse_fusions("") == () and parse_fusions("sentence, rrf") == ("sentence", "rrf")
    cfg = EvalConfig(out=Path("x"), strategies=("A", "E"), modes=("dense", "hybrid"))
    assert cfg.runs[-4:] == ["E/hybrid+rrf", "E/hybrid+sentence", "E/hybrid+section",
                            "E/hybrid+late"]
    assert EvalConfig(out=Path("x"), modes=("dense",)).fusion_runs("E") == []
    assert EvalConfig(out=Path("x"), fusions=()).fusion_runs("E") == []


def test_hybrid_is_checked_against_its_better_component(evaluated):
    """Every hybrid run's figures minus the better of its strategy's dense and BM25 runs,
    recomputed here from the per-query ranks."""
    _, data = evaluated
    checks = data["hybrid_vs_components"]
    hybrids = {rid for rid in data["runs"] if rid.split("/")[1].startswith("hybrid")}
    assert {c["run"] for c in checks} == hybrids
    for c in checks:
        strategy = c["run"].split("/")[0]
        metric = c["metric"]

        def value(rid: str, metric: str = metric) -> float:
            ranks = [q["ranks"][rid] for q in data["queries"]]
            if metric == "MRR":
                return metrics.mrr(ranks)
            if metric.endswith("ch"):
                return data["runs"][rid]["budgeted"][metric[2:-2]]["value"]
            return metrics.recall_at_k(ranks, int(metric[2:]))

        d, b = value(f"{strategy}/dense"), value(f"{strategy}/bm25")
        assert c["better"] == ("dense" if d >= b else "bm25")
        assert c["delta"] == pytest.approx(value(c["run"]) - max(d, b), abs=2e-4)
    report = (evaluated[0] / "report.md").read_text()
    assert "## Hybrid vs its better component" in report


def test_query_map_runs(evaluated, embedder, tmp_path: Path):
    out = tmp_path / "qmap"
    out.mkdir()
    shutil.copy(evaluated[0] / "embed-cache.sqlite3", out / "embed-cache.sqlite3")
    config = EvalConfig(out=out, strategies=("E",), modes=("dense", "bm25", "hybrid"),
                        fusions=(), query_map=True, progress=False)
    assert config.runs == ["E/dense", "E/bm25", "E/hybrid", "E/dense+qmap", "E/hybrid+qmap"]
    data = run_eval(GT, config, embedder=embedder)
    fitted = data["strategies"]["E"]["query_map"]
    assert fitted["pairs"] == fitted["inverse_cloze_pairs"] + fitted["heading_pairs"] > 0
    # fitted once (not again for the second +qmap run), with the adapt command's check
    assert fitted["check"]["pairs"] == fitted["heading_pairs"]
    assert fitted["stored"] is (fitted["check"]["passed"] is True)  # a verdict, not "too few"
    assert "## Query map (E)" in render_markdown(data)
    assert data["runs"]["E/hybrid+qmap"]["mode"] == "hybrid+qmap"
    labels = {c["label"] for c in data["comparisons"]}
    assert {"E/hybrid+qmap vs E/hybrid @ R@4", "E/hybrid+qmap vs E/hybrid @ R@2000ch",
            "E/dense+qmap vs E/dense @ R@4"} <= labels
    # a +qmap hybrid is checked against the mapped dense run, not the plain one
    mapped = run_figures(data["runs"]["E/dense+qmap"])
    bm25 = run_figures(data["runs"]["E/bm25"])
    for c in data["hybrid_vs_components"]:
        if c["run"] == "E/hybrid+qmap":
            want = mapped if c["better"] == "dense" else bm25
            assert c["better_value"] == want[c["metric"]]
    # the eval's index is left without the map it fitted
    idx = Index(out / "indexes" / "E", embedder=embedder)
    assert idx.stored_query_map() is None
    idx.close()
    c = parse_comparison("E/hybrid+qmap:E/hybrid@2000ch")
    assert (c.x, c.y, c.unit) == ("E/hybrid+qmap", "E/hybrid", "ch")
    with pytest.raises(ConfigError, match="--compare"):
        parse_comparison("E/bm25+qmap:E/bm25@4")
    assert EvalConfig(out=Path("x"), query_map=True).query_map_runs("A") == []


def test_reused_indexes_give_the_figures_a_fresh_build_gives(evaluated, embedder,
                                                             tmp_path: Path):
    """--reuse-indexes brings the index a previous eval left up to date instead of
    building it anew: the same ranks query by query, a document missing from it indexed
    again, the rest skipped; an index of the corpus from another folder is built anew,
    and the report says which happened."""
    gt = tmp_path / "gt"
    shutil.copytree(GT, gt)
    out = tmp_path / "ev"
    out.mkdir()
    shutil.copy(evaluated[0] / "embed-cache.sqlite3", out / "embed-cache.sqlite3")

    def run(gt_dir: Path, reuse: bool) -> dict:
        return run_eval(gt_dir, EvalConfig(out=out, strategies=("E",), modes=("hybrid",),
                                           fusions=(), reuse_indexes=reuse, progress=False),
                        embedder=embedder)

    def ranks(data: dict) -> list:
        return [(q["ranks"]["E/hybrid"], q["within"]["E/hybrid"]) for q in data["queries"]]

    fresh = run(gt, reuse=False)
    assert "reused" not in fresh["strategies"]["E"]
    docs = sorted(p.name for p in (gt / "docs").iterdir())
    idx = Index(out / "indexes" / "E", embedder=embedder)
    assert idx.remove(docs[0])  # as if it had changed since: indexed again
    idx.close()
    again = run(gt, reuse=True)
    assert again["strategies"]["E"]["reused"] == {
        "unchanged": len(docs) - 1, "indexed": 1, "removed": 0}
    assert ranks(again) == ranks(fresh)
    assert again["strategies"]["E"]["chunks"] == fresh["strategies"]["E"]["chunks"]
    assert "Index E was reused (documents unchanged 1, indexed 1, removed 0)" in render_markdown(again)

    moved = tmp_path / "gt-copy"  # the same corpus in another folder: built anew
    shutil.copytree(gt, moved)
    elsewhere = run(moved, reuse=True)
    why = elsewhere["strategies"]["E"]["reused"]["not_reused"]
    assert str((gt / "docs").resolve()) in why
    assert ranks(elsewhere) == ranks(fresh)
    idx = Index(out / "indexes" / "E", embedder=embedder)
    assert {r.root for r in idx.store.documents()} == {str((moved / "docs").resolve())}
    idx.close()
    with pytest.raises(ConfigError, match="--reuse-indexes"):
        EvalConfig(out=out, store="postgresql://localhost/x", reuse_indexes=True)
