"""engine.flow: dealer rotation, 連莊, 臭莊 and 乐清 draws, round winds, game end, storage."""
from __future__ import annotations

import doctest
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.flow
from engine.errors import HandError
from engine.flow import (TAIWAN, YUEQING, FlowRules, GameState, apply_result, new_game, replay,
                         seat_wind, wall_reserve)
from engine.settlement import dealer_tai, settle_taiwan

PLAYERS = ["阿明", "小美", "阿華", "老王"]


def win(winner, discarder=None, deltas=None):
    return {"type": "win", "winner": winner, "discarder": discarder, "deltas": deltas or {}}


def draw(counting_kong=None):
    return {"type": "draw"} if counting_kong is None else {"type": "draw", "counting_kong": counting_kong}


def run(results, rules=TAIWAN, first_dealer=0):
    state = new_game(PLAYERS, first_dealer)
    for r in results:
        state = apply_result(state, r, rules)
    return state


def test_docstring_examples():
    assert doctest.testmod(engine.flow).failed == 0


def test_new_game():
    s = new_game(PLAYERS, first_dealer=2)
    assert (s.dealer, s.streak, s.round_wind, s.hand_number, s.dealer_turns_in_round, s.finished) == (
        2, 0, 0, 1, 0, False)
    assert s.scores == (0, 0, 0, 0) and s.players == tuple(PLAYERS)


# --- rotation and 連莊 ------------------------------------------------------------------------

def test_non_dealer_win_passes_deal_to_next_seat():
    s = run([win(2, 0)], first_dealer=0)
    assert (s.dealer, s.streak, s.dealer_turns_in_round) == (1, 0, 1)


def test_deal_wraps_from_seat_3_to_seat_0():
    s = run([win(1), win(1)], first_dealer=2)
    assert s.dealer == 0 and s.dealer_turns_in_round == 2


def test_dealer_win_keeps_deal_and_counts_streak():
    s = run([win(1), win(1, 3), win(1)], first_dealer=1)
    assert (s.dealer, s.streak, s.dealer_turns_in_round) == (1, 3, 0)


def test_streak_resets_when_deal_passes():
    s = run([win(0), win(0), win(3, 0)])
    assert (s.dealer, s.streak) == (1, 0)


# --- draws ------------------------------------------------------------------------------------

def test_taiwan_draw_dealer_continues_as_chou_zhuang_and_counts_streak():
    s = run([win(0), draw()])
    assert (s.dealer, s.streak, s.dealer_turns_in_round, s.hand_number) == (0, 2, 0, 3)


def test_taiwan_draw_without_streak_increment():
    rules = FlowRules(draw_increments_streak=False)
    s = run([win(0), draw(), draw()], rules)
    assert (s.dealer, s.streak) == (0, 1)


def test_taiwan_draw_ignores_kongs_for_the_deal():
    assert run([draw(True)]).dealer == 0


def test_yueqing_draw_with_counting_kong_passes_deal():
    s = run([win(0), draw(True)], YUEQING)
    assert (s.dealer, s.streak, s.dealer_turns_in_round) == (1, 0, 1)


def test_yueqing_draw_without_counting_kong_keeps_dealer_and_lao_zhuang():
    s = run([win(0), draw(False)], YUEQING)
    assert (s.dealer, s.streak, s.dealer_turns_in_round, s.hand_number) == (0, 1, 0, 3)


def test_yueqing_draw_must_say_whether_a_counting_kong_was_made():
    with pytest.raises(HandError, match="'counting_kong'"):
        run([draw()], YUEQING)


# --- winds, rounds, game end ------------------------------------------------------------------

def test_seat_winds_follow_play_order_from_the_dealer():
    s = new_game(PLAYERS, first_dealer=1)
    assert [seat_wind(s, seat) for seat in range(4)] == [3, 0, 1, 2]  # seat 1 東, seat 2 南 …
    s = apply_result(s, win(3), TAIWAN)
    assert [seat_wind(s, seat) for seat in range(4)] == [2, 3, 0, 1]


def test_seat_wind_rejects_bad_seat():
    with pytest.raises(HandError, match="seat must be a seat 0-3, got 4"):
        seat_wind(new_game(PLAYERS), 4)


def test_round_wind_advances_after_four_dealerships():
    three = run([win(1), win(2), win(3)], first_dealer=0)
    assert (three.round_wind, three.dealer) == (0, 3)
    four = apply_result(three, win(1), TAIWAN)
    assert (four.round_wind, four.dealer, four.dealer_turns_in_round) == (1, 0, 0)


def test_round_wind_does_not_advance_on_dealer_win_or_draw():
    s = run([win(1), win(2), win(3), win(3), draw()], first_dealer=0)
    assert (s.round_wind, s.dealer, s.streak) == (0, 3, 2)


def passes(n, first_dealer=0):
    """n hands, each won by the seat after the dealer, so the deal passes every time."""
    return [win((first_dealer + i + 1) % 4) for i in range(n)]


def test_game_ends_after_the_north_round():
    s = run(passes(15, 3), first_dealer=3)
    assert (s.round_wind, s.finished, s.dealer) == (3, False, 2)
    end = apply_result(s, passes(16, 3)[-1], TAIWAN)
    assert end.finished and (end.round_wind, end.dealer, end.dealer_turns_in_round) == (3, 3, 4)
    with pytest.raises(HandError, match="^game is finished$"):
        apply_result(end, draw(), TAIWAN)


def test_one_round_game():
    rules = FlowRules(rounds=1)
    assert run(passes(4), rules).finished
    assert not run(passes(3), rules).finished


# --- scores -----------------------------------------------------------------------------------

def test_scores_accumulate_settlement_deltas():
    s = new_game(PLAYERS)
    d1 = settle_taiwan(winner=0, discarder=None, dealer=0, hand_tai=2, dealer_tai=dealer_tai(0), base=100, per_tai=20)
    s = apply_result(s, win(0, None, d1), TAIWAN)
    d2 = settle_taiwan(winner=2, discarder=0, dealer=0, hand_tai=1, dealer_tai=dealer_tai(s.streak), base=100, per_tai=20)
    s = apply_result(s, win(2, 0, d2), TAIWAN)
    assert s.scores == (480 - 180, -160, -160 + 180, -160)
    assert sum(s.scores) == 0


def test_deltas_from_json_with_string_keys():
    stored = json.loads(json.dumps(win(1, 2, {1: 50, 2: -50})))
    assert run([stored]).scores == (0, 50, -50, 0)


# --- bad results ------------------------------------------------------------------------------

@pytest.mark.parametrize("result, message", [
    (win(5), "winner must be a seat 0-3, got 5"),
    (win(2, 2), r"the winner \(seat 2\) cannot also be the discarder"),
    (win(1, 7), "discarder must be a seat 0-3, got 7"),
    (win(1, None, {1: 10, 2: -5}), "deltas must sum to zero"),
    (win(1, None, {9: 0}), "a deltas key must be a seat 0-3, got 9"),
    (win(1, None, {1: "10"}), "delta for seat 1 must be a number"),
    ({"type": "win", "winner": 1, "deltas": {}}, "a win result needs 'discarder'"),
    ({"type": "win", "winner": 1, "discarder": None, "deltas": {}, "tai": 3}, "unknown key in a win result: tai"),
    ({"type": "draw", "kongs": 2}, "unknown key in a draw result: kongs"),
    (draw("yes"), "counting_kong must be true or false"),
    ({"type": "chombo"}, "a result needs type 'win' or 'draw'"),
    ([1, 2], "a result needs type 'win' or 'draw'"),
])
def test_bad_result_raises_hand_error(result, message):
    with pytest.raises(HandError, match=message):
        apply_result(new_game(PLAYERS), result, TAIWAN)


def test_new_game_rejects_bad_players_and_seat():
    with pytest.raises(HandError, match="players must be four names"):
        new_game(["a", "b", "c"])
    with pytest.raises(HandError, match="players must be a list of four names, got the string"):
        new_game("ABCD")
    with pytest.raises(HandError, match="first_dealer must be a seat 0-3, got 5"):
        new_game(PLAYERS, 5)


# --- replay -----------------------------------------------------------------------------------

result_st = st.one_of(
    st.builds(lambda w, d, a: win(w, d if d != w else None, {w: a, (w + 1) % 4: -a}),
              st.integers(0, 3), st.none() | st.integers(0, 3), st.integers(0, 500)),
    st.builds(draw, st.booleans()),
)


@settings(max_examples=100)
@given(results=st.lists(result_st, max_size=40), first_dealer=st.integers(0, 3),
       rules=st.sampled_from([TAIWAN, YUEQING, FlowRules(draw_increments_streak=False, rounds=2)]))
def test_replay_equals_sequential_application(results, first_dealer, rules):
    start = new_game(PLAYERS, first_dealer)
    state, states = start, []
    for r in results:
        if state.finished:
            break
        state = apply_result(state, r, rules)
        states.append(state)
    assert replay(start, results[:len(states)], rules) == states
    assert sum(state.scores) == 0 and state.hand_number == 1 + len(states)
    assert state.dealer == (first_dealer + state.dealer_turns_in_round) % 4


def test_replay_after_edit_recomputes_everything():
    start = new_game(PLAYERS)
    results = [win(0), win(1, 0), draw()]
    assert replay(start, results, TAIWAN)[-1].dealer == 1
    results[0] = win(2, 0)  # the first hand was really won by seat 2
    after = replay(start, results, TAIWAN)
    assert [(s.dealer, s.streak) for s in after] == [(1, 0), (1, 1), (1, 2)]


def test_replay_names_the_bad_result():
    with pytest.raises(HandError, match=r"^result 2: winner must be a seat 0-3, got 5$"):
        replay(new_game(PLAYERS), [draw(), win(5)], TAIWAN)


def test_replay_of_nothing_is_empty():
    assert replay(new_game(PLAYERS), [], TAIWAN) == []


# --- storage ----------------------------------------------------------------------------------

def test_state_round_trips_through_json():
    s = run([win(0, 1, {0: 1.5, 1: -1.5}), win(2), draw()], first_dealer=0)
    back = GameState.from_dict(json.loads(json.dumps(s.to_dict(), ensure_ascii=False)))
    assert back == s and back.scores == (1.5, -1.5, 0, 0)
    end = run(passes(16))
    assert GameState.from_dict(json.loads(json.dumps(end.to_dict()))) == end


@pytest.mark.parametrize("change, message", [
    ({"dealer": 5}, "dealer must be a seat 0-3"),
    ({"dealer": 2}, "dealer 2 does not match first_dealer 0 after 0 dealerships"),
    ({"finished": True}, "dealer_turns_in_round is 4 exactly when the game is finished"),
    ({"scores": [0, 0, 0]}, "scores must be four numbers"),
    ({"round_wind": 4}, "round_wind must be a whole number 0-3"),
    ({"hand_number": 0}, "hand_number must be a whole number ≥ 1"),
    ({"extra": 1}, "unknown key in game state: extra"),
])
def test_state_from_dict_rejects_bad_data(change, message):
    with pytest.raises(HandError, match=message):
        GameState.from_dict({**new_game(PLAYERS).to_dict(), **change})


def test_state_from_dict_names_missing_key():
    d = new_game(PLAYERS).to_dict()
    del d["streak"]
    with pytest.raises(HandError, match="game state is missing streak"):
        GameState.from_dict(d)


# --- rules ------------------------------------------------------------------------------------

def test_wall_reserve():
    assert [wall_reserve(TAIWAN, k) for k in (0, 1, 3)] == [16, 17, 19]  # seeds 002/003
    assert [wall_reserve(YUEQING, k) for k in (0, 3)] == [14, 14]  # seed 004
    with pytest.raises(HandError, match="kongs must be a whole number ≥ 0"):
        wall_reserve(TAIWAN, -1)


def test_flow_rules_from_dict():
    assert FlowRules.from_dict({}) == TAIWAN
    table = {"draw_rule": "yueqing", "draw_increments_streak": False, "reserve": 14,
             "reserve_per_kong": 0, "rounds": 4}
    assert FlowRules.from_dict(table) == YUEQING
    assert FlowRules.from_dict(YUEQING.to_dict()) == YUEQING


@pytest.mark.parametrize("table, key", [
    ({"draw_rule": "dealer_stays"}, "draw_rule"),
    ({"draw_increments_streak": 1}, "draw_increments_streak"),
    ({"reserve": -1}, "reserve"),
    ({"reserve_per_kong": "1"}, "reserve_per_kong"),
    ({"rounds": 5}, "rounds"),
    ({"rounds": 0}, "rounds"),
    ({"reserves": 16}, "reserves"),
])
def test_flow_rules_from_dict_names_bad_key(table, key):
    with pytest.raises(HandError, match=key):
        FlowRules.from_dict(table)


def test_state_past_the_rules_rounds_is_rejected():
    s = run(passes(8))  # round 2 (西) under four-round rules
    with pytest.raises(HandError, match="round_wind 2 is past the 2 rounds"):
        apply_result(s, draw(), FlowRules(rounds=2))
