"""Fine-tuning the classifier on the saved examples: one background `python -m vision adapt` at a time.

The job's output goes to <data>/adapt.log, and its steps, each a JSON line {at_s, code, params}
worded by webapp/messages, to <data>/adapt-steps.jsonl (training/adapt_progress.py writes them
where $MAHJONG_ADAPT_STEPS says): the page shows the steps in its own language and keeps the log
for what went wrong. Its state lives in this process only (a restart shows "idle" and the log of
the last run).
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from .errors import ApiError

LOG_TAIL = 4000
MAX_STEPS = 200  # a run says about 30 steps besides its tunings' progress
TUNING_STEP = "adapt_step_tuning"  # "n% of this tuning", said ten times a tuning: only the latest is listed
# a model's verdict step (training/adapt_progress.py): installed or not
INSTALLED_STEPS = ("adapt_step_judged_install", "adapt_step_installed", "adapt_step_installed_errors")


def installed_models(steps: list[dict]) -> list[dict]:
    """The models a run installed, in order, as their {"code"} (adapt_model_*), from its steps.

    >>> installed_models([{"code": "adapt_step_judged_install", "params": {"model": {"code": "adapt_model_classifier"}}},
    ...                   {"code": "adapt_step_kept", "params": {"model": {"code": "adapt_model_detector"}}}])
    [{'code': 'adapt_model_classifier'}]
    """
    out = []
    for step in steps:
        model = step["params"].get("model")
        if step["code"] in INSTALLED_STEPS and isinstance(model, dict) and isinstance(model.get("code"), str):
            out.append({"code": model["code"]})
    return out


STEPS_ENV = "MAHJONG_ADAPT_STEPS"  # read by training/adapt_progress.py (training code: not imported here)
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


def calibration_command(photo: Path, models_dir: Path) -> list[str]:
    """The same CLI from one calibration photo (--calibration)."""
    return [sys.executable, "-m", "vision", "adapt", "--calibration", str(photo), "--models", str(models_dir)]


SOURCES = ("folder", "calibration")  # what a run adapts from: the corrected photos, or the calibration photo


class AdaptJob:
    def __init__(self, log_path: Path, command: list[str], *, calibration: list[str],
                 missing=missing_training_packages):
        self.log_path = Path(log_path)
        self.steps_path = self.log_path.with_name("adapt-steps.jsonl")
        self.commands = {"folder": command, "calibration": calibration}
        self.source: str | None = None  # what the last run adapted from (SOURCES)
        self.missing = missing  # () -> names of the training packages not installed
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._started = 0.0  # time.monotonic() at the last start: the page shows how long it has run
        self._stopped = False  # the player stopped the last run: it neither finished nor failed

    def status(self) -> str:
        """idle, running, done, failed, or stopped (by the player, with stop())."""
        with self._lock:
            if self._process is None:
                return "idle"
            code = self._process.poll()
            if code is not None and self._stopped:
                return "stopped"
        return "running" if code is None else ("done" if code == 0 else "failed")

    def stop(self) -> bool:
        """Stop the running job (the player pressed stop); False when none runs. Each model file
        adapt installs is put in place whole (training/model_files.py), so those it had finished
        stay installed and the others as they were."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                return False
            self._stopped = True
            self._process.terminate()
            process = self._process
        process.wait(30)
        return True

    def killed(self) -> bool:
        """Whether the last job ended by a signal from elsewhere (a shutdown, out of memory), not by
        an error of its own nor by the player's stop: its log then ends mid-step, with no reason."""
        with self._lock:
            code = self._process.poll() if self._process is not None else None
            return code is not None and code < 0 and not self._stopped

    def steps(self) -> list[dict]:
        """The last run's steps so far: {at_s, code, params} each, a tuning's progress only where it
        is the run's latest step, the last MAX_STEPS. A line that is no step (a run killed
        mid-write) is skipped and never hides the others."""
        try:
            lines = self.steps_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                step = json.loads(line)
            except ValueError:
                continue
            if (isinstance(step, dict) and isinstance(step.get("code"), str)
                    and isinstance(step.get("params", {}), dict) and isinstance(step.get("at_s", 0), (int, float))):
                out.append({"at_s": step.get("at_s", 0), "code": step["code"], "params": step.get("params", {})})
        return [s for i, s in enumerate(out) if s["code"] != TUNING_STEP or i == len(out) - 1][-MAX_STEPS:]

    def elapsed(self) -> float | None:
        """Seconds since the running job started; None when none runs."""
        return time.monotonic() - self._started if self.status() == "running" else None

    def start(self, source: str = "folder") -> None:
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
            self.steps_path.write_bytes(b"")  # the last run's steps go with its log
            with open(self.log_path, "wb") as log:
                # the child keeps its own copy of the log descriptor; ours can close
                # unbuffered: the page shows the log's tail while adapt runs, not only once it ends
                env = {**os.environ, "PYTHONUNBUFFERED": "1", STEPS_ENV: str(self.steps_path)}
                self._process = subprocess.Popen(self.commands[source], cwd=ROOT, stdout=log,
                                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
                self._started = time.monotonic()
                self._stopped = False
                self.source = source

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
