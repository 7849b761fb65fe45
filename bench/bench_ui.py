"""Benchmark: the touchscreen app. Needs a display; run under Xvfb:

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python bench/bench_ui.py [--hands 100]

Prints
  cold start   process start to the first frame drawn (median of 5), and memory then
  memory       resident memory of the app after it has shown N hands (matches set up one after
               another at the table), against the Zero 2 W's 512 MB
  frame time   the app's frame work (reading the view, building the screen) while the move
               clock runs: median and p99, and the frames per second Kivy reached
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cold_start(runs: int) -> tuple[float, int]:
    times, rss = [], 0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            marker = Path(tmp) / "first-frame.json"
            start = time.time()
            subprocess.run([sys.executable, "-m", "kiosk.cli.main", "table", "--data", tmp,
                            "--size", "800x480"], env={**os.environ, "KIOSK_FIRST_FRAME":
                                                       str(marker)},
                           check=True, capture_output=True, timeout=120)
            data = json.loads(marker.read_text())
            times.append(data["time"] - start)
            rss = data["rss_kb"]
    return statistics.median(times), rss


def play_hand(session) -> None:
    """One quick hand straight through the session (on the runner's thread)."""
    state = session.state
    if state.phase in ("setup", "over"):
        session.setup_match(event="bench", round=str(len(session.journal.matches()) + 1),
                            teams={"NS": "甲", "EW": "乙"}, players={}, ruleset="xiamen-2015")
    if session.state.draft.dealer is None:
        session.grab_dealer("N")
    session.start_bury()
    session.press(session.state.clock.seat)
    for _ in range(8):
        session.press(session.state.clock.seat or "N")
    session.end_play()
    session.enter_points(60)
    session.finish_entries()
    session.confirm("N")
    session.confirm("E")


def in_app(hands: int) -> dict[str, float]:
    os.environ["KIVY_NO_ARGS"] = "1"
    from kivy.clock import Clock
    from kivy.config import Config

    Config.set("graphics", "width", "800")
    Config.set("graphics", "height", "480")
    from kiosk.hw.door import Door
    from kiosk.hw.runner import TableRunner
    from kiosk.rules import Rulesets
    from kiosk.table import SessionConfig, SystemClock, TableSession
    from kiosk.ui.app import KioskApp, resident_kb

    tmp = tempfile.mkdtemp()
    session = TableSession.open(tmp, 1, Rulesets.load(), SystemClock(), SessionConfig())
    door = Door()
    runner = TableRunner(session, door)
    app = KioskApp(runner, lang="zh-Hans")
    frame_times: list[float] = []
    result: dict[str, float] = {}
    refresh = app.refresh

    def timed(*args: object) -> None:
        start = time.perf_counter()
        refresh(*args)
        if session.state.phase == "play":
            frame_times.append(time.perf_counter() - start)

    app.refresh = timed  # type: ignore[method-assign]
    played = {"n": 0, "fps": []}

    def drive(_dt: float) -> bool:
        if played["n"] < hands:
            door.put(play_hand)
            played["n"] += 1
            return True
        if not result:  # then let the clock run for a while on the play screen
            door.put(lambda s: (s.state.phase in ("setup", "over") and play_hand(s),
                                s.grab_dealer("N") if s.state.draft.dealer is None else None,
                                s.start_bury(), s.press(s.state.clock.seat)))
            result["rss_mb"] = resident_kb() / 1024
            Clock.schedule_once(lambda _dt: finish(), 5)
        return False

    def finish() -> None:
        result["fps"] = Clock.get_fps()
        app.stop()

    Clock.schedule_interval(drive, 0.05)
    runner.start()
    app.run()
    runner.stop()
    session.close()
    ordered = sorted(frame_times) or [0.0]
    result["frame_p50_ms"] = statistics.median(ordered) * 1e3
    result["frame_p99_ms"] = ordered[int(0.99 * (len(ordered) - 1))] * 1e3
    result["frames"] = len(frame_times)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="touchscreen app benchmark")
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        sys.exit("no display: run under xvfb-run (see the docstring)")
    first, rss = cold_start(args.runs)
    print(f"cold start to first frame: {first:.2f} s (median of {args.runs}); "
          f"{rss / 1024:.0f} MB resident then")
    figures = in_app(args.hands)
    print(f"after {args.hands} hands shown: {figures['rss_mb']:.0f} MB resident "
          f"({figures['rss_mb'] / 512:.0%} of a Zero 2 W's 512 MB)")
    print(f"frame work while the move clock runs: p50 {figures['frame_p50_ms']:.2f} ms, "
          f"p99 {figures['frame_p99_ms']:.2f} ms over {figures['frames']:.0f} frames; "
          f"{figures['fps']:.0f} frames/s")


if __name__ == "__main__":
    main()
