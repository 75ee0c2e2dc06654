"""乐清麻将 2.0 scoring (engine/yueqing.py, engine/rules/yueqing.toml) against seed 004.

Every hand is 16 tiles before the winning tile. Unless a test says otherwise the 財神 is 9s and
no 9s is in the hand, so 无财神 (1 台) shows up in most totals.
"""
from __future__ import annotations

import dataclasses
import doctest
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.yueqing
from engine.errors import HandError
from engine.hand import Hand
from engine.rules import RULES_DIR, parse_table
from engine.yueqing import YUEQING_PATTERNS, doubling, score_yueqing

FIVE_CHI = [("chi", "123m"), ("chi", "456m"), ("chi", "789p"), ("chi", "234s"), ("chi", "678s")]


def table(replaces=None, **overrides):
    """The shipped table, with some settings (and some entries' replaces) changed."""
    path = RULES_DIR / "yueqing.toml"
    with open(path, "rb") as f:
        data = tomllib.load(f)
    data["settings"].update(overrides)
    for entry in data["entry"]:
        if replaces and entry["id"] in replaces:
            entry["replaces"] = replaces[entry["id"]]
    return parse_table(data, str(path), YUEQING_PATTERNS)


TABLE = table()


def hand(concealed, win, *, cs="9s", melds=(), flowers="", self_drawn=False, seat="E", dealer="E",
         discarder=None, streak=0, **context):
    d = {"concealed": concealed, "winning_tile": win, "melds": [{"type": t, "tiles": s} for t, s in melds],
         "flowers": flowers, "self_drawn": self_drawn, "seat_wind": seat, "dealer": dealer,
         "streak": streak, "context": {"caishen": cs, **context}, "rules": "yueqing"}
    if discarder is not None:
        d["discarder"] = discarder
    return Hand.from_dict(d)


def score(h, t=TABLE):
    return score_yueqing(h, t)


def items(result):
    return {b["id"]: b["count"] for b in result["breakdown"]}


def check(h, total, expected, t=TABLE):
    """Exact total and exact item list (id -> count)."""
    r = score(h, t)
    assert r["win"], r["reason"]
    assert items(r) == expected
    assert r["tai"] == total
    return r


# The plain hand: closed wait 68s + 7s, nothing but 无财神.
PLAIN = "123m 456m 789p 234s 55p 68s"


def test_docstring_examples():
    assert doctest.testmod(engine.yueqing).failed == 0


def test_table_loads_and_every_entry_has_a_pattern():
    assert TABLE.scorer == "yueqing" and TABLE.hand_size == 16
    assert {e.pattern for e in TABLE.entries} == set(YUEQING_PATTERNS)
    assert {e.group for e in TABLE.entries} == {"1", "10", "20", "30", "100"}
    assert TABLE.flow["reserve"] == 14 and TABLE.flow["draw_increments_streak"] is False
    for e in TABLE.entries:
        assert str(e.tai) == e.group or e.group == "1"


def test_output_shape_and_payments():
    r = check(hand(PLAIN, "7s"), 1, {"wu_caishen": 1})
    assert set(r) == {"win", "reason", "tai", "breakdown", "decomposition", "formula", "payments"}
    assert r["breakdown"] == [{"id": "wu_caishen", "name": "无财神", "name_en": "No wild tile", "tai": 1, "count": 1}]
    assert r["formula"] == {"N": 1, "M": 0, "raw_N": 1}
    assert r["decomposition"]["winning_tile"] == "7s"
    assert r["decomposition"]["wait"] == "kanchan"  # the Taiwanese scorer's words
    assert {"type": "chi", "tiles": "678s", "concealed": True, "wild": ""} in r["decomposition"]["sets"]
    # dealer (E) wins 1 台: 3*(1+2+1-1) from the three others
    assert r["payments"] == {"E": 9, "S": -3, "W": -3, "N": -3}
    # a non-dealer wins; the dealer has stayed once (streak 1 → 牢庄 2)
    r = score(hand(PLAIN, "7s", seat="S", streak=1))
    assert r["payments"] == {"E": -4, "S": 8, "W": -2, "N": -2}


# ---- 一台 --------------------------------------------------------------------------------------

def test_seat_wind_triplet():
    check(hand("123m 456m 789p SSS 55p 68s", "7s", seat="S"), 2, {"zi_feng_wei": 1, "wu_caishen": 1})
    check(hand("123m 456m 789p SSS 55p 68s", "7s", seat="E"), 1, {"wu_caishen": 1})


def test_seat_wind_triplet_made_with_a_wild():
    check(hand("123m 456m 789p SS 1p 55p 68s", "7s", seat="S", cs="1p"), 1, {"zi_feng_wei": 1})


def test_seat_wind_that_is_the_wild_does_not_count():
    # a pong of S when S is the 財神: 三财神刻 (三归位 dropped), no 字风位
    check(hand("123m 456m 789p 55p 68s", "7s", seat="S", cs="S", melds=[("pong", "SSS")]), 60,
          {"san_caishen_ke": 1})
    # concealed, the three 財神 are better read as a 紅中 triplet (财神替代形成的刻子 counts)
    check(hand("123m 456m 789p SSS 55p 68s", "7s", seat="S", cs="S"), 62,
          {"san_caishen_ke": 1, "hong_zhong_ke": 1})


def test_white_flowers_one_tai_each():
    r = check(hand(PLAIN, "7s", flowers="PP"), 3, {"bai_ban": 2, "wu_caishen": 1})
    assert r["breakdown"][0]["tai"] == 2


def test_red_is_the_flower_when_white_is_the_wild():
    check(hand(PLAIN, "7s", flowers="CC", cs="P"), 3, {"bai_ban": 2, "wu_caishen": 1})
    with pytest.raises(HandError):
        score(hand(PLAIN, "7s", flowers="PP", cs="P"))


def test_red_and_green_triplets():
    check(hand("123m 456m 789p CCC 55p 68s", "7s"), 2, {"hong_zhong_ke": 1, "wu_caishen": 1})
    check(hand("123m 456m 789p FFF 55p 68s", "7s"), 2, {"fa_cai_ke": 1, "wu_caishen": 1})
    check(hand("123m 456m 789p 234s CC 68s", "7s"), 1, {"wu_caishen": 1})
    check(hand("123m 456m 789p 234s FF 68s", "7s"), 1, {"wu_caishen": 1})


def test_dragon_triplet_of_the_wild_follows_the_setting():
    h = hand("123m 456m 789p 55p 68s", "7s", cs="C", melds=[("pong", "CCC")])
    check(h, 60, {"san_caishen_ke": 1})
    check(h, 62, {"hong_zhong_ke": 1, "san_caishen_ke": 1}, table(caishen_dragon_pong_counts=True))


def test_no_wild_and_single_wild_at_home():
    check(hand(PLAIN, "7s"), 1, {"wu_caishen": 1})
    # 2s is the 財神 and sits at home in 234s
    check(hand(PLAIN, "7s", cs="2s"), 1, {"caishen_yi_guiwei": 1})
    # the lone 財神 (1p) fills 678s: neither 无财神 nor 归位, a 0-台 win
    r = check(hand("123m 456m 789p 234s 55p 6s 1p", "7s", cs="1p"), 0, {})
    assert {"type": "chi", "tiles": "678s", "concealed": True, "wild": "8s"} in r["decomposition"]["sets"] \
        or {"type": "chi", "tiles": "567s", "concealed": True, "wild": "5s"} in r["decomposition"]["sets"]


def test_two_wilds_mixed():
    check(hand("123m 456m 789p 234s 55p 6s 1p", "1p", cs="1p", self_drawn=True), 1, {"shuang_caishen_zahu": 1})


def test_two_wilds_one_at_home_is_two_tai():
    # 2m at home in 123m, the other 2m fills 678s: 双财神杂胡 + 1 for the one at home
    check(hand("123m 2m 456m 789p 234s 55p 6s", "7s", cs="2m"), 2,
          {"shuang_caishen_zahu": 1, "zahu_guiwei": 1})


def test_wild_beside_a_real_tile_in_the_eyes_follows_the_setting():
    # two 財神, one of them must sit beside 5s in the eyes (55s), the other fills 456p
    h = hand("123m 456m 789p 234s 5s 46p 1p", "1p", cs="1p", self_drawn=True)
    check(h, 1, {"shuang_caishen_zahu": 1})
    assert score(h, table(zahu_wild_in_eyes=False))["tai"] == 0


def test_kong_replacement_and_robbing_a_kong():
    check(hand("123m 456m 234s 55p 68s", "7s", melds=[("ankong", "7777p")], self_drawn=True, kong_replacement=True),
          2, {"wu_caishen": 1, "gang_shang_kai_hua": 1})
    with pytest.raises(HandError) as e:  # no kong and no flower: nothing was drawn in replacement
        score(hand(PLAIN, "7s", self_drawn=True, kong_replacement=True))
    assert e.value.code == "kong_replacement_no_kong"
    check(hand(PLAIN, "7s", robbing_kong=True), 2, {"wu_caishen": 1, "qiang_gang_hu": 1})
    check(hand(PLAIN, "7s", self_drawn=True), 1, {"wu_caishen": 1})


# ---- 平胡 and the seed's counter-examples ------------------------------------------------------

@pytest.mark.parametrize("win", ["3s", "6s"])
def test_ping_hu_two_sided(win):
    # seed: 8筒对、45万,胡3万或6万 (here in 條)
    r = check(hand("123m 456m 789p 234s 88p 45s", win), 2, {"wu_caishen": 1, "ping_hu": 1})
    assert r["decomposition"]["wait"] == "ryanmen"


def test_ping_hu_edge_waits_do_not_count():
    # seed: 8筒对、12万,胡3万 / 8筒对、89万,胡7万 不算平胡
    check(hand("456m 789m 123p 234s 88p 12m", "3m"), 1, {"wu_caishen": 1})
    check(hand("123m 456m 123p 234s 88p 89m", "7m"), 1, {"wu_caishen": 1})


def test_ping_hu_wild_with_2m_does_not_count():
    # seed: 财神1个,2万,8筒对,胡3万 也不算 (the 財神 is E here and stands for 1m or 4m)
    h = hand("456m 789p 234s 567s 88p 2m E", "3m", cs="E")
    check(h, 0, {})
    assert score(h, table(ping_hu_wild_in_winning_chow=True))["tai"] == 0


def test_ping_hu_with_a_wild_in_the_winning_run_follows_the_setting():
    # E stands for 4m: 4m(wild) 5m waits on 3m, two-sided by position
    h = hand("789p 234s 567s 123p 88p 5m E", "3m", cs="E")
    check(h, 0, {})
    check(h, 1, {"ping_hu": 1}, table(ping_hu_wild_in_winning_chow=True))


def test_ping_hu_needs_only_runs_and_a_plain_pair():
    check(hand("123m 456m 777p 234s 88p 45s", "3s"), 1, {"wu_caishen": 1})       # 暗刻
    check(hand("123m 456m 789p 234s EE 45s", "3s"), 1, {"wu_caishen": 1})        # eyes = own wind
    check(hand("123m 456m 789p 234s SS 45s", "3s"), 2, {"wu_caishen": 1, "ping_hu": 1})  # another wind
    check(hand("123m 456m 789p 234s CC 45s", "3s"), 1, {"wu_caishen": 1})        # eyes = 紅中
    check(hand("123m 456m 789p 234s 88p 46s", "5s"), 1, {"wu_caishen": 1})       # closed wait
    # a chi is allowed (没有碰杠), a pong is not
    check(hand("456m 789p 234s 88p 45s", "3s", melds=[("chi", "123m")]), 2, {"wu_caishen": 1, "ping_hu": 1})
    check(hand("456m 789p 234s 88p 45s", "3s", melds=[("pong", "111m")]), 1, {"wu_caishen": 1})


def test_ping_hu_with_a_wild_elsewhere_follows_the_setting():
    h = hand("123m 456m 789p 234s 88p 45s", "3s", cs="2m")   # 2m at home in 123m
    check(h, 2, {"caishen_yi_guiwei": 1, "ping_hu": 1})
    check(h, 1, {"caishen_yi_guiwei": 1}, table(ping_hu_caishen_elsewhere=False))


# ---- 十台 --------------------------------------------------------------------------------------

def test_wild_pair_as_eyes():
    check(hand("123m 456m 789p 234s 68s EE", "7s", cs="E"), 20, {"caishen_zuo_niu": 1})
    # both 財神 at home instead: 双归位, no 做牛
    check(hand("123m 123m 456p 789p 55s 68s", "7s", cs="2m"), 20, {"shuang_caishen_shuang_guiwei": 1})


def test_lone_wild_wait():
    check(hand("E", "5p", cs="E", melds=FIVE_CHI), 20, {"caishen_diao": 1})
    # 自摸财神时,加计财神做牛
    check(hand("E", "E", cs="E", melds=FIVE_CHI, self_drawn=True), 40, {"caishen_diao": 1, "caishen_zuo_niu": 1})
    h = hand("E", "E", cs="E", melds=FIVE_CHI)
    check(h, 20, {"caishen_diao": 1})
    check(h, 40, {"caishen_diao": 1, "caishen_zuo_niu": 1}, table(caishen_diao_niu_needs_self_draw=False))
    check(hand("5p", "5p", cs="E", melds=FIVE_CHI), 62, {"wu_caishen": 1, "ying_diao": 1})   # not 财神吊


def test_three_wilds_mixed():
    check(hand("13m 46p 79s 456m 789p 11s EE", "E", cs="E", self_drawn=True), 20, {"san_caishen_zahu": 1})
    # one of them at home: 三财神1归位算11台 → (1 + 10) * 2
    r = check(hand("13m 46p 79s 456m 789p 11s 2m 2m", "2m", cs="2m", self_drawn=True), 22,
              {"san_caishen_zahu": 1, "zahu_guiwei": 1})
    assert r["formula"] == {"N": 1, "M": 10, "raw_N": 1}


def test_all_triplets():
    check(hand("111m 444p 777s SSS 99m 55p", "5p"), 22, {"wu_caishen": 1, "dui_dui_peng": 1})
    check(hand(PLAIN, "7s"), 1, {"wu_caishen": 1})


def test_half_flush_and_full_flush():
    check(hand("123m 456m 789m SSS 55m 68m", "7m"), 22, {"wu_caishen": 1, "hun_yi_se": 1})
    check(hand("123m 456m 789m 234m 55m 68m", "7m"), 62, {"wu_caishen": 1, "qing_yi_se": 1})
    check(hand("123m 456m 789m 234p 55m 68m", "7m"), 1, {"wu_caishen": 1})


def test_flush_counts_a_wild_as_what_it_stands_for():
    # E (財神) stands for 7m: 清一色 although an honour tile is in the hand
    check(hand("123m 456m 789m 234m 55m 68m", "E", cs="E", self_drawn=True), 60, {"qing_yi_se": 1})


# ---- 二十台 ------------------------------------------------------------------------------------

def test_three_wilds_two_at_home():
    check(hand("13m 13m 46p 789p 789s 11s 2m 2m", "2m", cs="2m", self_drawn=True), 40,
          {"san_caishen_shuang_guiwei": 1})


def test_three_wilds_pair_as_eyes():
    check(hand("123m 456m 789p 234s 68s EE", "E", cs="E", self_drawn=True), 40, {"san_caishen_zuo_niu": 1})


def test_lone_tile_wait_self_drawn_wild():
    check(hand("5p", "E", cs="E", melds=FIVE_CHI, self_drawn=True), 40, {"ying_diao_mo_caishen": 1})
    check(hand("5p", "E", cs="E", melds=FIVE_CHI), 0, {})   # off a discard: only a plain win


# ---- 三十台 ------------------------------------------------------------------------------------

def test_four_winds_replace_seat_wind():
    check(hand("EEE SSS WWW NNN 11m 23m", "4m"), 82, {"wu_caishen": 1, "hun_yi_se": 1, "si_feng_qi": 1})
    check(hand("EEE SSS WWW 123m 11m 23m", "4m"), 24, {"zi_feng_wei": 1, "wu_caishen": 1, "hun_yi_se": 1})


def test_four_white_flowers():
    check(hand(PLAIN, "7s", flowers="PPPP"), 70, {"bai_ban": 4, "wu_caishen": 1, "si_bai_ban": 1})
    check(hand(PLAIN, "7s", flowers="PPPP"), 62, {"wu_caishen": 1, "si_bai_ban": 1},
          table(si_bai_ban_keeps_flower_tai=False))
    check(hand(PLAIN, "7s", flowers="CCCC", cs="P"), 70, {"bai_ban": 4, "wu_caishen": 1, "si_bai_ban": 1})
    check(hand(PLAIN, "7s", flowers="PPP"), 4, {"bai_ban": 3, "wu_caishen": 1})


def test_lone_tile_wait():
    check(hand("5p", "5p", melds=FIVE_CHI), 62, {"wu_caishen": 1, "ying_diao": 1})
    check(hand("5p", "5p", melds=FIVE_CHI[:4] + [("chi", "567s")]), 62, {"wu_caishen": 1, "ying_diao": 1})
    check(hand("123m 456m 789p 234s 678s 5p", "5p"), 1, {"wu_caishen": 1})   # all concealed: not 硬吊


def test_heavenly_and_earthly_hands():
    check(hand(PLAIN, "7s", self_drawn=True, first_turn=True), 62, {"wu_caishen": 1, "tian_hu": 1})
    check(hand(PLAIN, "7s", seat="S", self_drawn=True, first_turn=True), 1, {"wu_caishen": 1})
    check(hand(PLAIN, "7s", seat="S", discarder="E", first_turn=True), 62, {"wu_caishen": 1, "di_hu": 1})
    check(hand(PLAIN, "7s", seat="S", discarder="W", first_turn=True), 1, {"wu_caishen": 1})


def test_three_wild_triplet_replaces_three_at_home():
    # a pong of the 財神 (E, at home): 三财神刻; 三财神三归位 is dropped by its `replaces`
    h = hand("123m 456m 789p 55s 68s", "7s", cs="E", melds=[("pong", "EEE")])
    check(h, 60, {"san_caishen_ke": 1})
    check(h, 260, {"san_caishen_ke": 1, "san_caishen_san_guiwei": 1}, table(replaces={"san_caishen_ke": []}))
    # concealed, three 財神 together may stand for any triplet: 紅中 adds 红中刻
    check(hand("123m 456m 789p 234s 55s EE", "E", cs="E", self_drawn=True), 62,
          {"san_caishen_ke": 1, "hong_zhong_ke": 1})
    # with meld_caishen_count off the pong is three ordinary E: no 財神 in the hand, and still
    # no 字风位 because the seat wind is the 財神 kind
    check(hand("123m 456m 789p 55s 68s", "7s", cs="E", melds=[("pong", "EEE")]), 1,
          {"wu_caishen": 1}, table(meld_caishen_count=False))


def test_three_beauties():
    h = hand("123m 456m CCC FFF 55p 68s", "7s", flowers="PPP")
    r = check(h, 68, {"bai_ban": 3, "wu_caishen": 1, "san_mei_ren": 1})
    assert r["formula"] == {"N": 4, "M": 30, "raw_N": 4}
    check(hand("123m 456m CCC FFF 55p 68s", "7s", flowers="PP"), 5,
          {"hong_zhong_ke": 1, "fa_cai_ke": 1, "bai_ban": 2, "wu_caishen": 1})
    # 四个白板: 三美人 and 四白板 both count
    check(hand("123m 456m CCC FFF 55p 68s", "7s", flowers="PPPP"), 130,
          {"bai_ban": 4, "wu_caishen": 1, "si_bai_ban": 1, "san_mei_ren": 1})


def test_three_beauties_when_white_is_the_wild():
    # 紅中 flowers; 發 pong and a pong of 白板 (three 財神 at home)
    h = hand("123m 456m FFF PPP 55p 68s", "7s", flowers="CCC", cs="P")
    check(h, 126, {"bai_ban": 3, "san_caishen_ke": 1, "san_mei_ren": 1})
    # without the swap the three 財神 are best read as a wild EEE (字风位 for the East seat)
    check(h, 70, {"zi_feng_wei": 1, "bai_ban": 3, "fa_cai_ke": 1, "san_caishen_ke": 1},
          table(san_mei_ren_follows_flower=False))


# ---- 一百台 ------------------------------------------------------------------------------------

def test_three_wilds_all_at_home():
    # 2m ×3 at home in three 123m runs beats reading them as a 222m triplet
    r = check(hand("111333m 456p 789p 55s 2m2m", "2m", cs="2m", self_drawn=True), 200,
              {"san_caishen_san_guiwei": 1})
    chis = [s for s in r["decomposition"]["sets"] if s["tiles"] == "123m"]
    assert len(chis) == 3 and all(s["wild"] == "2m" for s in chis)


def test_all_honours_replaces_winds_and_dragons():
    check(hand("EEE SSS WWW NNN CCC F", "F"), 222, {"wu_caishen": 1, "dui_dui_peng": 1, "zi_yi_se": 1})
    check(hand("EEE SSS WWW CCC FFF N", "N", flowers="PPP"), 228,
          {"bai_ban": 3, "wu_caishen": 1, "dui_dui_peng": 1, "zi_yi_se": 1})
    check(hand("EEE SSS WWW CCC FFF 1m", "1m"), 48, {"zi_feng_wei": 1, "hong_zhong_ke": 1, "fa_cai_ke": 1,
                                                    "wu_caishen": 1, "dui_dui_peng": 1, "hun_yi_se": 1})


# ---- the doubling formula ----------------------------------------------------------------------

@pytest.mark.parametrize("raw_n, m, n, total", [
    (0, 0, 0, 0), (1, 0, 1, 1), (5, 0, 5, 5), (6, 0, 10, 20), (9, 0, 10, 20),
    (1, 10, 1, 22), (5, 30, 5, 70), (6, 10, 10, 40), (0, 100, 0, 200)])
def test_doubling_formula(raw_n, m, n, total):
    assert doubling(raw_n, m) == (n, total)


def test_doubling_through_hands():
    five = hand("123m 456m 789m SSS 55p 68s", "7s", seat="S", flowers="PP", self_drawn=True, kong_replacement=True)
    r = check(five, 5, {"zi_feng_wei": 1, "bai_ban": 2, "wu_caishen": 1, "gang_shang_kai_hua": 1})
    assert r["formula"] == {"N": 5, "M": 0, "raw_N": 5}
    six = hand("123m 456m SSS CCC 55p 68s", "7s", seat="S", flowers="PP", self_drawn=True, kong_replacement=True)
    r = check(six, 20, {"zi_feng_wei": 1, "bai_ban": 2, "hong_zhong_ke": 1, "wu_caishen": 1,
                        "gang_shang_kai_hua": 1})
    assert r["formula"] == {"N": 10, "M": 0, "raw_N": 6}
    assert score(six, table(big_one_tai_doubles=False))["tai"] == 10


# ---- not a win, bad input ----------------------------------------------------------------------

def test_not_a_win():
    r = score(hand(PLAIN, "9s", cs="E"))
    assert r["win"] is False and r["tai"] == 0 and r["breakdown"] == []
    assert "pair and five sets" in r["reason"]
    assert r["payments"] == {"E": 0, "S": 0, "W": 0, "N": 0}
    r = score(hand("123m 456m 789p 234s 55p 6s E", "1p", cs="E"))
    assert r["win"] is False and "財神" in r["reason"]


@pytest.mark.parametrize("kwargs", [
    {"flowers": "1f"},                      # 乐清 has no flower tiles
    {"flowers": "C"},                       # 紅中 is a flower only when 白板 is the 財神
    {"cs": None},                           # the 財神 must be given
])
def test_bad_input(kwargs):
    with pytest.raises(HandError):
        score(hand(PLAIN, "7s", **kwargs))


def test_white_in_hand_is_refused():
    with pytest.raises(HandError, match="flower"):
        score(hand("123m 456m 789p 234s PP 68s", "7s"))
    with pytest.raises(HandError, match="flower"):
        score(hand(PLAIN, "P"))
    # …but 白板 plays when it is the 財神, and then 紅中 may not
    assert score(hand("123m 456m 789p 234s 55p 68s", "P", cs="P"))["win"]
    with pytest.raises(HandError, match="flower"):
        score(hand("123m 456m 789p 234s CC 68s", "7s", cs="P"))


def test_wrong_tile_count_is_refused():
    with pytest.raises(HandError):
        score(Hand(concealed=(0, 1, 2), winning_tile=3, context=dataclasses.replace(hand(PLAIN, "7s").context)))


# ---- properties and speed ----------------------------------------------------------------------

HANDS = [
    hand(PLAIN, "7s"),
    hand("13m 46p 79s 456m 789p 11s 2m 2m", "2m", cs="2m", self_drawn=True),
    hand("111333m 456p 789p 55s 2m2m", "2m", cs="2m", self_drawn=True),
    hand("123m 456m 789p 234s 88p 45s", "3s"),
    hand("EEE SSS WWW CCC FFF N", "N", flowers="PPP"),
    hand("123m 456m 789p 234s 68s EE", "E", cs="E", self_drawn=True),
    hand("123m 456m 789p 234s 55p 6s E", "1p", cs="E"),
]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HANDS).flatmap(lambda h: st.tuples(st.just(h), st.permutations(h.concealed))))
def test_order_of_concealed_tiles_does_not_matter(case):
    h, order = case
    assert score(dataclasses.replace(h, concealed=tuple(order))) == score(h)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(range(27)), min_size=5, max_size=5), st.sampled_from(range(34)))
def test_adding_wilds_never_breaks_a_win(starts, cs):
    """A win made of runs stays a win when any tiles are swapped for the 財神 (it can stand in)."""
    tiles = []
    for s in starts:
        base = s - s % 9 + min(s % 9, 6)
        tiles += [base, base + 1, base + 2]
    tiles += [starts[0], starts[0]]
    if cs == 33 or max(tiles.count(t) for t in tiles) > 4 or 33 in tiles or tiles.count(cs) + 3 > 4:
        return
    swapped = [cs if i < 3 else t for i, t in enumerate(tiles)]
    win = swapped.pop()
    h = dataclasses.replace(hand(PLAIN, "7s", cs="9s"), concealed=tuple(swapped), winning_tile=win,
                            context=dataclasses.replace(hand(PLAIN, "7s").context, caishen=cs))
    assert score(h)["win"]


def test_four_wilds_cold_cache():
    """Hands with four wilds, scored from an empty cache (timing is measured in make bench only)."""
    engine.yueqing._part.cache_clear()
    engine.yueqing._hand_summaries.cache_clear()
    assert score(hand("5m5m5m5m 2468p 13s 79s ENWC", "S", cs="5m"))["win"] is False
    assert score(hand("5m5m5m5m 2468p 13s 79s 11m 99m", "9m", cs="5m"))["win"] is True
    assert score(hand("5m5m5m 234678m 345p 456s 9s", "5m", cs="5m", self_drawn=True))["win"] is True


def test_four_wilds():
    # four 財神 (E): a pair of them as the eyes is 做牛, the other two fill runs
    check(hand("13m 46p 456m 789p 789s EEE", "E", cs="E", self_drawn=True), 20, {"caishen_zuo_niu": 1})


def test_the_dealer_is_always_east():
    """Seed 004 §二: 庄家永远是"东"家. A dealer given as 南 made 南's pong the dealer's 字风位."""
    for seat, dealer in (("S", "S"), ("E", "S"), ("S", True)):
        with pytest.raises(HandError) as e:
            score(Hand.from_dict({"rules": "yueqing", "concealed": "123456m 2789p 234s SSS", "winning_tile": "2p",
                                  "seat_wind": seat, "dealer": dealer, "self_drawn": True,
                                  "context": {"caishen": "5p"}}))
        assert e.value.code == "yueqing_dealer_east"
    east = score(Hand.from_dict({"rules": "yueqing", "concealed": "123456m 2789p 234s SSS", "winning_tile": "2p",
                                 "seat_wind": "E", "dealer": True, "self_drawn": True, "context": {"caishen": "5p"}}))
    assert east["win"] and "zi_feng_wei" not in items(east)


def test_every_wait_a_scorer_names_is_worded_on_the_pages():
    """Both scorers say how the hand waited in one vocabulary (the yueqing scorer said "two-sided"
    and "closed", which the Chinese page showed as they were), and each word has a wording."""
    import inspect
    import re
    from pathlib import Path

    import engine.yueqing
    from engine.scoring import WAIT_PREFERENCE

    yueqing_waits = set(re.findall(r'return "([a-z]+)"', inspect.getsource(engine.yueqing._wait)))
    assert yueqing_waits == {"wild", "ryanmen", "tanki", "shanpon", "kanchan", "penchan"}
    root = Path(__file__).resolve().parent.parent / "static" / "js" / "lang"
    for lang in ("en", "zh"):
        text = (root / f"{lang}.js").read_text(encoding="utf-8")
        for wait in yueqing_waits | {w for w in WAIT_PREFERENCE if w}:
            assert f"  wait_{wait}:" in text, (lang, wait)
