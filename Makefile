# Two commands do all the set-up on a fresh machine:  `make train`  and  `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch; on a GPU machine use `make install TORCH=torch` (PyPI's Linux wheel is CUDA-enabled).
TORCH ?= torch==2.13.0
ARGS ?=

.PHONY: install test lint train

$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[test]"
	touch $@

install: $(VENV)/.installed

lint: install
	$(BIN)/ruff check nmt_sparql tests scripts benchmarks
	$(BIN)/ruff format --check nmt_sparql tests scripts benchmarks

test: lint
	$(BIN)/pytest

train: install
	$(BIN)/nmt-sparql train $(ARGS)
