# bazarsim developer entry points. Every target creates .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test gate test-all run bench mutants reports bias match-study models docs lint clean

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

## mutants: mutation testing of the functions that compute printed numbers (mutmut, outside
## CI; the first full run took 70 minutes on 2 cores: reports/mutants-notes.md) into
## reports/mutants.md and .json; fails below a 95 % kill rate of the non-equivalent mutants
## (benchmarks/mutants.py)
mutants: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[mutation]'
	$(BIN)/python -m benchmarks.mutants

## reports: regenerate the tables under reports/, and the coach's pages: reports/demo.html
## from the `make run` datasets (running the demo first if they are missing), an example
## hand, threshold and convention study, each checked in headless Chromium with a screenshot;
## and the web app's three screens, asked real questions, into docs/images/app-*.png
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
	$(BIN)/python -m benchmarks.app_screens --out docs/images

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

## match-study: careful against bold in whole duplicate matches: bazar to 301, bazar-blot to
## 301 and to 1001 (40,000 solved deals each; about 20 minutes on 2 cores, resumable) into
## reports/match-study.md, with the equity tables and break-even thresholds (JSON beside it)
STUDY_BAZAR := --dataset runs/match-bazar-7-40000 -m 10000
STUDY_BLOT := --dataset runs/match-bazar-blot-7-40000 -m 10000 --to 301
STUDY_1001 := --dataset runs/match-bazar-blot-7-40000 -m 4000 --to 1001 -o scoring.targets=101,151,201,301,1001
define STUDY_SECTION
echo; echo "## $(1)"; echo; echo "\`bazarsim match careful bold $(2)\`"; echo; \
$(BIN)/bazarsim match careful bold $(2) -q -f md | sed 's/^### /#### /' || exit 1; echo; \
echo "\`bazarsim equity --from careful --against bold $(2) --step $(3)\`"; echo; \
$(BIN)/bazarsim equity --from careful --against bold $(2) --step $(3) -q -f md \
  | sed 's/^### /#### /' || exit 1;
endef
define STUDY_DERIVED
echo; echo "## Score rules read off the equity: careful-equity against careful, $(1)"; echo; \
echo "\`bazarsim equity --from careful --against bold $(2) --policy-out reports/careful-equity-$(1).toml\`"; \
$(BIN)/bazarsim equity --from careful --against bold $(2) -q -f json \
  --policy-out reports/careful-equity-$(1).toml > /dev/null || exit 1; \
echo; echo '```toml'; cat reports/careful-equity-$(1).toml; echo '```'; echo; \
echo "\`bazarsim match reports/careful-equity-$(1).toml careful $(2)\`"; echo; \
$(BIN)/bazarsim match reports/careful-equity-$(1).toml careful $(2) -q -f md \
  | sed 's/^### /#### /' || exit 1;
endef
define STUDY_MODEL
echo; echo "## The hand model, $(1): calibration on held-out deals"; echo; \
echo "\`bazarsim fit runs/match-$(1)-7-40000 --out runs/model-$(1)-7-40000.json\`"; echo; \
$(BIN)/bazarsim fit runs/match-$(1)-7-40000 --out runs/model-$(1)-7-40000.json -f md \
  | sed 's/^### /#### /' || exit 1;
endef
define STUDY_JSON
echo "{\"study\": \"$(1)\", \"match\": "; $(BIN)/bazarsim match careful bold $(2) -q -f json; \
echo ", \"equity\": "; $(BIN)/bazarsim equity --from careful --against bold $(2) -q -f json; echo "}";
endef
match-study: $(STAMP)
	$(BIN)/bazarsim compile
	for r in bazar bazar-blot; do \
	  $(BIN)/bazarsim simulate -n 40000 --out runs/match-$$r-7-40000 -r $$r --dd --columns lean -q \
	  || exit 1; done
	{ echo "# Careful against bold: whole matches to 301 and 1001"; echo; \
	  echo "Made by \`make match-study\`: every table is the output of the command above it (JSON:"; \
	  echo "reports/match-study.json; the page of the first: reports/match-study.html). Policies:"; \
	  echo "bazarsim/matches/policies/careful.toml and bold.toml; hand model fitted on each dataset"; \
	  echo "(bazarsim fit); deal results double dummy. bazar-blot's rules allow targets 101 to 301:"; \
	  echo "the match to 1001 widens them with -o scoring.targets."; \
	  $(call STUDY_MODEL,bazar) \
	  $(call STUDY_MODEL,bazar-blot) \
	  $(call STUDY_SECTION,bazar to 301,$(STUDY_BAZAR),10) \
	  $(call STUDY_SECTION,bazar-blot to 301,$(STUDY_BLOT),10) \
	  $(call STUDY_SECTION,bazar-blot to 1001,$(STUDY_1001),50) \
	  $(call STUDY_DERIVED,bazar,$(STUDY_BAZAR)) \
	  $(call STUDY_DERIVED,bazar-blot,$(STUDY_BLOT)) \
	} > reports/match-study.md
	{ echo "["; $(call STUDY_JSON,bazar to 301,$(STUDY_BAZAR)) echo ","; \
	  $(call STUDY_JSON,bazar-blot to 301,$(STUDY_BLOT)) echo ","; \
	  $(call STUDY_JSON,bazar-blot to 1001,$(STUDY_1001)) echo "]"; } > reports/match-study.json
	$(BIN)/bazarsim report runs/match-careful-bold-match-bazar-7-40000-dd-301-7 --out reports/match-study.html
	$(BIN)/python -m bazarsim.report.browser reports/match-study.html \
	  --screenshot reports/match-study.png > /dev/null
	@echo "wrote reports/match-study.md, .json, .html and .png"

## models: the hand models shipped for bazarsim infer and the players that listen (bazar,
## bazar-blot), fitted on the match study's solved datasets (40,000 deals each, seed 7)
models: $(STAMP)
	$(BIN)/bazarsim compile
	for r in bazar bazar-blot; do \
	  $(BIN)/bazarsim simulate -n 40000 --out runs/match-$$r-7-40000 -r $$r --dd --columns lean -q \
	  || exit 1; \
	  $(BIN)/bazarsim fit runs/match-$$r-7-40000 --out runs/model-$$r-7-40000.json > /dev/null \
	  || exit 1; \
	  gzip -9 -n -c runs/model-$$r-7-40000.json > bazarsim/beliefs/models/$$r.json.gz; done
	@echo "wrote bazarsim/beliefs/models/bazar.json.gz and bazar-blot.json.gz"

## docs: the documentation site from docs/ (mkdocs, the docs extra), built with --strict into site/
docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	$(BIN)/mkdocs build --strict --quiet
	@echo "wrote site/index.html"

lint: $(STAMP)
	$(BIN)/ruff check bazarsim tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis site mutants
