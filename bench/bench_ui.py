"""Benchmark: the touchscreen app. Needs a display; run under Xvfb:

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python bench/bench_ui.py [--hands 100]

Prints
  taps         the taps and seat presses of a typical hand (a kitty, no penalty) and of a hand
               with a penalty, from the last trick to both sides' confirmation, counted by the
               scripted hand in a real window
  cold start   process start to the first frame drawn (median of N), and memory then, for the
               kiosk and for a bare Kivy app showing one label, alternately in the same run;
               the ratios
  pause        the referee's pause key (a mock GPIO pin) to the clocks stopped in the table's
               view, through gpiozero's callback, the door and the runner's thread: p50, p99;
               and a long press on the countdown to the clocks stopped (the press is held
               0.8 s by design)
  memory       resident memory of the app after it has shown N hands, against the Zero 2 W's
               512 MB
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
import threading
import time
from pathlib import Path

BARE_APP = """
import json, os, sys, time
os.environ["KIVY_NO_ARGS"] = "1"
from kivy.config import Config
Config.set("graphics", "width", "800")
Config.set("graphics", "height", "480")
from kivy.app import App
from kivy.clock import Clock
from kivy.uix.label import Label

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

class Bare(App):
    def build(self):
        Clock.schedule_once(self.first, 0)
        return Label(text="80")

    def first(self, _dt):
        open(sys.argv[1], "w").write(json.dumps({"time": time.time(), "rss_kb": rss()}))
        Clock.schedule_once(lambda _dt: self.stop(), 0.5)

Bare().run()
"""

# Two hands from the last trick to both sides' confirmation: a typical one, then one with a
# penalty (seat, kind, the card count the ruleset asks).
TAPS_SCRIPT = (
    ("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
    ("touch", "dealer:N"), ("touch", "trump:♠"), ("touch", "start_bury"), ("wait", "clock.bury"),
    ("seat", "N"),
    ("wait", "clock.play"), ("play_out", ""), ("wait", "clock.done"),
    ("count", "typical"), ("touch", "end_play"), ("wait", "entry.points"),
    ("touch", "e_points:60"), ("wait", "entry.last_trick"), ("touch", "e_last:defenders"),
    ("wait", "entry.kitty_points"), ("touch", "e_kitty:10"), ("wait", "entry.kitty_shape"),
    ("touch", "e_shape:pair"), ("wait", "entry.penalties"), ("touch", "e_finish"),
    ("wait", "result"), ("seat", "N"), ("seat", "E"), ("wait", "ready"), ("count", "stop"),
    ("touch", "trump:♠"), ("touch", "start_bury"), ("wait", "clock.bury"), ("seat", "*"),
    ("wait", "clock.play"),
    ("play_out", ""), ("wait", "clock.done"),
    ("count", "penalty"), ("touch", "end_play"), ("wait", "entry.points"),
    ("touch", "e_points:40"), ("wait", "entry.last_trick"), ("touch", "e_last:dealer"),
    ("wait", "entry.penalties"), ("touch", "e_add"), ("wait", "entry.penalty_seat"),
    ("touch", "e_pseat:W"), ("wait", "entry.penalty_kind"),
    ("touch", "e_pkind:failed-throw"), ("wait", "entry.penalty_value"),
    ("touch", "e_pval:2"), ("wait", "entry.penalties"), ("touch", "e_finish"),
    ("wait", "result"), ("seat", "N"), ("seat", "E"), ("wait", "ready"), ("count", "stop"),
)


def first_frame(command: list[str], marker: Path, env: dict[str, str]) -> tuple[float, int]:
    start = time.time()
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
    data = json.loads(marker.read_text())
    return data["time"] - start, data["rss_kb"]


def cold_start(runs: int) -> dict[str, tuple[float, int]]:
    """Kiosk and bare label app, alternately; medians of the time, the last RSS."""
    times: dict[str, list[float]] = {"kiosk": [], "bare": []}
    rss: dict[str, int] = {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            marker = Path(tmp) / "first-frame.json"
            env = {**os.environ, "KIOSK_FIRST_FRAME": str(marker)}
            t, rss["kiosk"] = first_frame([sys.executable, "-m", "kiosk.cli.main", "table",
                                           "--data", tmp, "--size", "800x480"], marker, env)
            times["kiosk"].append(t)
            bare = Path(tmp) / "bare_label_app.py"  # Kivy's App looks for its own source
            bare.write_text(BARE_APP)
            t, rss["bare"] = first_frame([sys.executable, str(bare), str(marker)], marker,
                                         dict(os.environ))
            times["bare"].append(t)
    return {k: (statistics.median(v), rss[k]) for k, v in times.items()}


def tap_counts() -> dict[str, dict[str, int]]:
    """The scripted hands in a real window (a subprocess: one Kivy app a process)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, __file__, "--taps-into", tmp], check=True,
                       capture_output=True, timeout=300)
        screens = json.loads((Path(tmp) / "shots" / "screens.json").read_text())
    return screens["counts"]


def run_taps(tmp: str) -> None:
    app, factory, pins, runner, session = build_app(tmp)
    from kiosk.ui.script import run_script

    run_script(app, factory, pins, Path(tmp) / "shots", TAPS_SCRIPT)
    runner.start()
    app.run()
    runner.stop()
    session.close()


def build_app(tmp: str):  # type: ignore[no-untyped-def]
    os.environ["KIVY_NO_ARGS"] = "1"
    from kivy.config import Config

    Config.set("graphics", "width", "800")
    Config.set("graphics", "height", "480")
    from gpiozero.pins.mock import MockFactory

    from kiosk.hw.door import Door
    from kiosk.hw.panel import Panel
    from kiosk.hw.pinmap import load_pinmap
    from kiosk.hw.runner import TableRunner
    from kiosk.rules import Rulesets
    from kiosk.table.clock import SystemClock
    from kiosk.table.session import SessionConfig, TableSession
    from kiosk.ui.app import KioskApp

    clock, door, factory, pins = SystemClock(), Door(), MockFactory(), load_pinmap(None)
    session = TableSession.open(tmp, 1, Rulesets.load(), clock, SessionConfig())
    panel = Panel(pins, door, clock, pin_factory=factory)
    runner = TableRunner(session, door, panel)
    return KioskApp(runner, lang="zh-Hans"), factory, pins, runner, session


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def wait_for(predicate, timeout: float = 5.0) -> float:  # type: ignore[no-untyped-def]
    """Poll `predicate` tightly; the perf_counter when it first held."""
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the view never changed")
        time.sleep(0.0002)
    return time.perf_counter()


def in_app(hands: int, pauses: int) -> dict[str, float]:
    tmp = tempfile.mkdtemp()
    app, factory, pins, runner, session = build_app(tmp)
    from kivy.clock import Clock
    from kivy.tests.common import UnitTestTouch

    from kiosk.ui.app import resident_kb

    frame_times: list[float] = []
    result: dict[str, float] = {}
    refresh = app.refresh

    def timed(*args: object) -> None:
        start = time.perf_counter()
        refresh(*args)
        if session.state.phase == "play" and not session.state.paused:
            frame_times.append(time.perf_counter() - start)

    app.refresh = timed  # type: ignore[method-assign]
    played = {"n": 0}
    key = factory.pin(pins.pins["referee.pause"])

    def pause_key() -> list[float]:
        """Press and release the referee's pause key; time from the release (a tap: a hold
        mutes) to the clocks stopped in the view."""
        out = []
        for _ in range(pauses):
            key.drive_low()
            time.sleep(0.1)
            start = time.perf_counter()
            key.drive_high()
            out.append(wait_for(lambda: runner.view.paused) - start)
            time.sleep(0.05)
            key.drive_low()  # resume, with the same key
            time.sleep(0.1)
            key.drive_high()
            wait_for(lambda: not runner.view.paused)
            time.sleep(0.05)
        return out

    def measure_pauses() -> None:  # on a thread of its own, as the referee's hand
        keys = pause_key()
        result["key_p50_ms"] = statistics.median(keys) * 1e3
        result["key_p99_ms"] = percentile(keys, 0.99) * 1e3
        holds = []
        box: dict[str, object] = {}

        def press() -> None:  # on Kivy's thread, as a finger on the countdown
            widget = app.root.get_screen("clock").ids.countdown
            touch = UnitTestTouch(*widget.to_window(*widget.center))
            box["start"] = time.perf_counter()
            touch.touch_down()
            box["touch"] = touch

        for _ in range(5):
            Clock.schedule_once(lambda _dt: press(), 0)
            end = wait_for(lambda: runner.view.paused)
            holds.append(end - float(box["start"]))  # type: ignore[arg-type]
            Clock.schedule_once(lambda _dt: box["touch"].touch_up(), 0)  # type: ignore[attr-defined]
            time.sleep(0.2)
            key.drive_low()
            time.sleep(0.1)
            key.drive_high()
            wait_for(lambda: not runner.view.paused)
            time.sleep(0.2)
        result["hold_p50_ms"] = statistics.median(holds) * 1e3
        Clock.schedule_once(lambda _dt: finish(), 3)

    def drive(_dt: float) -> bool:
        if played["n"] < hands:
            runner.door.put(play_hand)
            played["n"] += 1
            return True
        if not result:  # then let the clock run on the play screen
            runner.door.put(start_play)
            result["rss_mb"] = resident_kb() / 1024
            threading.Thread(target=lambda: (time.sleep(1.0), measure_pauses()),
                             daemon=True).start()
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


def play_hand(session) -> None:  # type: ignore[no-untyped-def]
    """One quick hand straight through the session (on the runner's thread)."""
    if session.state.phase in ("setup", "over"):
        session.setup_match(event="bench", round=str(len(session.journal.matches()) + 1),
                            teams={"NS": "甲", "EW": "乙"}, players={}, ruleset="xiamen-2015")
    if session.state.draft.dealer is None:
        session.grab_dealer("N")
    session.declare_trump("♠", "N")
    session.start_bury()
    session.press(session.state.clock.seat)
    for _ in range(8):
        session.press(session.state.clock.seat or "N")
    session.end_play()
    session.enter_points(60)
    session.finish_entries()
    session.confirm("N")
    session.confirm("E")


def start_play(session) -> None:  # type: ignore[no-untyped-def]
    if session.state.phase in ("setup", "over"):
        play_hand(session)
    if session.state.draft.dealer is None:
        session.grab_dealer("N")
    session.declare_trump("♠", "N")
    session.start_bury()
    session.press(session.state.clock.seat)


def main() -> None:
    parser = argparse.ArgumentParser(description="touchscreen app benchmark")
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pauses", type=int, default=30)
    parser.add_argument("--taps-into", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.taps_into:
        run_taps(args.taps_into)
        return
    if not os.environ.get("DISPLAY"):
        sys.exit("no display: run under xvfb-run (see the docstring)")
    counts = tap_counts()
    for name, c in counts.items():
        print(f"{name} hand, from the last trick to both confirmations: {c['taps']} taps and "
              f"{c['presses']} seat presses")
    starts = cold_start(args.runs)
    (kiosk, kiosk_rss), (bare, bare_rss) = starts["kiosk"], starts["bare"]
    print(f"cold start to first frame (median of {args.runs}): kiosk {kiosk:.2f} s, bare Kivy "
          f"label app {bare:.2f} s, ratio {kiosk / bare:.2f}; resident then: kiosk "
          f"{kiosk_rss / 1024:.0f} MB, bare {bare_rss / 1024:.0f} MB, ratio "
          f"{kiosk_rss / bare_rss:.2f}")
    figures = in_app(args.hands, args.pauses)
    print(f"pause key to the clocks stopped in the view: p50 {figures['key_p50_ms']:.1f} ms, "
          f"p99 {figures['key_p99_ms']:.1f} ms ({args.pauses} pauses); a long press on the "
          f"countdown: {figures['hold_p50_ms']:.0f} ms from the touch (held 800 ms by design)")
    print(f"after {args.hands} hands shown: {figures['rss_mb']:.0f} MB resident "
          f"({figures['rss_mb'] / 512:.0%} of a Zero 2 W's 512 MB)")
    print(f"frame work while the move clock runs: p50 {figures['frame_p50_ms']:.2f} ms, "
          f"p99 {figures['frame_p99_ms']:.2f} ms over {figures['frames']:.0f} frames; "
          f"{figures['fps']:.0f} frames/s")


if __name__ == "__main__":
    main()
