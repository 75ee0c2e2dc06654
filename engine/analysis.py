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

from .suit_tables import INVALID, NEG, NO_PAIR, WITH_PAIR, block_table, completions, status

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
    """
    if sets_needed is None:
        sets_needed = (sum(counts) - 1) // 3
    n = sets_needed
    # acc[p] maps sets -> most partial sets (capped at what can still be used).
    acc0 = {0: 0}
    acc1: dict[int, int] = {}
    for lo, hi, seq in _PARTS:
        t0, t1 = block_table(tuple(counts[lo:hi]), seq)
        new0: dict[int, int] = {}
        new1: dict[int, int] = {}
        for m_a, ta in acc0.items():
            _merge(new0, m_a, ta, t0, n)
            _merge(new1, m_a, ta, t1, n)
        for m_a, ta in acc1.items():
            _merge(new1, m_a, ta, t0, n)
        acc0, acc1 = new0, new1
    best = 0
    for p, acc in ((0, acc0), (1, acc1)):
        for m, t in acc.items():
            v = 2 * m + t + p
            if v > best:
                best = v
    return 2 * n - best


def _merge(out: dict, m_a: int, t_a: int, table: tuple, n: int) -> None:
    for m_b in range(0, n - m_a + 1):
        t_b = table[m_b]
        if t_b == NEG:
            continue
        m = m_a + m_b
        t = t_a + t_b
        cap = n - m
        if t > cap:
            t = cap
        if out.get(m, -1) < t:
            out[m] = t


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
    """Every distinct discard of a 3n+2 state, best first: lower shanten, then more useful copies."""
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
        options.append({"discard": k, "shanten": s, "useful": useful, "useful_copies": copies})
        c[k] += 1
    options.sort(key=lambda o: (o["shanten"], -o["useful_copies"], o["discard"]))
    return options
