# Two commands for a new user: `make run` and `make test`. Everything else is set up on demand.
PY      ?= python3.11
VENV    := .venv
VPY     := $(VENV)/bin/python
HOST    ?= 127.0.0.1
PORT    ?= 8000

.PHONY: run test bench bench-peer train venv clean

# The stamp is rebuilt whenever a requirements file changes.
$(VENV)/.stamp: requirements.txt requirements-train.txt requirements-dev.txt
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt -r requirements-train.txt -r requirements-dev.txt
	touch $@

venv: $(VENV)/.stamp

# HOST=0.0.0.0 make run serves the whole LAN (prints the address and a QR code); PORT=8080 to move it.
run: venv
	HOST=$(HOST) PORT=$(PORT) $(VPY) app.py

test: venv
	$(VPY) -m pytest -q -p no:cacheprovider --doctest-modules tests engine

bench: venv
	$(VPY) -m tests.bench

bench-peer: venv
	$(VPY) -m vision.bench_peer

train: venv
	$(VPY) -m vision train

clean:
	rm -rf $(VENV)
