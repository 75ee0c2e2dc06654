"""台 patterns: one small detector per pattern id, each returning how many times it applies.

Rule tables (engine/rules/*.toml) say which patterns count, for how many 台, and what they
replace; detectors only say whether the hand has the pattern. A detector gets the Features of
one reading of the hand and the table's settings. A flower win (八仙過海, 七搶一) has no sets:
the scorer runs only the flower and dealer detectors on it, so the others need not check.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .hand import Hand
from .readings import Reading
from .tiles import DRAGONS, FLOWER_BASE, WINDS, flower_seat, is_flower, is_honor, is_terminal

PATTERNS: dict = {}


def pattern(fn):
    PATTERNS[fn.__name__] = fn
    return fn


@dataclass
class Features:
    """What the detectors ask about one reading of one hand, computed on first use."""
    hand: Hand
    reading: Reading
    wait_count: int          # kinds that would have won from the pre-win state (獨聽 needs 1)

    @cached_property
    def sets(self):
        return [s for s in self.reading.sets if s.kind != "pair"]

    @cached_property
    def pair(self):
        return self.reading.pair

    @cached_property
    def tiles(self) -> list[int]:
        return self.hand.all_tiles

    @cached_property
    def triplet_tiles(self) -> list[int]:
        return [s.tile for s in self.sets if s.is_triplet]

    @cached_property
    def triplet_kinds(self) -> frozenset[int]:
        return frozenset(self.triplet_tiles)

    @cached_property
    def open_melds(self):
        return [m for m in self.hand.melds if m.type != "ankong"]

    @property
    def menqing(self) -> bool:
        return not self.open_melds

    def menqing_under(self, cfg) -> bool:
        """門清 as the table counts it: open_kong_breaks_menqing false lets an open kong of a
        discard (明槓) keep it, as the seeds' words (吃 and 碰 only) can be read."""
        if cfg.get("open_kong_breaks_menqing", True):
            return self.menqing
        return not [m for m in self.open_melds if m.type != "kong"]

    @property
    def self_drawn(self) -> bool:
        return self.hand.self_drawn

    @cached_property
    def flowers(self) -> list[int]:
        fl = [f for f in self.hand.flowers if is_flower(f)]
        w = self.hand.winning_tile
        if w is not None and is_flower(w):
            fl.append(w)
        return fl

    @cached_property
    def suits(self) -> set[int]:
        return {t // 9 for t in self.tiles if t < 27}

    @cached_property
    def has_honours(self) -> bool:
        return any(is_honor(t) for t in self.tiles)

    @cached_property
    def concealed_triplets(self) -> int:
        return sum(1 for s in self.sets if s.is_triplet and s.concealed)


def _count_triplets(f: Features, kinds) -> int:
    """Triplets (or kongs) of the given kinds; a kind has at most one triplet in a hand."""
    have = f.triplet_kinds
    return sum(1 for k in kinds if k in have)


@pattern
def menqing(f, cfg):
    return int(f.menqing_under(cfg))


@pattern
def zimo(f, cfg):
    return int(f.self_drawn)


@pattern
def menqing_zimo(f, cfg):
    return int(f.menqing_under(cfg) and f.self_drawn)


@pattern
def kong_bloom(f, cfg):
    return int(f.hand.context.kong_replacement and f.self_drawn)


@pattern
def last_tile_draw(f, cfg):
    return int(f.hand.context.last_tile and f.self_drawn)


@pattern
def last_tile_discard(f, cfg):
    return int(f.hand.context.last_tile and not f.self_drawn)


@pattern
def robbing_kong(f, cfg):
    return int(f.hand.context.robbing_kong)


@pattern
def all_melded(f, cfg):
    """全求人: five claimed melds, the last tile won on a discard."""
    claimed = [m for m in f.hand.melds if m.type != "ankong"]
    return int(len(claimed) == 5 and not f.self_drawn)


@pattern
def single_wait(f, cfg):
    """獨聽: only one tile could win ("tiles", the default), or the winning reading is an edge,
    closed or pair wait whatever else could have won ("shape", the seeds' words read literally)."""
    if cfg.get("single_wait_by", "tiles") == "shape":
        return int(f.reading.wait in ("penchan", "kanchan", "tanki"))
    return int(f.wait_count == 1)


@pattern
def seat_wind(f, cfg):
    return _count_triplets(f, (WINDS[f.hand.seat_wind],))


@pattern
def round_wind(f, cfg):
    return _count_triplets(f, (WINDS[f.hand.round_wind],))


def _flower_groups(f):
    have = set(f.flowers)
    return [g for g in (range(FLOWER_BASE, FLOWER_BASE + 4), range(FLOWER_BASE + 4, FLOWER_BASE + 8))
            if all(x in have for x in g)]


@pattern
def seat_flower(f, cfg):
    """花牌: each flower whose printed number is the winner's seat (1 東 … 4 北)."""
    full = set(x for g in _flower_groups(f) for x in g)
    keep_in_kong = cfg.get("flower_kong_keeps_seat_flower", False)
    return sum(1 for x in f.flowers if flower_seat(x) == f.hand.seat_wind and (keep_in_kong or x not in full))


@pattern
def flower_kong(f, cfg):
    return len(_flower_groups(f))


@pattern
def eight_flowers(f, cfg):
    """八仙過海: all eight flowers, won by drawing the eighth or on an ordinary win (a robbed
    eighth flower is 七搶一 instead)."""
    w = f.hand.winning_tile
    return int(len(f.flowers) == 8 and (f.self_drawn or w is None or not is_flower(w)))


@pattern
def seven_rob_one(f, cfg):
    w = f.hand.winning_tile
    return int(len(f.flowers) == 8 and w is not None and is_flower(w) and not f.self_drawn)


@pattern
def pinghu(f, cfg):
    """平胡: no honours, no flowers, no triplets, not concealed, not self-drawn, two-sided wait.

    Tables differ on the last three (NOTES.md); each is a setting, the seeds' wording the default.
    """
    if f.flowers or f.has_honours or f.triplet_tiles:
        return 0
    if (f.menqing and cfg.get("pinghu_requires_open", True)) or (
            f.self_drawn and cfg.get("pinghu_requires_discard", True)):
        return 0
    return int(f.reading.wait == "ryanmen" or cfg.get("pinghu_any_wait", False))


@pattern
def all_pongs(f, cfg):
    return int(len(f.triplet_tiles) == 5)


@pattern
def three_concealed(f, cfg):
    return int(f.concealed_triplets >= 3)


@pattern
def four_concealed(f, cfg):
    return int(f.concealed_triplets >= 4)


@pattern
def five_concealed(f, cfg):
    return int(f.concealed_triplets == 5)


@pattern
def half_flush(f, cfg):
    return int(len(f.suits) == 1 and f.has_honours)


@pattern
def full_flush(f, cfg):
    if len(f.suits) == 1 and not f.has_honours:
        return 1
    return int(not f.suits and cfg.get("full_flush_includes_all_honours", False))


@pattern
def small_dragons(f, cfg):
    return int(_count_triplets(f, DRAGONS) == 2 and f.pair is not None and f.pair.tile in DRAGONS)


@pattern
def big_dragons(f, cfg):
    return int(_count_triplets(f, DRAGONS) == 3)


@pattern
def small_winds(f, cfg):
    return int(_count_triplets(f, WINDS) == 3 and f.pair is not None and f.pair.tile in WINDS)


@pattern
def big_winds(f, cfg):
    return int(_count_triplets(f, WINDS) == 4)


@pattern
def heavenly_win(f, cfg):
    return int(f.hand.context.first_turn and f.hand.is_dealer and f.self_drawn)


@pattern
def earthly_win(f, cfg):
    ctx = f.hand.context
    if cfg.get("earthly_win", "first_draw") == "dealer_first_discard":
        return int(ctx.first_turn and not f.hand.is_dealer and not f.self_drawn
                   and f.hand.discarder == f.hand.dealer)
    return int(ctx.first_turn and not f.hand.is_dealer and f.self_drawn)


@pattern
def human_win(f, cfg):
    return int(f.hand.context.first_turn and not f.self_drawn)


@pattern
def declared_ready(f, cfg):
    return int(f.hand.context.declared_ready)


@pattern
def heavenly_ready(f, cfg):
    return int(f.hand.context.heavenly_ready)


@pattern
def earthly_ready(f, cfg):
    return int(f.hand.context.earthly_ready)


@pattern
def ippatsu(f, cfg):
    return int(f.hand.context.ippatsu)


def _one_triplet(tile):
    return lambda f, cfg: _count_triplets(f, (tile,))


def _wind_row(tile):
    """東風…北風: a triplet of that wind. With `wind_rows_with_seat_round` false (the common
    counting) the row is not counted for the seat's or the round's own wind, which 門風/圈風 count."""
    def detect(f, cfg):
        if not cfg.get("wind_rows_with_seat_round", True) and tile in (WINDS[f.hand.seat_wind],
                                                                          WINDS[f.hand.round_wind]):
            return 0
        return _count_triplets(f, (tile,))
    return detect


# 紅中/青發/白板 and 東風…北風: one triplet (or kong) of that tile.
for _pid, _tile in (("red_dragon", DRAGONS[0]), ("green_dragon", DRAGONS[1]), ("white_dragon", DRAGONS[2])):
    PATTERNS[_pid] = _one_triplet(_tile)
for _pid, _tile in (("east_triplet", WINDS[0]), ("south_triplet", WINDS[1]),
                    ("west_triplet", WINDS[2]), ("north_triplet", WINDS[3])):
    PATTERNS[_pid] = _wind_row(_tile)


@pattern
def dragon_triplet(f, cfg):
    return _count_triplets(f, DRAGONS)


@pattern
def wind_triplet(f, cfg):
    return _count_triplets(f, WINDS)


@pattern
def flower_any(f, cfg):
    return len(f.flowers)


@pattern
def no_honours_no_flowers(f, cfg):
    return int(not f.has_honours and not f.flowers)


@pattern
def open_kong(f, cfg):
    return sum(1 for m in f.hand.melds if m.type in ("kong", "addkong"))


@pattern
def concealed_kong(f, cfg):
    return sum(1 for m in f.hand.melds if m.type == "ankong")


@pattern
def all_honours(f, cfg):
    return int(not f.suits)


@pattern
def all_terminals(f, cfg):
    return int(all(is_terminal(t) for t in f.tiles))


@pattern
def terminals_honours(f, cfg):
    return int(all(is_terminal(t) or is_honor(t) for t in f.tiles)
               and f.has_honours and bool(f.suits))


def _every_set_has(f, ok) -> bool:
    return all(any(ok(t) for t in s.tiles) for s in f.reading.sets)


@pattern
def pure_outside(f, cfg):
    return int(_every_set_has(f, is_terminal) and not f.has_honours)


@pattern
def mixed_outside(f, cfg):
    return int(_every_set_has(f, lambda t: is_terminal(t) or is_honor(t)) and f.has_honours
               and bool(f.suits))


@pattern
def all_simples(f, cfg):
    return int(all(not is_terminal(t) and not is_honor(t) for t in f.tiles))


def _triplet_numbers(f):
    return {(t // 9, t % 9) for t in f.triplet_tiles if t < 27}


def _runs(f):
    return [(s.tile // 9, s.tile % 9) for s in f.sets if s.kind == "chi"]


@pattern
def three_colour_triplets(f, cfg):
    nums = _triplet_numbers(f)
    return int(any(all((suit, n) in nums for suit in range(3)) for n in range(9)))


@pattern
def three_colour_runs(f, cfg):
    runs = set(_runs(f))
    return int(any(all((suit, n) in runs for suit in range(3)) for n in range(7)))


@pattern
def pure_straight(f, cfg):
    runs = set(_runs(f))
    return int(any(all((suit, n) in runs for n in (0, 3, 6)) for suit in range(3)))


@pattern
def three_consecutive_triplets(f, cfg):
    nums = _triplet_numbers(f)
    return int(any((s, n) in nums and (s, n + 1) in nums and (s, n + 2) in nums
                   for s in range(3) for n in range(7)))


@pattern
def triple_run(f, cfg):
    runs = _runs(f)
    return int(any(runs.count(r) >= 3 for r in set(runs)))


@pattern
def bonus_tile(f, cfg):
    """寶牌: each copy in the winning hand of a shown bonus tile."""
    return sum(f.tiles.count(b) for b in f.hand.context.bonus_tiles)


@pattern
def lilikuli(f, cfg):
    return int(f.reading.wait == "lilikuli")


# Entries the scorer treats specially: 屁胡 counts when nothing else does; 莊家 and 連莊拉莊 only
# count on payments between the dealer and the other side.
@pattern
def no_score(f, cfg):
    return 1


@pattern
def dealer(f, cfg):
    return 1


@pattern
def dealer_streak(f, cfg):
    return f.hand.streak


DEALER_PATTERNS = frozenset({"dealer", "dealer_streak"})
