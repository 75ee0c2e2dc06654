# Two commands for a new user: `make run` and `make test`. Everything else is set up on demand.
# The virtual environment grows in layers, each with its own stamp, rebuilt when its file changes:
#   serving   requirements.txt, requirements-nodeps.txt           make run        (350 MB)
#   training  requirements-train*.txt (torch, ultralytics, onnx)  make train-deps (~6 GB on x86_64)
#   dev       requirements-dev.txt (pytest, Playwright, peers)    make test, make bench
PY      ?= python3.11
VENV    := .venv
VPY     := $(VENV)/bin/python
HOST    ?= 127.0.0.1
PORT    ?= 8000
# On a Raspberry Pi with Debian's python3-picamera2 (the Camera Module's library, not on PyPI)
# the venv also sees the system's packages, so that CAMERA=picamera2 can import it.
VENV_OPTS ?= $(shell test -d /usr/lib/python3/dist-packages/picamera2 && echo --system-site-packages)
SERVE   := $(VENV)/.stamp-serve
TRAIN   := $(VENV)/.stamp-train
DEV     := $(VENV)/.stamp-dev

.PHONY: run test bench bench-app bench-peer bench-adapt bench-zoom bench-pi train train-fonts study-art serve-deps train-deps \
        dev-deps venv system-deps install-service uninstall-service backup clean

$(SERVE): requirements.txt requirements-nodeps.txt
	test -x $(VPY) || $(PY) -m venv $(VENV_OPTS) $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt
	$(VPY) -m pip install --quiet --no-deps -r requirements-nodeps.txt
	touch $@

$(TRAIN): $(SERVE) requirements-train.txt requirements-train-nodeps.txt
	$(VPY) -m pip install --quiet -r requirements-train.txt
	$(VPY) -m pip install --quiet --no-deps -r requirements-train-nodeps.txt
	touch $@

$(DEV): $(SERVE) requirements-dev.txt
	$(VPY) -m pip install --quiet -r requirements-dev.txt
	touch $@

serve-deps: $(SERVE)
train-deps: $(TRAIN)
dev-deps: $(DEV)
venv: $(SERVE) $(TRAIN) $(DEV)

# Debian packages the browser tests need: chromium (driven by Playwright) and a CJK font so pages
# render Chinese. Installed once; root or sudo is needed only the first time.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-deps:
	@test -x /usr/bin/chromium && fc-list 2>/dev/null | grep -qi wenquanyi || \
	  ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium fonts-wqy-zenhei)

# HOST=0.0.0.0 make run serves the whole LAN (prints the address and a QR code); PORT=8080 to move it.
run: serve-deps
	HOST=$(HOST) PORT=$(PORT) $(VPY) app.py

# TEST_WORKERS=0 runs the suite in this process (a debugger, or output in order)
TEST_WORKERS ?= 2
test: venv system-deps
	$(VPY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --doctest-modules tests engine

bench: dev-deps train-deps
	$(VPY) -m tests.bench
	$(VPY) -m training.bench_pi

bench-app: dev-deps
	$(VPY) -m tests.bench_app

bench-peer: dev-deps train-deps
	$(VPY) -m training.bench_peer

bench-adapt: train-deps train-fonts
	$(VPY) -m training.adapt_study

bench-zoom: train-deps
	$(VPY) -m training.bench_zoom

# Runtimes, threads and int8 on the same photos, and the Raspberry Pi figures computed from them.
bench-pi: dev-deps train-deps
	$(VPY) -m training.bench_pi

# CJK fonts (Debian packages) that training/procedural.py draws tile faces with: training/fonts.json.
TRAIN_FONTS = $(shell python3 -c "import json; print(' '.join(json.load(open('training/fonts.json'))['packages']))")
train-fonts:
	@test -f /usr/share/fonts/truetype/cwtex/cwfs.ttf && test -f /usr/share/fonts/truetype/arphic/ukai.ttc && \
	  test -f /usr/share/fonts/truetype/kouzan-mouhitsu/kouzan-mouhitsu.ttf || \
	  ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $(TRAIN_FONTS))

# Debian's xmahjongg (GPL-2+): its scan of a real set is a study set never trained on
# (python -m training.adapt_study --set xmahjongg-real, training/xmahjongg.py).
study-art:
	@test -f /usr/share/games/xmahjongg/tiles/real.gif || \
	  ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends xmahjongg)

train: train-deps train-fonts
	$(VPY) -m vision train

# The app as a systemd service that starts at boot and restarts when it stops (Raspberry Pi).
SERVICE      := table-companion
SERVICE_USER ?= $(shell id -un)
install-service: serve-deps
	sed -e 's|@ROOT@|$(CURDIR)|g' -e 's|@USER@|$(SERVICE_USER)|g' -e 's|@PORT@|$(PORT)|g' \
	  tools/pi/$(SERVICE).service > /tmp/$(SERVICE).service
	$(SUDO) install -m 644 /tmp/$(SERVICE).service /etc/systemd/system/$(SERVICE).service
	$(SUDO) systemctl daemon-reload
	$(SUDO) systemctl enable --now $(SERVICE)

uninstall-service:
	-$(SUDO) systemctl disable --now $(SERVICE)
	$(SUDO) rm -f /etc/systemd/system/$(SERVICE).service
	$(SUDO) systemctl daemon-reload

clean:
	rm -rf $(VENV)

# A consistent copy of the game records and photos while the app runs (backups/*.tar.gz).
backup: serve-deps
	$(VPY) tools/backup.py
