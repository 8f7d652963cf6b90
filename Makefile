# One entry point for every job; CI runs `make test` (via .ci/run).
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# torch is pinned and installed first: any looser spec pulls a multi-GB CUDA build.
TORCH   := torch==2.13.0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup demo test test-fast lint bench bench-pg eval clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --out reports/bench.json

# PostgreSQL scale-out: eval parity on rustbook (SQLite vs PG exact vs PG HNSW), then the
# dense benchmark (SQLite numpy scan vs pgvector HNSW). BENCH_N=1000000 for the full run.
BENCH_N ?= 100000
bench-pg: $(STAMP)
	$(BIN)/python benchmarks/pg_parity.py --out reports/pg_parity.json
	$(BIN)/python benchmarks/pg_bench.py --n $(BENCH_N) --out reports/pg_bench_$(BENCH_N).json

eval: $(STAMP)
	$(BIN)/citeline eval eval/rustbook --out reports/eval

clean:
	rm -rf $(VENV) .demo-index reports .pytest_cache
