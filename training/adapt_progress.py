"""What a running `python -m vision adapt` says as it goes. A run takes minutes, so each step is
said twice: a line on stderr for the terminal, in English, and a JSON line in the file that
$MAHJONG_ADAPT_STEPS names, `{"at_s", "code", "params"}`, which the app words in the page's
language. The wording of every step is webapp/messages/<lang>.json (codes adapt_step_*), so the
terminal and the page say the same.
"""
from __future__ import annotations

import json
import os
import sys
import time

from webapp.wording import render

STEPS_ENV = "MAHJONG_ADAPT_STEPS"
PROGRESS_PARTS = 10  # a tuning's steps say how far it is this often: one takes a minute or more
_STARTED = [time.monotonic()]  # when this run began: each step says how long it has run


def start() -> None:
    _STARTED[0] = time.monotonic()


def model(name: str) -> dict:
    """A model named in a step, worded by its own code (adapt_model_<name>)."""
    return {"code": f"adapt_model_{name}"}


def progress(code: str, **params) -> None:
    """Say one step: `code` is its message code, `params` fill it (a param {"code": ...} is worded
    by its own code, as a model's name is)."""
    secs = int(time.monotonic() - _STARTED[0])
    print(f"[adapt {secs // 60}:{secs % 60:02d}] {render(code, params, 'en')}", file=sys.stderr, flush=True)
    path = os.environ.get(STEPS_ENV)
    if path:
        try:
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"at_s": secs, "code": code, "params": params}, ensure_ascii=False) + "\n")
        except OSError:  # the page's copy of a step is worth less than the run
            pass


def tuning_progress(step: int, total: int) -> None:
    """At every PROGRESS_PARTS-th of a tuning's steps, say how far it is (the classifier's and the
    readers' tunings alike).

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     for step in range(20):
    ...         tuning_progress(step, 20)
    >>> [line.split("] ")[1] for line in err.getvalue().splitlines()][:2]
    ['  10% of this tuning', '  20% of this tuning']
    """
    if step and step % max(1, total // PROGRESS_PARTS) == 0:
        progress("adapt_step_tuning", percent=100 * step // total)


def verdict(name: str, report: dict) -> None:
    """Say what became of one model: installed, kept, or left as it is and why (a report's
    `skipped_code` and `skipped_params`, else its English `skipped` as it is)."""
    if report.get("skipped"):
        why = {"code": report.get("skipped_code", "adapt_skip_other"),
               "params": report.get("skipped_params", {"reason": report["skipped"]})}
        progress("adapt_step_skipped", model=model(name), why=why)
    elif "old_held" in report:  # the detectors and the tile check: errors on the held photos
        progress("adapt_step_installed_errors" if report["installed"] else "adapt_step_kept_errors",
                 model=model(name), before=report["old_held"]["errors"], after=report["new_held"]["errors"])
    else:
        progress("adapt_step_installed" if report.get("installed") else "adapt_step_kept", model=model(name))


def skipped(code: str, **params) -> dict:
    """A model left as it is, for its report: the reason in English and as a code for the page.

    >>> skipped("adapt_skip_needs_photos", min=2)["skipped"]
    'a new model is checked on a held photo: it needs 2 photos or more'
    """
    return {"skipped": render(code, params, "en"), "skipped_code": code, "skipped_params": params}


def judged(name: str, by_photo: bool, before: dict, after: dict, installed: bool) -> None:
    """Say how the tuned model read what it was judged on (held photos, or with one photo its own
    tiles in other looks), and whether it is installed: the mean probability of the right tile."""
    progress("adapt_step_judged_install" if installed else "adapt_step_judged_keep", model=model(name),
             on={"code": "adapt_judged_on_held" if by_photo else "adapt_judged_on_looks"},
             before=f"{before['score']:.3f}", after=f"{after['score']:.3f}")
