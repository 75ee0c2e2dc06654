"""Slow, plain reference answers for the property tests (no tables, no caching).

Everything works on the engine's 34 counts (kinds 0-26 suited, 27-33 honours, flowers ignored).
Each function is written to be checked by reading it, not to be fast: the property tests only
call it on small hands.

Shanten definition used here (the "exchange" definition):

    A *target* is a multiset of `sets_needed` sets (triplet, or a run of three in one suit) plus
    one pair, holding at most 4 copies of any kind.  The tiles a hand is missing for a target are
    |target - hand| (multiset difference).  ref_shanten = min over targets of that, minus 1.

So a complete hand is -1, a ready hand (聽牌, 3n+1 tiles) is 0, and so on.  This is the real
number of draws needed, and it respects the 4-copy limit.

The engine's shanten() is structural: it counts sets, partial sets and a pair, and so never asks
whether the tile a shape waits on still exists.  That only matters when the hand itself holds all
4 copies of a kind its best shape waits on: 1111m 234p 567p 789p is structurally ready (111m and
a 1m waiting for a fifth 1m) but really 1 away.  So the property tests compare the engine with
ref_shanten on hands holding at most 3 copies of each kind, and on any hand with
ref_shanten_structural, the same search with the cap dropped (and check engine <= ref_shanten).
"""
from __future__ import annotations

NUM_KINDS = 34
COPIES = 4


# --- complete? ---------------------------------------------------------------------------------

def _splits_into_sets(counts: list) -> bool:
    """True if the counts split into triplets and runs (no pair).

    The lowest tile present must belong to some set, and every set holding it either is its
    triplet or a run starting at it (nothing lower is left), so trying those two is exhaustive.
    """
    low = next((k for k in range(NUM_KINDS) if counts[k]), None)
    if low is None:
        return True
    if counts[low] >= 3:
        counts[low] -= 3
        ok = _splits_into_sets(counts)
        counts[low] += 3
        if ok:
            return True
    if low < 27 and low % 9 <= 6 and counts[low + 1] and counts[low + 2]:
        for k in (low, low + 1, low + 2):
            counts[k] -= 1
        ok = _splits_into_sets(counts)
        for k in (low, low + 1, low + 2):
            counts[k] += 1
        if ok:
            return True
    return False


def ref_is_complete(counts) -> bool:
    """Sets and exactly one pair: try every kind as the pair, then split the rest into sets."""
    counts = list(counts)
    if sum(counts) % 3 != 2:
        return False
    for k in range(NUM_KINDS):
        if counts[k] >= 2:
            counts[k] -= 2
            ok = _splits_into_sets(counts)
            counts[k] += 2
            if ok:
                return True
    return False


# --- waits ---------------------------------------------------------------------------------------

def ref_waits(counts, visible) -> list[tuple[int, int]]:
    """(kind, unseen copies) for every kind that completes the hand and still has a copy unseen.

    `visible` counts every tile the player can see, own hand included.
    """
    found = []
    for k in range(NUM_KINDS):
        if visible[k] >= COPIES:
            continue  # no copy left to draw: not a wait
        more = list(counts)
        more[k] += 1
        if ref_is_complete(more):
            found.append((k, COPIES - visible[k]))
    return found


def ref_winning_kinds(counts) -> list[int]:
    """Kinds whose addition completes the hand, whether or not a copy is left (dead waits too)."""
    found = []
    for k in range(NUM_KINDS):
        more = list(counts)
        more[k] += 1
        if ref_is_complete(more):
            found.append(k)
    return found


# --- shanten -------------------------------------------------------------------------------------

def _fits(used: list, kinds: tuple, cap: int | None) -> bool:
    return cap is None or all(used[k] + kinds.count(k) <= cap for k in set(kinds))


def _elements_holding(k: int) -> list[tuple[tuple, bool]]:
    """(kinds, is_pair) of every set or pair that contains kind k."""
    found = [((k, k), True), ((k, k, k), False)]
    if k < 27:
        for first in (k - 2, k - 1, k):
            if first // 9 == k // 9 and 0 <= first and first % 9 <= 6:
                found.append(((first, first + 1, first + 2), False))
    return found


def _best_overlap(hand_left: list, used: list, sets_left: int, pair_left: int, got: int,
                  best: int, cap: int | None, last: tuple = (-1, 0)) -> int:
    """Most hand tiles one target can reuse, by deciding the hand's lowest unmatched kind k:

    either one more target element holding k is chosen (a pair, a triplet or one of up to three
    runs; it matches whatever unmatched hand tiles it can), or no further element will hold k
    and its unmatched copies are given up.  Following the choices of any optimal target reaches
    its overlap (every element holding k is chosen while k is lowest; an element chosen later
    finds k already matched or given up, so nothing is lost), and every path counts no more than
    the overlap of the target it builds, so the maximum is exact.

    Target slots left over at the end are filled with triplets / a pair of kinds the target
    does not use yet (it uses at most 17 of the 34), which fit the cap and can only add overlap,
    so the count stays that of a real target or below.
    hand_left: unmatched hand tiles; used: target counts so far; got: tiles matched so far.
    last = (kind, option): elements for the same kind are chosen in option order, so each
    multiset of elements is tried once rather than in every order.
    """
    left = sum(hand_left)
    if got + min(left, 3 * sets_left + 2 * pair_left) <= best:
        return best  # cannot beat the best found, even matching every remaining slot fully
    if left == 0 or (sets_left == 0 and pair_left == 0):
        return max(best, got)
    k = next(i for i in range(NUM_KINDS) if hand_left[i])
    first = last[1] if last[0] == k else 0
    options = _elements_holding(k)
    for option in range(first, len(options)):
        kinds, is_pair = options[option]
        if (pair_left if is_pair else sets_left) == 0 or not _fits(used, kinds, cap):
            continue
        matched = []
        for t in kinds:
            used[t] += 1
            if hand_left[t]:
                hand_left[t] -= 1
                matched.append(t)
        best = _best_overlap(hand_left, used, sets_left - (not is_pair), pair_left - is_pair,
                             got + len(matched), best, cap, (k, option))
        for t in kinds:
            used[t] -= 1
        for t in matched:
            hand_left[t] += 1
    # give up the unmatched copies of k
    copies, hand_left[k] = hand_left[k], 0
    best = _best_overlap(hand_left, used, sets_left, pair_left, got, best, cap)
    hand_left[k] = copies
    return best


def _shanten(counts, sets_needed: int | None, cap: int | None) -> int:
    counts = list(counts[:NUM_KINDS])
    if sets_needed is None:
        sets_needed = (sum(counts) - 1) // 3
    target_size = 3 * sets_needed + 2
    overlap = _best_overlap(list(counts), [0] * NUM_KINDS, sets_needed, 1, 0, 0, cap)
    return (target_size - overlap) - 1


def ref_shanten(counts, sets_needed: int | None = None) -> int:
    """Fewest tiles missing from any real target (each kind at most 4 copies), minus one.

    sets_needed defaults to (tiles - 1) // 3 like the engine: 13 tiles -> 4 sets and a pair.
    """
    return _shanten(counts, sets_needed, COPIES)


def ref_shanten_structural(counts, sets_needed: int | None = None) -> int:
    """The same count with no copy cap: shapes only, as if a fifth 1m could be drawn.

    This is the engine's documented (structural) meaning of shanten; it differs from ref_shanten
    only for hands holding all four copies of a kind.
    """
    return _shanten(counts, sets_needed, None)


def ref_block_table(shape, sequences: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """engine.suit_tables.block_table by plain depth-first search over every way to lay out the
    part's tiles (the engine's search before it solved each suffix once): best[p][m] is the most
    partial sets with exactly m sets and p pairs, -1 where none."""
    best = [[-1] * 6, [-1] * 6]

    def walk(c: list, i: int, m: int, t: int, p: int) -> None:
        while i < len(c) and c[i] == 0:
            i += 1
        if i == len(c):
            best[p][m] = max(best[p][m], t)
            return
        moves = [((3,), 1, 0, 0), ((2,), 0, 1, 0), ((1,), 0, 0, 0)] + ([((2,), 0, 0, 1)] if not p else [])
        if sequences:
            moves += [((1, 1, 1), 1, 0, 0), ((1, 1), 0, 1, 0), ((1, 0, 1), 0, 1, 0)]
        for change, dm, dt, dp in moves:
            if i + len(change) > len(c) or any(c[i + k] < d for k, d in enumerate(change)):
                continue
            for k, d in enumerate(change):
                c[i + k] -= d
            walk(c, i, m + dm, t + dt, p + dp)
            for k, d in enumerate(change):
                c[i + k] += d

    walk(list(shape), 0, 0, 0, 0)
    return tuple(best[0]), tuple(best[1])
