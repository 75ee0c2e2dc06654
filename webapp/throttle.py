"""A short, growing delay per client address after wrong PINs.

A 4-digit PIN falls to 10,000 tries; a fixed lock-out instead shuts the table out of its own game.
So a few mistakes are free, then each further wrong PIN makes that address wait twice as long
before its next try (right or wrong: a try during the wait is not even checked, so it tells the
guesser nothing), up to a cap. A right PIN clears the address's count; so does an hour without
mistakes. With the defaults, 10,000 guesses from one address take about a week, and a player who
mistypes waits seconds, never more than a minute.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class ThrottleSettings:
    free_tries: int = 5          # wrong PINs per address before any delay
    first_delay: float = 1.0     # seconds after the first counted mistake, doubled for each next one
    max_delay: float = 60.0      # the longest wait: the table is never locked out for longer
    forget_after: float = 3600.0  # an address with no mistake for this long starts again
    max_clients: int = 10_000    # addresses remembered; the oldest are dropped beyond this


class PinThrottle:
    def __init__(self, settings: ThrottleSettings = ThrottleSettings(), clock=time.monotonic):
        self.settings = settings
        self.clock = clock
        self._lock = threading.Lock()
        self._clients: dict[str, tuple[int, float]] = {}  # address -> (mistakes, time of the last)

    def _delay(self, mistakes: int) -> float:
        s = self.settings
        if mistakes < s.free_tries:
            return 0.0
        return min(s.max_delay, s.first_delay * 2 ** (mistakes - s.free_tries))

    def wait(self, client: str) -> float:
        """Seconds this address must still wait before its next PIN is looked at (0: go ahead)."""
        with self._lock:
            mistakes, last = self._clients.get(client, (0, 0.0))
            now = self.clock()
            if mistakes and now - last >= self.settings.forget_after:
                del self._clients[client]
                return 0.0
            return max(0.0, last + self._delay(mistakes) - now) if mistakes else 0.0

    def failed(self, client: str) -> None:
        with self._lock:
            mistakes, _ = self._clients.pop(client, (0, 0.0))
            self._clients[client] = (mistakes + 1, self.clock())  # re-inserted: dict order = age
            while len(self._clients) > self.settings.max_clients:
                del self._clients[next(iter(self._clients))]

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)
