# Two entry points that work on a fresh machine with only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test quick bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# stamp files record which extras are installed, so a second `make` is instant
# the README's examples read DataFrames (pandas) and Parquet files (pyarrow) and draw figures
$(VENV)/.demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[plot,pandas,parquet]'
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# headless Chromium (Debian's package) for the documentation's screenshot test
$(VENV)/.chromium: scripts/install_chromium.sh | $(BIN)/python
	bash scripts/install_chromium.sh
	touch $@

$(VENV)/.docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

$(VENV)/.bench: pyproject.toml $(VENV)/.test
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

# adelie (a peer of the penalised benchmark) needs NumPy < 2: its own environment, which
# benchmarks/_adelie_worker.py runs in
.venv-adelie/bin/python:
	$(PYTHON) -m venv .venv-adelie
	.venv-adelie/bin/python -m pip install --quiet 'adelie>=1.1.52' scipy

# the comparison table, then a few figures in demo/
demo: $(VENV)/.demo
	$(BIN)/linclass compare --dataset breast_cancer
	mkdir -p demo
	$(BIN)/linclass plot --model fisher --dataset breast_cancer --kind fisher --out demo/fisher.png
	$(BIN)/linclass plot --model ovr-logistic --dataset iris --kind regions --features 2 3 --out demo/regions_one_vs_rest.png
	$(BIN)/linclass plot --model logistic --dataset iris --kind regions --features 2 3 --out demo/regions_softmax.png
	$(BIN)/linclass plot --model qda --dataset iris --kind contours --features 2 3 --out demo/gaussian_contours.png
	$(BIN)/linclass plot --model logistic --dataset breast_cancer --kind curve --out demo/training_curve.png

test: $(VENV)/.test $(VENV)/.chromium
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider

# the suite without the tests marked slow (subprocesses of the command, a Dask cluster, memory
# ceilings, the bit-flip sweep, the slowest property runs): for a quick check while working
quick: $(VENV)/.test
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider -m "not slow"

# the documentation site, offline, warnings as errors: docs/_build/html/index.html (the gallery's
# examples run during the build)
docs: $(VENV)/.docs
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html"

bench: $(VENV)/.bench .venv-adelie/bin/python
	$(BIN)/python benchmarks/bench_gaussian.py
	$(BIN)/python benchmarks/bench_loo_rda.py
	$(BIN)/python benchmarks/bench_naive_bayes.py
	$(BIN)/python benchmarks/bench_logistic.py
	$(BIN)/python benchmarks/bench_float32.py
	$(BIN)/python benchmarks/bench_penalised.py
	$(BIN)/python benchmarks/bench_penalty_columns.py
	$(BIN)/python benchmarks/bench_firth.py
	$(BIN)/python benchmarks/bench_perceptron.py
	$(BIN)/python benchmarks/bench_kernel_fisher.py
	$(BIN)/python benchmarks/bench_dask.py
	$(BIN)/python benchmarks/bench_dask_l1.py
	$(BIN)/python benchmarks/bench_out_of_core.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .hypothesis docs/_build docs/api/generated docs/auto_examples
