"""Hand-level answers built from the per-suit tables: complete?, waits, shanten, discard advice.

All functions take the 34 counts of the concealed tiles (exposed melds excluded), so they work
for any number of exposed melds: a 16-tile state with two melds has 10 concealed tiles.

>>> from engine.tiles import parse_tiles, to_counts, tile_name
>>> c = to_counts(parse_tiles("123m456m789m123p45p EE"))
>>> [tile_name(t) for t in winning_tiles(c)]
['3p', '6p']
>>> shanten(c)
0
"""
from __future__ import annotations

from functools import lru_cache

from .suit_tables import INVALID, NEG, WITH_PAIR, block_table, completions, status

_PARTS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))


def is_complete(counts) -> bool:
    """True if the concealed counts split into sets and exactly one pair (any 3n+2 count)."""
    a = status(tuple(counts[0:9]))
    if not a:
        return False
    b = status(tuple(counts[9:18]))
    if not b:
        return False
    c = status(tuple(counts[18:27]))
    if not c:
        return False
    d = status(tuple(counts[27:34]), False)
    return d != INVALID and a + b + c + d == 5


def winning_tiles(counts) -> list[int]:
    """Kinds whose addition completes a 3n+1 concealed state (copies in hand not considered)."""
    shapes = [tuple(counts[lo:hi]) for lo, hi, _ in _PARTS]
    stats = [status(shapes[i], _PARTS[i][2]) for i in range(4)]
    result: list[int] = []
    for i, (lo, _hi, seq) in enumerate(_PARTS):
        others = [stats[j] for j in range(4) if j != i]
        if INVALID in others:
            continue
        pairs = others.count(WITH_PAIR)
        if pairs > 1:
            continue
        mask = completions(shapes[i], seq)[0 if pairs else 1]
        pos = 0
        while mask:
            if mask & 1:
                result.append(lo + pos)
            mask >>= 1
            pos += 1
    return result


def shanten(counts, sets_needed: int | None = None) -> int:
    """Tiles away from ready: -1 complete, 0 ready (聽牌), 1 one tile from ready, …

    Structural: it counts shapes only, so a hand whose waits are all already visible is still 0
    (a dead wait); `waits` then returns nothing. sets_needed defaults to (tiles - 1) // 3.
    The value is 2n - max(2m + min(t, n - m) + p) over sets m, partial sets t and a pair p.
    """
    n = (sum(counts) - 1) // 3 if sets_needed is None else sets_needed
    acc0: tuple = ((0, 0),)
    acc1: tuple = ()
    for lo, hi, seq in _PARTS:
        f0, f1 = block_fronts(tuple(counts[lo:hi]), seq)
        acc0, acc1 = _combine(acc0, f0, n), _combine(acc0, f1, n) + _combine(acc1, f0, n)
    best = max((2 * m + t for m, t in acc0), default=0)
    for m, t in acc1:
        if 2 * m + t + 1 > best:
            best = 2 * m + t + 1
    return 2 * n - best


@lru_cache(maxsize=None)
def block_fronts(shape: tuple, sequences: bool = True) -> tuple[tuple, tuple]:
    """block_table reduced to the (sets, partial sets) pairs worth keeping, for pair 0 and 1.

    (m', t') makes (m, t) useless when m' >= m and m' + t' >= m + t: the final value
    2m + min(t, n - m) can only be as large, whatever the other parts add.
    """
    return tuple(_prune((m, t) for m, t in enumerate(row) if t != NEG) for row in block_table(shape, sequences))


def _prune(pairs) -> tuple:
    kept = []
    best_sum = -1
    for m, t in sorted(pairs, reverse=True):
        if m + t > best_sum:
            kept.append((m, t))
            best_sum = m + t
    return tuple(kept)


def _combine(acc: tuple, front: tuple, n: int) -> tuple:
    if not acc or not front:
        return ()
    out = []
    for m_a, t_a in acc:
        for m_b, t_b in front:
            m = m_a + m_b
            if m <= n:
                t = t_a + t_b
                out.append((m, t if t <= n - m else n - m))
    return _prune(out) if len(out) > 1 else tuple(out)


def remaining(kind: int, visible_counts) -> int:
    return max(0, 4 - visible_counts[kind])


def waits(counts, visible_counts=None) -> list[tuple[int, int]]:
    """(kind, unseen copies) of each winning tile with at least one unseen copy."""
    visible = visible_counts if visible_counts is not None else counts
    return [(k, remaining(k, visible)) for k in winning_tiles(counts) if remaining(k, visible) > 0]


def useful_tiles(counts, sets_needed: int | None = None) -> list[int]:
    """Kinds that lower the shanten of a 3n+1 state when drawn (the formula takes 3n+2 counts too)."""
    n = sets_needed if sets_needed is not None else (sum(counts) - 1) // 3
    base = shanten(counts, n)
    useful = []
    c = list(counts)
    for k in range(34):
        if c[k] >= 4:
            continue
        c[k] += 1
        if shanten(c, n) < base:
            useful.append(k)
        c[k] -= 1
    return useful


def advise(counts, visible_counts=None, sets_needed: int | None = None) -> list[dict]:
    """Every distinct discard of a 3n+2 state, best first: lower shanten, then more useful copies.

    A discard whose useful tiles are all out cannot get closer by them. Ready on dead tiles, it
    must first draw a tile that lets it discard into a ready hand with a live wait: one draw more,
    as a hand one step further away needs. So it ranks one step further, by the unseen copies of
    such tiles (`reshaping_copies`). A hand further away whose every useful tile is out ranks one
    step further too, after the options of that step (its reshaping is not searched: each draw
    would need a shanten search of every discard, seconds on an unusual hand).

    >>> from engine.tiles import parse_tiles, to_counts, tile_name
    >>> hand = to_counts(parse_tiles("123m456m789m123p45pEE9s"))
    >>> seen = to_counts(parse_tiles("123m456m789m123p45pEE9s 3p3p3p 6p6p6p6p"))
    >>> [(tile_name(o["discard"]), o["shanten"], o["useful_copies"], o["rank_copies"])
    ...  for o in advise(hand, seen)[:5]]
    [('1p', 1, 29, 29), ('5p', 1, 25, 25), ('4p', 1, 23, 23), ('2p', 1, 19, 19), ('9s', 0, 0, 14)]
    """
    visible = visible_counts if visible_counts is not None else counts
    n = sets_needed if sets_needed is not None else (sum(counts) - 2) // 3
    options = []
    c = list(counts)
    for k in range(34):
        if not c[k]:
            continue
        c[k] -= 1
        s = shanten(c, n)
        useful = useful_tiles(c, n)
        copies = sum(remaining(u, visible) for u in useful)
        option = {"discard": k, "shanten": s, "useful": useful, "useful_copies": copies,
                  "rank_shanten": s, "rank_copies": copies}
        if useful and not copies:
            option["rank_shanten"], option["rank_copies"] = s + 1, 0
            if s == 0:
                option["reshaping_copies"] = option["rank_copies"] = _reshaping_copies(c, visible)
        options.append(option)
        c[k] += 1
    options.sort(key=lambda o: (o["rank_shanten"], -o["rank_copies"], o["shanten"], o["discard"]))
    return options


def _reshaping_copies(c, visible) -> int:
    """Unseen copies of the tiles that, drawn into a ready 3n+1 state whose winning tiles are all
    out, let a discard (not the drawn tile) leave it ready on a tile with a copy left. Only the
    suit tables' winning tiles are asked, no shanten search."""
    seen = list(visible)
    total = 0
    for k in range(34):
        live = remaining(k, seen)
        if not live or c[k] >= 4:
            continue
        c[k] += 1
        seen[k] += 1
        if any(_ready_on_a_live_tile(c, d, seen) for d in range(34) if c[d] and d != k):
            total += live
        c[k] -= 1
        seen[k] -= 1
    return total


def _ready_on_a_live_tile(c, d: int, seen) -> bool:
    c[d] -= 1
    try:
        return bool(waits(c, seen))  # seen holds the hand, so a kind it has four of has no copy left
    finally:
        c[d] += 1
