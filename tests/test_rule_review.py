"""What a review of the rule tables against their seeds found (stop 54), each with its reproducer.

Every case is scored as `python -m engine score` would (engine.service.score_json).
"""
from __future__ import annotations

import pytest

from engine.errors import HandError
from engine.service import score_json


def entries(data: dict) -> dict:
    r = score_json(data)
    assert r["win"], r["reason"]
    return {b["id"]: b["tai"] for b in r["breakdown"]}


def refused(data: dict) -> str:
    with pytest.raises(HandError) as e:
        score_json(data)
    return e.value.code


# --- 獨聽: a tile whose four copies the hand holds is no wait (seeds 001 and 003) ----------------

def test_single_wait_when_the_other_wait_needs_a_fifth_copy():
    """12m waits on 3m only: 1m is no wait with all four 1m held. It scored 門清 alone."""
    edge = {"concealed": "1111222m456p789p123s", "winning_tile": "3m", "discarder": "N", "seat_wind": "S"}
    assert entries(edge) == {"menqing": 1, "single_wait": 1}
    assert score_json(edge)["payments"] == {"E": 0, "S": 140, "W": 0, "N": -140}
    pair = {"concealed": "1111234m456p789p123s", "winning_tile": "4m", "discarder": "N", "seat_wind": "S"}
    assert entries(pair) == {"menqing": 1, "single_wait": 1}


def test_no_single_wait_when_another_tile_could_win():
    """1113m also wins on 3m (111m and a 33m pair), so two tiles could win (negative case)."""
    two = {"concealed": "1113m456p789p123s789s", "winning_tile": "2m", "discarder": "N", "seat_wind": "S"}
    assert "single_wait" not in entries(two)


def test_single_wait_by_shape_reads_the_seed_literally(tmp_path):
    """single_wait_by = "shape": the winning reading's closed wait counts, whatever else could win."""
    path = tmp_path / "shape.toml"
    path.write_text('[table]\nid = "shape"\nextends = "tw-standard"\n[settings]\nsingle_wait_by = "shape"\n',
                    encoding="utf-8")
    two = {"concealed": "1113m456p789p123s789s", "winning_tile": "2m", "discarder": "N", "seat_wind": "S",
           "rules": str(path)}
    assert entries(two) == {"menqing": 1, "single_wait": 1}
    both_sides = {**two, "concealed": "1123m456p789p123s789s", "winning_tile": "4m"}  # 23m: a two-sided wait
    assert "single_wait" not in entries(both_sides)


# --- 天聽: seed 001 (platform-tai) gives it to any player, seed 003 (tw-standard) to the dealer ---

READY = {"concealed": "123m456m789m123p456p7s", "winning_tile": "7s", "discarder": "W", "seat_wind": "S",
         "context": {"heavenly_ready": True, "declared_ready": True}}


def test_heavenly_ready_of_a_non_dealer_under_seed_001():
    assert entries({**READY, "rules": "platform-tai"}) == {"heavenly_ready": 8, "menqing": 1, "single_wait": 1}


def test_heavenly_ready_is_the_dealers_under_seed_003():
    assert refused({**READY, "rules": "tw-standard"}) == "heavenly_ready_dealer"
    assert entries({**READY, "rules": "tw-standard", "seat_wind": "E", "discarder": "W"})["heavenly_ready"] == 8


# --- 槓上開花: 加槓, 暗槓 or a flower; never the draw after a 明槓 of a discard (seeds 001-003) --------

BLOOM = {"concealed": "123m456p789p99s78s", "winning_tile": "9s", "self_drawn": True, "seat_wind": "S",
         "context": {"kong_replacement": True}}


@pytest.mark.parametrize("rules", ["tw-standard", "platform-tai"])
def test_kong_bloom_after_an_added_or_concealed_kong_or_a_flower(rules):
    for meld in ("addkong", "ankong"):
        got = entries({**BLOOM, "rules": rules, "melds": [{"type": meld, "tiles": "5555m"}]})
        assert got["kong_bloom"] == 1, meld
    flower = {**BLOOM, "rules": rules, "concealed": "123m456m456p789p99s78s", "flowers": "1f"}
    assert entries(flower)["kong_bloom"] == 1


@pytest.mark.parametrize("rules", ["tw-standard", "platform-tai"])
def test_no_kong_bloom_after_an_open_kong_or_with_nothing_replaced(rules):
    open_kong = {**BLOOM, "rules": rules, "melds": [{"type": "kong", "tiles": "5555m"}]}
    assert refused(open_kong) == "kong_replacement_source"
    nothing = {**BLOOM, "rules": rules, "concealed": "123m456m456p789p99s78s"}
    assert refused(nothing) == "kong_replacement_source"


# --- 搶槓: the robbed player held three copies and added the fourth -------------------------------

def test_robbing_a_kong_of_a_tile_the_winner_holds_is_impossible():
    hand = {"concealed": "123m456p789p55m99s", "melds": [{"type": "chi", "tiles": "123s"}], "winning_tile": "5m",
            "discarder": "W", "seat_wind": "S", "context": {"robbing_kong": True}}
    assert refused(hand) == "robbing_kong_copies"
    fine = {**hand, "concealed": "123m456p789p46m99s"}
    assert entries(fine)["robbing_kong"] == 1


# --- 地胡 on the dealer's first discard is also a first-go-around discard win: never both --------

def test_earthly_win_on_the_dealers_first_discard_replaces_human_win(tmp_path):
    path = tmp_path / "first.toml"
    path.write_text('[table]\nid = "first"\nextends = "platform-tai"\n[settings]\n'
                    'earthly_win = "dealer_first_discard"\n', encoding="utf-8")
    won = {"concealed": "123m456m789m123p456p7s", "winning_tile": "7s", "discarder": "E", "seat_wind": "S",
           "rules": str(path), "context": {"first_turn": True}}
    got = entries(won)
    assert got.get("earthly_win") == 16 and "human_win" not in got
    other = entries({**won, "discarder": "W"})  # not the dealer's discard: 人胡
    assert other.get("human_win") == 12 and "earthly_win" not in other


# --- 門清 and an open kong: the seeds name 吃 and 碰; common practice adds 明槓 (a setting) -------

def test_an_open_kong_breaks_menqing_unless_the_table_says_not(tmp_path):
    kong = {"concealed": "456m789p234s66p45s", "melds": [{"type": "kong", "tiles": "1111m"}], "winning_tile": "6s",
            "seat_wind": "S", "discarder": "W", "rules": "platform-tai"}
    assert "menqing" not in entries(kong)
    path = tmp_path / "open.toml"
    path.write_text('[table]\nid = "open"\nextends = "platform-tai"\n[settings]\nopen_kong_breaks_menqing = false\n',
                    encoding="utf-8")
    assert entries({**kong, "rules": str(path)})["menqing"] == 1
    added = {**kong, "rules": str(path), "melds": [{"type": "addkong", "tiles": "1111m"}]}  # a pong came first
    assert "menqing" not in entries(added)
    drawn = {**kong, "rules": str(path), "self_drawn": True, "discarder": None}
    assert entries(drawn).get("menqing_zimo") and "menqing" not in entries(drawn)


def test_single_wait_by_tiles_leaves_two_tile_waits_out():
    """2345m waits on 2m and 5m: a pair reading, but two tiles could win (the table's note)."""
    two = {"concealed": "2345m789m123p456p789s", "winning_tile": "2m", "discarder": "W", "seat_wind": "S"}
    assert "single_wait" not in entries(two)
    held = {"concealed": "23m456p789p123s99s", "melds": [{"type": "ankong", "tiles": "1111m"}], "winning_tile": "4m",
            "discarder": "W", "seat_wind": "S"}  # 1m all held: 4m alone wins
    assert entries(held)["single_wait"] == 1
