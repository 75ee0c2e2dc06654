"""adapt's steps: said in English on the terminal, and as coded JSON lines the app words in the
page's language (training/adapt_progress.py; no torch needed)."""
from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import training.adapt_progress as ap
import webapp.adapt
import webapp.wording
from webapp.wording import catalog

ROOT = Path(__file__).resolve().parent.parent
ADAPT_SOURCES = sorted((ROOT / "training").glob("adapt*.py"))


def test_the_doctests_hold():
    assert doctest.testmod(ap).failed == 0
    assert doctest.testmod(webapp.wording).failed == 0
    assert doctest.testmod(webapp.adapt).failed == 0


def codes_adapt_says() -> set[str]:
    """Every code the adapt modules word: steps, skip reasons, models and the judged-on phrases."""
    found = set()
    for path in ADAPT_SOURCES:
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r'\b(?:progress|skipped)\(\s*"([a-z][a-z0-9_]*)"', text))
        found |= {f"adapt_model_{m}" for m in re.findall(r'\bmodel\(\s*f?"([a-z_{}.]*)"', text) if "{" not in m}
        found |= set(re.findall(r'"code":\s*"([a-z][a-z0-9_]*)"', text))
        found |= set(re.findall(r'"(adapt_step_[a-z_]+)"', text))
    src = (ROOT / "training" / "adapt_progress.py").read_text(encoding="utf-8")
    found |= set(re.findall(r'"(adapt_[a-z_]+)"', src))
    from vision.group_readers import READERS
    found |= {f"adapt_model_{name}" for name in (*READERS, "flower_reader")}  # model(f"{kind.name}_reader")
    return found


def test_every_step_adapt_says_is_worded_in_both_languages():
    codes = codes_adapt_says()
    assert {"adapt_step_reading", "adapt_step_tuning", "adapt_skip_needs_photos", "adapt_model_verifier",
            "adapt_model_character_reader", "adapt_judged_on_held", "adapt_step_done"} <= codes
    for lang in ("en", "zh"):
        missing = sorted(c for c in codes if c not in catalog(lang))
        assert not missing, f"{lang}.json lacks {missing}"


def test_a_step_goes_to_the_terminal_and_to_the_apps_file(tmp_path, monkeypatch, capsys):
    steps = tmp_path / "steps.jsonl"
    monkeypatch.setenv(ap.STEPS_ENV, str(steps))
    ap.start()
    ap.progress("adapt_step_check", model=ap.model("classifier"), i=1, of=2)
    ap.verdict("detector", {"installed": False, **ap.skipped("adapt_skip_closeups", max=6, min=2)})
    ap.verdict("verifier", {"installed": True, "old_held": {"errors": 3}, "new_held": {"errors": 1}})
    ap.judged("suit_reader", False, {"score": 0.5}, {"score": 0.25}, False)
    lines = [x.split("] ", 1)[1] for x in capsys.readouterr().err.splitlines()]
    assert lines == ["tile reader: tuning without held photo 1 of 2, to check it",
                     "tile finder: left as it is: it reads photos of at most 6 tiles: 2 such photos or more are needed",
                     "tile check: errors on the held photos 3 -> 1: installing it",
                     "Dots and Bamboo reader: the photo's tiles, seen in other lights and angles read right with "
                     "0.500 -> 0.250 certainty: keeping the one you had"]
    written = [json.loads(x) for x in steps.read_text(encoding="utf-8").splitlines()]
    assert [w["code"] for w in written] == ["adapt_step_check", "adapt_step_skipped", "adapt_step_installed_errors",
                                            "adapt_step_judged_keep"]
    assert written[1]["params"]["why"]["code"] == "adapt_skip_closeups" and written[0]["at_s"] == 0
    assert webapp.wording.render(written[1]["code"], written[1]["params"], "zh") == \
        "找牌：不調整，它只讀最多 6 張牌的照片，這種照片至少要 2 張"


def test_without_the_apps_file_only_the_terminal_hears(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(ap.STEPS_ENV, raising=False)
    ap.progress("adapt_step_done")
    assert capsys.readouterr().err.endswith("] done\n") and not list(tmp_path.iterdir())
    monkeypatch.setenv(ap.STEPS_ENV, str(tmp_path / "no" / "such" / "folder" / "steps.jsonl"))
    ap.progress("adapt_step_done")  # a step the app cannot get never stops the run
    assert capsys.readouterr().err.endswith("] done\n")
