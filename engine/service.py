"""JSON in, JSON out: the entry points the command line and the web app share."""
from __future__ import annotations

from .analysis import advise, is_complete, shanten, winning_tiles
from .errors import HandError
from .flow import FlowRules
from .hand import Hand
from .rules import load_table, table_names
from .scoring import score
from .tiles import check_copies, parse_tile, tile_name, to_counts, zh_name


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


def _win_answer(data: dict, hand: Hand, drawn) -> dict | None:
    """A 17-tile state that already wins: {"win": true, "tai", "winning_tile", "self_drawn", "score"}.

    The drawn tile is `drawn` when given, else the one (of the hand's tiles) that scores most.
    `self_drawn` is true unless the input says otherwise. None when the hand does not win.
    """
    table = load_table(hand.rules)
    counts = to_counts(hand.concealed)
    if not (is_complete(counts) or table.settings.get("lilikuli")
            or (table.scorer == "yueqing" and hand.context.caishen is not None)):
        return None
    self_drawn = data.get("self_drawn", True)
    kinds = [drawn] if drawn is not None else sorted(set(hand.concealed))
    best, problem = None, None
    for kind in kinds:
        rest = list(hand.concealed)
        rest.remove(kind)
        attempt = {k: v for k, v in data.items() if k not in ("concealed", "winning_tile", "self_drawn")}
        attempt.update(concealed=" ".join(tile_name(t) for t in rest), winning_tile=tile_name(kind),
                       self_drawn=self_drawn)
        try:
            result = score_json(attempt)
        except HandError as exc:  # e.g. 乐清 without its 財神: the shape wins, the 台 cannot be told
            problem = problem or exc
            continue
        if result["win"] and (best is None or result["tai"] > best["tai"]):
            best = result
    if best is None:
        if problem is None or not is_complete(counts):
            return None
        return {"win": True, "tai": None, "winning_tile": tile_name(kinds[0]), "self_drawn": self_drawn,
                "score": None, "score_error": {"error": problem.message, "code": problem.code,
                                               "params": problem.params},
                "shanten": -1, "discards": []}
    return {"win": True, "tai": best["tai"], "winning_tile": best["decomposition"]["winning_tile"],
            "self_drawn": self_drawn, "score": best, "shanten": -1, "discards": []}


def advise_json(data: dict) -> dict:
    """Discards of a 17-tile state, best first; a state that already wins answers "win": true.

    `winning_tile` (optional) names the drawn tile, one of the 17; `self_drawn` (default true)
    is how the win would be scored.

    >>> a = advise_json({"concealed": "123m456m789m123p45pEE9s"})
    >>> a["win"], a["discards"][0]["discard"]
    (False, '9s')
    >>> w = advise_json({"concealed": "123m456m789m123p456pEE"})
    >>> w["win"], w["discards"], w["self_drawn"], w["tai"] == w["score"]["tai"] > 0
    (True, [], True, True)
    """
    drawn = None
    if isinstance(data, dict):
        drawn = data.get("winning_tile")
        data = {k: v for k, v in data.items() if k != "winning_tile"}
    hand = Hand.from_dict(data, need_winning_tile=False, extra_tiles=1)
    if drawn not in (None, ""):
        drawn = parse_tile(drawn)
        if drawn not in hand.concealed:
            raise HandError(f"the drawn tile {tile_name(drawn)} is not among the 17 tiles", code="drawn_not_in_hand",
                            tile=tile_name(drawn), tile_zh=zh_name(drawn))
    else:
        drawn = None
    won = _win_answer(data, hand, drawn)
    if won is not None:
        return won
    counts = to_counts(hand.concealed)
    visible = _visible(hand)
    options = advise(counts, visible, _sets_needed(hand))
    return {"win": False, "shanten": min(o["shanten"] for o in options) if options else None,
            "discards": [{"discard": tile_name(o["discard"]), "shanten": o["shanten"],
                          "useful": [{"tile": tile_name(u), "remaining": max(0, 4 - visible[u])}
                                     for u in o["useful"]],
                          "useful_kinds": len(o["useful"]), "useful_copies": o["useful_copies"],
                          **({"reshaping_copies": o["reshaping_copies"]} if "reshaping_copies" in o else {})}
                         for o in options]}


def rules_json() -> dict:
    tables = []
    for name in table_names():
        t = load_table(name)
        tables.append({**t.summary(),
                       "settings": t.settings,
                       # the pages ask which scorer: 乐清 plays 白板 (or 紅中) as flowers, Taiwanese tables never
                       "scorer": t.scorer,
                       # the game page asks whether a draw's kong passes the deal only where it does (乐清)
                       "flow": FlowRules.from_dict(t.flow).to_dict(),
                       "entries": [{"id": e.id, "name": e.name, "name_en": e.name_en, "tai": e.tai,
                                    "requires": e.requires} for e in t.entries]})
    return {"tables": tables}


__all__ = ["score_json", "waits_json", "advise_json", "rules_json", "HandError"]
