"""Who pays whom after a hand: Taiwanese 底 + 台 settlement and the 乐清 formulas.

Every function returns the change in score of each of the four seats (0-3, table positions);
the changes always sum to zero because every payment is one seat's loss and another's gain.

>>> settle_taiwan(winner=1, discarder=2, dealer=0, hand_tai=3, dealer_tai=0, base=100, per_tai=20)
{0: 0, 1: 160, 2: -160, 3: 0}
>>> dealer_tai(2)
5
>>> settle_yueqing(winner=0, dealer=0, tai=2, streak=0)
{0: 12, 1: -4, 2: -4, 3: -4}
"""
from __future__ import annotations

import math
from numbers import Real

from .errors import HandError, short_repr

SEATS = range(4)


def _check_seat(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in SEATS:
        raise HandError(f"{name} must be a seat 0-3, got {short_repr(value)}", code="not_a_seat", field=name, value=value)
    return value


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HandError(f"{name} must be a whole number ≥ 0, got {short_repr(value)}", code="not_a_count", field=name,
                        bound="≥ 0", value=value)
    return value


def _check_amount(name: str, value: object) -> Real:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        raise HandError(f"{name} must be a finite amount ≥ 0, got {short_repr(value)}", code="not_non_negative",
                        field=name, value=value)
    return value


def _check_winner_discarder(winner: object, discarder: object) -> None:
    _check_seat("winner", winner)
    if discarder is not None:
        _check_seat("discarder", discarder)
        if discarder == winner:
            raise HandError(f"the winner (seat {winner}) cannot also be the discarder", code="winner_is_discarder_seat",
                            seat=winner)


def _collect(winner: int, payments: dict[int, Real]) -> dict[int, Real]:
    """Per-seat deltas from what each payer owes the winner."""
    deltas = {seat: 0 for seat in SEATS}
    for payer, amount in payments.items():
        deltas[payer] -= amount
        deltas[winner] += amount
    return deltas


def dealer_pays(payer: int, *, winner: int, discarder: int | None, dealer: int, on_self_draw: bool = True) -> bool:
    """Whether the dealer 台 count on this payer's payment: the dealer wins (every payer adds them),
    or the dealer pays: dealing in, or one of three payers of another's self-draw, which seed 001's
    莊家 row (胡牌或者是放槍) leaves out and common practice counts (a table setting, on_self_draw).

    >>> [dealer_pays(0, winner=2, discarder=None, dealer=0, on_self_draw=x) for x in (True, False)]
    [True, False]
    >>> dealer_pays(1, winner=0, discarder=None, dealer=0, on_self_draw=False)  # the dealer's own self-draw
    True
    """
    if dealer == winner:
        return True
    return dealer == payer and (discarder == dealer or (discarder is None and on_self_draw))


def _payers(winner: int, discarder: int | None) -> list[int]:
    """Who pays a win: the discarder alone, or on a self-draw each of the other three."""
    return [discarder] if discarder is not None else [s for s in SEATS if s != winner]


def dealer_involved(*, winner: int, discarder: int | None, dealer: int, on_self_draw: bool = True) -> bool:
    """Whether any payment of this win carries the dealer 台 (see dealer_pays)."""
    return any(dealer_pays(p, winner=winner, discarder=discarder, dealer=dealer, on_self_draw=on_self_draw)
               for p in _payers(winner, discarder))


def settle_taiwan(*, winner: int, discarder: int | None, dealer: int, hand_tai: int,
                  dealer_tai: int, base: int | float, per_tai: int | float,
                  dealer_pays_self_draw: bool = True) -> dict[int, float]:
    """Deltas for one Taiwanese hand: each payer pays 底 + 台 × per-台 amount (seed 002).

    A claimed win (``discarder`` given) is paid by the discarder alone; a self-draw
    (``discarder=None``) by each of the other three (seed 002 §8). ``hand_tai`` counts on every
    payment. ``dealer_tai`` (莊家 1 + 連莊拉莊 2N, see :func:`dealer_tai`) counts only on a
    payment between the dealer and another seat: when the dealer wins every payer adds it, when
    someone else wins only the dealer adds it, and only if the dealer is paying (on another's
    self-draw only with ``dealer_pays_self_draw``, the common practice: see :func:`dealer_pays`).

    The deltas sum to zero exactly for integer amounts (and binary fractions such as 0.5);
    other float amounts carry ordinary float rounding.

    Dealer (seat 0) on streak 1 (3 台 extra) self-draws a 2-台 hand, 底 50, 20 per 台:

    >>> settle_taiwan(winner=0, discarder=None, dealer=0, hand_tai=2, dealer_tai=3, base=50, per_tai=20)
    {0: 450, 1: -150, 2: -150, 3: -150}

    Seat 2 self-draws: only the dealer pays the dealer 台.

    >>> settle_taiwan(winner=2, discarder=None, dealer=0, hand_tai=2, dealer_tai=1, base=50, per_tai=20)
    {0: -110, 1: -90, 2: 290, 3: -90}

    A table whose dealer pays no dealer 台 on another's self-draw:

    >>> settle_taiwan(winner=2, discarder=None, dealer=0, hand_tai=2, dealer_tai=1, base=50, per_tai=20,
    ...               dealer_pays_self_draw=False)
    {0: -90, 1: -90, 2: 270, 3: -90}
    """
    _check_winner_discarder(winner, discarder)
    _check_seat("dealer", dealer)
    _check_count("hand_tai", hand_tai)
    _check_count("dealer_tai", dealer_tai)
    _check_amount("base", base)
    _check_amount("per_tai", per_tai)

    payments = {}
    for payer in _payers(winner, discarder):
        paid = dealer_pays(payer, winner=winner, discarder=discarder, dealer=dealer, on_self_draw=dealer_pays_self_draw)
        tai = hand_tai + (dealer_tai if paid else 0)
        payments[payer] = base + tai * per_tai
    return _collect(winner, payments)


def dealer_tai(streak: int, *, dealer_base: int = 1, per_streak: int = 2, cap: int | None = None) -> int:
    """台 for the dealer side: 莊家 ``dealer_base`` plus ``per_streak`` per 連莊 (連N拉N → 2N+1).

    ``streak`` is the dealer's 連莊 count N (0 for a new dealer); ``cap`` limits the total
    where a table caps it (NOTES.md: some tables do).

    >>> [dealer_tai(n) for n in range(4)]
    [1, 3, 5, 7]
    >>> dealer_tai(9, cap=10)
    10
    """
    _check_count("streak", streak)
    _check_count("dealer_base", dealer_base)
    _check_count("per_streak", per_streak)
    total = dealer_base + per_streak * streak
    if cap is not None:
        total = min(total, _check_count("cap", cap))
    return total


def settle_yueqing(*, winner: int, dealer: int, tai: int, streak: int) -> dict[int, int]:
    """Deltas for one 乐清 hand, by the formulas of seed 004 (【结算公式】), taken literally.

    Seed 004 writes, with L = 牢庄 and t = 台数:

    - dealer wins: 庄家 = 3*(t+2+L-1); each other = -(t+2+L-1)
    - another seat wins: 庄家 = -t-1-L; winner = 3*(t+1)+L; each other = -t-1

    Both sum to zero as written (3x - 3x; and 3t+3+L - (t+1+L) - 2(t+1) = 0), so no
    adjustment is needed. The seed gives no self-draw / discard distinction, so neither does
    this function: everyone pays on every win.

    L: the dealer formula's "+2 … -1" reads as 1 base + 1 for the dealer + (L-1) extra per
    stay, so L counts the current dealership: L = 1 for a new dealer, 2 after one 牢庄 win,
    and so on. ``streak`` is the dealer's consecutive-win count (0 for a new dealer, as in
    :mod:`engine.flow`), so L = streak + 1, and the dealer's side always carries t + 2 + streak.

    >>> settle_yueqing(winner=1, dealer=0, tai=2, streak=1)
    {0: -5, 1: 11, 2: -3, 3: -3}
    """
    _check_seat("winner", winner)
    _check_seat("dealer", dealer)
    _check_count("tai", tai)
    _check_count("streak", streak)
    lao = streak + 1  # 牢庄 as the seed's formulas use it
    if winner == dealer:
        return {s: 3 * (tai + 2 + lao - 1) if s == dealer else -(tai + 2 + lao - 1) for s in SEATS}
    deltas = {s: -tai - 1 for s in SEATS}
    deltas[dealer] = -tai - 1 - lao
    deltas[winner] = 3 * (tai + 1) + lao
    return deltas
