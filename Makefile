# The two commands of the README: `make run` and `make test`. Both set everything up first.
# The virtualenv's interpreter: Debian's own python3 where it is 3.11 or newer and can make a
# virtualenv, since every account can run it (make serve, started as root, runs the site as an
# account of its own); otherwise whatever python3 is first on PATH.
PYTHON ?= $(shell /usr/bin/python3 -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& echo /usr/bin/python3 || echo python3)
VENV := .venv
PY := $(VENV)/bin/python
# Reinstall when the pinned requirements change.
REQUIREMENTS_STAMP := $(VENV)/.requirements-$(shell cat requirements.txt requirements-dev.txt | sha1sum | cut -c1-12)
# Test-only Node packages (Handlebars.js, axe-core, pa11y, the Nu HTML Checker as oracles):
# reinstalled when the lock changes. No install scripts: they would download a browser and a
# Java runtime; the tests use Debian's (/usr/bin/chromium, java).
NODE_STAMP := node_modules/.installed-$(shell sha1sum package-lock.json | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000
# Test processes (pytest-xdist): one per core and two more, since many tests spend their time
# waiting on a server, a build or a browser (on 2 cores, four processes finished the suite 3-4 %
# sooner than three, in two runs back to back). Tests that share a per-process fixture are kept
# in one process (--dist loadgroup); the served bundled catalog is prepared once for all of them.
JOBS ?= $(shell echo $$(( $$(nproc) + 2 )))
PYTEST := $(PY) -m pytest -n $(JOBS) --dist loadgroup

.PHONY: install bytecode setup toolchain browser front run serve test check check-catalog bench clean

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is required ($(PYTHON) is $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# uv installs the pins (in seconds); pip, where uv cannot be had or cannot reach the index.
UV_PIN := $(shell grep -m1 '^uv==' requirements-dev.txt)

$(REQUIREMENTS_STAMP): requirements.txt requirements-dev.txt | $(PY)
	{ $(PY) -m pip install --quiet --disable-pip-version-check $(UV_PIN) && \
		$(VENV)/bin/uv pip install --quiet --python $(PY) -r requirements-dev.txt; } || \
		$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements-dev.txt
	# On every core (pip compiles on one); the packages' own test suites, never imported, are left out.
	$(PY) -m compileall -q -j0 -x '/site-packages/.+/tests/' $(VENV)/lib >/dev/null
	rm -f $(VENV)/.requirements-*
	touch $@

toolchain:
	scripts/system-packages.sh toolchain

$(NODE_STAMP): package.json package-lock.json
	scripts/system-packages.sh node
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

browser:
	scripts/system-packages.sh browser

front:
	scripts/system-packages.sh serve

install: $(REQUIREMENTS_STAMP) toolchain bytecode

# The site's own modules compiled once, and again only where a file changed: every command, worker
# and served site then reads them instead of compiling them anew (as it would, at a tenth of a
# second each, where Python is told not to write bytecode). The case template (startcase) and the
# Harbor payload are copied as files into what they make, so nothing is compiled beside them.
bytecode: | $(PY)
	$(PY) -m compileall -q -j0 -x '/(startcase|payload)/' catalog scoring engine lib api config web sitecache bench tests >/dev/null

setup: install
	$(PY) manage.py migrate --noinput

run: setup
	$(PY) manage.py import_catalog
	$(PY) manage.py score_examples
	$(PY) manage.py runserver $(HOST):$(PORT)

# Production-like: hashed and compressed static files, nginx in front of gunicorn (README
# "Deploying"). scripts/serve.sh migrates, imports and scores as the account the site runs as.
serve: install front
	HOST=$(HOST) PORT=$(PORT) scripts/serve.sh --catalog

test: setup browser front $(NODE_STAMP)
	$(PYTEST)

# Every bundled case proven in full (make test proves five: tests/bundled.py): check_case
# --strict on every version, the examples scored on a served site, every kit checked at home.
check-catalog: setup browser front $(NODE_STAMP)
	FUELBOARD_BUNDLED=all $(PYTEST) -m catalog

# The inner loop: everything but the real builds and the browser, on tables made from the
# models (make test runs the migrations) (README: "The fast loop").
check: setup $(NODE_STAMP)
	$(PYTEST) -m "not slow and not browser" --no-migrations

bench: setup front $(NODE_STAMP)
	scripts/system-packages.sh bench
	$(PY) bench/run.py --update-docs

clean:
	rm -rf $(VENV) .venv-harbor .venv-wasmtime-* var staticfiles node_modules .test-cache
	find . -path ./node_modules -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
