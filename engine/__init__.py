"""Taiwanese mahjong rules engine: tiles, win and wait search, shanten, 台 scoring, settlement,
game flow. Pure Python, no vision or web imports."""
