"""台 scoring of a winning hand under a Taiwanese rule table, and its settlement.

The score is the best over every reading of the hand (split into sets and placement of the
winning tile). 莊家 and 連莊拉莊 are kept apart because they count only on payments between the
dealer and the other side.

>>> from engine.hand import Hand
>>> h = Hand.from_dict({"concealed": "123m456m789m123p456p7s", "winning_tile": "7s",
...                     "seat_wind": "S", "discarder": "W"})
>>> r = score(h)
>>> r["tai"], [e["id"] for e in r["breakdown"]], r["payments"]
(2, ['menqing', 'single_wait'], {'E': 0, 'S': 140, 'W': -140, 'N': 0})
"""
from __future__ import annotations

from functools import lru_cache

from .analysis import is_complete, waits
from .errors import HandError
from .hand import WIND_NAMES, Hand
from .patterns import DEALER_PATTERNS, PATTERNS, Features
from .readings import Reading, Set, readings
from .rules import RuleTable, load_table
from .settlement import dealer_involved, settle_taiwan
from .settlement import dealer_tai as dealer_tai_total
from .tiles import is_flower, tile_name, to_counts, zh_name
from .yueqing import score_yueqing


def _not_a_win(reason: str, *, code: str, **params) -> dict:
    """`reason` in English; `reason_code`/`reason_params` name it for other languages."""
    return {"win": False, "reason": reason, "reason_code": code, "reason_params": params, "tai": 0, "breakdown": [], "decomposition": None,
            "payments": None}


def _lilikuli_reading(hand: Hand) -> Reading | None:
    """嚦咕嚦咕: seven pairs and one triplet, all 17 tiles concealed."""
    counts = to_counts(hand.full_concealed)
    if hand.melds or sum(counts) != 17:
        return None
    pairs = [k for k, c in enumerate(counts) if c == 2]
    triplets = [k for k, c in enumerate(counts) if c == 3]
    if len(pairs) != 7 or len(triplets) != 1:
        return None
    sets = tuple(Set("pair", k, concealed=True, melded=False) for k in pairs)
    return Reading(sets + (Set("pong", triplets[0], concealed=True, melded=False),), "lilikuli")


def _flower_reading(hand: Hand) -> Reading | None:
    """八仙過海 / 七搶一 win on the flowers alone, whatever the hand."""
    flowers = [f for f in hand.flowers if is_flower(f)]
    w = hand.winning_tile
    if w is not None and is_flower(w):
        flowers.append(w)
    return Reading((), None) if len(set(flowers)) == 8 else None


def check_taiwan_flowers(flowers) -> None:
    """Flowers under a Taiwanese table are 1f-8f (白板 and 紅中 are flowers under 乐清 only).

    >>> from engine.hand import parse_flowers
    >>> check_taiwan_flowers(parse_flowers("1f 8f"))
    >>> check_taiwan_flowers(parse_flowers("C"))
    Traceback (most recent call last):
    ...
    engine.errors.HandError: C is not a flower under Taiwanese rules (flowers are 1f-8f)
    """
    for f in flowers:
        if not is_flower(f):
            raise HandError(f"{tile_name(f)} is not a flower under Taiwanese rules (flowers are 1f-8f)",
                            code="not_a_flower_taiwan", tile=tile_name(f), tile_zh=zh_name(f))


def _check_table_context(hand: Hand, settings: dict) -> None:
    """Context flags that the table's own source rules out for this hand."""
    ctx = hand.context
    if ctx.heavenly_ready and settings.get("heavenly_ready_dealer_only") and not hand.is_dealer:
        raise HandError("a heavenly ready hand (天聽) is the dealer's under this table: ready from the first discard",
                        code="heavenly_ready_dealer")
    if ctx.kong_replacement:
        sources = {m.type for m in hand.melds if m.is_kong} | ({"flower"} if hand.flowers else set())
        if not settings.get("open_kong_replacement_wins"):
            sources.discard("kong")
        if not sources:
            raise HandError("a win on a replacement tile (槓上開花) needs a replacement draw this hand could win on: "
                            "a concealed or added kong (暗槓/加槓) or a flower; the draw after an open kong of a discard (明槓) cannot win here",
                            code="kong_replacement_source")


def possible_waits(hand: Hand) -> int:
    """Kinds that would have won from the pre-win state, less those whose four copies the hand
    already holds (in hand or in its melds): 1 is 獨聽.

    >>> h = Hand.from_dict({"concealed": "1111222m456p789p123s", "winning_tile": "3m"})
    >>> possible_waits(h)   # 12m waits on 3m; 1m would need a fifth copy
    1
    """
    pre_win = to_counts(hand.concealed)
    if sum(pre_win) % 3 != 1:
        return 0
    held = to_counts([t for m in hand.melds for t in m.tiles] + list(hand.concealed))
    return len(waits(pre_win, held))  # a kind the hand holds four of has no copy left to win on


def candidate_readings(hand: Hand, table: RuleTable) -> list[Reading]:
    """The ways to read the win. Won on a flower (八仙過海 drawn, 七搶一 robbed): the flowers alone.
    Won on a playing tile: the hand's sets, which 八仙過海 is counted with (seed 003: 八朵花全為一家
    所拿, however the hand won); all eight flowers with a hand that does not split still win alone."""
    flower = _flower_reading(hand)
    if hand.winning_tile is not None and is_flower(hand.winning_tile):
        return [flower] if flower is not None else []
    found = readings(hand) if is_complete(to_counts(hand.full_concealed)) else []
    if table.settings.get("lilikuli"):
        special = _lilikuli_reading(hand)
        if special is not None:
            found.append(special)
    if not found and flower is not None:
        return [flower]
    return found


WAIT_PREFERENCE = ("ryanmen", "shanpon", "kanchan", "penchan", "tanki", "lilikuli", None)

# A flower win (八仙過海, 七搶一) has no hand to read: only these patterns apply to it.
FLOWER_WIN_PATTERNS = frozenset({"eight_flowers", "seven_rob_one"}) | DEALER_PATTERNS


@lru_cache(maxsize=64)
def _detectors(table: RuleTable, flower_win: bool) -> tuple:
    """(entry, detector) pairs worth running: a 0 in a table's column means the row does not
    count there, and 屁胡 is decided after the others."""
    return tuple((e, PATTERNS[e.pattern]) for e in table.active_entries
                 if e.tai and e.pattern != "no_score"
                 and (not flower_win or e.pattern in FLOWER_WIN_PATTERNS))


def _count_entries(features: Features, table: RuleTable) -> list[tuple]:
    settings = table.settings
    counted = []
    for entry, detect in _detectors(table, features.reading.is_flower_win):
        n = detect(features, settings)
        if n:
            counted.append((entry, n))
    replaced = {r for entry, _ in counted for r in entry.replaces}
    if replaced:
        counted = [(e, n) for e, n in counted if e.id not in replaced]
    if not any(e.pattern not in DEALER_PATTERNS for e, _ in counted):
        counted.extend((e, 1) for e in table.active_entries if e.pattern == "no_score")
    return counted


def _dealer_involved(hand: Hand, table: RuleTable) -> bool:
    if not hand.self_drawn and hand.discarder is None:  # won on a discard not named: the dealer's own win only
        return hand.is_dealer
    return dealer_involved(winner=hand.seat_wind, discarder=None if hand.self_drawn else hand.discarder,
                           dealer=hand.dealer, on_self_draw=table.dealer_tai_on_self_draw)


def score(hand: Hand, table: RuleTable | None = None) -> dict:
    """Win or not, every counted entry, the total 台, the reading used and the payments."""
    table = table or load_table(hand.rules)
    if table.scorer == "yueqing":
        return score_yueqing(hand, table)
    check_taiwan_flowers(hand.flowers)
    hand.validate(hand_size=table.hand_size)
    s = table.settings
    _check_table_context(hand, s)
    if s.get("limit_ready") and not hand.context.declared_ready:
        return _not_a_win("this table plays declared ready only (限聽): a win needs a declared ready hand (宣告聽牌)",
                          code="limit_ready")
    if s.get("self_draw_only") and not hand.self_drawn:
        return _not_a_win("this table plays self-draw only (限自摸): only self-drawn wins count",
                          code="self_draw_only")
    candidates = candidate_readings(hand, table)
    if not candidates:
        return _not_a_win("the tiles do not form five sets and a pair", code="no_win_shape")
    wait_count = possible_waits(hand)
    involved = _dealer_involved(hand, table)
    best = None
    for reading in candidates:
        counted = _count_entries(Features(hand, reading, wait_count), table)
        hand_tai = sum(e.tai * n for e, n in counted if e.pattern not in DEALER_PATTERNS)
        d_tai = _dealer_part(counted, table)
        # equal totals: show the reading a player would name (a two-sided wait before an edge one)
        key = (hand_tai + (d_tai if involved else 0), -WAIT_PREFERENCE.index(reading.wait))
        if best is None or key > best[0]:
            best = (key, reading, counted, hand_tai, d_tai)
    _, reading, counted, hand_tai, d_tai = best
    dealer_base = sum(e.tai for e, _ in counted if e.pattern == "dealer")
    breakdown = [{"id": e.id, "name": e.name, "name_en": e.name_en, "count": n,
                  # the streak row shows what is left of the (possibly capped) dealer 台
                  "tai": d_tai - dealer_base if e.pattern == "dealer_streak" else e.tai * n,
                  "dealer_only": e.pattern in DEALER_PATTERNS}
                 for e, n in counted if e.pattern not in DEALER_PATTERNS or involved]
    return {"win": True, "reason": None, "tai": hand_tai + (d_tai if involved else 0),
            "hand_tai": hand_tai, "dealer_tai": d_tai, "breakdown": breakdown,
            "decomposition": reading.to_dict(hand.winning_tile_name()),
            "payments": _payments(hand, table, hand_tai, d_tai)}


def _dealer_part(counted, table: RuleTable) -> int:
    base = sum(e.tai for e, _ in counted if e.pattern == "dealer")
    per = [(e, n) for e, n in counted if e.pattern == "dealer_streak"]
    if not base and not per:
        return 0
    per_streak = per[0][0].tai if per else 0
    streak = per[0][1] if per else 0
    return dealer_tai_total(streak, dealer_base=base, per_streak=per_streak,
                            cap=table.settings.get("dealer_tai_cap") or None)


def _payments(hand: Hand, table: RuleTable, hand_tai: int, d_tai: int) -> dict | None:
    if not hand.self_drawn and hand.discarder is None:
        return None
    base, per_tai = hand.stakes
    deltas = settle_taiwan(winner=hand.seat_wind, discarder=None if hand.self_drawn else hand.discarder,
                           dealer=hand.dealer, hand_tai=hand_tai, dealer_tai=d_tai,
                           base=base, per_tai=per_tai,
                           dealer_pays_self_draw=table.dealer_tai_on_self_draw)
    factor = 2 ** hand.context.dice_doubles if table.settings.get("dice_doubling") else 1
    return {WIND_NAMES[seat]: v * factor for seat, v in sorted(deltas.items())}
