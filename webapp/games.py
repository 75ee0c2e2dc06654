"""Game records as values: checking input, settling each hand, and the state after every hand.

Only the inputs of each hand are stored (winner, discarder, 台 …); payments, dealer, streak,
round wind and totals are derived here from the game's rule table every time, so an edited or
deleted hand recomputes everything after it. Payments depend on the streak before each hand,
so the hands are applied one at a time with engine.flow.apply_result (what replay does, with
the deltas settled in between).
"""
from __future__ import annotations

import json
import math
import unicodedata
from decimal import Decimal
from numbers import Real

from engine.errors import HandError, short_repr
from engine.flow import FlowRules, GameState, apply_result, new_game, seat_wind
from engine.rules import RuleTable, load_table, table_names
from engine.settlement import dealer_involved, dealer_tai, settle_taiwan, settle_yueqing

from .jsonsafe import depth
from .photos import PHOTO_ID
from .rescore import check as check_scored

MAX_NAME = 40
MAX_SCORED_BYTES = 64 * 1024
# the scored copies of one game's hands together: its export (about 0.5 KB a hand besides them)
# must stay under the 20 MB an import takes
MAX_GAME_SCORED_BYTES = 16 * 1024 * 1024
MAX_SCORED_DEPTH = 8   # an engine result nests 4 levels (decomposition -> sets -> set)
MAX_TAI = 10_000
# hands in one game, recorded or imported alike, so that every game's export imports again (a game of
# four rounds is some 16-40 hands; every change recomputes all of them)
MAX_HANDS = 2000
WIND_NAMES = "ESWN"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_amount(value) -> bool:
    """A number a stake can be: real, finite, not negative (a bool is no number here)."""
    return not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value) and value >= 0


def _amount(name: str, value, cents: bool = True) -> Real:
    if not is_amount(value):
        raise HandError(f"{name} must be a number ≥ 0, got {short_repr(value)}", code="not_non_negative", field=name,
                        value=value)
    if value > 1e9:
        raise HandError(f"{name} is too large (at most 1,000,000,000)", code="amount_too_large", field=name,
                        max="1,000,000,000")
    if cents and _in_cents(value) is None:  # 0.000004 a 台 could not be paid, and sums of it drift from zero
        raise HandError(f"{name} takes at most two decimals, got {short_repr(value)}", code="amount_cents", field=name,
                        value=value)
    return value


def _in_cents(value: Real) -> int | None:
    """The amount in hundredths when it is a whole number of them, else None (a game stored before
    amounts were checked for it). repr gives the shortest decimal that reads back as the float."""
    cents = Decimal(repr(value)) * 100
    return int(cents) if cents == cents.to_integral_value() else None


def _seat(name: str, value) -> int:
    if not _is_int(value) or not 0 <= value <= 3:
        raise HandError(f"{name} must be a seat 0-3, got {short_repr(value)}", code="not_a_seat", field=name, value=value)
    return value


def is_rounds(value) -> bool:
    """A game's number of wind rounds: a whole number 1-4 (a round is named by a wind), or None
    for its rule table's own."""
    return value is None or (_is_int(value) and 1 <= value <= 4)


def _rounds(value) -> int | None:
    """How many wind rounds the game lasts (1 東風圈 … 4 四圈), or None: its rule table's own."""
    if not is_rounds(value):
        raise HandError(f"rounds must be a whole number 1-4 (how many wind rounds the game lasts), got "
                        f"{short_repr(value)}", code="rounds_range", value=value)
    return value


def game_flow(table: RuleTable, rounds: int | None) -> FlowRules:
    """The table's [flow], ending after the game's own number of rounds where it chose one."""
    return FlowRules.from_dict(table.flow if rounds is None else {**table.flow, "rounds": rounds})


def rule_table(rules) -> RuleTable:
    """A shipped rule table. Paths are refused: a phone must not make the server read files."""
    if not isinstance(rules, str) or rules not in table_names():
        raise HandError(f"unknown rule table {short_repr(rules)}; known: {', '.join(table_names())}",
                        code="unknown_rule_table", table=rules, known=", ".join(table_names()))
    return load_table(rules)


def same_names(players: list[str]) -> str | None:
    """A name two players share, told apart by neither case, full-width letters nor invisible
    characters ("Ann", "ann", "ＡＮＮ" and "An\u200bn" are one name at a table); None when all four differ.

    >>> same_names(["Ann", "Bo", "ann", "Cy"]), same_names(["阿明", "阿華", "阿強", "阿珍"])
    ('ann', None)
    >>> same_names(["Ann", "An\u200bn", "Bo", "Cy"]) is not None
    True
    """
    seen = set()
    for p in players:
        # format characters (zero-width space, joiner, soft hyphen) show nothing: the names look alike
        key = "".join(ch for ch in unicodedata.normalize("NFKC", p).casefold() if unicodedata.category(ch) != "Cf")
        if key in seen:
            return p
        seen.add(key)
    return None


# Characters a name must not hold: they are not shown but change what is shown around the name
# (a right-to-left override turns "+120" beside it into "021+", a right-to-left or Arabic letter
# mark into "120+"; NUL, ESC and line breaks reach the CSV export and a terminal as they are). New
# games only: an export of a game recorded before this check imports again as it was.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                          "\u200e\u200f\u061c")  # the marks: LRM, RLM, ALM


def _hidden_control(ch: str) -> bool:
    return ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def _visible(name: str) -> bool:
    """The name shows at least one character (not only spaces, zero-width or combining marks)."""
    return any(unicodedata.category(ch)[0] not in "CZM" for ch in name)


def parse_setup(data: dict, cents: bool = True) -> dict:
    """Checked game settings: players, rules, base, per_tai, first_dealer, rounds (None: the
    table's). cents=False takes an export's finer stakes, recorded before amounts were held to
    hundredths (settled as before)."""
    players = data.get("players")
    if not isinstance(players, list) or len(players) != 4 or not all(isinstance(p, str) for p in players):
        raise HandError("players must be a list of four names", code="players_four")
    players = [p.strip() for p in players]
    if not all(players):
        raise HandError("every player needs a name", code="player_name_empty")
    if any(len(p) > MAX_NAME for p in players):
        raise HandError(f"player names are at most {MAX_NAME} characters", code="player_name_long", max=MAX_NAME)
    if cents:  # a new game; an export recorded before these checks imports as it was, names and all
        if not all(map(_visible, players)):  # "\u200b" is no name either
            raise HandError("every player needs a name", code="player_name_empty")
        for p in players:
            bad = next((ch for ch in p if _hidden_control(ch)), None)
            if bad is not None:
                char = f"U+{ord(bad):04X}"  # the name quoted as repr: the error shows what it holds, not its effect
                raise HandError(f"player names cannot hold control or text-direction characters (the name "
                                f"{short_repr(p)} holds {char})", code="player_name_control",
                                name=short_repr(p), char=char)
        same = same_names(players)
        if same:
            raise HandError(f"two players are both called {same}: give each a name of their own",
                            code="player_names_same", name=same)
    rules = data.get("rules", "tw-standard")
    rule_table(rules)
    return {"players": players, "rules": rules,
            "base": _amount("base", data.get("base", 100), cents),
            "per_tai": _amount("per_tai", data.get("per_tai", 20), cents),
            "first_dealer": _seat("first_dealer", data.get("first_dealer", 0)),
            "rounds": _rounds(data.get("rounds"))}


def parse_hand(data: dict) -> dict:
    """A hand's stored inputs from a request: {"type": "win", …} or {"type": "draw", …}."""
    kind = data.get("type")
    photo_id = data.get("photo_id")
    if photo_id is not None and (not isinstance(photo_id, str) or not PHOTO_ID.fullmatch(photo_id)):
        raise HandError("photo_id must be the 64-character id a recognized photo got, or null", code="photo_id_bad")
    if kind == "draw":
        counting_kong = data.get("counting_kong")  # None: not given (乐清's flow requires it; compute says so)
        if counting_kong is not None and not isinstance(counting_kong, bool):
            raise HandError(f"counting_kong must be true or false, got {short_repr(counting_kong)}", code="not_a_bool",
                            field="counting_kong", value=counting_kong)
        return {"type": "draw", "winner": None, "discarder": None, "tai": 0,
                "counting_kong": counting_kong, "photo_id": photo_id, "scored": None}
    if kind != "win":
        raise HandError(f"type must be 'win' or 'draw', got {short_repr(kind)}", code="hand_type", value=kind)
    if "winner" not in data:
        raise HandError("a win needs 'winner' (seat 0-3)", code="winner_missing")
    if "discarder" not in data:  # a forgotten field must not make the other three pay a self-draw
        raise HandError("a win needs 'discarder': the seat that discarded the winning tile, or null for a self-drawn win",
                        code="discarder_missing")
    winner = _seat("winner", data["winner"])
    discarder = data.get("discarder")
    if discarder is not None:
        _seat("discarder", discarder)
        if discarder == winner:
            raise HandError(f"the winner (seat {winner}) cannot also be the discarder", code="winner_is_discarder_seat",
                            seat=winner)
    tai = data.get("tai")
    if not _is_int(tai) or not 0 <= tai <= MAX_TAI:
        raise HandError(f"tai must be a whole number 0-{MAX_TAI}, got {short_repr(tai)}", code="tai_range",
                        max=MAX_TAI, value=tai)
    scored = data.get("scored")
    if scored is not None:
        if not isinstance(scored, dict):
            raise HandError("scored must be an engine score result (an object) or null", code="scored_not_object")
        # checked before any transaction, in the units storage and every read pay: nesting depth
        # (a deep value can be stored but not written back out) and UTF-8 bytes
        if depth(scored) > MAX_SCORED_DEPTH:
            raise HandError(f"scored is nested too deeply; at most {MAX_SCORED_DEPTH} levels",
                            code="scored_too_deep", limit=MAX_SCORED_DEPTH)
        if scored_size(scored) > MAX_SCORED_BYTES:
            raise HandError("scored is too large", code="scored_too_large")
    return {"type": "win", "winner": winner, "discarder": discarder, "tai": tai,
            "counting_kong": False, "photo_id": photo_id, "scored": scored}


def table_dealer_tai(table: RuleTable, streak: int) -> int:
    """莊家 + 連莊拉莊 台 for a streak, from the table's own dealer entries (0 if it has none)."""
    active = [e for e in table.entries if e.requires is None or table.settings.get(e.requires)]
    base = sum(e.tai for e in active if e.pattern == "dealer")
    per = [e.tai for e in active if e.pattern == "dealer_streak"]
    if not base and not per:
        return 0
    return dealer_tai(streak, dealer_base=base, per_streak=per[0] if per else 0,
                      cap=table.settings.get("dealer_tai_cap") or None)


def settle(setup: dict, table: RuleTable, state: GameState, hand: dict) -> dict:
    """Payments of one hand played from `state`: deltas and the 台 they were computed from.

    乐清 deltas are the seed's formula points times `base` (the formula has no 底/台 split).
    """
    if hand["type"] == "draw":
        return {"deltas": {s: 0 for s in range(4)}, "hand_tai": 0, "dealer_tai": 0, "tai": 0}
    winner, discarder, tai = hand["winner"], hand["discarder"], hand["tai"]
    if table.scorer == "yueqing":
        points = settle_yueqing(winner=winner, dealer=state.dealer, tai=tai, streak=state.streak)
        return {"deltas": {s: v * setup["base"] for s, v in points.items()},
                "hand_tai": tai, "dealer_tai": 0, "tai": tai}
    d_tai = table_dealer_tai(table, state.streak)
    on_self_draw = table.dealer_tai_on_self_draw
    deltas = settle_taiwan(winner=winner, discarder=discarder, dealer=state.dealer, hand_tai=tai,
                           dealer_tai=d_tai, base=setup["base"], per_tai=setup["per_tai"],
                           dealer_pays_self_draw=on_self_draw)
    involved = dealer_involved(winner=winner, discarder=discarder, dealer=state.dealer, on_self_draw=on_self_draw)
    return {"deltas": deltas, "hand_tai": tai, "dealer_tai": d_tai,
            "tai": tai + (d_tai if involved else 0)}


def _flow_result(hand: dict, deltas: dict) -> dict:
    if hand["type"] == "draw":
        given = hand["counting_kong"] is not None
        return {"type": "draw", **({"counting_kong": hand["counting_kong"]} if given else {})}
    return {"type": "win", "winner": hand["winner"], "discarder": hand["discarder"], "deltas": deltas}


def _clean(value: Real) -> Real:
    """Whole amounts as ints (JSON 120, not 120.0); float noise rounded away."""
    value = round(value, 6)
    return int(value) if float(value).is_integer() else value


def state_dict(state: GameState, scale: int = 1) -> dict:
    d = state.to_dict()
    d["scores"] = [_clean(v / scale) for v in d["scores"]]
    d["round_wind_name"] = WIND_NAMES[state.round_wind]
    d["seat_winds"] = [WIND_NAMES[seat_wind(state, s)] for s in range(4)]
    return d


def compute(setup: dict, hands: list[dict]) -> dict:
    """Every hand settled in order: {"state", "hands", "totals", "series"}.

    A hand that cannot follow the ones before it (e.g. after the game ended) raises HandError
    naming its number.
    """
    table = rule_table(setup["rules"])
    flow_rules = game_flow(table, setup.get("rounds"))  # none chosen: the table's own
    state = new_game(setup["players"], setup["first_dealer"])
    out, series = [], [[] for _ in range(4)]
    # whole hundredths: every hand's deltas and the totals then sum to exactly zero at any stake
    cents = (_in_cents(setup["base"]), _in_cents(setup["per_tai"]))
    scale = 100 if None not in cents else 1
    stakes = dict(setup, base=cents[0], per_tai=cents[1]) if scale == 100 else setup
    for n, hand in enumerate(hands, 1):
        before = state
        try:
            money = settle(stakes, table, before, hand)
            state = apply_result(before, _flow_result(hand, money["deltas"]), flow_rules)
        except HandError as exc:
            raise HandError(f"hand {n}: {exc}", code="in_hand", n=n, cause=exc) from None
        out.append({"n": n, "type": hand["type"], "winner": hand["winner"], "discarder": hand["discarder"],
                    "tai": money["tai"], "hand_tai": money["hand_tai"], "dealer_tai": money["dealer_tai"],
                    "self_drawn": hand["type"] == "win" and hand["discarder"] is None,
                    "counting_kong": bool(hand["counting_kong"]),
                    "deltas": {str(s): _clean(v / scale) for s, v in sorted(money["deltas"].items())},
                    "dealer": before.dealer, "streak": before.streak, "round_wind": before.round_wind,
                    # the seats' winds at this hand, so that editing it names the players as they sat then
                    "seat_winds": [WIND_NAMES[seat_wind(before, s)] for s in range(4)],
                    "photo_id": hand["photo_id"], "scored": hand["scored"],
                    "created_at": hand.get("created_at")})
        for s in range(4):
            series[s].append(_clean(state.scores[s] / scale))
    # the rounds the game lasts as settled, the table's where the game chose none
    return {"state": {**state_dict(state, scale), "rounds": flow_rules.rounds}, "hands": out,
            "totals": [_clean(v / scale) for v in state.scores], "series": series}


def scored_size(scored: dict) -> int:
    """The UTF-8 bytes of one scored copy, as stored and exported."""
    return len(json.dumps(scored, ensure_ascii=False).encode("utf-8"))


def scored_bytes(hands: list[dict]) -> int:
    """The UTF-8 bytes of the hands' scored copies together."""
    return sum(scored_size(h["scored"]) for h in hands if h.get("scored") is not None)


def check_game_size(before: list[dict], after: list[dict]) -> None:
    """Refuse a change that would take the game's scored copies past the cap, where its export
    could not be imported again (each copy is checked alone by parse_hand; 2000 large ones were
    not). A change that does not add to them (a draw, an edit dropping a score) always goes
    through, so a game stored over the cap before it existed stays editable."""
    total = scored_bytes(after)
    if total > MAX_GAME_SCORED_BYTES and total > scored_bytes(before):
        raise HandError(f"this game's stored scores would pass {MAX_GAME_SCORED_BYTES // 2**20} MB, more than its "
                        "export could carry back in; record this hand without its score", code="game_scores_too_large",
                        mb=MAX_GAME_SCORED_BYTES // 2**20)


def game_view(game_id: str, setup: dict, hands: list[dict], version: int, created_at: str) -> dict:
    """The game object the API returns. Each hand also says whether it was scored in another seat,
    round or deal than the game now gives it (rescore): the view's question, so that settling a
    change or an import never scores a hand again."""
    settled = compute(setup, hands)
    for row in settled["hands"]:
        row["rescore"] = check_scored(row, setup["rules"])
    return {"id": game_id, **setup, "version": version, "created_at": created_at, **settled}


def summary_view(game: dict) -> dict:
    """A game's line in the list of games."""
    keys = ("id", "players", "rules", "base", "per_tai", "first_dealer", "rounds", "version", "created_at", "totals")
    return {**{k: game[k] for k in keys}, "hand_count": len(game["hands"]),
            "finished": game["state"]["finished"]}
