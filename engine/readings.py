"""Every way to read a winning hand: a split into sets + pair, and where the winning tile sits.

Scoring looks at all readings and keeps the best, because the same tiles can be read as runs or
triplets and the winning tile can complete different sets (a triplet completed by a claimed tile
is not concealed; the wait shape decides 平胡). Splits are cached per suit shape.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from .hand import Hand
from .suit_tables import decompositions
from .tiles import format_tiles, to_counts

_PARTS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))


@dataclass(frozen=True)
class Set:
    kind: str            # 'chi', 'pong', 'kong' or 'pair'
    tile: int            # lowest tile
    concealed: bool      # a concealed triplet/kong (暗刻/暗槓) or a set formed in hand
    melded: bool         # exposed by a claim (吃/碰/明槓/加槓) or an 暗槓 laid down
    meld_type: str | None = None

    @property
    def tiles(self) -> list[int]:
        if self.kind == "chi":
            return [self.tile, self.tile + 1, self.tile + 2]
        return [self.tile] * {"pong": 3, "kong": 4, "pair": 2}[self.kind]

    @property
    def is_triplet(self) -> bool:
        return self.kind in ("pong", "kong")

    def to_dict(self) -> dict:
        return {"type": self.kind, "tiles": format_tiles(self.tiles), "concealed": self.concealed,
                "melded": self.melded}


@dataclass(frozen=True)
class Reading:
    sets: tuple[Set, ...]       # five sets and the pair, melds included
    wait: str | None            # ryanmen 兩面, penchan 邊張, kanchan 嵌張, tanki 單吊, shanpon 雙碰

    @property
    def is_flower_win(self) -> bool:
        """八仙過海 / 七搶一: won on the flowers, with no sets to read."""
        return not self.sets

    @property
    def pair(self) -> Set | None:
        return next((s for s in self.sets if s.kind == "pair"), None)

    def to_dict(self, winning_tile_name: str | None) -> dict:
        return {"sets": [s.to_dict() for s in self.sets], "wait": self.wait,
                "winning_tile": winning_tile_name}


@lru_cache(maxsize=65536)
def _splits(counts: tuple) -> tuple:
    """Splits of the concealed counts: tuples of (kind, tile) over all four parts."""
    per_part = []
    for lo, hi, seq in _PARTS:
        options = decompositions(counts[lo:hi], seq)
        if not options:
            return ()
        per_part.append([tuple((kind, lo + pos) for kind, pos in split) for split in options])
    result = []
    for combo in product(*per_part):
        sets = tuple(s for part in combo for s in part)
        if sum(1 for k, _ in sets if k == "pair") == 1:
            result.append(sets)
    return tuple(result)


def _wait_shape(kind: str, start: int, win: int) -> str:
    if kind == "pair":
        return "tanki"
    if kind == "pong":
        return "shanpon"
    offset = win - start
    if offset == 1:
        return "kanchan"
    if (offset == 2 and start % 9 == 0) or (offset == 0 and start % 9 == 6):
        return "penchan"
    return "ryanmen"


def readings(hand: Hand) -> list[Reading]:
    """All readings of a hand whose concealed part (with the winning tile) is complete."""
    win = hand.winning_tile
    melds = tuple(Set(kind="chi" if m.type == "chi" else ("pong" if m.type == "pong" else "kong"),
                      tile=m.tile, concealed=m.type == "ankong", melded=True, meld_type=m.type)
                  for m in hand.melds)
    counts = tuple(to_counts(hand.full_concealed))
    out: list[Reading] = []
    for split in _splits(counts):
        if win is None:  # no winning tile given (a hand checked as it stands): no wait to name
            sets = tuple(Set(k, t, concealed=k == "pong", melded=False) for k, t in split)
            out.append(Reading(sets + melds, None))
            continue
        seen_places = set()
        for idx, (kind, tile) in enumerate(split):
            covers = win == tile if kind != "chi" else tile <= win <= tile + 2
            if not covers or (kind, tile) in seen_places:
                continue
            seen_places.add((kind, tile))
            sets = []
            for j, (k, t) in enumerate(split):
                # a triplet completed by a claimed tile counts as exposed (明刻)
                concealed = k == "pong" and not (j == idx and not hand.self_drawn)
                sets.append(Set(k, t, concealed=concealed, melded=False))
            out.append(Reading(tuple(sets) + melds, _wait_shape(kind, tile, win)))
    return out
