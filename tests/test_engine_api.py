"""Tiles, hand validation, rule files, payments, options and the command line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import HandError
from engine.hand import Hand
from engine.rules import load_table
from engine.scoring import score
from engine.service import advise_json, waits_json
from engine.tiles import format_tiles, parse_tiles

ROOT = Path(__file__).resolve().parents[1]
A = {"concealed": "123m456m789m123p45p77s", "winning_tile": "3p", "seat_wind": "S", "discarder": "W"}


def test_parse_and_format():
    assert format_tiles(parse_tiles("EEE 55p 789s 456p 123m 8f 1f")) == "123m 45556p 789s EEE 18f"
    assert parse_tiles("一萬 九筒 三索 東 紅中 發 白板 梅 菊") == parse_tiles("1m 9p 3s E C F P 5f 8f")
    assert format_tiles(parse_tiles("1m,2m、3m")) == "123m"


@pytest.mark.parametrize("text", ["12x", "0m", "9f", "Z", "一"])
def test_bad_tile_strings(text):
    with pytest.raises(HandError, match="cannot read|flowers are"):
        parse_tiles(text)


@pytest.mark.parametrize("change, message", [
    ({"concealed": "1111m456m789m123p45p7s", "winning_tile": "1m"}, "5 copies of 1m"),
    ({"concealed": "123m456m789m123p45p7s"}, "15 concealed tiles"),
    ({"melds": [{"type": "chi", "tiles": "124m"}], "concealed": "456m789m123p45p7s"}, "not a chi"),
    ({"melds": [{"type": "pong", "tiles": "123m"}], "concealed": "456m789m123p45p7s"}, "not a pong"),
    ({"melds": [{"type": "steal", "tiles": "123m"}]}, "meld type"),
    ({"self_drawn": True}, "no discarder"),
    ({"discarder": "S"}, "cannot be the discarder"),
    ({"context": {"robbing_kong": True}, "self_drawn": True, "discarder": None}, "not self-drawn"),
    ({"context": {"kong_replacement": True}}, "self-drawn"),
    ({"context": {"heavenly_ready": True}}, "dealer"),
    ({"context": {"ippatsu": True}}, "declared ready"),
    ({"context": {"bogus": True}}, "unknown context key"),
    ({"seat_wind": "X"}, "seat_wind must be a wind"),
    ({"streak": -1}, "streak"),
    ({"flowers": "1m"}, "not a flower"),
    ({"flowers": "1f1f"}, "copies of 1f"),
    ({"concealed": "123m456m789m123p45p7s1f"}, "flowers go among the flowers"),
    ({"stakes": {"base": -5}}, "stakes.base"),
    ({"unknown": 1}, "unknown key"),
])
def test_bad_hands_are_refused_with_a_clear_message(change, message):
    data = {**A, **change}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(HandError, match=message):
        score(Hand.from_dict(data))


def test_not_a_win_says_why():
    r = score(Hand.from_dict({**A, "winning_tile": "9p"}))
    assert r["win"] is False and "five sets" in r["reason"]


def test_payments_claimed_and_self_drawn():
    claimed = score(Hand.from_dict(A))  # 門清 1: W pays 100 + 20
    assert claimed["payments"] == {"E": 0, "S": 120, "W": -120, "N": 0}
    drawn = score(Hand.from_dict({**A, "discarder": None, "self_drawn": True, "streak": 1}))
    # 門清自摸 3 for everyone; the dealer (E) also pays 莊家 1 + 連一 2
    assert drawn["payments"] == {"E": -100 - 6 * 20, "S": 3 * 100 + 3 * 20 * 3 + 3 * 20, "W": -160, "N": -160}
    assert sum(drawn["payments"].values()) == 0
    no_discarder = score(Hand.from_dict({k: v for k, v in A.items() if k != "discarder"}))
    assert no_discarder["win"] and no_discarder["payments"] is None


def test_dealer_wins_with_streak():
    r = score(Hand.from_dict({**A, "seat_wind": "E", "streak": 2, "stakes": {"base": 50, "per_tai": 10}}))
    assert r["tai"] == 1 + 1 + 4 and r["payments"] == {"E": 110, "S": 0, "W": -110, "N": 0}


def test_options_limit_ready_self_draw_only_and_dice(tmp_path):
    rules = tmp_path / "mine.toml"
    rules.write_text('[table]\nid = "mine"\nextends = "platform-tai"\n[settings]\nlimit_ready = true\n'
                     'self_draw_only = true\ndice_doubling = true\n', encoding="utf-8")
    base = {**A, "rules": str(rules)}
    assert "限聽" in score(Hand.from_dict(base))["reason"]
    assert "限自摸" in score(Hand.from_dict({**base, "context": {"declared_ready": True}}))["reason"]
    drawn = {**base, "discarder": None, "self_drawn": True, "context": {"declared_ready": True, "dice_doubles": 2}}
    r = score(Hand.from_dict({k: v for k, v in drawn.items() if v is not None}))
    assert r["win"] and r["payments"]["S"] == 4 * (2 * (100 + 4 * 20) + (100 + 5 * 20))


@pytest.mark.parametrize("body, message", [
    ('[[entry]]\nid = "x"', "missing \\[table\\]"),
    ('[table]\nid = "t"\n[[entry]]\nid = "x"\npattern = "nope"\nname = "a"\nname_en = "a"\ntai = 1\n'
     'description = "a"\nsource = "a"', "unknown pattern 'nope'"),
    ('[table]\nid = "t"\n[[entry]]\nid = "menqing"\nname = "a"\nname_en = "a"\ntai = -1\n'
     'description = "a"\nsource = "a"', "bad tai value"),
    ('[table]\nid = "t"\n[[entry]]\nid = "menqing"\nname = "a"\nname_en = "a"\ntai = 1\n'
     'description = "a"\nsource = "a"\nreplaces = ["zimo"]', "replaces unknown entry 'zimo'"),
    ('[table]\nid = "t"\n[[entry]]\nid = "menqing"\nname = "a"\nname_en = "a"\ntai = 1\ndescription = "a"\n'
     'source = "a"\nreplaces = ["zimo"]\n[[entry]]\nid = "zimo"\nname = "a"\nname_en = "a"\ntai = 1\n'
     'description = "a"\nsource = "a"\nreplaces = ["menqing"]', "cycle: menqing -> zimo -> menqing"),
    ('[table]\nid = "t"\nextends = "tw-standard"\n[tai]\nnot_an_entry = 3', "unknown entry 'not_an_entry'"),
    ('this is = = not toml', "not valid TOML"),
])
def test_broken_rule_files(tmp_path, body, message):
    path = tmp_path / "broken.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(HandError, match=message):
        load_table(str(path))


def test_copied_rule_file_with_changed_value(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('[table]\nid = "house"\nextends = "tw-standard"\n[tai]\nmenqing = 2\n', encoding="utf-8")
    assert score(Hand.from_dict({**A, "rules": str(path)}))["tai"] == 2


def test_waits_and_advise_service():
    w = waits_json({"concealed": "123m456m789m123p45pEE", "context": {"seen": "3p3p"}})
    assert w == {"waits": [{"tile": "3p", "remaining": 1}, {"tile": "6p", "remaining": 4}], "shanten": 0,
                 "dead_waits": []}
    dead = waits_json({"concealed": "123m456m789m123p5555p", "context": {}})  # 單吊 5p: all four visible
    assert dead["shanten"] == 0 and dead["dead_waits"] == ["5p"] and dead["waits"] == []
    a = advise_json({"concealed": "123m456m789m123p45pEE9s"})
    assert a["discards"][0]["discard"] == "9s" and a["discards"][0]["useful_copies"] == 7


def test_advise_ranks_a_ready_hand_on_dead_tiles_after_a_live_step_further():
    """Discarding 9s leaves 45p ready on 3p/6p, every copy seen: it needs a reshaping draw first
    (14 unseen copies do it), so discards one step further that 29 copies improve come first."""
    a = advise_json({"concealed": "123m456m789m123p45pEE9s", "context": {"seen": "3p3p3p6p6p6p6p"}})
    first, dead = a["discards"][0], next(d for d in a["discards"] if d["discard"] == "9s")
    assert (first["discard"], first["shanten"], first["useful_copies"]) == ("1p", 1, 29)
    assert "reshaping_copies" not in first
    assert (dead["shanten"], dead["useful_copies"], dead["reshaping_copies"]) == (0, 0, 14)
    assert [d["discard"] for d in a["discards"]].index("9s") == 4


def test_advise_keeps_two_dead_single_tiles_first():
    """Two dead single tiles beside four sets: either discard leaves a dead wait, but almost any
    draw reshapes it (113 copies), more than any discard one step further is improved by."""
    a = advise_json({"concealed": "123456789m123456p5s9s", "context": {"seen": "5s5s5s9s9s9s"}})
    assert [(d["discard"], d["shanten"], d["reshaping_copies"]) for d in a["discards"][:2]] == [
        ("5s", 0, 113), ("9s", 0, 113)]
    assert a["discards"][2]["shanten"] == 1 and a["discards"][2]["useful_copies"] == 10


def run_cli(args, stdin):
    return subprocess.run([sys.executable, "-m", "engine", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def test_cli_score_and_errors():
    ok = run_cli(["score"], json.dumps(A))
    assert ok.returncode == 0 and json.loads(ok.stdout)["tai"] == 1
    for bad in ["{not json", json.dumps({**A, "concealed": "12x"}), "[]"]:
        r = run_cli(["score"], bad)
        assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
        assert "Traceback" not in r.stderr
    rules = run_cli(["rules"], "")
    assert {t["id"] for t in json.loads(rules.stdout)["tables"]} >= {"tw-standard", "platform-tai", "platform-flower"}


def test_equal_readings_show_the_two_sided_wait():
    # 3p completes 12p (edge) or 45p (two-sided) for the same 台; the answer names the two-sided one
    r = score(Hand.from_dict(A))
    assert r["decomposition"]["wait"] == "ryanmen"
