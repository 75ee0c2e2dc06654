"""Per-suit facts, computed once per distinct suit shape and cached.

A hand's 34 counts split into three suits of 9 and the 7 honours. Whether the hand is complete,
which tiles complete it and how far it is from complete all combine facts about each part alone,
so each part's facts are computed once per shape (a tuple of counts) and looked up afterwards.
That is what makes the win check and wait search cheap enough for live hints on a Raspberry Pi.
"""
from __future__ import annotations

from functools import lru_cache

NEG = -99  # "impossible" in the max-plus tables below

# Completion status of one part: the part alone splits into sets (NO_PAIR) or sets + one pair
# (WITH_PAIR); INVALID otherwise. Chosen so that a hand is complete iff the four statuses are all
# non-zero and add up to 5 (exactly one part holds the pair).
INVALID, NO_PAIR, WITH_PAIR = 0, 1, 2


def _splits_into_sets(shape: tuple, sequences: bool) -> bool:
    """True if the counts split into triplets (and runs of three when `sequences`)."""
    counts = list(shape)
    for i, c in enumerate(counts):
        if c == 0:
            continue
        c %= 3  # triplets first: any triplet-free split of the lowest tile must use runs
        if c:
            if not sequences or i + 2 >= len(counts) or counts[i + 1] < c or counts[i + 2] < c:
                return False
            counts[i + 1] -= c
            counts[i + 2] -= c
    return True


@lru_cache(maxsize=None)
def status(shape: tuple, sequences: bool = True) -> int:
    """INVALID, NO_PAIR or WITH_PAIR for one part (suit shape, or honours with sequences=False)."""
    total = sum(shape)
    if total % 3 == 0:
        return NO_PAIR if _splits_into_sets(shape, sequences) else INVALID
    if total % 3 == 2:
        for i, c in enumerate(shape):
            if c >= 2:
                rest = list(shape)
                rest[i] -= 2
                if _splits_into_sets(tuple(rest), sequences):
                    return WITH_PAIR
    return INVALID


@lru_cache(maxsize=None)
def completions(shape: tuple, sequences: bool = True) -> tuple[int, int]:
    """Bit masks of positions whose addition makes the part NO_PAIR and WITH_PAIR complete."""
    no_pair = with_pair = 0
    rest = list(shape)
    for i in range(len(shape)):
        rest[i] += 1
        st = status(tuple(rest), sequences)
        rest[i] -= 1
        if st == NO_PAIR:
            no_pair |= 1 << i
        elif st == WITH_PAIR:
            with_pair |= 1 << i
    return no_pair, with_pair


# A part's kinds are placed left to right; once kind i is placed, nothing left of it remains, so
# what can still be made depends only on the shape from kind i on. Each such suffix is solved once
# (the depth-first search it replaces took 5 s to advise one 17-tile state holding 15 萬).
_MOVES = (  # (changes to kinds i, i+1, i+2), sets, partial sets, pair
    ((3, 0, 0), 1, 0, 0),   # a triplet
    ((1, 1, 1), 1, 0, 0),   # a run (sequences only)
    ((2, 0, 0), 0, 0, 1),   # the pair
    ((2, 0, 0), 0, 1, 0),   # a pair as a partial set
    ((1, 1, 0), 0, 1, 0),   # two in a row (sequences only)
    ((1, 0, 1), 0, 1, 0),   # two with a gap (sequences only)
    ((1, 0, 0), 0, 0, 0),   # one copy left unused
)


@lru_cache(maxsize=None)
def block_table(shape: tuple, sequences: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For pair in (0, 1): the most partial sets achievable with exactly m sets, m = 0..5 (NEG
    where none). Solved from the shape's first nonzero kind on, each suffix once."""
    i = 0
    while i < len(shape) and shape[i] == 0:
        i += 1
    if i == len(shape):
        return (0,) + (NEG,) * 5, (NEG,) * 6
    best = [[NEG] * 6, [NEG] * 6]
    c = list(shape[i:])
    for change, dm, dt, dp in _MOVES:
        if (change[1] or change[2]) and not sequences:
            continue
        if any(d and (k >= len(c) or c[k] < d) for k, d in enumerate(change)):
            continue
        for k, d in enumerate(change):
            if d:
                c[k] -= d
        sub = block_table(tuple(c), sequences)
        for k, d in enumerate(change):
            if d:
                c[k] += d
        for p2 in (0, 1):
            if dp + p2 > 1:
                continue
            for m2, t2 in enumerate(sub[p2]):
                if t2 != NEG and dm + m2 < 6 and dt + t2 > best[dp + p2][dm + m2]:
                    best[dp + p2][dm + m2] = dt + t2
    return tuple(best[0]), tuple(best[1])


@lru_cache(maxsize=None)
def decompositions(shape: tuple, sequences: bool = True) -> tuple:
    """Every split of one part into sets and at most one pair.

    Each split is a tuple of (kind, position): kind 'pong' (triplet), 'chi' (run starting at
    position) or 'pair'. Used by scoring, which needs all of them, not just one.
    """
    found: set = set()

    def walk(counts: list, i: int, acc: tuple, pair_used: bool) -> None:
        while i < len(counts) and counts[i] == 0:
            i += 1
        if i == len(counts):
            found.add(tuple(sorted(acc)))
            return
        if counts[i] >= 3:
            counts[i] -= 3
            walk(counts, i, acc + (("pong", i),), pair_used)
            counts[i] += 3
        if sequences and i + 2 < len(counts) and counts[i + 1] and counts[i + 2]:
            for j in (i, i + 1, i + 2):
                counts[j] -= 1
            walk(counts, i, acc + (("chi", i),), pair_used)
            for j in (i, i + 1, i + 2):
                counts[j] += 1
        if counts[i] >= 2 and not pair_used:
            counts[i] -= 2
            walk(counts, i, acc + (("pair", i),), True)
            counts[i] += 2

    if status(shape, sequences) != INVALID:
        walk(list(shape), 0, (), False)
    return tuple(sorted(found))
