"""Game recording routes: create, list, read, add / edit / delete hands, export and import."""
from __future__ import annotations

import re

from flask import Blueprint, Response, jsonify, request

from engine.errors import short_repr

from . import storage
from .errors import ApiError, render, request_lang
from .export import from_json, to_csv, to_json
from .games import parse_hand, parse_setup
from .inputs import json_body
from .services import db, services

bp = Blueprint("games", __name__, url_prefix="/api/games")
GAME_ID = re.compile(r"[0-9a-f]{12}")
VERSION_TEXT = re.compile(r"[0-9]{1,12}", re.ASCII)  # ASCII digits, short enough for int()


def checked_id(game_id: str) -> str:
    if not GAME_ID.fullmatch(game_id):
        raise ApiError(404, f"no game {short_repr(game_id)}", code="no_game", id=game_id)
    return game_id


def _version(body: dict | None):
    """The client's version: in the JSON body, or ?version= for a DELETE without a body."""
    if body is not None and "version" in body:
        return body["version"]
    raw = request.args.get("version")
    if raw is None:
        return None
    if not VERSION_TEXT.fullmatch(raw):  # not isdigit(): it takes "²", and int() then fails
        raise ApiError(400, f"version must be a whole number, got {short_repr(raw)}", code="version_not_int", value=raw)
    return int(raw)


@bp.post("")
def create():
    game = storage.create_game(db(), parse_setup(json_body()))
    return jsonify(game), 201


@bp.get("")
def index():
    lines = storage.list_games(db(), services().summaries)
    lang = request_lang()  # a game that cannot be shown: its error in the asker's language
    return jsonify([dict(line, error=render(line["code"], line.get("params", {}), lang, line["error"]))
                    if "error" in line else line for line in lines])


@bp.get("/<game_id>")
def show(game_id):
    return jsonify(storage.get_game(db(), checked_id(game_id)))


@bp.post("/<game_id>/hands")
def add_hand(game_id):
    body = json_body()
    game = storage.add_hand(db(), checked_id(game_id), parse_hand(body), _version(body))
    return jsonify(game), 201


@bp.put("/<game_id>/hands/<int:n>")
def edit_hand(game_id, n):
    body = json_body()
    return jsonify(storage.edit_hand(db(), checked_id(game_id), n, parse_hand(body), _version(body)))


@bp.delete("/<game_id>/hands/<int:n>")
def delete_hand(game_id, n):
    body = json_body() if request.get_data(cache=True).strip() else None
    return jsonify(storage.delete_hand(db(), checked_id(game_id), n, _version(body)))


@bp.get("/<game_id>/export.csv")
def export_csv(game_id):
    game = storage.get_game(db(), checked_id(game_id))
    # the BOM makes spreadsheet programs read the Chinese names as UTF-8
    return Response("\ufeff" + to_csv(game), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="game-{game["id"]}.csv"'})


@bp.get("/<game_id>/export.json")
def export_json(game_id):
    game = storage.get_game(db(), checked_id(game_id))
    response = jsonify(to_json(game))
    response.headers["Content-Disposition"] = f'attachment; filename="game-{game["id"]}.json"'
    return response


@bp.post("/import")
def import_game():
    setup, hands = from_json(json_body())
    return jsonify(storage.create_game(db(), setup, hands)), 201
