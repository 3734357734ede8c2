# ContextLens — `make run` serves the app, `make test` runs every test; both set up .venv first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CORPUS := data/corpus

PEERS_VENV  := .venv-peers
PEERS_PY    := $(PEERS_VENV)/bin/python
PEERS_STAMP := $(PEERS_VENV)/.installed

.PHONY: help venv index reindex run test test-fast bench bench-onnx bench-peers lint

help:
	@echo "make run        set up .venv, index $(CORPUS) if the store is empty, start the Streamlit app"
	@echo "make test       set up .venv, run every test (slow server/browser tests included; TEST_WORKERS=2)"
	@echo "make test-fast  the tests not marked slow"
	@echo "make index      ingest $(CORPUS) if the store is empty;  make reindex  sync it always"
	@echo "make bench      ingest, budget, query and recall benches with --json (measured ratios)"
	@echo "make bench-onnx the optional ONNX Runtime embedder against torch"
	@echo "make bench-peers ContextLens against LlamaIndex (its packages go into .venv-peers only)"
	@echo "make lint       ruff, when it is installed in .venv"

venv: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# re-install only when requirements.txt or pyproject.toml is newer than the last successful install;
# the project itself installs editable (the pinned dependencies come from requirements.txt)
$(STAMP): requirements.txt pyproject.toml | $(PY)
	$(PY) -m pip install -r requirements.txt
	$(PY) -m pip install --no-deps -e .
	@touch $(STAMP)

# "empty" is asked of the configured store itself (embedded or a Chroma server); if the
# question cannot be answered, ingest runs and reports the problem in one line
index: venv
	@if $(PY) -c "import sys; from core.config import load_settings; from core.index import Index; sys.exit(0 if Index(load_settings()).count() > 0 else 1)" 2>/dev/null; then \
		echo "index: the store already holds chunks (make reindex syncs changes in $(CORPUS))"; \
	else \
		$(PY) -m ingest $(CORPUS); \
	fi

# an unchanged corpus costs no embeddings, so this is cheap to run at any time
reindex: venv
	$(PY) -m ingest $(CORPUS)

run: venv index
	$(PY) -m streamlit run ui/app.py --server.headless true --browser.gatherUsageStats false

# two worker processes (pytest-xdist): the slow tests mostly wait on subprocesses (CLIs, servers,
# the browser), so two workers take about 0.6x the wall time of one even on two cores
TEST_WORKERS ?= 2
test: venv
	$(PY) -m pytest -q -n $(TEST_WORKERS)

test-fast: venv
	$(PY) -m pytest -q -n $(TEST_WORKERS) -m "not slow"

# the benchmarks print measured ratios (not pass/fail); --keep reuses the 100k store between runs
BENCH_DIR ?= /tmp/contextlens-bench
bench: venv
	$(PY) -m bench.ingest --json
	$(PY) -m bench.budget --questions 20 --json
	$(PY) -m bench.query --sizes 1000,10000,100000 --questions 30 --server-size 10000 --breakdown 20 --keep $(BENCH_DIR)/query --json
	$(PY) -m bench.recall --keep $(BENCH_DIR)/recall --json

# the optional ONNX Runtime embedder against torch (throughput, latency, recall@5)
bench-onnx: venv
	$(PY) -m bench.embedders --json

# the framework peer (LlamaIndex) lives in its own venv: make run and make test never install it
$(PEERS_STAMP): requirements.txt bench/requirements-peers.txt pyproject.toml
	$(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install -r requirements.txt -r bench/requirements-peers.txt
	$(PEERS_PY) -m pip install --no-deps -e .
	@touch $(PEERS_STAMP)

bench-peers: $(PEERS_STAMP)
	$(PEERS_PY) -m bench.peers --json

lint: venv
	@if $(PY) -m ruff --version >/dev/null 2>&1; then \
		$(PY) -m ruff check . && $(PY) -m ruff format --check .; \
	else \
		echo "lint: ruff is not installed in $(VENV); skipped"; \
	fi
