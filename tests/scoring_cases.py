"""Worked scoring cases: (table, hand, expected {entry id: 台}, entries that must be absent).

Each hand is written as short tile strings; the expected 台 were worked out by hand from the seed
rows quoted in engine/rules/*.toml. test_scoring_tables.py checks every case exactly and checks that
every entry of every table has a positive and a negative case here.
"""

# Shared hands. A: all runs, concealed, two-sided wait on 3p/6p, won on 3p.
A = {"concealed": "123m456m789m123p45p77s", "winning_tile": "3p"}
A_CHI = {"concealed": "456m789m123p45p77s", "winning_tile": "3p",
         "melds": [{"type": "chi", "tiles": "123m"}]}
PING = {"concealed": "23456m77p", "winning_tile": "7m",
        "melds": [{"type": "chi", "tiles": "123p"}, {"type": "chi", "tiles": "456s"},
                  {"type": "chi", "tiles": "789s"}]}
ALL_MELDED = {"concealed": "7s", "winning_tile": "7s",
              "melds": [{"type": "chi", "tiles": "123m"}, {"type": "chi", "tiles": "456m"},
                        {"type": "chi", "tiles": "789m"}, {"type": "chi", "tiles": "123p"},
                        {"type": "pong", "tiles": "999s"}]}
PONGS = {"concealed": "111m222p333s444m55p66s", "winning_tile": "6s"}
HONOURS = {"concealed": "EEESSSWWWCCCFFFP", "winning_tile": "P"}
WINDS4 = {"concealed": "EEESSSWWWNNN123m5p", "winning_tile": "5p"}
WINDS3 = {"concealed": "EEESSSWWWNN123m55p", "winning_tile": "5p"}
DRAGONS3 = {"concealed": "111mE", "winning_tile": "E",
            "melds": [{"type": "pong", "tiles": "CCC"}, {"type": "pong", "tiles": "FFF"},
                      {"type": "ankong", "tiles": "PPPP"}, {"type": "chi", "tiles": "123p"}]}
KONG = {"concealed": "123m456m789m45p77s", "winning_tile": "3p", "melds": [{"type": "kong", "tiles": "9999s"}]}
ANKONG = {"concealed": "123m456m789m45p77s", "winning_tile": "3p", "melds": [{"type": "ankong", "tiles": "9999s"}]}
# B: like A without the 1-9 straight, for the 花式 column (which counts 一氣通貫).
B = {"concealed": "234m456m789m123p45p77s", "winning_tile": "3p"}
B_CHI = {"concealed": "456m789m123p45p77s", "winning_tile": "3p", "melds": [{"type": "chi", "tiles": "234m"}]}
B_ADDKONG = {"concealed": "456m789m123p45p77s", "winning_tile": "3p", "melds": [{"type": "addkong", "tiles": "2222m"}]}
B_SINGLE = {"concealed": "234m456m789m123p456p7s", "winning_tile": "7s"}
KONG_B = {"concealed": "234m456m789m45p77s", "winning_tile": "3p", "melds": [{"type": "kong", "tiles": "9999s"}]}
ANKONG_B = {"concealed": "234m456m789m45p77s", "winning_tile": "3p", "melds": [{"type": "ankong", "tiles": "9999s"}]}
ALL_MELDED_B = {"concealed": "7s", "winning_tile": "7s",
                "melds": [{"type": "chi", "tiles": "234m"}, {"type": "chi", "tiles": "456m"},
                          {"type": "chi", "tiles": "789m"}, {"type": "chi", "tiles": "123p"},
                          {"type": "pong", "tiles": "999s"}]}
LILI = {"concealed": "11223344m55m6677pPP", "winning_tile": "P"}


def hand(base, **kw):
    """A base hand won by 南 (a non-dealer) on 西's discard, unless kw says otherwise."""
    h = {"seat_wind": "S", "round_wind": "E", "discarder": "W", **base}
    h.update(kw)
    if h.get("self_drawn"):
        h.pop("discarder", None)
    return h


def triplet_hand(x, first_run="123m"):
    return {"concealed": f"{first_run}456m789m45p{x}{x}{x}77s", "winning_tile": "3p"}


SD = {"self_drawn": True}
TW = "tw-standard"
JH = "tw-jianhua"          # tw-standard with jianhua_jianzi on (tests/rules/tw-jianhua.toml)
TWK = "tw-keep-winds"      # tw-standard with four_winds_keep_seat_round on
TWL = "tw-lilikuli"        # tw-standard with lilikuli on
PT = "platform-tai"
PF = "platform-flower"
PTO = "platform-tai-options"  # platform-tai with 寶牌, 限聽 off, 門骰加倍 on

CASES = [
    # --- tw-standard (seed 003) ---
    (TW, hand(A), {"menqing": 1}, ["zimo", "menqing_zimo", "single_wait", "pinghu", "last_tile_discard"]),
    (TW, hand(A_CHI, **SD), {"zimo": 1, "dealer": 1}, ["menqing", "menqing_zimo"]),
    (TW, hand(A, **SD), {"menqing_zimo": 3, "dealer": 1}, ["menqing", "zimo"]),
    # 槓上開花 after a flower's replacement draw (1f is no flower of 南's seat)
    (TW, hand(A_CHI, **SD, flowers="1f", context={"kong_replacement": True}), {"zimo": 1, "kong_bloom": 1, "dealer": 1}, []),
    (TW, hand(A_CHI, **SD, context={"last_tile": True}), {"zimo": 1, "last_tile_draw": 1, "dealer": 1}, ["last_tile_discard"]),
    (TW, hand(A, context={"last_tile": True}), {"menqing": 1}, ["last_tile_draw", "last_tile_discard"]),
    # robbing a kong of 6p: the winner holds no other 6p (the robbed pong held three)
    (TW, hand(A, winning_tile="6p", context={"robbing_kong": True}), {"menqing": 1, "robbing_kong": 1}, ["kong_bloom"]),
    (TW, hand(ALL_MELDED), {"all_melded": 2}, ["single_wait", "menqing"]),
    (TW, hand(ALL_MELDED, **SD), {"zimo": 1, "single_wait": 1, "dealer": 1}, ["all_melded"]),
    (TW, hand({"concealed": "123m456m789m123p456p7s", "winning_tile": "7s"}), {"menqing": 1, "single_wait": 1}, []),
    (TW, hand({"concealed": "123m456m789m123p46p77s", "winning_tile": "5p"}), {"menqing": 1, "single_wait": 1}, []),
    (TW, hand(triplet_hand("S")), {"menqing": 1, "seat_wind": 1, "south_triplet": 1}, ["round_wind"]),
    (TW, hand(triplet_hand("S"), seat_wind="W", round_wind="S", discarder="N"), {"menqing": 1, "round_wind": 1, "south_triplet": 1}, ["seat_wind"]),
    (TW, hand(triplet_hand("E"), round_wind="S"), {"menqing": 1, "east_triplet": 1}, ["seat_wind", "round_wind", "south_triplet"]),
    (TW, hand(triplet_hand("W"), seat_wind="N", round_wind="W", discarder="S"), {"menqing": 1, "round_wind": 1, "west_triplet": 1}, ["seat_wind"]),
    (TW, hand(triplet_hand("N"), seat_wind="W", discarder="S"), {"menqing": 1, "north_triplet": 1}, ["east_triplet"]),
    (TW, hand(triplet_hand("C")), {"menqing": 1, "red_dragon": 1}, ["green_dragon", "small_dragons"]),
    (TW, hand(triplet_hand("F")), {"menqing": 1, "green_dragon": 1}, ["red_dragon"]),
    (TW, hand(triplet_hand("P")), {"menqing": 1, "white_dragon": 1}, ["red_dragon"]),
    (TW, hand(A, flowers="2f6f3f"), {"menqing": 1, "seat_flower": 2}, ["flower_kong"]),
    (TW, hand(A, flowers="1f"), {"menqing": 1}, ["seat_flower"]),
    (TW, hand(A, flowers="1234f"), {"menqing": 1, "flower_kong": 2}, ["seat_flower"]),
    (TW, hand(A, flowers="123f"), {"menqing": 1, "seat_flower": 1}, ["flower_kong"]),
    (TW, hand(A, flowers="1234567f", winning_tile="8f", **SD), {"eight_flowers": 8, "dealer": 1}, ["seat_flower", "flower_kong", "menqing_zimo"]),
    (TW, hand(A, flowers="1234567f"), {"menqing": 1, "seat_flower": 1, "flower_kong": 2}, ["eight_flowers", "seven_rob_one"]),
    (TW, hand(A, flowers="1234567f", winning_tile="8f"), {"seven_rob_one": 8}, ["seat_flower", "eight_flowers"]),
    (TW, hand(PING), {"pinghu": 2}, ["menqing", "single_wait"]),
    (TW, hand(PING, **SD), {"zimo": 1, "dealer": 1}, ["pinghu"]),
    (TW, hand(PING, flowers="1f"), {"no_score": 0}, ["pinghu"]),
    (TW, hand(A_CHI), {"pinghu": 2}, ["menqing", "no_score"]),
    (TW, hand(PONGS), {"menqing": 1, "all_pongs": 4, "four_concealed": 5}, ["three_concealed", "five_concealed"]),
    (TW, hand(PONGS, **SD), {"menqing_zimo": 3, "all_pongs": 4, "five_concealed": 8, "dealer": 1}, ["four_concealed", "three_concealed"]),
    (TW, hand({"concealed": "111m222p333s55p66s", "winning_tile": "6s", "melds": [{"type": "pong", "tiles": "999s"}]}),
     {"all_pongs": 4, "three_concealed": 2}, ["four_concealed", "menqing"]),
    (TW, hand({"concealed": "123m456m789m234m56mEE", "winning_tile": "7m"}), {"menqing": 1, "half_flush": 4}, ["full_flush"]),
    (TW, hand({"concealed": "123m456m789m234m56m99m", "winning_tile": "7m"}), {"menqing": 1, "full_flush": 8}, ["half_flush"]),
    (TW, hand(HONOURS), {"menqing": 1, "single_wait": 1, "full_flush": 8, "seat_wind": 1, "round_wind": 1,
                         "east_triplet": 1, "south_triplet": 1, "west_triplet": 1, "small_dragons": 4,
                         "all_pongs": 4, "five_concealed": 8}, ["half_flush", "red_dragon", "green_dragon"]),
    (TW, hand(DRAGONS3, seat_wind="W", discarder="N"), {"big_dragons": 8, "single_wait": 1}, ["small_dragons", "red_dragon", "white_dragon"]),
    (TW, hand(WINDS3, seat_wind="E", streak=2, flowers="1f5f", **SD),
     {"menqing_zimo": 3, "seat_flower": 2, "four_concealed": 5, "small_winds": 8, "dealer": 1, "dealer_streak": 4},
     ["seat_wind", "round_wind", "east_triplet", "big_winds"]),
    (TW, hand(WINDS4, seat_wind="E", **SD),
     {"menqing_zimo": 3, "big_winds": 16, "four_concealed": 5, "single_wait": 1, "dealer": 1},
     ["small_winds", "seat_wind", "round_wind", "north_triplet"]),
    (TWK, hand(WINDS4, seat_wind="E", **SD),
     {"menqing_zimo": 3, "big_winds": 16, "four_concealed": 5, "single_wait": 1, "dealer": 1, "seat_wind": 1,
      "round_wind": 1, "east_triplet": 1, "south_triplet": 1, "west_triplet": 1, "north_triplet": 1}, ["small_winds"]),
    (TW, hand(A, seat_wind="E", context={"first_turn": True}, **SD), {"heavenly_win": 24, "dealer": 1}, ["menqing_zimo", "earthly_win"]),
    (TW, hand(A, context={"first_turn": True}, **SD), {"earthly_win": 16, "dealer": 1}, ["menqing_zimo", "heavenly_win"]),
    (TW, hand(A, context={"first_turn": True}), {"menqing": 1}, ["earthly_win", "heavenly_win"]),
    (TW, hand(A, context={"declared_ready": True}), {"menqing": 1, "declared_ready": 1}, ["heavenly_ready"]),
    (TW, hand(A, seat_wind="E", context={"declared_ready": True, "heavenly_ready": True}),
     {"menqing": 1, "heavenly_ready": 8, "dealer": 1}, ["declared_ready"]),
    (TW, hand(A, context={"declared_ready": True, "earthly_ready": True}), {"menqing": 1, "earthly_ready": 4}, ["declared_ready"]),
    (TW, hand(ANKONG), {"menqing": 1}, ["concealed_kong", "no_honours_no_flowers"]),
    (TW, hand(KONG), {"no_score": 0}, ["open_kong"]),
    (JH, hand(A), {"menqing": 1, "no_honours_no_flowers": 1}, []),
    (JH, hand(A, flowers="1f"), {"menqing": 1}, ["no_honours_no_flowers"]),
    (JH, hand(KONG), {"open_kong": 1, "no_honours_no_flowers": 1}, ["no_score", "concealed_kong"]),
    (JH, hand(ANKONG), {"menqing": 1, "concealed_kong": 2, "no_honours_no_flowers": 1}, ["open_kong"]),
    (TW, hand(A, discarder="E", streak=3), {"menqing": 1, "dealer": 1, "dealer_streak": 6}, []),
    (TW, hand(A, streak=3), {"menqing": 1}, ["dealer", "dealer_streak"]),
    (TWL, hand(LILI), {"lilikuli": 8, "white_dragon": 1}, ["menqing"]),
    (TW, hand(LILI), None, ["lilikuli"]),

    # --- platform-tai (seed 001, 台式) ---
    (PT, hand(A, seat_wind="E", context={"first_turn": True}, **SD), {"heavenly_win": 24, "dealer": 1}, ["menqing_zimo"]),
    (PT, hand(A, context={"first_turn": True}, **SD), {"earthly_win": 16, "dealer": 1}, ["human_win"]),
    (PT, hand(A, context={"first_turn": True}), {"human_win": 12}, ["menqing", "earthly_win"]),
    (PT, hand(A, seat_wind="E", context={"declared_ready": True, "heavenly_ready": True}),
     {"menqing": 1, "heavenly_ready": 8, "dealer": 1}, ["declared_ready"]),
    (PT, hand(WINDS4, seat_wind="E", **SD), {"menqing_zimo": 3, "big_winds": 16, "four_concealed": 5, "single_wait": 1, "dealer": 1},
     ["small_winds", "seat_wind", "round_wind", "wind_triplet"]),
    (PT, hand(WINDS3, seat_wind="E", **SD), {"menqing_zimo": 3, "small_winds": 12, "four_concealed": 5, "dealer": 1},
     ["big_winds", "seat_wind", "round_wind"]),
    (PT, hand(A, flowers="1234567f", winning_tile="8f", **SD), {"eight_flowers": 16, "dealer": 1}, ["seat_flower", "flower_kong"]),
    (PT, hand(A, flowers="1234567f", winning_tile="8f"), {"seven_rob_one": 8}, ["eight_flowers"]),
    (PT, hand(DRAGONS3, seat_wind="W", discarder="N"), {"big_dragons": 8, "single_wait": 1}, ["small_dragons", "dragon_triplet"]),
    (PT, hand(PONGS, **SD), {"menqing_zimo": 3, "all_pongs": 4, "five_concealed": 8, "dealer": 1}, ["four_concealed"]),
    (PT, hand(PONGS), {"menqing": 1, "all_pongs": 4, "four_concealed": 5}, ["three_concealed"]),
    (PT, hand({"concealed": "111m222p333s55p66s", "winning_tile": "6s", "melds": [{"type": "pong", "tiles": "999s"}]}),
     {"all_pongs": 4, "three_concealed": 2}, ["four_concealed"]),
    (PT, hand({"concealed": "123m456m789m234m56m99m", "winning_tile": "7m"}), {"menqing": 1, "full_flush": 8}, ["half_flush"]),
    (PT, hand({"concealed": "123m456m789m234m56mEE", "winning_tile": "7m"}), {"menqing": 1, "half_flush": 4}, ["full_flush"]),
    (PT, hand(HONOURS), {"menqing": 1, "single_wait": 1, "seat_wind": 1, "round_wind": 1, "small_dragons": 4,
                         "all_pongs": 4, "five_concealed": 8}, ["full_flush", "dragon_triplet", "all_honours"]),
    (PT, hand(triplet_hand("C")), {"menqing": 1, "dragon_triplet": 1}, ["small_dragons"]),
    (PT, hand(triplet_hand("N"), seat_wind="W", discarder="S"), {"menqing": 1}, ["seat_wind", "round_wind", "wind_triplet"]),
    (PT, hand(A, flowers="1234f"), {"menqing": 1, "flower_kong": 1}, ["seat_flower", "flower_any"]),
    (PT, hand(A, flowers="26f"), {"menqing": 1, "seat_flower": 2}, ["flower_kong"]),
    (PT, hand(PING), {"pinghu": 2}, ["menqing"]),
    (PT, hand(PING, flowers="1f"), {}, ["pinghu", "flower_any"]),
    (PT, hand(A, discarder="E", streak=12), {"menqing": 1, "dealer": 1, "dealer_streak": 20}, []),
    (PT, hand(A_CHI, **SD), {"zimo": 1, "dealer": 1}, ["menqing"]),
    (PT, hand(A, context={"declared_ready": True}), {"menqing": 1, "declared_ready": 1}, []),
    (PT, hand({"concealed": "123m456m789m123p456p7s", "winning_tile": "7s"}), {"menqing": 1, "single_wait": 1}, []),
    (PT, hand(ALL_MELDED), {"all_melded": 2}, ["single_wait"]),
    (PT, hand(A_CHI, **SD, flowers="1f", context={"kong_replacement": True}), {"zimo": 1, "kong_bloom": 1, "dealer": 1}, []),
    (PT, hand(A_CHI, **SD, context={"last_tile": True}), {"zimo": 1, "last_tile_draw": 1, "dealer": 1}, ["last_tile_discard"]),
    (PT, hand(A, context={"last_tile": True}), {"menqing": 1, "last_tile_discard": 1}, ["last_tile_draw"]),
    (PT, hand(A, winning_tile="6p", context={"robbing_kong": True}), {"menqing": 1, "robbing_kong": 1}, []),
    (PT, hand(A, context={"declared_ready": True, "ippatsu": True}), {"menqing": 1, "declared_ready": 1, "ippatsu": 1}, []),
    (PT, hand(A, context={"declared_ready": True}), {"menqing": 1, "declared_ready": 1}, ["ippatsu"]),
    (PT, hand(A, context={"bonus_tiles": "1m2m"}), {"menqing": 1}, ["bonus_tile"]),
    (PTO, hand(A, context={"bonus_tiles": "1m3p"}), {"menqing": 1, "bonus_tile": 3}, []),
    (PT, hand(KONG), {}, ["open_kong", "no_honours_no_flowers", "all_simples"]),

    # --- platform-flower (seed 001, 花式) ---
    (PF, hand(B, seat_wind="E", context={"first_turn": True}, **SD), {"heavenly_win": 36, "dealer": 1, "no_honours_no_flowers": 2}, ["menqing_zimo"]),
    (PF, hand(B, context={"first_turn": True}, **SD), {"earthly_win": 24, "dealer": 1, "no_honours_no_flowers": 2}, ["human_win"]),
    (PF, hand(B, context={"first_turn": True}), {"human_win": 16, "no_honours_no_flowers": 2}, ["menqing"]),
    (PF, hand(B, seat_wind="E", context={"declared_ready": True, "heavenly_ready": True}),
     {"menqing": 2, "heavenly_ready": 8, "dealer": 1, "no_honours_no_flowers": 2}, ["declared_ready"]),
    (PF, hand(WINDS4, seat_wind="E", **SD), {"menqing_zimo": 5, "big_winds": 24, "four_concealed": 7, "single_wait": 2, "dealer": 1},
     ["small_winds", "wind_triplet", "seat_wind"]),
    (PF, hand(WINDS3, seat_wind="E", **SD), {"menqing_zimo": 5, "small_winds": 12, "four_concealed": 7, "dealer": 1}, ["wind_triplet"]),
    (PF, hand(B, flowers="1234567f", winning_tile="8f", **SD), {"eight_flowers": 16, "dealer": 1}, ["flower_any"]),
    (PF, hand(B, flowers="1234567f", winning_tile="8f"), {"seven_rob_one": 16}, ["flower_any"]),
    (PF, hand(DRAGONS3, seat_wind="W", discarder="N"), {"big_dragons": 12, "single_wait": 2, "concealed_kong": 2, "mixed_outside": 4}, ["dragon_triplet"]),
    (PF, hand(PONGS, **SD), {"menqing_zimo": 5, "all_pongs": 6, "five_concealed": 12, "dealer": 1, "no_honours_no_flowers": 2}, ["four_concealed", "all_simples"]),
    (PF, hand(PONGS), {"menqing": 2, "all_pongs": 6, "four_concealed": 7, "no_honours_no_flowers": 2}, ["three_concealed"]),
    (PF, hand({"concealed": "111m222p333s55p66s", "winning_tile": "6s", "melds": [{"type": "pong", "tiles": "999s"}]}),
     {"all_pongs": 6, "three_concealed": 3, "no_honours_no_flowers": 2}, ["four_concealed"]),
    (PF, hand({"concealed": "123m456m789m234m56m99m", "winning_tile": "7m"}),
     {"menqing": 2, "full_flush": 12, "pure_straight": 4, "no_honours_no_flowers": 2}, ["half_flush"]),
    (PF, hand({"concealed": "123m456m789m234m56mEE", "winning_tile": "7m"}), {"menqing": 2, "half_flush": 6, "pure_straight": 4}, ["full_flush"]),
    (PF, hand(HONOURS), {"menqing": 2, "single_wait": 2, "small_dragons": 6, "all_pongs": 6, "five_concealed": 12,
                         "all_honours": 16, "wind_triplet": 3}, ["dragon_triplet", "half_flush", "full_flush"]),
    (PF, hand(triplet_hand("C", "234m")), {"menqing": 2, "dragon_triplet": 2}, ["small_dragons"]),
    (PF, hand(triplet_hand("N", "234m"), seat_wind="W", discarder="S"), {"menqing": 2, "wind_triplet": 1}, ["seat_wind"]),
    (PF, hand(B, flowers="1234f"), {"menqing": 2, "flower_kong": 2, "flower_any": 4}, ["seat_flower"]),
    (PF, hand(PING), {"pinghu": 3, "no_honours_no_flowers": 2}, ["menqing"]),
    (PF, hand(B, discarder="E", streak=2), {"menqing": 2, "dealer": 1, "dealer_streak": 4, "no_honours_no_flowers": 2}, []),
    (PF, hand(B_CHI, **SD), {"zimo": 2, "dealer": 1, "no_honours_no_flowers": 2}, ["menqing"]),
    (PF, hand(B, context={"declared_ready": True, "ippatsu": True}),
     {"menqing": 2, "declared_ready": 2, "ippatsu": 1, "no_honours_no_flowers": 2}, []),
    (PF, hand(B_SINGLE),
     {"menqing": 2, "single_wait": 2, "no_honours_no_flowers": 2}, []),
    (PF, hand(ALL_MELDED_B), {"all_melded": 3, "no_honours_no_flowers": 2}, ["single_wait"]),
    (PF, hand(B_ADDKONG, **SD, context={"kong_replacement": True}),
     {"zimo": 2, "kong_bloom": 2, "dealer": 1, "no_honours_no_flowers": 2, "open_kong": 1}, []),
    (PF, hand(B_CHI, **SD, context={"last_tile": True}), {"zimo": 2, "last_tile_draw": 2, "dealer": 1, "no_honours_no_flowers": 2}, []),
    (PF, hand(B, context={"last_tile": True}), {"menqing": 2, "last_tile_discard": 2, "no_honours_no_flowers": 2}, []),
    (PF, hand(B, winning_tile="6p", context={"robbing_kong": True}),
     {"menqing": 2, "robbing_kong": 2, "no_honours_no_flowers": 2}, []),
    (PF, hand(KONG_B), {"open_kong": 1, "no_honours_no_flowers": 2}, ["concealed_kong"]),
    (PF, hand(ANKONG_B), {"menqing": 2, "concealed_kong": 2, "no_honours_no_flowers": 2}, ["open_kong"]),
    (PF, hand({"concealed": "111m999m111p999p1s", "winning_tile": "1s", "melds": [{"type": "pong", "tiles": "999s"}]}),
     {"all_terminals": 16, "all_pongs": 6, "four_concealed": 7, "single_wait": 2, "no_honours_no_flowers": 2,
      "three_colour_triplets": 4}, ["terminals_honours", "pure_outside", "mixed_outside"]),
    (PF, hand({"concealed": "111m999m111pEEE1s", "winning_tile": "1s", "melds": [{"type": "pong", "tiles": "999s"}]},
              round_wind="S"),
     {"terminals_honours": 8, "all_pongs": 6, "four_concealed": 7, "single_wait": 2, "wind_triplet": 1}, ["all_terminals", "mixed_outside"]),
    (PF, hand({"concealed": "123m789m123p789p1s", "winning_tile": "1s", "melds": [{"type": "chi", "tiles": "789s"}]}),
     {"pure_outside": 8, "single_wait": 2, "no_honours_no_flowers": 2, "three_colour_runs": 4}, ["mixed_outside", "all_terminals"]),
    (PF, hand({"concealed": "123m789m123p789pE", "winning_tile": "E", "melds": [{"type": "chi", "tiles": "789s"}]}, round_wind="S"),
     {"mixed_outside": 4, "single_wait": 2, "three_colour_runs": 4}, ["pure_outside", "terminals_honours"]),
    (PF, hand({"concealed": "222m333m444m567p8s", "winning_tile": "8s", "melds": [{"type": "chi", "tiles": "345s"}]}),
     {"three_consecutive_triplets": 6, "three_concealed": 3, "all_simples": 4, "single_wait": 2,
      "no_honours_no_flowers": 2}, ["triple_run", "all_pongs"]),
    (PF, hand({"concealed": "567p345s8s", "winning_tile": "8s", "melds": [{"type": "chi", "tiles": "234m"}] * 3}),
     {"triple_run": 6, "all_simples": 4, "single_wait": 2, "no_honours_no_flowers": 2}, ["three_colour_runs", "three_consecutive_triplets"]),
    (PF, hand({"concealed": "222m222p222s567p8s", "winning_tile": "8s", "melds": [{"type": "chi", "tiles": "345s"}]}),
     {"three_colour_triplets": 4, "three_concealed": 3, "all_simples": 4, "single_wait": 2, "no_honours_no_flowers": 2},
     ["three_consecutive_triplets"]),
    (PF, hand({"concealed": "234m234p234s567p8s", "winning_tile": "8s", "melds": [{"type": "chi", "tiles": "345s"}]}),
     {"three_colour_runs": 4, "all_simples": 4, "single_wait": 2, "no_honours_no_flowers": 2},
     ["three_colour_triplets", "triple_run"]),
    (PF, hand(B, flowers="2f"), {"menqing": 2, "flower_any": 1}, ["seat_flower", "no_honours_no_flowers"]),
]

TWD = "tw-last-discard"    # tw-standard with 河底撈魚 on
PFO = "platform-flower-options"  # platform-flower with 寶牌 on

# Near misses: each names the entries that must not count although the hand comes close.
CASES += [
    (TW, hand(A), {"menqing": 1}, ["robbing_kong", "all_pongs", "kong_bloom", "declared_ready"]),
    (TW, hand(HONOURS), {"menqing": 1, "single_wait": 1, "full_flush": 8, "seat_wind": 1, "round_wind": 1,
                         "east_triplet": 1, "south_triplet": 1, "west_triplet": 1, "small_dragons": 4,
                         "all_pongs": 4, "five_concealed": 8}, ["big_dragons", "big_winds", "small_winds"]),
    (TW, hand(A, context={"declared_ready": True}), {"menqing": 1, "declared_ready": 1}, ["earthly_ready"]),
    (TW, hand(triplet_hand("S")), {"menqing": 1, "seat_wind": 1, "south_triplet": 1}, ["west_triplet", "north_triplet"]),
    (TWD, hand(A, context={"last_tile": True}), {"menqing": 1, "last_tile_discard": 1}, ["last_tile_draw"]),

    (PT, hand(A), {"menqing": 1}, ["all_pongs", "pure_straight", "dealer", "dealer_streak", "zimo", "kong_bloom",
                                   "robbing_kong", "no_honours_no_flowers"]),
    (PT, hand(A, context={"first_turn": True}, **SD), {"earthly_win": 16, "dealer": 1}, ["heavenly_win"]),
    (PT, hand(A, context={"declared_ready": True}), {"menqing": 1, "declared_ready": 1}, ["heavenly_ready"]),
    (PT, hand(A, flowers="1234567f", winning_tile="8f", **SD), {"eight_flowers": 16, "dealer": 1}, ["seven_rob_one"]),
    (PT, hand(HONOURS), {"menqing": 1, "single_wait": 1, "seat_wind": 1, "round_wind": 1, "small_dragons": 4,
                         "all_pongs": 4, "five_concealed": 8}, ["big_dragons", "wind_triplet"]),
    (PT, hand(PONGS), {"menqing": 1, "all_pongs": 4, "four_concealed": 5}, ["five_concealed"]),
    (PT, hand(ANKONG), {"menqing": 1}, ["concealed_kong", "open_kong"]),
    (PT, hand(ALL_MELDED, **SD), {"zimo": 1, "single_wait": 1, "dealer": 1}, ["all_melded"]),
    (PT, hand({"concealed": "111m999m111p999p1s", "winning_tile": "1s", "melds": [{"type": "pong", "tiles": "999s"}]}),
     {"all_pongs": 4, "four_concealed": 5, "single_wait": 1},
     ["all_terminals", "terminals_honours", "pure_outside", "mixed_outside", "three_colour_triplets"]),
    (PT, hand({"concealed": "222m333m444m567p8s", "winning_tile": "8s", "melds": [{"type": "chi", "tiles": "345s"}]}),
     {"three_concealed": 2, "single_wait": 1},
     ["three_consecutive_triplets", "triple_run", "three_colour_runs", "all_simples"]),

    (PF, hand(B), {"menqing": 2, "no_honours_no_flowers": 2},
     ["pure_straight", "dealer", "dealer_streak", "zimo", "kong_bloom", "last_tile_draw", "last_tile_discard",
      "robbing_kong", "bonus_tile", "ippatsu", "all_melded", "pinghu", "five_concealed", "all_honours"]),
    (PF, hand(B, context={"first_turn": True}, **SD), {"earthly_win": 24, "dealer": 1, "no_honours_no_flowers": 2},
     ["heavenly_win"]),
    (PF, hand(B, seat_wind="E", context={"first_turn": True}, **SD),
     {"heavenly_win": 36, "dealer": 1, "no_honours_no_flowers": 2}, ["earthly_win"]),
    (PF, hand(B, context={"declared_ready": True}), {"menqing": 2, "declared_ready": 2, "no_honours_no_flowers": 2},
     ["heavenly_ready"]),
    (PF, hand(WINDS3, seat_wind="E", **SD), {"menqing_zimo": 5, "small_winds": 12, "four_concealed": 7, "dealer": 1},
     ["big_winds", "round_wind"]),
    (PF, hand(B, flowers="1234567f", winning_tile="8f"), {"seven_rob_one": 16}, ["eight_flowers"]),
    (PF, hand(B, flowers="1234567f", winning_tile="8f", **SD), {"eight_flowers": 16, "dealer": 1}, ["seven_rob_one"]),
    (PF, hand(HONOURS), {"menqing": 2, "single_wait": 2, "small_dragons": 6, "all_pongs": 6, "five_concealed": 12,
                         "all_honours": 16, "wind_triplet": 3}, ["big_dragons", "round_wind", "seat_wind"]),
    (PF, hand(B, flowers="2f"), {"menqing": 2, "flower_any": 1}, ["flower_kong"]),
    (PF, hand(B_CHI, **SD), {"zimo": 2, "dealer": 1, "no_honours_no_flowers": 2}, ["pinghu"]),
    (PF, hand(ALL_MELDED_B, **SD), {"zimo": 2, "single_wait": 2, "dealer": 1, "no_honours_no_flowers": 2}, ["all_melded"]),
    (PFO, hand(B, context={"bonus_tiles": "2m"}), {"menqing": 2, "bonus_tile": 1, "no_honours_no_flowers": 2}, []),
]
