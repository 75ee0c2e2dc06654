"""engine.settlement: Taiwanese 底 + 台 payments with dealer 台, and seed 004's 乐清 formulas."""
from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.settlement
from engine.errors import HandError
from engine.settlement import dealer_tai, settle_taiwan, settle_yueqing

BASE, PER = 100, 20  # 底 100, 20 per 台


def taiwan(**kw):
    return settle_taiwan(**{"base": BASE, "per_tai": PER, "dealer": 0, **kw})


def test_docstring_examples():
    assert doctest.testmod(engine.settlement).failed == 0


# --- settle_taiwan: one case per kind of win --------------------------------------------------

def test_claimed_win_by_dealer_discarder_pays_dealer_tai():
    # 3 台 hand + 莊家 1 台: 100 + 4 × 20
    assert taiwan(winner=0, discarder=2, hand_tai=3, dealer_tai=1) == {0: 180, 1: 0, 2: -180, 3: 0}


def test_self_draw_by_dealer_on_streak_2_every_payer_pays_dealer_tai():
    # 連二拉二: dealer 台 = 1 + 2×2 = 5; each pays 100 + (2 + 5) × 20 = 240
    assert taiwan(winner=0, discarder=None, hand_tai=2, dealer_tai=dealer_tai(2)) == {
        0: 720, 1: -240, 2: -240, 3: -240}


def test_claimed_win_by_non_dealer_from_dealer_includes_dealer_tai():
    # dealer on streak 1 (3 台) discards: 100 + (3 + 3) × 20
    assert taiwan(winner=1, discarder=0, hand_tai=3, dealer_tai=3) == {0: -220, 1: 220, 2: 0, 3: 0}


def test_claimed_win_by_non_dealer_from_non_dealer_has_no_dealer_tai():
    # same hand, but the dealer is not part of the payment: 100 + 3 × 20
    assert taiwan(winner=1, discarder=2, hand_tai=3, dealer_tai=3) == {0: 0, 1: 160, 2: -160, 3: 0}


def test_self_draw_by_non_dealer_only_dealer_pays_extra():
    # dealer pays 100 + (2 + 3) × 20 = 200; the other two pay 100 + 2 × 20 = 140
    assert taiwan(winner=2, discarder=None, hand_tai=2, dealer_tai=3) == {0: -200, 1: -140, 2: 480, 3: -140}


def test_dealer_not_seat_zero():
    d = settle_taiwan(winner=3, discarder=None, dealer=3, hand_tai=0, dealer_tai=1, base=10, per_tai=5)
    assert d == {0: -15, 1: -15, 2: -15, 3: 45}


def test_fractional_amounts_are_exact():
    d = settle_taiwan(winner=1, discarder=None, dealer=0, hand_tai=1, dealer_tai=1, base=0.5, per_tai=0.25)
    assert d == {0: -1.0, 1: 2.5, 2: -0.75, 3: -0.75} and sum(d.values()) == 0


@pytest.mark.parametrize("kw, message", [
    ({"winner": 5, "discarder": None}, "winner must be a seat 0-3, got 5"),
    ({"winner": 1, "discarder": 4}, "discarder must be a seat 0-3, got 4"),
    ({"winner": 1, "discarder": 1}, "the winner (seat 1) cannot also be the discarder"),
    ({"winner": True, "discarder": None}, "winner must be a seat 0-3"),
    ({"winner": 1, "discarder": None, "dealer": -1}, "dealer must be a seat 0-3"),
    ({"winner": 1, "discarder": None, "hand_tai": -1}, "hand_tai must be a whole number ≥ 0"),
    ({"winner": 1, "discarder": None, "dealer_tai": 1.5}, "dealer_tai must be a whole number ≥ 0"),
    ({"winner": 1, "discarder": None, "base": -100}, "base must be a finite amount ≥ 0"),
    ({"winner": 1, "discarder": None, "per_tai": float("nan")}, "per_tai must be a finite amount ≥ 0"),
    ({"winner": 1, "discarder": None, "per_tai": "20"}, "per_tai must be a finite amount ≥ 0"),
])
def test_bad_input_raises_hand_error(kw, message):
    with pytest.raises(HandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        taiwan(**{"hand_tai": 1, "dealer_tai": 1, **kw})


seat = st.integers(0, 3)
amount = st.integers(0, 10_000) | st.integers(0, 4000).map(lambda n: n / 4)  # binary fractions are exact


@settings(max_examples=300)
@given(winner=seat, discarder=st.none() | seat, dealer=seat, hand_tai=st.integers(0, 300),
       extra=st.integers(0, 50), base=amount, per_tai=amount)
def test_taiwan_zero_sum_and_only_payers_pay(winner, discarder, dealer, hand_tai, extra, base, per_tai):
    if discarder == winner:
        discarder = None
    d = settle_taiwan(winner=winner, discarder=discarder, dealer=dealer, hand_tai=hand_tai,
                      dealer_tai=extra, base=base, per_tai=per_tai)
    assert set(d) == {0, 1, 2, 3}
    assert sum(d.values()) == 0
    payers = {discarder} if discarder is not None else {0, 1, 2, 3} - {winner}
    for s in {0, 1, 2, 3} - {winner}:
        if s not in payers:
            assert d[s] == 0
        else:
            involved = dealer in (winner, s)
            assert d[s] == -(base + (hand_tai + (extra if involved else 0)) * per_tai)


# --- dealer_tai -------------------------------------------------------------------------------

def test_dealer_tai_is_2n_plus_1():
    assert [dealer_tai(n) for n in range(5)] == [1, 3, 5, 7, 9]


def test_dealer_tai_settings_and_cap():
    assert dealer_tai(3, per_streak=1) == 4
    assert dealer_tai(0, dealer_base=0) == 0
    assert dealer_tai(12, cap=20) == 20
    assert dealer_tai(2, cap=20) == 5


@pytest.mark.parametrize("args, kw, key", [((-1,), {}, "streak"), ((1,), {"cap": -2}, "cap"),
                                           ((1,), {"per_streak": "2"}, "per_streak")])
def test_dealer_tai_rejects_bad_values(args, kw, key):
    with pytest.raises(HandError, match=f"^{key} must be"):
        dealer_tai(*args, **kw)


# --- settle_yueqing: seed 004's formulas, with 牢庄 L = streak + 1 -----------------------------

def seed_formulas(winner, dealer, t, lao):
    """Seed 004 【结算公式】 written out exactly as the seed states them."""
    if winner == dealer:
        return {s: 3 * (t + 2 + lao - 1) if s == dealer else -(t + 2 + lao - 1) for s in range(4)}
    return {s: (-t - 1 - lao if s == dealer else 3 * (t + 1) + lao if s == winner else -t - 1)
            for s in range(4)}


def test_yueqing_dealer_win_worked_numbers():
    # seat 2 deals on its third hand after two 牢庄 wins: L = 3, each pays 3 + 2 + 3 - 1 = 7
    assert settle_yueqing(winner=2, dealer=2, tai=3, streak=2) == {0: -7, 1: -7, 2: 21, 3: -7}


def test_yueqing_fresh_dealer_win_carries_one_dealer_point():
    # L = 1: each pays 台数 + 2, one more than a non-dealer win of the same hand costs a non-dealer
    assert settle_yueqing(winner=0, dealer=0, tai=0, streak=0) == {0: 6, 1: -2, 2: -2, 3: -2}


def test_yueqing_non_dealer_win_worked_numbers():
    # fresh dealer (L = 1), 3 台: dealer -3-1-1 = -5, winner 3×4+1 = 13, others -4
    assert settle_yueqing(winner=1, dealer=0, tai=3, streak=0) == {0: -5, 1: 13, 2: -4, 3: -4}


def test_yueqing_non_dealer_win_against_streaking_dealer():
    # dealer on streak 4 (L = 5) pays -10-1-5 = -16; winner 3×11+5 = 38
    assert settle_yueqing(winner=3, dealer=1, tai=10, streak=4) == {0: -11, 1: -16, 2: -11, 3: 38}


@settings(max_examples=300)
@given(winner=seat, dealer=seat, tai=st.integers(0, 500), streak=st.integers(0, 30))
def test_yueqing_matches_seed_and_sums_to_zero(winner, dealer, tai, streak):
    d = settle_yueqing(winner=winner, dealer=dealer, tai=tai, streak=streak)
    assert d == seed_formulas(winner, dealer, tai, streak + 1)
    assert sum(d.values()) == 0


@pytest.mark.parametrize("kw, key", [({"winner": 4}, "winner"), ({"dealer": None}, "dealer"),
                                     ({"tai": -1}, "tai"), ({"streak": -1}, "streak")])
def test_yueqing_rejects_bad_values(kw, key):
    with pytest.raises(HandError, match=f"^{key} must be"):
        settle_yueqing(**{"winner": 0, "dealer": 0, "tai": 1, "streak": 0, **kw})
