# The two commands a newcomer needs: `make demo` runs the product, `make test` passes the tests.
# Both set up .venv/ themselves.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean os-packages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(STAMP)
	$(BIN)/kiosk rules list
	$(BIN)/kiosk rules show xiamen-2015
	$(BIN)/kiosk replay examples/xiamen-2015-example.json
	$(BIN)/kiosk replay examples/xiamen-2015-example.json --format sheet
	rm -rf .demo-data
	$(BIN)/kiosk simulate --data .demo-data --table 1 --ruleset chaodipi-2011 --speed 1e9
	$(BIN)/kiosk journal show --data .demo-data --table 1 | tail -n 30
	$(BIN)/kiosk hw check
	$(BIN)/kiosk slip --data .demo-data --table 1 --width 58

os-packages:
	bash .ci/os-packages.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict kiosk/rules

test: lint os-packages
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/bench_rules.py
	$(BIN)/python bench/bench_session.py
	$(BIN)/python bench/bench_hw.py
	xvfb-run -a -s "-screen 0 1920x1080x24" $(BIN)/python bench/bench_ui.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
