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


def _blocks(counts: list, i: int, sequences: bool, m: int, t: int, p: int, best: list) -> None:
    """Depth-first count of sets (m), partial sets (t) and a pair (p) in one part.

    best[p][m] keeps the most partial sets seen for each (pair, sets) pair.
    """
    n = len(counts)
    while i < n and counts[i] == 0:
        i += 1
    if i == n:
        if t > best[p][m]:
            best[p][m] = t
        return
    c = counts
    if c[i] >= 3:
        c[i] -= 3
        _blocks(c, i, sequences, m + 1, t, p, best)
        c[i] += 3
    if sequences and i + 2 < n and c[i + 1] and c[i + 2]:
        c[i] -= 1; c[i + 1] -= 1; c[i + 2] -= 1
        _blocks(c, i, sequences, m + 1, t, p, best)
        c[i] += 1; c[i + 1] += 1; c[i + 2] += 1
    if c[i] >= 2:
        c[i] -= 2
        if not p:
            _blocks(c, i, sequences, m, t, 1, best)
        _blocks(c, i, sequences, m, t + 1, p, best)
        c[i] += 2
    if sequences and i + 1 < n and c[i + 1]:
        c[i] -= 1; c[i + 1] -= 1
        _blocks(c, i, sequences, m, t + 1, p, best)
        c[i] += 1; c[i + 1] += 1
    if sequences and i + 2 < n and c[i + 2]:
        c[i] -= 1; c[i + 2] -= 1
        _blocks(c, i, sequences, m, t + 1, p, best)
        c[i] += 1; c[i + 2] += 1
    # leave one copy of tile i unused
    c[i] -= 1
    _blocks(c, i, sequences, m, t, p, best)
    c[i] += 1


@lru_cache(maxsize=None)
def block_table(shape: tuple, sequences: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For pair in (0, 1): the most partial sets achievable with exactly m sets, m = 0..5."""
    best = [[NEG] * 6, [NEG] * 6]
    _blocks(list(shape), 0, sequences, 0, 0, 0, best)
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
