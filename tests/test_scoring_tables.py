"""Every scoring case in scoring_cases.py, exactly; and every table entry covered both ways."""
from pathlib import Path

import pytest

from engine.hand import Hand
from engine.rules import load_table, table_names
from engine.scoring import score
from tests.scoring_cases import CASES

RULES = Path(__file__).with_name("rules")
VARIANT_BASE = {"tw-jianhua": "tw-standard", "tw-keep-winds": "tw-standard", "tw-lilikuli": "tw-standard",
                "platform-tai-options": "platform-tai",
                "tw-last-discard": "tw-standard", "platform-flower-options": "platform-flower"}
TAIWAN_TABLES = [n for n in table_names() if load_table(n).scorer == "taiwan"]


def table_for(name):
    path = RULES / f"{name}.toml"
    return load_table(str(path) if path.is_file() else name)


def case_id(case):
    table, hand, expected, _ = case
    return f"{table}:{hand['concealed']}+{hand['winning_tile']}:{'-'.join(sorted(expected or ['nowin']))}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_case(case):
    table_name, hand_dict, expected, absent = case
    result = score(Hand.from_dict(hand_dict), table_for(table_name))
    got = {e["id"]: e["tai"] for e in result["breakdown"]}
    if expected is None:
        assert result["win"] is False and result["reason"]
    else:
        assert result["win"] is True
        assert got == expected
        assert result["tai"] == sum(expected.values())
    for entry_id in absent:
        assert entry_id not in got


@pytest.mark.parametrize("table_name", TAIWAN_TABLES)
def test_every_entry_has_a_positive_and_a_negative_case(table_name):
    table = load_table(table_name)
    mine = [c for c in CASES if VARIANT_BASE.get(c[0], c[0]) == table_name]
    positive = {eid for _, _, expected, _ in mine for eid in (expected or {})}
    negative = {eid for _, _, _, absent in mine for eid in absent}
    for entry in table.entries:
        if entry.tai > 0 or entry.pattern == "no_score":
            assert entry.id in positive, f"{table_name}: no positive case for {entry.id} ({entry.name})"
        assert entry.id in negative or entry.tai == 0 and entry.id in positive, \
            f"{table_name}: no negative case for {entry.id} ({entry.name})"
