# Two commands for a new user: `make run` and `make test`. Everything else is set up on demand.
PY      ?= python3.11
VENV    := .venv
VPY     := $(VENV)/bin/python
HOST    ?= 127.0.0.1
PORT    ?= 8000

.PHONY: run test bench bench-app bench-peer bench-adapt bench-zoom train venv system-deps clean

# The stamp is rebuilt whenever a requirements file changes.
$(VENV)/.stamp: requirements.txt requirements-train.txt requirements-dev.txt
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt -r requirements-train.txt -r requirements-dev.txt
	touch $@

venv: $(VENV)/.stamp

# Debian packages the browser tests need: chromium (driven by Playwright) and a CJK font so pages
# render Chinese. Installed once; root or sudo is needed only the first time.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-deps:
	@test -x /usr/bin/chromium && fc-list 2>/dev/null | grep -qi wenquanyi || \
	  ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium fonts-wqy-zenhei)

# HOST=0.0.0.0 make run serves the whole LAN (prints the address and a QR code); PORT=8080 to move it.
run: venv
	HOST=$(HOST) PORT=$(PORT) $(VPY) app.py

test: venv system-deps
	$(VPY) -m pytest -q -p no:cacheprovider --doctest-modules tests engine

bench: venv
	$(VPY) -m tests.bench

bench-app: venv
	$(VPY) -m tests.bench_app

bench-peer: venv
	$(VPY) -m vision.bench_peer

bench-adapt: venv
	$(VPY) -m vision.adapt_study

bench-zoom: venv
	$(VPY) -m vision.bench_zoom

train: venv
	$(VPY) -m vision train

clean:
	rm -rf $(VENV)
