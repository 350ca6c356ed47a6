# Two entry points that work on a fresh machine with only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# stamp files record which extras are installed, so a second `make` is instant
$(VENV)/.demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.demo
	$(BIN)/python examples/demo.py

test: $(VENV)/.test
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider

bench: $(VENV)/.test
	$(BIN)/python benchmarks/bench_gaussian.py
	$(BIN)/python benchmarks/bench_naive_bayes.py
	$(BIN)/python benchmarks/bench_logistic.py
	$(BIN)/python benchmarks/bench_perceptron.py
	$(BIN)/python benchmarks/bench_kernel_fisher.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .hypothesis
