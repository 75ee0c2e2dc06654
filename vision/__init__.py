"""Tile recognition: photo -> tiles in engine notation -> hand layout. CLI: `python -m vision`."""
