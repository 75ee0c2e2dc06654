"""The list of games' lines, kept per game state, so that listing costs a lookup per game.

Listing recomputed every hand of every game on each call: with a few hundred long games a list
took over 30 s and held a server thread all that time. A game's line changes only when the game
does, and every change bumps its version; the stamp adds its setup, hand count and last hand's
time, so a data folder restored from a backup (where a version number may come back with other
hands) is never shown from an old line. The cache lives in the server process, one line per game
(its latest): the first list after a start computes each game once. A game's row or hands edited
with sqlite3 while the server runs, without changing any of those, is shown from its old line
until a restart (a restore stops the server first).

    >>> cache = SummaryCache(limit=2)
    >>> cache.put("a", (1, 0), {"id": "a"}); cache.put("b", (1, 0), {"id": "b"})
    >>> cache.get("a", (2, 1)) is None  # the game changed: its old line is no answer
    True
    >>> cache.put("c", (1, 0), {"id": "c"})  # over the limit: the line kept longest goes
    >>> cache.get("a", (1, 0)) is None, cache.get("c", (1, 0))
    (True, {'id': 'c'})
"""
from __future__ import annotations

import threading

LIMIT = 20_000  # games whose line is kept; a line is a few hundred bytes


class SummaryCache:
    def __init__(self, limit: int = LIMIT):
        self._lock = threading.Lock()  # the server answers on several threads
        self._lines: dict[str, tuple[tuple, dict]] = {}
        self.limit = limit

    def get(self, game_id: str, stamp: tuple) -> dict | None:
        with self._lock:
            kept = self._lines.get(game_id)
        return kept[1] if kept is not None and kept[0] == stamp else None

    def put(self, game_id: str, stamp: tuple, line: dict) -> None:
        with self._lock:
            self._lines.pop(game_id, None)  # re-inserted last: the oldest is the least recently made
            self._lines[game_id] = (stamp, line)
            while len(self._lines) > self.limit:
                del self._lines[next(iter(self._lines))]
