"""The wording of every coded message: webapp/messages/<lang>.json, filled with its params.

Kept apart from errors.py (Flask) so that the command line can word the same codes: `python -m
vision adapt` says its steps in English from the same catalog the app words them from.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

MESSAGES_DIR = Path(__file__).resolve().parent / "messages"
LANGS = ("en", "zh")
DEFAULT_LANG = "en"
PLURAL_PARAM = "n"  # a template with forms ({"one": ..., "other": ...}) picks one by this param


@lru_cache(maxsize=None)
def catalog(lang: str) -> dict:
    """code -> template (a string, or its forms by count) for one language."""
    return json.loads((MESSAGES_DIR / f"{lang}.json").read_text(encoding="utf-8"))


def form(template, params: dict):
    """The template itself, or the form its count asks for: "one" where `n` is 1, else "other"
    (English; Chinese has no plural forms and writes plain strings).

    >>> form({"one": "{n} tile", "other": "{n} tiles"}, {"n": 1}), form({"one": "a", "other": "b"}, {"n": 3})
    ('{n} tile', 'b')
    """
    if isinstance(template, dict):
        return template["one"] if params.get(PLURAL_PARAM) == 1 and "one" in template else template["other"]
    return template


def render(code: str, params: dict, lang: str, fallback: str | None = None) -> str:
    """The message for `code` in `lang`: its template filled with params (nested errors rendered).

    >>> render("adapt_step_reading", {"n": 1}, "en")
    'reading 1 corrected photo'
    """
    params = params or {}
    template = catalog(lang).get(code)
    if template is None:
        template = catalog(DEFAULT_LANG).get(code)
    if template is None:
        return fallback if fallback is not None else code
    values = {}
    for key, value in params.items():
        if isinstance(value, dict) and "code" in value:
            value = render(value["code"], value.get("params", {}), lang, value.get("message"))
        values[key] = value
    # the same filling as static/js/i18n.js: {name} is a param, anything else stays as written
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]) if m[1] in values else m[0], form(template, params))
