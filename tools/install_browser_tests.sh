#!/bin/sh
# Install what the browser tests (tests/test_e2e_*.py) need, without Make:
#   - Debian's chromium (the tests launch /usr/bin/chromium headless),
#   - the pinned Playwright Python package into the venv.
# Never run `playwright install`: it downloads its own browser, and the test machines have no
# internet beyond the package registries.
#   usage: sh tools/install_browser_tests.sh [PYTHON]   (default .venv/bin/python)
set -eu
PY="${1:-.venv/bin/python}"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
if [ ! -x /usr/bin/chromium ]; then
    $SUDO apt-get update
    $SUDO apt-get install -y chromium
fi
# optional: a CJK font so screenshots show Chinese text (the tests pass without it)
if ! fc-list 2>/dev/null | grep -qi -e "wenquanyi" -e "noto sans cjk"; then
    $SUDO apt-get install -y fonts-wqy-zenhei || echo "note: no CJK font installed; screenshots will show boxes"
fi
# the same pins as requirements-dev.txt once the lead adds them there
"$PY" -m pip install --quiet "playwright==1.65.2" "greenlet==3.5.6"
