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
