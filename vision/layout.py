"""From recognized tiles on a photo to the hand's layout: concealed tiles, melds, flowers, winning tile.

How a laid-down hand looks: tiles stand in rows; a gap of about half a tile or more separates
groups; a claimed tile is turned sideways inside its meld; a concealed kong shows its outer two
tiles (or all four) face down; the winning tile is set apart at the right end of the hand.

The main (concealed) row is the row with the longest run of upright face-up tiles. In it, a
group of 3-4 tiles counts as an exposed meld only when it carries that evidence (a sideways tile,
or backs at both ends); in the other rows every group is read as melds. Tiles that fit nowhere
are listed in `unplaced`, never dropped, and flagged for a human look together with
low-confidence tiles and unreadable concealed kongs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import median

from .classes import BACK, is_flower
from .screen import REASON_CODES

ROTATIONS = ("upright", "upside_down", "sideways")
ROW_TOLERANCE = 0.5   # a tile joins a row when its centre is this close to the row's line (tile heights)
GAP_SPLIT = 0.5       # a horizontal gap wider than this (tile widths) starts a new group
FIT_TILES = 5         # the row line is fitted through the last few tiles, so a slight curve is fine
MAX_SLOPE = 0.35      # rows are at most slightly tilted; keeps a 2-tile fit from running wild
STRAIGHTEN_BEYOND = 20  # degrees of tilt past which rows are straightened first (see _straighten)
TILE_ASPECT = 1.33    # height / width of a tile's face, for the nominal boxes of straightened tiles
SUITS = "mps"


@dataclass(frozen=True)
class Tile:
    index: int
    tile: str
    box: tuple[float, float, float, float]
    confidence: float
    rotation: str

    @property
    def cx(self) -> float:
        return (self.box[0] + self.box[2]) / 2

    @property
    def cy(self) -> float:
        return (self.box[1] + self.box[3]) / 2

    @property
    def sideways(self) -> bool:
        return self.rotation == "sideways"

    @property
    def back(self) -> bool:
        return self.tile == BACK


def build_layout(tiles, *, low_confidence: float = 0.6) -> dict:
    """Layout of recognized tiles (dicts with tile, box, confidence, rotation), see module doc.

    Returns a dict:
      concealed, concealed_indices: concealed tiles of the main row, left to right (engine notation)
      melds: [{type: chi|pong|kong|ankong, tiles: "123m" or None (unreadable ankong),
               claimed_index: index into tiles of the sideways tile or None, indices: [...]}]
      flowers, flower_indices; winning_tile, winning_index (None when no tile is set apart)
      unplaced: indices of tiles that fit no meld; flagged: indices a human should check (low
        confidence, a `suspect` reason from the recognizer, unplaced, an unreadable kong)
      flag_reasons: {index as text: [codes]} for each flagged tile, most telling first: the
        recognizer's reason (vision.screen.REASON_CODES), low_confidence, unreadable_kong, unplaced
      doubted: the flagged indices whose reading is in doubt (`doubted`): those the photo and the
        page's editor mark for a look
      rows: top to bottom, each a list of groups (left to right) of input indices
    All indices point into the input list.
    """
    recs = [_tile(i, t) for i, t in enumerate(tiles)]
    layout = {"concealed": [], "concealed_indices": [], "melds": [], "flowers": [],
              "flower_indices": [], "winning_tile": None, "winning_index": None,
              "unplaced": [], "flagged": [], "flag_reasons": {}, "doubted": [], "rows": []}
    if not recs:
        return layout
    geometry = _straighten(recs)
    width, height = _tile_size(geometry)
    rows = [_groups(row, width) for row in _rows(geometry, height)]
    layout["rows"] = [[[t.index for t in g] for g in row] for row in rows]

    for row in rows:
        for group in row:
            for t in group:
                if is_flower(t.tile):
                    layout["flowers"].append(t.tile)
                    layout["flower_indices"].append(t.index)
    # flowers go to their own list wherever they lie; they are not part of any group's reading
    rows = [[g2 for g2 in ([t for t in g if not is_flower(t.tile)] for g in row) if g2] for row in rows]

    main = _main_row(rows)
    unknown: list[int] = []
    for r, row in enumerate(rows):
        winner = _winning_group(row) if r == main else None
        for g, group in enumerate(row):
            if g == winner:
                layout["winning_tile"], layout["winning_index"] = group[0].tile, group[0].index
                continue
            for kind, part in _read_group(group, concealed_ok=(r == main)):
                if kind == "concealed":
                    layout["concealed"].append(part.tile)
                    layout["concealed_indices"].append(part.index)
                elif kind == "meld":
                    layout["melds"].append(part)
                    if part["tiles"] is None:
                        unknown.extend(part["indices"])
                else:
                    layout["unplaced"].append(part.index)

    low = [t.index for t in recs if t.confidence < low_confidence]
    suspect = [i for i, t in enumerate(tiles) if isinstance(t, dict) and t.get("suspect")]
    layout["flagged"] = sorted(set(low) | set(suspect) | set(unknown) | set(layout["unplaced"]))
    # why each flagged tile is, most telling first, so the page can say it at the tile
    reasons: dict[int, list[str]] = {}
    for i in suspect:
        reasons.setdefault(i, []).append(REASON_CODES.get(str(tiles[i]["suspect"]), "suspect"))
    for code, indices in (("low_confidence", low), ("unreadable_kong", unknown), ("unplaced", layout["unplaced"])):
        for i in indices:
            reasons.setdefault(i, []).append(code)
    layout["flag_reasons"] = {str(i): reasons[i] for i in layout["flagged"]}
    layout["doubted"] = doubted(layout)
    return layout


def doubted(layout: dict) -> list[int]:
    """The flagged tiles whose reading is in doubt: flagged for a reason other than lying in no
    group. A sure tile that only fits no group already sits apart among the unplaced ones, and
    marking it too hid the doubtful few among a photo of loose tiles. A layout stored before
    flag_reasons existed: every flagged tile.

    >>> doubted({"flagged": [0, 2], "flag_reasons": {"0": ["unplaced"], "2": ["low_confidence", "unplaced"]}})
    [2]
    >>> doubted({"flagged": [1]})
    [1]
    """
    reasons = layout.get("flag_reasons")
    if reasons is None:
        return list(layout["flagged"])
    return [i for i in layout["flagged"] if any(r != "unplaced" for r in reasons.get(str(i), ["?"]))]


def _tile(index: int, item) -> Tile:
    """Check one recognized tile and make it a Tile; raises ValueError naming what is wrong."""
    try:
        name = item["tile"]
        box = tuple(float(v) for v in item["box"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"tile {index}: needs 'tile' and 'box' [x1, y1, x2, y2]") from None
    if not isinstance(name, str) or len(box) != 4 or not all(map(math.isfinite, box)):
        raise ValueError(f"tile {index}: needs a tile name and a box of four numbers")
    if box[2] <= box[0] or box[3] <= box[1]:
        raise ValueError(f"tile {index}: box {list(box)} is empty (need x2 > x1 and y2 > y1)")
    rotation = item.get("rotation", "upright")
    if rotation not in ROTATIONS:
        raise ValueError(f"tile {index}: rotation must be one of {', '.join(ROTATIONS)}, got {rotation!r}")
    try:
        confidence = float(item.get("confidence", 1.0))
    except (TypeError, ValueError):
        raise ValueError(f"tile {index}: confidence must be a number") from None
    return Tile(index, name, box, confidence, rotation)


def _straighten(recs: list[Tile]) -> list[Tile]:
    """Tiles in a frame where the rows run left to right, for a photo taken at a steep angle.

    The rows' direction is the mean direction from each tile to its nearest neighbour (tiles
    touch side by side). Up to STRAIGHTEN_BEYOND the boxes are used as they are (the row-line
    fit copes); beyond, the photo's boxes no longer have a tile's shape, so each tile becomes a
    nominal box around its rotated centre, sized by the spacing of neighbouring tiles.
    """
    if len(recs) < 2:
        return recs
    centres = [(t.cx, t.cy) for t in recs]
    nearest = []
    for i, (x, y) in enumerate(centres):
        dx, dy = min(((cx - x, cy - y) for j, (cx, cy) in enumerate(centres) if j != i),
                     key=lambda d: d[0] ** 2 + d[1] ** 2)
        nearest.append((dx, dy))
    # a direction, not a vector: average the doubled angle so that opposite links agree
    c2 = sum(math.cos(2 * math.atan2(dy, dx)) for dx, dy in nearest)
    s2 = sum(math.sin(2 * math.atan2(dy, dx)) for dx, dy in nearest)
    angle = math.atan2(s2, c2) / 2
    if abs(angle) <= math.radians(STRAIGHTEN_BEYOND):
        return recs
    pitch = median(math.hypot(dx, dy) for dx, dy in nearest)
    ca, sa = math.cos(angle), math.sin(angle)
    out = []
    for t in recs:
        u, v = t.cx * ca + t.cy * sa, -t.cx * sa + t.cy * ca
        w, h = (pitch * TILE_ASPECT, pitch) if t.sideways else (pitch, pitch * TILE_ASPECT)
        out.append(replace(t, box=(u - w / 2, v - h / 2, u + w / 2, v + h / 2)))
    return out


def _tile_size(recs: list[Tile]) -> tuple[float, float]:
    """Median width and height of a standing tile; a sideways tile's box counts turned back."""
    widths, heights = [], []
    for t in recs:
        w, h = t.box[2] - t.box[0], t.box[3] - t.box[1]
        widths.append(h if t.sideways else w)
        heights.append(w if t.sideways else h)
    return median(widths), median(heights)


def _rows(recs: list[Tile], height: float) -> list[list[Tile]]:
    """Cluster tiles into rows, left to right, following each row's (possibly tilted) line."""
    rows: list[list[Tile]] = []
    for t in sorted(recs, key=lambda t: (t.cx, t.cy, t.index)):
        best, best_d = None, ROW_TOLERANCE * height
        for row in rows:
            d = abs(_row_y_at(row, t.cx) - t.cy)
            if d <= best_d:
                best, best_d = row, d
        if best is None:
            rows.append([t])
        else:
            best.append(t)
    return sorted(rows, key=lambda row: (median(t.cy for t in row), row[0].cx))


def _row_y_at(row: list[Tile], x: float) -> float:
    """The row's centre line, extrapolated to x from a least-squares fit of its last tiles."""
    pts = row[-FIT_TILES:]
    n = len(pts)
    mx = sum(t.cx for t in pts) / n
    my = sum(t.cy for t in pts) / n
    sxx = sum((t.cx - mx) ** 2 for t in pts)
    if n < 2 or sxx == 0:
        return pts[-1].cy
    slope = sum((t.cx - mx) * (t.cy - my) for t in pts) / sxx
    slope = max(-MAX_SLOPE, min(MAX_SLOPE, slope))
    return my + slope * (x - mx)


def _groups(row: list[Tile], width: float) -> list[list[Tile]]:
    """Split a row (sorted by x) at gaps wider than GAP_SPLIT tile widths."""
    groups = [[row[0]]]
    for prev, t in zip(row, row[1:]):
        if t.box[0] - prev.box[2] > GAP_SPLIT * width:
            groups.append([t])
        else:
            groups[-1].append(t)
    return groups


def _main_row(rows: list[list[list[Tile]]]) -> int:
    """Index of the concealed row.

    A hand always holds a pair or a lone tile, so a row that reads completely as melds is only
    chosen when every row does. Then: longest run of concealed tiles, most tiles, topmost.
    """
    def score(r):
        runs = [sum(kind == "concealed" for kind, _ in _read_group(g, concealed_ok=True))
                for g in rows[r]]
        leftover = any(kind != "meld" for g in rows[r] for kind, _ in _read_group(g, concealed_ok=False))
        return (leftover, max(runs, default=0), sum(len(g) for g in rows[r]), -r)
    return max(range(len(rows)), key=score) if rows else -1


def _winning_group(row: list[list[Tile]]) -> int | None:
    """The group that is a lone face-up tile at the right end of the concealed tiles, if any.

    Groups that read entirely as exposed melds are passed over, so melds laid out to the right
    of the hand do not hide the winning tile.
    """
    hand = [g for g, group in enumerate(row)
            if not all(kind == "meld" for kind, _ in _read_group(group, concealed_ok=True))]
    if len(hand) >= 2 and len(row[hand[-1]]) == 1 and not row[hand[-1]][0].back:
        return hand[-1]
    return None


def _read_group(group: list[Tile], *, concealed_ok: bool) -> list[tuple[str, object]]:
    """Best reading of a group, left to right, as ("concealed", Tile), ("meld", dict), ("unplaced", Tile).

    Fewest unplaced tiles wins, then fewest tiles in melds (a concealed triplet stays concealed
    unless something shows it is exposed). In the concealed row a meld needs that evidence.
    """
    n = len(group)
    best: list[tuple | None] = [None] * (n + 1)  # (unplaced, meld tiles, reading) for group[:i]
    best[0] = (0, 0, [])
    for i in range(n):
        if best[i] is None:
            continue
        unplaced, in_melds, reading = best[i]
        t = group[i]
        if concealed_ok and not t.back and not t.sideways:
            _keep(best, i + 1, (unplaced, in_melds, reading + [("concealed", t)]))
        else:
            _keep(best, i + 1, (unplaced + 1, in_melds, reading + [("unplaced", t)]))
        for size in (3, 4):
            chunk = group[i:i + size]
            meld = _meld(chunk) if len(chunk) == size else None
            if meld and (not concealed_ok or meld["type"] == "ankong" or any(c.sideways for c in chunk)):
                _keep(best, i + size, (unplaced, in_melds + size, reading + [("meld", meld)]))
    return best[n][2]


def _keep(best: list, j: int, candidate: tuple) -> None:
    if best[j] is None or candidate[:2] < best[j][:2]:
        best[j] = candidate


def _meld(chunk: list[Tile]) -> dict | None:
    """The meld these 3-4 tiles (left to right) form, or None."""
    indices = [t.index for t in chunk]
    faces = [t.tile for t in chunk if not t.back]
    if len(faces) < len(chunk):  # face-down tiles only ever show a concealed kong
        if len(chunk) != 4 or not (chunk[0].back and chunk[-1].back) or len(set(faces)) > 1:
            return None
        tiles = _compact([faces[0]] * 4) if faces else None
        return {"type": "ankong", "tiles": tiles, "claimed_index": None, "indices": indices}
    claimed = next((k for k, t in enumerate(chunk) if t.sideways), None)
    if len(set(faces)) == 1:
        kind = {3: "pong", 4: "kong"}[len(chunk)]
        return {"type": kind, "tiles": _compact(faces), "claimed_index": claimed, "indices": indices}
    if len(chunk) == 3 and _is_chi(faces):
        ordered = sorted(faces)
        if claimed is not None:
            claimed = ordered.index(chunk[claimed].tile)
        return {"type": "chi", "tiles": _compact(ordered), "claimed_index": claimed, "indices": indices}
    return None


def _is_chi(faces: list[str]) -> bool:
    if not all(len(f) == 2 and f[0].isdigit() and f[1] in SUITS for f in faces):
        return False
    if len({f[1] for f in faces}) != 1:
        return False
    numbers = sorted(int(f[0]) for f in faces)
    return numbers[1] == numbers[0] + 1 and numbers[2] == numbers[1] + 1


def _compact(faces: list[str]) -> str:
    """Meld tiles in compact engine notation: ['1m', '2m', '3m'] -> '123m', ['E'] * 3 -> 'EEE'."""
    if all(len(f) == 2 and f[1] in SUITS for f in faces):
        return "".join(f[0] for f in faces) + faces[0][1]
    return "".join(faces)
