"""Fine-tuning the classifier on the saved examples: one background `python -m vision adapt` at a time.

The job's output goes to <data>/adapt.log; its state lives in this process only (a restart
shows "idle" and the log of the last run).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from .errors import ApiError

LOG_TAIL = 4000
ROOT = Path(__file__).resolve().parent.parent
# Serving installs none of these (requirements.txt); adapting needs them (requirements-train*.txt).
TRAINING_PACKAGES = ("torch", "torchvision", "ultralytics", "onnx")
INSTALL_COMMAND = "make train-deps"


def missing_training_packages() -> list[str]:
    """The training packages this Python lacks, found without importing them (the server never
    loads torch). Caches are dropped first so that a `make train-deps` run while the app is up
    counts at the next press, with no restart."""
    importlib.invalidate_caches()
    return [name for name in TRAINING_PACKAGES if not _installed(name)]


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a half-removed package counts as missing
        return False


def adapt_command(examples_dir: Path, models_dir: Path) -> list[str]:
    """vision/adapt.py's CLI: --folder (a YOLO folder of corrected photos) and --models."""
    return [sys.executable, "-m", "vision", "adapt", "--folder", str(examples_dir), "--models", str(models_dir)]


class AdaptJob:
    def __init__(self, log_path: Path, command: list[str], missing=missing_training_packages):
        self.log_path = Path(log_path)
        self.command = command
        self.missing = missing  # () -> names of the training packages not installed
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._started = 0.0  # time.monotonic() at the last start: the page shows how long it has run

    def status(self) -> str:
        with self._lock:
            if self._process is None:
                return "idle"
            code = self._process.poll()
        return "running" if code is None else ("done" if code == 0 else "failed")

    def stop(self) -> bool:
        """Stop the running job (the player pressed stop); False when none runs. Each model file
        adapt installs is put in place whole (training/model_files.py), so those it had finished
        stay installed and the others as they were."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                return False
            self._process.terminate()
            process = self._process
        process.wait(30)
        return True

    def killed(self) -> bool:
        """Whether the last job ended by a signal (stopped from outside, or out of memory), not by
        an error of its own: its log then ends mid-step, with no reason of its own."""
        with self._lock:
            code = self._process.poll() if self._process is not None else None
        return code is not None and code < 0

    def elapsed(self) -> float | None:
        """Seconds since the running job started; None when none runs."""
        return time.monotonic() - self._started if self.status() == "running" else None

    def start(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                raise ApiError(409, "adaptation is already running", code="adapt_running")
            missing = self.missing()
            if missing:
                raise ApiError(503, f"adapting the models needs the training packages ({', '.join(missing)}), "
                                    f"which this install leaves out; run `{INSTALL_COMMAND}` in the app's "
                                    "folder, then press again", code="adapt_needs_training",
                               missing=", ".join(missing), command=INSTALL_COMMAND)
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "wb") as log:
                # the child keeps its own copy of the log descriptor; ours can close
                # unbuffered: the page shows the log's tail while adapt runs, not only once it ends
                self._process = subprocess.Popen(self.command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                                 stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
                self._started = time.monotonic()

    def log_tail(self) -> str:
        if not self.log_path.is_file():
            return ""
        with open(self.log_path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - LOG_TAIL))
            return f.read().decode("utf-8", "replace")

    def wait(self, timeout: float | None = None) -> None:
        """For tests and shutdown: wait for a running job to end."""
        process = self._process
        if process is not None:
            process.wait(timeout)
