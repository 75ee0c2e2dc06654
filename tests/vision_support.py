"""Helpers shared by the vision test modules."""
from __future__ import annotations

import numpy as np


def probs(rows: list[dict[int, float]]) -> np.ndarray:
    """Class probabilities (len(rows), 43): each row's {class: probability}, zero elsewhere."""
    p = np.zeros((len(rows), 43), np.float32)
    for i, row in enumerate(rows):
        for c, v in row.items():
            p[i, c] = v
    return p


def flowers_print_numbers(monkeypatch, printed: bool) -> None:
    """Every procedural set drawn from now on prints its flowers' numbers, or (printed False) their
    names alone, whatever its seed draws (one style in five prints names alone)."""
    from training import procedural

    style = procedural.random_style
    monkeypatch.setattr(procedural, "random_style", lambda rng, held_out=False: {**style(rng, held_out),
                                                                                  "flower_number": printed})
