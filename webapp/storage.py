"""Games and hands in SQLite. Every change is one write transaction that re-derives the whole
game (webapp.games.compute) before committing, so a hand that breaks the game is never stored.

Optimistic concurrency: each game has a version, bumped by every change; a change that names
an older version is refused (several phones record the same game).
"""
from __future__ import annotations

import json
import logging
import secrets
import sqlite3
from datetime import datetime, timezone

from .db import write_transaction
from engine.errors import HandError, short_repr

from . import jsonsafe
from .errors import ApiError
from .games import (MAX_HANDS, MAX_SCORED_BYTES, MAX_SCORED_DEPTH, check_game_size, compute, game_view,
                    is_amount, is_rounds, summary_view)
from .summary_cache import SummaryCache

HAND_COLUMNS = ("type", "winner", "discarder", "tai", "counting_kong", "photo_id", "scored", "created_at")
log = logging.getLogger("webapp")
STALE = "the game changed on another phone; reloaded"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _setup(row: sqlite3.Row) -> dict:
    try:
        players = json.loads(row["players"])
    except (TypeError, ValueError):  # a damaged row: this game cannot be shown, the others still can
        players = None
    if not isinstance(players, list):
        raise HandError("this game cannot be shown: its players are unreadable", code="game_unreadable")
    for name in ("base", "per_tai"):  # a damaged stake ('abc', a blob, ±inf) broke the settling: a 500
        if not is_amount(row[name]):
            raise HandError(f"this game cannot be shown: its {name} is unreadable", code="game_unreadable")
    rounds = row["rounds"]
    if not is_rounds(rounds):
        raise HandError("this game cannot be shown: its number of rounds is unreadable", code="game_unreadable")
    return {"players": players, "rules": row["rules"], "base": row["base"],
            "per_tai": row["per_tai"], "first_dealer": row["first_dealer"], "rounds": rounds}


def _stored_text(value):
    """A text column as an answer can carry it: a BLOB (a damaged row) is read as UTF-8 text, so
    one such value never makes the game, or the list of games, fail to serialise."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def _stored_scored(text: str | None) -> dict | None:
    """A hand's stored engine result, or None when it is one no answer could carry (too deep, too
    large, not an object: written by an older version before these were checked). The hand's
    inputs are still shown and counted; only the copy of its score is left out."""
    if text is None:
        return None
    try:
        text = _stored_text(text)
        if not isinstance(text, str):
            raise ValueError("not text")
        if len(text.encode("utf-8")) <= MAX_SCORED_BYTES:
            value = jsonsafe.loads(text, limit=MAX_SCORED_DEPTH)
            if isinstance(value, dict):
                return value
    except ValueError:
        pass
    log.warning("a stored hand's scored value is unreadable; it is left out of the answer")
    return None


def _hand(row: sqlite3.Row) -> dict:
    if row["type"] not in ("win", "draw"):  # the schema's CHECK, bypassed: never paid as a win
        raise HandError(f"a stored hand's type {short_repr(row['type'])} is neither win nor draw",
                        code="game_unreadable")
    return {"type": row["type"], "winner": row["winner"], "discarder": row["discarder"], "tai": row["tai"],
            "counting_kong": bool(row["counting_kong"]), "photo_id": _stored_text(row["photo_id"]),
            "scored": _stored_scored(row["scored"]),
            "created_at": _stored_text(row["created_at"])}


def _load(conn: sqlite3.Connection, game_id: str) -> tuple[sqlite3.Row, list[dict]]:
    row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise ApiError(404, f"no game {short_repr(game_id)}", code="no_game", id=game_id)
    hands = [_hand(r) for r in conn.execute("SELECT * FROM hands WHERE game_id = ? ORDER BY n", (game_id,))]
    return row, hands


def _view(row: sqlite3.Row, hands: list[dict]) -> dict:
    try:
        return game_view(row["id"], _setup(row), hands, _stored_version(row), _stored_text(row["created_at"]))
    except OverflowError:  # stakes stored too large to settle (no longer accepted): no 500 for every read
        raise _too_large() from None


def _stored_version(row: sqlite3.Row) -> int:
    version = row["version"]
    if isinstance(version, bool) or not isinstance(version, int):  # a blob, 'x', inf: no version to send back
        raise HandError("this game cannot be shown: its version is unreadable", code="game_unreadable")
    return version


def _too_large() -> HandError:
    return HandError("this game cannot be shown: its amounts are too large to settle", code="game_unreadable")


def get_game(conn: sqlite3.Connection, game_id: str) -> dict:
    row, hands = _load(conn, game_id)
    return _view(row, hands)


def list_games(conn: sqlite3.Connection, cache: SummaryCache | None = None) -> list[dict]:
    """Every game's line, newest first; with a cache, a game unchanged since its line was made
    is not recomputed (webapp/summary_cache.py)."""
    rows = conn.execute("SELECT g.id, g.version, g.players, g.rules, g.base, g.per_tai, g.first_dealer, g.rounds, "
                        "COUNT(h.n) AS hands, MAX(h.created_at) AS last "
                        "FROM games g LEFT JOIN hands h ON h.game_id = g.id "
                        "GROUP BY g.id ORDER BY g.created_at DESC, g.rowid DESC").fetchall()
    out = []
    for r in rows:
        stamp = tuple(r)[1:]  # the game's state as far as one cheap query sees it
        line = cache.get(r["id"], stamp) if cache is not None else None
        if line is None:
            line = _summary(conn, r["id"])
            if cache is not None:
                cache.put(r["id"], stamp, line)
        out.append(line)
    return out


def _summary(conn: sqlite3.Connection, game_id: str) -> dict:
    """One line of the list; a game that cannot be shown any more (a rule table since changed, a
    damaged row) is listed with its error, so one bad game never hides the others."""
    try:
        return summary_view(get_game(conn, game_id))
    # TypeError, ArithmeticError: a damaged row the checks above missed; one bad game never hides the others
    except (HandError, ValueError, TypeError, ArithmeticError) as exc:
        log.warning("game %s cannot be shown: %s", game_id, exc)
        # code and params, so that each answer words the error in its asker's language
        return {"id": game_id, "error": str(exc), "code": getattr(exc, "code", "game_unreadable"),
                "params": getattr(exc, "params", {})}


def _insert_hand(conn: sqlite3.Connection, game_id: str, n: int, hand: dict) -> None:
    values = dict(hand, created_at=hand.get("created_at") or now(),
                  scored=json.dumps(hand["scored"], ensure_ascii=False) if hand["scored"] is not None else None,
                  counting_kong=int(bool(hand["counting_kong"])))
    conn.execute(f"INSERT INTO hands (game_id, n, {', '.join(HAND_COLUMNS)}) "
                 f"VALUES (?, ?, {', '.join('?' * len(HAND_COLUMNS))})",
                 (game_id, n, *(values[c] for c in HAND_COLUMNS)))


def create_game(conn: sqlite3.Connection, setup: dict, hands: list[dict] = ()) -> dict:
    """A new game (with `hands` already played, for an import), checked before it is stored."""
    hands = [dict(h, created_at=h.get("created_at") or now()) for h in hands]
    compute(setup, hands)  # refuse an impossible import before writing anything
    game_id = secrets.token_hex(6)
    with write_transaction(conn):
        conn.execute("INSERT INTO games (id, players, rules, base, per_tai, first_dealer, rounds, version, created_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
                     (game_id, json.dumps(setup["players"], ensure_ascii=False), setup["rules"],
                      setup["base"], setup["per_tai"], setup["first_dealer"], setup.get("rounds"), now()))
        for n, hand in enumerate(hands, 1):
            _insert_hand(conn, game_id, n, hand)
    return get_game(conn, game_id)


def _check_version(row: sqlite3.Row, version) -> None:
    if version is None:
        return
    if isinstance(version, bool) or not isinstance(version, int):
        raise ApiError(400, f"version must be a whole number, got {short_repr(version)}", code="version_not_int",
                       value=version)
    if version != row["version"]:
        raise ApiError(409, STALE, code="stale_version")


def change_hands(conn: sqlite3.Connection, game_id: str, version, change) -> dict:
    """Apply `change(setup, hands) -> new hands` in one transaction, after the version check.

    The new list is fully re-derived before anything is written; only the rows from the first
    changed hand on are rewritten.
    """
    with write_transaction(conn):
        row, hands = _load(conn, game_id)
        _check_version(row, version)
        setup = _setup(row)
        _stored_version(row)  # a game no read can show takes no change either
        try:
            new = change(setup, list(hands))
            compute(setup, new)
        except OverflowError:
            raise _too_large() from None
        check_game_size(hands, new)
        first = next((i for i, (a, b) in enumerate(zip(hands, new)) if a != b), min(len(hands), len(new)))
        stored = [r[0] for r in conn.execute("SELECT n FROM hands WHERE game_id = ? ORDER BY n", (game_id,))]
        if stored != list(range(1, len(stored) + 1)):  # numbered with gaps (a damaged or edited file):
            first = 0  # rewrite every hand as 1..N, or the rows past the gap would be deleted unseen
        # delete every row except 1..first, which stay as they are: "n > first" missed a hand stored
        # at n 0 or below, which then stayed beside its renumbered copy and was paid twice
        conn.execute("DELETE FROM hands WHERE game_id = ? AND NOT (n BETWEEN 1 AND ?)", (game_id, first))
        for n, hand in enumerate(new[first:], first + 1):
            _insert_hand(conn, game_id, n, hand)
        conn.execute("UPDATE games SET version = version + 1 WHERE id = ?", (game_id,))
    return get_game(conn, game_id)


def add_hand(conn: sqlite3.Connection, game_id: str, hand: dict, version) -> dict:
    def append(setup, hands):
        if len(hands) >= MAX_HANDS:
            raise HandError(f"at most {MAX_HANDS} hands in one game", code="too_many_hands", max=MAX_HANDS)
        if compute(setup, hands)["state"]["finished"]:
            raise ApiError(400, "the game is finished; start a new game to record more hands", code="game_finished_add")
        return hands + [dict(hand, created_at=now())]
    return change_hands(conn, game_id, version, append)


def _hand_index(hands: list[dict], n: int) -> int:
    if not 1 <= n <= len(hands):
        raise ApiError(404, f"no hand {n} in this game (it has {len(hands)})", code="no_hand", n=n,
                       count=len(hands))
    return n - 1


def edit_hand(conn: sqlite3.Connection, game_id: str, n: int, hand: dict, version) -> dict:
    def edit(_setup, hands):
        i = _hand_index(hands, n)
        hands[i] = dict(hand, created_at=hands[i]["created_at"])
        return hands
    return change_hands(conn, game_id, version, edit)


def delete_hand(conn: sqlite3.Connection, game_id: str, n: int, version) -> dict:
    def delete(_setup, hands):
        del hands[_hand_index(hands, n)]
        return hands
    return change_hands(conn, game_id, version, delete)
