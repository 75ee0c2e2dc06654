"""The recognizer's 43 classes and their engine notation under each tile set.

The class list lives in classes.json and the tile sets in tilesets.json; this module only reads
and checks them. Class 42 is a face-down tile, written `back` (it is not engine notation: the
layout uses it to find concealed kongs).
"""
from __future__ import annotations

import json
import operator
from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
CLASSES_FILE = _HERE / "classes.json"
TILESETS_FILE = _HERE / "tilesets.json"

NUM_CLASSES = 43
BACK = "back"
BACK_CLASS = 42
FLOWER_TILES = frozenset(f"{n}f" for n in range(1, 9))
SEASON_CLASSES = (34, 35, 36, 37)  # 春夏秋冬: 1f-4f by their printed number
PLANT_CLASSES = (38, 39, 40, 41)  # 梅蘭菊竹: 5f-8f by their printed number
FLOWER_CLASSES = SEASON_CLASSES + PLANT_CLASSES
CHARACTER_CLASSES = tuple(range(9))  # 1m-9m (萬): the numeral above 萬 is what each set writes its own way
SUIT_CLASSES = tuple(range(9, 27))  # 1p-9p (筒) and 1s-9s (條): circles and sticks each set draws its own way
HONOUR_CLASSES = tuple(range(27, 33))  # 東南西北 紅中 發: characters each set writes its own way (白板 is a blank face)


def _load_classes() -> tuple[dict, ...]:
    classes = json.loads(CLASSES_FILE.read_text(encoding="utf-8"))["classes"]
    if len(classes) != NUM_CLASSES or classes[BACK_CLASS]["tile"] != BACK:
        raise ValueError(f"{CLASSES_FILE.name} must list {NUM_CLASSES} classes ending with `{BACK}`")
    for c in classes:
        n = c.get("copies")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"{CLASSES_FILE.name}: copies of {c['name']} must be a whole number >= 1 or null")
    return tuple(classes)


_CLASSES = _load_classes()
CLASS_NAMES: tuple[str, ...] = tuple(c["name"] for c in _CLASSES)
ZH_NAMES: tuple[str, ...] = tuple(c["zh"] for c in _CLASSES)
# how many of each class one set holds; None: no limit (spare 白板, face-down tiles)
COPIES: tuple[int | None, ...] = tuple(c.get("copies") for c in _CLASSES)


def _tileset_data() -> dict:
    return json.loads(TILESETS_FILE.read_text(encoding="utf-8"))


DEFAULT_TILESET: str = _tileset_data()["default"]


def tileset_names() -> list[str]:
    return sorted(_tileset_data()["tilesets"])


def _tileset(name: str) -> dict:
    """The named entry of tilesets.json; ValueError naming the known ones."""
    sets = _tileset_data()["tilesets"]
    if name not in sets:
        raise ValueError(f"unknown tile set {name!r}; known: {', '.join(sorted(sets))}")
    return sets[name]


@lru_cache(maxsize=None)
def tile_notation(tileset: str = DEFAULT_TILESET) -> tuple[str, ...]:
    """Engine notation of each class index (43 strings) under the named tile set."""
    overrides = _tileset(tileset)["tiles"]
    open_names = {c["name"] for c in _CLASSES if c["tile"] is None}
    if set(overrides) != open_names:
        raise ValueError(f"tile set {tileset!r} in {TILESETS_FILE.name} must map exactly "
                         f"{', '.join(sorted(open_names))}")
    notation = tuple(c["tile"] if c["tile"] is not None else overrides[c["name"]] for c in _CLASSES)
    if len(set(notation)) != NUM_CLASSES:
        raise ValueError(f"tile set {tileset!r} gives two classes the same tile")
    return notation


def class_to_tile(cls: int, tileset: str = DEFAULT_TILESET) -> str:
    """Engine notation of one class index, e.g. 31 -> 'C', 41 -> '7f' (taiwan) or '8f' (hk-index)."""
    try:
        index = operator.index(cls)  # numpy integers from a model are fine too
    except TypeError:
        index = -1
    if isinstance(cls, bool) or not 0 <= index < NUM_CLASSES:
        raise ValueError(f"class index must be an int 0-{NUM_CLASSES - 1}, got {cls!r}")
    return tile_notation(tileset)[index]


def number_reading(tileset: str = DEFAULT_TILESET) -> float | None:
    """The confidence from which a tile set takes a flower's tile from its printed number, or
    None for a set that maps flowers by class alone."""
    entry = _tileset(tileset)
    return float(entry.get("min_confidence", 0.0)) if entry.get("read_numbers") else None


def printed_flower_tile(cls: int, number: int) -> str:
    """The tile a flower or season class printing `number` (1-4) is: seasons 1f-4f, plants 5f-8f.

    >>> printed_flower_tile(36, 3), printed_flower_tile(40, 3), printed_flower_tile(41, 4)
    ('3f', '7f', '8f')
    """
    if cls not in FLOWER_CLASSES or not 1 <= int(number) <= 4:
        raise ValueError(f"no printed flower tile for class {cls!r} number {number!r}")
    return f"{int(number) + (0 if cls in SEASON_CLASSES else 4)}f"


def printed_number(tile: str) -> int:
    """The number a flower or season tile prints (1f-4f and 5f-8f: 1-4), 0 for any other tile:
    the inverse of printed_flower_tile.

    >>> printed_number("3f"), printed_number("7f"), printed_number("C")
    (3, 3, 0)
    """
    return (int(tile[0]) - 1) % 4 + 1 if tile in FLOWER_TILES else 0


def is_flower(tile: str) -> bool:
    return tile in FLOWER_TILES
