"""Each setting for a point where tables disagree (NOTES.md) changes the score as its note says."""
import tomllib

import pytest

from engine.hand import Hand
from engine.rules import RULES_DIR
from engine.scoring import score

A = {"concealed": "123m456m789m123p45p77s", "winning_tile": "3p", "seat_wind": "S", "discarder": "W"}
A_CHI = {"concealed": "456m789m123p45p77s", "winning_tile": "3p", "seat_wind": "S",
         "melds": [{"type": "chi", "tiles": "123m"}]}
KANCHAN = {"concealed": "456m789m123p46p77s", "winning_tile": "5p", "seat_wind": "S", "discarder": "W",
           "melds": [{"type": "chi", "tiles": "123m"}]}
ALL_MELDED = {"concealed": "7s", "winning_tile": "7s", "seat_wind": "S", "discarder": "W",
              "melds": [{"type": "chi", "tiles": t} for t in ("123m", "456m", "789m", "123p")]
              + [{"type": "pong", "tiles": "999s"}]}
HONOURS = {"concealed": "EEESSSWWWCCCFFFP", "winning_tile": "P", "seat_wind": "S", "discarder": "W"}


def tai(hand, base="tw-standard", tmp_path=None, **settings):
    rules = base
    if settings:
        body = "".join(f"{k} = {_toml(v)}\n" for k, v in settings.items())
        path = tmp_path / "variant.toml"
        path.write_text(f'[table]\nid = "variant"\nextends = "{base}"\n[settings]\n{body}', encoding="utf-8")
        rules = str(path)
    result = score(Hand.from_dict({**hand, "rules": rules}))
    return {e["id"]: e["tai"] for e in result["breakdown"]}


def _toml(v):
    return ("true" if v else "false") if isinstance(v, bool) else (f'"{v}"' if isinstance(v, str) else str(v))


def test_pinghu_open_and_discard(tmp_path):
    assert "pinghu" not in tai(A)
    assert tai(A, tmp_path=tmp_path, pinghu_requires_open=False) == {"menqing": 1, "pinghu": 2}
    drawn = {**A_CHI, "self_drawn": True}
    assert "pinghu" not in tai(drawn)
    assert "pinghu" in tai(drawn, tmp_path=tmp_path, pinghu_requires_discard=False)


def test_pinghu_any_wait(tmp_path):
    assert tai(KANCHAN) == {"single_wait": 1}
    assert tai(KANCHAN, tmp_path=tmp_path, pinghu_any_wait=True) == {"single_wait": 1, "pinghu": 2}


def test_last_tile_and_kong_bloom(tmp_path):
    hand = {**A_CHI, "self_drawn": True, "flowers": "1f", "context": {"last_tile": True, "kong_replacement": True}}
    assert {"kong_bloom", "last_tile_draw"} <= set(tai(hand))
    only = tai(hand, tmp_path=tmp_path, last_tile_stacks_with_kong_bloom=False)
    assert "kong_bloom" in only and "last_tile_draw" not in only


def test_flower_kong_and_seat_flower(tmp_path):
    hand = {**A, "flowers": "1234f"}
    assert tai(hand) == {"menqing": 1, "flower_kong": 2}
    assert tai(hand, tmp_path=tmp_path, flower_kong_keeps_seat_flower=True) == \
        {"menqing": 1, "flower_kong": 2, "seat_flower": 1}


def test_all_melded_and_single_wait(tmp_path):
    assert tai(ALL_MELDED) == {"all_melded": 2}
    assert tai(ALL_MELDED, tmp_path=tmp_path, all_melded_replaces_single_wait=False) == \
        {"all_melded": 2, "single_wait": 1}


def test_all_honours_as_full_flush(tmp_path):
    assert tai(HONOURS)["full_flush"] == 8
    assert "full_flush" not in tai(HONOURS, tmp_path=tmp_path, full_flush_includes_all_honours=False)


def test_all_honours_and_all_pongs(tmp_path):
    assert {"all_honours", "all_pongs"} <= set(tai(HONOURS, "platform-flower"))
    kept = tai(HONOURS, "platform-flower", tmp_path=tmp_path, all_honours_replaces_all_pongs=True)
    assert "all_honours" in kept and "all_pongs" not in kept


def test_earthly_win_definitions(tmp_path):
    first_draw = {**A, "discarder": None, "self_drawn": True, "context": {"first_turn": True}}
    first_draw = {k: v for k, v in first_draw.items() if v is not None}
    assert "earthly_win" in tai(first_draw)
    on_dealer_discard = {**A, "discarder": "E", "context": {"first_turn": True}}
    assert "earthly_win" not in tai(on_dealer_discard)
    other = tai(on_dealer_discard, tmp_path=tmp_path, earthly_win="dealer_first_discard")
    assert other["earthly_win"] == 16
    assert "earthly_win" not in tai(first_draw, tmp_path=tmp_path, earthly_win="dealer_first_discard")


@pytest.mark.parametrize("streak, cap, expected", [(3, 0, 7), (3, 5, 5), (0, 0, 1)])
def test_dealer_tai_and_cap(tmp_path, streak, cap, expected):
    got = tai({**A, "discarder": "E", "streak": streak}, tmp_path=tmp_path, dealer_tai_cap=cap)
    assert got.get("dealer", 0) + got.get("dealer_streak", 0) == expected


def test_dealer_tai_off(tmp_path):
    assert tai({**A, "discarder": "E", "streak": 3}, tmp_path=tmp_path, dealer_tai=False) == {"menqing": 1}


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_every_setting_says_where_it_comes_from(path):
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, value in data.get("settings", {}).items():
        assert isinstance(value, dict) and len(value.get("note", "")) > 20, f"{path.name}: {key} has no note"


@pytest.mark.parametrize("rules", ["platform-tai", "tw-standard"])
def test_dealer_tai_on_another_s_self_draw(tmp_path, rules):
    """Seed 001 counts 莊家 and 連莊拉莊 when the dealer 胡牌或者是放槍; a non-dealer's self-draw, which the
    dealer pays with the others, is the common practice's (dealer_tai_on_self_draw), off by setting."""
    hand = {**A, "discarder": None, "self_drawn": True, "streak": 2}
    result = score(Hand.from_dict({**hand, "rules": rules}))
    assert (result["payments"]["E"], result["payments"]["W"], result["payments"]["N"]) == (-260, -160, -160)
    assert result["dealer_tai"] == 5 and result["tai"] == result["hand_tai"] + 5
    path = tmp_path / "variant.toml"
    path.write_text(f'[table]\nid = "variant"\nextends = "{rules}"\n[settings]\ndealer_tai_on_self_draw = false\n',
                    encoding="utf-8")
    off = score(Hand.from_dict({**hand, "rules": str(path)}))
    assert (off["payments"]["E"], off["payments"]["W"], off["payments"]["N"]) == (-160, -160, -160)
    assert off["tai"] == off["hand_tai"]
    # the dealer's own win and a deal-in by the dealer still carry them
    dealer_in = score(Hand.from_dict({**A, "discarder": "E", "streak": 2, "rules": str(path)}))
    assert dealer_in["payments"]["E"] == -(100 + (dealer_in["hand_tai"] + 5) * 20)


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_every_flow_value_says_where_it_comes_from(path):
    """[flow] values are read as plain values (engine.flow.FlowRules), so each one's source, or the
    common practice chosen where the seed is silent, is the comment on its line."""
    lines, inside = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            inside = line.strip() == "[flow]"
        elif inside and "=" in line and not line.lstrip().startswith("#"):
            lines.append(line)
    bare = [line.split("=")[0].strip() for line in lines if len(line.partition("#")[2].strip()) < 10]
    assert bare == [], f"{path.name}: [flow] {', '.join(bare)} without a note"
