"""乐清麻将 2.0 scoring (seed 004): 財神 wild tiles, 白板 flowers, 台 items in groups 1/10/20/30/100
and the doubling formula.

The hand's concealed tiles (with the winning tile) split into four parts (萬, 筒, 條, honours).
Each part is searched once per shape and number of 財神 it receives (lru_cache), giving the distinct
*feature summaries* its splits can have: how many triplets, which honour triplets, where the eyes
are, how many 財神 stand at home (归位), whether three 財神 form one set, whether the winning tile
ends a two-sided run. The parts' summaries are folded together for every way of sharing the 財神
out, and each whole-hand summary is scored; the best total wins.

>>> from engine.hand import Hand
>>> hand = Hand.from_dict({"concealed": "234m 456m 678p 345s 45s 88p", "winning_tile": "6s",
...                        "context": {"caishen": "9s"}})
>>> result = score_yueqing(hand)
>>> result["tai"], [b["id"] for b in result["breakdown"]], result["payments"]
(2, ['wu_caishen', 'ping_hu'], {'E': 12, 'S': -4, 'W': -4, 'N': -4})

Three 財神 (2m), one at home in 123m and two filling 46p and 79s: 三财神杂胡 10 + 1 → (1 + 10) × 2.

>>> hand = Hand.from_dict({"concealed": "13m 46p 79s 456m 789p 11s 2m 2m", "winning_tile": "2m",
...                        "self_drawn": True, "context": {"caishen": "2m"}})
>>> result = score_yueqing(hand)
>>> result["tai"], result["formula"], [b["id"] for b in result["breakdown"]]
(22, {'N': 1, 'M': 10, 'raw_N': 1}, ['zahu_guiwei', 'san_caishen_zahu'])
"""
from __future__ import annotations

from functools import lru_cache

from .errors import HandError, short_repr
from .hand import WIND_NAMES, Hand
from .rules import load_table
from .settlement import settle_yueqing
from .tiles import (EAST, GREEN, NUM_KINDS, RED, WHITE, format_tiles, is_flower, tile_name, to_counts,
                    zh_name)
from .yueqing_patterns import YUEQING_PATTERNS  # noqa: F401  (the scorer's patterns, as data)

_PARTS = ((0, False), (9, False), (18, False), (27, True))   # (offset, honours?)
_HONOUR_BIT = 3

# A summary is a plain tuple (hashable, cheap to merge):
# (triplets, honour-triplet mask, 財神 at home in sets, 財神 beside a real tile in the eyes,
#  eyes are two 財神, eyes position (honour parts only, else -1), three 財神 form one set,
#  ping-hu wait level (2 real run, 1 run with 財神, 0 none), part has tiles)
_TRIP, _HMASK, _HOME, _WEYES, _EYES2, _PAIRPOS, _CSET, _PING, _PRESENT = range(9)
_EMPTY = (0, 0, 0, 0, False, -1, False, 0, False)


def _merge(a: tuple, b: tuple) -> tuple:
    return (a[0] + b[0], a[1] | b[1], a[2] + b[2], a[3] + b[3], a[4] or b[4], max(a[5], b[5]),
            a[6] or b[6], max(a[7], b[7]), a[8] or b[8])


def _ping_level(start: int, wilds: tuple, wpos: int) -> int:
    """How the real winning tile at wpos ends the run start..start+2 as a two-sided wait.

    吃头 (lowest) needs a tile beyond the top (so not 89→7); 吃尾 needs one below (so not 12→3).
    """
    if wpos < 0 or wpos in wilds:
        return 0
    if (wpos == start and start <= 5) or (wpos == start + 2 and start >= 1):
        return 1 if wilds else 2
    return 0


def _set_summary(kind: str, tiles: tuple, wilds: tuple, honour: bool, cpos: int, wpos: int) -> tuple:
    """The summary of one set; a 財神 pair is 做牛, never 归位, so the eyes count no home."""
    home = sum(1 for w in wilds if w == cpos) if kind != "pair" else 0
    if kind == "pair":
        both = len(wilds) == 2
        return (0, 0, 0, 0 if both else len(wilds), both, tiles[0] if honour else -1, False, 0, True)
    if kind == "pong":
        return (1, 1 << tiles[0] if honour else 0, home, 0, False, -1, len(wilds) == 3, 0, True)
    return (0, 0, home, 0, False, -1, False, _ping_level(tiles[0], wilds, wpos), True)


def _options(shape: tuple, i: int, wilds: int, need_pair: bool, honour: bool):
    """Every set holding the lowest real tile i: (kind, tiles, which of them are 財神)."""
    if need_pair:
        if shape[i] >= 2:
            yield "pair", (i, i), ()
        if wilds:
            yield "pair", (i, i), (i,)
    for real in range(min(3, shape[i]), 0, -1):
        if 3 - real <= wilds:
            yield "pong", (i, i, i), (i,) * (3 - real)
    if honour:
        return
    for start in (i - 2, i - 1, i):
        if start < 0 or start + 2 > 8:
            continue
        # below i there are no real tiles; above, a real tile or a 財神 may fill each place
        choices = [[()] if p == i else [(p,)] if p < i else ([(), (p,)] if shape[p] else [(p,)])
                   for p in range(start, start + 3)]
        for a in choices[0]:
            for b in choices[1]:
                for c in choices[2]:
                    used = a + b + c
                    if len(used) <= wilds:
                        yield "chi", (start, start + 1, start + 2), used


def _wild_only(size: int, wilds: int, need_pair: bool, honour: bool, cpos: int, fpos: int) -> dict:
    """Sets made of 財神 alone, once the part's real tiles are used up."""
    out: dict = {}
    kinds = [p for p in range(size) if p != fpos]   # a 財神 never stands for the flower
    if wilds == 0 and not need_pair:
        out[_EMPTY] = ()
    elif wilds == 2 and need_pair:
        for p in kinds:
            out.setdefault(_set_summary("pair", (p, p), (p, p), honour, cpos, -1), (("pair", (p, p), (p, p)),))
    elif wilds == 3 and not need_pair:
        for p in kinds:
            out.setdefault(_set_summary("pong", (p,) * 3, (p,) * 3, honour, cpos, -1), (("pong", (p,) * 3, (p,) * 3),))
        if not honour:
            for s in range(7):
                run = (s, s + 1, s + 2)
                out.setdefault(_set_summary("chi", run, run, honour, cpos, -1), (("chi", run, run),))
    return out


@lru_cache(maxsize=200_000)
def _part(shape: tuple, wilds: int, need_pair: bool, honour: bool, cpos: int, wpos: int, fpos: int) -> tuple:
    """Distinct summaries of splitting one part with exactly `wilds` 財神: ((summary, sets), …).

    cpos: the 財神's own position in this part (or -1); wpos: the real winning tile's; fpos: the
    flower's (honours only). Sets are (kind, positions as played, positions a 財神 fills).
    """
    if (sum(shape) + wilds) % 3 != (2 if need_pair else 0):
        return ()
    first = next((i for i, c in enumerate(shape) if c), -1)
    if first < 0:
        return tuple(_wild_only(len(shape), wilds, need_pair, honour, cpos, fpos).items())
    out: dict = {}
    for kind, tiles, used in _options(shape, first, wilds, need_pair, honour):
        rest = list(shape)
        for t in tiles:
            rest[t] -= 1
        for w in used:
            rest[w] += 1
        own = _set_summary(kind, tiles, used, honour, cpos, wpos)
        for summary, sets in _part(tuple(rest), wilds - len(used), need_pair and kind != "pair",
                                   honour, cpos, wpos, fpos):
            out.setdefault(_merge(own, summary), ((kind, tiles, used),) + sets)
    return tuple(out.items())


def _shares(total: int, parts: int):
    """Every way to hand `total` 財神 to `parts` parts."""
    if parts == 1:
        yield (total,)
        return
    for n in range(total + 1):
        for rest in _shares(total - n, parts - 1):
            yield (n,) + rest


def _shift(sets: tuple, offset: int) -> tuple:
    """Part-local positions to tile kinds."""
    return tuple((kind, tuple(offset + t for t in tiles), tuple(offset + w for w in wild))
                 for kind, tiles, wild in sets)


def _local(kind: int | None, offset: int, size: int) -> int:
    return kind - offset if kind is not None and offset <= kind < offset + size else -1


@lru_cache(maxsize=4096)
def _hand_summaries(counts: tuple, wilds: int, caishen: int, win_real: int | None, flower: int) -> tuple:
    """Distinct whole-hand summaries of the concealed tiles: ((summary with suit mask, sets), …).

    The suit mask (bit 0 萬, 1 筒, 2 條, 3 honours) replaces the per-part 'present' flag, and the
    eyes position becomes a tile kind (honours only). Sets come back with tile kinds.
    """
    found: dict = {}
    for pair_part in range(4):
        for share in _shares(wilds, 4):
            acc = {(_EMPTY, 0): ()}
            for idx, ((offset, honour), w) in enumerate(zip(_PARTS, share)):
                size = 7 if honour else 9
                options = _part(tuple(counts[offset:offset + size]), w, idx == pair_part, honour,
                                _local(caishen, offset, size), _local(win_real, offset, size),
                                _local(flower, offset, size) if honour else -1)
                if not options:
                    acc = {}
                    break
                nxt: dict = {}
                for (summary, mask), sets in acc.items():
                    for part_summary, part_sets in options:
                        merged = _merge(summary, part_summary)
                        pair_pos = part_summary[_PAIRPOS]
                        if pair_pos >= 0:   # honour eyes: keep the kind
                            merged = merged[:_PAIRPOS] + (offset + pair_pos,) + merged[_PAIRPOS + 1:]
                        key = (merged[:_PRESENT] + (False,), mask | (part_summary[_PRESENT] << idx))
                        nxt.setdefault(key, sets + _shift(part_sets, offset))
                acc = nxt
            for key, sets in acc.items():
                found.setdefault(key, sets)
    return tuple(found.items())


# ---- input checks -----------------------------------------------------------------------------

def flower_kind(caishen: int) -> int:
    """白板 is the flower, unless it is the 財神: then 紅中 is (seed 004 六、花)."""
    return RED if caishen == WHITE else WHITE


def _check_hand(hand: Hand, table) -> tuple[int, int]:
    """Raise HandError for what 乐清 forbids; return (財神 kind, flower kind)."""
    cs = hand.context.caishen
    if cs is None:
        raise HandError("Yueqing (乐清) scoring needs the wild tile (財神): give context.caishen (the tile turned up "
                        "from the wall)",
                        code="caishen_missing")
    if isinstance(cs, bool) or not isinstance(cs, int) or not 0 <= cs < NUM_KINDS:
        raise HandError(f"the wild tile (財神) must be a playing tile, got {short_repr(cs)}", code="caishen_not_tile",
                        value=cs)
    flower = flower_kind(cs)
    for f in hand.flowers:
        if f != flower:
            raise HandError(f"Yueqing's only flower is {tile_name(flower)} ({zh_name(flower)}): "
                            f"{tile_name(f)} ({zh_name(f)}) cannot be laid out as a flower",
                            code="yueqing_flower", flower=tile_name(flower), flower_zh=zh_name(flower),
                            tile=tile_name(f), tile_zh=zh_name(f))
    if hand.winning_tile is None:
        raise HandError("choose the winning tile (winning_tile is missing)", code="winning_tile_missing")
    if is_flower(hand.winning_tile):
        raise HandError(f"{tile_name(hand.winning_tile)} is a flower; Yueqing plays without flower tiles",
                        code="yueqing_flower_win", tile=tile_name(hand.winning_tile), tile_zh=zh_name(hand.winning_tile))
    if flower in hand.all_tiles:
        raise HandError(f"{tile_name(flower)} ({zh_name(flower)}) is Yueqing's flower and never plays in "
                        f"the hand: put it in 'flowers'", code="yueqing_flower_in_hand",
                        tile=tile_name(flower), tile_zh=zh_name(flower))
    hand.validate(hand_size=table.hand_size)
    if hand.dealer != 0:  # seed 004 §二: 庄家永远是"东"家 (seat winds count from the dealer)
        raise HandError("the Yueqing dealer always sits East (seed 004); the dealer given sits "
                        f"{WIND_NAMES[hand.dealer]}",
                        code="yueqing_dealer_east", dealer=WIND_NAMES[hand.dealer], dealer_zh="東南西北"[hand.dealer])
    if hand.context.kong_replacement and not any(m.is_kong for m in hand.melds) and not hand.flowers:
        # seed 004: 杠杠胡 = 开杠抓进的牌成胡; with no kong (nor a flower laid out) nothing was drawn in replacement
        raise HandError("a win on a replacement draw needs a kong (or a flower laid out) in the hand",
                        code="kong_replacement_no_kong")
    return cs, flower


# ---- features of the exposed melds ------------------------------------------------------------

def _meld_facts(melds, caishen: int, count_caishen: bool) -> dict:
    facts = {"trips": 0, "hmask": 0, "suits": 0, "wilds": 0, "home": 0, "cset": False}
    for m in melds:
        for t in m.tiles:
            facts["suits"] |= 1 << min(t // 9, _HONOUR_BIT)
        if m.type != "chi":
            facts["trips"] += 1
            if m.tiles[0] >= EAST:
                facts["hmask"] |= 1 << (m.tiles[0] - EAST)
        if count_caishen:
            # a 財神 in an exposed meld is played at its own face: at home (归位)
            n = m.tiles.count(caishen)
            facts["wilds"] += n
            facts["home"] += n
            facts["cset"] = facts["cset"] or n >= 3
    return facts


# ---- the items --------------------------------------------------------------------------------

def _has_trip(hmask: int, kind: int) -> bool:
    return bool(hmask >> (kind - EAST) & 1)


def _caishen_items(k: int, home: int, eyes2: bool, wild_eyes: int, cset: bool, niu_ok: bool,
                   settings: dict) -> dict:
    """Items for how the k 財神 are played (seed 004: 归位, 杂胡, 做牛, 三财神刻)."""
    zahu_ok = wild_eyes == 0 or settings["zahu_wild_in_eyes"]
    if k == 0:
        return {"wu_caishen": 1}
    if k == 1:
        return {"caishen_yi_guiwei": 1} if home == 1 else {}
    if k == 2:
        if eyes2:
            return {"caishen_zuo_niu": 1} if niu_ok else {}
        if home == 2:
            return {"shuang_caishen_shuang_guiwei": 1}
        return {"shuang_caishen_zahu": 1, "zahu_guiwei": home} if zahu_ok else {}
    if k == 3:
        items = {}
        if cset:
            items["san_caishen_ke"] = 1
        if home == 3:
            items["san_caishen_san_guiwei"] = 1   # the table's replaces drops it beside 三财神刻
        elif cset:
            pass
        elif eyes2:
            if niu_ok:
                items["san_caishen_zuo_niu"] = 1
        elif home == 2:
            items["san_caishen_shuang_guiwei"] = 1
        elif zahu_ok:
            items.update({"san_caishen_zahu": 1, "zahu_guiwei": home})
        return items
    # four 財神: the seed names no count-specific item, so only the general shapes count
    items = {}
    if eyes2 and niu_ok:
        items["caishen_zuo_niu"] = 1
    if cset:
        items["san_caishen_ke"] = 1
    return items


def _items(s: tuple, suits: int, hand: Hand, facts: dict, settings: dict) -> dict:
    """Pattern id -> count for one whole-hand summary (concealed part s, melds in facts)."""
    cs, flower = facts["caishen"], facts["flower"]
    trips = s[_TRIP] + facts["trips"]
    hmask = s[_HMASK] | facts["hmask"]
    suits |= facts["suits"]
    home = s[_HOME] + facts["home"]
    cset = s[_CSET] or facts["cset"]
    seat = EAST + hand.seat_wind
    ctx = hand.context
    items: dict = {}

    if _has_trip(hmask, seat) and seat != cs:
        items["zi_feng_wei"] = 1
    items["bai_ban"] = facts["flowers"]
    for kind, pid in ((RED, "hong_zhong_ke"), (GREEN, "fa_cai_ke")):
        if kind != flower and _has_trip(hmask, kind) and (kind != cs or settings["caishen_dragon_pong_counts"]):
            items[pid] = 1

    lone = facts["lone"]
    diao = lone == cs
    niu_ok = not (diao and settings["caishen_diao_niu_needs_self_draw"]
                  and hand.winning_tile == cs and not hand.self_drawn)
    items.update(_caishen_items(facts["k"], home, s[_EYES2], s[_WEYES], cset, niu_ok, settings))

    items["gang_shang_kai_hua"] = int(ctx.kong_replacement)
    items["qiang_gang_hu"] = int(ctx.robbing_kong)
    need = 1 if settings["ping_hu_wild_in_winning_chow"] else 2
    if (trips == 0 and s[_PING] >= need and s[_PAIRPOS] not in (seat, RED, GREEN)
            and (facts["k"] == 0 or settings["ping_hu_caishen_elsewhere"])):
        items["ping_hu"] = 1

    items["dui_dui_peng"] = int(trips == 5)
    numbered = suits & 0b111
    one_suit = numbered in (1, 2, 4)
    honours = bool(suits >> _HONOUR_BIT & 1)
    items["hun_yi_se"] = int(one_suit and honours)
    items["qing_yi_se"] = int(one_suit and not honours)
    items["zi_yi_se"] = int(numbered == 0 and honours)
    items["si_feng_qi"] = int(hmask & 0b1111 == 0b1111)
    items["si_bai_ban"] = int(facts["flowers"] == 4)
    if items["si_bai_ban"] and not settings["si_bai_ban_keeps_flower_tai"]:
        items["bai_ban"] = 0
    dragons = [d for d in (RED, GREEN, WHITE) if d != flower] if settings["san_mei_ren_follows_flower"] else [RED, GREEN]
    items["san_mei_ren"] = int(facts["flowers"] >= 3 and all(_has_trip(hmask, d) for d in dragons))

    if lone is not None:
        items["caishen_diao"] = int(diao)
        items["ying_diao_mo_caishen"] = int(not diao and hand.winning_tile == cs and hand.self_drawn)
        items["ying_diao"] = int(not diao and hand.winning_tile == lone)
    items["tian_hu"] = int(ctx.first_turn and hand.is_dealer and hand.self_drawn)
    items["di_hu"] = int(ctx.first_turn and not hand.is_dealer and not hand.self_drawn
                         and hand.discarder in (None, hand.dealer))
    return {p: n for p, n in items.items() if n}


# ---- 台 from the items ------------------------------------------------------------------------

def _in_n(entry) -> bool:
    """Group "1" items feed N; an entry without a group goes by its value."""
    return entry.group == "1" if entry.group is not None else entry.tai == 1


def doubling(raw_n: int, m: int, *, big_one_tai_doubles: bool = True) -> tuple[int, int]:
    """(N, 台) by seed 004 §8: N >= 6 counts as 10; 台 = N if N <= 5 and M == 0, else (N + M) * 2.

    >>> doubling(5, 0), doubling(6, 0), doubling(2, 10), doubling(7, 30)
    ((5, 5), (10, 20), (2, 24), (10, 80))
    >>> doubling(6, 0, big_one_tai_doubles=False)
    (10, 10)
    """
    n = 10 if raw_n >= 6 else raw_n
    if n <= 5 and m == 0:
        return n, n
    if m == 0 and not big_one_tai_doubles:
        return n, n
    return n, (n + m) * 2


def _count(items: dict, table) -> tuple[list, int, int, int, int]:
    """Counted (entry, n) after precedence, and raw N, N, M, 台."""
    counted = [(e, items[e.pattern]) for e in table.active_entries
               if e.tai and items.get(e.pattern)]
    replaced = {r for e, _ in counted for r in e.replaces}
    counted = [(e, n) for e, n in counted if e.id not in replaced]
    raw_n = sum(e.tai * n for e, n in counted if _in_n(e))
    m = sum(e.tai * n for e, n in counted if not _in_n(e))
    n, tai = doubling(raw_n, m, big_one_tai_doubles=table.setting("big_one_tai_doubles"))
    return counted, raw_n, n, m, tai


# ---- output -----------------------------------------------------------------------------------

def _wait(sets, winning: int, caishen: int, ping: bool) -> str:
    """How the winning tile sat in the reading used, in the Taiwanese scorer's words (readings.py):
    tanki (it paired), shanpon (it made a triplet), ryanmen, penchan or kanchan (it ended a run
    two-sided, at an edge or in its middle), or wild (the winning tile is the 財神 itself)."""
    if winning == caishen:
        return "wild"
    if ping:
        return "ryanmen"
    for kind, tiles, wild in sets:
        real = list(tiles)
        for w in wild:
            real.remove(w)
        if winning not in real:
            continue
        if kind == "pair":
            return "tanki"
        if kind == "pong":
            return "shanpon"
        pos = tiles.index(winning)
        if pos == 1:
            return "kanchan"
        start = tiles[0] % 9
        if (pos == 0 and start <= 5) or (pos == 2 and start >= 1):
            return "ryanmen"
        return "penchan"
    return "wild"


def _decomposition(hand: Hand, sets, caishen: int, count_meld_caishen: bool, ping: bool) -> dict:
    out = []
    for m in hand.melds:
        wild = [t for t in m.tiles if t == caishen] if count_meld_caishen else []
        out.append({"type": "kong" if m.is_kong else m.type, "tiles": format_tiles(m.tiles),
                    "concealed": m.is_concealed, "wild": format_tiles(wild)})
    for kind, tiles, wild in sets:
        out.append({"type": kind, "tiles": format_tiles(tiles), "concealed": True,
                    "wild": format_tiles(wild)})
    return {"sets": out, "wait": _wait(sets, hand.winning_tile, caishen, ping),
            "winning_tile": tile_name(hand.winning_tile)}


def _payments(hand: Hand, tai: int) -> dict:
    deltas = settle_yueqing(winner=hand.seat_wind, dealer=hand.dealer, tai=tai, streak=hand.streak)
    return {WIND_NAMES[seat]: deltas[seat] for seat in range(4)}


def _not_a_win(hand: Hand, reason: str, *, code: str, **params) -> dict:
    return {"win": False, "reason": reason, "reason_code": code, "reason_params": params, "tai": 0, "breakdown": [],
            "decomposition": {"sets": [], "wait": None, "winning_tile": hand.winning_tile_name()},
            "formula": {"N": 0, "M": 0, "raw_N": 0},
            "payments": {w: 0 for w in WIND_NAMES}}


def score_yueqing(hand: Hand, table=None) -> dict:
    """Score a 乐清 hand: the best 台 over every way to play the 財神 and split the tiles."""
    if table is None:
        table = load_table("yueqing")
    cs, flower = _check_hand(hand, table)
    settings = {name: table.setting(name) for name in (
        "zahu_wild_in_eyes", "meld_caishen_count", "caishen_dragon_pong_counts",
        "san_mei_ren_follows_flower", "si_bai_ban_keeps_flower_tai", "ping_hu_wild_in_winning_chow",
        "ping_hu_caishen_elsewhere", "caishen_diao_niu_needs_self_draw")}
    tiles = hand.full_concealed
    wilds = tiles.count(cs)
    counts = to_counts(t for t in tiles if t != cs)
    win_real = hand.winning_tile if hand.winning_tile != cs else None
    summaries = _hand_summaries(tuple(counts), wilds, cs, win_real, flower)
    if not summaries:
        extra = f", even with the hand's wild tiles (財神: {wilds}) standing in" if wilds else ""
        return _not_a_win(hand, f"the tiles do not form a pair and five sets{extra}",
                          code="no_win_shape_wild" if wilds else "no_win_shape", wilds=wilds)

    meld = _meld_facts(hand.melds, cs, settings["meld_caishen_count"])
    facts = {**meld, "caishen": cs, "flower": flower, "flowers": len(hand.flowers),
             "k": wilds + meld["wilds"], "lone": hand.concealed[0] if len(hand.melds) == 5 else None}
    best = None
    for (summary, suits), sets in summaries:
        items = _items(summary, suits, hand, facts, settings)
        scored = _count(items, table)
        if best is None or scored[-1] > best[0][-1]:
            best = (scored, sets, items)
    (counted, raw_n, n, m, tai), sets, items = best
    return {"win": True, "reason": None, "tai": tai,
            "breakdown": [{"id": e.id, "name": e.name, "name_en": e.name_en, "tai": e.tai * c, "count": c}
                          for e, c in counted],
            "decomposition": _decomposition(hand, sets, cs, settings["meld_caishen_count"], "ping_hu" in items),
            "formula": {"N": n, "M": m, "raw_N": raw_n},
            "payments": _payments(hand, tai)}
