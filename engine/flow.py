"""Game flow for recording a real game: dealer rotation, 連莊, draws, round winds, game end.

Seats 0-3 are the table positions in turn order (play runs counter-clockwise, so seat i+1
plays after seat i, seed 002). The state is immutable; :func:`apply_result` returns a new one.
Scores only add up the deltas each result carries (computed by :mod:`engine.settlement`).

>>> s = new_game(["甲", "乙", "丙", "丁"], first_dealer=0)
>>> s = apply_result(s, {"type": "win", "winner": 0, "discarder": 2, "deltas": {0: 5, 2: -5}}, TAIWAN)
>>> (s.dealer, s.streak, s.scores)
(0, 1, (5, 0, -5, 0))
>>> s = apply_result(s, {"type": "win", "winner": 3, "discarder": None, "deltas": {}}, TAIWAN)
>>> (s.dealer, s.streak, seat_wind(s, 3), s.hand_number)
(1, 0, 2, 3)
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from numbers import Real

from .errors import HandError, short, short_repr

SEATS = range(4)
DRAW_RULES = ("dealer_continues", "yueqing")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat(name: str, value: object) -> int:
    if not _is_int(value) or value not in SEATS:
        raise HandError(f"{name} must be a seat 0-3, got {short_repr(value)}", code="not_a_seat", field=name, value=value)
    return value


def _count(name: str, value: object, low: int = 0, high: int | None = None) -> int:
    if not _is_int(value) or value < low or (high is not None and value > high):
        bound = f"{low}-{high}" if high is not None else f"≥ {low}"
        raise HandError(f"{name} must be a whole number {bound}, got {short_repr(value)}", code="not_a_count", field=name,
                        bound=bound, value=value)
    return value


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise HandError(f"{name} must be true or false, got {short_repr(value)}", code="not_a_bool", field=name, value=value)
    return value


def _no_unknown_keys(what: str, data: Mapping, allowed) -> None:
    if not isinstance(data, Mapping):
        raise HandError(f"{what} must be a table of keys, got {type(data).__name__}", code="not_a_table", field=what,
                        type=type(data).__name__)
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        keys = short(", ".join(unknown))
        raise HandError(f"unknown key in {what}: {keys} (allowed: {', '.join(allowed)})", code="unknown_key_in",
                        field=what, keys=keys, known=", ".join(allowed))


@dataclass(frozen=True)
class FlowRules:
    """The ``[flow]`` table of a rule set.

    - ``draw_rule``: ``"dealer_continues"`` (臭莊, seeds 002/003: after a 流局 the dealer deals
      again) or ``"yueqing"`` (seed 004: the deal passes if someone made a counting kong,
      otherwise the dealer continues and 牢庄 stays as it was).
    - ``draw_increments_streak``: under ``dealer_continues`` only, whether a 臭莊 adds one to
      the 連莊 count. Default true: common Taiwanese practice counts it as 連莊 (seed 000's
      glossary: 連莊 = 莊家胡牌或是流局); seed 003 just calls it 臭莊. Ignored under ``yueqing``.
    - ``reserve`` / ``reserve_per_kong``: tiles left in the wall when a hand is drawn
      (16 + 1 per kong, seeds 002/003; 乐清 14 fixed, seed 004).
    - ``rounds``: how many wind rounds make a game, 1-4 (four: seed 000).

    >>> FlowRules.from_dict({"draw_rule": "yueqing", "reserve": 14, "reserve_per_kong": 0}).reserve
    14
    """

    draw_rule: str = "dealer_continues"
    draw_increments_streak: bool = True
    reserve: int = 16
    reserve_per_kong: int = 1
    rounds: int = 4

    def __post_init__(self) -> None:
        if self.draw_rule not in DRAW_RULES:
            raise HandError(f"draw_rule must be one of {', '.join(DRAW_RULES)}, got {short_repr(self.draw_rule)}",
                            code="draw_rule", value=self.draw_rule, known=", ".join(DRAW_RULES))
        _flag("draw_increments_streak", self.draw_increments_streak)
        _count("reserve", self.reserve)
        _count("reserve_per_kong", self.reserve_per_kong)
        _count("rounds", self.rounds, 1, 4)  # a round is named by a wind, so at most four

    @classmethod
    def from_dict(cls, data: Mapping) -> FlowRules:
        """Read a ``[flow]`` table; missing keys take the Taiwanese defaults."""
        _no_unknown_keys("[flow]", data, [f.name for f in fields(cls)])
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)


TAIWAN = FlowRules()
YUEQING = FlowRules(draw_rule="yueqing", draw_increments_streak=False, reserve=14, reserve_per_kong=0)


def wall_reserve(flow_rules: FlowRules, kongs: int) -> int:
    """Tiles left in the wall at which the hand is a 流局.

    >>> wall_reserve(TAIWAN, 2), wall_reserve(YUEQING, 2)
    (18, 14)
    """
    return flow_rules.reserve + flow_rules.reserve_per_kong * _count("kongs", kongs)


@dataclass(frozen=True)
class GameState:
    """Where a game stands before its next hand.

    ``streak`` is the current dealer's 連莊 count (0 for a new dealer); ``hand_number`` is the
    1-based number of the next hand; ``dealer_turns_in_round`` counts the dealerships passed in
    this round (0-3, and 4 once the game is finished, with the deal back at ``first_dealer``).
    """

    players: tuple[str, str, str, str]
    first_dealer: int
    dealer: int
    streak: int
    round_wind: int
    hand_number: int
    dealer_turns_in_round: int
    finished: bool
    scores: tuple[Real, Real, Real, Real]

    def __post_init__(self) -> None:
        if (isinstance(self.players, (str, bytes)) or not isinstance(self.players, Sequence)
                or len(self.players) != 4 or not all(isinstance(p, str) for p in self.players)):
            raise HandError(f"players must be four names, got {short(self.players)}", code="players_four")
        object.__setattr__(self, "players", tuple(self.players))
        _seat("first_dealer", self.first_dealer)
        _seat("dealer", self.dealer)
        _count("streak", self.streak)
        _count("round_wind", self.round_wind, 0, 3)
        _count("hand_number", self.hand_number, 1)
        _count("dealer_turns_in_round", self.dealer_turns_in_round, 0, 4)
        _flag("finished", self.finished)
        if (self.dealer_turns_in_round == 4) != self.finished:
            raise HandError("dealer_turns_in_round is 4 exactly when the game is finished", code="state_turns_finished")
        # The deal only ever moves one seat on, so the dealer follows from the turns passed.
        if self.dealer != (self.first_dealer + self.dealer_turns_in_round) % 4:
            raise HandError(f"dealer {self.dealer} does not match first_dealer {self.first_dealer} "
                            f"after {self.dealer_turns_in_round} dealerships", code="state_dealer",
                            dealer=self.dealer, first_dealer=self.first_dealer, turns=self.dealer_turns_in_round)
        if (isinstance(self.scores, (str, bytes)) or not isinstance(self.scores, Sequence)
                or len(self.scores) != 4 or not all(_is_amount(x) for x in self.scores)):
            raise HandError(f"scores must be four numbers, got {short(self.scores)}", code="scores_four")
        object.__setattr__(self, "scores", tuple(self.scores))

    def to_dict(self) -> dict:
        """Plain JSON-ready data."""
        d = asdict(self)
        d["players"], d["scores"] = list(self.players), list(self.scores)
        return d

    @classmethod
    def from_dict(cls, data: Mapping) -> GameState:
        names = [f.name for f in fields(cls)]
        _no_unknown_keys("game state", data, names)
        missing = [n for n in names if n not in data]
        if missing:
            raise HandError(f"game state is missing {', '.join(missing)}", code="state_missing", keys=", ".join(missing))
        return cls(**data)


def _is_amount(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def new_game(players: Sequence[str], first_dealer: int = 0) -> GameState:
    """The state before the first hand: 東 round, ``first_dealer`` deals, scores 0."""
    if isinstance(players, str):  # "ABCD" would silently become four one-letter names
        raise HandError(f"players must be a list of four names, got the string {short_repr(players)}", code="players_four")
    return GameState(players=tuple(players), first_dealer=first_dealer, dealer=first_dealer, streak=0,
                     round_wind=0, hand_number=1, dealer_turns_in_round=0, finished=False,
                     scores=(0, 0, 0, 0))


def seat_wind(state: GameState, seat: int) -> int:
    """The seat's wind, 0 東 … 3 北: the dealer is 東 and winds follow the order of play."""
    return (_seat("seat", seat) - state.dealer) % 4


def _deltas(raw: object) -> dict[int, Real]:
    """Per-seat deltas; JSON-stored keys ("0"-"3") are accepted as well as ints."""
    if not isinstance(raw, Mapping):
        raise HandError(f"deltas must be a table of seat → amount, got {short(raw)}", code="deltas_not_table")
    out = {s: 0 for s in SEATS}
    for key, amount in raw.items():
        seat = int(key) if isinstance(key, str) and key in ("0", "1", "2", "3") else key
        _seat("a deltas key", seat)
        if not _is_amount(amount):
            raise HandError(f"delta for seat {seat} must be a number, got {short(amount)}", code="delta_not_number",
                            seat=seat, value=amount)
        out[seat] += amount
    # Money changes hands, so a hand's deltas sum to zero (float-rounding tolerance only).
    if abs(math.fsum(out.values())) > 1e-9 * max(1.0, math.fsum(abs(v) for v in out.values())):
        raise HandError(f"deltas must sum to zero, got {math.fsum(out.values())!r}", code="deltas_sum",
                        total=math.fsum(out.values()))
    return out


def _pass_deal(state: GameState, rules: FlowRules) -> GameState:
    """The next seat deals; after four dealerships the round wind advances or the game ends."""
    turns = state.dealer_turns_in_round + 1
    dealer = (state.dealer + 1) % 4
    if turns < 4:
        return replace(state, dealer=dealer, streak=0, dealer_turns_in_round=turns)
    if state.round_wind + 1 >= rules.rounds:
        return replace(state, dealer=dealer, streak=0, dealer_turns_in_round=turns, finished=True)
    return replace(state, dealer=dealer, streak=0, dealer_turns_in_round=0, round_wind=state.round_wind + 1)


def apply_result(state: GameState, result: Mapping, flow_rules: FlowRules) -> GameState:
    """The state after one hand.

    ``result`` is ``{"type": "win", "winner": seat, "discarder": seat or None, "deltas":
    {seat: amount}}`` (discarder None = self-draw; seats missing from deltas get 0) or
    ``{"type": "draw", "counting_kong": bool}`` (whether a kong other than a 白皮杠 was made;
    required under the yueqing draw rule, optional otherwise).

    A dealer win adds one to the streak (連莊 / 牢庄); any other win passes the deal.

    >>> s = apply_result(new_game(list("ABCD")), {"type": "draw"}, TAIWAN)
    >>> (s.dealer, s.streak)
    (0, 1)
    """
    if state.finished:
        raise HandError("game is finished", code="game_finished")
    if state.round_wind >= flow_rules.rounds:
        raise HandError(f"round_wind {state.round_wind} is past the {flow_rules.rounds} rounds of these rules",
                        code="round_past_end", round=state.round_wind, rounds=flow_rules.rounds)
    if not isinstance(result, Mapping) or result.get("type") not in ("win", "draw"):
        raise HandError(f"a result needs type 'win' or 'draw', got {short(result)}", code="result_type")
    state = replace(state, hand_number=state.hand_number + 1)

    if result["type"] == "win":
        _no_unknown_keys("a win result", result, ["type", "winner", "discarder", "deltas"])
        for key in ("winner", "discarder", "deltas"):
            if key not in result:
                raise HandError(f"a win result needs '{key}' (discarder: a seat, or None for a self-draw)",
                                code="win_result_key", key=key)
        winner = _seat("winner", result["winner"])
        discarder = result["discarder"]
        if discarder is not None and _seat("discarder", discarder) == winner:
            raise HandError(f"the winner (seat {winner}) cannot also be the discarder", code="winner_is_discarder_seat",
                            seat=winner)
        deltas = _deltas(result["deltas"])
        state = replace(state, scores=tuple(state.scores[s] + deltas[s] for s in SEATS))
        if winner == state.dealer:
            return replace(state, streak=state.streak + 1)
        return _pass_deal(state, flow_rules)

    _no_unknown_keys("a draw result", result, ["type", "counting_kong"])
    if flow_rules.draw_rule == "yueqing":
        if "counting_kong" not in result:
            raise HandError("a drawn hand under the Yueqing rules must say whether a kong other than of white "
                            "dragons (白皮) was made ('counting_kong')",
                            code="draw_counting_kong")
        if _flag("counting_kong", result["counting_kong"]):
            return _pass_deal(state, flow_rules)
        return state  # dealer continues, 牢庄 unchanged (seed 004 §七)
    _flag("counting_kong", result.get("counting_kong", False))
    return replace(state, streak=state.streak + (1 if flow_rules.draw_increments_streak else 0))


def replay(initial_state: GameState, results: Sequence[Mapping], flow_rules: FlowRules) -> list[GameState]:
    """The state after each result in turn (``len(results)`` states), e.g. after an edited hand.

    A bad result is reported with its 1-based position in ``results``.

    >>> [s.streak for s in replay(new_game(list("ABCD")), [{"type": "draw"}] * 2, TAIWAN)]
    [1, 2]
    """
    states, state = [], initial_state
    for i, result in enumerate(results, 1):
        try:
            state = apply_result(state, result, flow_rules)
        except HandError as e:
            raise HandError(f"result {i}: {e}", code="in_result", n=i, cause=e) from None
        states.append(state)
    return states
