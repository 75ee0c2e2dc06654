"""vision.layout: constructed photos of laid-down hands, with exact expected readings."""
from __future__ import annotations

import pytest

from vision.layout import build_layout

W, H = 40, 56  # a standing tile's box in pixels


def lay(spec: str, x: float, y: float, *, slope: float = 0.0, conf: float = 0.95) -> list[dict]:
    """Tiles left to right from a spec like '1m 2m | 3m 4m* B': '|' is a gap of one tile width,
    '*' a sideways tile (wide, bottom-aligned), 'B' a face-down tile. y is the row's top edge at x."""
    out, cx = [], x
    for token in spec.split():
        if token == "|":
            cx += W
            continue
        sideways = token.endswith("*")
        name = token.rstrip("*")
        w, h = (H, W) if sideways else (W, H)
        top = y + slope * (cx - x) + (H - h)  # sideways tiles lie on the same baseline
        out.append({"tile": "back" if name == "B" else name, "box": [cx, top, cx + w, top + h],
                    "confidence": conf, "rotation": "sideways" if sideways else "upright"})
        cx += w + 2
    return out


HAND16 = "1m 2m 3m 4m 5m 6m 7p 8p 9p 1s 1s 1s E E C C"


def test_plain_row_is_all_concealed():
    tiles = lay(HAND16, 10, 100)
    got = build_layout(tiles)
    assert got == {
        "concealed": HAND16.split(), "concealed_indices": list(range(16)),
        "melds": [], "flowers": [], "flower_indices": [],
        "winning_tile": None, "winning_index": None,
        "unplaced": [], "flagged": [], "flag_reasons": {}, "doubted": [], "rows": [[list(range(16))]],
    }


def test_winning_tile_set_apart_at_right_end():
    got = build_layout(lay(HAND16 + " | 9s", 10, 100))
    assert got["concealed"] == HAND16.split()
    assert got["winning_tile"] == "9s" and got["winning_index"] == 16
    assert got["rows"] == [[list(range(16)), [16]]]


def test_small_gap_is_not_a_winning_tile():
    tiles = lay(HAND16 + " 9s", 10, 100)
    tiles[-1]["box"][0] += 10  # 12 px gap: under half a tile width
    tiles[-1]["box"][2] += 10
    got = build_layout(tiles)
    assert got["winning_tile"] is None and len(got["concealed"]) == 17


def test_gaps_inside_the_hand_keep_tiles_concealed():
    got = build_layout(lay("1m 2m 3m | 5p 5p 5p | E E | 7s", 10, 100))
    assert got["concealed"] == "1m 2m 3m 5p 5p 5p E E".split()
    assert got["melds"] == [] and got["winning_tile"] == "7s"


def test_pong_with_sideways_tile_in_its_own_row():
    tiles = lay("1m 2m 3m 4m 5m 6m 7p 8p 9p 1s 1s 1s E", 10, 100) + lay("5p 5p* 5p", 10, 250)
    got = build_layout(tiles)
    assert got["concealed"] == "1m 2m 3m 4m 5m 6m 7p 8p 9p 1s 1s 1s E".split()
    assert got["melds"] == [{"type": "pong", "tiles": "555p", "claimed_index": 1, "indices": [13, 14, 15]}]
    assert got["rows"] == [[list(range(13))], [[13, 14, 15]]]


def test_sideways_meld_in_the_concealed_row():
    got = build_layout(lay("1m 2m 3m 4m 5m 6m 7p 8p 9p 1s 1s 1s C | E E E* | 9s", 10, 100))
    assert got["melds"] == [{"type": "pong", "tiles": "EEE", "claimed_index": 2, "indices": [13, 14, 15]}]
    assert len(got["concealed"]) == 13 and got["winning_tile"] == "9s"


def test_sideways_meld_touching_the_hand_is_split_off():
    got = build_layout(lay("1m 2m 3m 4m 5m 6m 7p 8p 9p 5s 5s 5s 5s*", 10, 100))
    # a concealed 5s stays in the hand: the meld is the smallest reading that holds the sideways tile
    assert got["concealed"] == "1m 2m 3m 4m 5m 6m 7p 8p 9p 5s".split()
    assert got["melds"] == [{"type": "pong", "tiles": "555s", "claimed_index": 2, "indices": [10, 11, 12]}]


def test_chi_is_sorted_and_claimed_index_follows_the_tile():
    tiles = lay(HAND16[:-6], 10, 100) + lay("3m* 1m 2m", 10, 250)
    got = build_layout(tiles)
    assert got["melds"] == [{"type": "chi", "tiles": "123m", "claimed_index": 2, "indices": [13, 14, 15]}]


def test_kong_and_unmarked_melds_in_another_row():
    tiles = lay("2s 3s 4s 6p 6p", 10, 100) + lay("9m 9m 9m 9m | N N* N | 4p 5p 6p", 10, 250)
    got = build_layout(tiles)
    assert [m["type"] for m in got["melds"]] == ["kong", "pong", "chi"]
    assert [m["tiles"] for m in got["melds"]] == ["9999m", "NNN", "456p"]
    assert [m["claimed_index"] for m in got["melds"]] == [None, 1, None]
    assert got["concealed"] == "2s 3s 4s 6p 6p".split() and got["unplaced"] == []


def test_melds_touching_each_other_are_split():
    tiles = lay("2s 3s 4s 6p 6p", 10, 100) + lay("9m 9m 9m 9m N N N 4p 5p 6p", 10, 250)
    got = build_layout(tiles)
    assert [(m["type"], m["tiles"], m["indices"]) for m in got["melds"]] == [
        ("kong", "9999m", [5, 6, 7, 8]), ("pong", "NNN", [9, 10, 11]), ("chi", "456p", [12, 13, 14])]


def test_concealed_kong_with_backs():
    tiles = lay("1m 2m 3m 4m 5m 6m 7p 8p 9p 1s 1s 1s E", 10, 100) + lay("B 7s 7s B", 10, 250)
    got = build_layout(tiles)
    assert got["melds"] == [{"type": "ankong", "tiles": "7777s", "claimed_index": None,
                             "indices": [13, 14, 15, 16]}]
    assert got["flagged"] == []


def test_concealed_kong_all_backs_is_unknown_and_flagged():
    tiles = lay("1m 2m 3m 4m 5m 6m 7p 8p 9p 1s 1s 1s E | B B B B", 10, 100)
    got = build_layout(tiles)
    assert got["melds"] == [{"type": "ankong", "tiles": None, "claimed_index": None,
                             "indices": [13, 14, 15, 16]}]
    assert got["flagged"] == [13, 14, 15, 16]
    assert got["winning_tile"] is None  # a lone group of melds is not the hand's right end


def test_flowers_go_to_flowers_wherever_they_are():
    tiles = lay("1m 2m 3m 5f 4m 5m 6m", 10, 100) + lay("1f | 8f", 10, 250)
    got = build_layout(tiles)
    assert got["flowers"] == ["5f", "1f", "8f"] and got["flower_indices"] == [3, 7, 8]
    # the flower inside the row leaves no gap behind: no false winning tile, no split
    assert got["concealed"] == "1m 2m 3m 4m 5m 6m".split()
    assert got["winning_tile"] is None and got["melds"] == [] and got["unplaced"] == []
    assert got["rows"] == [[[0, 1, 2, 3, 4, 5, 6]], [[7], [8]]]


def test_slightly_tilted_rows():
    # 6 px drop per tile: the right end sits 90 px (1.6 tile heights) below the left end
    tiles = lay(HAND16 + " | 9s", 10, 100, slope=0.14) + lay("5p 5p* 5p", 10, 300, slope=0.14)
    got = build_layout(tiles)
    assert got["rows"] == [[list(range(16)), [16]], [[17, 18, 19]]]
    assert got["concealed"] == HAND16.split() and got["winning_tile"] == "9s"
    assert got["melds"][0]["tiles"] == "555p"


def test_low_confidence_tiles_are_flagged_not_dropped():
    tiles = lay(HAND16, 10, 100)
    tiles[4]["confidence"] = 0.3
    tiles[9]["confidence"] = 0.59
    got = build_layout(tiles)
    assert got["concealed"] == HAND16.split()
    assert got["flagged"] == [4, 9]
    assert got["flag_reasons"] == {"4": ["low_confidence"], "9": ["low_confidence"]}
    assert build_layout(tiles, low_confidence=0.5)["flagged"] == [4]


def test_each_flagged_tile_says_why_the_recognizers_doubt_first():
    tiles = lay(HAND16, 10, 100) + lay("1m 5p", 10, 250)
    tiles[2]["suspect"] = "not like a whole tile"
    tiles[2]["confidence"] = 0.3
    tiles[5]["suspect"] = "cut by the photo's edge"
    tiles[7]["suspect"] = "some reason a later version adds"
    got = build_layout(tiles)
    assert got["flagged"] == [2, 5, 7, 16, 17]
    assert got["flag_reasons"] == {"2": ["not_whole_tile", "low_confidence"], "5": ["cut_by_edge"],
                                   "7": ["suspect"], "16": ["unplaced"], "17": ["unplaced"]}
    assert build_layout(lay(HAND16, 10, 100))["flag_reasons"] == {}  # nothing to check, nothing said


def test_tiles_fitting_no_meld_are_unplaced_and_flagged():
    tiles = lay("1m 2m 3m 4m 5m 6m 7m", 10, 100) + lay("1m 5p", 10, 250)
    got = build_layout(tiles)
    assert got["unplaced"] == [7, 8] and got["flagged"] == [7, 8]
    assert got["concealed"] == "1m 2m 3m 4m 5m 6m 7m".split()


def test_the_row_that_is_all_melds_is_not_the_hand():
    # the meld row is longer, but only the hand has a pair left over
    tiles = lay("9m 9m 9m 9m N N N 4p 5p 6p", 10, 100) + lay("2s 3s 4s 6p 6p 7s 8s", 10, 250)
    got = build_layout(tiles)
    assert got["concealed"] == "2s 3s 4s 6p 6p 7s 8s".split()
    assert [m["tiles"] for m in got["melds"]] == ["9999m", "NNN", "456p"]


def test_input_order_does_not_matter():
    tiles = lay(HAND16 + " | 9s", 10, 100) + lay("5p 5p* 5p", 10, 250)
    order = list(range(len(tiles)))[::-1]
    got = build_layout([tiles[i] for i in order])
    assert got["concealed"] == HAND16.split() and got["winning_tile"] == "9s"
    assert got["melds"][0]["indices"] == [order.index(17), order.index(18), order.index(19)]


def test_empty_input():
    got = build_layout([])
    assert got["concealed"] == [] and got["rows"] == [] and got["winning_tile"] is None


@pytest.mark.parametrize("bad, message", [
    ({"tile": "1m"}, "needs 'tile' and 'box'"),
    ({"tile": "1m", "box": [5, 5, 5, 9]}, "is empty"),
    ({"tile": "1m", "box": [0, 0, 1, 1], "rotation": "tilted"}, "rotation must be one of"),
    ({"tile": 3, "box": [0, 0, 1, 1]}, "needs a tile name"),
])
def test_malformed_tiles_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        build_layout(lay("1m", 0, 0) + [bad])


def _turn(tiles: list[dict], degrees: float) -> list[dict]:
    """The same tiles photographed at an angle: centres turned about the origin, boxes as a
    detector draws them (axis-aligned around the turned tile)."""
    import math
    a = math.radians(degrees)
    out = []
    for t in tiles:
        x1, y1, x2, y2 = t["box"]
        corners = [(x, y) for x in (x1, x2) for y in (y1, y2)]
        turned = [(x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)) for x, y in corners]
        xs, ys = [p[0] for p in turned], [p[1] for p in turned]
        out.append({**t, "box": [min(xs) + 2000, min(ys) + 2000, max(xs) + 2000, max(ys) + 2000]})
    return out


@pytest.mark.parametrize("degrees", [-60, 35, 50])
def test_hand_photographed_at_a_steep_angle(degrees):
    tiles = _turn(lay(HAND16 + " | 9s", 10, 100) + lay("5p 5p* 5p", 10, 250), degrees)
    got = build_layout(tiles)
    assert got["concealed"] == HAND16.split() and got["winning_tile"] == "9s"
    assert got["melds"] == [{"type": "pong", "tiles": "555p", "claimed_index": 1, "indices": [17, 18, 19]}]
