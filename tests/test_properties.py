"""Property tests: the engine's table-driven analysis against the plain search in tests.reference.

Deterministic by design (derandomize=True, no example database), so CI sees the same examples on
every run; sizes are kept small enough for the whole file to run in well under a minute on a
busy two-core machine.
"""
from __future__ import annotations

import pytest

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.analysis import advise, is_complete, remaining, shanten, waits, winning_tiles
from engine.hand import Hand
from engine.scoring import score
from engine.service import waits_json
from engine.tiles import (FLOWER_BASE, NUM_ALL, NUM_KINDS, format_tiles, from_counts, parse_tiles,
                          tile_name, to_counts, zh_name)
from tests.reference import (ref_is_complete, ref_shanten, ref_shanten_structural,
                             ref_winning_kinds, ref_waits)

FIXED = settings(derandomize=True, database=None, deadline=None, print_blob=False,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def fixed(examples: int) -> settings:
    return settings(FIXED, max_examples=examples)


# Every set as its three kinds: 34 triplets, then the 21 runs (1-7 of each suit).
SETS = ([(k, k, k) for k in range(NUM_KINDS)]
        + [(s * 9 + n, s * 9 + n + 1, s * 9 + n + 2) for s in range(3) for n in range(7)])


def show(counts) -> str:
    return format_tiles(from_counts(counts))


# --- strategies ----------------------------------------------------------------------------------

def _add(counts: list, kind: int, cap: int) -> None:
    """Add one tile of `kind`, or of the next kind with room when `kind` is full (keeps the cap)."""
    for step in range(NUM_KINDS):
        k = (kind + step) % NUM_KINDS
        if counts[k] < cap:
            counts[k] += 1
            return
    raise AssertionError("no room for another tile")


@st.composite
def random_counts(draw, size: int, cap: int = 4):
    """`size` tiles, at most `cap` copies each; half the time clustered in a few neighbouring
    kinds of one suit, where runs, pairs and overlapping shapes are common."""
    if draw(st.booleans()):
        kinds = st.integers(0, NUM_KINDS - 1)
    else:
        base = draw(st.integers(0, NUM_KINDS - 1))
        kinds = st.integers(base, min(base + draw(st.integers(2, 8)), NUM_KINDS - 1))
    counts = [0] * NUM_KINDS
    for kind in draw(st.lists(kinds, min_size=size, max_size=size)):
        _add(counts, kind, cap)
    return counts


@st.composite
def complete_counts(draw, sets: int, cap: int = 4):
    """A complete hand: `sets` random sets and a pair, each kind at most `cap` copies."""
    counts = [0] * NUM_KINDS
    for _ in range(sets):
        start = draw(st.integers(0, len(SETS) - 1))
        for step in range(len(SETS)):  # the drawn set, or the next one that still fits
            kinds = SETS[(start + step) % len(SETS)]
            if all(counts[k] + kinds.count(k) <= cap for k in kinds):
                for k in kinds:
                    counts[k] += 1
                break
    pair = draw(st.integers(0, NUM_KINDS - 1))
    while counts[pair] + 2 > cap:
        pair = (pair + 1) % NUM_KINDS
    counts[pair] += 2
    return counts


@st.composite
def near_complete_counts(draw, sets: int, cap: int = 4):
    """3n+2 tiles: a complete hand, sometimes with one tile swapped for another kind."""
    counts = draw(complete_counts(sets, cap))
    if draw(st.booleans()):
        held = [k for k in range(NUM_KINDS) if counts[k]]
        counts[draw(st.sampled_from(held))] -= 1
        _add(counts, draw(st.integers(0, NUM_KINDS - 1)), cap)
    return counts


@st.composite
def ready_ish_counts(draw, sets: int, cap: int = 4):
    """3n+1 tiles: a near-complete hand less one tile (often ready), or a random one."""
    if draw(st.integers(0, 3)) == 0:
        return draw(random_counts(3 * sets + 1, cap))
    counts = draw(near_complete_counts(sets, cap))
    held = [k for k in range(NUM_KINDS) if counts[k]]
    counts[draw(st.sampled_from(held))] -= 1
    return counts


@st.composite
def visible_for(draw, counts: list):
    """Counts of what the player sees: the hand plus seen tiles (≤ 4 per kind), mostly near the
    hand so that its waits are often partly or wholly seen."""
    visible = list(counts)
    near = sorted({min(max(k + d, 0), NUM_KINDS - 1) for k in range(NUM_KINDS) if counts[k]
                   for d in (-2, -1, 0, 1, 2)})
    for kind in draw(st.lists(st.sampled_from(near), max_size=12)):
        if visible[kind] < 4:
            visible[kind] += 1
    return visible


# --- (a) complete? ------------------------------------------------------------------------------

@fixed(400)
@given(st.integers(1, 5).flatmap(
    lambda n: st.one_of(near_complete_counts(n), random_counts(3 * n + 2)))
)
def test_is_complete_matches_reference(counts):
    event("complete" if ref_is_complete(counts) else "not complete")
    assert is_complete(counts) == ref_is_complete(counts), show(counts)


def test_is_complete_examples():
    for text, expected in (("123m 456m 789m 123p 456p 77s", True), ("11123455678999m", True),
                           ("EEE SSS WWW NN 123m 456m", True), ("111m 222m 33m", True),
                           ("1122m 5p", False), ("EEE NNN CF", False), ("11m", True),
                           ("12m", False), ("123m 789m EEE 13s", False)):
        counts = to_counts(parse_tiles(text))
        assert is_complete(counts) == ref_is_complete(counts) == expected, text


# --- (b) waits ----------------------------------------------------------------------------------

@st.composite
def state_and_visible(draw):
    counts = draw(st.integers(1, 5).flatmap(ready_ish_counts))
    return counts, draw(visible_for(counts))


@fixed(300)
@given(state_and_visible())
def test_waits_match_reference(case):
    counts, visible = case
    expected = ref_waits(counts, visible)
    event("live waits" if expected else "dead waits only" if ref_winning_kinds(counts) else "not ready")
    assert waits(counts, visible) == expected, (show(counts), show(visible))


@fixed(200)
@given(st.integers(1, 5).flatmap(ready_ish_counts))
def test_winning_tiles_are_every_completing_kind(counts):
    # winning_tiles ignores copies (dead waits included): exactly the kinds that complete.
    assert winning_tiles(counts) == ref_winning_kinds(counts), show(counts)


# --- (c) ready means shanten 0, even when every wait is dead -------------------------------------

@fixed(200)
@given(state_and_visible())
def test_waits_imply_ready(case):
    counts, visible = case
    live = waits(counts, visible)
    if live:
        assert shanten(counts) == 0, show(counts)
    # Structural definition: ready exactly when some kind completes the shape, seen or not.
    assert (shanten(counts) == 0) == bool(winning_tiles(counts)), show(counts)


@fixed(150)
@given(st.integers(1, 5).flatmap(ready_ish_counts))
def test_all_waits_seen_is_still_ready(counts):
    kinds = winning_tiles(counts)
    if not kinds:
        return
    visible = list(counts)
    for k in kinds:
        visible[k] = max(visible[k], 4)  # every remaining copy of every wait is on the table
    assert waits(counts, visible) == []
    assert shanten(counts) == 0, show(counts)


def test_dead_wait_examples_via_service():
    cases = [
        # all four 1m held: the shape waits on a fifth 1m that does not exist
        ({"concealed": "1111m 234p 567p 789p 123s"}, ["1m"]),
        # single wait on 9s, the other three 9s already discarded
        ({"concealed": "123m 456m 789m 123p 456p 9s", "context": {"seen": "9s 9s 9s"}}, ["9s"]),
        # 79p waits on 8p only (55p is the pair), all four seen; one exposed meld
        ({"concealed": "123m 456m 789m 55p 79p", "melds": [{"type": "pong", "tiles": "EEE"}],
          "context": {"seen": "8p 8p 8p 8p"}}, ["8p"]),
    ]
    for data, dead in cases:
        out = waits_json({**data, "rules": "tw-standard"})
        assert out["waits"] == [], data
        assert out["dead_waits"] == dead, data
        assert out["shanten"] == 0, data


def test_live_and_dead_waits_split():
    # 23m waits on 1m and 4m; all four 4m are seen, so only 1m is live.
    out = waits_json({"concealed": "23m 456p 789p 123s 456s EE", "context": {"seen": "4m4m4m4m"},
                      "rules": "tw-standard"})
    assert out["waits"] == [{"tile": "1m", "remaining": 4}]
    assert out["dead_waits"] == ["4m"]
    assert out["shanten"] == 0


# --- (d) shanten ----------------------------------------------------------------------------------
# The reference counts real draws (4-copy cap). The engine is structural and may wait on a fifth
# copy of a kind the hand holds four of, so equality is asserted for hands holding at most three
# copies of each kind; for any hand the engine equals the uncapped count and never exceeds the
# real one (it can only be optimistic).

SMALL_SIZES = [1, 2, 4, 5, 7, 8, 10, 11, 13, 14]  # 3n+1 states and 3n+2 hands, n = 0..4


def _small_hand(size: int, cap: int):
    shaped = (near_complete_counts((size - 2) // 3, cap) if size % 3 == 2
              else ready_ish_counts((size - 1) // 3, cap))
    return st.one_of(random_counts(size, cap), shaped)


@pytest.mark.parametrize("size", SMALL_SIZES)
@fixed(25)
@given(data=st.data())
def test_shanten_matches_reference(size, data):
    counts = data.draw(_small_hand(size, cap=3), label="hand")
    assert shanten(counts) == ref_shanten(counts), show(counts)


@pytest.mark.parametrize("size", SMALL_SIZES)
@fixed(15)
@given(data=st.data())
def test_shanten_is_structural_with_four_copies(size, data):
    counts = data.draw(_small_hand(size, cap=4), label="hand")
    got = shanten(counts)
    assert got == ref_shanten_structural(counts), show(counts)
    assert got <= ref_shanten(counts), show(counts)


@fixed(12)
@given(st.one_of(ready_ish_counts(5, cap=3), random_counts(16, cap=3)))
def test_shanten_matches_reference_16_tiles(counts):
    event(f"shanten {shanten(counts)}")
    assert shanten(counts) == ref_shanten(counts), show(counts)


def test_shanten_examples():
    for text, expected in (("123m 456m 789m 45p E S", 1), ("1111m 234p 567p 789p", 0),
                           ("19m 19p 19s ESWNCFP", 8), ("19m 19p 19s ESWNCFP E", 7),
                           ("123m 456m 789m 123p 456p 7s", 0), ("123m 456m 789m 123p 456p 77s", -1)):
        counts = to_counts(parse_tiles(text))
        assert shanten(counts) == ref_shanten_structural(counts) == expected, text
    # the documented difference: four 1m held, the real count is one more
    assert ref_shanten(to_counts(parse_tiles("1111m 234p 567p 789p"))) == 1


# --- (e) discard advice ---------------------------------------------------------------------------
# At most two copies per kind, so every hand the advice looks at (one tile drawn) holds at most
# three and the reference's real count is the engine's.

@fixed(40)
@given(st.integers(1, 3).flatmap(lambda n: st.one_of(near_complete_counts(n, cap=2),
                                                      random_counts(3 * n + 2, cap=2))))
def test_advise_first_choice(counts):
    n = (sum(counts) - 2) // 3
    event(f"{sum(counts)} tiles")
    options = advise(counts, counts, n)
    first = options[0]
    after = list(counts)
    after[first["discard"]] -= 1

    real = {k: ref_shanten(_minus(counts, k), n) for k in range(NUM_KINDS) if counts[k]}
    assert {o["discard"]: o["shanten"] for o in options} == real, show(counts)
    assert first["shanten"] == min(real.values()), show(counts)
    base = ref_shanten(after, n)
    lowering = [k for k in range(NUM_KINDS) if ref_shanten(_plus(after, k), n) < base]
    assert first["useful"] == lowering, (show(counts), tile_name(first["discard"]))
    assert first["useful_copies"] == sum(remaining(k, counts) for k in lowering)


def _ref_useful_copies(counts, n, seen) -> int:
    base = ref_shanten_structural(counts, n)
    return sum(remaining(u, seen) for u in range(NUM_KINDS)
               if counts[u] < 4 and ref_shanten_structural(_plus(counts, u), n) < base)


def _ref_reshaping(counts, n, seen) -> int:
    """Unseen copies of the draws after which a discard (not the drawn tile) gets closer, or keeps
    its shanten with an improving copy unseen: the plain search's answer."""
    s = ref_shanten_structural(counts, n)
    total = 0
    for k in range(NUM_KINDS):
        if not remaining(k, seen) or counts[k] >= 4:
            continue
        drawn, seen_k = _plus(counts, k), _plus(seen, k)
        for d in range(NUM_KINDS):
            if d == k or not drawn[d]:
                continue
            after = _minus(drawn, d)
            s2 = ref_shanten_structural(after, n)
            if s2 < s or (s2 == s and _ref_useful_copies(after, n, seen_k)):
                total += remaining(k, seen)
                break
    return total


@fixed(150)
@given(st.integers(1, 2).flatmap(lambda n: near_complete_counts(n).flatmap(
    lambda c: st.tuples(st.just(c), visible_for(c)))))
def test_advise_ranks_a_dead_discard_one_step_further(case):
    """A discard whose improving tiles are all seen ranks at shanten + 1: ready, by the copies that
    reshape it into a ready hand with a live wait; every other at its shanten by its improving
    copies; best first by that key."""
    counts, seen = case
    n = (sum(counts) - 2) // 3
    options = advise(counts, seen, n)
    for o in options:
        after = _minus(counts, o["discard"])
        assert o["useful_copies"] == _ref_useful_copies(after, n, seen), show(counts)
        dead = bool(o["useful"]) and not o["useful_copies"]
        event("dead" if dead else "live")
        if dead and o["shanten"] == 0:
            assert (o["rank_shanten"], o["rank_copies"]) == (1, _ref_reshaping(after, n, seen))
            assert o["reshaping_copies"] == o["rank_copies"]
        elif dead:  # further away with every useful tile out: one step further, not searched
            assert (o["rank_shanten"], o["rank_copies"]) == (o["shanten"] + 1, 0) and "reshaping_copies" not in o
        else:
            assert (o["rank_shanten"], o["rank_copies"]) == (o["shanten"], o["useful_copies"])
    keys = [(o["rank_shanten"], -o["rank_copies"]) for o in options]
    assert keys == sorted(keys), show(counts)


def _minus(counts, k):
    out = list(counts)
    out[k] -= 1
    return out


def _plus(counts, k):
    out = list(counts)
    out[k] += 1
    return out


# --- (f) scoring does not depend on tile order ---------------------------------------------------

@st.composite
def winning_hand_dicts(draw):
    """A 17-tile winning hand as JSON: five sets and a pair, 0-2 sets exposed, random context."""
    counts = draw(complete_counts(5))
    tiles = from_counts(counts)
    sets = _split_sets(counts)
    melds = []
    for kinds in sets[:draw(st.integers(0, 2))]:
        melds.append({"type": "pong" if kinds[0] == kinds[1] else "chi",
                      "tiles": format_tiles(kinds)})
        for k in kinds:
            tiles.remove(k)
    tiles = draw(st.permutations(tiles))  # the order the player typed them in
    seat = draw(st.sampled_from("ESWN"))
    self_drawn = draw(st.booleans())
    data = {"rules": "tw-standard", "melds": melds, "winning_tile": tile_name(tiles[-1]),
            "seat_wind": seat, "round_wind": draw(st.sampled_from("ESWN")),
            "self_drawn": self_drawn,
            "flowers": format_tiles(draw(st.sets(st.integers(FLOWER_BASE, NUM_ALL - 1), max_size=3)))}
    if not self_drawn:
        data["discarder"] = "ESWN"[("ESWN".index(seat) + draw(st.integers(1, 3))) % 4]
    return data, list(tiles[:-1])


def _split_sets(counts) -> list[tuple]:
    """One split of a complete hand into its sets (pair left out), by the reference's rule."""
    counts = list(counts)
    for pair in range(NUM_KINDS):
        if counts[pair] >= 2:
            counts[pair] -= 2
            sets = _take_sets(list(counts))
            counts[pair] += 2
            if sets is not None:
                return sets
    raise AssertionError("not complete")


def _take_sets(counts) -> list[tuple] | None:
    low = next((k for k in range(NUM_KINDS) if counts[k]), None)
    if low is None:
        return []
    for kinds in ((low, low, low), (low, low + 1, low + 2)):
        if kinds[1] != low and (low >= 27 or low % 9 > 6):
            continue
        if all(counts[k] >= kinds.count(k) for k in kinds):
            for k in kinds:
                counts[k] -= 1
            rest = _take_sets(counts)
            for k in kinds:
                counts[k] += 1
            if rest is not None:
                return [kinds] + rest
    return None


@fixed(80)
@given(winning_hand_dicts())
def test_score_ignores_tile_order(case):
    data, concealed = case
    canonical = dict(data, concealed=format_tiles(concealed))
    typed = dict(data, concealed=" ".join(tile_name(k) for k in concealed))
    expected = score(Hand.from_dict(canonical))
    assert expected["win"], canonical
    assert score(Hand.from_dict(typed)) == expected, (canonical, typed["concealed"])


# --- (g) notation round trip ---------------------------------------------------------------------

tile_lists = st.lists(st.integers(0, NUM_ALL - 1), max_size=20)


@st.composite
def written_forms(draw):
    """Tiles and one way of writing them, in order: per tile ('1m'), compact runs of one suit
    ('123m'), honour letters or Chinese names, with mixed separators."""
    tiles = draw(tile_lists)
    tokens: list[str] = []
    for k in tiles:
        name = tile_name(k)
        style = draw(st.sampled_from(["name", "zh", "compact"]))
        if style == "zh":
            tokens.append(zh_name(k))
        elif (style == "compact" and tokens and name[-1] in "mpsf" and tokens[-1][:-1].isdigit()
              and tokens[-1][-1] == name[-1]):
            tokens[-1] = tokens[-1][:-1] + name  # '12m' + '3m' -> '123m'
        else:
            tokens.append(name)
    separators = draw(st.lists(st.sampled_from([" ", ", ", "、", "，", "  "]),
                               min_size=len(tokens), max_size=len(tokens)))
    return tiles, "".join(t + s for t, s in zip(tokens, separators))


@fixed(300)
@given(tile_lists)
def test_format_then_parse_gives_sorted_tiles(tiles):
    assert parse_tiles(format_tiles(tiles)) == sorted(tiles)


@fixed(300)
@given(written_forms())
def test_parse_keeps_order_and_format_is_canonical(case):
    tiles, text = case
    assert parse_tiles(text) == tiles, text
    once = format_tiles(parse_tiles(text))
    assert format_tiles(parse_tiles(once)) == once
    assert once == format_tiles(tiles)


@fixed(300)
@given(tile_lists)
def test_chinese_names_parse_to_the_same_tiles(tiles):
    spaced = " ".join(zh_name(k) for k in tiles)
    assert parse_tiles(spaced) == tiles, spaced
    joined = "".join(zh_name(k) for k in tiles)  # no separators: longest name wins
    assert parse_tiles(joined) == tiles, joined


def test_compact_notation_examples():
    assert parse_tiles("123m 55p EEE 1f") == parse_tiles("1m 2m 3m 5p 5p E E E 1f")
    assert format_tiles(parse_tiles("EEE 55p 789s 456p 123m")) == "123m 45556p 789s EEE"
    assert parse_tiles("一萬 東 紅中 梅 白板 發") == parse_tiles("1m E C 5f P F")


# --- (g) the per-suit tables against a plain search -----------------------------------------------

@fixed(150)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9).filter(lambda s: sum(s) <= 11), st.booleans())
def test_block_table_matches_a_plain_search(shape, sequences):
    """The suffix-by-suffix tables (5 s of search to advise one state of 15 萬 before) give what every
    layout of the part's tiles gives."""
    from engine.suit_tables import NEG, block_table
    from tests.reference import ref_block_table

    got = tuple(tuple(-1 if t == NEG else t for t in row) for row in block_table(tuple(shape), sequences))
    assert got == ref_block_table(shape, sequences), (shape, sequences)
