"""A hand as the engine sees it: concealed tiles, exposed melds, flowers, winning tile, context.

`Hand.from_dict` reads the JSON schema documented in the README and checks everything it can
(copies, tile counts, real melds, a coherent context), raising HandError naming what is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import HandError, short, short_repr
from .tiles import (RED, WHITE, check_copies, is_flower, parse_tile, parse_tiles,
                    tile_name, zh_name)

MAX_STAKE = 1_000_000_000  # 底 and per-台 amounts; keeps every payment a finite JSON number
MELD_TYPES = ("chi", "pong", "kong", "ankong", "addkong")
KONG_TYPES = ("kong", "ankong", "addkong")
WIND_NAMES = ("E", "S", "W", "N")
_WIND_ALIASES = {"E": 0, "S": 1, "W": 2, "N": 3, "東": 0, "南": 1, "西": 2, "北": 3,
                 "东": 0, "EAST": 0, "SOUTH": 1, "WEST": 2, "NORTH": 3}
CONTEXT_FLAGS = ("last_tile", "kong_replacement", "robbing_kong", "declared_ready", "first_turn",
                 "heavenly_ready", "earthly_ready", "ippatsu")


def parse_flowers(text) -> tuple[int, ...]:
    """The flower tiles of `text`; HandError (not_a_flower) for a tile that can be none.

    乐清 plays 白板 (or 紅中) as its flower; each rule table checks which flowers it allows.

    >>> parse_flowers("1f 2f")
    (34, 35)
    """
    flowers = tuple(parse_tiles(text))
    bad = next((t for t in flowers if not is_flower(t) and t not in (RED, WHITE)), None)
    if bad is not None:
        raise HandError(f"{tile_name(bad)} is not a flower", code="not_a_flower", tile=tile_name(bad),
                        tile_zh=zh_name(bad))
    return flowers


@dataclass(frozen=True)
class Meld:
    type: str
    tiles: tuple[int, ...]

    @property
    def tile(self) -> int:
        """Lowest tile: the run's start, or the repeated tile."""
        return min(self.tiles)

    @property
    def is_kong(self) -> bool:
        return self.type in KONG_TYPES

    @property
    def is_concealed(self) -> bool:
        return self.type == "ankong"

    @classmethod
    def from_dict(cls, d) -> "Meld":
        if not isinstance(d, dict):
            raise HandError(f"a meld must be an object with 'type' and 'tiles', got {short(d)}", code="meld_not_object",
                            value=d)
        mtype = str(d.get("type", "")).lower()
        if mtype not in MELD_TYPES:
            raise HandError(f"meld type must be one of {', '.join(MELD_TYPES)}, got {short_repr(d.get('type'))}",
                            code="meld_type", value=d.get("type"), known=", ".join(MELD_TYPES))
        tiles = tuple(sorted(parse_tiles(d.get("tiles", ""))))
        return cls.make(mtype, tiles)

    @classmethod
    def make(cls, mtype: str, tiles) -> "Meld":
        tiles = tuple(sorted(tiles))
        text = " ".join(tile_name(t) for t in tiles)
        if any(is_flower(t) for t in tiles):
            raise HandError(f"flowers cannot be in a meld: {text}", code="meld_flower", tiles=text)
        if mtype == "chi":
            ok = (len(tiles) == 3 and tiles[0] < 27 and tiles[1] == tiles[0] + 1
                  and tiles[2] == tiles[0] + 2 and tiles[0] // 9 == tiles[2] // 9)
        elif mtype == "pong":
            ok = len(tiles) == 3 and len(set(tiles)) == 1
        else:
            ok = len(tiles) == 4 and len(set(tiles)) == 1
        if not ok:
            raise HandError(f"{text or 'nothing'} is not a {mtype}", tiles=text or "—", type=mtype,
                            code="not_a_chi" if mtype == "chi" else "not_a_pong" if mtype == "pong" else "not_a_kong")
        return cls(mtype, tiles)

    def to_dict(self) -> dict:
        from .tiles import format_tiles
        return {"type": self.type, "tiles": format_tiles(self.tiles)}


def parse_wind(value, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    if isinstance(value, str) and value.strip().upper() in _WIND_ALIASES:
        return _WIND_ALIASES[value.strip().upper()]
    raise HandError(f"{what} must be a wind E, S, W or N, got {short_repr(value)}", code="not_a_wind", field=what,
                    value=value)


def _bool(value, what: str) -> bool:
    if isinstance(value, bool):
        return value
    raise HandError(f"{what} must be true or false, got {short_repr(value)}", code="not_a_bool", field=what, value=value)


def _int(value, what: str, lo: int = 0, hi: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise HandError(f"{what} must be a whole number from {lo} to {hi}, got {short_repr(value)}", code="not_in_range",
                        field=what, lo=lo, hi=hi, value=value)
    return value


@dataclass(frozen=True)
class Context:
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    declared_ready: bool = False
    first_turn: bool = False
    heavenly_ready: bool = False   # 天聽: ready from the dealer's first discard
    earthly_ready: bool = False    # 地聽: ready within the first go-around
    ippatsu: bool = False          # 一發: won after declaring ready, before passing a win
    bonus_tiles: tuple[int, ...] = ()  # 寶牌
    dice_doubles: int = 0          # 門骰加倍: 1 = two equal throws in a row (×2), 2 = three (×4)
    caishen: int | None = None     # 乐清's wild tile
    seen: tuple[int, ...] = ()     # tiles seen on the table (for waits)

    @classmethod
    def from_dict(cls, d) -> "Context":
        if d is None:
            return cls()
        if not isinstance(d, dict):
            raise HandError("context must be an object", code="context_not_object")
        known = set(CONTEXT_FLAGS) | {"bonus_tiles", "dice_doubles", "caishen", "seen"}
        unknown = set(d) - known
        if unknown:
            key = short(sorted(unknown)[0])
            raise HandError(f"unknown context key {key!r}; known: {', '.join(sorted(known))}",
                            code="unknown_context_key", key=key, known=", ".join(sorted(known)))
        flags = {k: _bool(d[k], f"context.{k}") for k in CONTEXT_FLAGS if k in d}
        bonus = tuple(parse_tiles(d.get("bonus_tiles", "")))
        if len(bonus) > 5:
            raise HandError("at most five bonus tiles (寶牌) can be shown", code="too_many_bonus_tiles", max=5)
        caishen = d.get("caishen")
        if caishen is not None:
            caishen = parse_tile(caishen)
            if is_flower(caishen):
                raise HandError("the wild tile (財神) cannot be a flower", code="caishen_flower")
        seen = tuple(parse_tiles(d.get("seen", "")))
        check_copies(seen)  # a set has four of each tile: more "seen" is a typo, never a table
        return cls(**flags, bonus_tiles=bonus, dice_doubles=_int(d.get("dice_doubles", 0), "context.dice_doubles", 0, 2),
                   caishen=caishen, seen=seen)


@dataclass(frozen=True)
class Hand:
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    flowers: tuple[int, ...] = ()
    winning_tile: int | None = None
    self_drawn: bool = False
    seat_wind: int = 0
    round_wind: int = 0
    dealer: int = 0            # seat wind of the dealer; the dealer sits 東 unless told otherwise
    discarder: int | None = None
    streak: int = 0            # 連莊 count of the dealer
    context: Context = field(default_factory=Context)
    rules: str = "tw-standard"
    stakes: tuple[float, float] = (100, 20)

    @property
    def is_dealer(self) -> bool:
        return self.seat_wind == self.dealer

    @property
    def all_tiles(self) -> list[int]:
        """Every playing tile of the hand: concealed, winning tile and melds."""
        tiles = list(self.concealed)
        if self.winning_tile is not None and not is_flower(self.winning_tile):
            tiles.append(self.winning_tile)
        for m in self.melds:
            tiles.extend(m.tiles)
        return tiles

    @property
    def full_concealed(self) -> list[int]:
        """Concealed tiles with the winning tile added (the part that must split into sets)."""
        tiles = list(self.concealed)
        if self.winning_tile is not None and not is_flower(self.winning_tile):
            tiles.append(self.winning_tile)
        return tiles

    @classmethod
    def from_dict(cls, d, *, need_winning_tile: bool = True, extra_tiles: int = 0) -> "Hand":
        """Read and check a hand. extra_tiles: 0 for a state before the winning/next tile, 1 for
        a 17-tile state (advise) given without a separate winning tile."""
        if not isinstance(d, dict):
            raise HandError("the input must be a JSON object", code="input_not_object")
        known = {"rules", "concealed", "melds", "flowers", "winning_tile", "self_drawn", "seat_wind",
                 "round_wind", "dealer", "streak", "context", "discarder", "stakes"}
        unknown = set(d) - known
        if unknown:
            key = short(sorted(unknown)[0])
            raise HandError(f"unknown key {key!r}; known: {', '.join(sorted(known))}", code="unknown_key",
                            key=key, known=", ".join(sorted(known)))
        if "concealed" not in d:
            raise HandError("enter the tiles in hand before the winning tile (concealed is missing)", code="concealed_missing")
        concealed = tuple(parse_tiles(d["concealed"]))
        if any(is_flower(t) for t in concealed):
            raise HandError("flowers go among the flowers, not among the tiles in hand ('flowers', not 'concealed')",
                            code="flower_in_concealed")
        melds_in = d.get("melds", [])
        if not isinstance(melds_in, list):
            raise HandError("'melds' must be a list of {type, tiles}", code="melds_not_list")
        melds = tuple(Meld.from_dict(m) for m in melds_in)
        flowers = parse_flowers(d.get("flowers", ""))
        winning = d.get("winning_tile")
        winning = parse_tile(winning) if winning not in (None, "") else None
        if need_winning_tile and winning is None:
            raise HandError("choose the winning tile (winning_tile is missing)", code="winning_tile_missing")
        seat = parse_wind(d.get("seat_wind", "E"), "seat_wind")
        round_wind = parse_wind(d.get("round_wind", "E"), "round_wind")
        dealer_in = d.get("dealer", None)
        if dealer_in is None:
            dealer = 0
        elif isinstance(dealer_in, bool):
            if dealer_in:
                dealer = seat
            elif seat != 0:
                dealer = 0
            else:
                raise HandError("dealer is false but seat_wind is E (the dealer's seat): give the dealer's seat as a wind",
                                code="dealer_false_east")
        else:
            dealer = parse_wind(dealer_in, "dealer")
        self_drawn = _bool(d.get("self_drawn", False), "self_drawn")
        discarder = d.get("discarder")
        discarder = parse_wind(discarder, "discarder") if discarder is not None else None
        stakes = d.get("stakes", {}) or {}
        if not isinstance(stakes, dict):
            raise HandError("'stakes' must be an object {base, per_tai}", code="stakes_not_object")
        base, per_tai = stakes.get("base", 100), stakes.get("per_tai", 20)
        for name, v in (("stakes.base", base), ("stakes.per_tai", per_tai)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= MAX_STAKE:
                raise HandError(f"{name} must be a number 0-{MAX_STAKE:,}, got {short_repr(v)}", code="stake_out_of_range",
                                field=name, value=v, max=MAX_STAKE)
        rules = d.get("rules", "tw-standard")
        if not isinstance(rules, str) or not rules:
            raise HandError("'rules' must name a rule table or a rule file", code="rules_not_named")
        hand = cls(concealed=concealed, melds=melds, flowers=flowers, winning_tile=winning,
                   self_drawn=self_drawn, seat_wind=seat, round_wind=round_wind, dealer=dealer,
                   discarder=discarder, streak=_int(d.get("streak", 0), "streak", 0, 100),
                   context=Context.from_dict(d.get("context")), rules=rules,
                   stakes=(base, per_tai))
        hand.validate(need_winning_tile=need_winning_tile, extra_tiles=extra_tiles)
        return hand

    def validate(self, *, need_winning_tile: bool = True, extra_tiles: int = 0, hand_size: int = 16) -> None:
        tiles = self.all_tiles + list(self.flowers)
        if self.winning_tile is not None and is_flower(self.winning_tile):
            tiles.append(self.winning_tile)
        check_copies(tiles)
        expected = hand_size - 3 * len(self.melds) + extra_tiles
        flower_win = self.winning_tile is not None and is_flower(self.winning_tile)
        if len(self.concealed) != expected and not flower_win:
            raise HandError(
                f"{len(self.concealed)} concealed tiles with {len(self.melds)} meld(s); expected {expected} "
                f"({hand_size} tiles less 3 per meld{', plus the drawn tile' if extra_tiles else ''}"
                f"{', before the winning tile' if need_winning_tile else ''})",
                code="concealed_count",
                n=len(self.concealed), melds=len(self.melds), expected=expected, size=hand_size)
        if len(self.melds) > 5:
            raise HandError("at most five melds", code="too_many_melds", max=5)
        ctx = self.context
        if self.self_drawn and self.discarder is not None:
            raise HandError("a self-drawn win has no discarder", code="self_drawn_discarder")
        if self.discarder is not None and self.discarder == self.seat_wind:
            raise HandError("the winner cannot be the discarder", code="winner_is_discarder")
        if ctx.robbing_kong and self.self_drawn:
            raise HandError("robbing a kong (搶槓) is a win on another player's tile, not self-drawn",
                            code="robbing_kong_self_drawn")
        if ctx.kong_replacement and not self.self_drawn:
            raise HandError("a win on a replacement draw (槓上開花) is self-drawn", code="replacement_not_self_drawn")
        if ctx.robbing_kong and self.winning_tile is not None and self.all_tiles.count(self.winning_tile) > 1:
            # the robbed player held a pong of it and added the fourth: no other copy is left
            raise HandError(f"robbing a kong (搶槓) of {tile_name(self.winning_tile)} leaves no other copy of it to hold",
                            code="robbing_kong_copies", tile=tile_name(self.winning_tile),
                            tile_zh=zh_name(self.winning_tile))
        if ctx.first_turn and any(m.type != "ankong" for m in self.melds):
            raise HandError("a first-turn win (heavenly, earthly or human: 天胡/地胡/人胡) cannot follow a chi, "
                            "pong or open kong",
                            code="first_turn_open_meld")
        if ctx.ippatsu and not ctx.declared_ready:
            raise HandError("a one-shot win (一發) needs a declared ready hand", code="ippatsu_not_declared")
        if (ctx.heavenly_ready or ctx.earthly_ready) and any(m.type != "ankong" for m in self.melds):
            raise HandError("a heavenly or earthly ready hand (天聽/地聽) cannot follow a chi, pong or open kong",
                            code="early_ready_open_meld")

    def winning_tile_name(self) -> str | None:
        return tile_name(self.winning_tile) if self.winning_tile is not None else None

