# bazarsim developer entry points. Every target creates .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test gate test-all run bench reports bias docs lint clean

# The venv's own pip (Python 3.11 ships 22.3 or newer; editable installs need 21.3). What
# it installs is byte-compiled once, on every core (pip does it on one): with
# PYTHONDONTWRITEBYTECODE set (as on CI) nothing else would, and every process of the tests
# would compile NumPy, pandas and Numba again (a CLI start took 3.8-4.1 s instead of 2.6 s).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test,lint]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null
	touch $(STAMP)

## test: what a newcomer runs: every test, with a sample of each full gate (minutes);
## the kernels compile first, one family per core, then the tests run on every core
test: $(STAMP)
	$(BIN)/bazarsim compile
	$(BIN)/python -m pytest -q -n auto

## gate: the full correctness gates only (brute force, all-off solves, colver, 100,000 hands,
## 10 M deals against the exact odds); CI runs `make test` then `make gate`
gate: $(STAMP)
	$(BIN)/python -m pytest -q -m gate

## test-all: both selections in one run
test-all: $(STAMP)
	$(BIN)/python -m pytest -q -m ''

## run: a real default job on the embedded engine
run: $(STAMP)
	$(BIN)/bazarsim compile
	$(BIN)/python -m bazarsim demo

## bench: speed benchmarks; writes reports/benchmarks.json and reports/benchmarks.md
bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

## reports: regenerate the tables under reports/, and the coach's pages: reports/demo.html
## from the `make run` datasets (running the demo first if they are missing), an example
## hand, threshold and convention study, each checked in headless Chromium with a screenshot
DEMO_RUN := runs/demo-7-3000000
DEMO_DD  := runs/demo-dd-7-20000
reports: $(STAMP)
	$(BIN)/python -m bazarsim odds --format md > reports/odds.md
	@echo "wrote reports/odds.md"
	test -f $(DEMO_DD)/_run.json -a -f $(DEMO_RUN)/_run.json || $(MAKE) run
	$(BIN)/bazarsim report $(DEMO_DD) --freq-from $(DEMO_RUN) --out reports/demo.html
	$(BIN)/bazarsim analyze AJ9.K7.Q.T8 --seat S --dealer E -n 1000 -q --html reports/hand.html > /dev/null
	$(BIN)/bazarsim study threshold $(DEMO_DD) --kinds H --level 9 --by points --within 'trumps=0..2,3,4..' --summary --html reports/threshold.html > /dev/null
	$(BIN)/bazarsim study convention $(DEMO_DD) --kinds H --level 9 --compare --html reports/convention.html > /dev/null
	for page in demo hand threshold convention; do \
	    $(BIN)/python -m bazarsim.report.browser reports/$$page.html --screenshot reports/$$page.png > /dev/null \
	    || exit 1; echo "checked reports/$$page.html in Chromium: reports/$$page.png"; done

## bias: the DD bias table of bazar (3,000 deals, every kind, DD and single dummy with four
## PIMC-20 players; about 25 minutes on 2 cores, resumable) into reports/bias-bazar.md/.json
BIAS_RUN := runs/bias-bazar-7-3000
BIAS_SIM := simulate -n 3000 --out $(BIAS_RUN) --dd --sd -w 20 -r bazar -s 7
bias: $(STAMP)
	$(BIN)/bazarsim compile
	$(BIN)/bazarsim $(BIAS_SIM)
	$(BIN)/bazarsim verify $(BIAS_RUN) --sample 8 -q
	$(BIN)/bazarsim table bias $(BIAS_RUN) -f json > reports/bias-bazar.json
	{ echo "# The DD bias table: bazar, double dummy against hidden-card play"; echo; \
	  echo "Made by \`make bias\`: \`bazarsim $(BIAS_SIM)\` then \`bazarsim table bias $(BIAS_RUN) -f md\`"; \
	  echo "(the same rows as JSON: reports/bias-bazar.json). Single dummy: four PIMC players, 20"; \
	  echo "worlds a decision, playing for points; rows are declaring sides (two a deal); intervals"; \
	  echo "are Wilson 95 %, ± figures paired standard errors. See docs/hidden-card-play.md."; echo; \
	  $(BIN)/bazarsim table bias $(BIAS_RUN) -f md; } > reports/bias-bazar.md
	@echo "wrote reports/bias-bazar.md and reports/bias-bazar.json"

## docs: the documentation site from docs/ (mkdocs, the docs extra), built with --strict into site/
docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	$(BIN)/mkdocs build --strict --quiet
	@echo "wrote site/index.html"

lint: $(STAMP)
	$(BIN)/ruff check bazarsim tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis site
