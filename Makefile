# bazarsim developer entry points. Every target creates .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test test-all run bench reports lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	touch $(STAMP)

## test: the default (fast) suite; slow cross-checks are marked and skipped here
test: $(STAMP)
	$(BIN)/python -m pytest -q

## test-all: every test, including the long statistical and exhaustive ones
test-all: $(STAMP)
	$(BIN)/python -m pytest -q -m ''

## run: a real default job on the embedded engine
run: $(STAMP)
	$(BIN)/python -m bazarsim demo

## bench: speed benchmarks; writes reports/benchmarks.json and reports/benchmarks.md
bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

## reports: regenerate the tables under reports/
reports: $(STAMP)
	$(BIN)/python -m bazarsim odds --format md > reports/odds.md
	@echo "wrote reports/odds.md"

lint: $(STAMP)
	$(BIN)/ruff check bazarsim tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
