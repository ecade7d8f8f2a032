# Two commands do all the set-up on a fresh machine:
#   make demo   — install into .venv and audit the bundled example, offline
#   make test   — install with the dev extras and run every quality gate and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck unit docs bench fuzz clean postgres-tools browser-tools

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# PyTorch first, pinned, so the nli extra's range is already met: where a CPU wheel of this
# release is at hand pip takes it instead of a multi-gigabyte CUDA build.
TORCH ?= torch==2.13.0

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet '$(TORCH)'
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP)

demo: $(STAMP)
	cd examples/seed000 && ../../$(BIN)/citeaudit check claims.json --offline --out report.json; \
	code=$$?; echo "exit=$$code (1 = citation errors found, as the example intends)"; \
	test $$code -eq 1

lint: $(DEV_STAMP)
	$(BIN)/ruff format --check src tests bench docs/hooks
	$(BIN)/ruff check src tests bench docs/hooks
	$(BIN)/lint-imports --no-logo

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# The store tests start a throwaway PostgreSQL cluster; its binaries come from Debian.
postgres-tools:
	@if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; fi

# The HTML report is tested in Debian's headless chromium (Playwright drives it; it downloads nothing).
browser-tools:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi

unit: $(DEV_STAMP) postgres-tools browser-tools
	$(BIN)/python -m pytest -n 2 -q

# The documentation site, built strictly (a warning, a broken link or a missing page fails) and
# offline (no plugin fetches anything) into site/; the reference pages are generated from the code.
# Not --quiet: MkDocs 1.6 then drops the warnings before --strict counts them.
docs: $(DEV_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

test: lint typecheck unit docs

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(BIN)/python -m bench.run_all

# The fuzzers at scale: 10,000 inputs of each kind (claims, BibTeX, Markdown, each dump format, work
# citations with a mirror), the same inputs on every machine, recorded in bench/RESULTS.md.
fuzz: $(DEV_STAMP)
	$(BIN)/python -m bench.fuzz --record

clean:
	rm -rf $(VENV) site .schemathesis .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
