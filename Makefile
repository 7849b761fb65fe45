# The two commands a newcomer needs: `make demo` runs the product, `make test` passes the tests.
# Both set up .venv/ themselves, with the exact versions of deploy/constraints.txt (the ones
# every kiosk and scorer runs). `make check` is the fast tier to run after every edit.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export PORT
# Tests compile each module once and keep it (a shell that says otherwise makes every run
# compile all of them again, seconds of each run's start).
unexport PYTHONDONTWRITEBYTECODE
STAMP := $(VENV)/.installed

.PHONY: demo test check lint bench clean os-packages image image-test screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c deploy/constraints.txt pip setuptools wheel

$(STAMP): pyproject.toml deploy/constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c deploy/constraints.txt -e '.[test]'
	touch $@

demo: $(STAMP)
	$(BIN)/kiosk demo --data $(or $(DEMO_DATA),.demo-data) $(if $(FRESH),--fresh) $(if $(SPEED),--speed $(SPEED))

os-packages:
	bash .ci/os-packages.sh

# ruff; mypy over the whole program, strict over the rules core, its errors and SQLite
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/mypy --strict kiosk/rules kiosk/errors.py kiosk/sqlite.py

# The fast tier, 30–45 s with lint on two cores: the rules, the session, the presenters, the
# store, the wire and the command line, all in this process (tests marked `unit`).
check: lint
	$(BIN)/python -m pytest -n 2 --dist worksteal -m unit -q

# Everything but the card image: windows under Xvfb, Chromium, processes and servers on loopback.
# Three workers on two cores: a third of the suite's time is waiting (a window's next frame,
# a child's start, a server's answer), and the third worker fills it (docs/benchmarks.md).
test: lint os-packages
	$(BIN)/python -m pytest -n 3 --dist worksteal

bench: $(STAMP)
	$(BIN)/python bench/bench_rules.py
	$(BIN)/python bench/bench_session.py
	$(BIN)/python bench/bench_hw.py
	$(BIN)/python bench/bench_scorer.py
	$(BIN)/python bench/bench_writer.py
	$(BIN)/python bench/bench_insert.py
	$(BIN)/python bench/bench_hall_feed.py
	$(BIN)/python bench/bench_hall_feed.py --phones
	$(BIN)/python bench/bench_hall_page.py
	$(BIN)/python bench/bench_pairing.py
	$(BIN)/python bench/bench_pairing_burst.py
	$(BIN)/python bench/bench_swiss_sides.py
	$(BIN)/python bench/bench_restart.py
	$(BIN)/python bench/bench_startup.py
	$(BIN)/python bench/bench_print.py
	xvfb-run -a -s "-screen 0 1920x1080x24" $(BIN)/python bench/bench_ui.py

# The table kiosk's card image (deploy/image/build-image.sh; root, qemu-user-static, the
# network to PyPI). BASE=FILE: the official Raspberry Pi OS Lite 64-bit image (.img.xz)
# customised (recommended); without it, the Debian fallback (debootstrap). UPDATE_KEY=FILE puts
# the fleet's public update key in it.
IMAGE_WORK ?= /var/tmp/kiosk-image
# The kiosk's screens in docs/screenshots/, taken again by the scripted match under Xvfb.
screenshots: $(STAMP) os-packages
	for set in zh-Hans:800x480 zh-Hant:800x480 en:800x480 zh-Hans-portrait:720x1280; do \
	  dir=docs/screenshots/$${set%%:*}; rm -rf $$dir; \
	  xvfb-run -a -s "-screen 0 1280x1280x24" $(BIN)/kiosk table --screenshots $$dir \
	    --lang $$(echo $${set%%:*} | sed 's/-portrait//') --size $${set##*:} || exit 1; \
	  rm -f $$dir/screens.json; \
	done

image:
	bash .ci/os-packages.sh image
	bash deploy/image/build-image.sh --work $(IMAGE_WORK) $(if $(BASE),--base $(BASE)) $(if $(UPDATE_KEY),--update-key $(UPDATE_KEY))

# Both builds a user runs, read back partition by partition (pytest -m image; not part of make
# test: root, loop devices, qemu, the network, and long). The base is a stand-in of the
# official image's shape, made by tests/pi_os_base.sh.
image-test: $(STAMP)
	bash .ci/os-packages.sh image
	KIOSK_IMAGE_TESTS=1 nice -n 19 $(BIN)/python -m pytest -m image -p no:cacheprovider -s tests/test_image.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
