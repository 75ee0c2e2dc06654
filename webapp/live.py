"""Live hints from one camera frame: the tiles in front of the player -> waits (16) or advice (17).

The player's own input (tiles seen on the table, melds, flowers) is checked first and refused
with a 400 when wrong; a frame the engine cannot read (a misread tile making five copies, say)
is normal while the camera moves, so it answers 200 with a message instead of hints.
"""
from __future__ import annotations

from engine.errors import HandError
from engine.hand import Meld
from engine.service import advise_json, waits_json
from engine.tiles import parse_tiles

from .errors import ApiError
from .games import rule_table


def check_player_input(seen, melds, flowers, rules) -> None:
    try:
        rule_table(rules)
        parse_tiles(seen)
        if melds is not None:
            if not isinstance(melds, list):
                raise HandError("melds must be a list of {type, tiles}")
            for meld in melds:
                Meld.from_dict(meld)
        if flowers is not None:
            parse_tiles(flowers)
    except HandError as exc:
        raise ApiError(400, str(exc)) from None


def _layout_melds(layout: dict) -> tuple[list[dict], bool]:
    """Melds read from the frame, and whether one of them (a concealed kong) was unreadable."""
    melds = [{"type": m["type"], "tiles": m["tiles"]} for m in layout["melds"] if m["tiles"]]
    return melds, len(melds) != len(layout["melds"])


def analyse(reading: dict, seen: str, melds: list | None, flowers: str | None, rules: str) -> dict:
    """{"tiles", "layout", "waits", "advice", "message"} for one recognized frame."""
    layout = reading["layout"]
    concealed = list(layout["concealed"])
    if layout["winning_tile"]:
        concealed.append(layout["winning_tile"])  # in live play the set-apart tile is the drawn one
    unreadable = False
    if melds is None:
        melds, unreadable = _layout_melds(layout)
    if flowers is None:
        flowers = " ".join(layout["flowers"])
    out = {"tiles": reading["tiles"], "layout": layout, "waits": None, "advice": None}
    count = len(concealed) + 3 * len(melds)
    if unreadable:
        out["message"] = "a concealed kong could not be read; enter it under melds"
        return out
    if count not in (16, 17):
        out["message"] = f"{count} tiles seen; a hand has 16 or 17"
        return out
    hand = {"rules": rules, "concealed": " ".join(concealed), "melds": melds, "flowers": flowers,
            "context": {"seen": seen}}
    try:
        if count == 16:
            out["waits"] = waits_json(hand)
            waits = out["waits"]["waits"]
            out["message"] = ("waiting on " + " ".join(w["tile"] for w in waits) if waits
                              else f"not ready yet (shanten {out['waits']['shanten']})")
        else:
            out["advice"] = advise_json(hand)
            best = out["advice"]["discards"][0] if out["advice"]["discards"] else None
            out["message"] = f"discard {best['discard']} (shanten {best['shanten']})" if best else "no discard"
    except HandError as exc:
        out["message"] = f"cannot read this hand: {exc}"
    if layout["flagged"]:
        out["message"] += f"; check {len(layout['flagged'])} unsure tile(s)"
    return out
