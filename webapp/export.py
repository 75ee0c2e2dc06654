"""A game out to CSV / JSON and back in from the JSON export."""
from __future__ import annotations

import csv
import io

from engine.errors import HandError, short_repr

from .games import MAX_HANDS, parse_hand, parse_setup

EXPORT_FORMAT = "taiwan-mahjong-game"


def _cell(text: str) -> str:
    """Spreadsheets run cells that start with = + - @ as formulas; a quote keeps a name a name."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def to_csv(game: dict) -> str:
    """One row per hand: n, type, winner, discarder, 台, each player's delta, each running total."""
    names = [_cell(p) for p in game["players"]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["n", "type", "winner", "discarder", "tai"]
                    + [f"delta {p}" for p in names] + [f"total {p}" for p in names])
    for k, hand in enumerate(game["hands"]):
        def name(seat):
            return "" if seat is None else names[seat]
        writer.writerow([hand["n"], hand["type"], name(hand["winner"]), name(hand["discarder"]), hand["tai"]]
                        + [hand["deltas"][str(s)] for s in range(4)]
                        + [game["series"][s][k] for s in range(4)])
    return out.getvalue()


def to_json(game: dict) -> dict:
    """The full game object plus a format marker; import reads only the inputs back."""
    return {"format": EXPORT_FORMAT, **game}


def from_json(data: dict) -> tuple[dict, list[dict]]:
    """(setup, hands) from an export; derived values in it are ignored and recomputed."""
    if data.get("format") not in (None, EXPORT_FORMAT):
        raise HandError(f"not a game export (format {short_repr(data.get('format'))})", code="not_an_export",
                        format=data.get("format"))
    setup = parse_setup(data, cents=False)  # an export of a game recorded before stakes were held to hundredths
    hands_in = data.get("hands", [])
    if not isinstance(hands_in, list):
        raise HandError("hands must be a list", code="hands_not_list")
    if len(hands_in) > MAX_HANDS:
        raise HandError(f"at most {MAX_HANDS} hands in one game", code="too_many_hands", max=MAX_HANDS)
    hands = []
    for n, raw in enumerate(hands_in, 1):
        if not isinstance(raw, dict):
            raise HandError(f"hand {n} must be an object", code="hand_not_object", n=n)
        # the export's "tai" is the dealer-inclusive total; the hand's own 台 is hand_tai
        fields = dict(raw, tai=raw.get("hand_tai", raw.get("tai")))
        try:
            hand = parse_hand(fields)
        except HandError as exc:
            raise HandError(f"hand {n}: {exc}", code="in_hand", n=n, cause=exc) from None
        created = raw.get("created_at")
        hand["created_at"] = created if isinstance(created, str) and len(created) <= 40 else None
        hands.append(hand)
    return setup, hands
