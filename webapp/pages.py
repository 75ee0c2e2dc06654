"""The HTML pages. Templates come from the front-end; every user value reaches them as data
and is escaped by Jinja's autoescape."""
from __future__ import annotations

from flask import Blueprint, current_app, render_template
from jinja2 import TemplateNotFound

from . import VERSION, storage
from .games_api import checked_id
from .services import db

bp = Blueprint("pages", __name__)


def _page(template: str, **context):
    try:
        return render_template(template, version=VERSION,
                               pin_required=bool(current_app.config.get("TABLE_PIN")), **context)
    except TemplateNotFound:
        # the front-end ships the templates; a checkout without them still serves the API
        return f"The page {template} is not installed yet; the JSON API is at /api/health.", 503, \
            {"Content-Type": "text/plain; charset=utf-8"}


@bp.get("/")
def index():
    return _page("index.html")


@bp.get("/live")
def live():
    return _page("live.html")


@bp.get("/games")
def games():
    return _page("games.html")


@bp.get("/games/<game_id>")
def game(game_id):
    record = storage.get_game(db(), checked_id(game_id))
    return _page("game.html", game_id=record["id"], game=record)
