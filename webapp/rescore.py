"""A recorded hand's score checked against the game as it is now.

A hand scored before it was recorded keeps the engine request it was scored with: the winner's
seat wind, the round wind, the dealer, whether it was self-drawn and who discarded. Editing an
earlier hand can move the deal, and then the winner of a later hand sat at another wind: its 門風,
圈風 and 正花 台 are not what was scored. A hand scored by hand and recorded into a game can be
off the same way. The 台 a player recorded are theirs and never change by themselves; the game
view says where the hand, scored again as the game has it at that hand, comes to another number,
and the page offers to take it.

    >>> row = {"winner": 1, "discarder": None, "seat_winds": ["E", "S", "W", "N"], "round_wind": 0,
    ...        "dealer": 0, "streak": 0}
    >>> game_context("tw-standard", row)["seat_wind"]
    'S'
    >>> differences({"seat_wind": "E", "round_wind": "E", "dealer": "E", "self_drawn": True},
    ...             game_context("tw-standard", row))
    ['seat_wind']
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict

from engine.errors import HandError
from engine.hand import WIND_NAMES, parse_wind
from engine.service import score_json

# what a hand's 台 depend on that the game decides. The streak only moves the dealer's 台, which the
# game computes itself; the discarder's wind moves with the deal but not the hand's 台 (it is sent
# as the game has it, so that it is never the winner's own wind).
CONTEXT_KEYS = ("rules", "seat_wind", "round_wind", "dealer", "self_drawn")
WIND_KEYS = ("seat_wind", "round_wind", "dealer")


def game_context(rules: str, row: dict) -> dict:
    """The engine request's context of a settled win, as the game has it: from its row of
    games.compute (the seats' winds, round wind, dealer and streak it was played in; winds as
    E/S/W/N)."""
    winds, discarder = row["seat_winds"], row["discarder"]
    return {"rules": rules, "seat_wind": winds[row["winner"]], "round_wind": WIND_NAMES[row["round_wind"]],
            "dealer": winds[row["dealer"]], "streak": row["streak"], "self_drawn": discarder is None,
            "discarder": None if discarder is None else winds[discarder]}


def _as_given(request: dict, key: str):
    """A request's value for key as the engine reads it; a wind as its index, or ValueError."""
    value = request.get(key)
    if key == "rules":
        return value if value is not None else "tw-standard"  # the engine's default table
    if key == "self_drawn":
        return bool(value)
    if key in WIND_KEYS and value is not None:
        try:
            return parse_wind(value, key)
        except HandError:
            raise ValueError(key) from None
    return value


def differences(request: dict, context: dict) -> list[str]:
    """The context keys where a scored request differs from the game's context, in CONTEXT_KEYS
    order. A request the engine could not read differs in the keys it cannot read."""
    out = []
    for key in CONTEXT_KEYS:
        want = context[key]
        if key in WIND_KEYS:
            want = WIND_NAMES.index(want)
        try:
            given = _as_given(request, key)
        except ValueError:
            out.append(key)
            continue
        if given != want:
            out.append(key)
    return out


def _hand_tai(request: dict) -> int | None:
    """The hand 台 (without the dealer's) of an engine request, or None where it does not win or
    the engine refuses it."""
    try:
        result = score_json(request)
    except (HandError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(result, dict) or not result.get("win"):
        return None
    tai = result.get("hand_tai", result.get("tai"))
    return tai if isinstance(tai, int) and not isinstance(tai, bool) else None


# Every view of a game settles its hands again: answers kept by the request's digest (a scored
# copy may be 64 KB, so the text itself is not kept), the oldest dropped first.
_CACHE: OrderedDict[bytes, int | None] = OrderedDict()
_CACHE_SIZE = 4096
_LOCK = threading.Lock()


def hand_tai(request: dict) -> int | None:
    """_hand_tai, cached. A request that is not JSON is not scored."""
    try:
        key = hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).digest()
    except (TypeError, ValueError):
        return None
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    tai = _hand_tai(request)
    with _LOCK:
        _CACHE[key] = tai
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return tai


def check(row: dict, rules: str) -> dict | None:
    """For a settled hand (its row of games.compute): {"changed": [context keys], "tai": hand 台 as
    the game has it now, "context": the game's context it was scored again in} for a recorded win whose scored request was scored in another
    context and comes to another number than the 台 recorded; None otherwise (not scored, the same
    context, the same number, or no winning hand in the game's context). A page that records the
    new 台 sends the request with that context, so that the hand is checked against it from then on
    (a later edit that moves the deal back offers the first number again)."""
    scored = row.get("scored")
    request = scored.get("hand") if isinstance(scored, dict) else None
    if row.get("type") != "win" or not isinstance(request, dict):
        return None
    context = game_context(rules, row)
    changed = differences(request, context)
    if not changed:
        return None
    given = {k: v for k, v in context.items() if v is not None}
    again = {**{k: v for k, v in request.items() if k != "discarder"}, **given}
    tai = hand_tai(again)
    if tai is None or tai == row["hand_tai"]:  # the 台 recorded, without the dealer's
        return None
    return {"changed": changed, "tai": tai, "context": given}
