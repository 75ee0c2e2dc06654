"""Speed of the engine's win check, waits, shanten and scoring, against the `mahjong` package.

Run with `python -m tests.bench [N]` (`make bench`). The same N random hands (fixed seed) go to
both libraries in one process; inputs are converted before timing, and each call is timed on its
own with time.perf_counter_ns (timer overhead subtracted). The engine builds its per-suit tables
lazily, so a cold first pass (caches cleared) is reported apart from the warm median.

`mahjong` (2.x) is the riichi calculator: Agari.is_agari(tiles_34) also accepts seven pairs and
thirteen orphans and Shanten.calculate_shanten(tiles_34) takes at most 14 tiles, so it is timed
on the 14-tile hands only. Timing never decides a unit test; this prints figures, nothing more.
"""
from __future__ import annotations

import gc
import random
import statistics
import sys
import time

from mahjong.agari import Agari
from mahjong.shanten import Shanten

from engine import analysis, readings, suit_tables
from engine.hand import Hand
from engine.rules import load_table
from engine.scoring import score
from engine.tiles import NUM_KINDS, format_tiles, from_counts, tile_name

SEED = 20240601
DEFAULT_N = 2000
REPEATS = 3  # warm passes; the median is over every call of every pass

# Every set as its three kinds: 34 triplets, then the 21 runs.
SETS = ([(k, k, k) for k in range(NUM_KINDS)]
        + [(s * 9 + n, s * 9 + n + 1, s * 9 + n + 2) for s in range(3) for n in range(7)])


# --- hands -----------------------------------------------------------------------------------------

def complete_counts(rng: random.Random, sets: int) -> list[int]:
    """Random sets and a pair, at most 4 copies of a kind."""
    counts = [0] * NUM_KINDS
    while sum(counts) < 3 * sets:
        kinds = rng.choice(SETS)
        if all(counts[k] + kinds.count(k) <= 4 for k in kinds):
            for k in kinds:
                counts[k] += 1
    pair = rng.choice([k for k in range(NUM_KINDS) if counts[k] <= 2])
    counts[pair] += 2
    return counts


def random_counts(rng: random.Random, size: int) -> list[int]:
    """`size` tiles drawn from a full 136-tile wall."""
    counts = [0] * NUM_KINDS
    for k in rng.sample([k for k in range(NUM_KINDS) for _ in range(4)], size):
        counts[k] += 1
    return counts


def half_complete(rng: random.Random, n: int, sets: int) -> list[list[int]]:
    """n hands of 3*sets+2 tiles, alternately complete and random."""
    return [complete_counts(rng, sets) if i % 2 == 0 else random_counts(rng, 3 * sets + 2)
            for i in range(n)]


def states_16(rng: random.Random, n: int) -> list[list[int]]:
    """n 16-tile states: half a complete hand less one tile (ready), half random."""
    out = []
    for i in range(n):
        if i % 2 == 0:
            counts = complete_counts(rng, 5)
            counts[rng.choice([k for k in range(NUM_KINDS) if counts[k]])] -= 1
        else:
            counts = random_counts(rng, 16)
        out.append(counts)
    return out


def winning_hands(rng: random.Random, n: int) -> list[Hand]:
    """n 17-tile winning hands as prepared Hand objects (concealed, tw-standard)."""
    hands = []
    for _ in range(n):
        tiles = from_counts(complete_counts(rng, 5))
        rng.shuffle(tiles)
        winning = tiles.pop()
        self_drawn = rng.random() < 0.5
        seat = rng.choice("ESWN")
        data = {"rules": "tw-standard", "concealed": format_tiles(tiles),
                "winning_tile": tile_name(winning), "self_drawn": self_drawn, "seat_wind": seat}
        if not self_drawn:
            data["discarder"] = "ESWN"[("ESWN".index(seat) + 1) % 4]
        hands.append(Hand.from_dict(data))
    return hands


# --- timing ----------------------------------------------------------------------------------------

def _timer_overhead_ns() -> int:
    clock = time.perf_counter_ns
    samples = []
    for _ in range(20000):
        t0 = clock()
        samples.append(clock() - t0)
    return int(statistics.median(samples))


def time_calls(fn, inputs, overhead: int) -> list[int]:
    """Nanoseconds of each fn(x), overhead subtracted; the GC is held off while timing."""
    clock = time.perf_counter_ns
    out = []
    gc.disable()
    try:
        for x in inputs:
            t0 = clock()
            fn(x)
            out.append(clock() - t0 - overhead)
    finally:
        gc.enable()
    return out


def clear_engine_caches() -> None:
    """Forget the per-suit tables, so the next pass shows the cost of building them."""
    for module in (suit_tables, readings):
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def measure(cases: dict, overhead: int) -> dict:
    """For each case name -> (fn, inputs): the cold first pass and the warm median, in µs."""
    clear_engine_caches()
    results = {}
    for name, (fn, inputs) in cases.items():
        cold = time_calls(fn, inputs, overhead)
        results[name] = {"cold_total_ms": sum(cold) / 1e6,
                         "cold_median_us": statistics.median(cold) / 1e3, "warm": []}
    for _ in range(REPEATS):  # interleave the cases so a busy moment hits them all alike
        for name, (fn, inputs) in cases.items():
            results[name]["warm"].extend(time_calls(fn, inputs, overhead))
    for r in results.values():
        r["median_us"] = statistics.median(r.pop("warm")) / 1e3
    return results


# --- report ----------------------------------------------------------------------------------------

def agreement(hands14) -> str:
    """Sanity: both libraries agree on the 14-tile hands - which are complete (seven-pairs
    shapes aside: riichi only) and their regular-hand shanten."""
    plain = [c for c in hands14 if sum(1 for x in c if x == 2) != 7]
    wins = sum(analysis.is_complete(c) == Agari.is_agari(c) for c in plain)
    shanten = sum(analysis.shanten(c) == Shanten.calculate_shanten_for_regular_hand(c)
                  for c in hands14)
    return (f"sanity: win check agrees with is_agari on {wins}/{len(plain)} hands (seven-pairs "
            f"shapes left out); shanten agrees with regular-hand shanten on "
            f"{shanten}/{len(hands14)}")


def targets(med: dict) -> list[tuple[str, float, str, bool]]:
    """(measure, figure, goal, met) for each goal the engine is held to."""
    mj_shanten = med["mahjong calculate_shanten, 14 tiles"]
    win = med["ours win check, 14 tiles"] / med["mahjong is_agari, 14 tiles"]
    waits = med["ours waits, 16-tile state"] / mj_shanten
    shanten = med["ours shanten, 16-tile state"] / mj_shanten
    full = med["ours full score, 17-tile win"]
    return [("win check 14 / mahjong is_agari", win, "≤ 0.5×", win <= 0.5),
            ("waits 16 / mahjong shanten 14", waits, "≤ 1.0×", waits <= 1.0),
            ("shanten 16 / mahjong shanten 14", shanten, "≤ 1.0×", shanten <= 1.0),
            ("full score, 17-tile win (µs)", full, "< 200 µs", full < 200)]


README_ROWS = ("ours win check, 14 tiles", "ours win check, 17 tiles", "ours waits, 16-tile state",
               "ours shanten, 16-tile state", "ours full score, 17-tile win",
               "ours score, table preloaded", "mahjong is_agari, 14 tiles",
               "mahjong calculate_shanten, 14 tiles")


def report(res: dict, n: int, overhead: int, hands14) -> None:
    med = {name: r["median_us"] for name, r in res.items()}
    print(f"# engine vs mahjong {_mahjong_version()}: N={n} hands per case, seed {SEED}, "
          f"{REPEATS} warm passes, timer overhead {overhead} ns subtracted\n")
    print(f"{'case':42} {'cold pass ms':>13} {'cold med µs':>12} {'warm med µs':>12}")
    for name, r in res.items():
        print(f"{name:42} {r['cold_total_ms']:13.1f} {r['cold_median_us']:12.2f} "
              f"{r['median_us']:12.2f}")

    goals = targets(med)
    print(f"\n{'target':36} {'figure':>9} {'goal':>9}  result")
    for name, value, goal, met in goals:
        print(f"{name:36} {value:9.2f} {goal:>9}  {'PASS' if met else 'MISS'}")
    print("\n" + agreement(hands14))

    print("\nMarkdown for the README:\n")
    print("| measure | figure | goal | |")
    print("|---|---:|---:|---|")
    for name, value, goal, met in goals:
        unit = " µs" if "µs" in goal else "×"
        print(f"| {name.replace(' (µs)', '')} | {value:.2f}{unit} | {goal} | "
              f"{'PASS' if met else 'MISS'} |")
    for name in README_ROWS:
        print(f"| {name} (median) | {med[name]:.2f} µs | | |")


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else DEFAULT_N
    rng = random.Random(SEED)
    hands14 = half_complete(rng, n, 4)
    hands17 = half_complete(rng, n, 5)
    states16 = states_16(rng, n)
    wins = winning_hands(rng, n)
    tiles34 = [list(c) for c in hands14]  # mahjong's input: the same 34 counts, its own copies
    table = load_table("tw-standard")
    shanten = Shanten()
    cases = {
        "ours win check, 14 tiles": (analysis.is_complete, hands14),
        "mahjong is_agari, 14 tiles": (Agari.is_agari, tiles34),
        "ours win check, 17 tiles": (analysis.is_complete, hands17),
        "ours waits, 16-tile state": (analysis.waits, states16),
        "ours shanten, 16-tile state": (analysis.shanten, states16),
        "ours shanten, 14 tiles": (analysis.shanten, hands14),
        "mahjong calculate_shanten, 14 tiles": (shanten.calculate_shanten, tiles34),
        "mahjong regular-hand shanten, 14 tiles": (shanten.calculate_shanten_for_regular_hand,
                                                   tiles34),
        "ours full score, 17-tile win": (score, wins),
        # the same hands with the rule table passed in: what scoring costs without load_table
        "ours score, table preloaded": (lambda hand: score(hand, table), wins),
    }
    overhead = _timer_overhead_ns()
    report(measure(cases, overhead), n, overhead, hands14)
    return 0


def _mahjong_version() -> str:
    try:
        from importlib.metadata import version
        return version("mahjong")
    except Exception:  # metadata missing: the figures are still valid
        return "(version unknown)"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
