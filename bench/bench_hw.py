"""Benchmark: button edge to session event, through gpiozero's real callback path.

    .venv/bin/python bench/bench_hw.py [--presses 500]

A seat button on gpiozero's MockFactory is driven low; gpiozero's callback puts the edge through
the door; the runner's thread decodes it and records the press in the journal
(synchronous=FULL). Prints p50/p99 of the time from the edge to the durable event; the aim is a
p99 under 5 ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from kiosk.hw.buttons import ButtonDecoder
from kiosk.hw.door import Door
from kiosk.hw.panel import Panel
from kiosk.hw.pinmap import load_pinmap
from kiosk.hw.runner import TableRunner
from kiosk.rules import Rulesets
from kiosk.table.clock import SystemClock
from kiosk.table.session import SessionConfig, TableSession


def main() -> None:
    parser = argparse.ArgumentParser(description="button edge to session event latency")
    parser.add_argument("--presses", type=int, default=500)
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    pins = load_pinmap()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        clock = SystemClock()
        session = TableSession.open(tmp, 1, Rulesets.load(), clock, SessionConfig())
        session.setup_match(event="bench", round="1", teams={}, players={},
                            ruleset="standard-80fen")
        session.grab_dealer("N")
        session.declare_trump("♠", "N")
        session.start_bury()
        factory, door = MockFactory(), Door()
        panel = Panel(pins, door, clock, pin_factory=factory)
        runner = TableRunner(session, door, panel, ButtonDecoder(debounce=0.01))
        runner.start(interval=0.02)
        latencies = []
        for _ in range(args.presses):
            seat = session.state.clock.seat if session.state.clock else None
            button = factory.pin(pins.seat_button(seat or "N"))
            before = session.journal.last_seq
            start = time.perf_counter()
            button.drive_low()
            while session.journal.last_seq == before:
                time.sleep(0)
            latencies.append(time.perf_counter() - start)
            time.sleep(0.012)
            button.drive_high()
            time.sleep(0.012)
        runner.stop()
        panel.close()
        session.close()
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(f"button edge → durable session event ({args.presses} presses, MockFactory): "
          f"p50 {p50 * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms (aim: p99 < 5 ms)")


if __name__ == "__main__":
    main()
