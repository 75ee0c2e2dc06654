"""JSON in, JSON out: the entry points the command line and the web app share."""
from __future__ import annotations

from .analysis import advise, shanten, winning_tiles
from .errors import HandError
from .hand import Hand
from .rules import load_table, table_names
from .scoring import score
from .tiles import check_copies, tile_name, to_counts


def score_json(data: dict) -> dict:
    return score(Hand.from_dict(data))


def _visible(hand: Hand) -> list[int]:
    """Counts of every tile the player can see: own hand, own melds, and tiles seen on the table."""
    seen = list(hand.context.seen)
    tiles = hand.all_tiles + seen
    check_copies(tiles)
    return to_counts(tiles)


def _sets_needed(hand: Hand) -> int:
    return 5 - len(hand.melds)


def waits_json(data: dict) -> dict:
    """Waits of a 16-tile state (a winning_tile, if given, is ignored)."""
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "winning_tile"}
    hand = Hand.from_dict(data, need_winning_tile=False)
    counts = to_counts(hand.concealed)
    visible = _visible(hand)
    kinds = winning_tiles(counts)
    live = [{"tile": tile_name(k), "remaining": 4 - visible[k]} for k in kinds if visible[k] < 4]
    dead = [tile_name(k) for k in kinds if visible[k] >= 4]
    return {"waits": live, "shanten": shanten(counts, _sets_needed(hand)), "dead_waits": dead}


def advise_json(data: dict) -> dict:
    """Discards of a 17-tile state, best first."""
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "winning_tile"}
    hand = Hand.from_dict(data, need_winning_tile=False, extra_tiles=1)
    counts = to_counts(hand.concealed)
    visible = _visible(hand)
    options = advise(counts, visible, _sets_needed(hand))
    return {"shanten": min(o["shanten"] for o in options) if options else None,
            "discards": [{"discard": tile_name(o["discard"]), "shanten": o["shanten"],
                          "useful": [{"tile": tile_name(u), "remaining": max(0, 4 - visible[u])}
                                     for u in o["useful"]],
                          "useful_kinds": len(o["useful"]), "useful_copies": o["useful_copies"]}
                         for o in options]}


def rules_json() -> dict:
    tables = []
    for name in table_names():
        t = load_table(name)
        tables.append({**t.summary(),
                       "settings": t.settings,
                       "entries": [{"id": e.id, "name": e.name, "name_en": e.name_en, "tai": e.tai,
                                    "requires": e.requires} for e in t.entries]})
    return {"tables": tables}


__all__ = ["score_json", "waits_json", "advise_json", "rules_json", "HandError"]
