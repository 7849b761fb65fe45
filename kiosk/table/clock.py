"""Time sources, injected so that nothing in the session reads the system clock itself.

`now()` is monotonic seconds (move and match timing); `wall()` is Unix time (records only).
Tests drive a `ManualClock`; `kiosk simulate` runs a `ScaledClock` faster than real time."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    def wall(self) -> float: ...


class SystemClock:
    """The machine's clocks."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float = 1000.0, wall: float = 1_790_000_000.0) -> None:
        self._now = start
        self._wall_offset = wall - start

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    def advance(self, seconds: float) -> None:
        self._now += seconds


class SimulatedClock:
    """Time for simulated tables: it moves by what the bots wait (`sleep`), and each wait takes
    s / speed real seconds, so a huge speed plays as fast as the journal allows while the
    clocks still see human-like times."""

    def __init__(self, start: float, speed: float) -> None:
        self.speed = speed
        self._now = start
        self._wall_offset = time.time() - start

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._now += seconds
            real = seconds / self.speed
            if real > 1e-4:
                time.sleep(real)
