"""Tile kinds, the text notation used everywhere, and Chinese names.

Kinds are small ints: 0-8 萬 1m-9m, 9-17 筒 1p-9p, 18-26 條 1s-9s, 27-30 東南西北 (E S W N),
31 紅中 (C), 32 發 (F), 33 白板 (P), and flowers 34-41 = 1f-8f: 1f-4f 春夏秋冬 and 5f-8f
梅蘭竹菊 by the number printed on them (1 = 東 … 4 = 北).

>>> format_tiles(parse_tiles("EEE 55p 789s 456p 123m"))
'123m 45556p 789s EEE'
>>> parse_tiles("一萬 東 紅中 梅") == parse_tiles("1m E C 5f")
True
"""
from __future__ import annotations

import re
from collections import Counter

from .errors import HandError, short, short_repr

NUM_KINDS = 34          # playing tiles; flowers are separate
NUM_ALL = 42            # with the eight flowers
SUITS = "mps"
HONOR_LETTERS = "ESWNCFP"
EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (RED, GREEN, WHITE)
FLOWER_BASE = 34

_ZH_NUM = "一二三四五六七八九"
_ZH_SUIT = {"m": "萬", "p": "筒", "s": "條"}
_ZH_HONOR = ["東", "南", "西", "北", "紅中", "發", "白板"]
_ZH_FLOWER = ["春", "夏", "秋", "冬", "梅", "蘭", "竹", "菊"]
_EN_HONOR = ["East", "South", "West", "North", "Red", "Green", "White"]
_EN_FLOWER = ["Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum"]

# Chinese spellings accepted on input, longest first so that 紅中 wins over 中.
_ZH_ALIASES: dict[str, int] = {}
for _s, _base in (("m", 0), ("p", 9), ("s", 18)):
    for _i, _n in enumerate(_ZH_NUM):
        for _suit_zh in {"m": ("萬", "万"), "p": ("筒", "餅", "饼"), "s": ("條", "条", "索")}[_s]:
            _ZH_ALIASES[_n + _suit_zh] = _base + _i
for _name, _kind in (("東", 27), ("东", 27), ("南", 28), ("西", 29), ("北", 30),
                     ("紅中", 31), ("红中", 31), ("中", 31), ("發財", 32), ("发财", 32), ("青發", 32),
                     ("發", 32), ("发", 32), ("白板", 33), ("白", 33)):
    _ZH_ALIASES[_name] = _kind
for _i, _name in enumerate(_ZH_FLOWER):
    _ZH_ALIASES[_name] = FLOWER_BASE + _i
_ZH_ALIASES.update({"兰": 39, "東風": 27, "南風": 28, "西風": 29, "北風": 30})
_ZH_PATTERN = "|".join(sorted(map(re.escape, _ZH_ALIASES), key=len, reverse=True))
_TOKEN = re.compile(rf"\s*(?:(?P<num>[1-9]+)(?P<suit>[mpsf])|(?P<honor>[ESWNCFP])|(?P<zh>{_ZH_PATTERN})|(?P<sep>[,，、]))")


def is_flower(kind: int) -> bool:
    return kind >= FLOWER_BASE


def is_honor(kind: int) -> bool:
    return 27 <= kind < FLOWER_BASE


def is_terminal(kind: int) -> bool:
    return kind < 27 and kind % 9 in (0, 8)


def suit_of(kind: int) -> int:
    """0 萬, 1 筒, 2 條, 3 honours, 4 flowers."""
    return 4 if kind >= FLOWER_BASE else min(kind // 9, 3)


def number_of(kind: int) -> int:
    """Face number 1-9 of a suited tile, 1-8 of a flower, 0 for honours."""
    if kind < 27:
        return kind % 9 + 1
    return kind - FLOWER_BASE + 1 if kind >= FLOWER_BASE else 0


def flower_seat(kind: int) -> int:
    """Seat (0 東 … 3 北) a flower belongs to, from its printed number."""
    return (kind - FLOWER_BASE) % 4


def tile_name(kind: int) -> str:
    """Notation of one tile: '1m', 'E', '5f'."""
    if not 0 <= kind < NUM_ALL:
        raise HandError(f"no tile with index {kind}", code="tile_index", index=kind)
    if kind < 27:
        return f"{kind % 9 + 1}{SUITS[kind // 9]}"
    if kind < FLOWER_BASE:
        return HONOR_LETTERS[kind - 27]
    return f"{kind - FLOWER_BASE + 1}f"


def zh_name(kind: int) -> str:
    if kind < 27:
        return _ZH_NUM[kind % 9] + _ZH_SUIT[SUITS[kind // 9]]
    if kind < FLOWER_BASE:
        return _ZH_HONOR[kind - 27]
    return _ZH_FLOWER[kind - FLOWER_BASE]


def en_name(kind: int) -> str:
    if kind < 27:
        return f"{kind % 9 + 1} {('Characters', 'Dots', 'Bamboo')[kind // 9]}"
    if kind < FLOWER_BASE:
        return _EN_HONOR[kind - 27]
    return _EN_FLOWER[kind - FLOWER_BASE]


def parse_tile(text: str) -> int:
    """One tile in any accepted spelling."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise HandError(f"expected one tile, got {short_repr(text)}", code="one_tile_expected", text=text)
    return tiles[0]


def parse_tiles(text: str) -> list[int]:
    """Tiles from compact notation ('123m 55p EEE 1f'), per-tile ('1m 2m'), or Chinese names.

    Order is kept as written; raises HandError naming the first thing it cannot read.
    """
    if not isinstance(text, str):
        raise HandError(f"tiles must be given as a string, got {type(text).__name__}", code="tiles_not_string",
                        type=type(text).__name__)
    tiles: list[int] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            bad = text[pos:].strip().split()[0] if text[pos:].strip() else text[pos:]
            raise HandError(f"cannot read tiles at {short_repr(bad, 20)} in {short_repr(text)}", code="tiles_unreadable",
                            at=short(bad, 20), text=text)
        pos = m.end()
        if m["num"]:
            suit = m["suit"]
            for digit in m["num"]:
                n = int(digit)
                if suit == "f":
                    if n > 8:
                        raise HandError(f"flowers are 1f-8f, got {digit}f", code="flower_number", tile=f"{digit}f")
                    tiles.append(FLOWER_BASE + n - 1)
                else:
                    tiles.append(SUITS.index(suit) * 9 + n - 1)
        elif m["honor"]:
            tiles.append(27 + HONOR_LETTERS.index(m["honor"]))
        elif m["zh"]:
            tiles.append(_ZH_ALIASES[m["zh"]])
        # separators add nothing
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tiles


def format_tiles(tiles) -> str:
    """Canonical text: sorted, digits grouped per suit, suits in order m p s, honours, flowers."""
    groups: list[str] = []
    ordered = sorted(tiles)
    for s, suit in enumerate(SUITS):
        digits = "".join(str(k - 9 * s + 1) for k in ordered if 9 * s <= k < 9 * s + 9)
        if digits:
            groups.append(digits + suit)
    honors = "".join(HONOR_LETTERS[k - 27] for k in ordered if 27 <= k < FLOWER_BASE)
    if honors:
        groups.append(honors)
    flowers = "".join(str(k - FLOWER_BASE + 1) for k in ordered if k >= FLOWER_BASE)
    if flowers:
        groups.append(flowers + "f")
    return " ".join(groups)


def to_counts(tiles) -> list[int]:
    """34 counts of the playing tiles (flowers are not counted)."""
    counts = [0] * NUM_KINDS
    for k in tiles:
        if k < NUM_KINDS:
            counts[k] += 1
    return counts


def from_counts(counts) -> list[int]:
    return [k for k, c in enumerate(counts) for _ in range(c)]


def check_copies(tiles, *, limit: int = 4) -> None:
    """Raise if any tile appears more often than the set has copies (flowers: one each)."""
    for kind, n in Counter(tiles).items():
        cap = 1 if is_flower(kind) else limit
        if n > cap:
            raise HandError(f"{n} copies of {tile_name(kind)} ({zh_name(kind)}); a set has {cap}", code="too_many_copies",
                            n=n, tile=tile_name(kind), tile_zh=zh_name(kind), cap=cap)
