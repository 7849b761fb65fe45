"""What the seat LEDs and the buzzer show at a moment, from the session and its signals.

The seat to move is lit; it blinks once the warning is due and blinks fast once over the limit.
The buzzer gives a short beep for the warning and a long one at the limit; muted, the table
shows lights only. Everything is a function of the session's clock: no sleeping threads."""

from __future__ import annotations

from dataclasses import dataclass

from ..table.session import Signal, TableSession

SEATS = ("N", "E", "S", "W")


@dataclass
class Lights:
    warn_hz: float = 2.0
    overrun_hz: float = 8.0
    short_beep: float = 0.15
    long_beep: float = 1.0
    muted: bool = False
    _beep_until: float = float("-inf")

    def signal(self, signal: Signal, now: float) -> None:
        length = self.short_beep if signal.kind == "warn" else self.long_beep
        self._beep_until = max(self._beep_until, now + length)

    def frame(self, session: TableSession, now: float) -> tuple[dict[str, bool], bool]:
        """(LED on/off by seat, buzzer on/off) at `now`."""
        leds = dict.fromkeys(SEATS, False)
        clock = session.state.clock
        if clock is not None and not clock.done:  # after the last trick, nobody is to move
            left = clock.limit - clock.elapsed_at(now)
            moving = [clock.seat] if clock.seat else list(SEATS)  # a new lead: anyone
            if not clock.running:
                lit = True  # paused: steady
            elif left > session.config.warn_before:
                lit = True
            else:
                hz = self.warn_hz if left > 0 else self.overrun_hz
                lit = int((now - clock.started) * hz * 2) % 2 == 0
            for seat in moving:
                leds[seat] = lit
        buzzer = not self.muted and now < self._beep_until
        return leds, buzzer
