"""The engine's JSON API (score, waits, advise, rules), health and the table PIN."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, session

from engine.service import advise_json, rules_json, score_json, waits_json

from . import VERSION
from .errors import localize_reason
from .games import rule_table
from .inputs import json_body
from .security import lock, pin_ok, unlock
from .services import services

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/health")
def health():
    return jsonify({"ok": True, "model": services().recognizer.available(), "version": VERSION})


@bp.get("/rules")
def rules():
    return jsonify(rules_json())


def _hand() -> dict:
    """The engine's hand JSON; `rules` may only name a shipped table (no paths from a phone)."""
    data = json_body()
    if "rules" in data:
        rule_table(data["rules"])
    return data


@bp.post("/score")
def score():
    return jsonify(localize_reason(score_json(_hand())))


@bp.post("/waits")
def waits():
    return jsonify(waits_json(_hand()))


@bp.post("/advise")
def advise():
    return jsonify(advise_json(_hand()))


@bp.get("/pin")
def pin_status():
    return jsonify({"required": bool(current_app.config.get("TABLE_PIN")), "ok": pin_ok()})


@bp.post("/pin")
def pin_unlock():
    unlock(json_body().get("pin"))
    return jsonify({"required": bool(current_app.config.get("TABLE_PIN")), "ok": True})


@bp.delete("/pin")
def pin_lock():
    lock()
    return jsonify({"required": bool(current_app.config.get("TABLE_PIN")), "ok": pin_ok()})
