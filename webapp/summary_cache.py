"""The list of games' lines, kept per game state, so that listing costs a lookup per game.

Listing recomputed every hand of every game on each call: with a few hundred long games a list
took over 30 s and held a server thread all that time. A game's line changes only when the game
does, and every change bumps its version; the key adds its hand count and last hand's time, so
a data folder restored from a backup (where a version number may come back with other hands)
is never shown from an old line. The cache lives in the server process: the first list after a
start computes each game once.

    >>> cache = SummaryCache(limit=2)
    >>> cache.put(("a", 1, 0, None), {"id": "a"}); cache.put(("b", 1, 0, None), {"id": "b"})
    >>> cache.put(("c", 1, 0, None), {"id": "c"})  # over the limit: the oldest line goes
    >>> cache.get(("a", 1, 0, None)) is None, cache.get(("c", 1, 0, None))
    (True, {'id': 'c'})
"""
from __future__ import annotations

import threading

LIMIT = 20_000  # games' lines kept; a line is a few hundred bytes


class SummaryCache:
    def __init__(self, limit: int = LIMIT):
        self._lock = threading.Lock()  # the server answers on several threads
        self._lines: dict[tuple, dict] = {}
        self.limit = limit

    def get(self, key: tuple) -> dict | None:
        with self._lock:
            return self._lines.get(key)

    def put(self, key: tuple, line: dict) -> None:
        with self._lock:
            self._lines[key] = line
            while len(self._lines) > self.limit:
                del self._lines[next(iter(self._lines))]  # dicts keep insertion order: the oldest
