"""A photo shows one set: no tile more often than the set holds it.

The classifier reads each box on its own, so two flowers of an unfamiliar art can both read 春,
although a set holds one 春. Where a class is read more often than its copies allow
(vision/classes.json `copies`), the surplus boxes are the ones whose next likeliest class costs
least: each such box moves to the likeliest class that still has room. A moved box keeps its
probabilities, so its confidence (the probability of the class it now reads) is low and the
player is asked to check it. Classes without a limit (spare 白板, face-down tiles) never move.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def within_copies(p_cls: np.ndarray, copies: Sequence[int | None]) -> np.ndarray:
    """The class of each box (a row of class probabilities), no class read more often than
    copies allows (None: no limit). One box moves at a time: of the boxes of an over-full class,
    the one losing the least log-probability by moving to its likeliest class with room.

    >>> p = np.array([[0.9, 0.1, 0.0], [0.6, 0.4, 0.0], [0.7, 0.0, 0.3]])
    >>> within_copies(p, [1, 4, None]).tolist()  # class 0 is held once: the box surest of it keeps it
    [0, 1, 2]
    >>> within_copies(p, [None, 4, None]).tolist()
    [0, 0, 0]
    """
    p = np.asarray(p_cls, dtype=np.float64)
    cls = p.argmax(1) if len(p) else np.zeros(0, np.int64)
    limit = np.array([np.inf if n is None else n for n in copies], dtype=np.float64)
    if len(limit) != p.shape[1]:
        raise ValueError(f"copies names {len(limit)} classes, the probabilities {p.shape[1]}")
    logp = np.log(np.clip(p, 1e-12, None))
    while True:
        count = np.bincount(cls, minlength=len(limit))
        over = count > limit
        surplus = np.flatnonzero(over[cls])
        if not len(surplus) or not (count < limit).any():
            return cls
        room = np.where(count < limit, logp[surplus], -np.inf)  # [surplus box, class]
        to = room.argmax(1)
        cost = logp[surplus, cls[surplus]] - room[np.arange(len(surplus)), to]
        k = int(cost.argmin())
        cls[surplus[k]] = to[k]
