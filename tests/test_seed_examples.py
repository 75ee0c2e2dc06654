"""Worked examples written in the rule sources themselves (../shared/rules/00*.txt)."""
import pytest

from engine.errors import HandError
from engine.flow import TAIWAN, YUEQING, wall_reserve
from engine.hand import Hand, Meld
from engine.scoring import score
from engine.tiles import format_tiles, parse_tiles, tile_name


# Seed 002: 上家打"三索"時,自己可以拿出"一二索"或"二四索"或"四五索"來吃"三索"
@pytest.mark.parametrize("own, run", [("12s", "123s"), ("24s", "234s"), ("45s", "345s")])
def test_seed_002_chi_on_three_bamboo(own, run):
    meld = Meld.make("chi", parse_tiles(own) + parse_tiles("3s"))
    assert format_tiles(meld.tiles) == run


@pytest.mark.parametrize("own", ["13s", "35s", "3s3s", "12m"])
def test_seed_002_no_chi_without_a_run(own):
    with pytest.raises(HandError, match="not a chi"):
        Meld.make("chi", parse_tiles(own) + parse_tiles("3s"))


# Seed 002/003: 最後必須留下八垛(16張)不能摸,每槓一次,則再多留一張; seed 004: 剩余14张 流局
def test_wall_reserve_examples():
    assert wall_reserve(TAIWAN, 0) == 16 and wall_reserve(TAIWAN, 2) == 18
    assert wall_reserve(YUEQING, 0) == 14 and wall_reserve(YUEQING, 3) == 14


# Seed 004 八: the six basic winning shapes 11 + five of (123 | 111), 111 including 1111.
@pytest.mark.parametrize("runs", range(6))
def test_seed_004_basic_shapes_win(runs):
    sets = ["123m", "456m", "789m", "123p", "456p"][:runs] + ["111s", "333s", "555s", "777s", "999s"][runs:]
    tiles = parse_tiles(" ".join(sets) + " EE")
    win = tiles.pop()
    hand = Hand.from_dict({"rules": "yueqing", "concealed": format_tiles(tiles), "winning_tile": tile_name(win),
                           "self_drawn": True, "context": {"caishen": "9p"}})
    assert score(hand)["win"] is True


def test_seed_004_kong_counts_as_a_triplet():
    hand = Hand.from_dict({"rules": "yueqing", "concealed": "123m456m789m123pE", "winning_tile": "E",
                           "melds": [{"type": "kong", "tiles": "5555s"}], "self_drawn": True,
                           "context": {"caishen": "9p"}})
    assert score(hand)["win"] is True


# Seed 003: 門清自摸 3 counts instead of 門清 1 + 自摸 1 (its own row says 沒有吃也沒有碰,自己摸牌而胡牌)
def test_seed_003_concealed_self_draw_row():
    hand = Hand.from_dict({"concealed": "123m456m789m123p45p77s", "winning_tile": "6p", "self_drawn": True,
                           "seat_wind": "S"})
    ids = [e["id"] for e in score(hand)["breakdown"]]
    assert "menqing_zimo" in ids and "menqing" not in ids and "zimo" not in ids

