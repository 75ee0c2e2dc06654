"""Issue 11, engine side: a 17-tile hand that already wins (item 3), 八仙過海 on an ordinary win
(item 10) and the wind rows' setting (item 9). One positive and one negative case per rule."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import HandError
from engine.rules import load_table
from engine.service import advise_json, score_json
from tests.app_support import FETCH, client  # noqa: F401  (client is a fixture)

ROOT = Path(__file__).resolve().parent.parent
COMPLETE = "123m456m789m123p456p5s5s"     # 17 tiles: five runs and a pair
NOT_YET = "123m456m789m123p456p5s6s"


def breakdown(result: dict) -> dict:
    return {b["id"]: b["tai"] for b in result["breakdown"]}


# ---- item 3: a win is a win ----

def test_advise_on_a_complete_hand_answers_the_win_and_its_tai():
    a = advise_json({"concealed": COMPLETE})
    assert {k: a[k] for k in ("win", "tai", "winning_tile", "self_drawn", "shanten", "discards")} == {
        "win": True, "tai": 5, "winning_tile": "2m", "self_drawn": True, "shanten": -1, "discards": []}
    assert breakdown(a["score"]) == {"menqing_zimo": 3, "single_wait": 1, "dealer": 1}


def test_advise_win_on_a_discard_and_with_a_named_drawn_tile():
    a = advise_json({"concealed": COMPLETE, "self_drawn": False})
    assert (a["win"], a["tai"], a["self_drawn"]) == (True, 3, False)
    assert breakdown(a["score"]) == {"menqing": 1, "single_wait": 1, "dealer": 1}
    b = advise_json({"concealed": COMPLETE, "winning_tile": "1m"})
    assert (b["tai"], b["winning_tile"]) == (4, "1m") and breakdown(b["score"]) == {"menqing_zimo": 3, "dealer": 1}


def test_advise_under_another_table_uses_its_tai():
    a = advise_json({"rules": "platform-flower", "concealed": COMPLETE})
    rest = COMPLETE.replace(a["winning_tile"][0], "", 1)  # COMPLETE holds one copy of each m tile
    direct = score_json({"rules": "platform-flower", "concealed": rest, "winning_tile": a["winning_tile"],
                         "self_drawn": True})
    assert a["win"] is True and a["tai"] == direct["tai"] == 14


def test_advise_on_a_hand_that_does_not_win_still_ranks_discards():
    a = advise_json({"concealed": NOT_YET})
    assert a["win"] is False and a["shanten"] == 0
    assert [d["discard"] for d in a["discards"][:2]] == ["5s", "6s"]


def test_advise_refuses_a_drawn_tile_outside_the_hand():
    with pytest.raises(HandError) as e:
        advise_json({"concealed": COMPLETE, "winning_tile": "9p"})
    assert e.value.code == "drawn_not_in_hand" and e.value.params["tile"] == "9p"


def test_api_and_command_line_advise_a_win(client):
    r = client.post("/api/advise", json={"concealed": COMPLETE}, headers=FETCH)
    assert r.status_code == 200 and r.get_json()["win"] is True and r.get_json()["tai"] == 5
    r = client.post("/api/advise", json={"concealed": COMPLETE, "self_drawn": False}, headers=FETCH)
    assert r.get_json()["tai"] == 3
    assert client.post("/api/advise", json={"concealed": NOT_YET}, headers=FETCH).get_json()["win"] is False
    p = subprocess.run([sys.executable, "-m", "engine", "advise"], input=json.dumps({"concealed": COMPLETE}),
                       capture_output=True, text=True, cwd=ROOT)
    out = json.loads(p.stdout)
    assert p.returncode == 0 and (out["win"], out["tai"], out["discards"]) == (True, 5, [])


def test_yueqing_complete_hand_without_caishen_is_a_win_without_tai():
    a = advise_json({"rules": "yueqing", "concealed": COMPLETE})
    assert a["win"] is True and a["tai"] is None and a["score_error"]["code"] == "caishen_missing"


# ---- item 10: 八仙過海 on an ordinary win ----

ORDINARY = {"concealed": "123m456m789m123p456p5s", "winning_tile": "5s", "discarder": "S", "seat_wind": "E"}


@pytest.mark.parametrize("rules, tai, entries", [
    ("tw-standard", 11, {"menqing": 1, "single_wait": 1, "eight_flowers": 8, "dealer": 1}),
    ("platform-tai", 19, {"eight_flowers": 16, "dealer": 1, "menqing": 1, "single_wait": 1}),
    ("platform-flower", 25, {"eight_flowers": 16, "pure_straight": 4, "dealer": 1, "menqing": 2, "single_wait": 2}),
])
def test_eight_flowers_count_with_the_hand_on_an_ordinary_win(rules, tai, entries):
    r = score_json(dict(ORDINARY, rules=rules, flowers="1f2f3f4f5f6f7f8f"))
    assert r["win"] is True and r["tai"] == tai and breakdown(r) == entries


def test_eight_flowers_self_drawn_ordinary_win():
    h = {k: v for k, v in ORDINARY.items() if k != "discarder"}
    r = score_json(dict(h, flowers="1f2f3f4f5f6f7f8f", self_drawn=True))
    assert breakdown(r) == {"menqing_zimo": 3, "single_wait": 1, "eight_flowers": 8, "dealer": 1}


@pytest.mark.parametrize("rules, entries", [
    ("tw-standard", {"menqing": 1, "single_wait": 1, "seat_flower": 1, "flower_kong": 2, "dealer": 1}),
    ("platform-tai", {"flower_kong": 1, "seat_flower": 1, "dealer": 1, "menqing": 1, "single_wait": 1}),
])
def test_seven_flowers_are_no_eight_flowers(rules, entries):
    assert breakdown(score_json(dict(ORDINARY, rules=rules, flowers="1f2f3f4f5f6f7f"))) == entries


def test_a_robbed_eighth_flower_is_seven_rob_one_not_eight_flowers():
    r = score_json(dict(ORDINARY, flowers="1f2f3f4f5f6f7f", winning_tile="8f", concealed="123m456m789m123p456p5s5s"[:-2]))
    assert "eight_flowers" not in breakdown(r) and breakdown(r)["seven_rob_one"] == 8


def test_eight_flowers_alone_still_win_with_a_hand_that_does_not_split():
    r = score_json(dict(ORDINARY, winning_tile="9s", flowers="1f2f3f4f5f6f7f8f"))
    assert r["win"] is True and breakdown(r) == {"eight_flowers": 8, "dealer": 1}


# ---- item 9: the wind rows' setting ----

EAST_HAND = {"concealed": "EEE123m456m789m12p55p", "winning_tile": "3p", "seat_wind": "E", "round_wind": "E",
             "discarder": "S"}


def common_winds(tmp_path) -> str:
    path = tmp_path / "common-winds.toml"
    path.write_text('[table]\nextends = "tw-standard"\nid = "common-winds"\n\n'
                    '[settings]\nwind_rows_with_seat_round = false\n', encoding="utf-8")
    return str(path)


def test_the_seed_counts_east_as_seat_round_and_its_own_row():
    assert load_table("tw-standard").settings["wind_rows_with_seat_round"] is True
    r = breakdown(score_json(EAST_HAND))
    assert (r["seat_wind"], r["round_wind"], r["east_triplet"]) == (1, 1, 1)


def test_the_common_counting_gives_two(tmp_path):
    r = breakdown(score_json(dict(EAST_HAND, rules=common_winds(tmp_path))))
    assert (r["seat_wind"], r["round_wind"]) == (1, 1) and "east_triplet" not in r


def test_the_common_counting_keeps_a_wind_that_is_neither_seat_nor_round(tmp_path):
    h = dict(EAST_HAND, concealed="NNN123m456m789m12p55p", seat_wind="S", discarder="W")
    r = breakdown(score_json(dict(h, rules=common_winds(tmp_path))))
    assert r["north_triplet"] == 1 and "seat_wind" not in r and "round_wind" not in r
